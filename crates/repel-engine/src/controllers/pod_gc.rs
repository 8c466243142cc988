//! The pod garbage collector (upstream `pkg/controller/podgc/gc_controller.go`, v1.35), as far
//! as nodes go: pods bound to a node that no longer exists, and pods terminating on an
//! out-of-service node.
//!
//! # Timing
//! - A pass runs every [`GC_CHECK_PERIOD`] (20 s) of cluster time, on the grid 0 s, 20 s, 40 s, …
//!   since the start (upstream `wait.Until` from the controller's start).
//! - **Orphaned pods** (`gcOrphaned`): a pass that finds a live pod whose `spec.nodeName` names
//!   no node puts that node in quarantine for [`QUARANTINE`] (40 s); the first pass at or after
//!   the quarantine's end that still finds the node missing marks each such pod `Failed` with
//!   the `DisruptionTarget` condition (`DeletionByPodGC`, "PodGC: node no longer exists") and
//!   deletes it at once (grace period 0). A node deleted at 7 s: seen at the 20 s pass, its pods
//!   gone at 60 s; their workloads replace them in the same pass. This holds too for a pod
//!   created with the name of a node that never existed, as upstream.
//! - **Terminating pods on out-of-service nodes** (`gcTerminating`): a pod being deleted on a
//!   node that is not Ready and carries the `node.kubernetes.io/out-of-service` taint (any
//!   effect, any value) is marked `Failed` and deleted at once, at the next pass.
//! - Not done: `gcTerminated` (finished pods past `--terminated-pod-gc-threshold`, 12,500 by
//!   default: more than a scenario holds) and `gcUnscheduledTerminating` (repel deletes an
//!   unbound pod at once). No events: upstream's PodGC records none.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodCondition;

use crate::clock::Millis;
use crate::cluster::{Cluster, PodId, PodPhase};
use crate::controllers::Controller;
use crate::controllers::taint_eviction::{CONDITION_DISRUPTION_TARGET, update_pod_condition};
use crate::events::Event;

/// The controller's name.
pub const NAME: &str = "pod-garbage-collector";
/// Upstream `gcCheckPeriod`.
pub const GC_CHECK_PERIOD: Millis = 20_000;
/// Upstream `quarantineTime`: how long a missing node is waited for before its pods go.
pub const QUARANTINE: Millis = 40_000;
/// The `DisruptionTarget` reason of an orphaned pod.
pub const REASON_DELETION_BY_POD_GC: &str = "DeletionByPodGC";
/// The `DisruptionTarget` message of an orphaned pod.
pub const MESSAGE_NODE_NO_LONGER_EXISTS: &str = "PodGC: node no longer exists";
/// Upstream `v1.TaintNodeOutOfService`.
pub const TAINT_NODE_OUT_OF_SERVICE: &str = "node.kubernetes.io/out-of-service";

/// The pod garbage collector.
#[derive(Debug, Default, Clone)]
pub struct PodGc {
    last_pass: Option<Millis>,
    /// Missing node name → the end of its quarantine.
    quarantine: BTreeMap<String, Millis>,
}

impl PodGc {
    /// A collector that has run no pass yet.
    pub fn new() -> Self {
        PodGc::default()
    }

    /// The first pass time at or after `t` not yet run.
    fn next_pass_at(&self, t: Millis) -> Millis {
        crate::clock::next_grid_point(t, GC_CHECK_PERIOD, self.last_pass)
    }

    /// Whether a pass has anything to look at: a live pod naming a missing node, or one
    /// terminating on an out-of-service node that is not Ready.
    fn has_work(cluster: &Cluster) -> bool {
        cluster.pods.iter().any(|p| {
            !p.deleted && (orphaned_on(cluster, p).is_some() || out_of_service(cluster, p))
        })
    }

