//! The verdict of a workload on a pool, from the scheduler's filters (the filter stage of the
//! evaluation `repel explain` shows,
//! [`Scheduler::evaluate_filters`](repel_engine::scheduler::Scheduler::evaluate_filters)) and,
//! for a DaemonSet, the DaemonSet controller's `NodeShouldRunDaemonPod` ([`daemon_verdicts`],
//! as `explain ds/NAME` shows).
//!
//! Per node, in the scheduler's words:
//! - feasible: `lands`, or `avoided` when the node carries a `PreferNoSchedule` taint the pod
//!   does not tolerate, or the pod has preferred node affinity and the node matches none of its
//!   terms;
//! - rejected by `NodeResourcesFit` or `NodePorts` (the rules passed, the room did not):
//!   `no-room`;
//! - rejected by any other filter (`TaintToleration`, `NodeAffinity`, `NodeName`,
//!   `NodeUnschedulable`, inter-pod affinity, topology spread): `blocked`, with the first
//!   untolerated `NoSchedule`/`NoExecute` taint when TaintToleration rejected it.
//!
//! Per pool, the best of its nodes' verdicts in the order lands, avoided, no-room, blocked
//! (a pool takes the pods when one of its nodes does); a blocked pool names the taint of its
//! first node rejected by a taint, else the reason of its first node. A pool without nodes (a
//! Karpenter NodePool that has launched none, a node group not yet scaled up) is judged by
//! its template: Karpenter's provisioning verdict ([`judge_pools`]) for a NodePool, the
//! template's taints as kube-scheduler reads them for a node group ([`untolerated`]).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{PodSpec, Taint, Toleration};
use repel_core::FeatureGates;
use repel_core::affinity::PreferredSchedulingTerms;
use repel_core::explain::{DaemonVerdict, TAINT_TOLERATION, toleration_for};
use repel_core::pools::{Pool, untolerated};
use repel_core::taint::{PREFER_NO_SCHEDULE, is_do_not_schedule, taint_to_string};
use repel_core::toleration::tolerates;
use repel_engine::PodInfo;
use repel_engine::cluster::Cluster;
use repel_engine::scheduler::Evaluation;

pub use repel_core::explain::daemon_verdicts;
pub use repel_engine::controllers::karpenter::judge_pools;

use crate::model::{ClassCell, Verdict};
use crate::pools::Group;

/// The filter plugins whose rejection means "no room" rather than "not allowed".
pub const ROOM_PLUGINS: [&str; 2] = ["NodeResourcesFit", "NodePorts"];

/// One node's verdict, before pools are aggregated.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeCell {
    /// The verdict.
    pub verdict: Verdict,
    /// The taint that decided, when one did.
    pub taint: Option<Taint>,
    /// Why.
    pub reason: String,
}

/// The first of `taints` that `tolerations` do not tolerate and that `keep` picks.
fn first_untolerated<'a>(
    taints: &'a [Taint],
    tolerations: &[Toleration],
    gates: &FeatureGates,
    keep: impl Fn(&Taint) -> bool,
) -> Option<&'a Taint> {
    taints
        .iter()
        .filter(|t| keep(t))
        .find(|t| !tolerations.iter().any(|tol| tolerates(tol, t, gates)))
}

/// The verdict of the pod on node `id` from the scheduler's evaluation (see the module docs);
/// `feasible`: whether `id` is among `eval.feasible` (the caller looks it up once per node,
/// not by a scan of the feasible list).
pub fn node_cell(
    cluster: &Cluster,
    id: usize,
    pod: &PodInfo,
    feasible: bool,
    eval: &Evaluation,
    preferred: Option<&PreferredSchedulingTerms>,
    gates: &FeatureGates,
) -> NodeCell {
    let node = &cluster.nodes[id];
    let tolerations = pod.tolerations();
    if feasible {
        if let Some(t) = first_untolerated(&node.taints, tolerations, gates, |t| {
            t.effect == PREFER_NO_SCHEDULE
        }) {
            return NodeCell {
                verdict: Verdict::Avoided,
                reason: format!(
                    "the scheduler avoids the untolerated PreferNoSchedule taint {}",
                    taint_to_string(t)
                ),
                taint: Some(t.clone()),
            };
        }
        if preferred.is_some_and(|p| p.score(&node.node) == 0) {
            return NodeCell {
                verdict: Verdict::Avoided,
                taint: None,
                reason: "no term of the pod's preferred node affinity matches".to_string(),
            };
        }
        return NodeCell {
            verdict: Verdict::Lands,
            taint: None,
            reason: String::new(),
        };
    }
    let Some(status) = eval.diagnosis.status(id) else {
        // Not examined: only with percentageOfNodesToScore below 100, which the report does
        // not use.
        return NodeCell {
            verdict: Verdict::Blocked,
            taint: None,
            reason: "not examined".to_string(),
        };
    };
    let reason = status.reasons.join(", ");
    if ROOM_PLUGINS.contains(&status.plugin) {
        return NodeCell {
            verdict: Verdict::NoRoom,
            taint: None,
            reason,
        };
    }
    let taint = (status.plugin == TAINT_TOLERATION)
        .then(|| first_untolerated(&node.taints, tolerations, gates, is_do_not_schedule))
        .flatten()
        .cloned();
    NodeCell {
        verdict: Verdict::Blocked,
        taint,
        reason,
    }
}

