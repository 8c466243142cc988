//! The `kind: Scenario` file format: the cluster to start from, timed
//! steps, controller flags and feature gates, and the expectations `repel test` checks.
//!
//! The CLI reads YAML or JSON into a `serde_json::Value`; [`parse_scenario`] checks it field by
//! field and returns a [`Scenario`], or every problem at once, each naming its field
//! (`steps[2].at: time: invalid duration "10x"`). Unknown fields are errors, with a suggestion
//! when the name is close to a known one: a typo must not pass silently.
//!
//! ```yaml
//! kind: Scenario
//! manifests: [cluster.yaml]          # relative to the scenario file; and/or `objects:` inline
//! featureGates: {TaintTolerationComparisonOperators: true}
//! nodeMonitorGracePeriod: 50s        # controller flags, camelCase, at the top level
//! enableAdmissionPlugins: [ExtendedResourceToleration]   # kube-apiserver's, a list or "A,B"
//! seed: 7
//! steps:
//!   - at: 0s
//!     kubectl: taint nodes node1 key1=value1:NoExecute
//!   - at: 10m
//!     node: {name: node2, condition: {type: Ready, status: Unknown}}
//!   - advance: 5m                    # 5 minutes after the previous step
//!   - node: {name: node2, heartbeats: false}   # no `at`: same time as the previous step
//!   - at: 20m
//!     apply: [ ...inline objects... ]
//!   - at: 30m
//!     delete: [pod/default/web-0, node/node3, deployment/web]
//!   - at: 35m                        # node pools (crate::pool_steps)
//!     az: aks nodepool update --resource-group rg --cluster-name c --name gpu --node-taints "sku=gpu:NoSchedule"
//!   - at: 40m
//!     aws: eks update-nodegroup-config --cluster-name c --nodegroup-name ng --taints 'addOrUpdateTaints=[{key=k,value=v,effect=NO_SCHEDULE}]'
//! until: 1h
//! expect:
//!   - at: 10m
//!     pod: default/web-0
//!     phase: Running                 # Pending | Running | Failed | Succeeded | Gone
//!     node: node3                    # also terminating: true|false (kubectl's Terminating)
//!   - event: TaintManagerEviction    # an event's reason, on an object, at or by a time
//!     object: Pod/default/web-0
//!     by: 20m
//!   - {at: 45m, pool: gpu, nodes: 2, taints: ["sku=gpu:NoSchedule"]}   # Ready nodes; every node's taints
//!   - {at: 45m, pod: default/trainer, phase: Running, pool: gpu}      # on a node of that pool
//! ```
//!
//! Times are Go durations (`0s`, `90s`, `10m`, `1h30m`) or plain numbers of seconds.

mod read;
mod steps;
#[cfg(test)]
mod tests;
mod top;

use std::fmt;

use repel_core::FeatureGates;
use serde_json::Value;

use crate::clock::{DurationError, Millis, human};
use crate::kubectl_steps::tokenize;
use read::Reader;
use steps::{read_expect, read_steps};
use top::{read_flags, read_gates, read_objects};

/// A parsed scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// `metadata.name`, when given.
    pub name: Option<String>,
    /// Manifest paths, relative to the scenario file.
    pub manifests: Vec<String>,
    /// Inline objects (a `kind: List` is flattened).
    pub objects: Vec<Value>,
    /// Steps, sorted stably by time.
    pub steps: Vec<Step>,
    /// When the run ends (`None`: after the last step and expectation, once the controllers
    /// are quiet).
    pub until: Option<Millis>,
    /// Feature gates.
    pub feature_gates: FeatureGates,
    /// Controller and admission flags.
    pub flags: ControllerFlags,
    /// The seed for generated names and tie-breaks.
    pub seed: Option<u64>,
    /// What `repel test` checks, in file order.
    pub expect: Vec<Expectation>,
    /// `instanceTypes`: capacities of instance types the built-in catalogue lacks (or exact
    /// figures for one it holds), for the nodes the fixed-size pools create:
    /// `{NAME: {cpu: "4", memory: 16Gi, pods: "58", nvidia.com/gpu: "1"}}`.
    pub instance_types:
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>,
}

