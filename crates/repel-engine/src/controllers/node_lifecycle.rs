//! The node-lifecycle controller (upstream `pkg/controller/nodelifecycle/node_lifecycle_controller.go`,
//! v1.35) on the simulated clock: node health from kubelet heartbeats, condition taints, the
//! per-zone rate-limited `NoExecute` tainting and the zone disruption states.
//!
//! # Timing (what a scenario author can predict)
//!
//! - **Heartbeats.** A node heartbeats until `stop_heartbeats(node, t)`; `t` is its last
//!   heartbeat. The controller observes heartbeats at once (upstream: the kubelet renews its
//!   Lease every 10 s and the controller notices at its next 5 s pass; repel takes the last
//!   renewal to be the moment the kubelet stopped).
//! - **Monitor passes** run on the `nodeMonitorPeriod` grid (0 s, 5 s, 10 s, … since the start).
//!   A node whose heartbeats stopped at `t` is marked `Ready=Unknown` (and `MemoryPressure`,
//!   `DiskPressure`, `PIDPressure` Unknown) at the first pass **at or after** `t + grace`
//!   (upstream compares strictly after, on a continuous clock where a pass never falls exactly
//!   on the boundary). With the defaults and `t` a multiple of 5 s: at exactly `t + 50 s`.
//! - In that same pass (upstream since PR #120816, fixing #120815) the node is queued for
//!   `unreachable:NoExecute`; the zone's token bucket lets the first node through at once, so
//!   the taint lands at `t + 50 s` with `timeAdded` = that time; pods tolerating it for the
//!   default 300 s leave at `t + 350 s`. Further nodes of the zone follow one per
//!   `1 / --node-eviction-rate` seconds (10 s).
//! - **`NoSchedule` condition taints** follow conditions and `spec.unschedulable` at once, at
//!   every reconcile (upstream: on every node update).
//! - A condition reported by the kubelet ([`NodeLifecycleController::set_condition`]) is
//!   acted on for `NoExecute` at the next monitor pass at or after it (at once when set on the
//!   grid); `resume_heartbeats` restores the kubelet's last report at once, and the `NoExecute`
//!   taints leave at the next monitor pass.
//! - Nodes without any condition (hand-written manifests) are taken to be heartbeating: the
//!   kubelet's first status (`Ready=True`, `KubeletReady`) is written at the first reconcile, so
//!   the TaintNodesByCondition admission's `not-ready:NoSchedule` is removed at once.
//! - Like upstream, a pass removes `not-ready`/`unreachable:NoExecute` from a `Ready=True` node,
//!   even when someone added them by hand.

mod rate_limited_queue;

