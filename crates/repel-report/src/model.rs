//! The report's model: what `repel report -o json` prints and what the page draws.
//!
//! The JSON field names of [`Report`], [`PoolRow`] (`name`, `taints`, `nodes`), [`Cell`]
//! (`workload`, `pool`, `verdict`, `taint`, `reason`) and [`TimelineEntry`] (`at`, `event`,
//! `pod` or `node`, `message`) are a contract; more fields may be added.
//!
//! The matrix is held once per *row class* (the workloads whose cells are all alike share one
//! [`RowClass`]), so a cluster of 30,000 small workloads over ten pools holds a few hundred
//! classes of ten cells, not 300,000 cells; [`Report::matrix`] expands it into the flat list
//! of the contract, and the page expands it only for the rows it shows.

use serde::{Deserialize, Serialize};

/// The verdict of one workload on one pool, ordered best first (a pool's verdict is the
/// least of its nodes').
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Some node of the pool takes its pods, and the scheduler does not avoid it.
    Lands,
    /// Its pods may go there, but the scheduler prefers elsewhere: an untolerated
    /// `PreferNoSchedule` taint, or preferred node affinity matching none of the pool's nodes.
    Avoided,
    /// The rules let its pods in, but no node of the pool has room (resources, ports, pod
    /// count).
    NoRoom,
    /// The rules keep its pods off: an untolerated taint (`taint` names it), or the pod's node
    /// selector, affinity or node name, or cordoning.
    Blocked,
}

impl Verdict {
    /// As the DOM and the JSON write it: `lands`, `avoided`, `blocked`, `no-room`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Lands => "lands",
            Verdict::Avoided => "avoided",
            Verdict::Blocked => "blocked",
            Verdict::NoRoom => "no-room",
        }
    }
}

/// One verdict of a workload on a pool, without the workload (shared by a row class).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClassCell {
    /// The pool's name.
    pub pool: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The taint that keeps the pods off (`key=value:Effect`), when a taint does; for
    /// `avoided`, the untolerated `PreferNoSchedule` taint, when that is why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taint: Option<String>,
    /// Why, in a sentence (upstream's filter reason where there is one).
    pub reason: String,
    /// The toleration to paste (YAML, one list item) when a taint is what keeps the pods off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toleration: Option<String>,
    /// How many of the pool's nodes take the pods (`lands`, `avoided`), of `of`.
    pub fit: usize,
    /// The pool's nodes judged.
    pub of: usize,
}

/// The cells shared by the workloads of one class, one per pool in pool order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RowClass {
    /// One per pool, in the order of [`Report::pools`].
    pub cells: Vec<ClassCell>,
}

/// One row of the matrix: a workload (or a bare pod).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadRow {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// Its kind.
    pub kind: String,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The pods it stands for (replicas; a DaemonSet's nodes; 1 for a Pod).
    pub pods: usize,
    /// Its pods' tolerations after admission, `key=value:Effect` style (`Exists` as `key:*`).
    pub tolerations: Vec<String>,
    /// Index into [`Report::classes`].
    pub class: usize,
}

/// One taint of a pool, with who tolerates it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolTaint {
    /// `key=value:Effect`.
    pub taint: String,
    /// The effect.
    pub effect: String,
    /// How many of the pool's nodes carry it.
    pub nodes: usize,
    /// The workloads (rows) whose pods tolerate it, `Kind/ns/name`; at most
    /// [`crate::MAX_NAMES`], the rest counted in `tolerated_by_more`.
    #[serde(rename = "toleratedBy")]
    pub tolerated_by: Vec<String>,
    /// How many more tolerate it than `tolerated_by` lists.
    #[serde(rename = "toleratedByMore")]
    pub tolerated_by_more: usize,
}

/// One pool of the inventory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolRow {
    /// Its name: the pool object's, the pool label's value, or for nodes grouped by taints,
    /// their taints joined by `,` (`untainted` for none).
    pub name: String,
    /// How it was found: `karpenter`, `eksctl`, `eks`, `aks` (a pool object), `label` (nodes
    /// sharing a pool label, `source` says which) or `taints` (nodes with identical taints).
    pub kind: String,
    /// The label that groups its nodes, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Its taints (`key=value:Effect`): the pool object's template, else those its nodes share.
    pub taints: Vec<String>,
    /// The taints with their effect, node counts and who tolerates each (also the taints only
    /// some of its nodes carry).
    #[serde(rename = "taintDetails")]
    pub taint_details: Vec<PoolTaint>,
    /// Its nodes' names (at most [`crate::MAX_NAMES`]; `nodeCount` is the total).
    pub nodes: Vec<String>,
    /// How many nodes it has.
    #[serde(rename = "nodeCount")]
    pub node_count: usize,
    /// How many of them are cordoned.
    pub cordoned: usize,
}

/// A DaemonSet on one pool: where it is meant to run and where its controller runs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageCell {
    /// The pool.
    pub pool: String,
    /// The pool's nodes its node selector, required affinity and node name pick.
    pub intended: usize,
    /// The pool's nodes its controller creates a pod for (`NodeShouldRunDaemonPod`).
    #[serde(rename = "wouldRun")]
    pub would_run: usize,
    /// The pool's nodes.
    pub of: usize,
    /// The first taint that keeps it off intended nodes, when one does (the device-plugin
    /// trap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taint: Option<String>,
}

/// One DaemonSet's coverage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// `DaemonSet/ns/name`.
    pub daemonset: String,
    /// One per pool, in pool order.
    pub pools: Vec<CoverageCell>,
}