/// Flags of kube-apiserver's admission plugins, kube-controller-manager and kube-scheduler that
/// change taint behaviour, under their flag names in camelCase. `None` means upstream's default.
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerFlags {
    /// `--default-not-ready-toleration-seconds` (DefaultTolerationSeconds admission), 300.
    pub default_not_ready_toleration_seconds: i64,
    /// `--default-unreachable-toleration-seconds` (DefaultTolerationSeconds admission), 300.
    pub default_unreachable_toleration_seconds: i64,
    /// `--node-monitor-grace-period`.
    pub node_monitor_grace_period: Option<Millis>,
    /// `--node-eviction-rate` (nodes per second).
    pub node_eviction_rate: Option<f64>,
    /// `--secondary-node-eviction-rate`.
    pub secondary_node_eviction_rate: Option<f64>,
    /// `--unhealthy-zone-threshold` (a fraction).
    pub unhealthy_zone_threshold: Option<f64>,
    /// `--large-cluster-size-threshold` (nodes).
    pub large_cluster_size_threshold: Option<usize>,
    /// The scheduler's `percentageOfNodesToScore`.
    pub percentage_of_nodes_to_score: Option<i64>,
    /// kube-apiserver's `--enable-admission-plugins` (upstream's plugin names, checked when read).
    pub enable_admission_plugins: Vec<String>,
    /// kube-apiserver's `--disable-admission-plugins`.
    pub disable_admission_plugins: Vec<String>,
}

impl Default for ControllerFlags {
    /// Upstream's defaults: 300 s for both default tolerations, the rest unset.
    fn default() -> Self {
        ControllerFlags {
            default_not_ready_toleration_seconds: 300,
            default_unreachable_toleration_seconds: 300,
            node_monitor_grace_period: None,
            node_eviction_rate: None,
            secondary_node_eviction_rate: None,
            unhealthy_zone_threshold: None,
            large_cluster_size_threshold: None,
            percentage_of_nodes_to_score: None,
            enable_admission_plugins: Vec::new(),
            disable_admission_plugins: Vec::new(),
        }
    }
}

/// The controller flags a scenario may set, as top-level fields.
pub const CONTROLLER_FLAGS: [&str; 10] = [
    "defaultNotReadyTolerationSeconds",
    "defaultUnreachableTolerationSeconds",
    "nodeMonitorGracePeriod",
    "nodeEvictionRate",
    "secondaryNodeEvictionRate",
    "unhealthyZoneThreshold",
    "largeClusterSizeThreshold",
    "percentageOfNodesToScore",
    "enableAdmissionPlugins",
    "disableAdmissionPlugins",
];

/// One timed step.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Its index in the file's `steps` list (for messages).
    pub index: usize,
    /// When it happens.
    pub at: Millis,
    /// What happens.
    pub action: StepAction,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq)]
pub enum StepAction {
    /// A kubectl command line (see [`crate::kubectl_steps`]).
    Kubectl(String),
    /// A node's condition changes, or its kubelet stops/resumes posting status.
    Node {
        /// The node.
        name: String,
        /// `(type, status)`, e.g. `("Ready", "Unknown")`.
        condition: Option<(String, String)>,
        /// `false`: heartbeats stop; `true`: they resume.
        heartbeats: Option<bool>,
    },
    /// Objects created or replaced, as `kubectl apply` would.
    Apply(Vec<Value>),
    /// Objects deleted.
    Delete(Vec<ObjectRef>),
    /// Nothing but time passing: the step's `at` is the previous step's time plus this.
    Advance(Millis),
    /// An `az aks nodepool …` command line (see [`crate::pool_steps`]).
    Az(String),
    /// An `aws eks update-nodegroup-config …` command line (see [`crate::pool_steps`]).
    Aws(String),
}

/// An object named by `kind/name` or `kind/namespace/name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRef {
    /// The kind, canonical (`Pod`, `Node`, `Deployment`, …).
    pub kind: String,
    /// The namespace, when given (namespaced kinds default to `default`).
    pub namespace: Option<String>,
    /// The name.
    pub name: String,
}

/// The kinds a scenario may name, by any of their names in [`repel_core::kinds`] (singular,
/// plural, kubectl's short names, the kind in any case).
const KINDS: &[&str] = &[
    "Pod",
    "Node",
    "Namespace",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "ReplicationController",
    "PodDisruptionBudget",
];

