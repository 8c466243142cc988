//! Fixture builders for tests, after kube-scheduler's `pkg/scheduler/testing/wrappers.go`
//! (v1.35): `MakePod::new().name("p").toleration("k").obj()` as upstream writes
//! `st.MakePod().Name("p").Toleration("k").Obj()`. Methods keep upstream's names (snake_case)
//! and meaning where upstream has the method; `MakeTaint` and `MakeToleration` are repel's,
//! in the same style. Compiled for this crate's tests and, through the `testing` feature, for
//! the other crates' tests (a dev-dependency feature only: production code never sees it).
//!
//! Unlike upstream's `MakeNode()`, which gives every node a capacity of 32 pods, a node is
//! exactly what the test says: no status until [`MakeNode::capacity`] is called.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Affinity, Container, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement,
    NodeSelectorTerm, NodeSpec, NodeStatus, Pod, PodAffinity, PodAffinityTerm, PodAntiAffinity,
    PodSpec, PodStatus, ResourceRequirements, Taint, Toleration, TopologySpreadConstraint,
    WeightedPodAffinityTerm,
};
use k8s_openapi::api::policy::v1::{
    PodDisruptionBudget, PodDisruptionBudgetSpec, PodDisruptionBudgetStatus,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, OwnerReference, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

fn quantities(resources: &[(&str, &str)]) -> BTreeMap<String, Quantity> {
    resources
        .iter()
        .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
        .collect()
}

fn set(labels: &mut Option<BTreeMap<String, String>>, k: &str, v: &str) {
    labels
        .get_or_insert_with(BTreeMap::new)
        .insert(k.to_string(), v.to_string());
}

/// A pod wrapper (upstream `PodWrapper`): no containers, no namespace until set.
#[derive(Clone, Debug, Default)]
pub struct MakePod(Pod);

impl MakePod {
    /// An empty pod (upstream `MakePod`).
    pub fn new() -> Self {
        MakePod(Pod {
            spec: Some(PodSpec::default()),
            ..Default::default()
        })
    }

    /// The inner pod (upstream `Obj`).
    pub fn obj(self) -> Pod {
        self.0
    }

    fn spec(&mut self) -> &mut PodSpec {
        self.0.spec.get_or_insert_with(Default::default)
    }

    fn status(&mut self) -> &mut PodStatus {
        self.0.status.get_or_insert_with(Default::default)
    }

    /// Sets the name (upstream `Name`).
    pub fn name(mut self, name: &str) -> Self {
        self.0.metadata.name = Some(name.to_string());
        self
    }

    /// Sets the namespace (upstream `Namespace`).
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.0.metadata.namespace = Some(namespace.to_string());
        self
    }

    /// Sets the UID (upstream `UID`).
    pub fn uid(mut self, uid: &str) -> Self {
        self.0.metadata.uid = Some(uid.to_string());
        self
    }

    /// Adds a label (upstream `Label`).
    pub fn label(mut self, k: &str, v: &str) -> Self {
        set(&mut self.0.metadata.labels, k, v);
        self
    }

    /// Adds an annotation (upstream `Annotation`).
    pub fn annotation(mut self, k: &str, v: &str) -> Self {
        set(&mut self.0.metadata.annotations, k, v);
        self
    }

    /// Sets the owning controller (upstream `OwnerReference`, with the kind and API version
    /// spelled out, and the owner's UID).
    pub fn owner_reference(mut self, api_version: &str, kind: &str, name: &str, uid: &str) -> Self {
        self.0.metadata.owner_references = Some(vec![OwnerReference {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            name: name.to_string(),
            uid: uid.to_string(),
            controller: Some(true),
            ..Default::default()
        }]);
        self
    }

    /// Appends a container named `name` with `image` (upstream `Container`, which names it
    /// `con<N>`; repel's tests name theirs).
    pub fn container(mut self, name: &str, image: &str) -> Self {
        self.spec().containers.push(Container {
            name: name.to_string(),
            image: (!image.is_empty()).then(|| image.to_string()),
            ..Default::default()
        });
        self
    }

    /// Appends a container `con<N>` requesting `requests` (upstream `Req`; nothing when empty).
    pub fn req(mut self, requests: &[(&str, &str)]) -> Self {
        if requests.is_empty() {
            return self;
        }
        let name = format!("con{}", self.spec().containers.len());
        self.spec().containers.push(Container {
            name,
            resources: Some(ResourceRequirements {
                requests: Some(quantities(requests)),
                ..Default::default()
            }),
            ..Default::default()
        });
        self
    }

    /// Sets `spec.nodeName` (upstream `Node`).
    pub fn node(mut self, node: &str) -> Self {
        self.spec().node_name = Some(node.to_string());
        self
    }

    /// Sets `spec.priority` (upstream `Priority`).
    pub fn priority(mut self, priority: i32) -> Self {
        self.spec().priority = Some(priority);
        self
    }

    /// Appends an `Exists` toleration of `key` (upstream `Toleration`).
    pub fn toleration(self, key: &str) -> Self {
        self.add_toleration(MakeToleration::new().key(key).operator("Exists").obj())
    }

    /// Appends a toleration as given.
    pub fn add_toleration(mut self, toleration: Toleration) -> Self {
        self.spec()
            .tolerations
            .get_or_insert_with(Vec::new)
            .push(toleration);
        self
    }

    /// Sets the tolerations; an empty list leaves them unset (upstream `Tolerations`).
    pub fn tolerations(mut self, tolerations: Vec<Toleration>) -> Self {
        self.spec().tolerations = (!tolerations.is_empty()).then_some(tolerations);
        self
    }

    /// Adds a `spec.nodeSelector` entry (upstream `NodeSelector`, one pair at a time).
    pub fn node_selector(mut self, k: &str, v: &str) -> Self {
        set(&mut self.spec().node_selector, k, v);
        self
    }

    /// Sets `status.phase` (upstream `Phase`).
    pub fn phase(mut self, phase: &str) -> Self {
        self.status().phase = Some(phase.to_string());
        self
    }

    /// Adds labels (upstream `Labels`).
    pub fn labels(self, pairs: &[(&str, &str)]) -> Self {
        pairs.iter().fold(self, |p, (k, v)| p.label(k, v))
    }

    /// Sets `metadata.deletionTimestamp` (upstream `Terminating`, with a fixed time instead of
    /// the clock's).
    pub fn terminating(mut self) -> Self {
        self.0.metadata.deletion_timestamp =
            serde_json::from_value::<Time>(serde_json::json!("2025-01-01T00:00:00Z")).ok();
        self
    }

    /// Sets the required node affinity to one term `key In vals` (upstream `NodeAffinityIn`
    /// with `NodeSelectorTypeMatchExpressions`).
    pub fn node_affinity_in(self, key: &str, vals: &[&str]) -> Self {
        self.required_node_affinity(key, "In", vals)
    }

    /// Sets the required node affinity to one term `key NotIn vals` (upstream
    /// `NodeAffinityNotIn`).
    pub fn node_affinity_not_in(self, key: &str, vals: &[&str]) -> Self {
        self.required_node_affinity(key, "NotIn", vals)
    }

    fn required_node_affinity(mut self, key: &str, operator: &str, vals: &[&str]) -> Self {
        self.affinity().node_affinity = Some(NodeAffinity {
            required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Some(vec![NodeSelectorRequirement {
                        key: key.to_string(),
                        operator: operator.to_string(),
                        values: Some(vals.iter().map(|v| v.to_string()).collect()),
                    }]),
                    match_fields: None,
                }],
            }),
            ..Default::default()
        });
        self
    }

    /// Appends a topology spread constraint as given (upstream `SpreadConstraint` builds one
    /// from its eight fields; repel's tests build it apart, as [`MakePod::add_toleration`]).
    pub fn add_spread_constraint(mut self, constraint: TopologySpreadConstraint) -> Self {
        self.spec()
            .topology_spread_constraints
            .get_or_insert_with(Vec::new)
            .push(constraint);
        self
    }

    fn affinity(&mut self) -> &mut Affinity {
        self.spec().affinity.get_or_insert_with(Default::default)
    }

    fn pod_affinity(&mut self) -> &mut PodAffinity {
        self.affinity()
            .pod_affinity
            .get_or_insert_with(Default::default)
    }

    fn pod_anti_affinity(&mut self) -> &mut PodAntiAffinity {
        self.affinity()
            .pod_anti_affinity
            .get_or_insert_with(Default::default)
    }

    /// Appends a required pod affinity term (upstream `PodAffinity` with
    /// `PodAffinityWithRequiredReq`, here with the whole term given).
    pub fn required_pod_affinity(mut self, term: PodAffinityTerm) -> Self {
        self.pod_affinity()
            .required_during_scheduling_ignored_during_execution
            .get_or_insert_with(Vec::new)
            .push(term);
        self
    }

    /// Appends a required pod anti-affinity term (upstream `PodAntiAffinity` with
    /// `PodAntiAffinityWithRequiredReq`, here with the whole term given).
    pub fn required_pod_anti_affinity(mut self, term: PodAffinityTerm) -> Self {
        self.pod_anti_affinity()
            .required_during_scheduling_ignored_during_execution
            .get_or_insert_with(Vec::new)
            .push(term);
        self
    }

    /// Appends a preferred pod affinity term of `weight` (upstream `PodAffinity` with
    /// `PodAffinityWithPreferredReq`, which always weighs 1).
    pub fn preferred_pod_affinity(mut self, weight: i32, term: PodAffinityTerm) -> Self {
        self.pod_affinity()
            .preferred_during_scheduling_ignored_during_execution
            .get_or_insert_with(Vec::new)
            .push(WeightedPodAffinityTerm {
                weight,
                pod_affinity_term: term,
            });
        self
    }

    /// Appends a preferred pod anti-affinity term of `weight` (upstream `PodAntiAffinity`
    /// with `PodAntiAffinityWithPreferredReq`, which always weighs 1).
    pub fn preferred_pod_anti_affinity(mut self, weight: i32, term: PodAffinityTerm) -> Self {
        self.pod_anti_affinity()
            .preferred_during_scheduling_ignored_during_execution
            .get_or_insert_with(Vec::new)
            .push(WeightedPodAffinityTerm {
                weight,
                pod_affinity_term: term,
            });
        self
    }
}

