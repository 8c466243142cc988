//! Upstream's `image_locality_test.go` (v1.35), case by case, and the index the scores read.

use k8s_openapi::api::core::v1::{Container, ContainerImage, Node, NodeStatus, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::*;
use crate::scheduler::{Scheduler, default_weight};
use repel_core::FeatureGates;

/// A container of `image`.
fn container(image: &str) -> Container {
    Container {
        name: image.replace(['/', '.', ':'], "-"),
        image: Some(image.to_string()),
        ..Default::default()
    }
}

/// A spec with these containers and init containers.
fn spec(containers: &[&str], init: &[&str]) -> PodSpec {
    PodSpec {
        containers: containers.iter().map(|i| container(i)).collect(),
        init_containers: (!init.is_empty()).then(|| init.iter().map(|i| container(i)).collect()),
        ..Default::default()
    }
}

fn pod_of(spec: PodSpec) -> PodInfo {
    PodInfo::new(
        Pod {
            metadata: ObjectMeta {
                name: Some("p".into()),
                namespace: Some("default".into()),
                ..Default::default()
            },
            spec: Some(spec),
            status: None,
        },
        0,
    )
}

/// Upstream's `NodeStatus{Images: ...}`: each image's names and size in MB.
fn images(list: &[(&[&str], i64)]) -> Vec<ContainerImage> {
    list.iter()
        .map(|(names, mb)| ContainerImage {
            names: Some(names.iter().map(|n| n.to_string()).collect()),
            size_bytes: Some(mb * MB),
        })
        .collect()
}

/// Upstream `makeImageNode`.
fn make_image_node(name: &str, images: Vec<ContainerImage>) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        spec: None,
        status: Some(NodeStatus {
            images: (!images.is_empty()).then_some(images),
            ..Default::default()
        }),
    }
}

/// A case: its name, the pod's spec, the nodes (name, images), the expected scores.
type Case<'a> = (
    &'a str,
    &'a PodSpec,
    Vec<(&'a str, &'a Vec<ContainerImage>)>,
    Vec<i64>,
);

/// Upstream `getImageFakeDigest("root")`: `sha256:` and the hex SHA-256 of `root`.
const ROOT_DIGEST: &str = "sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2";

