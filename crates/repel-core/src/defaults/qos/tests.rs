#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)] // tests may unwrap (CONVENTIONS)

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec, PodStatus, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::*;

#[test]
fn quantity_is_positive_table() {
    let cases = [
        ("zero is not positive", "0", false),
        ("zero milli is not positive", "0m", false),
        ("zero with an exponent is not positive", "0e3", false),
        ("a negative quantity is not positive", "-1", false),
        ("negative zero is not positive", "-0", false),
        ("an empty string is not a quantity", "", false),
        ("an unknown suffix is not a quantity", "1K", false),
        ("garbage is not a quantity", "abc", false),
        ("an exponent without digits is not a quantity", "1e", false),
        ("a trailing sign is not a quantity", "1e+", false),
        ("a hundred milli is positive", "100m", true),
        ("one gibibyte is positive", "1Gi", true),
        ("a half is positive", "0.5", true),
        ("an exponent form is positive", "1e3", true),
        ("a negative exponent is still positive", "1e-3", true),
        ("one nano is positive", "1n", true),
        ("below one nano rounds up to one nano", "0.0000000001", true),
        ("an explicit plus sign is allowed", "+2", true),
        ("a bare decimal point fraction is allowed", ".5", true),
        ("exa is a decimal suffix", "1E", true),
        ("a capital exponent is allowed", "2E2", true),
    ];
    for (name, q, want) in cases {
        assert_eq!(quantity_is_positive(q), want, "{name}: {q:?}");
    }
}

#[test]
fn quantity_values_table() {
    let cases = [
        ("one core is a billion nanos", "1", Some(1_000_000_000)),
        ("a thousand milli equal one", "1000m", Some(1_000_000_000)),
        ("Ki is 1024", "1Ki", Some(1024 * 1_000_000_000)),
        (
            "a fractional Gi is exact",
            "1.5Gi",
            Some(1_610_612_736 * 1_000_000_000),
        ),
        ("1e3 is a thousand", "1e3", Some(1000 * 1_000_000_000)),
        (
            "1E3 is an exponent, not exa",
            "1E3",
            Some(1000 * 1_000_000_000),
        ),
        (
            "sub-nano values round up, away from zero",
            "-0.0000000001",
            Some(-1),
        ),
        (
            "the slow path caps at MaxInt64",
            "10Ei",
            Some(i128::from(i64::MAX) * 1_000_000_000),
        ),
        (
            "the fast path does not cap",
            "10E",
            Some(10_i128.pow(19) * 1_000_000_000),
        ),
    ];
    for (name, q, want) in cases {
        assert_eq!(parse_quantity_nanos(q), want, "{name}: {q:?}");
    }
}

fn rl(pairs: &[(&str, &str)]) -> Option<BTreeMap<String, Quantity>> {
    (!pairs.is_empty()).then(|| {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
            .collect()
    })
}

fn res(requests: &[(&str, &str)], limits: &[(&str, &str)]) -> Option<ResourceRequirements> {
    Some(ResourceRequirements {
        requests: rl(requests),
        limits: rl(limits),
        ..Default::default()
    })
}

fn container(resources: Option<ResourceRequirements>) -> Container {
    Container {
        name: "c".into(),
        resources,
        ..Default::default()
    }
}

fn spec_of(
    containers: Vec<Option<ResourceRequirements>>,
    init: Vec<Option<ResourceRequirements>>,
) -> PodSpec {
    PodSpec {
        containers: containers.into_iter().map(container).collect(),
        init_containers: (!init.is_empty()).then(|| init.into_iter().map(container).collect()),
        ..Default::default()
    }
}

