//! Unknown-field detection for `fieldValidation=Strict` (what kubectl sends on create, apply
//! and taint).
//!
//! The object is decoded into its k8s-openapi type through `serde_ignored`, which reports the
//! path of every key the type's `Deserialize` skips. k8s-openapi's generated code skips exactly
//! the keys the Go struct does not declare, so those are upstream's unknown fields
//! (`sigs.k8s.io/json` `UnmarshalStrict`), including keys whose value is `null`.
//!
//! Paths are printed as upstream prints them: fields joined by `.`, list indices as `[i]`
//! (`spec.containers[0].foo`), in document order. Answer them with
//! [`crate::status::strict_unknown_fields`] (create, update) or
//! [`crate::status::strict_patch_invalid`] (patch).
//!
//! Duplicate keys (`duplicate field "x"`) are gone once the body is a `serde_json::Value`;
//! [`check_body`] reads the raw body and reports both kinds in upstream's order.

use serde::de::DeserializeOwned;
use serde_ignored::Path;
use serde_json::Value;

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::batch::v1 as batch;
use k8s_openapi::api::coordination::v1 as coordination;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::scheduling::v1 as scheduling;
use k8s_openapi::api::storage::v1 as storage;
use k8s_openapi::api::{admissionregistration::v1 as admissionregistration, rbac::v1 as rbac};
use k8s_openapi::api::{autoscaling::v2 as autoscaling, networking::v1 as networking};

mod body;

pub use body::{StrictError, check_body, parse_json_stream};

/// The unknown fields of `obj`, an object of `kind`, as upstream names them; empty when there
/// are none, when `kind` is not one this crate knows, or when the object does not decode at
/// all (see [`check`] for the decode error).
pub fn unknown_fields(kind: &str, obj: &Value) -> Vec<String> {
    check(kind, obj)
        .map(|(unknown, _)| unknown)
        .unwrap_or_default()
}

/// Decode `obj` as its kind's k8s-openapi type. `None` for a kind this crate does not know;
/// otherwise the unknown field paths and, when the object does not fit the type at all (a
/// string where a number belongs, …), serde's error text.
pub fn check(kind: &str, obj: &Value) -> Option<(Vec<String>, Result<(), String>)> {
    let (api_version, probe): (&str, Probe) = match kind {
        "Pod" => ("v1", probe::<core::Pod>),
        "Node" => ("v1", probe::<core::Node>),
        "Namespace" => ("v1", probe::<core::Namespace>),
        "Event" => ("v1", probe::<core::Event>),
        "Binding" => ("v1", probe::<core::Binding>),
        "ConfigMap" => ("v1", probe::<core::ConfigMap>),
        "PodTemplate" => ("v1", probe::<core::PodTemplate>),
        "Deployment" => ("apps/v1", probe::<apps::Deployment>),
        "ReplicaSet" => ("apps/v1", probe::<apps::ReplicaSet>),
        "StatefulSet" => ("apps/v1", probe::<apps::StatefulSet>),
        "DaemonSet" => ("apps/v1", probe::<apps::DaemonSet>),
        "Job" => ("batch/v1", probe::<batch::Job>),
        "CronJob" => ("batch/v1", probe::<batch::CronJob>),
        "PriorityClass" => ("scheduling.k8s.io/v1", probe::<scheduling::PriorityClass>),
        "PodDisruptionBudget" => ("policy/v1", probe::<policy::PodDisruptionBudget>),
        "Eviction" => ("policy/v1", probe::<policy::Eviction>),
        "Lease" => ("coordination.k8s.io/v1", probe::<coordination::Lease>),
        "Service" => ("v1", probe::<core::Service>),
        "Secret" => ("v1", probe::<core::Secret>),
        "ServiceAccount" => ("v1", probe::<core::ServiceAccount>),
        "PersistentVolumeClaim" => ("v1", probe::<core::PersistentVolumeClaim>),
        "StorageClass" => ("storage.k8s.io/v1", probe::<storage::StorageClass>),
        "Ingress" => ("networking.k8s.io/v1", probe::<networking::Ingress>),
        "IngressClass" => ("networking.k8s.io/v1", probe::<networking::IngressClass>),
        "ValidatingWebhookConfiguration" => (
            "admissionregistration.k8s.io/v1",
            probe::<admissionregistration::ValidatingWebhookConfiguration>,
        ),
        "MutatingWebhookConfiguration" => (
            "admissionregistration.k8s.io/v1",
            probe::<admissionregistration::MutatingWebhookConfiguration>,
        ),
        "ValidatingAdmissionPolicy" => (
            "admissionregistration.k8s.io/v1",
            probe::<admissionregistration::ValidatingAdmissionPolicy>,
        ),
        "ValidatingAdmissionPolicyBinding" => (
            "admissionregistration.k8s.io/v1",
            probe::<admissionregistration::ValidatingAdmissionPolicyBinding>,
        ),
        "HorizontalPodAutoscaler" => (
            "autoscaling/v2",
            probe::<autoscaling::HorizontalPodAutoscaler>,
        ),
        "Role" => ("rbac.authorization.k8s.io/v1", probe::<rbac::Role>),
        "RoleBinding" => ("rbac.authorization.k8s.io/v1", probe::<rbac::RoleBinding>),
        "ClusterRole" => ("rbac.authorization.k8s.io/v1", probe::<rbac::ClusterRole>),
        "ClusterRoleBinding" => (
            "rbac.authorization.k8s.io/v1",
            probe::<rbac::ClusterRoleBinding>,
        ),
        _ => return None,
    };
    // Another version of the kind (`autoscaling/v1`, `policy/v1beta1`) is not this type.
    if obj
        .get("apiVersion")
        .and_then(Value::as_str)
        .is_some_and(|v| !v.is_empty() && v != api_version)
    {
        return None;
    }
    let mut obj = obj.clone();
    // k8s-openapi's types insist on their apiVersion and kind; the API server takes them from
    // the URL when the body leaves them out.
    if let Value::Object(m) = &mut obj {
        m.entry("apiVersion")
            .or_insert_with(|| Value::String(api_version.to_string()));
        m.entry("kind")
            .or_insert_with(|| Value::String(kind.to_string()));
    }
    Some(probe(obj))
}

/// Decode into one k8s-openapi type: the unknown paths and the decode result.
type Probe = fn(Value) -> (Vec<String>, Result<(), String>);

fn probe<T: DeserializeOwned>(obj: Value) -> (Vec<String>, Result<(), String>) {
    let (result, unknown) = decode::<T, _>(obj);
    (unknown, result.map(|_| ()).map_err(|e| e.to_string()))
}

/// Decodes a `T` from `de` as upstream's strict decoder reads it: the object, and the paths of
/// the fields `T` does not declare, in document order. The server's `fieldValidation` and the
/// CLI's `--validate` (manifest files) both read objects through here.
pub fn decode<'de, T: serde::Deserialize<'de>, D: serde::Deserializer<'de>>(
    de: D,
) -> (Result<T, D::Error>, Vec<String>) {
    let mut unknown = Vec::new();
    let result = serde_ignored::deserialize(de, |path| unknown.push(render(&path)));
    (result, unknown)
}

/// A `serde_ignored` path as upstream's strict decoder prints it (`spec.containers[0].foo`).
fn render(path: &Path) -> String {
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", render(parent)),
        Path::Map { parent, key } => {
            let p = render(parent);
            if p.is_empty() {
                key.clone()
            } else {
                format!("{p}.{key}")
            }
        }
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => render(parent),
    }
}

#[cfg(test)]
mod tests;
