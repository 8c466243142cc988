//! Stripping, object ids, snapshot files and their order.

use serde_json::{Value, json};

use super::strip::LAST_APPLIED;
use super::*;
use crate::tree::Tree;

#[test]
fn strip_drops_server_noise_and_keeps_what_repel_reads() {
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "a", "uid": "u1", "resourceVersion": "7",
            "generation": 2, "managedFields": [{"manager": "kubectl"}],
            "annotations": {LAST_APPLIED: "{}"},
            "ownerReferences": [{"kind": "ReplicaSet", "name": "r", "uid": "u0", "controller": true, "apiVersion": "apps/v1"}]},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Pending", "podIP": "10.0.0.1", "containerStatuses": [],
            "conditions": [{"type": "PodScheduled", "status": "False", "message": "0/1 nodes are available"}]}
    });
    let strip = |kind: &str, v: &mut Value| {
        let mut t = Tree::from_value(v);
        strip(kind, &mut t);
        *v = t.into_value();
    };
    strip("Pod", &mut pod);
    assert_eq!(
        pod,
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "a", "uid": "u1",
                "ownerReferences": [{"kind": "ReplicaSet", "name": "r", "uid": "u0", "controller": true, "apiVersion": "apps/v1"}]},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
            "status": {"phase": "Pending",
                "conditions": [{"type": "PodScheduled", "status": "False", "message": "0/1 nodes are available"}]}
        })
    );
    let mut node = json!({"kind": "Node", "metadata": {"name": "n", "annotations": {"a": "b"}},
            "status": {"images": [{"names": ["x"], "sizeBytes": 5}], "allocatable": {"cpu": "4"},
                "nodeInfo": {}, "volumesInUse": ["v"]}});
    strip("Node", &mut node);
    assert_eq!(
        node,
        json!({"kind": "Node", "metadata": {"name": "n", "annotations": {"a": "b"}},
                "status": {"images": [{"names": ["x"], "sizeBytes": 5}], "allocatable": {"cpu": "4"}}}),
        "a node's images are kept: ImageLocality reads them"
    );
}

#[test]
fn object_ids_name_kind_namespace_and_name() {
    assert_eq!(
        object_id(&json!({"kind": "Pod", "metadata": {"name": "p"}})),
        "Pod default/p"
    );
    assert_eq!(
        object_id(&json!({"kind": "Deployment", "metadata": {"name": "d", "namespace": "x"}})),
        "Deployment x/d"
    );
    assert_eq!(
        object_id(&json!({"kind": "Node", "metadata": {"name": "n", "namespace": "x"}})),
        "Node n"
    );
}

#[test]
fn a_large_kind_is_written_in_parts_and_stale_files_go() {
    let dir = tempfile::tempdir().unwrap();
    for stale in [
        "12-pods.yaml",
        "12-pods-0009.yaml",
        "03-nodes.yaml",
        "11-pods.yaml",
        "12-pods-0002.yaml",
        "13-nodeclaims.yaml",
    ] {
        std::fs::write(dir.path().join(stale), "---\n").unwrap();
    }
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let pods: Vec<Value> = (0..OBJECTS_PER_FILE * 2 + 1)
        .map(|i| json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": format!("p{i}")}}))
        .collect();
    let trees: Vec<Tree> = pods.iter().map(Tree::from_value).collect();
    let mut kinds: Vec<Vec<YamlPage>> = KINDS.iter().map(|_| Vec::new()).collect();
    let pods_at = KINDS.iter().position(|k| k.kind() == "Pod").unwrap();
    // Pages of 7 objects: files are cut inside pages.
    kinds[pods_at] = trees.chunks(7).map(YamlPage::of).collect();
    let nodes_at = KINDS.iter().position(|k| k.kind() == "Node").unwrap();
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}});
    kinds[nodes_at] = vec![YamlPage::of(&[Tree::from_value(&node)])];
    let snapshot = Listing {
        kinds,
        ..Listing::default()
    };
    let written = write_snapshot(&snapshot, dir.path()).unwrap();
    let names: Vec<(String, usize)> = written
        .iter()
        .map(|(p, n)| (p.file_name().unwrap().to_string_lossy().to_string(), *n))
        .collect();
    assert_eq!(
        names,
        [
            ("03-nodes.yaml".to_string(), 1),
            ("12-pods-0001.yaml".to_string(), OBJECTS_PER_FILE),
            ("12-pods-0002.yaml".to_string(), OBJECTS_PER_FILE),
            ("12-pods-0003.yaml".to_string(), 1)
        ]
    );
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "03-nodes.yaml",
            "12-pods-0001.yaml",
            "12-pods-0002.yaml",
            "12-pods-0003.yaml",
            "notes.txt"
        ]
    );
    // Every pod once, in order, across the parts.
    let mut names = Vec::new();
    for part in 1..=3 {
        let text =
            std::fs::read_to_string(dir.path().join(format!("12-pods-{part:04}.yaml"))).unwrap();
        names.extend(
            text.lines()
                .filter_map(|l| l.strip_prefix("  name: "))
                .map(str::to_string),
        );
    }
    let want: Vec<String> = (0..OBJECTS_PER_FILE * 2 + 1)
        .map(|i| format!("p{i}"))
        .collect();
    assert_eq!(names, want);
    let last = std::fs::read_to_string(dir.path().join("12-pods-0003.yaml")).unwrap();
    assert_eq!(
        last,
        format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{}\n",
            OBJECTS_PER_FILE * 2
        )
    );
}

