//! `kubectl drain` (kubectl v1.32: `staging/src/k8s.io/kubectl/pkg/cmd/drain/drain.go` over
//! `pkg/drain/{drain,filters}.go`) and the eviction API it calls
//! (`pkg/registry/core/pod/storage/eviction.go`).
//!
//! The drain cordons the nodes, runs kubectl's pod filters (DaemonSet-managed, mirror, local
//! storage, unmanaged) and evicts what passes, honouring PodDisruptionBudgets, all at one
//! instant of simulated time. Where kubectl would wait, repel decides:
//!
//! - A pod the eviction API refuses with 429 (its budget allows no disruption) is retried by
//!   kubectl every 5 s, forever without `--timeout`. The budget cannot change while a step runs,
//!   so repel prints kubectl's retry line once and gives up on the pod: with `--timeout` with
//!   kubectl's `global timeout reached` error, without it with the eviction error itself and a
//!   `repel:` note. The pod stays, the node stays cordoned, the step fails as kubectl's drain
//!   would (by timing out, or by being interrupted).
//! - Evicted pods go at once: `--grace-period` is accepted and has no effect.
//! - A DaemonSet named by a pod's owner reference is taken to exist here (the cluster holds
//!   pods, not workloads); `repel drain` gives the DaemonSets it read
//!   ([`DrainOptions::daemon_sets`]) and meets upstream's orphaned-DaemonSet case.
//! - `--skip-wait-for-delete-timeout` is accepted; no pod is ever terminating here.

use repel_core::labels::LabelSelector;

use super::flags::{NAMESPACE, boolean, parse_flags, value};
use super::simple::cordon_node;
use super::{KubectlResult, go_aggregate, go_duration, select_nodes};
use crate::clock::parse_duration;
use crate::cluster::{Cluster, NodeId, PodId};
use crate::kubectl::drain::{DrainOptions, pods_for_deletion};
use crate::kubectl::eviction::{EvictionError, evict_pod};

/// What evicting (or deleting) a node's pods did.
struct PodsOutcome {
    errors: Vec<String>,
}

/// Upstream `DeleteOrEvictPods` → `evictPods` / `deletePods`, at one instant (see the module
/// docs for 429s).
fn delete_or_evict(
    res: &mut KubectlResult,
    cluster: &mut Cluster,
    pods: &[PodId],
    opts: &DrainOptions,
) -> PodsOutcome {
    let mut errors = Vec::new();
    if opts.disable_eviction {
        for id in pods {
            let name = cluster.pods[*id].name.clone();
            cluster.delete_pod(*id);
            res.deleted.push(*id);
            res.out(format!("pod/{name} deleted"));
        }
        return PodsOutcome { errors };
    }
    let mut done = Vec::new();
    for id in pods {
        let (ns, name) = (
            cluster.pods[*id].namespace.clone(),
            cluster.pods[*id].name.clone(),
        );
        res.out(format!("evicting pod {ns}/{name}"));
        match evict_pod(cluster, *id) {
            Ok(()) => done.push(*id),
            Err(EvictionError::TooManyRequests(msg)) => {
                res.blocked.push(*id);
                res.err(format!(
                    "error when evicting pods/{name:?} -n {ns:?} (will retry after 5s): {msg}"
                ));
                match opts.timeout {
                    Some(t) => {
                        let attempts = (t.max(1) + 4_999) / 5_000;
                        if attempts > 1 {
                            res.err(format!(
                                "repel: kubectl repeats this every 5s, {attempts} attempts in all within --timeout={}",
                                go_duration(t)
                            ));
                        }
                        res.out(format!("evicting pod {ns}/{name}"));
                        errors.push(format!(
                            "error when evicting pods/{name:?} -n {ns:?}: global timeout reached: {}",
                            go_duration(t)
                        ));
                    }
                    None => {
                        res.err("repel: kubectl would retry every 5s until the budget allows it; the simulated drain gives up on this pod (give --timeout to bound it as kubectl does)");
                        errors.push(format!(
                            "error when evicting pods/{name:?} -n {ns:?}: {msg}"
                        ));
                    }
                }
            }
            Err(EvictionError::Refused(msg)) => {
                errors.push(format!(
                    "error when evicting pods/{name:?} -n {ns:?}: {msg}"
                ));
            }
        }
    }
    for id in done {
        res.evicted.push(id);
        res.out(format!("pod/{} evicted", cluster.pods[id].name));
    }
    PodsOutcome { errors }
}

/// A parsed drain command line.
struct DrainCommand {
    opts: DrainOptions,
    names: Vec<String>,
    selector: Option<String>,
    /// pflag's deprecation notice, printed first.
    deprecations: Vec<String>,
}

