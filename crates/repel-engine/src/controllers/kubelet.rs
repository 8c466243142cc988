//! Kubelet admission (upstream `pkg/kubelet/lifecycle/predicate.go`, v1.35), as far as taints
//! go: a pod bound to a node — by the scheduler or by `spec.nodeName`, which bypasses the
//! scheduler and its NoSchedule checks — is rejected when the node has a NoExecute taint it
//! does not tolerate; otherwise it starts running. NoSchedule and PreferNoSchedule taints are
//! ignored by the kubelet.
//!
//! **Run time** (repel's, not upstream's: containers run nothing here). A pod whose metadata
//! carries the annotation [`RUN_SECONDS_ANNOTATION`] (`repel.dev/run-seconds: "30"`, usually set
//! in a Job's pod template) finishes that many seconds after its kubelet started it: phase
//! `Succeeded`, and, finished, it holds nothing on its node any more (the scheduler's informer
//! leaves finished pods out). Without the annotation a pod runs until deleted. A value that is
//! not a whole number of seconds (0 or more) is ignored.
//!
//! **Graceful termination.** A pod that preemption deleted (terminating with the scheduler's
//! `DisruptionTarget` condition, reason `PreemptionByScheduler`) is stopped with its grace
//! period (`metadata.deletionGracePeriodSeconds`): its kubelet, from the pass it first sees the
//! deletion, finishes it that many seconds later, as a kubelet waits out the containers' grace
//! period before the pod object goes; until then the pod stays bound, Terminating, holding its
//! requests. Other pods being deleted go as soon as their kubelet runs (repel's model: see the
//! README).

use std::collections::HashMap;

use repel_core::FeatureGates;
use repel_core::taint::{NO_EXECUTE, find_matching_untolerated_taint};

use crate::clock::Millis;
use crate::cluster::{Cluster, PodId, PodPhase};
use crate::controllers::Controller;
use crate::events::{Event, pod_object};

/// The controller's name.
pub const NAME: &str = "kubelet";
/// The rejection reason (`TaintToleration`).
pub const REASON: &str = "TaintToleration";
/// The rejection message, as the kubelet words it.
pub const MESSAGE: &str =
    "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate";
/// The prefix of the rejected pod's `status.message` (upstream `rejectPod`).
pub const STATUS_PREFIX: &str = "Pod was rejected: ";

/// The annotation that gives a pod its run time in seconds (see the module documentation).
pub const RUN_SECONDS_ANNOTATION: &str = "repel.dev/run-seconds";

/// Every node's kubelet, admitting the pods bound to it.
#[derive(Debug, Default)]
pub struct Kubelet {
    /// Feature gates (the kubelet passes the global gate to the matcher).
    pub gates: FeatureGates,
    /// Pods with a run time, by when they finish.
    finishing: HashMap<PodId, Millis>,
    /// Pods being deleted with a grace period, by when their grace period ends.
    grace: HashMap<PodId, Millis>,
}

impl Kubelet {
    /// The kubelets, with `gates`.
    pub fn new(gates: FeatureGates) -> Self {
        Kubelet {
            gates,
            finishing: HashMap::new(),
            grace: HashMap::new(),
        }
    }
}

/// The grace period, in milliseconds, the kubelet waits out before a terminating pod goes: a
/// preemption victim's `deletionGracePeriodSeconds` (see the module documentation).
fn grace_period(p: &crate::cluster::PodInfo) -> Option<Millis> {
    if !crate::scheduler::preemption::terminating_by_preemption(p) {
        return None;
    }
    p.meta
        .deletion_grace_period_seconds
        .filter(|s| *s > 0)
        .map(|s| s.saturating_mul(1000))
}

/// A pod's run time from [`RUN_SECONDS_ANNOTATION`], in milliseconds.
fn run_time(p: &crate::cluster::PodInfo) -> Option<Millis> {
    p.meta
        .annotations
        .as_ref()?
        .get(RUN_SECONDS_ANNOTATION)?
        .parse::<u32>()
        .ok()
        .map(|s| Millis::from(s) * 1000)
}

