//! The control plane: every controller once, run together on a cluster view at a time (issue
//! 14). A driver owns the view and the clock and calls [`ControlPlane::settle`] at each time
//! something is due ([`ControlPlane::next_wake`]); the controllers change the view, recording
//! [`crate::actions::Action`]s when the driver asked the view to ([`Cluster::record`]), and
//! append events. `repel simulate` ([`crate::sim::Simulation`]) is one driver.
//!
//! One pass, in order: the node pools, Karpenter, node lifecycle, kubelets (admission of pods bound since the last pass),
//! taint eviction, pod garbage collection, the garbage collector, workload controllers, the kubelets' device
//! plugins, the scheduler (every pending
//! pod in queue order, with preemption), kubelets again. Passes repeat until one changes
//! nothing (at most [`MAX_PASSES`]).

use std::collections::HashMap;

use crate::clock::Millis;
use crate::cluster::{Cluster, NodeId, PodPhase};
use crate::controllers::Controller;
use crate::controllers::device_plugins::DevicePlugins;
use crate::controllers::garbage_collector::GarbageCollector;
use crate::controllers::karpenter::Karpenter;
use crate::controllers::kubelet::Kubelet;
use crate::controllers::node_lifecycle::NodeLifecycleController;
use crate::controllers::node_pools::PoolController;
use crate::controllers::pod_gc::PodGc;
use crate::controllers::taint_eviction::TaintEvictionController;
use crate::controllers::workloads::WorkloadControllers;
use crate::events::{Event, pod_object};
use crate::scheduler::fast::FastScheduler;
use crate::scheduler::preemption::prepare_candidate;
use crate::scheduler::{Outcome, Scheduler};

/// How many settling passes one point in time may take before the control plane moves on (a
/// guard against controllers that undo each other forever).
pub const MAX_PASSES: usize = 100;

/// The default scheduler's name (`spec.schedulerName` of the pods it schedules).
pub const DEFAULT_SCHEDULER: &str = "default-scheduler";

/// Every controller, with the memory each keeps between passes.
pub struct ControlPlane {
    /// The scheduler (default profile, compiled engine).
    pub scheduler: FastScheduler,
    /// Every node's kubelet.
    pub kubelet: Kubelet,
    /// The taint-eviction controller.
    pub taint_eviction: TaintEvictionController,
    /// The node-lifecycle controller.
    pub node_lifecycle: NodeLifecycleController,
    /// The pod garbage collector.
    pub pod_gc: PodGc,
    /// ReplicaSet, Deployment, StatefulSet, DaemonSet and Job controllers.
    pub workloads: WorkloadControllers,
    /// The garbage collector (ownerReferences).
    pub gc: GarbageCollector,
    /// The fixed-size node pools' controllers (AKS, EKS, eksctl).
    pub pools: PoolController,
    /// Karpenter's provisioner, registration, initialization and drift.
    pub karpenter: Karpenter,
    /// The kubelets' device managers (extended resources a device plugin advertises).
    pub devices: DevicePlugins,
    /// The last FailedScheduling message per pod (an unchanged one is not recorded again).
    last_failure: HashMap<usize, String>,
    /// Preemptors waiting for their victims, with those victims: a preemptor is not tried
    /// again until one of them is gone (upstream: it waits in the unschedulable pods until a
    /// pod deletion moves it back to the active queue).
    waiting: HashMap<usize, Vec<usize>>,
}

impl ControlPlane {
    /// A control plane of these controllers.
    pub fn new(
        mut scheduler: FastScheduler,
        kubelet: Kubelet,
        taint_eviction: TaintEvictionController,
        node_lifecycle: NodeLifecycleController,
        workloads: WorkloadControllers,
    ) -> Self {
        scheduler.reference.graceful_preemption = true;
        ControlPlane {
            scheduler,
            kubelet,
            taint_eviction,
            node_lifecycle,
            pod_gc: PodGc::new(),
            workloads,
            gc: GarbageCollector::new(),
            pools: PoolController::default(),
            karpenter: Karpenter::default(),
            devices: DevicePlugins::default(),
            last_failure: HashMap::new(),
            waiting: HashMap::new(),
        }
    }