pub use rate_limited_queue::{RateLimitedTimedQueue, TimedValue, TokenBucket};

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{NodeCondition, Taint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use repel_core::conditions::{
    CONDITION_DISK_PRESSURE, CONDITION_MEMORY_PRESSURE, CONDITION_PID_PRESSURE, CONDITION_READY,
    is_controller_no_schedule_key, no_schedule_taints_for,
};
use repel_core::kubectl::add_controller_taints;
use repel_core::taint::{
    NO_EXECUTE, NO_SCHEDULE, TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, match_taint, new_taint,
};

use crate::clock::Millis;
use crate::cluster::{Cluster, NodeId, PodPhase};
use crate::controllers::Controller;
use crate::events::{Event, pod_object};

mod kubelet_status;
mod monitor;
mod taints;
mod zones;

pub use taints::sim_timestamp;
use taints::*;

pub use zones::{
    LABEL_NODE_DISRUPTION_EXCLUSION, ZoneState, compute_zone_state, is_excluded_from_disruption,
    zone_key,
};

/// The controller's name.
pub const NAME: &str = "node-lifecycle-controller";
/// Event reason when the controller first sees a node (`RecordNodeEvent`).
pub const REASON_REGISTERED_NODE: &str = "RegisteredNode";
/// Event reason when the controller sees a node deleted (`monitorNodeHealth`'s `deleted`).
pub const REASON_REMOVING_NODE: &str = "RemovingNode";
/// Event reason when a node stops being Ready (`RecordNodeStatusChange`), and on its pods
/// (`MarkPodsNotReady`).
pub const REASON_NODE_NOT_READY: &str = "NodeNotReady";
/// The pod event's message of `MarkPodsNotReady`.
pub const MESSAGE_POD_NODE_NOT_READY: &str = "Node is not ready";
/// Condition reason when the kubelet stopped posting.
pub const REASON_NODE_STATUS_UNKNOWN: &str = "NodeStatusUnknown";
/// Condition message when the kubelet stopped posting.
pub const MESSAGE_NODE_STATUS_UNKNOWN: &str = "Kubelet stopped posting node status.";
/// Condition reason when the kubelet never posted.
pub const REASON_NODE_STATUS_NEVER_UPDATED: &str = "NodeStatusNeverUpdated";
/// Condition message when the kubelet never posted.
pub const MESSAGE_NODE_STATUS_NEVER_UPDATED: &str = "Kubelet never posted node status.";
/// Retry delay of the tainter when a queued node has no `Ready` condition (50 ms + 1 ns upstream,
/// the first millisecond after 50 ms here).
const RETRY_NO_READY_CONDITION: Millis = 51;
/// The conditions the controller sets Unknown (not `NetworkUnavailable`: "managed on a control
/// plane level").
const UNKNOWN_ON_TIMEOUT: [&str; 4] = [
    CONDITION_READY,
    CONDITION_MEMORY_PRESSURE,
    CONDITION_DISK_PRESSURE,
    CONDITION_PID_PRESSURE,
];

/// The controller's flags (kube-controller-manager's `--node-*` flags).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeLifecycleConfig {
    /// `--node-monitor-grace-period`.
    pub node_monitor_grace_period: Millis,
    /// `--node-monitor-period`.
    pub node_monitor_period: Millis,
    /// `--node-startup-grace-period`.
    pub node_startup_grace_period: Millis,
    /// `--node-eviction-rate` (nodes a second per zone).
    pub node_eviction_rate: f64,
    /// `--secondary-node-eviction-rate`.
    pub secondary_node_eviction_rate: f64,
    /// `--unhealthy-zone-threshold`.
    pub unhealthy_zone_threshold: f64,
    /// `--large-cluster-size-threshold`.
    pub large_cluster_size_threshold: usize,
}

impl Default for NodeLifecycleConfig {
    /// Upstream v1.35's defaults:
    /// 1. `--node-monitor-grace-period` 50 s: raised from 40 s in v1.32 by kubernetes/kubernetes
    ///    PR #126287 (issue #121793) so that it exceeds the kubelet's HTTP/2 health check
    ///    (30 s ping timeout + 15 s read idle), as the comment on `nodeMonitorGracePeriod` in
    ///    `node_lifecycle_controller.go` says; `testNodeMonitorGracePeriod` is 50 s too;
    /// 2. `--node-monitor-period` 5 s, `--node-startup-grace-period` 60 s;
    /// 3. `--node-eviction-rate` 0.1, `--secondary-node-eviction-rate` 0.01,
    ///    `--unhealthy-zone-threshold` 0.55, `--large-cluster-size-threshold` 50.
    fn default() -> Self {
        NodeLifecycleConfig {
            node_monitor_grace_period: 50_000,
            node_monitor_period: 5_000,
            node_startup_grace_period: 60_000,
            node_eviction_rate: 0.1,
            secondary_node_eviction_rate: 0.01,
            unhealthy_zone_threshold: 0.55,
            large_cluster_size_threshold: 50,
        }
    }
}

/// What the controller remembers of a node (upstream `nodeHealthData`, plus the simulated
/// kubelet's heartbeat).
#[derive(Debug, Clone, Default)]
struct NodeHealth {
    /// First seen: stands for `creationTimestamp`.
    first_seen: Millis,
    /// The kubelet is posting.
    heartbeating: bool,
    /// The last heartbeat (upstream `probeTimestamp`).
    probe: Millis,
    /// The kubelet's last report of the conditions the controller overwrote with Unknown.
    saved: Option<Vec<NodeCondition>>,
    /// Heartbeats resumed at this time and the kubelet's report is still to be written.
    resumed_at: Option<Millis>,
    /// The `Ready` status seen at the last monitor pass.
    observed_ready: Option<String>,
}

