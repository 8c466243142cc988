//! Unit tests of `crate::object_defaults`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::NodeStatus;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::*;

fn list(pairs: &[(&str, &str)]) -> BTreeMap<String, Quantity> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
        .collect()
}

#[test]
fn node_status_defaults_allocatable_to_capacity() {
    // (name, capacity, allocatable, want allocatable, want changed)
    type Case<'a> = (
        &'a str,
        Option<&'a [(&'a str, &'a str)]>,
        Option<&'a [(&'a str, &'a str)]>,
        Option<&'a [(&'a str, &'a str)]>,
        bool,
    );
    let cases: [Case; 4] = [
        (
            "capacity without allocatable: allocatable is capacity",
            Some(&[("cpu", "4"), ("memory", "8Gi"), ("pods", "110")]),
            None,
            Some(&[("cpu", "4"), ("memory", "8Gi"), ("pods", "110")]),
            true,
        ),
        (
            "allocatable given: kept as is",
            Some(&[("cpu", "4")]),
            Some(&[("cpu", "3500m")]),
            Some(&[("cpu", "3500m")]),
            false,
        ),
        ("neither: nothing to default", None, None, None, false),
        (
            "allocatable without capacity: kept",
            None,
            Some(&[("cpu", "2")]),
            Some(&[("cpu", "2")]),
            false,
        ),
    ];
    for (name, capacity, allocatable, want, changed) in cases {
        let mut node = Node {
            status: Some(NodeStatus {
                capacity: capacity.map(list),
                allocatable: allocatable.map(list),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(set_defaults_node_status(&mut node), changed, "{name}");
        let got = node.status.and_then(|s| s.allocatable);
        assert_eq!(got, want.map(list), "{name}");
    }
    let mut bare = Node::default();
    assert!(
        !set_defaults_node_status(&mut bare),
        "a node without status"
    );
    assert!(bare.status.is_none(), "no status is made up");
}

#[test]
fn namespace_gets_its_name_label() {
    let mut ns = Namespace {
        metadata: ObjectMeta {
            name: Some("team-a".into()),
            labels: Some(BTreeMap::from([
                ("team".to_string(), "a".to_string()),
                (NAMESPACE_NAME_LABEL.to_string(), "wrong".to_string()),
            ])),
            ..Default::default()
        },
        ..Default::default()
    };
    set_defaults_namespace(&mut ns);
    let labels = ns.metadata.labels.unwrap_or_default();
    assert_eq!(
        labels.get(NAMESPACE_NAME_LABEL).map(String::as_str),
        Some("team-a")
    );
    assert_eq!(labels.get("team").map(String::as_str), Some("a"));
}