impl Controller for Kubelet {
    fn name(&self) -> &'static str {
        NAME
    }

    fn reconcile(&mut self, now: Millis, cluster: &mut Cluster, events: &mut Vec<Event>) {
        // Pods whose run time is over finish (a pod deleted or failed meanwhile is forgotten).
        let mut done: Vec<PodId> = self
            .finishing
            .iter()
            .filter(|(_, t)| **t <= now)
            .map(|(p, _)| *p)
            .collect();
        done.sort_unstable();
        for id in done {
            self.finishing.remove(&id);
            let Some(p) = cluster.pods.get_mut(id) else {
                continue;
            };
            if p.deleted || p.terminating || p.phase != PodPhase::Running {
                continue;
            }
            p.phase = PodPhase::Succeeded;
            p.status_mut().phase = Some("Succeeded".into());
            cluster.unbind(id);
            cluster.touch_pod(id);
        }
        // A kubelet that is running again finishes the graceful deletions it missed; a
        // preemption victim's, once its grace period (counted from when its kubelet first
        // runs while it is terminating) is over. A pod whose node was deleted has no kubelet:
        // the pod garbage collector removes it.
        self.grace.retain(|id, _| {
            cluster
                .pods
                .get(*id)
                .is_some_and(|p| p.terminating && !p.deleted)
        });
        for id in 0..cluster.pods.len() {
            let p = &cluster.pods[id];
            let kubelet_runs = match p.node {
                Some(n) => cluster.node_ready(n),
                None => p.spec_node_name().is_none(),
            };
            if p.terminating && !p.deleted && kubelet_runs {
                if let Some(grace) = grace_period(p) {
                    let until = *self.grace.entry(id).or_insert(now + grace);
                    if now < until {
                        continue;
                    }
                }
                self.grace.remove(&id);
                cluster.delete_pod(id);
            }
        }
        // A running pod marked not Ready while its node was (MarkPodsNotReady) is Ready again
        // once its kubelet reports: the kubelet's status sync.
        for id in 0..cluster.pods.len() {
            let p = &cluster.pods[id];
            if p.deleted || p.terminating || p.phase != PodPhase::Running {
                continue;
            }
            if p.condition("Ready") == Some("False")
                && p.node.is_some_and(|n| cluster.node_ready(n))
                && cluster.pods[id].set_condition("Ready", "True", None, None)
            {
                cluster.pods[id].ready_since = Some(now);
                cluster.touch_pod(id);
            }
        }
        for id in 0..cluster.pods.len() {
            let (node, pending) = {
                let p = &cluster.pods[id];
                (
                    p.node,
                    !p.deleted && !p.terminating && p.phase == PodPhase::Pending,
                )
            };
            let (Some(node), true) = (node, pending) else {
                continue;
            };
            let Some(n) = cluster.nodes.get(node) else {
                continue;
            };
            let node_name = n.name.clone();
            let rejected = find_matching_untolerated_taint(
                &n.taints,
                cluster.pods[id].tolerations(),
                |t| t.effect == NO_EXECUTE,
                &self.gates,
            )
            .is_some();
            let p = &mut cluster.pods[id];
            let status = p.status.get_or_insert_with(Default::default);
            if rejected {
                p.phase = PodPhase::Failed;
                status.phase = Some("Failed".into());
                status.reason = Some(REASON.into());
                status.message = Some(format!("{STATUS_PREFIX}{MESSAGE}"));
                events.push(Event::warning(
                    now,
                    REASON,
                    pod_object(&p.namespace, &p.name),
                    Some(node_name),
                    MESSAGE.into(),
                ));
            } else {
                p.phase = PodPhase::Running;
                status.phase = Some("Running".into());
                // Ready from the start (repel runs no probes): the time the ReplicaSet
                // controller's scale-down order reads (upstream `podReadyTime`).
                p.ready_since = Some(now);
                if let Some(run) = run_time(p) {
                    self.finishing.insert(id, now + run);
                }
            }
            cluster.touch_pod(id);
        }
    }

    fn next_wake(&self, now: Millis, _: &Cluster) -> Option<Millis> {
        self.finishing
            .values()
            .chain(self.grace.values())
            .copied()
            .filter(|t| *t > now)
            .min()
    }
}
