//! Upstream `TestEnoughRequests`, `TestNotEnoughRequests`, `TestStorageRequests`,
//! `TestRestartableInitContainers`, `TestFitScore` and `TestLeastAllocatedScoringStrategy`
//! (v1.35), ported.

use super::*;
use crate::scheduler::plugins::test_support::pod;
use repel_core::k8s_openapi::api::core::v1::{Container, Node, NodeStatus, ResourceRequirements};
use repel_core::k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use repel_core::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

type Req<'a> = &'a [(&'a str, &'a str)];
/// name, pod, requests of the pod already on the node, reasons, code.
type FilterCase = (
    &'static str,
    PodInfo,
    Vec<(&'static str, &'static str)>,
    Vec<&'static str>,
    Option<Code>,
);

fn list(pairs: Req) -> BTreeMap<String, Quantity> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
        .collect()
}

fn container(req: Req, sidecar: bool) -> Container {
    Container {
        name: "c".into(),
        restart_policy: sidecar.then(|| "Always".to_string()),
        resources: Some(ResourceRequirements {
            requests: Some(list(req)),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A pod with one container per request list (upstream `newResourcePod`), and init containers.
fn rpod(containers: &[Req], init: &[Req]) -> PodInfo {
    pod("p", |s| {
        s.containers = containers.iter().map(|r| container(r, false)).collect();
        s.init_containers =
            (!init.is_empty()).then(|| init.iter().map(|r| container(r, false)).collect());
    })
}

fn with_overhead(p: PodInfo, o: Req) -> PodInfo {
    let mut raw = p.to_pod();
    if let Some(s) = raw.spec.as_mut() {
        s.overhead = Some(list(o));
    }
    PodInfo::new(raw, 0)
}

fn with_pod_level(p: PodInfo, r: Req) -> PodInfo {
    let mut raw = p.to_pod();
    if let Some(s) = raw.spec.as_mut() {
        s.resources = Some(ResourceRequirements {
            requests: Some(list(r)),
            ..Default::default()
        });
    }
    PodInfo::new(raw, 0)
}

/// A node with `status.allocatable` and the given pods on it.
fn node_with(name: &str, alloc: Req, existing: &[PodInfo]) -> NodeInfo {
    let mut n = NodeInfo::new(Node {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        spec: None,
        status: Some(NodeStatus {
            allocatable: Some(list(alloc)),
            ..Default::default()
        }),
    });
    for (i, p) in existing.iter().enumerate() {
        n.add_pod(100 + i, p);
    }
    n
}

/// Upstream's `makeAllocatableResources(10, 20, 32, 5, 20, 5)`.
const ALLOC: Req = &[
    ("cpu", "10m"),
    ("memory", "20"),
    ("pods", "32"),
    ("example.com/aaa", "5"),
    ("ephemeral-storage", "20"),
    ("hugepages-2Mi", "5"),
];

fn run_filter(p: &PodInfo, n: &NodeInfo) -> Status {
    let pl = NodeResourcesFit::default();
    let mut state = CycleState::default();
    let (st, _) = pl.pre_filter(&mut state, p, &Cluster::new());
    assert!(st.is_success(), "PreFilter succeeds");
    pl.filter(&state, p, n, &Cluster::new())
}

const UNSCHED: Option<Code> = Some(Code::Unschedulable);
const UNRES: Option<Code> = Some(Code::UnschedulableAndUnresolvable);

/// Upstream `TestEnoughRequests`.
#[test]
fn enough_requests() {
    let cm = |cpu: &'static str, mem: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![("cpu", cpu), ("memory", mem)]
    };
    let cpu = "Insufficient cpu";
    let mem = "Insufficient memory";
    let aaa = "Insufficient example.com/aaa";
    let hp = "Insufficient hugepages-2Mi";
    #[rustfmt::skip]
    let cases: Vec<FilterCase> = vec![
        ("no resources requested always fits",
            rpod(&[], &[]), cm("10m", "20"), vec![], None),
        ("too many resources fails",
            rpod(&[&cm("1m", "1")], &[]), cm("10m", "20"), vec![cpu, mem], UNSCHED),
        ("too many resources fails due to init container cpu",
            rpod(&[&cm("1m", "1")], &[&cm("3m", "1")]), cm("8m", "19"), vec![cpu], UNSCHED),
        ("too many resources fails due to highest init container cpu",
            rpod(&[&cm("1m", "1")], &[&cm("3m", "1"), &cm("2m", "1")]), cm("8m", "19"), vec![cpu], UNSCHED),
        ("too many resources fails due to init container memory",
            rpod(&[&cm("1m", "1")], &[&cm("1m", "3")]), cm("9m", "19"), vec![mem], UNSCHED),
        ("too many resources fails due to highest init container memory",
            rpod(&[&cm("1m", "1")], &[&cm("1m", "3"), &cm("1m", "2")]), cm("9m", "19"), vec![mem], UNSCHED),
        ("init container fits because it's the max, not sum, of containers and init containers",
            rpod(&[&cm("1m", "1")], &[&cm("1m", "1")]), cm("9m", "19"), vec![], None),
        ("multiple init containers fit because it's the max, not sum, of containers and init containers",
            rpod(&[&cm("1m", "1")], &[&cm("1m", "1"), &cm("1m", "1")]), cm("9m", "19"), vec![], None),
        ("both resources fit",
            rpod(&[&cm("1m", "1")], &[]), cm("5m", "5"), vec![], None),
        ("one resource memory fits",
            rpod(&[&cm("2m", "1")], &[]), cm("9m", "5"), vec![cpu], UNSCHED),
        ("one resource cpu fits",
            rpod(&[&cm("1m", "2")], &[]), cm("5m", "19"), vec![mem], UNSCHED),
        ("equal edge case",
            rpod(&[&cm("5m", "1")], &[]), cm("5m", "19"), vec![], None),
        ("equal edge case for init container",
            rpod(&[&cm("4m", "1")], &[&cm("5m", "1")]), cm("5m", "19"), vec![], None),
        ("extended resource fits",
            rpod(&[&[("example.com/aaa", "1")]], &[]), vec![], vec![], None),
        ("extended resource fits for init container",
            rpod(&[&[]], &[&[("example.com/aaa", "1")]]), vec![], vec![], None),
        ("extended resource capacity enforced",
            rpod(&[&[("cpu", "1m"), ("memory", "1"), ("example.com/aaa", "10")]], &[]),
            vec![("example.com/aaa", "0")], vec![aaa], UNRES),
        ("extended resource capacity enforced for init container",
            rpod(&[&[]], &[&[("cpu", "1m"), ("memory", "1"), ("example.com/aaa", "10")]]),
            vec![("example.com/aaa", "0")], vec![aaa], UNRES),
        ("extended resource allocatable enforced",
            rpod(&[&[("cpu", "1m"), ("memory", "1"), ("example.com/aaa", "1")]], &[]),
            vec![("example.com/aaa", "5")], vec![aaa], UNSCHED),
        ("extended resource allocatable enforced for init container",
            rpod(&[&[]], &[&[("cpu", "1m"), ("memory", "1"), ("example.com/aaa", "1")]]),
            vec![("example.com/aaa", "5")], vec![aaa], UNSCHED),
        ("extended resource allocatable enforced for multiple containers",
            rpod(&[&[("example.com/aaa", "3")], &[("example.com/aaa", "3")]], &[]),
            vec![("example.com/aaa", "2")], vec![aaa], UNRES),
        ("extended resource allocatable admits multiple init containers",
            rpod(&[&[]], &[&[("example.com/aaa", "3")], &[("example.com/aaa", "3")]]),
            vec![("example.com/aaa", "2")], vec![], None),
        ("extended resource allocatable enforced for multiple init containers",
            rpod(&[&[]], &[&[("example.com/aaa", "6")], &[("example.com/aaa", "3")]]),
            vec![("example.com/aaa", "2")], vec![aaa], UNRES),
        ("extended resource allocatable enforced for unknown resource",
            rpod(&[&[("cpu", "1m"), ("memory", "1"), ("example.com/bbb", "1")]], &[]),
            vec![], vec!["Insufficient example.com/bbb"], UNRES),
        ("extended resource allocatable enforced for unknown resource for init container",
            rpod(&[&[]], &[&[("cpu", "1m"), ("memory", "1"), ("example.com/bbb", "1")]]),
            vec![], vec!["Insufficient example.com/bbb"], UNRES),
        ("kubernetes.io resource capacity enforced",
            rpod(&[&[("cpu", "1m"), ("memory", "1"), ("kubernetes.io/something", "10")]], &[]),
            vec![], vec!["Insufficient kubernetes.io/something"], UNRES),
        ("kubernetes.io resource capacity enforced for init container",
            rpod(&[&[]], &[&[("cpu", "1m"), ("memory", "1"), ("subdomain.kubernetes.io/something", "10")]]),
            vec![], vec!["Insufficient subdomain.kubernetes.io/something"], UNRES),
        ("hugepages resource capacity enforced",
            rpod(&[&[("cpu", "1m"), ("memory", "1"), ("hugepages-2Mi", "10")]], &[]),
            vec![("hugepages-2Mi", "0")], vec![hp], UNRES),
        ("hugepages resource capacity enforced for init container",
            rpod(&[&[]], &[&[("cpu", "1m"), ("memory", "1"), ("hugepages-2Mi", "10")]]),
            vec![("hugepages-2Mi", "0")], vec![hp], UNRES),
        ("hugepages resource allocatable enforced for multiple containers",
            rpod(&[&[("hugepages-2Mi", "3")], &[("hugepages-2Mi", "3")]], &[]),
            vec![("hugepages-2Mi", "2")], vec![hp], UNRES),
        ("resources + pod overhead fits",
            with_overhead(rpod(&[&cm("1m", "1")], &[]), &[("cpu", "3m"), ("memory", "13")]),
            cm("5m", "5"), vec![], None),
        ("requests + overhead does not fit for memory",
            with_overhead(rpod(&[&cm("1m", "1")], &[]), &[("cpu", "1m"), ("memory", "15")]),
            cm("5m", "5"), vec![mem], UNSCHED),
        ("skip checking extended resource request with quantity zero",
            rpod(&[&[("cpu", "1m"), ("memory", "1"), ("example.com/aaa", "0")]], &[]),
            vec![("example.com/aaa", "6")], vec![], None),
        ("skip checking resource request with quantity zero",
            rpod(&[&[("cpu", "0"), ("memory", "0"), ("example.com/aaa", "1")]], &[]),
            vec![("cpu", "20m"), ("memory", "30"), ("example.com/aaa", "1")], vec![], None),
        ("both pod-level and container-level resources fit",
            with_pod_level(rpod(&[&cm("1m", "1")], &[]), &[("cpu", "1m"), ("memory", "2")]),
            cm("5m", "5"), vec![], None),
        ("pod-level cpu resource not fit",
            with_pod_level(rpod(&[&cm("1m", "1")], &[]), &[("cpu", "7m"), ("memory", "2")]),
            cm("5m", "5"), vec![cpu], UNSCHED),
        ("pod-level memory resource not fit",
            with_pod_level(rpod(&[&cm("1m", "1")], &[]), &[("cpu", "3m"), ("memory", "2")]),
            cm("5m", "19"), vec![mem], UNSCHED),
        ("pod-level hugepages resource fit",
            with_pod_level(rpod(&[], &[]), &[("cpu", "3m"), ("memory", "2"), ("hugepages-2Mi", "5")]),
            vec![], vec![], None),
        ("both pod-level and container-level hugepages resource fit",
            with_pod_level(rpod(&[&[("cpu", "1m"), ("memory", "1"), ("hugepages-2Mi", "3")]], &[]),
                &[("cpu", "3m"), ("memory", "2"), ("hugepages-2Mi", "5")]),
            vec![], vec![], None),
        ("pod-level hugepages resource not fit",
            with_pod_level(rpod(&[], &[]), &[("cpu", "3m"), ("memory", "2"), ("hugepages-2Mi", "10")]),
            vec![], vec![hp], UNRES),
        ("one pod-level cpu resource fits and all init and non-init containers resources fit",
            with_pod_level(rpod(&[&cm("1m", "1")], &[&cm("1m", "1")]), &[("cpu", "3m"), ("memory", "2")]),
            cm("5m", "19"), vec![mem], UNSCHED),
        ("an extended resource backed by DRA counts as unknown while DRAExtendedResource is off",
            rpod(&[&[("cpu", "1m"), ("memory", "1"), ("extended.resource.dra.io/something", "1")]], &[]),
            vec![], vec!["Insufficient extended.resource.dra.io/something"], UNRES),
    ];
    for (name, p, existing, reasons, code) in cases {
        let existing_pods: Vec<PodInfo> = if name.starts_with("pod-level hugepages") {
            Vec::new()
        } else {
            vec![rpod(&[&existing], &[])]
        };
        let n = node_with("n", ALLOC, &existing_pods);
        let st = run_filter(&p, &n);
        let want: Vec<String> = reasons.iter().map(|r| r.to_string()).collect();
        assert_eq!(st.reasons, want, "{name}");
        match code {
            None => assert!(st.is_success(), "{name}: fits"),
            Some(c) => assert_eq!(st.code, c, "{name}: code"),
        }
    }
}

#[test]
fn insufficient_resources_carry_upstreams_numbers() {
    let p = rpod(
        &[&[("cpu", "1m"), ("memory", "1"), ("example.com/aaa", "10")]],
        &[],
    );
    let n = node_with("n", ALLOC, &[rpod(&[&[("example.com/aaa", "0")]], &[])]);
    assert_eq!(
        fits_request(&p.requests, &n),
        vec![InsufficientResource {
            resource_name: "example.com/aaa".into(),
            reason: "Insufficient example.com/aaa".into(),
            requested: 10,
            used: 0,
            capacity: 5,
            unresolvable: true,
        }]
    );
    let p = with_overhead(
        rpod(&[&[("cpu", "1m"), ("memory", "1")]], &[]),
        &[("memory", "15")],
    );
    let n = node_with(
        "n",
        ALLOC,
        &[rpod(&[&[("cpu", "5m"), ("memory", "5")]], &[])],
    );
    assert_eq!(
        fits_request(&p.requests, &n),
        vec![InsufficientResource {
            resource_name: "memory".into(),
            reason: "Insufficient memory".into(),
            requested: 16,
            used: 5,
            capacity: 20,
            unresolvable: false,
        }],
        "requests + overhead does not fit for memory"
    );
}

/// Upstream `TestNotEnoughRequests`: allocatable `pods: 1` with one pod already there.
#[test]
fn not_enough_pods() {
    let alloc: Req = &[("cpu", "10m"), ("memory", "20"), ("pods", "1")];
    #[rustfmt::skip]
    let cases = [
        ("even without specified resources, predicate fails when there's no space for additional pod",
            rpod(&[], &[]), rpod(&[&[("cpu", "10m"), ("memory", "20")]], &[])),
        ("even if both resources fit, predicate fails when there's no space for additional pod",
            rpod(&[&[("cpu", "1m"), ("memory", "1")]], &[]), rpod(&[&[("cpu", "5m"), ("memory", "5")]], &[])),
        ("even for equal edge case, predicate fails when there's no space for additional pod",
            rpod(&[&[("cpu", "5m"), ("memory", "1")]], &[]), rpod(&[&[("cpu", "5m"), ("memory", "19")]], &[])),
        ("even for equal edge case, predicate fails when there's no space for additional pod due to init container",
            rpod(&[&[("cpu", "5m"), ("memory", "1")]], &[&[("cpu", "5m"), ("memory", "1")]]),
            rpod(&[&[("cpu", "5m"), ("memory", "19")]], &[])),
    ];
    for (name, p, existing) in cases {
        let st = run_filter(&p, &node_with("n", alloc, &[existing]));
        assert_eq!(
            st.reasons,
            vec![ERR_REASON_TOO_MANY_PODS.to_string()],
            "{name}"
        );
        assert_eq!(st.code, Code::Unschedulable, "{name}: preemption may help");
    }
}

#[test]
fn one_node_gives_several_reasons_too_many_pods_first() {
    let alloc: Req = &[("cpu", "10m"), ("memory", "20"), ("pods", "1")];
    let p = rpod(
        &[&[("cpu", "11m"), ("memory", "5"), ("nvidia.com/gpu", "1")]],
        &[],
    );
    let n = node_with("n", alloc, &[rpod(&[&[("memory", "16")]], &[])]);
    let st = run_filter(&p, &n);
    assert_eq!(
        st.reasons,
        vec![
            "Too many pods".to_string(),
            "Insufficient cpu".to_string(),
            "Insufficient memory".to_string(),
            "Insufficient nvidia.com/gpu".to_string(),
        ]
    );
    assert_eq!(
        st.code,
        Code::UnschedulableAndUnresolvable,
        "cpu exceeds the whole node"
    );
}

/// Upstream `TestStorageRequests`.
#[test]
fn storage_requests() {
    #[rustfmt::skip]
    let cases = [
        ("empty storage requested, and pod fits",
            rpod(&[&[("cpu", "1m"), ("memory", "1")]], &[]), rpod(&[&[("cpu", "2m"), ("memory", "10")]], &[]), None),
        ("storage ephemeral local storage request exceeds allocatable",
            rpod(&[&[("ephemeral-storage", "25")]], &[]), rpod(&[&[("cpu", "2m"), ("memory", "2")]], &[]), UNRES),
        ("ephemeral local storage is sufficient",
            rpod(&[&[("ephemeral-storage", "5")]], &[]),
            rpod(&[&[("cpu", "2m"), ("memory", "2"), ("ephemeral-storage", "10")]], &[]), None),
        ("pod fits",
            rpod(&[&[("ephemeral-storage", "10")]], &[]), rpod(&[&[("cpu", "2m"), ("memory", "2")]], &[]), None),
    ];
    for (name, p, existing, code) in cases {
        let st = run_filter(&p, &node_with("n", ALLOC, &[existing]));
        match code {
            None => assert!(st.is_success(), "{name}"),
            Some(c) => {
                assert_eq!(st.code, c, "{name}");
                assert_eq!(
                    st.reasons,
                    vec!["Insufficient ephemeral-storage".to_string()],
                    "{name}"
                );
            }
        }
    }
}

/// Upstream `TestRestartableInitContainers` (SidecarContainers on): allocatable cpu 2m, pods 1.
#[test]
fn restartable_init_containers() {
    let alloc: Req = &[("cpu", "2m"), ("memory", "0"), ("pods", "1")];
    let sidecar_pod = |req: Req, side: Req| {
        pod("p", |s| {
            s.containers = vec![container(req, false)];
            s.init_containers = Some(vec![container(side, true)]);
        })
    };
    #[rustfmt::skip]
    let cases = [
        ("allow pod without restartable init containers", rpod(&[&[]], &[]), true),
        ("allow pod with restartable init containers", sidecar_pod(&[], &[]), true),
        ("allow pod if the total requested resources do not exceed the node's allocatable resources",
            sidecar_pod(&[("cpu", "1m")], &[("cpu", "1m")]), true),
        ("not allow pod if the total requested resources do exceed the node's allocatable resources",
            sidecar_pod(&[("cpu", "1m")], &[("cpu", "2m")]), false),
    ];
    for (name, p, fits) in cases {
        let st = run_filter(&p, &node_with("n", alloc, &[]));
        assert_eq!(st.is_success(), fits, "{name}");
        if !fits {
            assert_eq!(st.code, Code::UnschedulableAndUnresolvable, "{name}");
            assert_eq!(st.reasons, vec!["Insufficient cpu".to_string()], "{name}");
        }
    }
}

mod scoring;
