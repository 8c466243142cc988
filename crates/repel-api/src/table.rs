//! `meta.k8s.io/v1` `Table` conversion: what the API server answers when kubectl asks for
//! `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`.
//!
//! Columns and cells are upstream's printers (`pkg/printers/internalversion/printers.go`,
//! v1.32) with `Wide: true`, as kube-apiserver's table convertor calls them: every column is
//! sent, and kubectl shows the `priority: 1` ones only with `-o wide`. Each row carries its
//! object as `PartialObjectMetadata` (kubectl reads the namespace from it for `-A`).
//!
//! Start with [`table_for`] (any served kind) or [`node_table`] / [`pod_table`]; [`table`] takes
//! an [`IncludeObject`]. Ages are [`human_duration`] of `now - creationTimestamp`, computed with
//! the `now` passed in (this crate reads no clock). Kinds without an upstream printer here get
//! [`generic_table`] (Name, Age); custom resources get [`custom_table`], their CRD's
//! `additionalPrinterColumns`.

use k8s_openapi::jiff::Timestamp;
use serde_json::{Map, Value, json};

mod cells;
mod columns;
mod custom;
#[cfg(test)]
mod tests;

pub use cells::{human_duration, human_duration_millis, translate_timestamp_since};
pub use columns::columns;
pub use custom::{PrinterColumn, custom_cells, custom_columns, custom_table};

/// What each row's `object` holds (upstream `includeObject`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IncludeObject {
    /// No `object`.
    None,
    /// `PartialObjectMetadata` with the object's `metadata` (the default, and what kubectl uses).
    #[default]
    Metadata,
    /// The whole object.
    Object,
}

/// Upstream's 400 for an `includeObject` it does not know (`handlers/response.go` `asTable`).
pub fn unrecognized_include_object(value: &str) -> String {
    format!("unrecognized includeObject value: {value:?}")
}

impl IncludeObject {
    /// The `includeObject` query parameter as upstream's `asTable` reads it: `None`,
    /// `Metadata` or empty (the default), `Object`; anything else is refused with
    /// [`unrecognized_include_object`].
    pub fn parse(s: &str) -> Result<IncludeObject, String> {
        match s {
            "None" => Ok(IncludeObject::None),
            "Metadata" | "" => Ok(IncludeObject::Metadata),
            "Object" => Ok(IncludeObject::Object),
            other => Err(unrecognized_include_object(other)),
        }
    }

    /// The `includeObject` query parameter (`None`, `Metadata`, `Object`); anything else is
    /// the default.
    pub fn from_query(s: &str) -> IncludeObject {
        match s {
            "None" => IncludeObject::None,
            "Object" => IncludeObject::Object,
            _ => IncludeObject::Metadata,
        }
    }
}

/// The cells of one object's row (upstream's `print<Kind>` with `Wide: true`).
pub fn row_cells(kind: &str, obj: &Value, now: Timestamp) -> Vec<Value> {
    match kind {
        "Node" => cells::node(obj, now),
        "Pod" => cells::pod(obj, now),
        "Namespace" => cells::namespace(obj, now),
        "Event" => cells::event(obj, now),
        "Deployment" => cells::deployment(obj, now),
        "ReplicaSet" => cells::replica_set(obj, now),
        "ReplicationController" => cells::replication_controller(obj, now),
        "DaemonSet" => cells::daemon_set(obj, now),
        "StatefulSet" => cells::stateful_set(obj, now),
        "Job" => cells::job(obj, now),
        "PodDisruptionBudget" => cells::pdb(obj, now),
        "Lease" => cells::lease(obj, now),
        "ControllerRevision" => cells::controller_revision(obj, now),
        "Service" => cells::service(obj, now),
        "ConfigMap" => cells::config_map(obj, now),
        "Secret" => cells::secret(obj, now),
        "ServiceAccount" => cells::service_account(obj, now),
        "PersistentVolumeClaim" => cells::pvc(obj, now),
        "StorageClass" => cells::storage_class(obj, now),
        "Ingress" => cells::ingress(obj, now),
        "IngressClass" => cells::ingress_class(obj, now),
        "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration" => {
            cells::webhook_configuration(obj, now)
        }
        "ValidatingAdmissionPolicy" => cells::validating_admission_policy(obj, now),
        "ValidatingAdmissionPolicyBinding" => cells::validating_admission_policy_binding(obj, now),
        "HorizontalPodAutoscaler" => cells::hpa(obj, now),
        "RoleBinding" | "ClusterRoleBinding" => cells::role_binding(obj, now),
        "Role" | "ClusterRole" | "CustomResourceDefinition" | "LimitRange" => {
            cells::created_at(obj)
        }
        "ResourceQuota" => cells::resource_quota(obj, now),
        _ => cells::generic(obj, now),
    }
}