/// The canonical kind for a word (`pod`, `pods`, `Pod`, `po` → `Pod`) and whether it is
/// namespaced.
pub fn canonical_kind(word: &str) -> Option<(&'static str, bool)> {
    let k = repel_core::kinds::by_name(&word.to_lowercase())?;
    KINDS.contains(&k.kind).then_some((k.kind, k.namespaced))
}

impl std::str::FromStr for ObjectRef {
    type Err = String;

    /// `kind/name` or `kind/namespace/name`; the kind is any of kubectl's names for it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parts: Vec<&str> = s.split('/').collect();
        if parts.len() < 2 || parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
            return Err(format!(
                "invalid object {s:?}: expected kind/name or kind/namespace/name, e.g. pod/default/web-0"
            ));
        }
        let Some((kind, namespaced)) = canonical_kind(parts[0]) else {
            let supported: Vec<&str> = KINDS
                .iter()
                .filter_map(|k| repel_core::kinds::by_kind(k))
                .map(|k| k.singular)
                .collect();
            return Err(format!(
                "unsupported kind {:?}: supported kinds: {}",
                parts[0],
                supported.join(", ")
            ));
        };
        if parts.len() == 3 && !namespaced {
            return Err(format!("invalid object {s:?}: a {kind} has no namespace"));
        }
        Ok(ObjectRef {
            kind: kind.to_string(),
            namespace: (parts.len() == 3).then(|| parts[1].to_string()),
            name: parts[parts.len() - 1].to_string(),
        })
    }
}

impl fmt::Display for ObjectRef {
    /// `Kind/namespace/name` or `Kind/name`, as events name objects.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{}/{ns}/{}", self.kind, self.name),
            None => write!(f, "{}/{}", self.kind, self.name),
        }
    }
}

/// One assertion `repel test` checks.
#[derive(Debug, Clone, PartialEq)]
pub enum Expectation {
    /// A pod's state at a time.
    Pod {
        /// Its index in the file's `expect` list.
        index: usize,
        /// When.
        at: Millis,
        /// `namespace/name` (`default/` added to a bare name).
        pod: String,
        /// Its phase, or `Gone`.
        phase: Option<ExpectedPhase>,
        /// The node it is bound to.
        node: Option<String>,
        /// The pool whose node it is bound to.
        pool: Option<String>,
        /// Whether it is being deleted (kubectl's `Terminating`: a `deletionTimestamp`, still
        /// bound while its kubelet finishes it).
        terminating: Option<bool>,
    },
    /// A node pool's state at a time.
    Pool {
        /// Its index in the file's `expect` list.
        index: usize,
        /// When.
        at: Millis,
        /// The pool's name.
        pool: String,
        /// How many Ready nodes it has.
        nodes: Option<usize>,
        /// The taints every node of it carries, exactly (condition taints aside, any order),
        /// as `key=value:Effect`.
        taints: Option<Vec<String>>,
    },
    /// An event was recorded.
    Event {
        /// Its index in the file's `expect` list.
        index: usize,
        /// The event's reason (`TaintManagerEviction`, `Scheduled`, …).
        reason: String,
        /// The object, as events name it (`Pod/ns/name`, `Node/name`).
        object: Option<String>,
        /// Exactly at this time.
        at: Option<Millis>,
        /// At or before this time.
        by: Option<Millis>,
        /// Exactly this many matching events (default: at least one).
        count: Option<usize>,
    },
    /// Whether a node can be drained at a time, as a decider judges it (`repel drain`).
    Drainable {
        /// Its index in the file's `expect` list.
        index: usize,
        /// When.
        at: Millis,
        /// The node.
        node: String,
        /// The decider.
        decider: ExpectedDecider,
        /// Drainable or not.
        value: bool,
    },
}

/// The decider of a `drainable` expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectedDecider {
    /// `kubectl drain` with no flags.
    Kubectl,
    /// cluster-autoscaler with its default flags.
    ClusterAutoscaler,
    /// Karpenter.
    Karpenter,
}

impl ExpectedDecider {
    /// As written in a scenario.
    pub fn as_str(self) -> &'static str {
        match self {
            ExpectedDecider::Kubectl => "kubectl",
            ExpectedDecider::ClusterAutoscaler => "cluster-autoscaler",
            ExpectedDecider::Karpenter => "karpenter",
        }
    }
}