/// The node-lifecycle controller. See the module documentation for its timing.
#[derive(Debug, Clone)]
pub struct NodeLifecycleController {
    cfg: NodeLifecycleConfig,
    health: BTreeMap<NodeId, NodeHealth>,
    known: BTreeSet<NodeId>,
    zone_states: BTreeMap<String, ZoneState>,
    tainters: BTreeMap<String, RateLimitedTimedQueue>,
    last_pass: Option<Millis>,
    pending_events: Vec<Event>,
    /// Nodes deleted since the last monitor pass, which records `RemovingNode` for each.
    removed: Vec<String>,
}

impl NodeLifecycleController {
    /// A controller with `cfg`; it learns the nodes at its first reconcile.
    pub fn new(cfg: NodeLifecycleConfig) -> Self {
        NodeLifecycleController {
            cfg,
            health: BTreeMap::new(),
            known: BTreeSet::new(),
            zone_states: BTreeMap::new(),
            tainters: BTreeMap::new(),
            last_pass: None,
            pending_events: Vec::new(),
            removed: Vec::new(),
        }
    }

    /// Its flags.
    pub fn config(&self) -> &NodeLifecycleConfig {
        &self.cfg
    }

    /// The zone states of the last monitor pass, by zone key (`""` for nodes without zone labels).
    pub fn zone_states(&self) -> &BTreeMap<String, ZoneState> {
        &self.zone_states
    }

    /// The nodes waiting in `zone`'s `NoExecute` tainting queue, in order.
    pub fn queued(&self, zone: &str) -> Vec<NodeId> {
        self.tainters
            .get(zone)
            .map(RateLimitedTimedQueue::queued)
            .unwrap_or_default()
    }

    fn health_mut(&mut self, node: NodeId, now: Millis) -> &mut NodeHealth {
        self.health.entry(node).or_insert_with(|| NodeHealth {
            first_seen: now,
            heartbeating: true,
            probe: now,
            ..NodeHealth::default()
        })
    }

    /// Whether node `node`'s kubelet has stopped posting ([`Self::stop_heartbeats`]).
    pub fn heartbeats_stopped(&self, node: NodeId) -> bool {
        self.health.get(&node).is_some_and(|h| !h.heartbeating)
    }

    /// The kubelet stops posting at `now` (its last heartbeat is `now`).
    pub fn stop_heartbeats(&mut self, node: NodeId, now: Millis) {
        let h = self.health_mut(node, now);
        h.heartbeating = false;
        h.probe = now;
        h.resumed_at = None;
    }

    /// The kubelet posts again from `now`: the conditions the controller set Unknown get the
    /// kubelet's last report back at the next reconcile.
    pub fn resume_heartbeats(&mut self, node: NodeId, now: Millis) {
        let h = self.health_mut(node, now);
        if !h.heartbeating {
            h.heartbeating = true;
            h.probe = now;
            h.resumed_at = Some(now);
        }
    }

    /// The kubelet reports condition `type_` as `status` at `now` (a scenario's `node:
    /// {condition: …}` step): written to `status.conditions` with the kubelet's reason and
    /// message and `lastTransitionTime = now` when the status changes; the kubelet's
    /// `NodeReady`/`NodeNotReady`/`NodeHas…` event is recorded at the next reconcile.
    pub fn set_condition(
        &mut self,
        cluster: &mut Cluster,
        node: NodeId,
        type_: &str,
        status: &str,
        now: Millis,
    ) {
        self.health_mut(node, now).probe = now;
        let (object, name) = node_object(cluster, node);
        let Some(conds) = conditions_mut(cluster, node) else {
            return;
        };
        if let Some(event) = kubelet_status::report(conds, type_, status, now) {
            self.pending_events.push(Event::normal(
                now,
                event,
                object,
                Some(name.clone()),
                format!("Node {name} status is now: {event}"),
            ));
        }
        if let Some(saved) = self.health.get_mut(&node).and_then(|h| h.saved.as_mut()) {
            saved.retain(|c| c.type_ != type_);
        }
    }

