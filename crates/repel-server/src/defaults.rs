//! kube-apiserver's defaulting of the kinds stored without behaviour (`SetDefaults_Service`,
//! `_Secret`, `_PersistentVolumeClaim`, `_StorageClass`, v1.32) and the Service registry's
//! address and node-port allocation — what `kubectl get` shows of them.
//!
//! Decision: a Service's cluster IP is the lowest free address of 10.96.0.0/12 from 10.96.0.10
//! (kubeadm's range; kube-apiserver picks one at random), a node port the lowest free one of
//! 30000–32767 (also random upstream), so the same applies give the same addresses.

use std::collections::HashSet;
use std::net::Ipv4Addr;

use base64::Engine;
use repel_api::status;
use serde_json::{Value, json};

use crate::request::ApiError;
use crate::store::Store;

/// The first address handed out (below: the `kubernetes` and DNS Services' by convention).
const FIRST_CLUSTER_IP: u32 = u32::from_be_bytes([10, 96, 0, 10]);
/// The end (exclusive) of 10.96.0.0/12.
const CLUSTER_IP_END: u32 = u32::from_be_bytes([10, 112, 0, 0]);
/// `--service-node-port-range`'s default.
const NODE_PORTS: std::ops::RangeInclusive<i64> = 30000..=32767;

fn used_ips_and_ports(store: &Store) -> (HashSet<String>, HashSet<i64>) {
    let (services, _) = store.list("services", None);
    let mut ips = HashSet::new();
    let mut ports = HashSet::new();
    for s in &services {
        for ip in s["spec"]["clusterIPs"].as_array().into_iter().flatten() {
            if let Some(ip) = ip.as_str() {
                ips.insert(ip.to_string());
            }
        }
        for p in s["spec"]["ports"].as_array().into_iter().flatten() {
            if let Some(n) = p["nodePort"].as_i64() {
                ports.insert(n);
            }
        }
    }
    (ips, ports)
}

/// `SetDefaults_Service`, then the registry's `normalizeClusterIPs`, IP families and
/// allocation of the cluster IP and node ports.
pub fn service(store: &Store, svc: &mut Value) -> Result<(), ApiError> {
    let spec = &mut svc["spec"];
    if !spec.is_object() {
        *spec = json!({});
    }
    if spec["sessionAffinity"].as_str().unwrap_or("").is_empty() {
        spec["sessionAffinity"] = json!("None");
    }
    if spec["sessionAffinity"] == "None"
        && let Some(m) = spec.as_object_mut()
    {
        m.remove("sessionAffinityConfig");
    }
    if spec["sessionAffinity"] == "ClientIP"
        && spec["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"].is_null()
    {
        spec["sessionAffinityConfig"] = json!({"clientIP": {"timeoutSeconds": 10800}});
    }
    if spec["type"].as_str().unwrap_or("").is_empty() {
        spec["type"] = json!("ClusterIP");
    }
    let ty = spec["type"].as_str().unwrap_or("ClusterIP").to_string();
    for p in spec["ports"].as_array_mut().into_iter().flatten() {
        if p["protocol"].as_str().unwrap_or("").is_empty() {
            p["protocol"] = json!("TCP");
        }
        let unset = match &p["targetPort"] {
            Value::Null => true,
            Value::Number(n) => n.as_i64() == Some(0),
            Value::String(s) => s.is_empty(),
            _ => false,
        };
        if unset {
            p["targetPort"] = p["port"].clone();
        }
    }
    let has_external = spec["externalIPs"]
        .as_array()
        .is_some_and(|a| !a.is_empty());
    let externally_accessible =
        ty == "LoadBalancer" || ty == "NodePort" || (ty == "ClusterIP" && has_external);
    if externally_accessible
        && spec["externalTrafficPolicy"]
            .as_str()
            .unwrap_or("")
            .is_empty()
    {
        spec["externalTrafficPolicy"] = json!("Cluster");
    }
    if spec["internalTrafficPolicy"].is_null() && ty != "ExternalName" {
        spec["internalTrafficPolicy"] = json!("Cluster");
    }
    if ty == "LoadBalancer" && spec["allocateLoadBalancerNodePorts"].is_null() {
        spec["allocateLoadBalancerNodePorts"] = json!(true);
    }
    if ty == "ExternalName" {
        return Ok(());
    }
    let given = spec["clusterIP"].as_str().unwrap_or("").to_string();
    if !given.is_empty() && spec["clusterIPs"].as_array().is_none_or(Vec::is_empty) {
        spec["clusterIPs"] = json!([given]);
    }
    let headless = given == "None";
    let selectorless = spec["selector"].as_object().is_none_or(|m| m.is_empty());
    if spec["ipFamilyPolicy"].is_null() {
        spec["ipFamilyPolicy"] = json!(if headless && selectorless {
            "RequireDualStack"
        } else {
            "SingleStack"
        });
    }
    if spec["ipFamilies"].as_array().is_none_or(Vec::is_empty) {
        spec["ipFamilies"] = json!(["IPv4"]);
    }
    let (used_ips, mut used_ports) = used_ips_and_ports(store);
    if !headless {
        if given.is_empty() {
            let ip = (FIRST_CLUSTER_IP..CLUSTER_IP_END)
                .map(|n| Ipv4Addr::from(n).to_string())
                .find(|ip| !used_ips.contains(ip))
                .ok_or_else(|| {
                    ApiError::from(status::internal_error(
                        "failed to allocate a serviceIP: range is full",
                    ))
                })?;
            spec["clusterIP"] = json!(ip);
            spec["clusterIPs"] = json!([ip]);
        } else if used_ips.contains(&given) {
            return Err(status::internal_error(&format!(
                "failed to allocate IP {given}: provided IP is already allocated"
            ))
            .into());
        }
    }
    let wants_node_ports =
        ty == "NodePort" || (ty == "LoadBalancer" && spec["allocateLoadBalancerNodePorts"] == true);
    if wants_node_ports {
        for p in spec["ports"].as_array_mut().into_iter().flatten() {
            if p["nodePort"].as_i64().unwrap_or(0) == 0 {
                let port = NODE_PORTS
                    .clone()
                    .find(|n| !used_ports.contains(n))
                    .ok_or_else(|| {
                        ApiError::from(status::internal_error(
                            "failed to allocate a nodePort: range is full",
                        ))
                    })?;
                used_ports.insert(port);
                p["nodePort"] = json!(port);
            }
        }
    }
    Ok(())
}