    fn fingerprint(cluster: &Cluster, events: &[Event]) -> (usize, usize, usize, usize, usize) {
        let c = cluster;
        let deleted = c.pods.iter().filter(|p| p.deleted).count();
        let bound = c.pods.iter().filter(|p| p.node.is_some()).count();
        let running = c
            .pods
            .iter()
            .filter(|p| p.phase != PodPhase::Pending)
            .count();
        let taints: usize = c
            .nodes
            .iter()
            .map(|n| n.taints.len() + usize::from(n.unschedulable))
            .sum();
        (c.pods.len() + events.len(), deleted, bound, running, taints)
    }

    /// kube-scheduler's cycle for every pending pod, in queue order, on the compiled engine
    /// (the reference's placements, computed from classes): a pod is bound, or gets its
    /// FailedScheduling (recorded once per message). A pod preemption nominates a node for
    /// keeps the nomination (`status.nominatedNodeName`), its victims are deleted gracefully
    /// ([`prepare_candidate`]: `DisruptionTarget`, a `Preempted` event each; their kubelet
    /// finishes them after their grace period), and it waits: it is tried again once one of its
    /// victims is gone (upstream's queue moves it back on a pod deletion), while the nominated
    /// room is kept from pods of lower or equal priority
    /// ([`crate::scheduler::Scheduler::run_filters_with_nominated`]).
    fn schedule_pending(&mut self, now: Millis, cluster: &mut Cluster, events: &mut Vec<Event>) {
        self.waiting.retain(|pod, victims| {
            cluster
                .pods
                .get(*pod)
                .is_some_and(|p| !p.deleted && p.node.is_none())
                && victims
                    .iter()
                    .all(|v| cluster.pods.get(*v).is_some_and(|v| !v.deleted))
        });
        // The default scheduler takes the pods that name it (or no scheduler).
        let mut queue: Vec<usize> = cluster
            .pending()
            .into_iter()
            .filter(|p| {
                cluster.pods[*p]
                    .spec()
                    .scheduler_name
                    .as_deref()
                    .is_none_or(|s| s.is_empty() || s == DEFAULT_SCHEDULER)
                    && !self.waiting.contains_key(p)
            })
            .collect();
        if queue.is_empty() {
            return;
        }
        Scheduler::queue_order(cluster, &mut queue);
        for placement in self.scheduler.schedule_each(cluster, &queue) {
            let pod = placement.pod;
            let key = cluster.pods[pod].key();
            let (ns, name) = (
                cluster.pods[pod].namespace.clone(),
                cluster.pods[pod].name.clone(),
            );
            match placement.outcome {
                Outcome::Scheduled { node, .. } => {
                    let node_name = cluster.nodes[node].name.clone();
                    self.last_failure.remove(&pod);
                    if cluster.pods[pod].set_condition("PodScheduled", "True", None, None) {
                        cluster.touch_pod(pod);
                    }
                    events.push(Event::normal(
                        now,
                        "Scheduled",
                        pod_object(&ns, &name),
                        Some(node_name.clone()),
                        format!("Successfully assigned {key} to {node_name}"),
                    ));
                }
                Outcome::Unschedulable { message, nominated } => {
                    // Upstream's `PodScheduled=False` condition, reason `Unschedulable`, with the
                    // FitError message.
                    if cluster.pods[pod].set_condition(
                        "PodScheduled",
                        "False",
                        Some("Unschedulable"),
                        Some(&message),
                    ) {
                        cluster.touch_pod(pod);
                    }
                    if self.last_failure.get(&pod) != Some(&message) {
                        self.last_failure.insert(pod, message.clone());
                        events.push(Event::warning(
                            now,
                            "FailedScheduling",
                            pod_object(&ns, &name),
                            None,
                            message,
                        ));
                    }
                    if let Some((node, victims)) = nominated {
                        prepare_candidate(cluster, now, pod, node, &victims, events);
                        self.waiting.insert(pod, victims);
                    }
                }
            }
        }
    }

    /// Runs every controller at `now` until a pass changes nothing.
    pub fn settle(&mut self, now: Millis, cluster: &mut Cluster, events: &mut Vec<Event>) {
        for _ in 0..MAX_PASSES {
            if !self.pass(now, cluster, events) {
                return;
            }
        }
    }

