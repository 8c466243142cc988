//! DefaultPreemption as PostFilter (upstream v1.35). (Being written: for now it only reports,
//! per node, whether removing pods could help.)

use repel_core::fit_error::{NO_PREEMPTION_VICTIMS, PREEMPTION_NOT_HELPFUL, default_post_filter};

use crate::cluster::{Cluster, NodeId, PodId, PodInfo};
use crate::scheduler::framework::{Code, CycleState};
use crate::scheduler::{Diagnosis, Scheduler};

/// The plugin's name.
pub const NAME: &str = "DefaultPreemption";

/// PostFilter's result.
#[derive(Debug, Clone, Default)]
pub struct PostFilterResult {
    /// The default profile's PostFilter message (`no new claims to deallocate, preemption: …`).
    pub message: String,
    /// The node nominated for the pod.
    pub nominated: Option<NodeId>,
    /// Pods to remove from it.
    pub victims: Vec<PodId>,
}

/// Runs the default profile's PostFilter for a pod no node fits.
pub fn post_filter(
    _sched: &Scheduler,
    cluster: &Cluster,
    _state: &CycleState,
    pod: &PodInfo,
    diagnosis: &Diagnosis,
) -> PostFilterResult {
    let never = pod.spec().preemption_policy.as_deref() == Some("Never");
    let reasons = (0..cluster.nodes.len()).map(|id| match diagnosis.status(id).map(|s| s.code) {
        Some(Code::UnschedulableAndUnresolvable) | None => PREEMPTION_NOT_HELPFUL,
        _ => NO_PREEMPTION_VICTIMS,
    });
    PostFilterResult {
        message: default_post_filter(cluster.nodes.len(), reasons, never),
        nominated: None,
        victims: Vec::new(),
    }
}
