//! Which pods a ReplicaSet deletes first when it has too many: upstream's
//! `ActivePodsWithRanks` (`pkg/controller/controller_utils.go`) and `getPodsToDelete`
//! (`pkg/controller/replicaset/replica_set.go`), v1.35, with `LogarithmicScaleDown` (GA and
//! locked on since v1.31) and `PodDeletionCost` (Beta, on by default) on.
//!
//! What a pod is to the ranking ([`RankedPod`]) comes from the engine's pod model:
//! - its creation time is [`PodInfo::created`] and its ready time [`PodInfo::ready_since`], on
//!   the cluster's clock; `now` is the clock at the sync (upstream `metav1.Now()`);
//! - it is ready (upstream `IsPodReady`) when its `Ready` condition is `True`, or, having none,
//!   when it runs and its kubelet started it (repel's kubelet runs no probes: a pod is Ready
//!   once it runs, until the node-lifecycle controller marks it not Ready);
//! - its restart counts are read from `status.containerStatuses` and the restartable init
//!   containers' `status.initContainerStatuses` (0 for the pods repel runs: none restart);
//! - its uid is `metadata.uid`, or, for a pod without one, a uid derived from its creation
//!   order ([`derived_uid`]), computed when ranking (not stored), so that pods alike are
//!   ordered pseudo-randomly as upstream's random uids order them, and the same on every run.
//!
//! Upstream sorts with Go's `sort.Sort`, which is not stable, by a `Less` that is not a strict
//! weak order (rules 6 and 8 end in a uid comparison that skips the rules after them): pods
//! `Less` cannot tell apart (created and ready at the same time) are left in the informer's
//! order, which is arbitrary. Repel sorts the newest first (by creation order), then by the
//! same `Less` with a stable merge sort: of pods alike, the newest go first, as rule 8 would
//! have them go were their times apart.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use crate::clock::Millis;
use crate::cluster::{Cluster, PodId, PodInfo, PodPhase};

/// The annotation that makes a pod cheaper or dearer to delete on scale-down (upstream
/// `core.PodDeletionCost`).
pub const POD_DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// Upstream's `PodDeletionCost` feature gate: Beta and on by default since v1.22; repel keeps
/// it on.
const POD_DELETION_COST_GATE: bool = true;

/// What upstream's `ActivePodsWithRanks.Less` reads of one pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankedPod<'a> {
    /// `spec.nodeName` is set.
    pub assigned: bool,
    /// Upstream `podPhaseToOrdinal`: Pending 0, Unknown 1, Running 2 (any other phase 0).
    pub phase: u8,
    /// Upstream `podutil.IsPodReady` (see the module documentation).
    pub ready: bool,
    /// Upstream `podReadyTime`: when it became Ready, `None` for Go's zero time (not ready, or
    /// no time given).
    pub ready_time: Option<Millis>,
    /// [`deletion_cost`] of its annotations.
    pub deletion_cost: i32,
    /// How many active related pods share its node (upstream `Rank`).
    pub rank: usize,
    /// Upstream `maxContainerRestarts`: the highest restart count of its containers, then of
    /// its restartable init containers (sidecars).
    pub restarts: (i32, i32),
    /// `metadata.creationTimestamp`, `None` for Go's zero time.
    pub created: Option<Millis>,
    /// `metadata.uid`.
    pub uid: Cow<'a, str>,
}

impl<'a> RankedPod<'a> {
    /// What the ranking reads of `info`, whose rank is `rank`.
    pub fn of(info: &'a PodInfo, rank: usize) -> Self {
        let status = info.status.as_deref();
        let phase = match info.phase {
            PodPhase::Running => 2,
            PodPhase::Pending if status.and_then(|s| s.phase.as_deref()) == Some("Unknown") => 1,
            _ => 0,
        };
        let ready = match info.condition("Ready") {
            Some(s) => s == "True",
            None => info.phase == PodPhase::Running && info.ready_since.is_some(),
        };
        let uid = match info.meta.uid.as_deref() {
            Some(u) => Cow::Borrowed(u),
            None => Cow::Owned(derived_uid(info.seq)),
        };
        RankedPod {
            assigned: info.spec_node_name().is_some(),
            phase,
            ready,
            ready_time: if ready { info.ready_since } else { None },
            deletion_cost: deletion_cost(info.meta.annotations.as_ref()),
            rank,
            restarts: max_container_restarts(info),
            created: info.created,
            uid,
        }
    }
}