/// The phase a pod expectation asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectedPhase {
    /// Pending.
    Pending,
    /// Running.
    Running,
    /// Failed.
    Failed,
    /// Succeeded.
    Succeeded,
    /// Deleted (or never created).
    Gone,
}

impl ExpectedPhase {
    /// Every phase, in the order messages list them.
    pub const ALL: [ExpectedPhase; 5] = [
        ExpectedPhase::Pending,
        ExpectedPhase::Running,
        ExpectedPhase::Failed,
        ExpectedPhase::Succeeded,
        ExpectedPhase::Gone,
    ];

    /// The spelling in scenario files.
    pub fn as_str(self) -> &'static str {
        match self {
            ExpectedPhase::Pending => "Pending",
            ExpectedPhase::Running => "Running",
            ExpectedPhase::Failed => "Failed",
            ExpectedPhase::Succeeded => "Succeeded",
            ExpectedPhase::Gone => "Gone",
        }
    }
}

/// What is wrong with one field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioErrorKind {
    /// The field is missing or empty.
    #[error("required value")]
    Required,
    /// The field is not part of the format.
    #[error("unknown field{}", .suggestion.as_ref().map(|s| format!(" (did you mean {s:?}?)")).unwrap_or_default())]
    UnknownField {
        /// A known field with a close name.
        suggestion: Option<String>,
    },
    /// The value has the wrong type.
    #[error("expected {expected}, got {got}")]
    WrongType {
        /// What the field takes.
        expected: &'static str,
        /// What it got.
        got: &'static str,
    },
    /// The value is not one of a fixed set.
    #[error("unsupported value {value:?}: supported values: {}", .supported.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", "))]
    Unsupported {
        /// The value given.
        value: String,
        /// The values allowed.
        supported: Vec<&'static str>,
    },
    /// A time that is not a Go duration.
    #[error(transparent)]
    Duration(#[from] DurationError),
    /// Anything else, explained.
    #[error("{0}")]
    Invalid(String),
}

/// One field's error: `field: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {kind}")]
pub struct ScenarioFieldError {
    /// The field's path (`steps[2].at`, `expect[0].phase`, `until`).
    pub field: String,
    /// What is wrong.
    pub kind: ScenarioErrorKind,
}

/// Every error found in a scenario, one per line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct ScenarioError {
    /// The errors, in field order.
    pub errors: Vec<ScenarioFieldError>,
}

const TOP_FIELDS: [&str; 12] = [
    "apiVersion",
    "kind",
    "metadata",
    "manifests",
    "objects",
    "steps",
    "until",
    "featureGates",
    "seed",
    "expect",
    "description",
    "instanceTypes",
];
const ACTIONS: [&str; 7] = ["kubectl", "node", "apply", "delete", "advance", "az", "aws"];

