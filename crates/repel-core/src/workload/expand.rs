//! A workload expanded into the pods its controller would create, named as upstream names them
//! (after upstream's ReplicaSet, StatefulSet, DaemonSet and Job controllers'
//! `pkg/controller/*/` pod creation, v1.35).

use super::*;

/// The pods a workload's controller creates, as it creates them (before admission), when
/// none of its pods exist yet: names as described in the module docs, template labels plus the
/// controller's own, DaemonSet pods with the DaemonSet tolerations and pinned to their node.
/// With pods already there, use [`claim::plan`] and [`expand_planned`].
pub fn expand_pods(w: &Workload, nodes: &[Node], gates: &FeatureGates, seed: u64) -> Vec<Pod> {
    let p = claim::plan(std::slice::from_ref(w), &[], nodes, gates);
    match p.workloads.first() {
        Some(wp) => expand_planned(w, wp, seed, |_| false),
        None => Vec::new(),
    }
}

/// The pods a workload's controller creates, as metadata beside one shared spec: what
/// [`expand_planned`] returns, without a copy of the spec per pod (a workload's pods share it
/// until admission; a DaemonSet's differ only in the node each is pinned to).
#[derive(Debug, Clone)]
pub struct PlannedPods {
    /// The template's spec as the controller sets it (a DaemonSet's with the DaemonSet
    /// tolerations), before any pinning.
    pub spec: PodSpec,
    /// Each pod's metadata (boxed: it moves on as a pointer, into the cluster's pods), and
    /// the node a DaemonSet pod is pinned to.
    pub pods: Vec<(Box<ObjectMeta>, Option<String>)>,
}

impl PlannedPods {
    /// The pods as whole objects (each with its own copy of the spec, pinned when a DaemonSet's).
    pub fn into_pods(self) -> Vec<Pod> {
        let PlannedPods { spec, pods } = self;
        pods.into_iter()
            .map(|(metadata, pin)| {
                let mut spec = spec.clone();
                if let Some(node) = pin {
                    pin_to_node(&mut spec, &node);
                }
                Pod {
                    metadata: *metadata,
                    spec: Some(spec),
                    status: None,
                }
            })
            .collect()
    }
}

/// The pods `w`'s controller creates according to its share of a [`claim::plan`]: its missing
/// pods, owned by the plan's owner, named as in the module docs; a generated name `taken(name)`
/// says exists already (in the workload's namespace), or that this workload's controller has
/// just given another of its pods, is drawn again.
pub fn expand_planned(
    w: &Workload,
    plan: &claim::WorkloadPlan,
    seed: u64,
    taken: impl Fn(&str) -> bool,
) -> Vec<Pod> {
    let mut out = Vec::new();
    for_each_planned_pod(w, plan, seed, taken, |pod| out.push(pod));
    out
}

/// The most pods [`expand_planned_parts`] makes room for before it makes them.
pub(super) const PLANNED_ROOM_MAX: usize = 1 << 16;

/// [`expand_planned`] as metadata beside one shared spec; `None` when the workload has no
/// template.
pub fn expand_planned_parts(
    w: &Workload,
    plan: &claim::WorkloadPlan,
    seed: u64,
    taken: impl Fn(&str) -> bool,
) -> Option<PlannedPods> {
    // Room for every pod at once (within a bound: the count is the input's).
    let mut pods = Vec::with_capacity(plan.create.count().min(PLANNED_ROOM_MAX));
    let spec = for_each_planned_part(w, plan, seed, taken, |_, meta, pin| {
        pods.push((Box::new(meta), pin));
    })?;
    Some(PlannedPods { spec, pods })
}

/// [`expand_planned`] one pod at a time, in the same order and with the same names: `each`
/// gets every pod as it is made, so a workload of a million replicas never has all its pods
/// in memory at once.
pub fn for_each_planned_pod(
    w: &Workload,
    plan: &claim::WorkloadPlan,
    seed: u64,
    taken: impl Fn(&str) -> bool,
    mut each: impl FnMut(Pod),
) {
    for_each_planned_part(w, plan, seed, taken, |spec, metadata, pin| {
        let mut spec = spec.clone();
        if let Some(node) = pin {
            pin_to_node(&mut spec, &node);
        }
        each(Pod {
            metadata,
            spec: Some(spec),
            status: None,
        });
    });
}