    fn grid(&self) -> Millis {
        self.cfg.node_monitor_period.max(1)
    }

    /// The first monitor pass at or after `t` that has not run yet.
    fn next_pass_at(&self, t: Millis) -> Millis {
        crate::clock::next_grid_point(t, self.grid(), self.last_pass)
    }

    /// The simulated kubelet: first status of nodes without a `Ready` condition, and the report
    /// of nodes whose heartbeats resumed.
    fn kubelet_posts(&mut self, now: Millis, cluster: &mut Cluster, events: &mut Vec<Event>) {
        for node in 0..cluster.nodes.len() {
            let h = self.health_mut(node, now).clone();
            if !h.heartbeating {
                continue;
            }
            let (object, name) = node_object(cluster, node);
            let Some(conds) = conditions_mut(cluster, node) else {
                continue;
            };
            if let Some(at) = h.resumed_at {
                for c in h.saved.iter().flatten() {
                    if let Some(e) = kubelet_status::restore(conds, c, at) {
                        events.push(Event::normal(
                            at,
                            e,
                            object.clone(),
                            Some(name.clone()),
                            format!("Node {name} status is now: {e}"),
                        ));
                    }
                }
                for type_ in UNKNOWN_ON_TIMEOUT {
                    let healthy = if type_ == CONDITION_READY {
                        "True"
                    } else {
                        "False"
                    };
                    if conds
                        .iter()
                        .any(|c| c.type_ == type_ && c.status == "Unknown")
                        && let Some(e) = kubelet_status::report(conds, type_, healthy, at)
                    {
                        events.push(Event::normal(
                            at,
                            e,
                            object.clone(),
                            Some(name.clone()),
                            format!("Node {name} status is now: {e}"),
                        ));
                    }
                }
                if let Some(h) = self.health.get_mut(&node) {
                    h.saved = None;
                    h.resumed_at = None;
                }
            }
            let Some(conds) = conditions_mut(cluster, node) else {
                continue;
            };
            if !conds.iter().any(|c| c.type_ == CONDITION_READY) {
                kubelet_status::report(conds, CONDITION_READY, "True", now);
            }
        }
    }

    /// `doNoScheduleTaintingPass` (v1.35) on every node:
    /// 1. wanted: `Ready` False → `not-ready`, Unknown → `unreachable`, `MemoryPressure`,
    ///    `DiskPressure`, `NetworkUnavailable`, `PIDPressure` True → their taint, then
    ///    `spec.unschedulable` → `unschedulable`, all `NoSchedule`;
    /// 2. compared by key and effect with the node's `NoSchedule` taints of those keys only;
    /// 3. missing ones added with `timeAdded = now`, stale ones removed, user taints untouched.
    fn no_schedule_pass(&self, now: Millis, cluster: &mut Cluster) {
        for node in 0..cluster.nodes.len() {
            let (add, remove) = no_schedule_diff(cluster, node);
            if !add.is_empty() || !remove.is_empty() {
                swap_taints(cluster, node, &add, &remove, now);
            }
        }
    }