/// One node's drain verdict by one judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrainVerdict {
    /// Whether the node can be drained.
    pub drainable: bool,
    /// The blocker's reason (`BlockedByPdb`, `NotReplicated`, …), when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The blocker's message, when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One node's drain readiness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrainNode {
    /// The node.
    pub node: String,
    /// Its pool.
    pub pool: String,
    /// As `kubectl drain --ignore-daemonsets` judges it.
    pub kubectl: DrainVerdict,
    /// As cluster-autoscaler's scale-down judges it (its default flags).
    #[serde(rename = "clusterAutoscaler")]
    pub cluster_autoscaler: DrainVerdict,
    /// As Karpenter's disruption judges it.
    pub karpenter: DrainVerdict,
}

/// A pool's drain readiness: counts, and the nodes that are not drainable by some judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrainPool {
    /// The pool.
    pub pool: String,
    /// Its nodes.
    pub nodes: usize,
    /// Drainable as kubectl.
    pub kubectl: usize,
    /// Drainable as cluster-autoscaler.
    #[serde(rename = "clusterAutoscaler")]
    pub cluster_autoscaler: usize,
    /// Drainable as Karpenter.
    pub karpenter: usize,
}

/// One lint finding, beside the object it concerns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The rule id.
    pub rule: String,
    /// `error`, `warning` or `info`.
    pub severity: String,
    /// `Kind/ns/name` (a workload row's id), `Node/name` or the pool's `Kind/name`.
    pub object: String,
    /// The offending field.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// The fix.
    pub fix: String,
}

/// One event of a scenario's timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineEntry {
    /// Seconds of simulated time from the scenario's start.
    pub at: f64,
    /// The event's reason (`Scheduled`, `TaintManagerEviction`, …).
    pub event: String,
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The pod, `ns/name`, when the event is about a pod.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    /// The node: the event's object when it is a node, else the node it names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The event's message.
    pub message: String,
    /// For an eviction scheduled by a toleration: the seconds it waited
    /// (`tolerationSeconds`), so the page can draw the countdown.
    #[serde(rename = "countdown", skip_serializing_if = "Option::is_none")]
    pub countdown: Option<f64>,
}

/// Totals, for the page's header.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Nodes.
    pub nodes: usize,
    /// Pods (placed and pending) of the cluster as it would run.
    pub pods: usize,
    /// Matrix rows.
    pub workloads: usize,
    /// Pending pods after scheduling.
    pub pending: usize,
    /// Seconds taken to compute the model.
    #[serde(rename = "computeSeconds")]
    pub compute_seconds: f64,
}

/// The whole report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// What was read: file names, or the live cluster's context, or `repel serve`.
    pub source: String,
    /// Totals.
    pub summary: Summary,
    /// The pools, in order: pool objects, then label groups, then taint groups.
    pub pools: Vec<PoolRow>,
    /// The matrix's rows, in input order.
    pub workloads: Vec<WorkloadRow>,
    /// The matrix's row classes.
    pub classes: Vec<RowClass>,
    /// Per DaemonSet, its coverage by pool.
    pub coverage: Vec<Coverage>,
    /// Drain readiness per pool.
    #[serde(rename = "drainPools")]
    pub drain_pools: Vec<DrainPool>,
    /// Drain readiness of the nodes that some judge finds not drainable (every node when the
    /// cluster has at most [`crate::MAX_DRAIN_NODES`]).
    #[serde(rename = "drainNodes")]
    pub drain_nodes: Vec<DrainNode>,
    /// Lint findings.
    pub findings: Vec<Finding>,
    /// A scenario's events (empty without `--scenario`).
    pub timeline: Vec<TimelineEntry>,
    /// When the scenario ran: its end, seconds.
    #[serde(rename = "timelineEnd", skip_serializing_if = "Option::is_none")]
    pub timeline_end: Option<f64>,
}

/// One cell of the flat matrix of the contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cell<'a> {
    /// `Kind/ns/name`.
    pub workload: &'a str,
    /// The pool.
    pub pool: &'a str,
    /// `lands`, `avoided`, `blocked`, `no-room`.
    pub verdict: Verdict,
    /// The taint, when one decides (`null` otherwise).
    pub taint: Option<&'a str>,
    /// Why.
    pub reason: &'a str,
    /// The toleration to paste, when a taint keeps the pods off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toleration: Option<&'a str>,
}

impl Report {
    /// The matrix as the contract lists it: one cell per workload and pool.
    pub fn matrix(&self) -> impl Iterator<Item = Cell<'_>> {
        self.workloads.iter().flat_map(move |w| {
            self.classes[w.class].cells.iter().map(move |c| Cell {
                workload: &w.workload,
                pool: &c.pool,
                verdict: c.verdict,
                taint: c.taint.as_deref(),
                reason: &c.reason,
                toleration: c.toleration.as_deref(),
            })
        })
    }

    /// The cell of `workload` on `pool`.
    pub fn cell(&self, workload: &str, pool: &str) -> Option<&ClassCell> {
        let w = self.workloads.iter().find(|w| w.workload == workload)?;
        self.classes[w.class].cells.iter().find(|c| c.pool == pool)
    }
}

/// `repel report -o json`: the model with the flat `matrix` of the contract beside its
/// compact form.
#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    /// The model.
    #[serde(flatten)]
    pub report: &'a Report,
    /// The flat matrix.
    pub matrix: Vec<Cell<'a>>,
}

impl<'a> JsonReport<'a> {
    /// The model with its flat matrix.
    pub fn new(report: &'a Report) -> Self {
        JsonReport {
            report,
            matrix: report.matrix().collect(),
        }
    }
}