/// [`expand_planned_parts`] one pod at a time: `each` gets the shared spec (before pinning),
/// then each pod's metadata and the node a DaemonSet pod is pinned to, in order. Returns the
/// shared spec; `None` (and no call) when the workload has no template.
pub fn for_each_planned_part(
    w: &Workload,
    plan: &claim::WorkloadPlan,
    seed: u64,
    taken: impl Fn(&str) -> bool,
    mut each: impl FnMut(&PodSpec, ObjectMeta, Option<String>),
) -> Option<PodSpec> {
    match &plan.owner {
        Some(owner) => pods_for(w, &plan.create, Some(owner), seed, &taken, &mut each),
        // A CronJob's next run (its Job is not in the input).
        None if matches!(w, Workload::CronJob(_)) => {
            pods_for(w, &plan.create, None, seed, &taken, &mut each)
        }
        None => None,
    }
}

/// One pod as the workload's controller would create it, whatever its replica count: for
/// explaining where the workload's pods may go. A DaemonSet's pod carries the DaemonSet
/// tolerations but is not pinned to a node.
pub fn representative_pod(w: &Workload, seed: u64) -> Option<Pod> {
    let mut first = None;
    let spec = pods_for(
        w,
        &claim::Create::Pods(1),
        None,
        seed,
        &|_| false,
        &mut |_, meta, _| {
            first.get_or_insert(meta);
        },
    )?;
    Some(Pod {
        metadata: first?,
        spec: Some(spec),
        status: None,
    })
}

/// The generated suffixes one controller has given so far (upstream's API server refuses a
/// name that exists, and the controller tries another): 27^5 suffixes, so a workload of a
/// million replicas would otherwise repeat tens of thousands of names.
#[derive(Default)]
pub(super) struct Drawn(std::collections::HashSet<[u8; 5]>);

/// How many 5-character suffixes there are (27^5).
pub(super) const SUFFIXES: usize = 27 * 27 * 27 * 27 * 27;

/// A fresh name `prefix-<5 chars>` that `taken` does not know and `drawn` has not given while
/// any suffix is left (27^5 names; the caller's cap on replicas is far below: this ends).
pub(super) fn fresh(
    rng: &mut NameRng,
    prefix: &str,
    taken: &dyn Fn(&str) -> bool,
    drawn: &mut Drawn,
) -> String {
    loop {
        // `rng.suffix(5)`, without a string of its own.
        let key: [u8; 5] = std::array::from_fn(|_| rng.letter());
        if drawn.0.len() < SUFFIXES && drawn.0.contains(&key) {
            continue;
        }
        let mut name = String::with_capacity(prefix.len() + 6);
        name.push_str(prefix);
        name.push('-');
        name.extend(key.iter().map(|b| char::from(*b)));
        if !taken(&name) {
            drawn.0.insert(key);
            return name;
        }
    }
}