/// Upstream `helper.GetDeletionCostFromPodAnnotations` (`pkg/apis/core/helper`, v1.35): the
/// `controller.kubernetes.io/pod-deletion-cost` annotation as an int32, 0 when absent or
/// invalid (upstream also returns an error, which the ranking drops):
/// 1. the value must start with `-`, with `1`–`9`, or be exactly `0` (upstream
///    `validFirstDigit`: `+10` and `008` are invalid);
/// 2. the rest is a base-10 int32 (`strconv.ParseInt(value, 10, 32)`).
pub fn deletion_cost(annotations: Option<&BTreeMap<String, String>>) -> i32 {
    let Some(value) = annotations.and_then(|a| a.get(POD_DELETION_COST)) else {
        return 0;
    };
    let valid_first_digit = match value.as_bytes().first() {
        None => false,
        Some(b'-') => true,
        Some(b'0') => value == "0",
        Some(c) => c.is_ascii_digit(),
    };
    if !valid_first_digit {
        return 0;
    }
    value.parse::<i32>().unwrap_or(0)
}

/// Upstream `maxContainerRestarts` (v1.35, with sidecar containers): the highest
/// `restartCount` among `status.containerStatuses`, and among the `status.initContainerStatuses`
/// of init containers whose `restartPolicy` is `Always`.
fn max_container_restarts(info: &PodInfo) -> (i32, i32) {
    let Some(status) = info.status.as_deref() else {
        return (0, 0);
    };
    let regular = status
        .container_statuses
        .iter()
        .flatten()
        .map(|c| c.restart_count)
        .fold(0, i32::max);
    let sidecars: Vec<&str> = info
        .spec()
        .init_containers
        .iter()
        .flatten()
        .filter(|c| c.restart_policy.as_deref() == Some("Always"))
        .map(|c| c.name.as_str())
        .collect();
    let sidecar = status
        .init_container_statuses
        .iter()
        .flatten()
        .filter(|c| sidecars.contains(&c.name.as_str()))
        .map(|c| c.restart_count)
        .fold(0, i32::max);
    (regular, sidecar)
}

/// The uid repel gives a pod without `metadata.uid` when ranking it: UUID-shaped hex of two
/// SplitMix64 steps from its creation order `seq`, the same on every run.
pub fn derived_uid(seq: usize) -> String {
    let mix = |x: u64| {
        let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let hi = mix(seq as u64);
    let lo = mix(hi);
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xffff,
        hi & 0xfff,
        (lo >> 48) & 0x3fff | 0x8000,
        lo & 0xffff_ffff_ffff
    )
}

/// Upstream `afterOrZero`: whether `t1` is after `t2`, a zero time (`None`) counting as after
/// any other.
fn after_or_zero(t1: Option<Millis>, t2: Option<Millis>) -> bool {
    match (t1, t2) {
        (Some(a), Some(b)) => a > b,
        _ => t1.is_none(),
    }
}

/// Upstream `logarithmicRankDiff`: the difference of the base-2 logarithms of the two times'
/// ages at `now`, in nanoseconds, each truncated to an integer (-1 for an age that is not
/// positive), computed as Go does (`int64(math.Log2(float64(d)))`, `d` saturating as
/// `time.Sub` does).
pub fn logarithmic_rank_diff(t1: Millis, t2: Millis, now: Millis) -> i64 {
    let rank = |t: Millis| -> i64 {
        let d = (i128::from(now) - i128::from(t)) * 1_000_000;
        let d = d.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        if d > 0 { (d as f64).log2() as i64 } else { -1 }
    };
    rank(t1) - rank(t2)
}

