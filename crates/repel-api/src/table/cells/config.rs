//! The rows of the kinds a real manifest holds beside workloads (printers.go v1.32):
//! Services, ConfigMaps, Secrets, ServiceAccounts, PersistentVolumeClaims, StorageClasses,
//! Ingresses, IngressClasses, webhook configurations, RoleBindings and ClusterRoleBindings;
//! and the default table convertor's
//! `Name, Created At` (Roles, ClusterRoles, CustomResourceDefinitions).

use std::collections::BTreeSet;

use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

use super::workloads::format_labels;
use super::{age, arr, or_none, s};

/// `printIngressClass`: Name, Controller, Parameters (`Kind[.apiGroup]/name`), Age.
pub(crate) fn ingress_class(obj: &Value, now: Timestamp) -> Vec<Value> {
    let parameters = match obj.pointer("/spec/parameters") {
        Some(p) if p.is_object() => {
            let mut out = s(p, "/kind").to_string();
            if let Some(g) = p.get("apiGroup").and_then(Value::as_str) {
                out.push('.');
                out.push_str(g);
            }
            format!("{out}/{}", s(p, "/name"))
        }
        _ => "<none>".to_string(),
    };
    vec![
        json!(s(obj, "/metadata/name")),
        json!(s(obj, "/spec/controller")),
        json!(parameters),
        age(obj, now),
    ]
}

/// `printValidatingAdmissionPolicy`: Name, Validations (a count), ParamKind
/// (`apiVersion/kind`, `<unset>` without one), Age.
pub(crate) fn validating_admission_policy(obj: &Value, now: Timestamp) -> Vec<Value> {
    let param_kind = match obj.pointer("/spec/paramKind") {
        Some(p) if p.is_object() => format!("{}/{}", s(p, "/apiVersion"), s(p, "/kind")),
        _ => "<unset>".to_string(),
    };
    vec![
        json!(s(obj, "/metadata/name")),
        json!(count(obj, "/spec/validations")),
        json!(param_kind),
        age(obj, now),
    ]
}

/// `printValidatingAdmissionPolicyBinding`: Name, PolicyName, ParamRef (`ns/name`, `*/name`
/// without a namespace, `<unset>` without a paramRef), Age. A paramRef by selector prints
/// `<unset>` here; upstream prints the selector's Go `String()`.
pub(crate) fn validating_admission_policy_binding(obj: &Value, now: Timestamp) -> Vec<Value> {
    let param = match obj.pointer("/spec/paramRef") {
        Some(p) if !s(p, "/name").is_empty() => match s(p, "/namespace") {
            "" => format!("*/{}", s(p, "/name")),
            ns => format!("{ns}/{}", s(p, "/name")),
        },
        _ => "<unset>".to_string(),
    };
    vec![
        json!(s(obj, "/metadata/name")),
        json!(s(obj, "/spec/policyName")),
        json!(param),
        age(obj, now),
    ]
}

/// `printValidatingWebhook` and `printMutatingWebhook`: Name, Webhooks (a count), Age.
pub(crate) fn webhook_configuration(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        json!(s(obj, "/metadata/name")),
        json!(count(obj, "/webhooks")),
        age(obj, now),
    ]
}

fn count(obj: &Value, ptr: &str) -> usize {
    match obj.pointer(ptr) {
        Some(Value::Object(m)) => m.len(),
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    }
}

/// `loadBalancerStatusStringer` (wide): the sorted, distinct IPs (else hostnames).
fn load_balancer(obj: &Value, ptr: &str) -> String {
    let set: BTreeSet<&str> = arr(obj, ptr)
        .iter()
        .filter_map(|i| {
            let ip = s(i, "/ip");
            let host = s(i, "/hostname");
            if !ip.is_empty() {
                Some(ip)
            } else if !host.is_empty() {
                Some(host)
            } else {
                None
            }
        })
        .collect();
    set.into_iter().collect::<Vec<_>>().join(",")
}

