//! `kubectl taint`, `cordon`, `uncordon` and `delete` (kubectl v1.32).

use repel_core::kubectl::{
    ApplyTaintError, NodeSelection, kubectl_stderr_for_nodes, parse_taint_command, plan_taints,
    success_line,
};
use repel_core::labels::LabelSelector;

use super::flags::{NAMESPACE, boolean, parse_flags, value};
use super::{KubectlResult, Resource, not_found, resource, select_nodes, unknown_resource};
use crate::cluster::{Cluster, NodeId};

/// Node ids in name order (the order the API lists them).
fn nodes_by_name(cluster: &Cluster, keep: impl Fn(NodeId) -> bool) -> Vec<NodeId> {
    let mut ids: Vec<NodeId> = (0..cluster.nodes.len()).filter(|i| keep(*i)).collect();
    ids.sort_by(|a, b| cluster.nodes[*a].name.cmp(&cluster.nodes[*b].name));
    ids
}

/// `kubectl taint` (upstream `TaintOptions`, kubectl v1.32) through repel-core's parser and
/// apply rules:
///
/// 1. Flags `--overwrite`, `--all`, `-l/--selector`; the command line is checked by
///    [`parse_taint_command`] and refused with kubectl's text.
/// 2. Each selected node's taints become [`repel_core::kubectl::apply_taints`]' result, edited in place through
///    [`plan_taints`] (no `timeAdded`: kubectl never sets it), and `node/<name> <operation>` is
///    printed.
/// 3. A missing node is `Error from server (NotFound)`; a node whose change is refused keeps its
///    taints; both make the exit status 1 and the other nodes are still changed.
pub(super) fn taint(rest: &[String], cluster: &mut Cluster) -> KubectlResult {
    let mut res = KubectlResult::new();
    let specs = [
        NAMESPACE,
        boolean("overwrite"),
        boolean("all"),
        value("selector", Some('l')),
    ];
    let p = match parse_flags(rest, &specs) {
        Ok(p) => p,
        Err(e) => return res.flag_error("taint", &e),
    };
    let cmd = match parse_taint_command(&p.args, p.on("all"), p.get("selector"), p.on("overwrite"))
    {
        Ok(c) => c,
        Err(e) => {
            res.stderr
                .extend(e.kubectl_stderr().lines().map(str::to_string));
            res.ok = false;
            return res;
        }
    };
    let mut missing = Vec::new();
    let targets: Vec<NodeId> = match cmd.selection() {
        NodeSelection::All => nodes_by_name(cluster, |_| true),
        NodeSelection::Selector(s) => {
            let sel: LabelSelector = match s.parse() {
                Ok(s) => s,
                Err(e) => return res.fail(format!("{e}")),
            };
            nodes_by_name(cluster, |i| sel.matches(&cluster.nodes[i].labels))
        }
        NodeSelection::Names(names) => names
            .iter()
            .filter_map(|n| {
                let id = cluster.node_id(n);
                if id.is_none() {
                    missing.push(n.clone());
                }
                id
            })
            .collect(),
    };
    let mut errors: Vec<ApplyTaintError> = Vec::new();
    for id in targets {
        let name = cluster.nodes[id].name.clone();
        let old = &cluster.nodes[id].taints;
        match plan_taints(&name, old, &cmd.to_add, &cmd.to_remove, cmd.overwrite) {
            Ok(edit) => {
                if edit.changes(old) {
                    cluster.edit_node_taints(id, &edit);
                }
                res.out(success_line(&name, edit.operation));
            }
            Err(e) => errors.push(e),
        }
    }
    for name in &missing {
        res.err(not_found("nodes", name));
    }
    if !errors.is_empty() {
        res.errs(
            kubectl_stderr_for_nodes(&errors)
                .lines()
                .map(str::to_string),
        );
    }
    res.ok = missing.is_empty() && errors.is_empty();
    res
}

/// `kubectl cordon`/`uncordon` (upstream `RunCordonOrUncordon`, kubectl v1.32):
///
/// 1. The nodes are chosen as [`select_nodes`] does.
/// 2. A node already in the desired state prints `node/<name> already cordoned` (or
///    `already uncordoned`) and is left alone.
/// 3. Otherwise `spec.unschedulable` is set (or cleared) and `node/<name> cordoned` (or
///    `uncordoned`) is printed.
pub(super) fn cordon(
    cmd: &str,
    rest: &[String],
    cluster: &mut Cluster,
    desired: bool,
) -> KubectlResult {
    let mut res = KubectlResult::new();
    let specs = [NAMESPACE, value("selector", Some('l'))];
    let p = match parse_flags(rest, &specs) {
        Ok(p) => p,
        Err(e) => return res.flag_error(cmd, &e),
    };
    let use_line = format!("{cmd} NODE");
    let ids = match select_nodes(cmd, &use_line, &p.args, p.get("selector"), cluster) {
        Ok(ids) => ids,
        Err(r) => return r,
    };
    for id in ids {
        res.out(cordon_node(cluster, id, desired));
    }
    res
}