    fn pass(&mut self, now: Millis, cluster: &mut Cluster) {
        // gcTerminating.
        let terminating: Vec<PodId> = (0..cluster.pods.len())
            .filter(|id| {
                let p = &cluster.pods[*id];
                !p.deleted && out_of_service(cluster, p)
            })
            .collect();
        for id in terminating {
            mark_failed_and_delete(cluster, id, None);
        }
        // gcOrphaned: quarantine newly missing nodes, then collect those whose time is up.
        let mut missing: Vec<(PodId, String)> = Vec::new();
        for (id, p) in cluster.pods.iter().enumerate() {
            if !p.deleted
                && let Some(node) = orphaned_on(cluster, p)
            {
                missing.push((id, node.to_string()));
            }
        }
        for (_, node) in &missing {
            self.quarantine
                .entry(node.clone())
                .or_insert(now + QUARANTINE);
        }
        let due: Vec<String> = self
            .quarantine
            .iter()
            .filter(|(_, until)| **until <= now)
            .map(|(n, _)| n.clone())
            .collect();
        for node in &due {
            self.quarantine.remove(node);
        }
        for (id, node) in missing {
            if due.contains(&node) {
                let condition = PodCondition {
                    type_: CONDITION_DISRUPTION_TARGET.to_string(),
                    status: "True".to_string(),
                    reason: Some(REASON_DELETION_BY_POD_GC.to_string()),
                    message: Some(MESSAGE_NODE_NO_LONGER_EXISTS.to_string()),
                    ..Default::default()
                };
                mark_failed_and_delete(cluster, id, Some(condition));
            }
        }
        // A node that came back left quarantine above with nothing deleted, when its turn came
        // (upstream finds it and drops it).
    }
}

/// The missing node a live pod is bound to by `spec.nodeName`, if its node does not exist.
fn orphaned_on<'a>(cluster: &Cluster, p: &'a crate::cluster::PodInfo) -> Option<&'a str> {
    p.spec_node_name()
        .filter(|n| p.node.is_none() && cluster.node_id(n).is_none())
}

/// Whether `p` is terminating on a node that is not Ready and has the out-of-service taint.
fn out_of_service(cluster: &Cluster, p: &crate::cluster::PodInfo) -> bool {
    p.terminating
        && p.node.is_some_and(|n| {
            !cluster.node_ready(n)
                && cluster
                    .nodes
                    .get(n)
                    .is_some_and(|n| n.taints.iter().any(|t| t.key == TAINT_NODE_OUT_OF_SERVICE))
        })
}

/// Upstream `markFailedAndDeletePodWithCondition`: a pod not finished is set `Failed` (with
/// `condition` when given), then deleted with grace period 0.
fn mark_failed_and_delete(cluster: &mut Cluster, id: PodId, condition: Option<PodCondition>) {
    let Some(p) = cluster.pods.get_mut(id) else {
        return;
    };
    if !matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed) {
        p.phase = PodPhase::Failed;
        let status = p.status_mut();
        status.phase = Some("Failed".into());
        if let Some(c) = condition {
            update_pod_condition(status, c);
        }
        cluster.touch_pod(id);
    }
    cluster.force_delete_pod(id);
}

impl Controller for PodGc {
    fn name(&self) -> &'static str {
        NAME
    }

    /// A pass runs when `now` is on the grid and has not had its pass. A grid point the
    /// simulation did not stop at had nothing to collect ([`PodGc::next_wake`] asks for every
    /// grid point while there is something), so its pass is not run late.
    fn reconcile(&mut self, now: Millis, cluster: &mut Cluster, _events: &mut Vec<Event>) {
        if now.rem_euclid(GC_CHECK_PERIOD) != 0 || self.last_pass == Some(now) {
            return;
        }
        self.last_pass = Some(now);
        self.pass(now, cluster);
    }

    fn next_wake(&self, now: Millis, cluster: &Cluster) -> Option<Millis> {
        (!self.quarantine.is_empty() || Self::has_work(cluster)).then(|| self.next_pass_at(now))
    }
}

#[cfg(test)]
mod tests;