/// The pods `create` asks for, one [`ObjectMeta`] (and pin) at a time into `emit`; a `Pods(n)`
/// of a DaemonSet is `n` unpinned pods. `owner` defaults to the workload itself (a
/// Deployment's: its template's ReplicaSet). Returns the shared spec.
pub(super) fn pods_for(
    w: &Workload,
    create: &claim::Create,
    owner: Option<&claim::OwnerId>,
    seed: u64,
    taken: &dyn Fn(&str) -> bool,
    emit: &mut dyn FnMut(&PodSpec, ObjectMeta, Option<String>),
) -> Option<PodSpec> {
    use claim::Create;
    let (template, _) = w.template()?;
    let mut spec = template.spec.clone().unwrap_or_default();
    if matches!(w, Workload::DaemonSet(_)) {
        add_daemonset_tolerations(&mut spec);
    }
    let ns = w.namespace();
    let name = w.name();
    let mut rng = NameRng::new(seed, &format!("{}/{}/{}", w.kind(), ns, name));
    let mut drawn = Drawn::default();
    let meta = w.metadata();
    let count = create.count();
    let owner_meta = |o: &claim::OwnerId| ObjectMeta {
        name: Some(o.name.clone()),
        namespace: Some(ns.to_string()),
        uid: o.uid.clone(),
        ..Default::default()
    };
    let self_owner = |kind: &str| {
        owner.map_or_else(
            || owner_ref(api_version_of(kind), kind, meta),
            |o| owner_ref(api_version_of(kind), kind, &owner_meta(o)),
        )
    };
    match w {
        Workload::Deployment(_) => {
            let (rs, hash, rs_meta) = match owner {
                Some(o) => {
                    let hash = o
                        .name
                        .strip_prefix(name)
                        .and_then(|r| r.strip_prefix('-'))
                        .map(str::to_string)
                        .unwrap_or_else(|| pod_template_hash(template));
                    (o.name.clone(), hash, owner_meta(o))
                }
                None => {
                    let hash = pod_template_hash(template);
                    let rs = format!("{name}-{hash}");
                    let rs_meta = ObjectMeta {
                        name: Some(rs.clone()),
                        namespace: Some(ns.to_string()),
                        ..Default::default()
                    };
                    (rs, hash, rs_meta)
                }
            };
            let owner = owner_ref("apps/v1", "ReplicaSet", &rs_meta);
            for _ in 0..count {
                let pod_name = fresh(&mut rng, &rs, taken, &mut drawn);
                let labels = [("pod-template-hash", hash.clone())];
                let meta = meta_from_template(template, ns, pod_name, &labels, owner.clone());
                emit(&spec, meta, None);
            }
        }
        Workload::ReplicaSet(_) | Workload::ReplicationController(_) => {
            let owner = self_owner(w.kind());
            for _ in 0..count {
                let pod_name = fresh(&mut rng, name, taken, &mut drawn);
                emit(
                    &spec,
                    meta_from_template(template, ns, pod_name, &[], owner.clone()),
                    None,
                );
            }
        }
        Workload::StatefulSet(_) => {
            let ordinals: Vec<u64> = match create {
                Create::Ordinals(o) => o.clone(),
                _ => (0..count as u64).collect(),
            };
            let owner = self_owner("StatefulSet");
            // One revision for all its pods (hashing the template is most of making a pod).
            let revision = revision::stateful_set_revision_name(name, template);
            for i in ordinals {
                let pod_name = format!("{name}-{i}");
                let labels = [
                    ("statefulset.kubernetes.io/pod-name", pod_name.clone()),
                    ("apps.kubernetes.io/pod-index", i.to_string()),
                    (revision::CONTROLLER_REVISION_HASH, revision.clone()),
                ];
                emit(
                    &spec,
                    meta_from_template(template, ns, pod_name, &labels, owner.clone()),
                    None,
                );
            }
        }
        Workload::DaemonSet(_) => {
            let targets: Vec<Option<String>> = match create {
                Create::OnNodes(nodes) => nodes.iter().cloned().map(Some).collect(),
                _ => vec![None; count],
            };
            let owner = self_owner("DaemonSet");
            let labels = [("controller-revision-hash", pod_template_hash(template))];
            for pin in targets {
                let pod_name = fresh(&mut rng, name, taken, &mut drawn);
                emit(
                    &spec,
                    meta_from_template(template, ns, pod_name, &labels, owner.clone()),
                    pin,
                );
            }
        }
        Workload::Job(_) => {
            let owner = self_owner("Job");
            for _ in 0..count {
                let labels = [
                    ("batch.kubernetes.io/job-name", name.to_string()),
                    ("job-name", name.to_string()),
                ];
                let pod_name = fresh(&mut rng, name, taken, &mut drawn);
                emit(
                    &spec,
                    meta_from_template(template, ns, pod_name, &labels, owner.clone()),
                    None,
                );
            }
        }
        Workload::CronJob(_) => {
            // Upstream names a CronJob's job after its scheduled time in minutes since the epoch;
            // there is no clock here, so the minutes come from the seed.
            let job = format!("{name}-{}", 29_000_000 + rng.next() % 1_000_000);
            let job_meta = ObjectMeta {
                name: Some(job.clone()),
                namespace: Some(ns.to_string()),
                ..Default::default()
            };
            let owner = owner_ref("batch/v1", "Job", &job_meta);
            for _ in 0..count {
                let labels = [
                    ("batch.kubernetes.io/job-name", job.clone()),
                    ("job-name", job.clone()),
                ];
                let pod_name = fresh(&mut rng, &job, taken, &mut drawn);
                emit(
                    &spec,
                    meta_from_template(template, ns, pod_name, &labels, owner.clone()),
                    None,
                );
            }
        }
    }
    Some(spec)
}
