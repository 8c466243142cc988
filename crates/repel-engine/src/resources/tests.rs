//! Upstream `TestPodRequestsAndLimits`, `TestPodResourceRequests` (component-helpers) and the
//! request cases of NodeResourcesFit's tests, ported.

use super::*;
use k8s_openapi::api::core::v1::ResourceRequirements;

fn list(pairs: &[(&str, &str)]) -> BTreeMap<String, Quantity> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
        .collect()
}

fn c(req: &[(&str, &str)]) -> Container {
    Container {
        name: "c".into(),
        resources: (!req.is_empty()).then(|| ResourceRequirements {
            requests: Some(list(req)),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn sidecar(req: &[(&str, &str)]) -> Container {
    Container {
        restart_policy: Some("Always".into()),
        ..c(req)
    }
}

fn spec(containers: Vec<Container>, init: Vec<Container>) -> PodSpec {
    PodSpec {
        containers,
        init_containers: (!init.is_empty()).then_some(init),
        ..Default::default()
    }
}

fn with_overhead(mut s: PodSpec, o: &[(&str, &str)]) -> PodSpec {
    s.overhead = Some(list(o));
    s
}

fn with_pod_level(mut s: PodSpec, r: &[(&str, &str)]) -> PodSpec {
    s.resources = Some(ResourceRequirements {
        requests: Some(list(r)),
        ..Default::default()
    });
    s
}

fn res(milli_cpu: i64, memory: i64) -> Resources {
    Resources {
        milli_cpu,
        memory,
        ..Default::default()
    }
}

#[test]
fn pod_requests_follow_upstream() {
    #[rustfmt::skip]
    let cases: Vec<(&str, PodSpec, Resources)> = vec![
        ("a pod with only overhead requests the overhead",
            with_overhead(spec(vec![c(&[])], vec![]), &[("cpu", "5"), ("memory", "5")]), res(5000, 5)),
        ("requests and overhead add up",
            with_overhead(spec(vec![c(&[("cpu", "1"), ("memory", "10")])], vec![]), &[("cpu", "5"), ("memory", "5")]), res(6000, 15)),
        ("two containers are summed",
            spec(vec![c(&[("cpu", "1"), ("memory", "5")]), c(&[("cpu", "4"), ("memory", "12")])], vec![]), res(5000, 17)),
        ("a massive init container wins over the containers, then overhead is added",
            with_overhead(spec(vec![c(&[("cpu", "1"), ("memory", "5")]), c(&[("cpu", "4"), ("memory", "12")])],
                vec![c(&[("cpu", "1"), ("memory", "5")]), c(&[("cpu", "40"), ("memory", "120")])]),
                &[("cpu", "3"), ("memory", "8")]), res(43000, 128)),
        ("a larger init container wins",
            spec(vec![c(&[("cpu", "1")])], vec![c(&[("cpu", "4")])]), res(4000, 0)),
        ("larger containers win over an init container",
            spec(vec![c(&[("cpu", "2")]), c(&[("cpu", "3")])], vec![c(&[("cpu", "2")])]), res(5000, 0)),
        ("overhead is added to the sum of the containers",
            with_overhead(spec(vec![c(&[("cpu", "2")]), c(&[("cpu", "3")])], vec![c(&[("cpu", "2")])]),
                &[("cpu", "1"), ("memory", "1Gi")]), res(6000, 1 << 30)),
        ("a restartable init container runs beside the containers",
            spec(vec![c(&[("cpu", "1")])], vec![sidecar(&[("cpu", "1")])]), res(2000, 0)),
        ("several restartable init containers are all summed: max(5, 3+2+1+1)",
            spec(vec![c(&[("cpu", "1")])],
                vec![c(&[("cpu", "5")]), sidecar(&[("cpu", "1")]), sidecar(&[("cpu", "2")]), sidecar(&[("cpu", "3")])]),
            res(7000, 0)),
        ("an init container needs the sidecars started before it, not after: 5+1+2",
            spec(vec![c(&[("cpu", "1")])],
                vec![c(&[("cpu", "5")]), sidecar(&[("cpu", "1")]), sidecar(&[("cpu", "2")]), c(&[("cpu", "5")]), sidecar(&[("cpu", "3")])]),
            res(8000, 0)),
        ("restartable init, then init, then regular: 10+200 beats 10+100",
            spec(vec![c(&[("cpu", "100")])], vec![sidecar(&[("cpu", "10")]), c(&[("cpu", "200")])]), res(210_000, 0)),
        ("init containers take the max, not the sum",
            spec(vec![c(&[("cpu", "1m"), ("memory", "1")])], vec![c(&[("cpu", "3m"), ("memory", "1")]), c(&[("cpu", "2m"), ("memory", "1")])]),
            res(3, 1)),
        ("the max is taken per resource",
            spec(vec![c(&[("cpu", "1m"), ("memory", "1")])], vec![c(&[("cpu", "3m"), ("memory", "1")]), c(&[("cpu", "1m"), ("memory", "3")])]),
            res(3, 3)),
        ("pod-level requests replace the containers' cpu and memory",
            with_pod_level(spec(vec![c(&[("cpu", "1m"), ("memory", "1")])], vec![]), &[("cpu", "7m"), ("memory", "2")]), res(7, 2)),
        ("a pod-level cpu request leaves the containers' memory",
            with_pod_level(spec(vec![c(&[("cpu", "1m"), ("memory", "4")])], vec![]), &[("cpu", "3m")]), res(3, 4)),
        ("pod-level requests are used even below the init containers' need",
            with_pod_level(spec(vec![c(&[("cpu", "1m"), ("memory", "1")])], vec![c(&[("cpu", "5m"), ("memory", "1")])]),
                &[("cpu", "3m"), ("memory", "2")]), res(3, 2)),
        ("overhead is added on top of pod-level requests",
            with_overhead(with_pod_level(spec(vec![c(&[])], vec![]), &[("cpu", "3m"), ("memory", "2")]), &[("cpu", "1m"), ("memory", "1")]),
            res(4, 3)),
        ("a pod-level request for an unsupported resource is ignored",
            with_pod_level(spec(vec![c(&[("cpu", "1m")])], vec![]), &[("ephemeral-storage", "10")]), res(1, 0)),
        ("quantities add up exactly before rounding up to milli-CPU",
            spec(vec![c(&[("cpu", "0.5m")]), c(&[("cpu", "0.5m")])], vec![]), res(1, 0)),
        ("no containers request nothing",
            spec(vec![], vec![]), res(0, 0)),
    ];
    for (name, s, want) in cases {
        assert_eq!(pod_requests(&s), want, "{name}");
    }
}

#[test]
fn scalar_resources_and_pod_level_hugepages() {
    let s = with_pod_level(
        spec(
            vec![c(&[
                ("hugepages-2Mi", "3"),
                ("example.com/aaa", "2"),
                ("ephemeral-storage", "5"),
                ("storage", "9"),
            ])],
            vec![],
        ),
        &[("cpu", "3m"), ("memory", "2"), ("hugepages-2Mi", "5")],
    );
    let r = pod_requests(&s);
    assert_eq!(
        r.scalar.get("hugepages-2Mi"),
        Some(&5),
        "pod-level hugepages replace"
    );
    assert_eq!(
        r.scalar.get("example.com/aaa"),
        Some(&2),
        "extended resources kept"
    );
    assert_eq!(r.ephemeral_storage, 5);
    assert!(
        !r.scalar.contains_key("storage"),
        "a non-scalar name is dropped"
    );
}

#[test]
fn scalar_resource_names() {
    #[rustfmt::skip]
    let cases = [
        ("an extended resource with a domain is scalar", "example.com/aaa", true),
        ("nvidia.com/gpu is scalar", "nvidia.com/gpu", true),
        ("a kubernetes.io resource is scalar (prefixed native)", "kubernetes.io/something", true),
        ("a subdomain.kubernetes.io resource is scalar", "subdomain.kubernetes.io/something", true),
        ("hugepages are scalar", "hugepages-2Mi", true),
        ("attachable volumes are scalar", "attachable-volumes-aws-ebs", true),
        ("cpu is not scalar", "cpu", false),
        ("a name without a domain is not scalar", "storage", false),
        ("a requests. name is not scalar", "requests.example.com/aaa", false),
        ("an invalid name is not scalar", "example.com/a b", false),
    ];
    for (name, r, want) in cases {
        assert_eq!(is_scalar_resource_name(r), want, "{name}");
    }
    assert!(!is_extended_resource_name("kubernetes.io/something"));
    assert!(!is_extended_resource_name("hugepages-2Mi"));
}

#[test]
fn non_zero_requests_for_bound_pods() {
    const MI200: i64 = DEFAULT_MEMORY_REQUEST;
    #[rustfmt::skip]
    let cases: Vec<(&str, PodSpec, (i64, i64))> = vec![
        ("a container without requests counts the defaults",
            spec(vec![c(&[])], vec![]), (100, MI200)),
        ("each container without requests counts the defaults",
            spec(vec![c(&[]), c(&[])], vec![]), (200, MI200 * 2)),
        ("a listed zero stays zero",
            spec(vec![c(&[("cpu", "0"), ("memory", "0")])], vec![]), (0, 0)),
        ("only the missing resource defaults",
            spec(vec![c(&[("cpu", "3")])], vec![]), (3000, MI200)),
        ("no containers count nothing",
            spec(vec![], vec![]), (0, 0)),
        ("an init container without requests defaults too, and the max is taken",
            spec(vec![c(&[("cpu", "50m"), ("memory", "1")])], vec![c(&[])]), (100, MI200)),
        ("a sidecar without requests adds the defaults",
            spec(vec![c(&[])], vec![sidecar(&[])]), (200, MI200 * 2)),
        ("overhead is added",
            with_overhead(spec(vec![c(&[])], vec![]), &[("cpu", "10m"), ("memory", "10")]), (110, MI200 + 10)),
        ("pod-level cpu and memory are used as they are",
            with_pod_level(spec(vec![c(&[])], vec![]), &[("cpu", "7m"), ("memory", "2")]), (7, 2)),
        ("with pod-level cpu only, memory defaults when nothing names it",
            with_pod_level(spec(vec![c(&[]), c(&[])], vec![]), &[("cpu", "7m")]), (7, MI200 * 2)),
        ("with pod-level cpu only, a container's memory means no memory default",
            with_pod_level(spec(vec![c(&[("memory", "5")]), c(&[])], vec![]), &[("cpu", "7m")]), (7, 5)),
    ];
    for (name, s, want) in cases {
        assert_eq!(pod_non_zero_requests(&s), want, "{name}");
    }
}

#[test]
fn score_requests_for_the_incoming_pod() {
    const MI200: i64 = DEFAULT_MEMORY_REQUEST;
    let names = [CPU, MEMORY];
    #[rustfmt::skip]
    let cases: Vec<(&str, PodSpec, bool, Vec<i64>)> = vec![
        ("non-zero: a container without requests counts the defaults",
            spec(vec![c(&[])], vec![]), false, vec![100, MI200]),
        ("requested: a container without requests counts nothing",
            spec(vec![c(&[])], vec![]), true, vec![0, 0]),
        ("non-zero: a listed zero stays zero",
            spec(vec![c(&[("cpu", "0"), ("memory", "0")])], vec![]), false, vec![0, 0]),
        ("non-zero: every container missing memory defaults, even beside pod-level cpu",
            with_pod_level(spec(vec![c(&[("memory", "5")]), c(&[])], vec![]), &[("cpu", "7m")]), false, vec![7, 5 + MI200]),
        ("requested: two containers summed",
            spec(vec![c(&[("cpu", "1"), ("memory", "2000")]), c(&[("cpu", "2"), ("memory", "3000")])], vec![]), true, vec![3000, 5000]),
    ];
    for (name, s, use_requested, want) in cases {
        assert_eq!(
            pod_score_requests(&s, &names, use_requested),
            want,
            "{name}"
        );
    }
}