#[test]
fn kinds_are_read_in_the_order_of_their_files() {
    let files: Vec<&str> = KINDS.iter().map(|k| k.file).collect();
    let mut sorted = files.clone();
    sorted.sort_unstable();
    assert_eq!(files, sorted);
}

#[test]
fn kinds_name_their_resources_paths_and_api_versions_as_before() {
    let want: &[(&str, &str, &str, &str)] = &[
        ("Namespace", "namespaces", "/api/v1/namespaces", "v1"),
        (
            "PriorityClass",
            "priorityclasses.scheduling.k8s.io",
            "/apis/scheduling.k8s.io/v1/priorityclasses",
            "scheduling.k8s.io/v1",
        ),
        ("Node", "nodes", "/api/v1/nodes", "v1"),
        (
            "PodDisruptionBudget",
            "poddisruptionbudgets.policy",
            "/apis/policy/v1/poddisruptionbudgets",
            "policy/v1",
        ),
        (
            "Deployment",
            "deployments.apps",
            "/apis/apps/v1/deployments",
            "apps/v1",
        ),
        (
            "ReplicaSet",
            "replicasets.apps",
            "/apis/apps/v1/replicasets",
            "apps/v1",
        ),
        (
            "StatefulSet",
            "statefulsets.apps",
            "/apis/apps/v1/statefulsets",
            "apps/v1",
        ),
        (
            "DaemonSet",
            "daemonsets.apps",
            "/apis/apps/v1/daemonsets",
            "apps/v1",
        ),
        ("Job", "jobs.batch", "/apis/batch/v1/jobs", "batch/v1"),
        (
            "CronJob",
            "cronjobs.batch",
            "/apis/batch/v1/cronjobs",
            "batch/v1",
        ),
        (
            "ReplicationController",
            "replicationcontrollers",
            "/api/v1/replicationcontrollers",
            "v1",
        ),
        ("Pod", "pods", "/api/v1/pods", "v1"),
        (
            "NodePool",
            "nodepools.karpenter.sh",
            "/apis/karpenter.sh/v1/nodepools",
            "karpenter.sh/v1",
        ),
        (
            "NodeClaim",
            "nodeclaims.karpenter.sh",
            "/apis/karpenter.sh/v1/nodeclaims",
            "karpenter.sh/v1",
        ),
    ];
    let got: Vec<(&str, String, String, &str)> = KINDS
        .iter()
        .map(|k| (k.kind(), k.resource(), k.path(), k.api_version()))
        .collect();
    assert_eq!(got.len(), want.len());
    for ((kind, resource, path, api), (wk, wr, wp, wa)) in got.iter().zip(want) {
        assert_eq!(
            (*kind, resource.as_str(), path.as_str(), *api),
            (*wk, *wr, *wp, *wa)
        );
    }
}