    /// `tryUpdateNodeHealth`'s grace check (v1.35): when `now` reaches the last heartbeat +
    /// grace (the startup grace from first sight for a node that never posted `Ready`):
    /// 1. missing `Ready`/`MemoryPressure`/`DiskPressure`/`PIDPressure` are added Unknown,
    ///    `NodeStatusNeverUpdated`, "Kubelet never posted node status.", heartbeat = creation;
    /// 2. present ones not Unknown become Unknown, `NodeStatusUnknown`, "Kubelet stopped posting
    ///    node status.", `lastTransitionTime = now`;
    /// 3. `NetworkUnavailable` is left alone.
    fn update_health(&mut self, node: NodeId, now: Millis, cluster: &mut Cluster) {
        let Some(h) = self.health.get(&node).cloned() else {
            return;
        };
        if h.heartbeating || now < self.deadline(&h, cluster, node) {
            return;
        }
        let Some(conds) = conditions_mut(cluster, node) else {
            return;
        };
        let before: Vec<NodeCondition> = conds
            .iter()
            .filter(|c| UNKNOWN_ON_TIMEOUT.contains(&c.type_.as_str()) && c.status != "Unknown")
            .cloned()
            .collect();
        let ts = Time(sim_timestamp(now));
        for type_ in UNKNOWN_ON_TIMEOUT {
            match conds.iter_mut().find(|c| c.type_ == type_) {
                None => conds.push(NodeCondition {
                    type_: type_.to_string(),
                    status: "Unknown".to_string(),
                    reason: Some(REASON_NODE_STATUS_NEVER_UPDATED.to_string()),
                    message: Some(MESSAGE_NODE_STATUS_NEVER_UPDATED.to_string()),
                    last_heartbeat_time: Some(Time(sim_timestamp(h.first_seen))),
                    last_transition_time: Some(ts.clone()),
                }),
                Some(c) if c.status != "Unknown" => {
                    c.status = "Unknown".to_string();
                    c.reason = Some(REASON_NODE_STATUS_UNKNOWN.to_string());
                    c.message = Some(MESSAGE_NODE_STATUS_UNKNOWN.to_string());
                    c.last_transition_time = Some(ts.clone());
                }
                Some(_) => {}
            }
        }
        if let Some(h) = self.health.get_mut(&node) {
            let saved = h.saved.get_or_insert_with(Vec::new);
            for c in before {
                if !saved.iter().any(|s| s.type_ == c.type_) {
                    saved.push(c);
                }
            }
        }
    }

    /// When a stopped node's grace period ends.
    fn deadline(&self, h: &NodeHealth, cluster: &Cluster, node: NodeId) -> Millis {
        if ready_status(cluster, node).is_none() {
            h.first_seen + self.cfg.node_startup_grace_period
        } else {
            h.probe + self.cfg.node_monitor_grace_period
        }
    }

    /// Whether the grace check would still change the node.
    fn awaiting_timeout(&self, h: &NodeHealth, cluster: &Cluster, node: NodeId) -> bool {
        !h.heartbeating
            && UNKNOWN_ON_TIMEOUT.iter().any(|t| {
                conditions(cluster, node)
                    .iter()
                    .find(|c| c.type_ == *t)
                    .is_none_or(|c| c.status != "Unknown")
            })
    }

    fn tainter(&mut self, zone: &str, now: Millis) -> &mut RateLimitedTimedQueue {
        let qps = self.cfg.node_eviction_rate;
        self.tainters
            .entry(zone.to_string())
            .or_insert_with(|| RateLimitedTimedQueue::new(qps, now))
    }

    /// `addPodEvictorForNewZone`: a zone seen for the first time gets state `Initial` and a
    /// tainter at `--node-eviction-rate`.
    fn add_zone(&mut self, zone: &str, now: Millis) {
        if !self.zone_states.contains_key(zone) {
            self.zone_states
                .insert(zone.to_string(), ZoneState::Initial);
            let qps = self.cfg.node_eviction_rate;
            self.tainters
                .insert(zone.to_string(), RateLimitedTimedQueue::new(qps, now));
        }
    }

    /// `markNodeAsReachable`: removes both `NoExecute` taints and the node from its tainter.
    fn mark_reachable(&mut self, node: NodeId, now: Millis, cluster: &mut Cluster) {
        swap_taints(
            cluster,
            node,
            &[],
            &[unreachable_taint(), not_ready_taint()],
            now,
        );
        let zone = zone_key(&cluster.nodes[node].labels);
        self.tainter(&zone, now).remove(node);
    }

