//! `kind/name` and `TYPE[.VERSION][.GROUP]/name` as kubectl reads them: the kinds `explain`
//! accepts (their names from [`repel_core::kinds`]), and the pod a target names (kubectl's
//! `resource.Builder` resolving `TYPE/NAME`).

use super::*;

/// The kinds `kind/name` accepts.
pub(super) const TARGET_KINDS: &[&str] = &[
    "Pod",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "ReplicationController",
];

/// The kind of `kind/name`'s `kind`, by kubectl's singular, plural or short names
/// ([`repel_core::kinds`]), when it is one `explain` accepts.
pub(super) fn workload_kind(s: &str) -> Option<&'static str> {
    let k = repel_core::kinds::by_name(&s.to_ascii_lowercase())?;
    TARGET_KINDS.contains(&k.kind).then_some(k.kind)
}

/// The API group of a kind `kind/name` accepts (`""`: the core group).
pub(super) fn kind_group(kind: &str) -> &'static str {
    repel_core::kinds::by_kind(kind).map_or("apps", |k| k.group)
}

/// The kind of a `TYPE[.VERSION][.GROUP]` argument, as kubectl reads it (`deploy`,
/// `deployment.apps`, `deployments.v1.apps`, `cronjob.batch`); `Err` with kubectl's message for a
/// type with a group repel does not know (`deployment.batch`). `Ok(None)`: not a type at all —
/// then the part before `/` is a namespace (a namespace is a DNS label and has no dot, so a
/// dotted word is always a type).
pub(super) fn type_arg(s: &str) -> Result<Option<&'static str>, CliError> {
    let unknown = || {
        CliError::Usage(format!(
            "error: the server doesn't have a resource type \"{s}\""
        ))
    };
    let Some((resource, rest)) = s.split_once('.') else {
        return Ok(workload_kind(s));
    };
    let kind = workload_kind(resource).ok_or_else(unknown)?;
    // VERSION.GROUP or GROUP; the core group's pods are `pods` (kubectl also takes `pods.v1`).
    let group = match rest.split_once('.') {
        Some(("v1", group)) => group,
        Some(_) => return Err(unknown()),
        None if rest == "v1" => "",
        None => rest,
    };
    if group.eq_ignore_ascii_case(kind_group(kind)) {
        Ok(Some(kind))
    } else {
        Err(unknown())
    }
}

/// Finds the pod `arg` names in the inventory, as kubectl resolves `get` arguments.
/// A pod may also be named as its workload's controller names it (`db-0`, `web-<hash>-<suffix>`
/// with the same `--seed`). `looked_in` says where, for kubectl's NotFound line (`the given
/// files`, `the cluster`, …).
pub fn resolve<'a>(
    inv: &'a Inventory,
    arg: &str,
    ns: &str,
    seed: u64,
    gates: &FeatureGates,
    looked_in: &str,
) -> Result<Target<'a>, CliError> {
    let (kind, namespace, name) = match arg.split_once('/') {
        Some((t, n)) => match type_arg(t)? {
            Some(kind) => (kind, ns, n),
            None => ("Pod", t, n),
        },
        None => ("Pod", ns, arg),
    };
    let not_found = || {
        let resource = match kind_group(kind) {
            "" => format!("{}s", kind.to_ascii_lowercase()),
            group => format!("{}s.{group}", kind.to_ascii_lowercase()),
        };
        CliError::Usage(format!(
            "Error from server (NotFound): {resource} {name:?} not found in {looked_in} (namespace {namespace:?})"
        ))
    };
    if kind == "Pod" {
        let is_it = |p: &Pod| {
            p.metadata.name.as_deref() == Some(name) && namespace_of(&p.metadata) == namespace
        };
        if let Some(pod) = inv.pods.iter().map(|p| &p.obj).find(|p| is_it(p)) {
            return Ok(Target {
                pod: pod.clone(),
                namespace: inv.namespace(namespace),
                origin: None,
                daemonset: false,
            });
        }
        // A workload's pod as `schedule` names it: only the pods its workload is missing, as
        // the claim plan finds them (the same plan `build_cluster` follows).
        let nodes: Vec<Node> = inv.nodes.iter().map(|n| n.obj.clone()).collect();
        let workloads: Vec<Workload> = inv.workloads.iter().map(|w| w.obj.clone()).collect();
        let mut pods: Vec<Pod> = inv.pods.iter().map(|p| p.obj.clone()).collect();
        let plan = claim_pods(&workloads, &mut pods, &nodes, gates);
        let taken = taken_names(&pods);
        for (w, wp) in workloads.iter().zip(&plan.workloads) {
            let ns = w.namespace();
            // Looked for as the controller makes them, not all held (a million replicas).
            let mut found = None;
            for_each_planned_part(
                w,
                wp,
                seed,
                |n| taken.contains(&format!("{ns}/{n}")),
                |spec, metadata, pin| {
                    if found.is_some()
                        || metadata.name.as_deref() != Some(name)
                        || namespace_of(&metadata) != namespace
                    {
                        return;
                    }
                    let mut spec = spec.clone();
                    if let Some(node) = pin {
                        pin_to_node(&mut spec, &node);
                    }
                    found = Some(Pod {
                        metadata,
                        spec: Some(spec),
                        status: None,
                    });
                },
            );
            if let Some(pod) = found {
                return Ok(Target {
                    pod,
                    namespace: inv.namespace(namespace),
                    origin: Some(format!("{} {}/{}", w.kind(), w.namespace(), w.name())),
                    daemonset: false,
                });
            }
        }
        return Err(not_found());
    }
    let w: &Workload = inv
        .workloads
        .iter()
        .map(|w| &w.obj)
        .find(|w| w.kind() == kind && w.name() == name && w.namespace() == namespace)
        .ok_or_else(not_found)?;
    let pod = representative_pod(w, seed)
        .ok_or_else(|| CliError::Usage(format!("{kind} {namespace}/{name} has no pod template")))?;
    Ok(Target {
        pod,
        namespace: inv.namespace(namespace),
        origin: Some(format!("{kind} {namespace}/{name}")),
        daemonset: kind == "DaemonSet",
    })
}

#[cfg(test)]
mod tests;
