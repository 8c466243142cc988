#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)] // tests may unwrap (CONVENTIONS)

use k8s_openapi::api::core::v1::{Container, PodSpec, ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::*;
use crate::testing::{tol, tol_secs};

const ER1: &str = "example.com/device-ek";
const ER2: &str = "example.com/device-do";

fn requesting(resource: &str, quantity: &str) -> Container {
    Container {
        name: "c".to_string(),
        resources: Some(ResourceRequirements {
            requests: Some([(resource.to_string(), Quantity(quantity.to_string()))].into()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn cpu() -> Container {
    requesting("cpu", "2")
}

fn memory() -> Container {
    requesting("memory", "2048")
}

fn pod(containers: Vec<Container>, init: Vec<Container>, tolerations: Vec<Toleration>) -> PodSpec {
    PodSpec {
        containers,
        init_containers: (!init.is_empty()).then_some(init),
        tolerations: (!tolerations.is_empty()).then_some(tolerations),
        ..Default::default()
    }
}

fn added(key: &str) -> Toleration {
    tol(key, "Exists", "", "NoSchedule")
}

#[test]
fn admit_table() {
    // Upstream TestAdmit (admission_test.go), case for case, then repel's own.
    #[rustfmt::skip]
    let cases: Vec<(&str, PodSpec, Vec<Toleration>)> = vec![
        ("empty pod without any extended resources, expect no change in tolerations",
            PodSpec::default(), vec![]),
        ("pod with container without any extended resources, expect no change in tolerations",
            pod(vec![cpu()], vec![], vec![]), vec![]),
        ("pod with init container without any extended resources, expect no change in tolerations",
            pod(vec![], vec![memory()], vec![]), vec![]),
        ("pod with container with extended resource, expect toleration to be added",
            pod(vec![requesting(ER1, "1")], vec![], vec![]), vec![added(ER1)]),
        ("pod with init container with extended resource, expect toleration to be added",
            pod(vec![], vec![requesting(ER2, "2")], vec![]), vec![added(ER2)]),
        ("pod with existing tolerations and container with extended resource, expect existing tolerations to be preserved and new toleration to be added",
            pod(vec![cpu(), requesting(ER1, "1")], vec![], vec![tol("foo", "Equal", "bar", "NoSchedule")]),
            vec![tol("foo", "Equal", "bar", "NoSchedule"), added(ER1)]),
        ("pod with multiple extended resources, expect multiple tolerations to be added (note the order, it's sorted by the key)",
            pod(vec![memory(), requesting(ER1, "1")], vec![cpu(), requesting(ER2, "2")], vec![]),
            vec![added(ER2), added(ER1)]),
        ("pod with container requesting extended resource and existing correct toleration, expect no change in tolerations",
            pod(vec![cpu(), memory(), requesting(ER1, "1")], vec![], vec![added(ER1)]), vec![added(ER1)]),
        ("pod with container requesting extended resource and existing toleration with the same key but different effect and value, expect existing tolerations to be preserved and new toleration to be added",
            pod(vec![cpu(), memory(), requesting(ER1, "1")], vec![], vec![tol(ER1, "Equal", "foo", "NoExecute")]),
            vec![tol(ER1, "Equal", "foo", "NoExecute"), added(ER1)]),
        ("pod with wildcard toleration and container requesting extended resource, expect existing tolerations to be preserved and new toleration to be added",
            pod(vec![cpu(), memory(), requesting(ER1, "1")], vec![], vec![tol("", "Exists", "", "")]),
            vec![tol("", "Exists", "", ""), added(ER1)]),
        // repel's own cases.
        ("a resource requested by two containers gets one toleration",
            pod(vec![requesting(ER1, "1"), requesting(ER1, "1")], vec![requesting(ER1, "1")], vec![]),
            vec![added(ER1)]),
        ("a matching toleration with tolerationSeconds is replaced in place by the plugin's, seconds dropped",
            pod(vec![requesting("nvidia.com/gpu", "1")], vec![], vec![tol_secs("nvidia.com/gpu", "Exists", "", "NoSchedule", 60), tol("a", "Exists", "", "")]),
            vec![added("nvidia.com/gpu"), tol("a", "Exists", "", "")]),
        ("the same key with operator Equal and no value is not a match: the plugin's is appended",
            pod(vec![requesting("nvidia.com/gpu", "1")], vec![], vec![tol("nvidia.com/gpu", "", "", "NoSchedule")]),
            vec![tol("nvidia.com/gpu", "", "", "NoSchedule"), added("nvidia.com/gpu")]),
        ("the same key with an empty effect is not a match: the plugin's is appended",
            pod(vec![requesting("nvidia.com/gpu", "1")], vec![], vec![tol("nvidia.com/gpu", "Exists", "", "")]),
            vec![tol("nvidia.com/gpu", "Exists", "", ""), added("nvidia.com/gpu")]),
        ("native and kubernetes.io resources are not extended: no toleration",
            pod(vec![requesting("ephemeral-storage", "1Gi"), requesting("hugepages-2Mi", "2Mi"), requesting("example.kubernetes.io/x", "1")], vec![], vec![]),
            vec![]),
        ("names sort bytewise: upper case before lower case",
            pod(vec![requesting("example.com/b", "1"), requesting("example.com/B", "1"), requesting("example.com/a", "1")], vec![], vec![]),
            vec![added("example.com/B"), added("example.com/a"), added("example.com/b")]),
    ];
    for (name, mut spec, want) in cases {
        extended_resource_toleration(&mut spec);
        assert_eq!(spec.tolerations.clone().unwrap_or_default(), want, "{name}");
    }
}

#[test]
fn limits_and_ephemeral_containers_are_not_read() {
    let mut spec = pod(vec![], vec![], vec![]);
    spec.containers.push(Container {
        name: "c".into(),
        resources: Some(ResourceRequirements {
            limits: Some([("nvidia.com/gpu".to_string(), Quantity("1".into()))].into()),
            ..Default::default()
        }),
        ..Default::default()
    });
    spec.ephemeral_containers = Some(vec![Default::default()]);
    extended_resource_toleration(&mut spec);
    assert_eq!(
        spec.tolerations, None,
        "a limit alone (before defaulting) adds nothing, and tolerations stay unset"
    );
}

#[test]
fn is_extended_resource_name_table() {
    // Upstream's IsExtendedResourceName, rule by rule.
    let len63 = format!("example.com/{}", "a".repeat(63));
    let len64 = format!("example.com/{}", "a".repeat(64));
    #[rustfmt::skip]
    let cases: Vec<(&str, &str, bool)> = vec![
        ("a vendor-prefixed name is extended", "nvidia.com/gpu", true),
        ("a name with dashes and dots in its name part is extended", "example.com/device-ek.v1", true),
        ("an unprefixed name is native", "cpu", false),
        ("an unprefixed unknown name is native too", "foo", false),
        ("kubernetes.io/ is native", "kubernetes.io/foo", false),
        ("a subdomain of kubernetes.io is native", "example.kubernetes.io/foo", false),
        ("kubernetes.io/ anywhere in the name makes it native", "example.com/kubernetes.io/foo", false),
        ("a requests. prefix is refused", "requests.example.com/foo", false),
        ("two slashes are not a qualified name", "example.com/a/b", false),
        ("an empty prefix is not a qualified name", "/foo", false),
        ("an empty name part is not a qualified name", "example.com/", false),
        ("a name part of 63 characters is fine", &len63, true),
        ("a name part of 64 characters is too long", &len64, false),
        ("an upper-case prefix is not a DNS subdomain", "Example.com/foo", false),
        ("a name part starting with a dash is refused", "example.com/-foo", false),
        ("the empty name is native", "", false),
    ];
    for (name, resource, want) in cases {
        assert_eq!(
            is_extended_resource_name(resource),
            want,
            "{name}: {resource:?}"
        );
    }
}

#[test]
fn native_resource_rule() {
    assert!(is_native_resource("memory"), "no slash: native");
    assert!(
        is_native_resource("kubernetes.io/x"),
        "kubernetes.io/: native"
    );
    assert!(
        !is_native_resource("nvidia.com/gpu"),
        "a vendor name is not native"
    );
}