/// Cordons (or uncordons) one node; the line kubectl prints.
pub(super) fn cordon_node(cluster: &mut Cluster, id: NodeId, desired: bool) -> String {
    let name = cluster.nodes[id].name.clone();
    let word = if desired { "cordoned" } else { "uncordoned" };
    if cluster.nodes[id].unschedulable == desired {
        format!("node/{name} already {word}")
    } else {
        cluster.set_unschedulable(id, desired);
        format!("node/{name} {word}")
    }
}

/// Splits resource arguments as kubectl's `ResourceTypeOrNameArgs`: `TYPE NAME…` or
/// `TYPE/NAME…`. Returns `(type word, name)` pairs or kubectl's refusal.
pub(super) fn resource_args(args: &[String]) -> Result<Vec<(String, String)>, String> {
    if args.iter().any(|a| a.contains('/')) {
        let mut out = Vec::new();
        for a in args {
            match a.split_once('/') {
                Some((ty, name)) if !ty.is_empty() && !name.is_empty() => {
                    out.push((ty.to_string(), name.to_string()))
                }
                _ => {
                    return Err("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'".to_string());
                }
            }
        }
        return Ok(out);
    }
    match args.split_first() {
        None => Ok(Vec::new()),
        Some((_, [])) => Err("resource(s) were provided, but no name was specified".to_string()),
        Some((ty, names)) => Ok(names.iter().map(|n| (ty.clone(), n.clone())).collect()),
    }
}

/// kubectl's message for `delete` without arguments.
const DELETE_NO_RESOURCES: &str = "You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'";

/// kubectl's warning for a forced deletion.
pub const FORCE_DELETE_WARNING: &str = "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.";

/// `kubectl delete pod|node NAME…` (upstream `DeleteOptions`, kubectl v1.32):
///
/// 1. Flags `-n`, `--grace-period`, `--force`, `--now`, `--wait`, `--ignore-not-found`.
///    `--force` with no grace period means 0; then kubectl warns and prints `force deleted`.
/// 2. Each pod (in `-n`'s namespace, `default` without it) is deleted: `pod "x" deleted`.
/// 3. Each node is deleted: `node "x" deleted`; the pods bound to it are deleted too, at once
///    (upstream's pod garbage collector does this about 40 s later).
/// 4. A missing object is `Error from server (NotFound)` unless `--ignore-not-found`; the others
///    are still deleted.
pub(super) fn delete(rest: &[String], cluster: &mut Cluster) -> KubectlResult {
    let mut res = KubectlResult::new();
    let specs = [
        NAMESPACE,
        value("grace-period", None),
        boolean("force"),
        boolean("now"),
        boolean("wait"),
        boolean("ignore-not-found"),
    ];
    let p = match parse_flags(rest, &specs) {
        Ok(p) => p,
        Err(e) => return res.flag_error("delete", &e),
    };
    let grace: i64 = match p.get("grace-period").map(str::parse::<i64>) {
        None => -1,
        Some(Ok(g)) => g,
        Some(Err(_)) => {
            let v = p.get("grace-period").unwrap_or_default();
            return res.flag_error(
                "delete",
                &format!(
                    "invalid argument {v:?} for \"--grace-period\" flag: strconv.ParseInt: parsing {v:?}: invalid syntax"
                ),
            );
        }
    };
    let force = p.on("force") && grace <= 0;
    if p.args.is_empty() {
        return res.fail(DELETE_NO_RESOURCES);
    }
    let targets = match resource_args(&p.args) {
        Ok(t) => t,
        Err(e) => return res.fail(e),
    };
    if force {
        res.err(FORCE_DELETE_WARNING);
    }
    let op = if force { "force deleted" } else { "deleted" };
    let ns = p.get("namespace").unwrap_or("default").to_string();
    for (ty, name) in targets {
        match resource(&ty) {
            Some(Resource::Pod) => match cluster.pod_id(&ns, &name) {
                Some(id) => {
                    cluster.delete_pod(id);
                    res.deleted.push(id);
                    res.out(format!("pod {name:?} {op}"));
                }
                None if p.on("ignore-not-found") => {}
                None => {
                    res.err(not_found("pods", &name));
                    res.ok = false;
                }
            },
            Some(Resource::Node) => match cluster.node_id(&name) {
                Some(id) => {
                    // Its pods stay until the pod garbage collector removes them.
                    cluster.delete_node(id);
                    res.deleted_node_ids.push(id);
                    res.deleted_nodes.push(name.clone());
                    res.out(format!("node {name:?} {op}"));
                }
                None if p.on("ignore-not-found") => {}
                None => {
                    res.err(not_found("nodes", &name));
                    res.ok = false;
                }
            },
            Some(Resource::Other(plural)) => {
                return res.fail(format!(
                    "repel: kubectl delete acts on pods and nodes in scenario steps; use a delete: step for {plural}"
                ));
            }
            None => return res.fail(unknown_resource(&ty)),
        }
    }
    res
}
