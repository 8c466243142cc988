//! A DaemonSet's and StatefulSet's revisions (made, read back from a store, truncated), and a
//! StatefulSet's rolling update (upstream v1.35
//! `pkg/controller/statefulset/stateful_set_control.go` `updateStatefulSet`).

use std::collections::BTreeSet;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::workload::revision::{CONTROLLER_REVISION_HASH, HASH_LABEL};
use repel_core::workload::{Workload, controller_of};
use serde::Deserialize;

use super::history::{Revision, pod_label_of};
use super::{SUCCESSFUL_DELETE, WorkloadControllers, by_ordinal, owned};
use crate::clock::Millis;
use crate::cluster::{Cluster, PodId, PodPhase};
use crate::events::Event;

/// A pod's revision label.
fn revision_of(cluster: &Cluster, p: PodId) -> Option<&String> {
    cluster.pods[p].labels().get(CONTROLLER_REVISION_HASH)
}

/// Upstream `isHealthy` under monotonic management: Running and Ready, not terminating.
fn healthy(cluster: &Cluster, p: PodId) -> bool {
    let i = &cluster.pods[p];
    i.phase == PodPhase::Running && !i.terminating && i.condition("Ready") != Some("False")
}

impl WorkloadControllers {
    /// A ControllerRevision (its JSON) read from the cluster (a restarted server's store, or the
    /// controllers' own writes read back): the DaemonSet or StatefulSet its controller
    /// ownerReference names keeps it, with its number, so that the next revision is numbered
    /// after it. One whose owner is not managed is ignored.
    pub fn observe_revision(&mut self, cr: &serde_json::Value) {
        let Ok(meta) = ObjectMeta::deserialize(&cr["metadata"]) else {
            return;
        };
        let ns = repel_core::workload::namespace_of(&meta);
        let Some((kind, owner)) = controller_of(&meta) else {
            return;
        };
        let Some(t) = self.tracked.iter_mut().find(|t| {
            matches!(
                t.workload,
                Workload::DaemonSet(_) | Workload::StatefulSet(_)
            ) && t.workload.kind() == kind
                && t.workload.namespace() == ns
                && t.workload.name() == owner
        }) else {
            return;
        };
        let key = match t.workload {
            Workload::StatefulSet(_) => HASH_LABEL,
            _ => CONTROLLER_REVISION_HASH,
        };
        let name = meta.name.clone().unwrap_or_default();
        let hash = meta
            .labels
            .as_ref()
            .and_then(|l| l.get(key).cloned())
            .unwrap_or_else(|| name.rsplit('-').next().unwrap_or_default().to_string());
        t.history.observe(Revision {
            name,
            hash,
            revision: cr["revision"].as_i64().unwrap_or(0),
            data: cr["data"].clone(),
        });
    }

    /// A ControllerRevision deleted from the cluster: no workload keeps it any longer.
    pub fn forget_revision(&mut self, namespace: &str, name: &str) {
        for t in self
            .tracked
            .iter_mut()
            .filter(|t| t.workload.namespace() == namespace)
        {
            t.history.revisions.retain(|r| r.name != name);
        }
    }

    /// The ControllerRevision of DaemonSet or StatefulSet `i`'s template made current (see
    /// [`super::history::History::sync`]), its write recorded; returns the update revision's
    /// name. A StatefulSet's current revision starts as the update revision.
    pub(super) fn sync_history(&mut self, i: usize) -> Option<String> {
        let mut writes = Vec::new();
        let t = &mut self.tracked[i];
        let w = &t.workload;
        let update = t.history.sync(w, &mut writes)?;
        if let Workload::StatefulSet(_) = w {
            let current = match &t.revisions {
                Some((_, c)) if t.history.get(c).is_some() => c.clone(),
                _ => update.clone(),
            };
            t.revisions = Some((update.clone(), current));
        }
        for write in writes {
            self.note(|| write);
        }
        Some(update)
    }

    /// Old revisions of DaemonSet or StatefulSet `i` beyond its `revisionHistoryLimit` deleted
    /// (see [`super::history::History::truncate`]), after its pods were reconciled, as
    /// upstream's controllers clean up at the end of a sync.
    pub(super) fn truncate_history(&mut self, i: usize, update: Option<&str>, cluster: &Cluster) {
        let Some(update) = update else { return };
        let mut writes = Vec::new();
        let t = &mut self.tracked[i];
        let w = &t.workload;
        let mut keep = BTreeSet::from([update.to_string()]);
        if let Some((_, current)) = &t.revisions {
            keep.insert(current.clone());
        }
        let (kind, name) = (t.owner.0.clone(), t.owner.1.clone());
        let live = || {
            owned(cluster, w, &kind, &name)
                .into_iter()
                .filter_map(|p| revision_of(cluster, p).cloned())
                .collect()
        };
        t.history.truncate(w, &keep, live, &mut writes);
        for write in writes {
            self.note(|| write);
        }
    }