/// `getServiceExternalIP`.
fn service_external_ip(obj: &Value) -> String {
    let external: Vec<&str> = arr(obj, "/spec/externalIPs")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    match s(obj, "/spec/type") {
        "ClusterIP" | "NodePort" => or_none(&external.join(",")),
        "LoadBalancer" => {
            let lb = load_balancer(obj, "/status/loadBalancer/ingress");
            if !external.is_empty() {
                let mut all: Vec<&str> = if lb.is_empty() {
                    Vec::new()
                } else {
                    lb.split(',').collect()
                };
                all.extend(external);
                return all.join(",");
            }
            if lb.is_empty() {
                "<pending>".to_string()
            } else {
                lb
            }
        }
        "ExternalName" => s(obj, "/spec/externalName").to_string(),
        _ => "<unknown>".to_string(),
    }
}

/// `makePortString`: `80/TCP`, `443:30443/TCP`, joined by commas.
fn service_ports(obj: &Value) -> String {
    arr(obj, "/spec/ports")
        .iter()
        .map(|p| {
            let port = p["port"].as_i64().unwrap_or(0);
            let proto = p["protocol"].as_str().unwrap_or("");
            match p["nodePort"].as_i64().filter(|n| *n > 0) {
                Some(np) => format!("{port}:{np}/{proto}"),
                None => format!("{port}/{proto}"),
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `printService` (wide).
pub(crate) fn service(obj: &Value, now: Timestamp) -> Vec<Value> {
    let cluster_ip = arr(obj, "/spec/clusterIPs")
        .first()
        .and_then(Value::as_str)
        .unwrap_or("<none>");
    vec![
        json!(s(obj, "/metadata/name")),
        json!(s(obj, "/spec/type")),
        json!(cluster_ip),
        json!(service_external_ip(obj)),
        json!(or_none(&service_ports(obj))),
        age(obj, now),
        json!(format_labels(obj.pointer("/spec/selector"))),
    ]
}

/// `printConfigMap`: the keys of `data` and `binaryData`, a number.
pub(crate) fn config_map(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        json!(s(obj, "/metadata/name")),
        json!(count(obj, "/data") + count(obj, "/binaryData")),
        age(obj, now),
    ]
}

/// `printSecret`.
pub(crate) fn secret(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        json!(s(obj, "/metadata/name")),
        json!(s(obj, "/type")),
        json!(count(obj, "/data")),
        age(obj, now),
    ]
}

/// `printServiceAccount`.
pub(crate) fn service_account(obj: &Value, now: Timestamp) -> Vec<Value> {
    vec![
        json!(s(obj, "/metadata/name")),
        json!(count(obj, "/secrets")),
        age(obj, now),
    ]
}

/// `GetAccessModesAsString`: `RWO,ROX,RWX,RWOP` in that order, each once.
fn access_modes(obj: &Value) -> String {
    let modes: Vec<&str> = arr(obj, "/status/accessModes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(m, _)| modes.contains(m))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

/// `printPersistentVolumeClaim` (wide).
pub(crate) fn pvc(obj: &Value, now: Timestamp) -> Vec<Value> {
    let phase = if obj
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|v| !v.is_null())
    {
        "Terminating"
    } else {
        s(obj, "/status/phase")
    };
    let volume = s(obj, "/spec/volumeName");
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        let cap = s(obj, "/status/capacity/storage");
        (
            if cap.is_empty() {
                "0".to_string()
            } else {
                cap.to_string()
            },
            access_modes(obj),
        )
    };
    let class = obj
        .pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class")
        .and_then(Value::as_str)
        .unwrap_or_else(|| s(obj, "/spec/storageClassName"));
    let vac = obj
        .pointer("/spec/volumeAttributesClassName")
        .and_then(Value::as_str)
        .unwrap_or("<unset>");
    let mode = obj
        .pointer("/spec/volumeMode")
        .and_then(Value::as_str)
        .unwrap_or("<unset>");
    vec![
        json!(s(obj, "/metadata/name")),
        json!(phase),
        json!(volume),
        json!(capacity),
        json!(modes),
        json!(class),
        json!(vac),
        age(obj, now),
        json!(mode),
    ]
}

/// `printStorageClass`: `(default)` after the name of the default class.
pub(crate) fn storage_class(obj: &Value, now: Timestamp) -> Vec<Value> {
    let is_default = [
        "storageclass.kubernetes.io~1is-default-class",
        "storageclass.beta.kubernetes.io~1is-default-class",
    ]
    .iter()
    .any(|k| s(obj, &format!("/metadata/annotations/{k}")) == "true");
    let mut name = s(obj, "/metadata/name").to_string();
    if is_default {
        name.push_str(" (default)");
    }
    let reclaim = obj
        .pointer("/reclaimPolicy")
        .and_then(Value::as_str)
        .unwrap_or("Delete");
    let binding = obj
        .pointer("/volumeBindingMode")
        .and_then(Value::as_str)
        .unwrap_or("Immediate");
    vec![
        json!(name),
        json!(s(obj, "/provisioner")),
        json!(reclaim),
        json!(binding),
        json!(
            obj.pointer("/allowVolumeExpansion")
                .and_then(Value::as_bool)
                .unwrap_or(false)
        ),
        age(obj, now),
    ]
}

/// `formatHosts`: at most three hosts, then `+ N more...`; `*` when none.
fn ingress_hosts(obj: &Value) -> String {
    let rules = arr(obj, "/spec/rules");
    let mut list: Vec<&str> = Vec::new();
    let mut more = false;
    for r in rules {
        if list.len() == 3 {
            more = true;
        }
        let host = s(r, "/host");
        if !more && !host.is_empty() {
            list.push(host);
        }
    }
    if list.is_empty() {
        return "*".to_string();
    }
    let joined = list.join(",");
    if more {
        return format!("{joined} + {} more...", rules.len() - 3);
    }
    joined
}

/// `printIngress`.
pub(crate) fn ingress(obj: &Value, now: Timestamp) -> Vec<Value> {
    let class = obj
        .pointer("/spec/ingressClassName")
        .and_then(Value::as_str)
        .unwrap_or("<none>");
    let ports = if arr(obj, "/spec/tls").is_empty() {
        "80"
    } else {
        "80, 443"
    };
    vec![
        json!(s(obj, "/metadata/name")),
        json!(class),
        json!(ingress_hosts(obj)),
        json!(load_balancer(obj, "/status/loadBalancer/ingress")),
        json!(ports),
        age(obj, now),
    ]
}

/// `printRoleBinding` / `printClusterRoleBinding` (wide): the role as `Kind/name`, then users,
/// groups and service accounts (`ns/name`) joined by `, ` (`rbac.SubjectsStrings`).
pub(crate) fn role_binding(obj: &Value, now: Timestamp) -> Vec<Value> {
    let mut users = Vec::new();
    let mut groups = Vec::new();
    let mut sas = Vec::new();
    for sub in arr(obj, "/subjects") {
        let name = s(sub, "/name");
        match s(sub, "/kind") {
            "User" => users.push(name.to_string()),
            "Group" => groups.push(name.to_string()),
            "ServiceAccount" => sas.push(format!("{}/{name}", s(sub, "/namespace"))),
            _ => {}
        }
    }
    vec![
        json!(s(obj, "/metadata/name")),
        json!(format!(
            "{}/{}",
            s(obj, "/roleRef/kind"),
            s(obj, "/roleRef/name")
        )),
        age(obj, now),
        json!(users.join(", ")),
        json!(groups.join(", ")),
        json!(sas.join(", ")),
    ]
}

/// The default table convertor's row: the name and `creationTimestamp` in RFC 3339, UTC.
pub(crate) fn created_at(obj: &Value) -> Vec<Value> {
    let ts = s(obj, "/metadata/creationTimestamp");
    let at = ts
        .parse::<Timestamp>()
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|_| "0001-01-01T00:00:00Z".to_string());
    vec![json!(s(obj, "/metadata/name")), json!(at)]
}

/// `formatHPAMetrics`: each metric as `current/target` (`<unknown>` until an autoscaler
/// reports; quantities as written), at most two, then `+ N more...`; `<none>` without metrics.
fn hpa_metrics(obj: &Value) -> String {
    let specs = arr(obj, "/spec/metrics");
    if specs.is_empty() {
        return "<none>".to_string();
    }
    let statuses = arr(obj, "/status/currentMetrics");
    let q = |v: &Value, p: &str| -> Option<String> {
        v.pointer(p).map(|x| match x {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    };
    let unknown = || "<unknown>".to_string();
    let mut list: Vec<String> = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let status = statuses.get(i);
        let item = match s(spec, "/type") {
            t @ ("External" | "Object") => {
                let src = if t == "External" {
                    "external"
                } else {
                    "object"
                };
                match q(spec, &format!("/{src}/target/averageValue")) {
                    Some(target) => {
                        let cur = status
                            .and_then(|st| q(st, &format!("/{src}/current/averageValue")))
                            .unwrap_or_else(unknown);
                        format!("{cur}/{target} (avg)")
                    }
                    None => {
                        let cur = status
                            .and_then(|st| q(st, &format!("/{src}/current/value")))
                            .unwrap_or_else(unknown);
                        let target = q(spec, &format!("/{src}/target/value")).unwrap_or_default();
                        format!("{cur}/{target}")
                    }
                }
            }
            "Pods" => {
                let cur = status
                    .and_then(|st| q(st, "/pods/current/averageValue"))
                    .unwrap_or_else(unknown);
                let target = q(spec, "/pods/target/averageValue").unwrap_or_default();
                format!("{cur}/{target}")
            }
            t @ ("Resource" | "ContainerResource") => {
                let src = if t == "Resource" {
                    "resource"
                } else {
                    "containerResource"
                };
                let name = s(spec, &format!("/{src}/name"));
                match q(spec, &format!("/{src}/target/averageValue")) {
                    Some(target) => {
                        let cur = status
                            .and_then(|st| q(st, &format!("/{src}/current/averageValue")))
                            .unwrap_or_else(unknown);
                        format!("{name}: {cur}/{target}")
                    }
                    None => {
                        let cur = status
                            .and_then(|st| {
                                st.pointer(&format!("/{src}/current/averageUtilization"))
                            })
                            .and_then(Value::as_i64)
                            .map(|u| format!("{u}%"))
                            .unwrap_or_else(unknown);
                        let target = spec
                            .pointer(&format!("/{src}/target/averageUtilization"))
                            .and_then(Value::as_i64)
                            .map(|u| format!("{u}%"))
                            .unwrap_or_else(|| "<auto>".to_string());
                        format!("{name}: {cur}/{target}")
                    }
                }
            }
            _ => "<unknown type>".to_string(),
        };
        list.push(item);
    }
    let count = list.len();
    if count > 2 {
        list.truncate(2);
        return format!("{} + {} more...", list.join(", "), count - 2);
    }
    list.join(", ")
}

/// `printHorizontalPodAutoscaler`.
pub(crate) fn hpa(obj: &Value, now: Timestamp) -> Vec<Value> {
    let min = obj
        .pointer("/spec/minReplicas")
        .and_then(Value::as_i64)
        .map(|m| m.to_string())
        .unwrap_or_else(|| "<unset>".to_string());
    vec![
        json!(s(obj, "/metadata/name")),
        json!(format!(
            "{}/{}",
            s(obj, "/spec/scaleTargetRef/kind"),
            s(obj, "/spec/scaleTargetRef/name")
        )),
        json!(hpa_metrics(obj)),
        json!(min),
        json!(
            obj.pointer("/spec/maxReplicas")
                .and_then(Value::as_i64)
                .unwrap_or(0)
        ),
        json!(
            obj.pointer("/status/currentReplicas")
                .and_then(Value::as_i64)
                .unwrap_or(0)
        ),
        age(obj, now),
    ]
}
