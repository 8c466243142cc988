//! The monitor pass: each node's health judged against the grace period, `NodeNotReady` recorded,
//! zones' disruption states handled and the `NoExecute` tainting queue drained (after upstream
//! `pkg/controller/nodelifecycle/node_lifecycle_controller.go` `monitorNodeHealth`,
//! `handleDisruption` and `doNoExecuteTaintingPass`, v1.35).

use super::*;

impl NodeLifecycleController {
    /// `monitorNodeHealth` (v1.35), one pass at `now`:
    /// 1. nodes seen for the first time: event `RegisteredNode`, their zone gets a tainter,
    ///    `markNodeAsReachable`;
    /// 2. per node in order: the grace check, its current `Ready` status into its zone's list
    ///    (unless labelled `node.kubernetes.io/exclude-disruption`), `processTaintBaseEviction`,
    ///    and on True → not-True by this pass event `NodeNotReady` on the node and its running
    ///    pods (`MarkPodsNotReady`);
    /// 3. `handleDisruption`.
    pub(super) fn monitor_pass(
        &mut self,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
    ) {
        for node in 0..cluster.nodes.len() {
            let zone = zone_key(&cluster.nodes[node].labels);
            if self.known.insert(node) {
                let (object, name) = node_object(cluster, node);
                events.push(Event::normal(
                    now,
                    REASON_REGISTERED_NODE,
                    object,
                    Some(name.clone()),
                    format!("Node {name} event: Registered Node {name} in Controller"),
                ));
                self.add_zone(&zone, now);
                self.mark_reachable(node, now, cluster);
            } else {
                self.add_zone(&zone, now);
            }
        }
        for name in std::mem::take(&mut self.removed) {
            events.push(Event::normal(
                now,
                REASON_REMOVING_NODE,
                format!("Node/{name}"),
                Some(name.clone()),
                format!("Node {name} event: Removing Node {name} from Controller"),
            ));
        }
        let mut zone_conditions: BTreeMap<String, Vec<Option<String>>> = BTreeMap::new();
        for node in 0..cluster.nodes.len() {
            let observed = ready_status(cluster, node);
            self.update_health(node, now, cluster);
            let current = ready_status(cluster, node);
            if !is_excluded_from_disruption(&cluster.nodes[node].labels) {
                zone_conditions
                    .entry(zone_key(&cluster.nodes[node].labels))
                    .or_default()
                    .push(current.clone());
            }
            if let Some(status) = current.as_deref() {
                self.process_taint_base_eviction(node, status, now, cluster);
                if status != "True" && observed.as_deref() == Some("True") {
                    Self::record_not_ready(node, now, cluster, events);
                }
            }
            if let Some(h) = self.health.get_mut(&node) {
                h.observed_ready = current;
            }
        }
        self.handle_disruption(&zone_conditions, now, cluster);
        self.last_pass = Some(now);
    }

    /// `RecordNodeStatusChange(…, "NodeNotReady")` and `MarkPodsNotReady`: each running pod's
    /// `Ready` condition set `False` (running pods are taken to have a `Ready=True` condition to
    /// flip), with its event.
    pub(super) fn record_not_ready(
        node: NodeId,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
    ) {
        let (object, name) = node_object(cluster, node);
        events.push(Event::normal(
            now,
            REASON_NODE_NOT_READY,
            object,
            Some(name.clone()),
            format!("Node {name} status is now: {REASON_NODE_NOT_READY}"),
        ));
        for pod in cluster.pods_on_node(node) {
            let p = &mut cluster.pods[pod];
            if !p.deleted && p.phase == PodPhase::Running {
                if p.set_condition("Ready", "False", None, None) {
                    cluster.touch_pod(pod);
                }
                let p = &cluster.pods[pod];
                events.push(Event::warning(
                    now,
                    REASON_NODE_NOT_READY,
                    pod_object(&p.namespace, &p.name),
                    Some(name.clone()),
                    MESSAGE_POD_NODE_NOT_READY.to_string(),
                ));
            }
        }
    }