/// Upstream `ActivePodsWithRanks.Less` (`pkg/controller/controller_utils.go`, v1.35): whether
/// `a` is to be deleted before `b`, `now` being the time of the sync. The first rule that
/// tells them apart decides:
/// 1. an unassigned pod before an assigned one;
/// 2. Pending before Unknown before Running;
/// 3. not ready before ready;
/// 4. the lower `controller.kubernetes.io/pod-deletion-cost` first (when `pod_deletion_cost`,
///    upstream's gate, is on);
/// 5. the higher rank (more related pods on its node) first;
/// 6. both ready at different times: the one ready more recently first, ready times in
///    power-of-two age buckets ([`logarithmic_rank_diff`]), a zero time counting as the most
///    recent; in one bucket, the lower uid first (and no further rule);
/// 7. more restarts of a container first, then of a sidecar;
/// 8. the more recently created first, in power-of-two age buckets as in 6, then by uid.
///
/// Otherwise neither comes first.
pub fn less(a: &RankedPod<'_>, b: &RankedPod<'_>, now: Millis, pod_deletion_cost: bool) -> bool {
    if a.assigned != b.assigned {
        return !a.assigned;
    }
    if a.phase != b.phase {
        return a.phase < b.phase;
    }
    if a.ready != b.ready {
        return !a.ready;
    }
    if pod_deletion_cost && a.deletion_cost != b.deletion_cost {
        return a.deletion_cost < b.deletion_cost;
    }
    if a.rank != b.rank {
        return a.rank > b.rank;
    }
    let by_age = |t1: Option<Millis>, t2: Option<Millis>| match (t1, t2) {
        (Some(t1), Some(t2)) => match logarithmic_rank_diff(t1, t2, now) {
            0 => a.uid < b.uid,
            diff => diff < 0,
        },
        _ => after_or_zero(t1, t2),
    };
    if a.ready && b.ready && a.ready_time != b.ready_time {
        return by_age(a.ready_time, b.ready_time);
    }
    if a.restarts.0 != b.restarts.0 {
        return a.restarts.0 > b.restarts.0;
    }
    if a.restarts.1 != b.restarts.1 {
        return a.restarts.1 > b.restarts.1;
    }
    if a.created != b.created {
        return by_age(a.created, b.created);
    }
    false
}

/// The positions `0..n` in the order `less` gives, by a stable bottom-up merge sort: it takes
/// any `less` (upstream's is not a strict weak order) without panicking.
fn sorted_by_less(n: usize, less: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    let mut b = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut i = 0;
        while i < n {
            let mid = (i + width).min(n);
            let end = (i + 2 * width).min(n);
            let (mut l, mut r, mut k) = (i, mid, i);
            while l < mid && r < end {
                if less(a[r], a[l]) {
                    b[k] = a[r];
                    r += 1;
                } else {
                    b[k] = a[l];
                    l += 1;
                }
                k += 1;
            }
            b[k..k + (mid - l)].copy_from_slice(&a[l..mid]);
            k += mid - l;
            b[k..end].copy_from_slice(&a[r..end]);
            i = end;
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

/// Upstream `controller.IsPodActive`: not Succeeded, not Failed, not being deleted.
fn is_pod_active(info: &PodInfo) -> bool {
    !info.deleted
        && !info.terminating
        && !matches!(info.phase, PodPhase::Succeeded | PodPhase::Failed)
}

/// Upstream `getPodsToDelete` with `getPodsRankedByRelatedPodsOnSameNode`
/// (`pkg/controller/replicaset/replica_set.go`, v1.35): the `diff` pods of `filtered` (the
/// ReplicaSet's active pods) to delete.
/// 1. When all of them go (`diff` ≥ their number), they go in their order, unsorted.
/// 2. Otherwise each pod's rank is the number of active pods of `related` (the pods of every
///    ReplicaSet with the same controller: a Deployment's old and new ones) whose
///    `spec.nodeName` is its own (unassigned pods share the empty name), and the pods are
///    sorted by [`less`] at `now`; the first `diff` go. (Repel: pods alike, newest first.)
pub fn pods_to_delete(
    cluster: &Cluster,
    filtered: &[PodId],
    related: &[PodId],
    diff: usize,
    now: Millis,
) -> Vec<PodId> {
    if diff >= filtered.len() {
        return filtered.to_vec();
    }
    let mut on_node: HashMap<Option<&str>, usize> = HashMap::new();
    for info in related.iter().filter_map(|p| cluster.pods.get(*p)) {
        if is_pod_active(info) {
            *on_node.entry(info.spec_node_name()).or_default() += 1;
        }
    }
    let mut ranked: Vec<(PodId, RankedPod<'_>)> = filtered
        .iter()
        .filter_map(|p| {
            let info = cluster.pods.get(*p)?;
            let rank = on_node.get(&info.spec_node_name()).copied().unwrap_or(0);
            Some((*p, RankedPod::of(info, rank)))
        })
        .collect();
    ranked.sort_by_key(|(p, _)| std::cmp::Reverse(cluster.pods[*p].seq));
    let order = sorted_by_less(ranked.len(), |i, j| {
        less(&ranked[i].1, &ranked[j].1, now, POD_DELETION_COST_GATE)
    });
    order.into_iter().take(diff).map(|i| ranked[i].0).collect()
}

#[cfg(test)]
mod tests;