#[test]
fn test_image_locality_priority() {
    let test40250 = spec(&["gcr.io/40", "gcr.io/250"], &[]);
    let test40300 = spec(&["gcr.io/40", "gcr.io/300"], &[]);
    let test_min_max = spec(&["gcr.io/10", "gcr.io/4000"], &[]);
    let test300600900 = spec(&["gcr.io/300", "gcr.io/600", "gcr.io/900"], &[]);
    let test3040 = spec(&["gcr.io/30", "gcr.io/40"], &[]);
    let test30_init300 = spec(&["gcr.io/30"], &["gcr.io/300"]);

    let node403002000 = images(&[
        (&["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40),
        (&["gcr.io/300:latest", "gcr.io/300:v1"], 300),
        (&["gcr.io/2000:latest"], 2000),
    ]);
    let node25010 = images(&[
        (&["gcr.io/250:latest"], 250),
        (&["gcr.io/10:latest", "gcr.io/10:v1"], 10),
    ]);
    let node60040900 = images(&[
        (&["gcr.io/600:latest"], 600),
        (&["gcr.io/40:latest"], 40),
        (&["gcr.io/900:latest"], 900),
    ]);
    let node300600900 = images(&[
        (&["gcr.io/300:latest"], 300),
        (&["gcr.io/600:latest"], 600),
        (&["gcr.io/900:latest"], 900),
    ]);
    let node400030 = images(&[(&["gcr.io/4000:latest"], 4000), (&["gcr.io/30:latest"], 30)]);
    let node203040 = images(&[
        (&["gcr.io/20:latest"], 20),
        (&["gcr.io/30:latest"], 30),
        (&["gcr.io/40:latest"], 40),
    ]);
    let node_with_no_images: Vec<ContainerImage> = Vec::new();

    #[rustfmt::skip]
    let cases: Vec<Case> = vec![
        // Node1: gcr.io/40:latest 40MB; 0 (40M/2 < 23M, min-threshold).
        // Node2: gcr.io/250:latest 250MB; 100 * (250M/2 - 23M)/(1000M * 2 - 23M) = 5.
        ("two images spread on two nodes, prefer the larger image one", &test40250,
            vec![("node1", &node403002000), ("node2", &node25010)], vec![0, 5]),
        // Node1: 100 * ((40M + 300M)/2 - 23M)/(1000M * 2 - 23M) = 7. Node2: not present.
        ("two images on one node, prefer this node", &test40300,
            vec![("node1", &node403002000), ("node2", &node25010)], vec![7, 0]),
        // Node1: 100 (4000 * 1/2 >= 1000M * 2, max-threshold). Node2: 0 (10M/2 < 23M).
        ("if exceed limit, use limit", &test_min_max,
            vec![("node1", &node400030), ("node2", &node25010)], vec![MAX_NODE_SCORE, 0]),
        // Node1: 100 * (4000M/3 - 23M)/(1000M * 2 - 23M) = 66. Node2: 0. Node3: no images.
        ("if exceed limit, use limit (with node which has no images present)", &test_min_max,
            vec![("node1", &node400030), ("node2", &node25010), ("node3", &node_with_no_images)],
            vec![66, 0, 0]),
        // Node1: 100 * (600M * 2/3 + 900M * 2/3 - 23M) / (1000M * 3 - 23M) = 32.
        // Node2: 100 * (300M * 1/3 + 600M * 2/3 + 900M * 2/3 - 23M) / (1000M * 3 - 23M) = 36.
        ("pod with multiple large images, node2 is preferred", &test300600900,
            vec![("node1", &node60040900), ("node2", &node300600900), ("node3", &node_with_no_images)],
            vec![32, 36, 0]),
        // Node1: 100 * (30M + 40M * 1/2 - 23M) / (1000M * 2 - 23M) = 1.
        // Node2: 100 * (30M - 23M) / (1000M * 2 - 23M) = 0.
        ("pod with multiple small images", &test3040,
            vec![("node1", &node203040), ("node2", &node400030)], vec![1, 0]),
        // Node1: 100 * (300M * 1/2 - 23M) / (1000M * 2 - 23M) = 6.
        // Node2: 100 * (30M * 1/2 - 23M) / (1000M * 2 - 23M) = 0.
        ("include InitContainers: two images spread on two nodes, prefer the larger image one",
            &test30_init300, vec![("node1", &node403002000), ("node2", &node203040)], vec![6, 0]),
    ];
    for (name, spec, nodes, want) in cases {
        let mut cluster = Cluster::new();
        for (n, imgs) in &nodes {
            cluster.add_node(make_image_node(n, (*imgs).clone()));
        }
        let pod = pod_of(spec.clone());
        let pl = ImageLocality;
        let refs: Vec<&NodeInfo> = cluster.nodes.iter().collect();
        let mut state = CycleState::default();
        assert!(
            pl.pre_score(&mut state, &pod, &refs, &cluster).is_success(),
            "{name}"
        );
        let got: Vec<i64> = cluster
            .nodes
            .iter()
            .map(|n| pl.score(&state, &pod, n, &cluster).unwrap_or(-1))
            .collect();
        assert_eq!(got, want, "{name}");
        // Without PreScore state, Score reads the index itself.
        let direct: Vec<i64> = cluster
            .nodes
            .iter()
            .map(|n| {
                pl.score(&CycleState::default(), &pod, n, &cluster)
                    .unwrap_or(-1)
            })
            .collect();
        assert_eq!(direct, want, "{name}: without PreScore");
    }
}

#[test]
fn test_normalized_image_name() {
    let digest = format!("root@{ROOT_DIGEST}");
    #[rustfmt::skip]
    let cases = [
        ("add :latest postfix 1", "root", "root:latest"),
        ("add :latest postfix 2", "gcr.io:5000/root", "gcr.io:5000/root:latest"),
        ("keep it as is 1", "root:tag", "root:tag"),
        ("keep it as is 2", digest.as_str(), digest.as_str()),
    ];
    for (name, input, output) in cases {
        assert_eq!(normalized_image_name(input), output, "{name}");
    }
}

#[test]
fn a_name_counts_each_node_once_and_every_node_of_the_cluster() {
    // node1 lists gcr.io/40:v1 twice in one image: one node holding it, as upstream's set.
    let mut cluster = Cluster::new();
    cluster.add_node(make_image_node(
        "node1",
        images(&[(&["gcr.io/40:v1", "gcr.io/40:v1"], 400)]),
    ));
    cluster.add_node(make_image_node("node2", Vec::new()));
    let pod = pod_of(spec(&["gcr.io/40:v1"], &[]));
    // 400M * 1/2 = 200M: 100 * (200M - 23M) / (1000M - 23M) = 18.
    assert_eq!(cluster.image_index().sums(pod.spec()), [(0, 200 * MB)]);
    assert_eq!(cluster.image_index().scores(pod.spec()), [(0, 18)]);
    // A third node with the image: 400M * 2/3 on each of the two.
    cluster.add_node(make_image_node(
        "node3",
        images(&[(&["gcr.io/40:v1"], 400)]),
    ));
    let each = scaled_image_score(400 * MB, 2, 3);
    assert_eq!(
        cluster.image_index().sums(pod.spec()),
        [(0, each), (2, each)],
        "the index follows a node added"
    );
    cluster.delete_node(0);
    assert_eq!(
        cluster.image_index().sums(pod.spec()),
        [(1, 200 * MB)],
        "and a node deleted"
    );
}

#[test]
fn a_cluster_without_images_scores_every_node_zero() {
    let mut cluster = Cluster::new();
    cluster.add_node(make_image_node("a", Vec::new()));
    let pod = pod_of(spec(&["gcr.io/40"], &[]));
    assert!(cluster.image_index().is_empty());
    assert!(cluster.image_index().sums(pod.spec()).is_empty());
}

#[test]
fn the_default_profile_scores_image_locality_last_with_weight_1() {
    assert_eq!(default_weight(NAME), Some(1));
    let s = Scheduler::new(FeatureGates::default(), None, 0);
    let scorers: Vec<&str> = s
        .profile
        .entries
        .iter()
        .filter(|e| e.weight.is_some())
        .map(|e| e.plugin.name())
        .collect();
    assert_eq!(
        scorers,
        [
            "TaintToleration",
            "NodeAffinity",
            "NodeResourcesFit",
            "PodTopologySpread",
            "InterPodAffinity",
            "NodeResourcesBalancedAllocation",
            "ImageLocality",
        ]
    );
}
