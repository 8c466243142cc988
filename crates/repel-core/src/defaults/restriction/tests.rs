#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)] // tests may unwrap (CONVENTIONS)

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1::{
    Container, Namespace, Pod, PodStatus, ResourceRequirements, Toleration,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use proptest::prelude::*;

use super::*;
use crate::testing::{pod_with_tolerations, tol, tol_secs};

/// Upstream tolerations_test.go's named fixtures.
fn fixtures() -> HashMap<&'static str, Toleration> {
    HashMap::from([
        ("all", tol("", "Exists", "", "")),
        ("all-nosched", tol("", "Exists", "", "NoSchedule")),
        ("all-noexec", tol("", "Exists", "", "NoExecute")),
        ("foo", tol("foo", "Exists", "", "")),
        ("foo-bar", tol("foo", "Equal", "bar", "")),
        ("foo-nosched", tol("foo", "Exists", "", "NoSchedule")),
        ("foo-bar-nosched", tol("foo", "Equal", "bar", "NoSchedule")),
        ("foo-baz-nosched", tol("foo", "Equal", "baz", "NoSchedule")),
        ("faz-nosched", tol("faz", "Exists", "", "NoSchedule")),
        ("faz-baz-nosched", tol("faz", "Equal", "baz", "NoSchedule")),
        (
            "foo-prefnosched",
            tol("foo", "Exists", "", "PreferNoSchedule"),
        ),
        ("foo-noexec", tol("foo", "Exists", "", "NoExecute")),
        ("foo-bar-noexec", tol("foo", "Equal", "bar", "NoExecute")),
        (
            "foo-noexec-10",
            tol_secs("foo", "Exists", "", "NoExecute", 10),
        ),
        (
            "foo-noexec-0",
            tol_secs("foo", "Exists", "", "NoExecute", 0),
        ),
        (
            "foo-bar-noexec-10",
            tol_secs("foo", "Equal", "bar", "NoExecute", 10),
        ),
    ])
}

fn namespace(default: Option<&[Toleration]>, whitelist: Option<&[Toleration]>) -> Namespace {
    let mut annotations = BTreeMap::new();
    if let Some(d) = default {
        annotations.insert(
            NS_DEFAULT_TOLERATIONS.to_string(),
            serde_json::to_string(d).unwrap(),
        );
    }
    if let Some(w) = whitelist {
        annotations.insert(
            NS_WHITELIST_TOLERATIONS.to_string(),
            serde_json::to_string(w).unwrap(),
        );
    }
    Namespace {
        metadata: ObjectMeta {
            name: Some("testNamespace".into()),
            annotations: Some(annotations),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn raw_namespace(annotations: &[(&str, &str)]) -> Namespace {
    Namespace {
        metadata: ObjectMeta {
            name: Some("testNamespace".into()),
            annotations: Some(
                annotations
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[derive(Clone, Copy, Debug)]
enum Qos {
    BestEffort,
    Burstable,
    Guaranteed,
}

fn pod(qos: Qos, tolerations: Vec<Toleration>) -> Pod {
    let q = |v: &str| BTreeMap::from([("cpu".to_string(), Quantity(v.to_string()))]);
    let resources = match qos {
        Qos::BestEffort => None,
        Qos::Burstable => Some(ResourceRequirements {
            limits: Some(q("1000m")),
            requests: Some(q("500m")),
            ..Default::default()
        }),
        Qos::Guaranteed => Some(ResourceRequirements {
            limits: Some(q("1000m")),
            requests: Some(q("1000m")),
            ..Default::default()
        }),
    };
    let mut p = pod_with_tolerations("testPod", tolerations);
    p.metadata.namespace = Some("testNamespace".into());
    if let Some(spec) = p.spec.as_mut() {
        spec.containers = vec![Container {
            name: "test".into(),
            resources,
            ..Default::default()
        }];
    }
    p
}

fn mp() -> Toleration {
    memory_pressure_toleration()
}

fn t_eq(value: &str) -> Toleration {
    tol("testKey", "Equal", value, "NoSchedule")
}

fn named(names: &[&str]) -> Vec<Toleration> {
    let f = fixtures();
    names.iter().map(|n| f[n].clone()).collect()
}

mod errors;
mod fuzzed;
mod is_superset;
mod merge_tolerations;
mod pod_admission;
mod updates;
mod verify_against_whitelist;