    /// `processTaintBaseEviction` (v1.35, on the current `Ready` status):
    /// 1. False: `unreachable:NoExecute` present → swapped for `not-ready` at once; else queued
    ///    (`markNodeForTainting`: re-queued with `ProcessAt = now` while the taint is missing);
    /// 2. Unknown: the reverse;
    /// 3. True: `markNodeAsReachable`.
    fn process_taint_base_eviction(
        &mut self,
        node: NodeId,
        status: &str,
        now: Millis,
        cluster: &mut Cluster,
    ) {
        let (want, opposite) = match status {
            "False" => (not_ready_taint(), unreachable_taint()),
            "Unknown" => (unreachable_taint(), not_ready_taint()),
            "True" => return self.mark_reachable(node, now, cluster),
            _ => return,
        };
        if has_taint(cluster, node, &opposite.key, NO_EXECUTE) {
            swap_taints(cluster, node, &[want], &[opposite], now);
            return;
        }
        let zone = zone_key(&cluster.nodes[node].labels);
        let missing = !has_taint(cluster, node, &want.key, NO_EXECUTE);
        let queue = self.tainter(&zone, now);
        if missing {
            queue.remove(node);
        }
        queue.add(node, now);
    }
}

impl Controller for NodeLifecycleController {
    fn name(&self) -> &'static str {
        NAME
    }

    /// Upstream keeps nodes by name; repel's ids are positions, so the ids after `node` move
    /// down one. A node waiting in its zone's `NoExecute` queue leaves it (upstream finds it
    /// gone when its turn comes, spending a token of the zone's rate on it).
    fn node_removed(&mut self, node: NodeId, name: &str) {
        let shift = |n: NodeId| if n > node { n - 1 } else { n };
        self.health = std::mem::take(&mut self.health)
            .into_iter()
            .filter(|(n, _)| *n != node)
            .map(|(n, h)| (shift(n), h))
            .collect();
        let was_known = self.known.remove(&node);
        self.known = self.known.iter().map(|n| shift(*n)).collect();
        for q in self.tainters.values_mut() {
            q.node_removed(node);
        }
        if was_known {
            self.removed.push(name.to_string());
        }
    }

    fn reconcile(&mut self, now: Millis, cluster: &mut Cluster, events: &mut Vec<Event>) {
        events.append(&mut self.pending_events);
        self.kubelet_posts(now, cluster, events);
        self.no_schedule_pass(now, cluster);
        if now.rem_euclid(self.grid()) == 0 && self.last_pass != Some(now) {
            self.monitor_pass(now, cluster, events);
            self.no_schedule_pass(now, cluster);
        }
        self.no_execute_pass(now, cluster);
    }

    fn next_wake(&self, now: Millis, cluster: &Cluster) -> Option<Millis> {
        let mut wake: Option<Millis> = None;
        let mut at = |t: Millis| wake = Some(wake.map_or(t.max(now), |w| w.min(t.max(now))));
        if !self.pending_events.is_empty()
            || self.health.values().any(|h| h.resumed_at.is_some())
            || self.health.len() < cluster.nodes.len()
        {
            at(now);
        }
        for node in 0..cluster.nodes.len() {
            let (add, remove) = no_schedule_diff(cluster, node);
            if !add.is_empty() || !remove.is_empty() {
                at(now);
            }
            if !self.known.contains(&node) {
                at(self.next_pass_at(now));
            }
            let Some(h) = self.health.get(&node) else {
                continue;
            };
            if h.heartbeating
                && !conditions(cluster, node)
                    .iter()
                    .any(|c| c.type_ == CONDITION_READY)
            {
                at(now);
            }
            if h.observed_ready != ready_status(cluster, node) {
                at(self.next_pass_at(now));
            }
            if self.awaiting_timeout(h, cluster, node) {
                at(self.next_pass_at(self.deadline(h, cluster, node).max(now)));
            }
        }
        for queue in self.tainters.values() {
            if let Some(due) = queue.next_due() {
                at(due);
                at(self.next_pass_at(now));
            }
        }
        if !self.removed.is_empty() {
            at(self.next_pass_at(now));
        }
        wake
    }
}

#[cfg(test)]
mod tests;
