//! Builders for the plugin's tests, after upstream's `st.MakePod()` / `st.MakeNode()`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Affinity, Container, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement,
    NodeSelectorTerm, NodeSpec, Pod, PodSpec, Taint, Toleration,
    TopologySpreadConstraint as ApiConstraint,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    LabelSelector, LabelSelectorRequirement, ObjectMeta, Time,
};

use crate::cluster::{Cluster, NodeInfo, PodInfo};

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

/// A node with labels and taints.
pub fn mk_node(name: &str, labels: &[(&str, &str)], taints: Vec<Taint>) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(to_map(labels)),
            ..Default::default()
        },
        spec: Some(NodeSpec {
            taints: (!taints.is_empty()).then_some(taints),
            ..Default::default()
        }),
        status: None,
    }
}

/// A pod builder after `st.MakePod()`.
pub struct P(pub Pod);

impl P {
    /// A pod in `default` with one container.
    pub fn new(name: &str) -> Self {
        P(Pod {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                ..Default::default()
            },
            spec: Some(PodSpec {
                containers: vec![Container {
                    name: "c".into(),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            status: None,
        })
    }

    fn spec(&mut self) -> &mut PodSpec {
        self.0.spec.get_or_insert_with(PodSpec::default)
    }

    /// A label.
    pub fn label(mut self, k: &str, v: &str) -> Self {
        self.0
            .metadata
            .labels
            .get_or_insert_with(BTreeMap::new)
            .insert(k.into(), v.into());
        self
    }

    /// The namespace.
    pub fn ns(mut self, ns: &str) -> Self {
        self.0.metadata.namespace = Some(ns.into());
        self
    }

    /// Bound to `node` (`spec.nodeName`).
    pub fn on(mut self, node: &str) -> Self {
        self.spec().node_name = Some(node.into());
        self
    }

    /// Terminating (`deletionTimestamp` set).
    pub fn terminating(mut self) -> Self {
        self.0.metadata.deletion_timestamp =
            serde_json::from_value::<Time>(serde_json::json!("2025-01-01T00:00:00Z")).ok();
        self
    }

    /// A spread constraint.
    pub fn spread(mut self, c: ApiConstraint) -> Self {
        self.spec()
            .topology_spread_constraints
            .get_or_insert_with(Vec::new)
            .push(c);
        self
    }

    /// `nodeSelector` entry.
    pub fn node_selector(mut self, k: &str, v: &str) -> Self {
        self.spec()
            .node_selector
            .get_or_insert_with(BTreeMap::new)
            .insert(k.into(), v.into());
        self
    }

    /// Required node affinity with one expression (`In`, `NotIn`, ...).
    pub fn node_affinity(mut self, key: &str, op: &str, values: &[&str]) -> Self {
        self.spec().affinity = Some(Affinity {
            node_affinity: Some(NodeAffinity {
                required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                    node_selector_terms: vec![NodeSelectorTerm {
                        match_expressions: Some(vec![NodeSelectorRequirement {
                            key: key.into(),
                            operator: op.into(),
                            values: Some(values.iter().map(|v| v.to_string()).collect()),
                        }]),
                        match_fields: None,
                    }],
                }),
                ..Default::default()
            }),
            ..Default::default()
        });
        self
    }

    /// `st.Toleration(key)`: `key` Exists, NoSchedule.
    pub fn toleration(mut self, key: &str) -> Self {
        self.spec()
            .tolerations
            .get_or_insert_with(Vec::new)
            .push(Toleration {
                key: Some(key.into()),
                operator: Some("Exists".into()),
                effect: Some("NoSchedule".into()),
                ..Default::default()
            });
        self
    }

    /// The pod.
    pub fn obj(self) -> Pod {
        self.0
    }

    /// The scheduler's view of the pod.
    pub fn info(self) -> PodInfo {
        PodInfo::new(self.0, 0)
    }
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
                .fold(P::new(&format!("{prefix}{i}")).on(node), |p, (k, v)| {
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