/// A node wrapper (upstream `NodeWrapper`).
#[derive(Clone, Debug, Default)]
pub struct MakeNode(Node);

impl MakeNode {
    /// An empty node (upstream `MakeNode`, without its default capacity).
    pub fn new() -> Self {
        MakeNode::default()
    }

    /// The inner node (upstream `Obj`).
    pub fn obj(self) -> Node {
        self.0
    }

    fn spec(&mut self) -> &mut NodeSpec {
        self.0.spec.get_or_insert_with(Default::default)
    }

    /// Sets the name (upstream `Name`).
    pub fn name(mut self, name: &str) -> Self {
        self.0.metadata.name = Some(name.to_string());
        self
    }

    /// Adds a label (upstream `Label`).
    pub fn label(mut self, k: &str, v: &str) -> Self {
        set(&mut self.0.metadata.labels, k, v);
        self
    }

    /// Sets the taints; an empty list leaves them unset (upstream `Taints`).
    pub fn taints(mut self, taints: Vec<Taint>) -> Self {
        self.spec().taints = (!taints.is_empty()).then_some(taints);
        self
    }

    /// Sets `spec.unschedulable` (upstream `Unschedulable`).
    pub fn unschedulable(mut self, unschedulable: bool) -> Self {
        self.spec().unschedulable = Some(unschedulable);
        self
    }

