//! Unit tests of `crate::cluster`.
#![allow(clippy::unwrap_used)]
use super::*;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

fn meta(name: &str, owner: Option<(&str, &str)>) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: Some("default".into()),
        owner_references: owner.map(|(kind, name)| {
            vec![OwnerReference {
                kind: kind.into(),
                name: name.into(),
                controller: Some(true),
                ..Default::default()
            }]
        }),
        ..Default::default()
    }
}

fn pod(name: &str, owner: Option<(&str, &str)>) -> Pod {
    Pod {
        metadata: meta(name, owner),
        spec: Some(PodSpec::default()),
        status: None,
    }
}

/// What a scan of every pod finds: the owner index must agree with it.
fn scanned(c: &Cluster, kind: &str, name: &str) -> Vec<PodId> {
    (0..c.pods.len())
        .filter(|i| {
            owner_key(&c.pods[*i]) == Some(("default".into(), kind.to_string(), name.to_string()))
        })
        .collect()
}

#[test]
fn the_owner_index_follows_added_pods_and_changed_controllers() {
    let mut c = Cluster::new();
    let a = c.add_pod(pod("a", Some(("ReplicaSet", "web-1"))));
    c.add_pod(pod("b", None));
    // Built now; pods added later join it.
    assert_eq!(c.pods_owned_by("default", "ReplicaSet", "web-1"), &[a]);
    let like = c
        .add_pod_like(a, meta("c", Some(("ReplicaSet", "web-1"))))
        .unwrap();
    let d = c.add_pod(pod("d", Some(("ReplicaSet", "web-2"))));
    assert_eq!(
        c.pods_owned_by("default", "ReplicaSet", "web-1"),
        &[a, like]
    );
    // Adopted (b), orphaned (d), moved (a): the index moves them, in id order.
    c.set_pod_meta(1, meta("b", Some(("ReplicaSet", "web-2"))));
    c.set_pod_meta(d, meta("d", None));
    c.set_pod_meta(a, meta("a", Some(("ReplicaSet", "web-2"))));
    for (kind, name) in [("ReplicaSet", "web-1"), ("ReplicaSet", "web-2")] {
        assert_eq!(
            c.pods_owned_by("default", kind, name),
            scanned(&c, kind, name).as_slice(),
            "{name}"
        );
    }
    assert_eq!(c.pods_owned_by("default", "ReplicaSet", "web-2"), &[a, 1]);
    assert!(c.pods_owned_by("other", "ReplicaSet", "web-2").is_empty());
    // Deleted pods stay listed (callers filter them).
    c.delete_pod(like);
    assert_eq!(c.pods_owned_by("default", "ReplicaSet", "web-1"), &[like]);
}

/// Upstream `DefaultSelector` takes a ReplicationController's selector map as a set
/// selector: the RC's pods are spread by it, as a ReplicaSet's by its `matchLabels`.
#[test]
fn a_replication_controllers_selector_is_its_pods_default_spread_selector() {
    let rc: k8s_openapi::api::core::v1::ReplicationController =
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"app": "web"},
                     "template": {"metadata": {"labels": {"app": "web"}}}}}))
        .unwrap_or_default();
    let w = repel_core::workload::Workload::from(rc);
    let (key, sel) = Cluster::owner_selector(&w, "web").unwrap_or_else(|| {
        (
            Default::default(),
            repel_core::labels::LabelSelector::nothing(),
        )
    });
    assert_eq!(
        key,
        (
            "ReplicationController".to_string(),
            "default".to_string(),
            "web".to_string()
        )
    );
    let labels = |v: &str| [("app".to_string(), v.to_string())].into();
    assert!(sel.matches(&labels("web")));
    assert!(!sel.matches(&labels("db")));
}

/// What of a cluster node ids show in: each pod's node and nomination, the nodes in order
/// with their pods, the name and label indexes.
fn node_view(c: &Cluster) -> String {
    let mut out = String::new();
    for (id, p) in c.pods.iter().enumerate() {
        out += &format!("pod {id} {:?} {:?} {}\n", p.node, p.nominated, p.deleted);
    }
    for (i, n) in c.nodes.iter().enumerate() {
        out += &format!(
            "node {i} {} {:?} {:?}\n",
            n.name,
            n.pods,
            c.node_id(&n.name)
        );
        for (k, v) in &n.labels {
            out += &format!("  {k}={v} {:?}\n", c.nodes_with_label(k, v));
        }
    }
    out
}

/// Nodes deleted together leave the cluster as deleting them one by one does (pods bound to
/// them unbound, the others' node and nomination ids moved down, the name and label indexes
/// following), and the nodes gone are found by neither index.
#[test]
fn nodes_deleted_together_leave_what_one_by_one_leaves() {
    use crate::generate::{GenerateOptions, generate};
    let gates = repel_core::FeatureGates::default();
    let g = generate(&GenerateOptions {
        nodes: 30,
        pods: 400,
        seed: 7,
        taints_per_node: 0,
    });
    let mut c = crate::load::build_cluster(
        g.input(),
        &gates,
        &repel_core::admission::AdmissionConfig::default(),
        7,
    )
    .cluster;
    let mut queue = c.pending();
    crate::scheduler::Scheduler::queue_order(&c, &mut queue);
    crate::scheduler::fast::FastScheduler::new(gates, Some(100), 7).schedule_pods(&mut c, &queue);
    // Nominations on nodes gone, kept and after; one of them deleted since.
    let unbound: Vec<PodId> = c.nodes[3].pods.iter().copied().take(4).collect();
    for (i, &p) in unbound.iter().enumerate() {
        c.unbind(p);
        c.set_nominated(p, Some([2, 7, 20, 25][i]));
    }
    c.force_delete_pod(unbound[3]);
    let gone = [20, 2, 29, 21, 0, 5];
    let mut one_by_one = c.clone();
    let mut orphans = Vec::new();
    for (i, &g) in gone.iter().enumerate() {
        let now = g - gone[..i].iter().filter(|e| **e < g).count();
        orphans.extend(one_by_one.delete_node(now));
    }
    orphans.sort_unstable();
    let names: Vec<String> = gone.iter().map(|g| c.nodes[*g].name.clone()).collect();
    let mut together = c.clone();
    let got = together.delete_nodes(&gone);
    assert!(!got.is_empty());
    assert_eq!(got, orphans);
    assert_eq!(node_view(&together), node_view(&one_by_one));
    assert_eq!(together.nodes.len(), 24);
    for name in &names {
        assert_eq!(together.node_id(name), None, "{name}");
    }
    assert_eq!(together.pods[unbound[1]].nominated, Some(4));
    assert_eq!(together.pods[unbound[0]].nominated, None);
}
