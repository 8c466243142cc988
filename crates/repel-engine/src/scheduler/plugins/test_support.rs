//! Fixture builders for the plugins' tests.

use repel_core::k8s_openapi::api::core::v1::{
    Container, Node, NodeSpec, Pod, PodSpec, Taint, Toleration,
};
use repel_core::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::cluster::{NodeInfo, PodInfo};

/// A taint.
pub fn taint(key: &str, value: &str, effect: &str) -> Taint {
    repel_core::taint::new_taint(key, value, effect)
}

/// A toleration; empty strings stay unset.
pub fn tol(key: &str, op: &str, value: &str, effect: &str) -> Toleration {
    repel_core::toleration::new_toleration(key, op, value, effect)
}

/// A node with taints and nothing on it.
pub fn node(name: &str, taints: Vec<Taint>) -> NodeInfo {
    NodeInfo::new(Node {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        spec: Some(NodeSpec {
            taints: Some(taints),
            ..Default::default()
        }),
        status: None,
    })
}

/// A node with labels.
pub fn labelled(name: &str, labels: &[(&str, &str)]) -> NodeInfo {
    NodeInfo::new(Node {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..Default::default()
        },
        spec: None,
        status: None,
    })
}

/// A pod in `default` with one container, shaped by `f`.
pub fn pod(name: &str, f: impl FnOnce(&mut PodSpec)) -> PodInfo {
    let mut spec = PodSpec {
        containers: vec![Container {
            name: "c".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    f(&mut spec);
    PodInfo::new(
        Pod {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                ..Default::default()
            },
            spec: Some(spec),
            status: None,
        },
        0,
    )
}
