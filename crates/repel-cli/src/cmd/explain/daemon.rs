//! `repel explain ds/NAME`: node by node, the pod the DaemonSet controller creates for that
//! node, pinned to it, and whether the scheduler fits it there.
//!
//! Upstream's DaemonSet controller creates one pod per node `NodeShouldRunDaemonPod` accepts
//! ([`repel_core::explain::daemon_verdicts`]), each pinned to its node by `matchFields
//! metadata.name` (`ReplaceDaemonSetPodNodeNameNodeAffinity`); the scheduler then decides only
//! whether that pod fits its own node. So each node is judged with the pod pinned to *that*
//! node, after the pods the queue puts before that pod are placed, as `repel schedule` places
//! them.

use std::collections::HashMap;

use k8s_openapi::api::core::v1::PodSpec;
use repel_core::FeatureGates;
use repel_core::admission::{AdmissionConfig, create_pod};
use repel_core::explain::{DaemonVerdict, Explanation};
use repel_core::workload::{controller_of, namespace_of, pin_to_node};
use repel_engine::PodInfo;
use repel_engine::cluster::Cluster;
use repel_engine::scheduler::{Evaluation, Scheduler, schedule_pods};

use super::{NodeRow, Target, base_row, status_row};

/// The pod the controller has for one node, and the scheduler's verdict on it.
pub struct DaemonPod {
    /// `ns/name`, when the cluster holds the pod (it is created from the input).
    pub pod: Option<String>,
    /// The scheduler's evaluation of the pod on the cluster, or the API server's refusal.
    pub eval: Result<Evaluation, String>,
}

/// The node a daemon pod is pinned to: its single required term `matchFields metadata.name In
/// [node]`, as [`pin_to_node`] writes it.
pub fn pinned_node(spec: &PodSpec) -> Option<&str> {
    let terms = &spec
        .affinity
        .as_ref()?
        .node_affinity
        .as_ref()?
        .required_during_scheduling_ignored_during_execution
        .as_ref()?
        .node_selector_terms;
    let [term] = terms.as_slice() else {
        return None;
    };
    let [req] = term.match_fields.as_deref()? else {
        return None;
    };
    if req.key != "metadata.name" || req.operator != "In" {
        return None;
    }
    match req.values.as_deref()? {
        [node] => Some(node.as_str()),
        _ => None,
    }
}

/// The DaemonSet's pods in the cluster, by the node each is bound or pinned to (the first one
/// of a node when there are several).
fn pods_by_node(cluster: &Cluster, namespace: &str, name: &str) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for (id, p) in cluster.pods.iter().enumerate() {
        if p.deleted
            || p.namespace != namespace
            || controller_of(&p.meta) != Some(("DaemonSet".to_string(), name.to_string()))
        {
            continue;
        }
        let node = p
            .node
            .and_then(|n| cluster.nodes.get(n))
            .map(|n| n.name.as_str())
            .or_else(|| p.spec_node_name())
            .or_else(|| pinned_node(p.spec()));
        if let Some(node) = node {
            out.entry(node.to_string()).or_insert(id);
        }
    }
    out
}

/// Evaluates the DaemonSet's pod for every node the controller runs one on (by `verdicts`'
/// index; `None` for the others): the cluster's pending daemon pods in queue order, each after
/// the pods before it are placed; then the bound ones, each taken off its node for the
/// evaluation; then, for a node the cluster holds no pod for, a pod made from the template and
/// pinned there.
pub fn evaluate_daemon_pods(
    sched: &mut Scheduler,
    cluster: &mut Cluster,
    target: &Target,
    verdicts: &[DaemonVerdict],
    gates: &FeatureGates,
    admission: &AdmissionConfig,
) -> Vec<Option<DaemonPod>> {
    let namespace = namespace_of(&target.pod.metadata).to_string();
    let ds_name = controller_of(&target.pod.metadata)
        .map(|(_, n)| n)
        .unwrap_or_default();
    let by_node = pods_by_node(cluster, &namespace, &ds_name);
    let mut out: Vec<Option<DaemonPod>> = verdicts.iter().map(|_| None).collect();
    let slot_of: HashMap<usize, usize> = verdicts
        .iter()
        .enumerate()
        .filter(|(_, v)| v.should_run)
        .filter_map(|(i, v)| by_node.get(&v.name).map(|id| (*id, i)))
        .collect();
    // Pending pods, in the queue's order.
    let mut queue = cluster.pending();
    Scheduler::queue_order(cluster, &mut queue);
    let mut placed = 0;
    for (at, id) in queue.iter().enumerate() {
        let Some(&slot) = slot_of.get(id) else {
            continue;
        };
        schedule_pods(sched, cluster, &queue[placed..at]);
        placed = at;
        let info = cluster.pods[*id].clone();
        out[slot] = Some(DaemonPod {
            pod: Some(info.key()),
            eval: Ok(sched.evaluate(cluster, &info)),
        });
    }
    // Bound pods (an exported cluster's), each judged off its node.
    let template_node_name = target.pod.spec.as_ref().and_then(|s| s.node_name.clone());
    for (&id, &slot) in &slot_of {
        if out[slot].is_some() {
            continue;
        }
        let Some(node) = cluster.pods.get(id).and_then(|p| p.node) else {
            continue;
        };
        cluster.unbind(id);
        let mut info = cluster.pods[id].clone();
        info.set_spec_node_name(template_node_name.clone());
        out[slot] = Some(DaemonPod {
            pod: Some(info.key()),
            eval: Ok(sched.evaluate(cluster, &info)),
        });
        cluster.bind(id, node);
    }
    // Nodes the cluster holds no pod for (e.g. the API server refused them).
    for (slot, v) in verdicts.iter().enumerate() {
        if !v.should_run || out[slot].is_some() {
            continue;
        }
        let mut pod = target.pod.clone();
        if let Some(spec) = pod.spec.as_mut() {
            pin_to_node(spec, &v.name);
        }
        let eval = create_pod(&mut pod, target.namespace, admission, gates)
            .map(|()| sched.evaluate(cluster, &PodInfo::new(pod, cluster.pods.len())))
            .map_err(|e| e.to_string());
        out[slot] = Some(DaemonPod { pod: None, eval });
    }
    out
}

/// One row per node: the controller's refusal, or the verdict on its pod for that node. No
/// scores: the pod is feasible on its own node only, and upstream scores no node when one is
/// feasible.
pub fn rows(
    core: &Explanation,
    verdicts: &[DaemonVerdict],
    pods: &[Option<DaemonPod>],
    cluster: &Cluster,
) -> Vec<NodeRow> {
    core.nodes
        .iter()
        .zip(verdicts)
        .zip(pods)
        .enumerate()
        .map(|(i, ((v, d), pod))| {
            let mut row = match (pod, &d.rejection) {
                (Some(DaemonPod { eval: Ok(eval), .. }), _) => {
                    let id = cluster.node_id(&v.name).unwrap_or(i);
                    let mut row = status_row(v, id, eval);
                    if !row.feasible {
                        row.message = Some(eval.message.clone());
                    }
                    row
                }
                (Some(DaemonPod { eval: Err(e), .. }), _) => {
                    let mut row = base_row(v, false, None, Vec::new());
                    row.message = Some(e.clone());
                    row
                }
                (None, Some(r)) => base_row(v, false, Some(r.plugin), vec![r.reason.to_string()]),
                (None, None) => base_row(v, false, None, Vec::new()),
            };
            row.scores = None;
            row.score = None;
            row.pod = pod.as_ref().and_then(|p| p.pod.clone());
            row.daemon_pod = Some(d.should_run);
            row
        })
        .collect()
}
