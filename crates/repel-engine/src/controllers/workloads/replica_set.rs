//! The ReplicaSet controller's sync (upstream `pkg/controller/replicaset`, v1.35): a
//! ReplicaSet's pods, created when missing and deleted in upstream's order when in excess. A
//! ReplicationController's too: upstream's ReplicationManager is this controller over RCs
//! converted to ReplicaSets (`pkg/controller/replication`).

use std::collections::HashMap;

use repel_core::workload::{Workload, controller_pod};

use super::{SUCCESSFUL_DELETE, WorkloadControllers, is_active};
use crate::clock::Millis;
use crate::cluster::{Cluster, PodId, PodPhase};
use crate::events::Event;

/// Upstream's `burstReplicas`: at most this many pods created or deleted per sync.
pub const BURST_REPLICAS: usize = 500;

/// The annotation that makes a pod cheaper or dearer to delete on scale-down.
pub const POD_DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// Upstream `getPodsToDelete` with `ActivePodsWithRanks` (v1.35): the `diff` pods a ReplicaSet
/// deletes first when it has too many. In order: unassigned before assigned; Pending before
/// Running; lower `controller.kubernetes.io/pod-deletion-cost` before higher; more of its
/// ReplicaSet's active pods on the same node before fewer. Upstream then compares ready times,
/// restart counts and creation times, none of which a simulated pod differs in; where upstream
/// leaves the order to its sort, repel deletes the newest pod first (upstream's rule for
/// differing creation times).
pub(super) fn pods_to_delete(cluster: &Cluster, active: &[PodId], diff: usize) -> Vec<PodId> {
    let mut on_node: HashMap<Option<usize>, usize> = HashMap::new();
    for p in active {
        *on_node.entry(cluster.pods[*p].node).or_default() += 1;
    }
    let cost = |p: PodId| -> i32 {
        cluster.pods[p]
            .meta
            .annotations
            .as_ref()
            .and_then(|a| a.get(POD_DELETION_COST))
            .and_then(|v| v.parse::<i32>().ok())
            .unwrap_or(0)
    };
    let mut ranked: Vec<PodId> = active.to_vec();
    ranked.sort_by_key(|p| {
        let info = &cluster.pods[*p];
        (
            info.spec_node_name().is_some(),
            info.phase != PodPhase::Pending,
            cost(*p),
            std::cmp::Reverse(on_node.get(&info.node).copied().unwrap_or(0)),
            std::cmp::Reverse(info.seq),
        )
    });
    ranked.truncate(diff);
    ranked
}

impl WorkloadControllers {
    /// The ReplicaSet controller's sync (upstream `manageReplicas`, v1.35) of ReplicaSet
    /// `rs_name`, whose pods `w` makes: deletes the excess active pods in [`pods_to_delete`]'s
    /// order, or creates the missing ones (`NAME-<5 chars>` from the workload's name stream).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn reconcile_replicas(
        &mut self,
        i: usize,
        w: &Workload,
        rs_name: &str,
        object: &str,
        pods: &[PodId],
        want: usize,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
    ) {
        let active: Vec<PodId> = pods
            .iter()
            .copied()
            .filter(|p| is_active(cluster, *p))
            .collect();
        if active.len() > want {
            let diff = (active.len() - want).min(BURST_REPLICAS);
            for p in pods_to_delete(cluster, &active, diff) {
                let name = cluster.pods[p].name.clone();
                cluster.delete_pod(p);
                events.push(Event::normal(
                    now,
                    SUCCESSFUL_DELETE,
                    object.to_string(),
                    None,
                    format!("Deleted pod: {name}"),
                ));
            }
            return;
        }
        for _ in active.len()..want {
            let name = self.free_name(i, cluster, rs_name);
            // A ReplicationController's pods name it (upstream runs it as a ReplicaSet of
            // GroupVersionKind v1/ReplicationController); a Deployment's, its ReplicaSet.
            let kind = match w {
                Workload::ReplicationController(_) => "ReplicationController",
                _ => "ReplicaSet",
            };
            let pod = controller_pod(w, name.clone(), kind, rs_name, None);
            self.create(
                cluster,
                events,
                now,
                w,
                object,
                pod,
                format!("Created pod: {name}"),
            );
        }
    }
}
