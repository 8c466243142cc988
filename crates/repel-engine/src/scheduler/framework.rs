//! The scheduling framework's vocabulary (upstream `pkg/scheduler/framework`, v1.35): status
//! codes, the per-cycle state, and the plugin interface with its extension points.

use std::any::Any;
use std::collections::{BTreeSet, HashMap};
use std::fmt;

use crate::cluster::{Cluster, NodeInfo, PodId, PodInfo};

/// Upstream `fwk.Code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// The plugin ran and the pod may proceed.
    Success,
    /// An internal error.
    Error,
    /// Rejected; preemption may help.
    Unschedulable,
    /// Rejected; preemption cannot help.
    UnschedulableAndUnresolvable,
    /// The plugin does not apply to this pod (PreFilter/PreScore only).
    Skip,
}

/// Upstream `fwk.Status`: a code, reasons, and the plugin that returned it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The code.
    pub code: Code,
    /// Upstream's reason strings.
    pub reasons: Vec<String>,
    /// The plugin that returned it (empty for success).
    pub plugin: &'static str,
}

impl Status {
    /// Success.
    pub fn success() -> Self {
        Status {
            code: Code::Success,
            reasons: Vec::new(),
            plugin: "",
        }
    }
    /// Skip: the plugin does not apply.
    pub fn skip() -> Self {
        Status {
            code: Code::Skip,
            reasons: Vec::new(),
            plugin: "",
        }
    }
    /// Rejected, preemption may help.
    pub fn unschedulable(plugin: &'static str, reasons: Vec<String>) -> Self {
        Status {
            code: Code::Unschedulable,
            reasons,
            plugin,
        }
    }
    /// Rejected, preemption cannot help.
    pub fn unresolvable(plugin: &'static str, reason: &str) -> Self {
        Status {
            code: Code::UnschedulableAndUnresolvable,
            reasons: vec![reason.to_string()],
            plugin,
        }
    }
    /// An internal error.
    pub fn error(plugin: &'static str, message: String) -> Self {
        Status {
            code: Code::Error,
            reasons: vec![message],
            plugin,
        }
    }
    /// Whether the code is Success.
    pub fn is_success(&self) -> bool {
        self.code == Code::Success
    }
    /// Whether the pod was turned away (Unschedulable or UnschedulableAndUnresolvable).
    pub fn is_rejected(&self) -> bool {
        matches!(
            self.code,
            Code::Unschedulable | Code::UnschedulableAndUnresolvable
        )
    }
    /// Reasons joined by `", "`, as upstream's `Status.Message()`.
    pub fn message(&self) -> String {
        self.reasons.join(", ")
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

/// Data a plugin keeps for one scheduling cycle; cloned when preemption tries a node.
pub trait StateData: Any + fmt::Debug {
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn StateData>;
    /// For downcasting.
    fn as_any(&self) -> &dyn Any;
    /// For downcasting mutably.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any + Clone + fmt::Debug> StateData for T {
    fn clone_box(&self) -> Box<dyn StateData> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Upstream `CycleState`: per-plugin data for one pod's cycle, keyed by plugin name.
#[derive(Debug, Default)]
pub struct CycleState {
    data: HashMap<&'static str, Box<dyn StateData>>,
    /// Plugins whose PreFilter returned Skip: their Filter is not run.
    pub skip_filter: BTreeSet<&'static str>,
    /// Plugins whose PreScore returned Skip: their Score is not run.
    pub skip_score: BTreeSet<&'static str>,
}

impl Clone for CycleState {
    fn clone(&self) -> Self {
        CycleState {
            data: self
                .data
                .iter()
                .map(|(k, v)| (*k, (**v).clone_box()))
                .collect(),
            skip_filter: self.skip_filter.clone(),
            skip_score: self.skip_score.clone(),
        }
    }
}

impl CycleState {
    /// Stores a plugin's data.
    pub fn write<T: StateData>(&mut self, key: &'static str, value: T) {
        self.data.insert(key, Box::new(value));
    }
    /// Reads a plugin's data.
    pub fn read<T: 'static>(&self, key: &'static str) -> Option<&T> {
        self.data
            .get(key)
            .and_then(|v| (**v).as_any().downcast_ref::<T>())
    }
    /// Reads a plugin's data mutably.
    pub fn read_mut<T: 'static>(&mut self, key: &'static str) -> Option<&mut T> {
        self.data
            .get_mut(key)
            .and_then(|v| (**v).as_any_mut().downcast_mut::<T>())
    }
}

/// What a PreFilter may return besides its status: the only nodes worth filtering
/// (upstream `PreFilterResult.NodeNames`); `None` means all.
pub type PreFilterResult = Option<BTreeSet<String>>;

/// A scheduler plugin. Every extension point has a default that does nothing, so a plugin
/// implements only its own. `cluster` is the state as the cycle sees it (bound pods included).
pub trait Plugin: Send + Sync {
    /// The plugin's name, as in upstream's profile.
    fn name(&self) -> &'static str;

    /// PreFilter: computes per-cycle state; may reject the pod outright or narrow the nodes.
    /// Returning Skip means the plugin's Filter is not run for this pod; the default (a plugin
    /// without PreFilter) is Success.
    fn pre_filter(
        &self,
        _state: &mut CycleState,
        _pod: &PodInfo,
        _cluster: &Cluster,
    ) -> (Status, PreFilterResult) {
        (Status::success(), None)
    }

    /// PreFilter extension: `victim` (on `node`) is being removed from the cycle's view
    /// (preemption's what-if). Plugins whose PreFilter state counts pods update it here.
    fn remove_pod(
        &self,
        _state: &mut CycleState,
        _pod: &PodInfo,
        _victim: &PodInfo,
        _node: &NodeInfo,
        _cluster: &Cluster,
    ) {
    }

    /// PreFilter extension: `added` (on `node`) joins the cycle's view (nominated pods).
    fn add_pod(
        &self,
        _state: &mut CycleState,
        _pod: &PodInfo,
        _added: &PodInfo,
        _node: &NodeInfo,
        _cluster: &Cluster,
    ) {
    }

    /// Filter: whether the pod may go to `node`.
    fn filter(
        &self,
        _state: &CycleState,
        _pod: &PodInfo,
        _node: &NodeInfo,
        _cluster: &Cluster,
    ) -> Status {
        Status::success()
    }

    /// PreScore: per-cycle state for scoring over the feasible nodes; Skip means the plugin's
    /// Score is not run. The default (a plugin without PreScore) is Success.
    fn pre_score(
        &self,
        _state: &mut CycleState,
        _pod: &PodInfo,
        _feasible: &[&NodeInfo],
        _cluster: &Cluster,
    ) -> Status {
        Status::success()
    }

    /// Score: a raw score for `node`.
    fn score(
        &self,
        _state: &CycleState,
        _pod: &PodInfo,
        _node: &NodeInfo,
        _cluster: &Cluster,
    ) -> Result<i64, Status> {
        Ok(0)
    }

    /// NormalizeScore: maps the raw scores of the feasible nodes to `0..=100` in place.
    fn normalize_score(&self, _state: &CycleState, _pod: &PodInfo, _scores: &mut [i64]) {}
}

/// The pods bound to a node, resolved.
pub fn pods_on<'a>(
    cluster: &'a Cluster,
    node: &'a NodeInfo,
) -> impl Iterator<Item = (PodId, &'a PodInfo)> + 'a {
    node.pods
        .iter()
        .filter_map(|id| cluster.pods.get(*id).map(|p| (*id, p)))
}

/// `MaxNodeScore`.
pub const MAX_NODE_SCORE: i64 = 100;