/// `SetDefaults_Secret` (type `Opaque`) and the conversion that merges `stringData` into
/// `data` (base64), which is not stored.
pub fn secret(obj: &mut Value) {
    if obj["type"].as_str().unwrap_or("").is_empty() {
        obj["type"] = json!("Opaque");
    }
    let Some(string_data) = obj.as_object_mut().and_then(|m| m.remove("stringData")) else {
        return;
    };
    let Some(entries) = string_data.as_object() else {
        return;
    };
    if !obj["data"].is_object() {
        obj["data"] = json!({});
    }
    for (k, v) in entries {
        let text = v.as_str().unwrap_or("");
        obj["data"][k] = json!(base64::engine::general_purpose::STANDARD.encode(text));
    }
}

/// `SetDefaults_PersistentVolumeClaim` and `_PersistentVolumeClaimSpec`.
pub fn pvc(obj: &mut Value) {
    if obj["status"]["phase"].as_str().unwrap_or("").is_empty() {
        obj["status"]["phase"] = json!("Pending");
    }
    if obj["spec"]["volumeMode"].is_null() {
        obj["spec"]["volumeMode"] = json!("Filesystem");
    }
}

/// `SetDefaults_StorageClass`.
pub fn storage_class(obj: &mut Value) {
    if obj["reclaimPolicy"].is_null() {
        obj["reclaimPolicy"] = json!("Delete");
    }
    if obj["volumeBindingMode"].is_null() {
        obj["volumeBindingMode"] = json!("Immediate");
    }
}

/// `SetDefaults_HorizontalPodAutoscaler` (autoscaling/v2): `minReplicas` 1, and without
/// metrics one: CPU at 80 % average utilization.
pub fn hpa(obj: &mut Value) {
    if obj["spec"]["minReplicas"].is_null() {
        obj["spec"]["minReplicas"] = json!(1);
    }
    if obj["spec"]["metrics"].as_array().is_none_or(Vec::is_empty) {
        obj["spec"]["metrics"] = json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 80}}}]);
    }
}