/// Reads a scenario (see the module docs), returning every field error at once.
///
/// 1. `kind` must be `Scenario`; `apiVersion`, `metadata` (its `name` is kept) and
///    `description` are free.
/// 2. Steps need exactly one action; `at` defaults to the previous step's time; `advance: D`
///    happens D after the previous step; steps are sorted stably by time and none may come
///    after `until`.
/// 3. Expectations are on a pod (`pod:` with `phase` and/or `node`, at a time — `until` when
///    `at` is omitted) or on an event (`event:` reason, optional `object`, `at` or `by`,
///    `count`).
pub fn parse_scenario(v: &Value) -> Result<Scenario, ScenarioError> {
    let mut r = Reader::default();
    let mut allowed: Vec<&str> = TOP_FIELDS.to_vec();
    allowed.extend(CONTROLLER_FLAGS);
    let mut sc = Scenario {
        name: None,
        manifests: Vec::new(),
        objects: Vec::new(),
        steps: Vec::new(),
        until: None,
        feature_gates: FeatureGates::default(),
        flags: ControllerFlags::default(),
        seed: None,
        expect: Vec::new(),
        instance_types: Default::default(),
    };
    let Some(top) = r.object(v, "", &allowed) else {
        return Err(ScenarioError { errors: r.errors });
    };
    match top.get("kind") {
        None => r.push("kind", ScenarioErrorKind::Required),
        Some(k) => {
            if let Some(k) = r.string(k, "kind")
                && k != "Scenario"
            {
                r.push(
                    "kind",
                    ScenarioErrorKind::Unsupported {
                        value: k,
                        supported: vec!["Scenario"],
                    },
                );
            }
        }
    }
    if let Some(a) = top.get("apiVersion") {
        r.string(a, "apiVersion");
    }
    if let Some(d) = top.get("description") {
        r.string(d, "description");
    }
    if let Some(m) = top.get("metadata")
        && let Some(m) = r.object(m, "metadata", &["name", "labels", "annotations"])
        && let Some(n) = m.get("name")
    {
        sc.name = r.string(n, "metadata.name");
    }
    if let Some(m) = top.get("manifests") {
        for (path, item) in r.list(m, "manifests") {
            if let Some(s) = r.string(item, &path) {
                sc.manifests.push(s);
            }
        }
    }
    if let Some(o) = top.get("objects") {
        sc.objects = read_objects(&mut r, o, "objects");
    }
    if let Some(u) = top.get("until") {
        sc.until = r.time(u, "until");
    }
    if let Some(s) = top.get("seed") {
        sc.seed = r.count(s, "seed");
    }
    if let Some(g) = top.get("featureGates") {
        sc.feature_gates = read_gates(&mut r, g);
    }
    if let Some(t) = top.get("instanceTypes") {
        sc.instance_types = read_instance_types(&mut r, t);
    }
    sc.flags = read_flags(&mut r, top);
    if let Some(s) = top.get("steps") {
        sc.steps = read_steps(&mut r, s, sc.until);
    }
    if let Some(e) = top.get("expect") {
        sc.expect = read_expect(&mut r, e, sc.until);
    }
    if r.errors.is_empty() {
        Ok(sc)
    } else {
        Err(ScenarioError { errors: r.errors })
    }
}

/// `instanceTypes: {NAME: {RESOURCE: QUANTITY, …}}`, with `cpu`, `memory` and `pods` each.
fn read_instance_types(
    r: &mut Reader,
    v: &Value,
) -> std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>> {
    let mut out = std::collections::BTreeMap::new();
    let Some(types) = v.as_object() else {
        r.push(
            "instanceTypes",
            ScenarioErrorKind::WrongType {
                expected: "a map of instance types",
                got: read::type_name(v),
            },
        );
        return out;
    };
    for (name, caps) in types {
        let path = format!("instanceTypes.{name}");
        let Some(caps) = caps.as_object() else {
            r.push(
                path,
                ScenarioErrorKind::WrongType {
                    expected: "a map of resource quantities",
                    got: read::type_name(caps),
                },
            );
            continue;
        };
        let mut cap = std::collections::BTreeMap::new();
        for (res, q) in caps {
            let q = match q {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                other => {
                    r.push(
                        format!("{path}.{res}"),
                        ScenarioErrorKind::WrongType {
                            expected: "a quantity",
                            got: read::type_name(other),
                        },
                    );
                    continue;
                }
            };
            if repel_core::quantity::milli_value(&q).is_none_or(|m| m < 0) {
                r.push(
                    format!("{path}.{res}"),
                    ScenarioErrorKind::Invalid(format!("{q:?} is not a quantity")),
                );
                continue;
            }
            cap.insert(res.clone(), q);
        }
        for need in ["cpu", "memory", "pods"] {
            if !caps.contains_key(need) {
                r.push(format!("{path}.{need}"), ScenarioErrorKind::Required);
            }
        }
        out.insert(name.clone(), cap);
    }
    out
}

/// `d` after `until`: the error for a step or expectation that would never be reached.
fn after_until(at: Millis, until: Millis) -> ScenarioErrorKind {
    ScenarioErrorKind::Invalid(format!(
        "{} is after until ({}); the run stops at until",
        human(at),
        human(until)
    ))
}

/// Checks a `kubectl:` line splits into words (the command itself is checked when it runs).
fn check_kubectl(r: &mut Reader, line: &str, field: &str) {
    if let Err(e) = tokenize(line) {
        r.push(field, ScenarioErrorKind::Invalid(format!("{e}")));
    }
}