    /// The pod labels of a workload's revisions other than `update` (the pods a rolling update
    /// replaces; a pod with a label this controller never made is left, as for a DaemonSet).
    fn old_labels(&self, i: usize, update: &str) -> BTreeSet<String> {
        let t = &self.tracked[i];
        t.history.old_labels(&t.workload, update)
    }

    /// Upstream's StatefulSet `RollingUpdate`, once every replica is in place: from the highest
    /// ordinal down to `partition` (default 0), the first pod of an old revision that is not
    /// terminating is deleted (`SuccessfulDelete`; its ordinal comes back with the update
    /// revision), and the update waits behind a pod that is not healthy. `OnDelete` replaces
    /// nothing.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn roll_stateful_set(
        &mut self,
        i: usize,
        w: &Workload,
        update: &str,
        object: &str,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
    ) {
        let Workload::StatefulSet(set) = w else {
            return;
        };
        let strategy = set.spec.update_strategy.as_ref();
        if strategy.and_then(|s| s.type_.as_deref()) == Some("OnDelete") {
            return;
        }
        let partition = strategy
            .and_then(|s| s.rolling_update.as_ref())
            .and_then(|r| r.partition)
            .map_or(0, |p| usize::try_from(p).unwrap_or(0));
        let old = self.old_labels(i, update);
        if old.is_empty() {
            return;
        }
        let name = w.name();
        let by_ordinal = by_ordinal(cluster, w, "StatefulSet", name);
        let replicas = w.pod_count();
        for target in (partition..replicas).rev() {
            let Some(&p) = by_ordinal.get(&target) else {
                continue;
            };
            let is_old = revision_of(cluster, p).is_some_and(|r| old.contains(r));
            if is_old && !cluster.pods[p].terminating {
                let pod = cluster.pods[p].name.clone();
                cluster.delete_pod(p);
                events.push(Event::normal(
                    now,
                    SUCCESSFUL_DELETE,
                    object.to_string(),
                    None,
                    format!("delete Pod {pod} in StatefulSet {name} successful"),
                ));
                return;
            }
            if !healthy(cluster, p) {
                return;
            }
        }
    }

    /// Upstream `completeRollingUpdate`: once every replica is of the update revision and
    /// ready, the update revision becomes the current one.
    pub(super) fn complete_stateful_set_rollout(&mut self, i: usize, cluster: &Cluster) {
        let Some((update, current)) = self.tracked[i].revisions.clone() else {
            return;
        };
        if update == current {
            return;
        }
        let t = &self.tracked[i];
        let w = &t.workload;
        let old = t.history.old_labels(w, &update);
        let pods = owned(cluster, w, "StatefulSet", w.name());
        let replicas = w.pod_count();
        let updated = pods
            .iter()
            .filter(|p| !revision_of(cluster, **p).is_some_and(|r| old.contains(r)))
            .filter(|p| healthy(cluster, **p))
            .count();
        if pods.len() == replicas && updated == replicas {
            self.tracked[i].revisions = Some((update.clone(), update));
        }
    }

    /// A StatefulSet's update and current revisions and its pods' counts of each:
    /// `(update, current, updated, current_replicas)` (a pod with a label this controller never
    /// made counts as updated; as current too when no update is under way).
    pub(super) fn stateful_set_revisions(
        t: &super::Tracked,
        cluster: &Cluster,
        pods: &[PodId],
    ) -> Option<(String, String, usize, usize)> {
        let (update, current) = t.revisions.clone()?;
        let w = &t.workload;
        let old = t.history.old_labels(w, &update);
        let current_label = t.history.get(&current).map(|r| pod_label_of(w, r));
        let mut updated = 0;
        let mut at_current = 0;
        for p in pods {
            let label = revision_of(cluster, *p);
            let is_old = label.is_some_and(|r| old.contains(r));
            if !is_old {
                updated += 1;
            }
            if (update == current && !is_old)
                || (label.is_some() && label == current_label.as_ref())
            {
                at_current += 1;
            }
        }
        Some((update, current, updated, at_current))
    }
}