    /// `handleDisruption` (v1.35):
    /// 1. each zone's state by [`compute_zone_state`]; zones no longer seen are forgotten;
    /// 2. every zone newly in FullDisruption: `NoExecute` taints removed from every node, every
    ///    tainter stopped (rate 0), all zones FullDisruption;
    /// 3. leaving that: every node's last heartbeat reset to `now`, each zone's limiter set for
    ///    its new state;
    /// 4. otherwise each zone whose state changed gets its limiter: Normal → `--node-eviction-rate`,
    ///    PartialDisruption → `--secondary-node-eviction-rate` above
    ///    `--large-cluster-size-threshold` nodes, else 0; FullDisruption → `--node-eviction-rate`.
    pub(super) fn handle_disruption(
        &mut self,
        zone_conditions: &BTreeMap<String, Vec<Option<String>>>,
        now: Millis,
        cluster: &mut Cluster,
    ) {
        let threshold = self.cfg.unhealthy_zone_threshold;
        let mut new_states = BTreeMap::new();
        let mut all_are_fully = true;
        for (zone, conds) in zone_conditions {
            let statuses: Vec<Option<&str>> = conds.iter().map(Option::as_deref).collect();
            let (_, state) = compute_zone_state(&statuses, threshold);
            all_are_fully &= state == ZoneState::FullDisruption;
            new_states.insert(zone.clone(), state);
            self.zone_states
                .entry(zone.clone())
                .or_insert(ZoneState::Initial);
            self.tainter(zone, now);
        }
        self.zone_states
            .retain(|zone, _| zone_conditions.contains_key(zone));
        let all_was_fully = self
            .zone_states
            .values()
            .all(|s| *s == ZoneState::FullDisruption);
        if all_are_fully && all_was_fully {
            return;
        }
        let zones: Vec<String> = self.zone_states.keys().cloned().collect();
        if all_are_fully {
            for node in 0..cluster.nodes.len() {
                self.mark_reachable(node, now, cluster);
            }
            for zone in &zones {
                self.tainter(zone, now).swap_limiter(0.0, now);
                self.zone_states
                    .insert(zone.clone(), ZoneState::FullDisruption);
            }
            return;
        }
        if all_was_fully {
            for h in self.health.values_mut() {
                h.probe = now;
            }
        }
        for zone in zones {
            let new = new_states.get(&zone).copied().unwrap_or(ZoneState::Normal);
            if !all_was_fully && self.zone_states.get(&zone) == Some(&new) {
                continue;
            }
            let size = zone_conditions.get(&zone).map_or(0, Vec::len);
            let qps = match new {
                ZoneState::Normal | ZoneState::FullDisruption => Some(self.cfg.node_eviction_rate),
                ZoneState::PartialDisruption => {
                    Some(if size > self.cfg.large_cluster_size_threshold {
                        self.cfg.secondary_node_eviction_rate
                    } else {
                        0.0
                    })
                }
                ZoneState::Initial => None,
            };
            if let Some(qps) = qps {
                self.tainter(&zone, now).swap_limiter(qps, now);
            }
            self.zone_states.insert(zone, new);
        }
    }

    /// `doNoExecuteTaintingPass` (v1.35): each zone's tainter, in zone order, takes nodes while it
    /// has tokens; for each: `Ready` False → `not-ready:NoExecute` added (`timeAdded = now`) and
    /// `unreachable` removed; Unknown → the reverse; no `Ready` condition → retried in 50 ms;
    /// anything else → dropped ("it's ready now").
    pub(super) fn no_execute_pass(&mut self, now: Millis, cluster: &mut Cluster) {
        let zones: Vec<String> = self.tainters.keys().cloned().collect();
        for zone in zones {
            let Some(mut queue) = self.tainters.remove(&zone) else {
                continue;
            };
            queue.try_process(now, |node| {
                if node >= cluster.nodes.len() {
                    return Ok(());
                }
                let (add, remove) = match ready_status(cluster, node).as_deref() {
                    None => return Err(RETRY_NO_READY_CONDITION),
                    Some("False") => (not_ready_taint(), unreachable_taint()),
                    Some("Unknown") => (unreachable_taint(), not_ready_taint()),
                    Some(_) => return Ok(()),
                };
                swap_taints(cluster, node, &[add], &[remove], now);
                Ok(())
            });
            self.tainters.insert(zone, queue);
        }
    }
}
