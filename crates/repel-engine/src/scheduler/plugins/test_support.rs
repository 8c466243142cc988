//! Fixture builders for the plugins' tests: repel-core's `testing` builders, wrapped as the
//! scheduler's `NodeInfo` and `PodInfo`.

use repel_core::k8s_openapi::api::core::v1::{PodSpec, Taint};
use repel_core::testing::{MakeNode, MakePod};
pub use repel_core::testing::{taint, tol};

use crate::cluster::{NodeInfo, PodInfo};

/// A node with taints and nothing on it.
pub fn node(name: &str, taints: Vec<Taint>) -> NodeInfo {
    NodeInfo::new(MakeNode::new().name(name).taints(taints).obj())
}

/// A node with labels.
pub fn labelled(name: &str, labels: &[(&str, &str)]) -> NodeInfo {
    let node = labels
        .iter()
        .fold(MakeNode::new().name(name), |n, (k, v)| n.label(k, v));
    NodeInfo::new(node.obj())
}

/// A pod in `default` with one container, shaped by `f`.
pub fn pod(name: &str, f: impl FnOnce(&mut PodSpec)) -> PodInfo {
    let mut pod = MakePod::new()
        .name(name)
        .namespace("default")
        .container("c", "")
        .obj();
    if let Some(spec) = pod.spec.as_mut() {
        f(spec);
    }
    PodInfo::new(pod, 0)
}

/// The scheduler's view of a built pod (upstream's tests call `framework.NewPodInfo` on
/// `st.MakePod()...Obj()`).
pub trait Info {
    /// The pod as [`PodInfo`], queue position 0.
    fn info(self) -> PodInfo;
}

impl Info for MakePod {
    fn info(self) -> PodInfo {
        PodInfo::new(self.obj(), 0)
    }
}
