//! The plugin's fixtures: spread constraints, selectors and upstream's node and pod sets, on
//! repel-core's `MakePod`/`MakeNode` builders (upstream `pkg/scheduler/testing/wrappers.go`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Pod, Taint, TopologySpreadConstraint as ApiConstraint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

use crate::cluster::{Cluster, NodeInfo};
pub use crate::scheduler::plugins::test_support::Info;
use repel_core::testing::MakeNode;
pub use repel_core::testing::MakePod;

/// `st.MakeLabelSelector().Exists(key)`.
pub fn exists(key: &str) -> Option<LabelSelector> {
    Some(LabelSelector {
        match_expressions: Some(vec![LabelSelectorRequirement {
            key: key.into(),
            operator: "Exists".into(),
            values: None,
        }]),
        match_labels: None,
    })
}

/// `st.MakeLabelSelector().Label(k, v)...`; no pairs is the empty selector `{}`.
pub fn labels_sel(pairs: &[(&str, &str)]) -> Option<LabelSelector> {
    Some(LabelSelector {
        match_labels: (!pairs.is_empty()).then(|| to_map(pairs)),
        match_expressions: None,
    })
}

fn to_map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A spread constraint (upstream `SpreadConstraint(maxSkew, key, mode, selector, nil, nil, nil,
/// nil)`); the optional fields through [`Tsc`].
pub fn sc(max_skew: i32, key: &str, when: &str, sel: Option<LabelSelector>) -> ApiConstraint {
    ApiConstraint {
        max_skew,
        topology_key: key.into(),
        when_unsatisfiable: when.into(),
        label_selector: sel,
        ..Default::default()
    }
}

/// The optional fields of a spread constraint.
pub trait Tsc {
    /// `minDomains`.
    fn min_domains(self, n: i32) -> Self;
    /// `nodeAffinityPolicy`.
    fn affinity_policy(self, p: &str) -> Self;
    /// `nodeTaintsPolicy`.
    fn taints_policy(self, p: &str) -> Self;
    /// `matchLabelKeys`.
    fn match_label_keys(self, keys: &[&str]) -> Self;
}

impl Tsc for ApiConstraint {
    fn min_domains(mut self, n: i32) -> Self {
        self.min_domains = Some(n);
        self
    }
    fn affinity_policy(mut self, p: &str) -> Self {
        self.node_affinity_policy = Some(p.into());
        self
    }
    fn taints_policy(mut self, p: &str) -> Self {
        self.node_taints_policy = Some(p.into());
        self
    }
    fn match_label_keys(mut self, keys: &[&str]) -> Self {
        self.match_label_keys = Some(keys.iter().map(|k| k.to_string()).collect());
        self
    }
}

/// Upstream's `taints` fixture: `node.kubernetes.io/unschedulable:NoSchedule`.
pub fn unschedulable_taint() -> Vec<Taint> {
    vec![repel_core::taint::new_taint(
        "node.kubernetes.io/unschedulable",
        "",
        "NoSchedule",
    )]
}

/// A node with labels and taints (upstream `st.MakeNode().Name(name).Label(...).Taints(...)`).
pub fn mk_node(name: &str, labels: &[(&str, &str)], taints: Vec<Taint>) -> Node {
    labels
        .iter()
        .fold(MakeNode::new().name(name), |n, (k, v)| n.label(k, v))
        .taints(taints)
        .obj()
}

/// A pod in `default` with one container (upstream `st.MakePod().Name(name)`, namespaced as
/// the tables' pods are).
pub fn mk_pod(name: &str) -> MakePod {
    MakePod::new()
        .name(name)
        .namespace("default")
        .container("c", "")
}

/// A cluster of `nodes` with `pods` bound to the nodes they name.
pub fn cluster(nodes: Vec<Node>, pods: Vec<Pod>) -> Cluster {
    let mut c = Cluster::new();
    for n in nodes {
        c.add_node(n);
    }
    for p in pods {
        c.add_pod(p);
    }
    c
}

/// The node called `name`.
pub fn node_of<'a>(c: &'a Cluster, name: &str) -> &'a NodeInfo {
    let id = c.node_id(name).unwrap_or_else(|| panic!("no node {name}"));
    &c.nodes[id]
}

/// Upstream's four-node fixture: node-a, node-b in zone1, node-x, node-y in zone2, labelled
/// `zone` and `node`.
pub fn four_nodes() -> Vec<Node> {
    ["node-a", "node-b", "node-x", "node-y"]
        .iter()
        .map(|n| {
            let zone = if *n < "node-x" { "zone1" } else { "zone2" };
            mk_node(n, &[("zone", zone), ("node", n)], vec![])
        })
        .collect()
}

/// `n` pods named `<prefix>1..` on `node` with label `key=""`.
pub fn on(node: &str, prefix: &str, labels: &[(&str, &str)], n: usize) -> Vec<Pod> {
    (1..=n)
        .map(|i| {
            labels
                .iter()
                .fold(mk_pod(&format!("{prefix}{i}")).node(node), |p, (k, v)| {
                    p.label(k, v)
                })
                .obj()
        })
        .collect()
}

/// Pods with label `foo=""`: for each `(node, prefix, n)`, `n` pods named `<prefix>1..`.
pub fn foo_pods(spec: &[(&str, &str, usize)]) -> Vec<Pod> {
    spec.iter()
        .flat_map(|(node, prefix, n)| on(node, prefix, &[("foo", "")], *n))
        .collect()
}
