//! One sync of one Deployment (upstream `rolling.go`, `recreate.go` and `sync.go`, v1.35):
//! the scaling decisions, each recording its `ScalingReplicaSet` event and its writes.

use std::collections::BTreeMap;

use super::{
    ANNOTATIONS_TO_SKIP, DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION, ReplicaSetState, SCALING_REPLICA_SET, Strategy, max_surge,
    max_unavailable, new_rs_new_replicas,
};
use crate::actions::ObjectWrite;
use crate::clock::Millis;
use crate::events::Event;

/// One sync of one Deployment: its spec, and where its events and writes go.
pub struct Sync<'a> {
    /// The Deployment's spec.
    pub strategy: Strategy,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Now.
    pub now: Millis,
    /// The events of the pass.
    pub events: &'a mut Vec<Event>,
    /// The object writes, when recording.
    pub writes: &'a mut Option<Vec<ObjectWrite>>,
}

fn sum(rss: &[ReplicaSetState], which: &[usize], f: impl Fn(&ReplicaSetState) -> i32) -> i32 {
    which.iter().map(|i| f(&rss[*i])).sum()
}

impl Sync<'_> {
    fn write(&mut self, w: ObjectWrite) {
        if let Some(ws) = self.writes.as_mut() {
            ws.push(w);
        }
    }

    /// Upstream `SetReplicasAnnotations`: desired and max replicas; whether they changed.
    fn set_replicas_annotations(&self, rs: &mut ReplicaSetState) -> bool {
        let desired = self.strategy.replicas.to_string();
        let max = (self.strategy.replicas + max_surge(&self.strategy)).to_string();
        let mut changed = false;
        for (k, v) in [
            (DESIRED_REPLICAS_ANNOTATION, desired),
            (MAX_REPLICAS_ANNOTATION, max),
        ] {
            if rs.annotations.get(k) != Some(&v) {
                rs.annotations.insert(k.to_string(), v);
                changed = true;
            }
        }
        changed
    }

    /// Upstream `scaleReplicaSet`: sets `spec.replicas` and the replicas annotations; a size
    /// change records `ScalingReplicaSet` "Scaled {up|down} replica set NAME from OLD to NEW".
    /// Returns whether the size changed.
    pub fn scale_replica_set(
        &mut self,
        rs: &mut ReplicaSetState,
        new: i32,
        operation: &str,
    ) -> bool {
        let size_changed = rs.replicas != new;
        let before = rs.annotations.clone();
        let annotations_changed = self.set_replicas_annotations(rs);
        if !size_changed && !annotations_changed {
            return false;
        }
        let old = rs.replicas;
        rs.replicas = new;
        let annotations = rs
            .annotations
            .iter()
            .filter(|(k, v)| before.get(*k) != Some(v))
            .map(|(k, v)| (k.clone(), Some(v.clone())))
            .collect();
        self.write(ObjectWrite::Update {
            resource: "replicasets",
            namespace: self.namespace.clone(),
            name: rs.name.clone(),
            replicas: size_changed.then_some(new),
            annotations,
        });
        if size_changed {
            self.events.push(Event::normal(
                self.now,
                SCALING_REPLICA_SET,
                format!("Deployment/{}/{}", self.namespace, self.name),
                None,
                format!(
                    "Scaled {operation} replica set {} from {old} to {new}",
                    rs.name
                ),
            ));
        }
        size_changed
    }

    /// Upstream `scaleReplicaSetAndRecordEvent`: nothing when the size is already `new`.
    pub fn scale_and_record(&mut self, rs: &mut ReplicaSetState, new: i32) -> bool {
        if rs.replicas == new {
            return false;
        }
        let op = if rs.replicas < new { "up" } else { "down" };
        self.scale_replica_set(rs, new, op)
    }

    /// Upstream `reconcileNewReplicaSet` (v1.35):
    ///
    /// 1. Nothing when the new ReplicaSet has the Deployment's replicas.
    /// 2. More: scale it down to them.
    /// 3. Fewer: scale it to [`new_rs_new_replicas`] of all the ReplicaSets.
    pub fn reconcile_new_replica_set(&mut self, rss: &mut [ReplicaSetState], new: usize) -> bool {
        let want = self.strategy.replicas;
        if rss[new].replicas == want {
            return false;
        }
        if rss[new].replicas > want {
            return self.scale_and_record(&mut rss[new], want);
        }
        let current: i32 = rss.iter().map(|r| r.replicas).sum();
        let Ok(count) = new_rs_new_replicas(&self.strategy, current, rss[new].replicas) else {
            return false;
        };
        self.scale_and_record(&mut rss[new], count)
    }

    /// Upstream `reconcileOldReplicaSets` (v1.35), with `old` the active old ReplicaSets:
    ///
    /// 1. Nothing when they have no replicas.
    /// 2. `maxScaledDown = all replicas − (replicas − maxUnavailable) − the new ReplicaSet's
    ///    unavailable pods`; nothing when it is 0 or less.
    /// 3. First scale down their unavailable pods, up to `maxScaledDown`
    ///    ([`Sync::cleanup_unhealthy_replicas`]), then as many more as availability allows
    ///    ([`Sync::scale_down_old_replica_sets_for_rolling_update`]).
    pub fn reconcile_old_replica_sets(
        &mut self,
        rss: &mut [ReplicaSetState],
        old: &[usize],
        new: usize,
    ) -> bool {
        if sum(rss, old, |r| r.replicas) == 0 {
            return false;
        }
        let mut all: Vec<usize> = old.to_vec();
        all.push(new);
        let all_pods = sum(rss, &all, |r| r.replicas);
        let min_available = self.strategy.replicas - max_unavailable(&self.strategy);
        let new_unavailable = rss[new].replicas - rss[new].status.available;
        let max_scaled_down = all_pods - min_available - new_unavailable;
        if max_scaled_down <= 0 {
            return false;
        }
        let mut old = old.to_vec();
        let cleaned = self.cleanup_unhealthy_replicas(rss, &mut old, max_scaled_down);
        let mut all = old.clone();
        all.push(new);
        let scaled = self.scale_down_old_replica_sets_for_rolling_update(rss, &all, &old);
        cleaned + scaled > 0
    }

    /// Upstream `cleanupUnhealthyReplicas`: oldest first, scales each old ReplicaSet down by
    /// its unavailable pods, `max` in all; returns how many.
    pub fn cleanup_unhealthy_replicas(
        &mut self,
        rss: &mut [ReplicaSetState],
        old: &mut [usize],
        max: i32,
    ) -> i32 {
        old.sort_by_key(|i| rss[*i].created);
        let mut total = 0;
        for i in old.iter() {
            if total >= max {
                break;
            }
            let rs = &rss[*i];
            if rs.replicas == 0 || rs.replicas == rs.status.available {
                continue;
            }
            let down = (max - total).min(rs.replicas - rs.status.available);
            let new = rs.replicas - down;
            if new > rs.replicas {
                return total;
            }
            self.scale_and_record(&mut rss[*i], new);
            total += down;
        }
        total
    }

    /// Upstream `scaleDownOldReplicaSetsForRollingUpdate`: while more than `replicas −
    /// maxUnavailable` pods of `all` are available, scales the old ReplicaSets down, oldest
    /// first; returns by how many.
    pub fn scale_down_old_replica_sets_for_rolling_update(
        &mut self,
        rss: &mut [ReplicaSetState],
        all: &[usize],
        old: &[usize],
    ) -> i32 {
        let min_available = self.strategy.replicas - max_unavailable(&self.strategy);
        let available = sum(rss, all, |r| r.status.available);
        if available <= min_available {
            return 0;
        }
        let mut old = old.to_vec();
        old.sort_by_key(|i| rss[*i].created);
        let to_scale = available - min_available;
        let mut total = 0;
        for i in old {
            if total >= to_scale {
                break;
            }
            if rss[i].replicas == 0 {
                continue;
            }
            let down = rss[i].replicas.min(to_scale - total);
            let new = rss[i].replicas - down;
            self.scale_and_record(&mut rss[i], new);
            total += down;
        }
        total
    }

    /// Upstream `scaleDownOldReplicaSetsForRecreate`: every active old ReplicaSet to 0.
    pub fn scale_down_old_for_recreate(
        &mut self,
        rss: &mut [ReplicaSetState],
        old: &[usize],
    ) -> bool {
        let mut scaled = false;
        for i in old {
            if rss[*i].replicas != 0 {
                scaled |= self.scale_and_record(&mut rss[*i], 0);
            }
        }
        scaled
    }

    /// Upstream `scale` (v1.35), for a scaling event (the Deployment's replicas changed, or it
    /// is paused):
    ///
    /// 1. One active ReplicaSet (or none: the newest) takes the Deployment's replicas.
    /// 2. A saturated new ReplicaSet: the old ones go to 0.
    /// 3. A rolling update: the difference to `replicas + maxSurge` is spread over the active
    ///    ReplicaSets in proportion to their size (upstream `GetReplicaSetProportion`), larger
    ///    ones first (newer first among equals when scaling up, older first when down), the
    ///    leftover to the first.
    pub fn scale(
        &mut self,
        rss: &mut [ReplicaSetState],
        new: Option<usize>,
        deployment_replicas: i32,
    ) {
        let want = self.strategy.replicas;
        let active: Vec<usize> = (0..rss.len()).filter(|i| rss[*i].replicas > 0).collect();
        let target = match active.len() {
            0 => new.or_else(|| (0..rss.len()).max_by_key(|i| rss[*i].created)),
            1 => Some(active[0]),
            _ => None,
        };
        if let Some(t) = target {
            if rss[t].replicas != want {
                self.scale_and_record(&mut rss[t], want);
            }
            return;
        }
        if let Some(n) = new
            && rss[n].annotation_i32(DESIRED_REPLICAS_ANNOTATION) == Some(want)
            && rss[n].replicas == want
            && rss[n].status.available == want
        {
            let old: Vec<usize> = active.iter().copied().filter(|i| *i != n).collect();
            for i in old {
                self.scale_and_record(&mut rss[i], 0);
            }
            return;
        }
        if self.strategy.recreate {
            return;
        }
        let all_replicas = sum(rss, &active, |r| r.replicas);
        let surge = max_surge(&self.strategy);
        let allowed = if want > 0 { want + surge } else { 0 };
        let to_add = allowed - all_replicas;
        let mut order = active;
        let op = if to_add > 0 {
            order.sort_by_key(|i| {
                (
                    std::cmp::Reverse(rss[*i].replicas),
                    std::cmp::Reverse(rss[*i].created),
                )
            });
            "up"
        } else {
            order.sort_by_key(|i| (std::cmp::Reverse(rss[*i].replicas), rss[*i].created));
            "down"
        };
        let mut added = 0;
        let mut sizes: Vec<i32> = Vec::with_capacity(order.len());
        for i in &order {
            if to_add != 0 {
                let p = proportion(&rss[*i], &self.strategy, deployment_replicas, to_add, added);
                sizes.push(rss[*i].replicas + p);
                added += p;
            } else {
                sizes.push(rss[*i].replicas);
            }
        }
        for (k, i) in order.iter().enumerate() {
            let mut size = sizes[k];
            if k == 0 && to_add != 0 {
                size = (size + to_add - added).max(0);
            }
            self.scale_replica_set(&mut rss[*i], size, op);
        }
    }

    /// Upstream `cleanupDeployment`: the old ReplicaSets beyond `revisionHistoryLimit`, lowest
    /// revision first, are deleted when they have no replicas (spec and status). Returns the
    /// indexes deleted, highest first (so the caller can remove them in that order).
    pub fn cleanup_deployment(&mut self, rss: &[ReplicaSetState], old: &[usize]) -> Vec<usize> {
        let diff = i64::try_from(old.len()).unwrap_or(i64::MAX)
            - i64::from(self.strategy.revision_history_limit);
        if diff <= 0 {
            return Vec::new();
        }
        let mut by_revision = old.to_vec();
        by_revision.sort_by(|a, b| {
            (rss[*a].revision(), rss[*a].created, &rss[*a].name).cmp(&(
                rss[*b].revision(),
                rss[*b].created,
                &rss[*b].name,
            ))
        });
        let mut deleted = Vec::new();
        for i in by_revision
            .into_iter()
            .take(usize::try_from(diff).unwrap_or(0))
        {
            let rs = &rss[i];
            if rs.status.replicas != 0 || rs.replicas != 0 {
                continue;
            }
            self.write(ObjectWrite::Delete {
                resource: "replicasets",
                namespace: self.namespace.clone(),
                name: rs.name.clone(),
            });
            deleted.push(i);
        }
        deleted.sort_unstable_by(|a, b| b.cmp(a));
        deleted
    }

    /// Upstream `SetNewReplicaSetAnnotations` (v1.35): copies the Deployment's annotations
    /// (but upstream's `annotationsToSkip`), raises the revision to `revision` when it is lower
    /// (keeping the one it had in `revision-history`), and for a ReplicaSet about to be created
    /// sets the replicas annotations. Returns the annotations changed.
    pub fn set_new_replica_set_annotations(
        &self,
        deployment_annotations: &BTreeMap<String, String>,
        rs: &mut ReplicaSetState,
        revision: i64,
        exists: bool,
    ) -> BTreeMap<String, Option<String>> {
        let before = rs.annotations.clone();
        for (k, v) in deployment_annotations {
            if !ANNOTATIONS_TO_SKIP.contains(&k.as_str()) {
                rs.annotations.insert(k.clone(), v.clone());
            }
        }
        let old = rs.annotations.get(REVISION_ANNOTATION).cloned();
        let old_revision = old
            .as_deref()
            .and_then(|r| r.parse::<i64>().ok())
            .unwrap_or(0);
        if old_revision < revision {
            rs.annotations
                .insert(REVISION_ANNOTATION.to_string(), revision.to_string());
            if let Some(old) = old {
                let history = match rs.annotations.get(REVISION_HISTORY_ANNOTATION) {
                    Some(h) if !h.is_empty() => format!("{h},{old}"),
                    _ => old,
                };
                rs.annotations
                    .insert(REVISION_HISTORY_ANNOTATION.to_string(), history);
            }
        }
        if !exists {
            self.set_replicas_annotations(rs);
        }
        rs.annotations
            .iter()
            .filter(|(k, v)| before.get(*k) != Some(v))
            .map(|(k, v)| (k.clone(), Some(v.clone())))
            .collect()
    }
}

/// Upstream `GetReplicaSetProportion` and `getReplicaSetFraction`: the share of `to_add` the
/// ReplicaSet takes, from the max-replicas annotation it was last scaled with (or the
/// Deployment's `status.replicas`, `deployment_replicas` here).
fn proportion(
    rs: &ReplicaSetState,
    s: &Strategy,
    deployment_replicas: i32,
    to_add: i32,
    added: i32,
) -> i32 {
    if rs.replicas == 0 || to_add == 0 || to_add == added {
        return 0;
    }
    let fraction = if s.replicas == 0 {
        -rs.replicas
    } else {
        let max_now = s.replicas + max_surge(s);
        let before = match rs.annotation_i32(MAX_REPLICAS_ANNOTATION) {
            Some(v) if v != 0 => v,
            _ => deployment_replicas,
        };
        if before == 0 {
            rs.replicas
        } else {
            let size = f64::from(rs.replicas) * f64::from(max_now) / f64::from(before);
            // Go's math.Round: half away from zero, as f64::round.
            (size.round() as i32) - rs.replicas
        }
    };
    let allowed = to_add - added;
    if to_add > 0 {
        fraction.min(allowed)
    } else {
        fraction.max(allowed)
    }
}
