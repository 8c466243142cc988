//! Filter order and the class keys that let pods share a compiled answer.

use super::*;

#[test]
fn the_static_filters_come_first_in_the_profile() {
    // The compiled FitError gives a statically rejected node its static status: that is what
    // `run_filters` returns only if no other filter runs before them.
    let profile = crate::scheduler::Profile::default_profile(FeatureGates::default());
    let first: Vec<&str> = profile
        .filters()
        .map(|pl| pl.name())
        .take(STATIC_FILTERS.len())
        .collect();
    assert_eq!(first, STATIC_FILTERS);
}

#[test]
fn class_keys_found_together_are_each_pods_own() {
    // `class_keys` reuses the keys of the pod before when a pod is alike, and a spec's
    // requests by their key: every pod must still get the keys computed for it alone.
    for (c, what) in [
        (cluster(60, 1_500, 4, 1), "generated"),
        (
            build_cluster(
                ClusterShape::LargeWorkloads
                    .generate(&GenerateOptions {
                        nodes: 60,
                        pods: 2_000,
                        seed: 4,
                        taints_per_node: 0,
                    })
                    .input(),
                &FeatureGates::default(),
                &AdmissionConfig::default(),
                4,
            )
            .cluster,
            "large workloads",
        ),
    ] {
        let mut queue = c.pending();
        Scheduler::queue_order(&c, &mut queue);
        let found = class_keys(&c, &queue, true);
        assert_eq!(found.keys.len(), queue.len());
        let mut alone = SpecKeys::default();
        let mut distinct = BTreeSet::new();
        for (&pod, &(key, label)) in queue.iter().zip(&found.keys) {
            let p = &c.pods[pod];
            assert_eq!(label, label_key(p), "{what}: label key of {}", p.key());
            assert_eq!(
                key,
                class_key(p, &mut SpecKeys::default()),
                "{what}: class key of {}",
                p.key()
            );
            assert_eq!(key, class_key(p, &mut alone), "{what}: {}", p.key());
            distinct.insert(key);
        }
        // Pods of different workloads (labels, owners) are different classes.
        assert!(distinct.len() > 10, "{what}: {} classes", distinct.len());
    }
}

#[test]
fn keys_tell_apart_what_they_read() {
    use k8s_openapi::api::core::v1::{Container, ResourceRequirements, Toleration};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    let with_cpu = |cpu: &str| PodSpec {
        containers: vec![Container {
            name: "c".into(),
            resources: Some(ResourceRequirements {
                requests: Some([("cpu".to_string(), Quantity(cpu.into()))].into()),
                ..Default::default()
            }),
            ..Default::default()
        }],
        ..Default::default()
    };
    let (a, b) = (with_cpu("100m"), with_cpu("1000m"));
    assert_ne!(requests_key_of(&a), requests_key_of(&b));
    assert_eq!(requests_key_of(&a), requests_key_of(&with_cpu("100m")));
    let s = static_key_of(&a);
    assert_ne!(
        spec_key(s, requests_key_of(&a), &a, false),
        spec_key(s, requests_key_of(&b), &b, false)
    );
    // A field present or absent, and the same text under another field, are told apart.
    let tol = |key: Option<&str>, value: Option<&str>| {
        let mut spec = a.clone();
        spec.tolerations = Some(vec![Toleration {
            key: key.map(str::to_string),
            value: value.map(str::to_string),
            ..Default::default()
        }]);
        static_key_of(&spec)
    };
    let keys = [
        static_key_of(&a),
        tol(None, None),
        tol(Some("x"), None),
        tol(None, Some("x")),
        tol(Some("x"), Some("x")),
        tol(Some(""), None),
    ];
    let distinct: BTreeSet<u128> = keys.iter().copied().collect();
    assert_eq!(distinct.len(), keys.len(), "{keys:?}");
    // A key longer than the buffer (fed to the streaming hasher) is the one-shot key of the
    // same bytes.
    let long = "x".repeat(KEY_BUF * 3 + 7);
    let mut h = KeyHasher::new();
    h.feed(b"ab");
    h.feed(long.as_bytes());
    h.feed(b"c");
    let mut whole = b"ab".to_vec();
    whole.extend_from_slice(long.as_bytes());
    whole.push(b'c');
    assert_eq!(h.finish(), xxhash_rust::xxh3::xxh3_128(&whole));
    let mut pieces = KeyHasher::new();
    for b in &whole {
        pieces.feed(std::slice::from_ref(b));
    }
    assert_eq!(pieces.finish(), h.finish());
}