/// Parses the drain flags; a refusal is returned as the finished result.
// A refusal is the command's finished result, built once per command line.
#[allow(clippy::result_large_err)]
fn command(rest: &[String]) -> Result<DrainCommand, KubectlResult> {
    let res = KubectlResult::new();
    let specs = [
        NAMESPACE,
        boolean("force"),
        boolean("ignore-daemonsets"),
        boolean("ignore-errors"),
        boolean("delete-emptydir-data"),
        boolean("delete-local-data"),
        boolean("disable-eviction"),
        value("grace-period", None),
        value("timeout", None),
        value("selector", Some('l')),
        value("pod-selector", None),
        value("skip-wait-for-delete-timeout", None),
        value("chunk-size", None),
    ];
    let p = match parse_flags(rest, &specs) {
        Ok(p) => p,
        Err(e) => return Err(res.flag_error("drain", &e)),
    };
    for int_flag in ["grace-period", "skip-wait-for-delete-timeout", "chunk-size"] {
        if let Some(v) = p.get(int_flag)
            && v.parse::<i64>().is_err()
        {
            return Err(res.flag_error(
                "drain",
                &format!("invalid argument {v:?} for \"--{int_flag}\" flag: strconv.ParseInt: parsing {v:?}: invalid syntax"),
            ));
        }
    }
    let timeout = match p.get("timeout").map(parse_duration) {
        None | Some(Ok(0)) => None,
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => {
            let v = p.get("timeout").unwrap_or_default();
            return Err(res.flag_error(
                "drain",
                &format!("invalid argument {v:?} for \"--timeout\" flag: {e}"),
            ));
        }
    };
    let pod_selector = match p.get("pod-selector").filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => match s.parse::<LabelSelector>() {
            Ok(sel) => Some(sel),
            Err(_) => {
                return Err(
                    res.fail("--pod-selector=<pod_selector> must be a valid label selector")
                );
            }
        },
    };
    let deprecations = if p.changed("delete-local-data") {
        vec![DELETE_LOCAL_DATA_DEPRECATED.to_string()]
    } else {
        Vec::new()
    };
    Ok(DrainCommand {
        opts: DrainOptions {
            force: p.on("force"),
            ignore_daemonsets: p.on("ignore-daemonsets"),
            delete_emptydir_data: p.on("delete-emptydir-data") || p.on("delete-local-data"),
            disable_eviction: p.on("disable-eviction"),
            timeout,
            pod_selector,
            daemon_sets: None,
        },
        names: p.args.clone(),
        selector: p.get("selector").map(str::to_string),
        deprecations,
    })
}

/// pflag's notice for the deprecated `--delete-local-data`.
pub const DELETE_LOCAL_DATA_DEPRECATED: &str = "Flag --delete-local-data has been deprecated, This option is deprecated and will be deleted. Use --delete-emptydir-data.";

/// Upstream `deleteOrEvictPodsSimple` for one node: `Err` carries the node's error messages
/// (an aggregate's members).
fn drain_node(
    res: &mut KubectlResult,
    cluster: &mut Cluster,
    node: NodeId,
    opts: &DrainOptions,
) -> Result<(), Vec<String>> {
    let list = pods_for_deletion(cluster, node, opts);
    let errs = list.errors();
    if !errs.is_empty() {
        return Err(errs);
    }
    let warnings = list.warnings();
    if !warnings.is_empty() {
        res.err(format!("Warning: {warnings}"));
    }
    let outcome = delete_or_evict(res, cluster, &list.pods(), opts);
    if outcome.errors.is_empty() {
        return Ok(());
    }
    let err = go_aggregate(&outcome.errors);
    let pending = pods_for_deletion(cluster, node, opts).pods();
    if !pending.is_empty() {
        let name = &cluster.nodes[node].name;
        res.err(format!(
            "There are pending pods in node {name:?} when an error occurred: {err}"
        ));
        for id in pending {
            res.err(format!("pod/{}", cluster.pods[id].name));
        }
    }
    Err(outcome.errors)
}

/// `kubectl drain` (upstream `DrainCmdOptions.RunDrain`, kubectl v1.32):
///
/// 1. Flags as kubectl's; the nodes are chosen as [`select_nodes`] does (a missing node stops
///    everything before any change).
/// 2. Every node is cordoned first (`node/x cordoned` or `node/x already cordoned`).
/// 3. Per node: [`pods_for_deletion`]; any filter error fails the node ("cannot delete …:
///    ns/name, …"); else the warnings print as `Warning: …`, the pods are evicted
///    ([`evict_pod`], `evicting pod ns/name` then `pod/name evicted`) or, with
///    `--disable-eviction`, deleted (`pod/name deleted`), and `node/x drained` is printed.
/// 4. A failed node prints `error: unable to drain node "x" due to error: <err>, continuing
///    command...`; the others are still drained; at the end `There are pending nodes to be
///    drained:` lists the failed ones and the errors print one per line (kubectl's aggregate),
///    exit status 1.
pub(super) fn run(rest: &[String], cluster: &mut Cluster) -> KubectlResult {
    let cmd = match command(rest) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let mut res = KubectlResult::new();
    res.errs(cmd.deprecations.iter().cloned());
    let ids = match select_nodes(
        "drain",
        "drain NODE",
        &cmd.names,
        cmd.selector.as_deref(),
        cluster,
    ) {
        Ok(ids) => ids,
        Err(mut r) => {
            r.stderr.splice(0..0, cmd.deprecations.iter().cloned());
            r.transcript.splice(
                0..0,
                cmd.deprecations
                    .iter()
                    .map(|d| (super::Stream::Err, d.clone())),
            );
            return r;
        }
    };
    for id in &ids {
        let line = cordon_node(cluster, *id, true);
        res.out(line);
    }
    let mut fatal: Vec<Vec<String>> = Vec::new();
    let mut remaining = Vec::new();
    for id in ids {
        match drain_node(&mut res, cluster, id, &cmd.opts) {
            Ok(()) => res.out(format!("node/{} drained", cluster.nodes[id].name)),
            Err(errs) => {
                let name = cluster.nodes[id].name.clone();
                res.err(format!(
                    "error: unable to drain node {name:?} due to error: {}, continuing command...",
                    go_aggregate(&errs)
                ));
                remaining.push(name);
                fatal.push(errs);
            }
        }
    }
    if remaining.is_empty() {
        return res;
    }
    res.err("There are pending nodes to be drained:");
    for name in &remaining {
        res.err(format!(" {name}"));
    }
    let lines: Vec<String> = match fatal.as_slice() {
        [one] => one.clone(),
        many => many.iter().map(|e| go_aggregate(e)).collect(),
    };
    res.errs(lines);
    res.ok = false;
    res
}