#[test]
fn pod_qos_table() {
    use QosClass::*;
    let cpu_mem = [("cpu", "100m"), ("memory", "1Gi")];
    // Ported from upstream qos_test.go TestComputePodQOS (container-level cases) and extended.
    let cases: Vec<(&str, PodSpec, QosClass)> = vec![
        (
            "a pod without resources is BestEffort",
            spec_of(vec![None], vec![]),
            BestEffort,
        ),
        (
            "two containers without resources are BestEffort",
            spec_of(vec![None, None], vec![]),
            BestEffort,
        ),
        (
            "zero requests and limits are BestEffort",
            spec_of(
                vec![res(&[("cpu", "0"), ("memory", "0")], &[("cpu", "0m")])],
                vec![],
            ),
            BestEffort,
        ),
        (
            "only extended resources are BestEffort",
            spec_of(
                vec![res(&[("nvidia.com/gpu", "1")], &[("nvidia.com/gpu", "1")])],
                vec![],
            ),
            BestEffort,
        ),
        (
            "equal cpu and memory requests and limits are Guaranteed",
            spec_of(vec![res(&cpu_mem, &cpu_mem)], vec![]),
            Guaranteed,
        ),
        (
            "1 and 1000m are the same quantity",
            spec_of(
                vec![res(
                    &[("cpu", "1"), ("memory", "1Gi")],
                    &[("cpu", "1000m"), ("memory", "1073741824")],
                )],
                vec![],
            ),
            Guaranteed,
        ),
        (
            "two guaranteed containers are Guaranteed",
            spec_of(
                vec![res(&cpu_mem, &cpu_mem), res(&cpu_mem, &cpu_mem)],
                vec![],
            ),
            Guaranteed,
        ),
        (
            "a guaranteed and a best-effort container are Burstable",
            spec_of(vec![res(&cpu_mem, &cpu_mem), None], vec![]),
            Burstable,
        ),
        (
            "only a cpu limit is Burstable",
            spec_of(vec![res(&[("cpu", "1")], &[("cpu", "1")])], vec![]),
            Burstable,
        ),
        (
            "a request below its limit is Burstable",
            spec_of(
                vec![res(
                    &[("cpu", "500m"), ("memory", "1Gi")],
                    &[("cpu", "1"), ("memory", "1Gi")],
                )],
                vec![],
            ),
            Burstable,
        ),
        (
            "limits only, not defaulted, are Burstable",
            spec_of(vec![res(&[], &cpu_mem)], vec![]),
            Burstable,
        ),
        (
            "a request only is Burstable",
            spec_of(vec![res(&[("memory", "1Gi")], &[])], vec![]),
            Burstable,
        ),
        (
            "a negative request does not count",
            spec_of(vec![res(&[("cpu", "-1")], &[])], vec![]),
            BestEffort,
        ),
        (
            "an init container's request counts",
            spec_of(vec![None], vec![res(&[("cpu", "1")], &[])]),
            Burstable,
        ),
        (
            "a guaranteed init container with a best-effort app container is Burstable",
            spec_of(vec![None], vec![res(&cpu_mem, &cpu_mem)]),
            Burstable,
        ),
        (
            "guaranteed app and init containers are Guaranteed",
            spec_of(vec![res(&cpu_mem, &cpu_mem)], vec![res(&cpu_mem, &cpu_mem)]),
            Guaranteed,
        ),
        (
            "sums are compared, not each container (upstream quirk)",
            spec_of(
                vec![
                    res(
                        &[("cpu", "1"), ("memory", "1Gi")],
                        &[("cpu", "2"), ("memory", "1Gi")],
                    ),
                    res(
                        &[("cpu", "2"), ("memory", "1Gi")],
                        &[("cpu", "1"), ("memory", "1Gi")],
                    ),
                ],
                vec![],
            ),
            Guaranteed,
        ),
    ];
    for (name, spec, want) in cases {
        assert_eq!(pod_qos(&spec), want, "{name}");
    }
}

#[test]
fn pod_level_resources_table() {
    use QosClass::*;
    let cpu_mem = [("cpu", "1"), ("memory", "1Gi")];
    let with_pod_level =
        |r: Option<ResourceRequirements>, containers: Vec<Option<ResourceRequirements>>| PodSpec {
            resources: r,
            ..spec_of(containers, vec![])
        };
    let cases: Vec<(&str, PodSpec, QosClass)> = vec![
        (
            "pod-level equal cpu and memory are Guaranteed whatever the containers",
            with_pod_level(res(&cpu_mem, &cpu_mem), vec![None]),
            Guaranteed,
        ),
        (
            "pod-level requests only are Burstable",
            with_pod_level(res(&cpu_mem, &[]), vec![res(&cpu_mem, &cpu_mem)]),
            Burstable,
        ),
        (
            "empty pod-level resources are BestEffort even with guaranteed containers",
            with_pod_level(res(&[], &[]), vec![res(&cpu_mem, &cpu_mem)]),
            BestEffort,
        ),
        (
            "a pod-level cpu limit alone is Burstable",
            with_pod_level(res(&[("cpu", "1")], &[("cpu", "1")]), vec![None]),
            Burstable,
        ),
    ];
    for (name, spec, want) in cases {
        assert_eq!(pod_qos(&spec), want, "{name}");
    }
}

#[test]
fn get_pod_qos_prefers_status() {
    let guaranteed = spec_of(
        vec![res(
            &[("cpu", "1"), ("memory", "1")],
            &[("cpu", "1"), ("memory", "1")],
        )],
        vec![],
    );
    let cases: Vec<(&str, Option<&str>, &str)> = vec![
        ("without status the class is computed", None, "Guaranteed"),
        ("an empty status class is computed", Some(""), "Guaranteed"),
        (
            "a recorded status class wins",
            Some("BestEffort"),
            "BestEffort",
        ),
    ];
    for (name, status, want) in cases {
        let pod = Pod {
            spec: Some(guaranteed.clone()),
            status: status.map(|q| PodStatus {
                qos_class: Some(q.to_string()),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(get_pod_qos(&pod), want, "{name}");
    }
}

#[test]
fn qos_class_prints_upstream_spelling() {
    assert_eq!(QosClass::Guaranteed.to_string(), "Guaranteed", "Guaranteed");
    assert_eq!(QosClass::Burstable.to_string(), "Burstable", "Burstable");
    assert_eq!(QosClass::BestEffort.to_string(), "BestEffort", "BestEffort");
}