    /// One pass of every controller at `now` (see the module docs for the order); returns
    /// whether it changed anything.
    pub fn pass(&mut self, now: Millis, cluster: &mut Cluster, events: &mut Vec<Event>) -> bool {
        let before = Self::fingerprint(cluster, events);
        let (removed, mut pools_changed) = self.pools.reconcile(cluster);
        for (id, name) in &removed {
            self.node_removed(*id, name);
        }
        let pools: Vec<&repel_core::pools::Pool> =
            self.pools.pools.iter().map(|s| &s.pool).collect();
        let karpenter_gates = repel_core::FeatureGates {
            taint_toleration_comparison_operators: true,
        };
        let daemons = if pools.iter().any(|p| p.provider == "karpenter") {
            self.workloads.daemon_set_specs()
        } else {
            Vec::new()
        };
        let (removed, changed) =
            self.karpenter
                .reconcile(now, cluster, events, &pools, &daemons, &karpenter_gates);
        pools_changed |= changed;
        for (id, name) in &removed {
            self.node_removed(*id, name);
        }
        self.node_lifecycle.reconcile(now, cluster, events);
        // The kubelet admits (or rejects) pods bound since the last pass before the
        // taint-eviction controller acts on them, so a pod bound by spec.nodeName onto an
        // untolerated NoExecute taint is first rejected (Failed, TaintToleration), then deleted.
        self.kubelet.reconcile(now, cluster, events);
        let (events_before, evictions_before) =
            (events.len(), self.taint_eviction.evictions().len());
        self.taint_eviction.reconcile(now, cluster, events);
        for ev in &self.taint_eviction.evictions()[evictions_before..] {
            let p = &cluster.pods[ev.pod];
            let object = pod_object(&p.namespace, &p.name);
            if let Some(e) = events[events_before..]
                .iter_mut()
                .find(|e| e.object == object && e.why.is_none())
            {
                e.why = Some(ev.work.cause.to_string());
            }
        }
        self.pod_gc.reconcile(now, cluster, events);
        self.collect_garbage(cluster);
        self.workloads.reconcile(now, cluster, events);
        let devices_changed = self.devices.reconcile(cluster);
        self.schedule_pending(now, cluster, events);
        self.kubelet.reconcile(now, cluster, events);
        pools_changed || devices_changed || Self::fingerprint(cluster, events) != before
    }

    /// The garbage collector's pass; the workload objects it deleted stop being managed at
    /// once (a ReplicaSet collected with its pods must not create new ones in the same pass),
    /// and the ReplicaSets a collected Deployment kept inside its rollout go with it.
    fn collect_garbage(&mut self, cluster: &mut Cluster) {
        for _ in 0..MAX_PASSES {
            let collected = self.gc.reconcile(cluster);
            if collected.is_empty() {
                return;
            }
            for o in collected {
                let Some(gone) = self.workloads.remove(&o.kind, &o.namespace, &o.name) else {
                    continue;
                };
                for (kind, name) in gone {
                    if (kind.as_str(), name.as_str()) != (o.kind.as_str(), o.name.as_str()) {
                        self.gc.owner_gone(&kind, &o.namespace, &name, "");
                    }
                }
            }
        }
    }

    /// The next time a controller has work, after `now`.
    pub fn next_wake(&self, now: Millis, cluster: &Cluster) -> Option<Millis> {
        [
            self.node_lifecycle.next_wake(now, cluster),
            self.taint_eviction.next_wake(now, cluster),
            self.pod_gc.next_wake(now, cluster),
            self.kubelet.next_wake(now, cluster),
            self.karpenter.next_wake(now),
        ]
        .into_iter()
        .flatten()
        .filter(|t| *t > now)
        .min()
    }

    /// Node `id`, called `name`, was deleted from the view ([`Cluster::delete_node`]): the
    /// controllers that keep node ids are told.
    pub fn node_removed(&mut self, id: NodeId, name: &str) {
        self.node_lifecycle.node_removed(id, name);
        self.taint_eviction.node_removed(id, name);
        self.pod_gc.node_removed(id, name);
        self.kubelet.node_removed(id, name);
        self.workloads.node_removed(id, name);
    }
}
