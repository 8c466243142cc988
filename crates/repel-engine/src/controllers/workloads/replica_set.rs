//! The ReplicaSet controller's sync (upstream `pkg/controller/replicaset`, v1.35): a
//! ReplicaSet's pods, created when missing and deleted in upstream's order when in excess. A
//! ReplicationController's too: upstream's ReplicationManager is this controller over RCs
//! converted to ReplicaSets (`pkg/controller/replication`).

use repel_core::workload::{Workload, controller_pod};

use super::scale_down::pods_to_delete;
use super::{SUCCESSFUL_DELETE, WorkloadControllers, is_active};
use crate::clock::Millis;
use crate::cluster::{Cluster, PodId};
use crate::events::Event;

/// Upstream's `burstReplicas`: at most this many pods created or deleted per sync.
pub const BURST_REPLICAS: usize = 500;

impl WorkloadControllers {
    /// The ReplicaSet controller's sync (upstream `manageReplicas`, v1.35) of ReplicaSet
    /// `rs_name`, whose pods `w` makes: deletes the excess active pods in [`pods_to_delete`]'s
    /// order (`related`: the pods of every ReplicaSet with its controller, upstream
    /// `getIndirectlyRelatedPods`), or creates the missing ones (`NAME-<5 chars>` from the
    /// workload's name stream).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn reconcile_replicas(
        &mut self,
        i: usize,
        w: &Workload,
        rs_name: &str,
        object: &str,
        pods: &[PodId],
        related: &[PodId],
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
            for p in pods_to_delete(cluster, &active, related, diff, now) {
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