/// A DaemonSet's verdict on one node: `lands` where its controller creates a pod, else
/// `blocked` by the check that refused the node.
pub fn daemon_cell(
    v: &DaemonVerdict,
    taints: &[Taint],
    tolerations: &[Toleration],
    gates: &FeatureGates,
) -> NodeCell {
    match &v.rejection {
        None => NodeCell {
            verdict: Verdict::Lands,
            taint: None,
            reason: String::new(),
        },
        Some(r) => NodeCell {
            verdict: Verdict::Blocked,
            taint: (r.plugin == TAINT_TOLERATION)
                .then(|| first_untolerated(taints, tolerations, gates, is_do_not_schedule))
                .flatten()
                .cloned(),
            reason: r.reason.to_string(),
        },
    }
}

/// The toleration that lets pods past `taint`, as a YAML list item to paste.
pub fn toleration_yaml(taint: &Taint) -> String {
    let t = toleration_for(taint);
    let mut s = format!(
        "- key: {}\n  operator: {}",
        quote(&taint.key),
        t.operator.unwrap_or_default()
    );
    if let Some(v) = &t.value {
        s.push_str(&format!("\n  value: {}", quote(v)));
    }
    s.push_str(&format!("\n  effect: {}", t.effect.unwrap_or_default()));
    s
}

/// A YAML scalar, quoted when plain would read differently.
fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
        && s.parse::<f64>().is_err()
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    if plain {
        s.to_string()
    } else {
        format!("{s:?}")
    }
}

/// The pool's cell from its nodes' verdicts (see the module docs).
pub fn pool_cell(pool: &str, cells: &[NodeCell]) -> ClassCell {
    let of = cells.len();
    let fit = cells
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Lands | Verdict::Avoided))
        .count();
    let best = cells
        .iter()
        .map(|c| c.verdict)
        .min()
        .unwrap_or(Verdict::Blocked);
    let pick = match best {
        Verdict::Blocked => cells
            .iter()
            .find(|c| c.taint.is_some())
            .or_else(|| cells.first()),
        v => cells.iter().find(|c| c.verdict == v),
    };
    let (taint, mut reason) = match pick {
        Some(c) => (c.taint.clone(), c.reason.clone()),
        None => (None, "the pool has no nodes".to_string()),
    };
    if best == Verdict::Lands {
        reason = format!("fits {fit} of {of} node(s)");
    } else if best == Verdict::Blocked
        && let Some(t) = &taint
    {
        reason = format!("untolerated taint {}: {reason}", taint_to_string(t));
    }
    ClassCell {
        pool: pool.to_string(),
        verdict: best,
        toleration: taint
            .as_ref()
            .filter(|_| best == Verdict::Blocked)
            .map(toleration_yaml),
        taint: taint.as_ref().map(taint_to_string),
        reason,
        fit,
        of,
    }
}

/// A pool without nodes, judged by its template for a pod with `tolerations`:
/// `karpenter`, Karpenter's verdict for the pool (`None`: it would launch a node; `Some`: its
/// reason), for a NodePool.
pub fn template_cell(
    pool: &Pool,
    tolerations: &[Toleration],
    karpenter: Option<Option<&str>>,
    gates: &FeatureGates,
) -> ClassCell {
    let t = untolerated(pool, tolerations, gates);
    let (verdict, reason) = match (karpenter, t) {
        (_, Some(t)) => (
            Verdict::Blocked,
            format!(
                "untolerated taint {} of the pool's template",
                taint_to_string(t)
            ),
        ),
        (Some(Some(why)), None) => (Verdict::Blocked, format!("Karpenter: {why}")),
        (Some(None), None) => (
            Verdict::Lands,
            "no nodes yet: Karpenter would launch one".to_string(),
        ),
        (None, None) => (
            Verdict::Lands,
            "no nodes yet: the template's taints are tolerated".to_string(),
        ),
    };
    ClassCell {
        pool: pool.name.clone(),
        verdict,
        taint: t.map(taint_to_string),
        toleration: t.map(toleration_yaml),
        reason,
        fit: 0,
        of: 0,
    }
}

