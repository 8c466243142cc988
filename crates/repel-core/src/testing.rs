//! Fixture builders shared by this crate's tests.

use k8s_openapi::api::core::v1::{Container, Node, NodeSpec, Pod, PodSpec, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// A taint; an empty value is left unset.
pub fn taint(key: &str, value: &str, effect: &str) -> Taint {
    crate::taint::new_taint(key, value, effect)
}

/// A toleration; empty strings are left unset, as a manifest that omits the field.
pub fn tol(key: &str, operator: &str, value: &str, effect: &str) -> Toleration {
    crate::toleration::new_toleration(key, operator, value, effect)
}

/// A toleration with `tolerationSeconds`.
pub fn tol_secs(key: &str, operator: &str, value: &str, effect: &str, secs: i64) -> Toleration {
    Toleration {
        toleration_seconds: Some(secs),
        ..tol(key, operator, value, effect)
    }
}

/// A pod in namespace `default` with one container and the given tolerations.
pub fn pod_with_tolerations(name: &str, tolerations: Vec<Toleration>) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            namespace: Some("default".to_string()),
            ..Default::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "app".to_string(),
                image: Some("nginx".to_string()),
                ..Default::default()
            }],
            tolerations: (!tolerations.is_empty()).then_some(tolerations),
            ..Default::default()
        }),
        status: None,
    }
}

/// A node with the given taints.
pub fn node_with_taints(name: &str, taints: Vec<Taint>) -> Node {
    Node {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            ..Default::default()
        },
        spec: Some(NodeSpec {
            taints: (!taints.is_empty()).then_some(taints),
            ..Default::default()
        }),
        status: None,
    }
}