    /// Sets capacity and allocatable to `resources` (upstream `Capacity`, which also
    /// defaults `pods` to 32; here `pods` is what the test gives).
    pub fn capacity(mut self, resources: &[(&str, &str)]) -> Self {
        let res = quantities(resources);
        let status = self.0.status.get_or_insert_with(NodeStatus::default);
        status.capacity = Some(res.clone());
        status.allocatable = Some(res);
        self
    }
}

impl MakeNode {
    /// Sets the node's conditions to one of `type_` with `status` (upstream `Condition`, without
    /// the heartbeat and transition times it reads from the clock).
    pub fn condition(mut self, type_: &str, status: &str) -> Self {
        use k8s_openapi::api::core::v1::NodeCondition;
        self.0
            .status
            .get_or_insert_with(NodeStatus::default)
            .conditions = Some(vec![NodeCondition {
            type_: type_.to_string(),
            status: status.to_string(),
            ..Default::default()
        }]);
        self
    }

    /// Sets only `status.allocatable` to `resources` (a node whose capacity is not written,
    /// as a hand-written manifest often has it).
    pub fn allocatable(mut self, resources: &[(&str, &str)]) -> Self {
        self.0
            .status
            .get_or_insert_with(NodeStatus::default)
            .allocatable = Some(quantities(resources));
        self
    }
}

/// A PodDisruptionBudget wrapper (upstream `PodDisruptionBudgetWrapper`).
#[derive(Clone, Debug, Default)]
pub struct MakePdb(PodDisruptionBudget);

impl MakePdb {
    /// An empty budget (upstream `MakePDB`).
    pub fn new() -> Self {
        MakePdb(PodDisruptionBudget {
            spec: Some(PodDisruptionBudgetSpec::default()),
            ..Default::default()
        })
    }

    /// The inner budget (upstream `Obj`).
    pub fn obj(self) -> PodDisruptionBudget {
        self.0
    }

    fn spec(&mut self) -> &mut PodDisruptionBudgetSpec {
        self.0.spec.get_or_insert_with(Default::default)
    }

    /// Sets the name (upstream `Name`).
    pub fn name(mut self, name: &str) -> Self {
        self.0.metadata.name = Some(name.to_string());
        self
    }

