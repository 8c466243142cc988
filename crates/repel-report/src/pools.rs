//! Which pool each node belongs to.
//!
//! Decided here (a presentation choice, not a control-plane rule), in this order:
//! 1. a pool object of the input (Karpenter NodePool, AKS agent pool, EKS or eksctl node group)
//!    takes the nodes carrying its provider's label ([`Pool::node_label`]); a pool object
//!    without nodes is still a column, judged by its template;
//! 2. a node left over that carries one of [`POOL_LABELS`] joins the group of that label's
//!    value (the first label of the list it carries);
//! 3. the others are grouped by their identical taint sets (named by the taints, `untainted`
//!    for none).

use std::collections::BTreeMap;

use repel_core::pools::Pool;
use repel_core::taint::taint_to_string;
use repel_engine::cluster::Cluster;

/// The labels that name a node's pool, in the order they are tried.
pub const POOL_LABELS: [&str; 7] = [
    repel_core::pools::NODEPOOL_LABEL,
    repel_core::pools::EKS_NODEGROUP_LABEL,
    repel_core::pools::EKSCTL_NODEGROUP_LABEL,
    repel_core::pools::AKS_AGENTPOOL_LABEL,
    "cloud.google.com/gke-nodepool",
    "agentpool",
    "node.kubernetes.io/pool",
];

/// The name of the group of nodes without taints.
pub const UNTAINTED: &str = "untainted";

/// A pool found: its name, how it was found, and its nodes (cluster node ids).
#[derive(Debug, Clone)]
pub struct Group {
    /// Its name.
    pub name: String,
    /// `karpenter`, `eks`, `eksctl`, `aks`, `label` or `taints`.
    pub kind: String,
    /// The grouping label, when one groups it.
    pub label: Option<String>,
    /// The pool object, when there is one.
    pub pool: Option<Pool>,
    /// Its nodes.
    pub nodes: Vec<usize>,
}

/// The node's taints as `key=value:Effect`, joined by `,` (or [`UNTAINTED`]).
fn taint_key(cluster: &Cluster, id: usize) -> String {
    let mut t: Vec<String> = cluster.nodes[id]
        .taints
        .iter()
        .map(taint_to_string)
        .collect();
    t.sort();
    if t.is_empty() {
        UNTAINTED.to_string()
    } else {
        t.join(",")
    }
}

/// Groups the cluster's (live) nodes into pools: see the module docs.
pub fn group(cluster: &Cluster, pools: &[Pool], deleted: &dyn Fn(usize) -> bool) -> Vec<Group> {
    let mut groups: Vec<Group> = pools
        .iter()
        .map(|p| Group {
            name: p.name.clone(),
            kind: p.provider.to_string(),
            label: Some(p.node_label.0.to_string()),
            pool: Some(p.clone()),
            nodes: Vec::new(),
        })
        .collect();
    let mut by_label: BTreeMap<(usize, String), Vec<usize>> = BTreeMap::new();
    let mut by_taints: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (id, n) in cluster.nodes.iter().enumerate() {
        if deleted(id) {
            continue;
        }
        if let Some(g) = groups.iter_mut().find(|g| {
            g.pool
                .as_ref()
                .is_some_and(|p| n.labels.get(p.node_label.0) == Some(&p.node_label.1))
        }) {
            g.nodes.push(id);
            continue;
        }
        if let Some((i, v)) = POOL_LABELS
            .iter()
            .enumerate()
            .find_map(|(i, l)| n.labels.get(*l).map(|v| (i, v.clone())))
        {
            by_label.entry((i, v)).or_default().push(id);
            continue;
        }
        by_taints
            .entry(taint_key(cluster, id))
            .or_default()
            .push(id);
    }
    // A label group whose value names a pool object already listed gets a distinct name.
    let mut label_groups: Vec<Group> = by_label
        .into_iter()
        .map(|((i, v), nodes)| Group {
            name: v,
            kind: "label".to_string(),
            label: Some(POOL_LABELS[i].to_string()),
            pool: None,
            nodes,
        })
        .collect();
    label_groups.sort_by_key(|g| g.nodes.first().copied());
    for g in label_groups {
        let name = if groups.iter().any(|o| o.name == g.name) {
            format!("{} ({})", g.name, g.label.as_deref().unwrap_or_default())
        } else {
            g.name.clone()
        };
        groups.push(Group { name, ..g });
    }
    let mut taint_groups: Vec<(String, Vec<usize>)> = by_taints.into_iter().collect();
    taint_groups.sort_by_key(|(_, nodes)| nodes.first().copied());
    for (key, nodes) in taint_groups {
        let name = if groups.iter().any(|o| o.name == key) {
            format!("{key} (taints)")
        } else {
            key
        };
        groups.push(Group {
            name,
            kind: "taints".to_string(),
            label: None,
            pool: None,
            nodes,
        });
    }
    groups
}

#[cfg(test)]
mod tests {
    use repel_core::testing::{node_with_taints, taint};

    use super::*;

    fn labelled(
        name: &str,
        label: (&str, &str),
        taints: Vec<k8s_openapi::api::core::v1::Taint>,
    ) -> k8s_openapi::api::core::v1::Node {
        let mut n = node_with_taints(name, taints);
        n.metadata
            .labels
            .get_or_insert_with(Default::default)
            .insert(label.0.to_string(), label.1.to_string());
        n
    }

    #[test]
    fn nodes_go_to_pool_objects_then_pool_labels_then_identical_taints() {
        let gpu = taint("sku", "gpu", "NoSchedule");
        let mut cluster = Cluster::new();
        for n in [
            labelled("k1", (repel_core::pools::NODEPOOL_LABEL, "general"), vec![]),
            labelled(
                "a1",
                (repel_core::pools::AKS_AGENTPOOL_LABEL, "gpupool"),
                vec![gpu.clone()],
            ),
            labelled(
                "a2",
                (repel_core::pools::AKS_AGENTPOOL_LABEL, "gpupool"),
                vec![],
            ),
            node_with_taints("t1", vec![gpu.clone()]),
            node_with_taints("t2", vec![]),
            node_with_taints("t3", vec![gpu.clone()]),
        ] {
            cluster.add_node(n);
        }
        let pool = Pool {
            name: "general".to_string(),
            provider: "karpenter",
            node_label: (repel_core::pools::NODEPOOL_LABEL, "general".to_string()),
            ..Default::default()
        };
        let empty = Pool {
            name: "spare".to_string(),
            provider: "karpenter",
            node_label: (repel_core::pools::NODEPOOL_LABEL, "spare".to_string()),
            ..Default::default()
        };
        let groups = group(&cluster, &[pool, empty], &|_| false);
        let got: Vec<(&str, &str, Vec<usize>)> = groups
            .iter()
            .map(|g| (g.name.as_str(), g.kind.as_str(), g.nodes.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("general", "karpenter", vec![0]),
                ("spare", "karpenter", vec![]),
                ("gpupool", "label", vec![1, 2]),
                ("sku=gpu:NoSchedule", "taints", vec![3, 5]),
                (UNTAINTED, "taints", vec![4]),
            ]
        );
    }
}