/// The cells of one pod (a row's representative) over every pool.
pub fn row_cells(
    groups: &[Group],
    node_cells: &BTreeMap<usize, NodeCell>,
    tolerations: &[Toleration],
    karpenter: &dyn Fn(&Pool) -> Option<Option<String>>,
    gates: &FeatureGates,
) -> Vec<ClassCell> {
    groups
        .iter()
        .map(|g| match (&g.pool, g.nodes.is_empty()) {
            (Some(pool), true) => {
                let k = karpenter(pool);
                template_cell(pool, tolerations, k.as_ref().map(|o| o.as_deref()), gates)
            }
            _ => {
                let cells: Vec<NodeCell> = g
                    .nodes
                    .iter()
                    .filter_map(|id| node_cells.get(id).cloned())
                    .collect();
                pool_cell(&g.name, &cells)
            }
        })
        .collect()
}

/// The spec fields that decide a pod's verdicts, as a key: two pods with equal keys get equal
/// cells. Container names, images, commands and environment do not take part in filtering;
/// labels and namespace do only through inter-pod affinity and topology spread: the pod's own,
/// or the required anti-affinity of a pod already in the cluster (`existing_anti_affinity`),
/// which InterPodAffinity's Filter holds against the incoming pod's labels and namespace
/// (upstream `satisfyExistingPodsAntiAffinity`).
pub fn class_key(
    namespace: &str,
    labels: &BTreeMap<String, String>,
    spec: &PodSpec,
    existing_anti_affinity: bool,
) -> String {
    let mut s = spec.clone();
    for c in s
        .containers
        .iter_mut()
        .chain(s.init_containers.iter_mut().flatten())
    {
        c.name = String::new();
        c.image = None;
        c.command = None;
        c.args = None;
        c.env = None;
        c.env_from = None;
        c.liveness_probe = None;
        c.readiness_probe = None;
        c.startup_probe = None;
        c.volume_mounts = None;
    }
    let by_pods = existing_anti_affinity
        || s.affinity
            .as_ref()
            .is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
        || s.topology_spread_constraints.is_some();
    let spec = serde_json::to_string(&s).unwrap_or_default();
    if by_pods {
        format!("{namespace}\u{0}{labels:?}\u{0}{spec}")
    } else {
        spec
    }
}

#[cfg(test)]
mod tests {
    use repel_core::testing::taint;

    use super::*;

    fn c(verdict: Verdict, t: Option<Taint>, reason: &str) -> NodeCell {
        NodeCell {
            verdict,
            taint: t,
            reason: reason.to_string(),
        }
    }

    #[test]
    fn a_pool_takes_the_best_of_its_nodes_verdicts() {
        let gpu = taint("sku", "gpu", "NoSchedule");
        let cases: Vec<(&str, Vec<NodeCell>, Verdict, Option<&str>)> = vec![
            (
                "one node that takes the pods is enough",
                vec![
                    c(Verdict::Blocked, Some(gpu.clone()), "t"),
                    c(Verdict::Lands, None, ""),
                ],
                Verdict::Lands,
                None,
            ),
            (
                "avoided beats no room",
                vec![
                    c(Verdict::NoRoom, None, "Insufficient cpu"),
                    c(Verdict::Avoided, None, "p"),
                ],
                Verdict::Avoided,
                None,
            ),
            (
                "no room beats blocked",
                vec![
                    c(Verdict::Blocked, Some(gpu.clone()), "t"),
                    c(Verdict::NoRoom, None, "Insufficient cpu"),
                ],
                Verdict::NoRoom,
                None,
            ),
            (
                "a blocked pool names the taint of its first node refused by a taint",
                vec![
                    c(
                        Verdict::Blocked,
                        None,
                        "node(s) didn't match Pod's node affinity/selector",
                    ),
                    c(
                        Verdict::Blocked,
                        Some(gpu.clone()),
                        "node(s) had untolerated taint(s)",
                    ),
                ],
                Verdict::Blocked,
                Some("sku=gpu:NoSchedule"),
            ),
        ];
        for (name, cells, verdict, taint) in cases {
            let got = pool_cell("p", &cells);
            assert_eq!(got.verdict, verdict, "{name}");
            assert_eq!(got.taint.as_deref(), taint, "{name}");
            assert_eq!(
                got.toleration.is_some(),
                verdict == Verdict::Blocked && taint.is_some(),
                "{name}"
            );
        }
    }

    #[test]
    fn the_toleration_to_paste_is_the_narrowest_one() {
        assert_eq!(
            toleration_yaml(&taint("sku", "gpu", "NoSchedule")),
            "- key: sku\n  operator: Equal\n  value: gpu\n  effect: NoSchedule"
        );
        assert_eq!(
            toleration_yaml(&taint(
                "node-role.kubernetes.io/control-plane",
                "",
                "NoSchedule"
            )),
            "- key: node-role.kubernetes.io/control-plane\n  operator: Exists\n  effect: NoSchedule"
        );
        assert_eq!(
            toleration_yaml(&taint("level", "800", "NoSchedule")),
            "- key: level\n  operator: Equal\n  value: \"800\"\n  effect: NoSchedule"
        );
    }
}