    /// Sets the namespace (upstream `Namespace`).
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.0.metadata.namespace = Some(namespace.to_string());
        self
    }

    /// Sets `spec.minAvailable` as a string (upstream `MinAvailable`: `"50%"`, `"2"`).
    pub fn min_available(mut self, min_available: &str) -> Self {
        self.spec().min_available = Some(IntOrString::String(min_available.to_string()));
        self
    }

    /// Adds a `matchLabels` pair to the selector (upstream `MatchLabel`).
    pub fn match_label(mut self, k: &str, v: &str) -> Self {
        let selector = self
            .spec()
            .selector
            .get_or_insert_with(LabelSelector::default);
        set(&mut selector.match_labels, k, v);
        self
    }

    /// Sets `status.disruptionsAllowed` (upstream `DisruptionsAllowed`).
    pub fn disruptions_allowed(mut self, allowed: i32) -> Self {
        self.0
            .status
            .get_or_insert_with(PodDisruptionBudgetStatus::default)
            .disruptions_allowed = Some(allowed);
        self
    }

    /// Adds a pod to `status.disruptedPods` (evicted, not yet gone), at the epoch.
    pub fn disrupted_pod(mut self, pod: &str) -> Self {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
        self.0
            .status
            .get_or_insert_with(PodDisruptionBudgetStatus::default)
            .disrupted_pods
            .get_or_insert_with(BTreeMap::new)
            .insert(pod.to_string(), Time(Default::default()));
        self
    }
}

/// A taint builder: `MakeTaint::new("k", "NoSchedule").value("v").obj()`.
#[derive(Clone, Debug)]
pub struct MakeTaint(Taint);

impl MakeTaint {
    /// A taint of `key` and `effect`, without a value.
    pub fn new(key: &str, effect: &str) -> Self {
        MakeTaint(crate::taint::new_taint(key, "", effect))
    }

    /// The taint.
    pub fn obj(self) -> Taint {
        self.0
    }

    /// Sets the value; an empty one leaves it unset.
    pub fn value(mut self, value: &str) -> Self {
        self.0.value = (!value.is_empty()).then(|| value.to_string());
        self
    }
}

/// A toleration builder: `MakeToleration::new().key("k").operator("Exists").obj()`; every
/// field is unset until given, as in a manifest that omits it.
#[derive(Clone, Debug, Default)]
pub struct MakeToleration(Toleration);

impl MakeToleration {
    /// A toleration with no field set (it tolerates everything, as upstream reads it).
    pub fn new() -> Self {
        MakeToleration::default()
    }

    /// The toleration.
    pub fn obj(self) -> Toleration {
        self.0
    }

    /// Sets the key; an empty one leaves it unset.
    pub fn key(mut self, key: &str) -> Self {
        self.0.key = (!key.is_empty()).then(|| key.to_string());
        self
    }

    /// Sets the operator; an empty one leaves it unset.
    pub fn operator(mut self, operator: &str) -> Self {
        self.0.operator = (!operator.is_empty()).then(|| operator.to_string());
        self
    }

    /// Sets the value; an empty one leaves it unset.
    pub fn value(mut self, value: &str) -> Self {
        self.0.value = (!value.is_empty()).then(|| value.to_string());
        self
    }

    /// Sets the effect; an empty one leaves it unset.
    pub fn effect(mut self, effect: &str) -> Self {
        self.0.effect = (!effect.is_empty()).then(|| effect.to_string());
        self
    }

    /// Sets `tolerationSeconds`.
    pub fn seconds(mut self, seconds: i64) -> Self {
        self.0.toleration_seconds = Some(seconds);
        self
    }
}

/// A taint in one call; an empty value is left unset.
pub fn taint(key: &str, value: &str, effect: &str) -> Taint {
    MakeTaint::new(key, effect).value(value).obj()
}

/// A toleration in one call; empty strings are left unset, as a manifest that omits the field.
pub fn tol(key: &str, operator: &str, value: &str, effect: &str) -> Toleration {
    MakeToleration::new()
        .key(key)
        .operator(operator)
        .value(value)
        .effect(effect)
        .obj()
}

/// A toleration with `tolerationSeconds`.
pub fn tol_secs(key: &str, operator: &str, value: &str, effect: &str, secs: i64) -> Toleration {
    Toleration {
        toleration_seconds: Some(secs),
        ..tol(key, operator, value, effect)
    }
}

/// A pod in namespace `default` with one container `app` (image `nginx`) and the given
/// tolerations.
pub fn pod_with_tolerations(name: &str, tolerations: Vec<Toleration>) -> Pod {
    MakePod::new()
        .name(name)
        .namespace("default")
        .container("app", "nginx")
        .tolerations(tolerations)
        .obj()
}

/// A node with the given taints.
pub fn node_with_taints(name: &str, taints: Vec<Taint>) -> Node {
    MakeNode::new().name(name).taints(taints).obj()
}