/// Upstream's row `conditions`: a pod that succeeded or failed carries a `Completed` condition.
fn row_conditions(kind: &str, obj: &Value) -> Option<Value> {
    if kind != "Pod" {
        return None;
    }
    match obj.pointer("/status/phase").and_then(Value::as_str) {
        Some("Succeeded") => Some(json!([{
            "type": "Completed", "status": "True", "reason": "Succeeded",
            "message": "The pod has completed successfully."
        }])),
        Some("Failed") => Some(json!([{
            "type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."
        }])),
        _ => None,
    }
}

/// A table of `objs` of `kind`, with `metadata.resourceVersion` = `rv` (kubectl's `get -w`
/// starts its watch from it).
pub fn table(
    kind: &str,
    objs: &[&Value],
    now: Timestamp,
    rv: &str,
    include: IncludeObject,
) -> Value {
    let rows: Vec<Value> = objs
        .iter()
        .map(|obj| {
            let mut row = Map::new();
            row.insert("cells".into(), Value::Array(row_cells(kind, obj, now)));
            if let Some(c) = row_conditions(kind, obj) {
                row.insert("conditions".into(), c);
            }
            if let Some(o) = row_object(obj, include) {
                row.insert("object".into(), o);
            }
            Value::Object(row)
        })
        .collect();
    envelope(rv, columns(kind), rows)
}

/// A `meta.k8s.io/v1` Table of `rows` under `column_definitions`, at `rv` (none when empty).
/// A row's `object`: the object's metadata as `PartialObjectMetadata`, the whole object, or
/// none (upstream `asTable`).
pub(crate) fn row_object(obj: &Value, include: IncludeObject) -> Option<Value> {
    match include {
        IncludeObject::None => None,
        IncludeObject::Metadata => {
            let metadata = obj.get("metadata").cloned().unwrap_or_else(|| json!({}));
            Some(
                json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": metadata}),
            )
        }
        IncludeObject::Object => Some(obj.clone()),
    }
}

pub(crate) fn envelope(rv: &str, column_definitions: Vec<Value>, rows: Vec<Value>) -> Value {
    let mut metadata = Map::new();
    if !rv.is_empty() {
        metadata.insert("resourceVersion".into(), json!(rv));
    }
    // Built by moving the rows in (`json!` would serialise a copy of each).
    let mut table = Map::new();
    table.insert("kind".into(), json!("Table"));
    table.insert("apiVersion".into(), json!("meta.k8s.io/v1"));
    table.insert("metadata".into(), Value::Object(metadata));
    table.insert("columnDefinitions".into(), Value::Array(column_definitions));
    table.insert("rows".into(), Value::Array(rows));
    Value::Object(table)
}

/// The table of any served kind, rows carrying `PartialObjectMetadata`.
pub fn table_for(kind: &str, objs: &[&Value], now: Timestamp, rv: &str) -> Value {
    table(kind, objs, now, rv, IncludeObject::Metadata)
}

/// `kubectl get nodes`: Name, Status, Roles, Age, Version; wide: Internal-IP, External-IP,
/// OS-Image, Kernel-Version, Container-Runtime.
pub fn node_table(objs: &[&Value], now: Timestamp, rv: &str) -> Value {
    table_for("Node", objs, now, rv)
}

/// `kubectl get pods`: Name, Ready, Status, Restarts, Age; wide: IP, Node, Nominated Node,
/// Readiness Gates.
pub fn pod_table(objs: &[&Value], now: Timestamp, rv: &str) -> Value {
    table_for("Pod", objs, now, rv)
}

/// Name and Age, for a kind without a printer of its own.
pub fn generic_table(objs: &[&Value], now: Timestamp, rv: &str) -> Value {
    table("", objs, now, rv, IncludeObject::Metadata)
}
