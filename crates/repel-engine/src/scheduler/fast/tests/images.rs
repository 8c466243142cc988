//! ImageLocality: placements and what-ifs with node images, as the reference scores them.

use super::*;

/// `input`'s nodes report images: each of the images its workloads' pods use on about one node
/// in `every`, some under a second name (a digest), sizes from 10 MB to 1.5 GB; a few
/// workloads' containers name their image without the tag and the nodes list it as `:latest`
/// (upstream's `normalizedImageName`), one with an init container of another workload's image.
fn with_node_images(input: &mut crate::load::ClusterInput, every: usize) -> usize {
    use k8s_openapi::api::core::v1::{ContainerImage, NodeStatus};
    use repel_core::workload::Workload;
    let mut images: Vec<String> = Vec::new();
    for (i, w) in input.workloads.iter_mut().enumerate() {
        let spec = match w {
            Workload::Deployment(d) => d.spec.template.spec.as_mut(),
            Workload::StatefulSet(s) => s.spec.template.spec.as_mut(),
            Workload::DaemonSet(d) => d.spec.template.spec.as_mut(),
            _ => None,
        };
        let Some(spec) = spec else { continue };
        for c in &mut spec.containers {
            let Some(image) = c.image.as_mut() else {
                continue;
            };
            if i % 7 == 3
                && let Some(bare) = image.strip_suffix(":1.0")
            {
                *image = bare.to_string();
            }
            images.push(image.clone());
        }
        if i % 11 == 5
            && let Some(other) = images.first().cloned()
        {
            let mut init = spec.containers[0].clone();
            init.name = "init".into();
            init.image = Some(other);
            spec.init_containers = Some(vec![init]);
        }
    }
    images.sort();
    images.dedup();
    let mb = 1024 * 1024;
    for (n, node) in input.nodes.iter_mut().enumerate() {
        let list: Vec<ContainerImage> = images
            .iter()
            .enumerate()
            .filter(|(j, _)| (n * 7 + j * 13) % every == 0)
            .map(|(j, name)| {
                let listed = if name.contains(':') {
                    name.clone()
                } else {
                    format!("{name}:latest")
                };
                let mut names = vec![listed];
                if j % 2 == 0 {
                    names.push(format!("{name}@sha256:{j:064x}"));
                }
                ContainerImage {
                    names: Some(names),
                    size_bytes: Some((10 + (j as i64 * 97) % 1490) * mb),
                }
            })
            .collect();
        let status = node.status.get_or_insert_with(NodeStatus::default);
        status.images = Some(list);
    }
    images.len()
}

#[test]
fn same_placements_with_node_images() {
    // ImageLocality scores the nodes holding a pod's images: such classes are scored node by
    // node (not by node class, not by the repeat path), every other class as before.
    for (seed, shape, nodes, pods, pct) in [
        (1, ClusterShape::Default, 120, 2_500, Some(100)),
        (2, ClusterShape::Default, 150, 3_000, None),
        (5, ClusterShape::LargeWorkloads, 150, 6_000, Some(100)),
    ] {
        let g = shape.generate(&GenerateOptions {
            nodes,
            pods,
            seed,
            taints_per_node: 0,
        });
        let mut input = g.input();
        let images = with_node_images(&mut input, 3);
        let c = build_cluster(
            input,
            &FeatureGates::default(),
            &AdmissionConfig::default(),
            seed,
        )
        .cluster;
        assert!(!c.image_index().is_empty());
        // The images do score: some pending pod scores above 0 on some node.
        let scored = c
            .pending()
            .iter()
            .filter(|p| !c.image_index().scores(c.pods[**p].spec()).is_empty())
            .count();
        assert!(
            scored > pods / 10,
            "seed {seed}: {scored} pods of {images} images"
        );
        let stats = compare(&c, pct, seed);
        eprintln!("seed {seed}: {stats:?}");
        assert!(
            stats.compiled > stats.reference * 5,
            "seed {seed}: {stats:?}"
        );
    }
}

#[test]
fn what_if_placements_with_node_images_match_the_reference() {
    // A drain what-if's placements (`FirstFit::place`, node 0 cordoned, every node scored
    // from the first) on a cluster whose nodes hold the pods' images, against the reference's
    // evaluation of the same cluster with node 0 cordoned, pod by pod.
    let g = ClusterShape::Default.generate(&GenerateOptions {
        nodes: 60,
        pods: 1_200,
        seed: 4,
        taints_per_node: 0,
    });
    let mut input = g.input();
    with_node_images(&mut input, 2);
    let gates = FeatureGates::default();
    let mut c = build_cluster(input, &gates, &AdmissionConfig::default(), 4).cluster;
    let mut queue = c.pending();
    Scheduler::queue_order(&c, &mut queue);
    let mut r = c.clone();
    r.set_unschedulable(0, true);
    let mut ff = first_fit::FirstFit::new(gates, &c);
    let mut reference = Scheduler::new(gates, Some(100), 0);
    let (mut placed, mut scored, mut uncovered) = (0, 0, 0);
    for &pod in queue.iter().take(400) {
        let got = ff.place(&mut c, pod, 0);
        let info = r.pods[pod].clone();
        let eval = reference.evaluate(&r, &info);
        let want = match eval.feasible.as_slice() {
            [one] => Some(*one),
            _ if eval.scores.is_empty() => None,
            _ => reference.select_host(&eval.scores),
        };
        if eval.scores.iter().any(|s| {
            s.plugins
                .iter()
                .any(|p| p.plugin == image_locality::NAME && p.score > 0)
        }) {
            scored += 1;
        }
        match got {
            Some(got) => assert_eq!(got, want, "pod {}", info.key()),
            // A pod the compiled path does not cover (a DaemonSet's, pinned to its node): the
            // caller asks the reference.
            None => uncovered += 1,
        }
        if let Some(n) = want {
            c.bind(pod, n);
            ff.moved(&c, pod, n, 1);
            r.bind(pod, n);
            placed += 1;
        }
    }
    assert!(
        placed > 300 && scored > 100 && uncovered < placed / 2,
        "{placed} placed, {scored} scored by images, {uncovered} not covered"
    );
}
