//! What the simulated kubelets report: a node's status when it joins (Ready, addresses,
//! nodeInfo, capacity), its Lease in `kube-node-lease`, and a bound pod's status when it runs.
//! Also the seeding of a fresh store from the starting cluster's objects.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde_json::{Value, json};

use crate::store::{Store, StoreError, ns_name};
use crate::{App, ServerError, registry, time};

/// The namespaces every cluster has.
pub const SYSTEM_NAMESPACES: &[&str] =
    &["default", "kube-node-lease", "kube-public", "kube-system"];

/// The kubelet version simulated nodes report.
pub const KUBELET_VERSION: &str = "v1.32.0";

/// The namespace of node Leases.
pub const LEASE_NAMESPACE: &str = "kube-node-lease";

fn small_hash(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

fn ip_for(prefix: &str, name: &str) -> String {
    let h = small_hash(name);
    format!("{prefix}.{}.{}", (h >> 8) % 250 + 1, h % 250 + 2)
}

/// `MicroTime` as upstream writes it (`2026-11-30T10:00:00.000000Z`).
pub fn micro_time_now() -> String {
    time::now().strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

fn condition(kind: &str, status: &str, reason: &str, message: &str, now: &str) -> Value {
    json!({
        "type": kind,
        "status": status,
        "lastHeartbeatTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message
    })
}

/// The conditions of a healthy node, as the kubelet posts them.
pub fn healthy_conditions(now: &str) -> Value {
    json!([
        condition(
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
            now
        ),
        condition(
            "DiskPressure",
            "False",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
            now
        ),
        condition(
            "PIDPressure",
            "False",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
            now
        ),
        condition(
            "Ready",
            "True",
            "KubeletReady",
            "kubelet is posting ready status",
            now
        ),
    ])
}

/// Fills what a joining node's kubelet reports and is missing: well-known labels, addresses,
/// nodeInfo, capacity/allocatable, healthy conditions. A node whose manifest has conditions
/// keeps them (their times set where missing). The `node.kubernetes.io/not-ready` taint of TaintNodesByCondition goes once
/// the node is Ready (the node-lifecycle controller's doing).
pub fn join_node(node: &mut Value) {
    let (_, name) = ns_name(node);
    let now = time::now_rfc3339();
    for (k, v) in [
        ("kubernetes.io/hostname", name.as_str()),
        ("kubernetes.io/os", "linux"),
        ("kubernetes.io/arch", "amd64"),
        ("beta.kubernetes.io/os", "linux"),
        ("beta.kubernetes.io/arch", "amd64"),
    ] {
        if node["metadata"]["labels"][k].is_null() {
            node["metadata"]["labels"][k] = json!(v);
        }
    }
    let st = &mut node["status"];
    // A kubelet reports capacity and allocatable (capacity less its reservations), so never
    // an allocatable above the capacity: a node given only one has the other equal to it.
    match (st["capacity"].is_null(), st["allocatable"].is_null()) {
        (true, true) => {
            st["capacity"] =
                json!({"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"});
            st["allocatable"] = st["capacity"].clone();
        }
        (true, false) => st["capacity"] = st["allocatable"].clone(),
        (false, true) => st["allocatable"] = st["capacity"].clone(),
        (false, false) => {}
    }
    if st["addresses"].is_null() {
        st["addresses"] = json!([
            {"type": "InternalIP", "address": ip_for("10.0", &name)},
            {"type": "Hostname", "address": name}
        ]);
    }
    if st["nodeInfo"].is_null() {
        let id = format!(
            "{:016x}{:016x}",
            small_hash(&name),
            small_hash(&format!("{name}/boot"))
        );
        st["nodeInfo"] = json!({
            "machineID": id,
            "systemUUID": id,
            "bootID": id,
            "kernelVersion": "6.1.0-repel",
            "osImage": "repel simulated node",
            "containerRuntimeVersion": "repel://1.0.0",
            "kubeletVersion": KUBELET_VERSION,
            "kubeProxyVersion": "",
            "operatingSystem": "linux",
            "architecture": "amd64"
        });
    }
    if st["conditions"].is_null() {
        st["conditions"] = healthy_conditions(&now);
    } else if let Some(cs) = st["conditions"].as_array_mut() {
        complete_conditions(cs, &now);
    }
    if is_ready(node)
        && let Some(taints) = node
            .pointer_mut("/spec/taints")
            .and_then(Value::as_array_mut)
    {
        taints.retain(|t| {
            !(t["key"] == "node.kubernetes.io/not-ready" && t["effect"] == "NoSchedule")
        });
        if taints.is_empty()
            && let Some(spec) = node.pointer_mut("/spec").and_then(Value::as_object_mut)
        {
            spec.remove("taints");
        }
    }
}

/// Upstream's reason and message for a condition the kubelet stopped posting
/// (node lifecycle controller, `tryUpdateNodeHealth`).
pub const NODE_STATUS_UNKNOWN: (&str, &str) =
    ("NodeStatusUnknown", "Kubelet stopped posting node status.");

/// A manifest's conditions as a kubelet posts them: the pressure conditions a manifest left
/// out are added (healthy, or Unknown as the node lifecycle controller marks every condition
/// of a node whose Ready is Unknown), in the kubelet's order (MemoryPressure, DiskPressure,
/// PIDPressure, Ready, then any other), and every condition gets heartbeat and transition times
/// where it has none (`kubectl describe node` prints them).
fn complete_conditions(cs: &mut Vec<Value>, now: &str) {
    let unknown = cs
        .iter()
        .any(|c| c["type"] == "Ready" && c["status"] == "Unknown");
    let healthy = healthy_conditions(now);
    let mut ordered = Vec::new();
    for h in healthy.as_array().into_iter().flatten() {
        match cs.iter().position(|c| c["type"] == h["type"]) {
            Some(i) => ordered.push(cs.remove(i)),
            None if unknown => {
                let (reason, message) = NODE_STATUS_UNKNOWN;
                let ty = h["type"].as_str().unwrap_or("");
                ordered.push(condition(ty, "Unknown", reason, message, now));
            }
            None => ordered.push(h.clone()),
        }
    }
    ordered.append(cs);
    for c in ordered.iter_mut().filter(|c| c.is_object()) {
        for key in ["lastHeartbeatTime", "lastTransitionTime"] {
            if c[key].is_null() {
                c[key] = json!(now);
            }
        }
    }
    *cs = ordered;
}

/// Whether a node's Ready condition is True.
pub fn is_ready(node: &Value) -> bool {
    node["status"]["conditions"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| c["type"] == "Ready" && c["status"] == "True")
    })
}

/// The Lease a node's kubelet renews.
pub fn lease(node_name: &str, uid: Option<&str>) -> Value {
    let now = micro_time_now();
    let mut l = json!({
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": node_name, "namespace": LEASE_NAMESPACE},
        "spec": {
            "holderIdentity": node_name,
            "leaseDurationSeconds": 40,
            "acquireTime": now,
            "renewTime": now
        }
    });
    if let Some(uid) = uid {
        l["metadata"]["ownerReferences"] = json!([{
            "apiVersion": "v1", "kind": "Node", "name": node_name, "uid": uid
        }]);
    }
    l
}

/// A bound pod's status once its node runs it: Running, Ready, one running status per
/// container, pod and host IPs.
pub fn run_pod(pod: &mut Value, node: &Value) {
    let now = time::now_rfc3339();
    let (ns, name) = ns_name(pod);
    let host_ip = node["status"]["addresses"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["type"] == "InternalIP"))
        .map(|x| x["address"].clone())
        .unwrap_or(json!(""));
    let statuses: Vec<Value> = pod["spec"]["containers"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    json!({
                        "name": c["name"],
                        "image": c["image"],
                        "imageID": "",
                        "ready": true,
                        "started": true,
                        "restartCount": 0,
                        "state": {"running": {"startedAt": now}}
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    // A hostNetwork pod shares its node's network namespace: its IP is the node's.
    let host_network = pod["spec"]["hostNetwork"].as_bool() == Some(true);
    let pod_ip = if host_network {
        host_ip.as_str().unwrap_or("").to_string()
    } else {
        ip_for("10.244", &format!("{ns}/{name}"))
    };
    let st = &mut pod["status"];
    st["phase"] = json!("Running");
    st["conditions"] = json!([
        {"type": "PodReadyToStartContainers", "status": "True", "lastTransitionTime": now},
        {"type": "Initialized", "status": "True", "lastTransitionTime": now},
        {"type": "Ready", "status": "True", "lastTransitionTime": now},
        {"type": "ContainersReady", "status": "True", "lastTransitionTime": now},
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": now}
    ]);
    st["hostIP"] = host_ip.clone();
    st["hostIPs"] = json!([{"ip": host_ip}]);
    st["podIP"] = json!(pod_ip);
    st["podIPs"] = json!([{"ip": pod_ip}]);
    if st["startTime"].is_null() {
        st["startTime"] = json!(now);
    }
    st["containerStatuses"] = json!(statuses);
}

/// Deletes a pod as the API server does. A pod on a node whose kubelet would stop it is only
/// marked (`deletionTimestamp`, `deletionGracePeriodSeconds`: `kubectl get` shows it
/// Terminating) and the node's simulated kubelet removes it at its next pass, or, if that
/// kubelet is stopped, once it is back. A pod that is unbound, finished, on a node that does
/// not exist, or deleted with a grace period of 0 goes at once.
pub fn delete_pod(
    store: &Store,
    ns: &str,
    name: &str,
    grace: Option<i64>,
) -> Result<Value, StoreError> {
    let pod = store.get("pods", ns, name).ok_or(StoreError::NotFound)?;
    let terminal = matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    );
    let on_node = pod["spec"]["nodeName"]
        .as_str()
        .filter(|n| !n.is_empty())
        .is_some_and(|n| store.get("nodes", "", n).is_some());
    let grace = grace
        .or_else(|| pod["spec"]["terminationGracePeriodSeconds"].as_i64())
        .unwrap_or(30);
    if !on_node || terminal || grace <= 0 {
        return store.delete("pods", ns, name);
    }
    if !pod["metadata"]["deletionTimestamp"].is_null() {
        return Ok(pod);
    }
    store.modify::<StoreError>("pods", ns, name, |cur| {
        let mut p = cur.clone();
        p["metadata"]["deletionTimestamp"] = json!(time::now_rfc3339());
        p["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
        Ok(Some(p))
    })
}

/// Whether a pod is being deleted (has a `deletionTimestamp`).
pub fn terminating(pod: &Value) -> bool {
    !pod["metadata"]["deletionTimestamp"].is_null()
}

fn seed_order(obj: &Value) -> u8 {
    match obj["kind"].as_str().unwrap_or("") {
        "Namespace" | "CustomResourceDefinition" => 0,
        "PriorityClass" => 1,
        "Node" => 2,
        "Pod" => 4,
        _ => 3,
    }
}

/// Loads the starting cluster into a fresh store: the system namespaces, the namespaces the
/// objects use, then every object through admission (nodes join Ready with their Lease; pods
/// with `spec.nodeName` run). Kinds the server does not serve are skipped. An object the API
/// server would refuse is left out, with a warning (`Kind/ns/name: message`) in the result.
pub fn seed(app: &App, objects: &[Value]) -> Result<Vec<String>, ServerError> {
    let restored = restore_uids(objects);
    let objects = restored.as_slice();
    let mut warnings = Vec::new();
    let mut namespaces: Vec<String> = SYSTEM_NAMESPACES.iter().map(|s| s.to_string()).collect();
    for o in objects {
        if let Some(ns) = o["metadata"]["namespace"].as_str()
            && !namespaces.iter().any(|n| n == ns)
        {
            namespaces.push(ns.to_string());
        }
    }
    let declared: Vec<&str> = objects
        .iter()
        .filter(|o| o["kind"] == "Namespace")
        .filter_map(|o| o["metadata"]["name"].as_str())
        .collect();
    let none = std::collections::HashMap::new();
    let nsr = registry::find("", "namespaces");
    for ns in namespaces
        .iter()
        .filter(|n| !declared.contains(&n.as_str()))
    {
        if let Some(r) = &nsr {
            let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
            let obj = app
                .admission
                .create(&app.store, r, None, obj, &none)
                .map_err(|e| seed_error("Namespace", ns, &e.1))?;
            app.store
                .create("namespaces", obj)
                .map_err(|e| seed_error("Namespace", ns, &json!({"message": e.to_string()})))?;
        }
    }
    let mut sorted: Vec<&Value> = objects.iter().collect();
    sorted.sort_by_key(|o| seed_order(o));
    for o in sorted {
        let av = o["apiVersion"].as_str().unwrap_or("");
        let kind = o["kind"].as_str().unwrap_or("");
        let Some(r) = app.registry.by_kind(av, kind) else {
            continue;
        };
        let (ns, name) = ns_name(o);
        let label = if ns.is_empty() {
            format!("{kind}/{name}")
        } else {
            format!("{kind}/{ns}/{name}")
        };
        let ns_opt = if r.namespaced {
            Some(if ns.is_empty() {
                "default"
            } else {
                ns.as_str()
            })
        } else {
            None
        };
        let status = o.get("status").cloned();
        let uid = o["metadata"]["uid"].as_str();
        let mut obj =
            match app
                .admission
                .create_restored(&app.store, &r, ns_opt, o.clone(), &none, uid)
            {
                Ok(obj) => obj,
                Err(e) => {
                    let msg = e.1["message"].as_str().unwrap_or("refused").to_string();
                    warnings.push(format!("{label}: {msg}"));
                    continue;
                }
            };
        // A manifest's status is what the cluster reported; keep it (admission resets pods').
        if let Some(s) = status
            && r.kind != "Pod"
        {
            obj["status"] = s;
        }
        match r.key() {
            "nodes" => {
                join_node(&mut obj);
                let stored = app
                    .store
                    .create("nodes", obj)
                    .map_err(|e| seed_error(&label, "", &json!({"message": e.to_string()})))?;
                let uid = stored["metadata"]["uid"].as_str().map(str::to_string);
                let _ = app.store.create("leases", lease(&name, uid.as_deref()));
                continue;
            }
            "pods" => {
                if let Some(node_name) = obj["spec"]["nodeName"].as_str().filter(|n| !n.is_empty())
                    && let Some(node) = app.store.get("nodes", "", node_name)
                {
                    run_pod(&mut obj, &node);
                }
            }
            _ => {}
        }
        app.store
            .create(r.key(), obj)
            .map_err(|e| seed_error(&label, "", &json!({"message": e.to_string()})))?;
        if r.key() == "customresourcedefinitions" {
            app.sync_crds();
        }
    }
    Ok(warnings)
}

/// A starting cluster is restored state, so its objects keep their identities:
/// 1. an object keeps the uid it has;
/// 2. one without a uid takes the uid its dependents' `ownerReferences` give it (kind and
///    name, in the dependent's namespace or cluster-scoped), else a new one;
/// 3. an owner reference without a uid gets its owner's.
///
/// So `serve`'s controllers, `snapshot` and every `--kubeconfig` command agree with the files
/// about who owns what.
pub fn restore_uids(objects: &[Value]) -> Vec<Value> {
    use std::collections::HashMap;
    type Key = (String, String, String);
    let key = |kind: &str, ns: &str, name: &str| -> Key {
        (kind.to_string(), ns.to_string(), name.to_string())
    };
    let refs = |o: &Value| -> Vec<(String, String, String)> {
        o["metadata"]["ownerReferences"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| {
                        let s = |f: &str| r[f].as_str().unwrap_or("").to_string();
                        (s("kind"), s("name"), s("uid"))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut referenced: HashMap<Key, String> = HashMap::new();
    for o in objects {
        let ns = o["metadata"]["namespace"].as_str().unwrap_or("");
        for (kind, name, uid) in refs(o) {
            if !uid.is_empty() {
                referenced.entry(key(&kind, ns, &name)).or_insert(uid);
            }
        }
    }
    let mut out: Vec<Value> = objects.to_vec();
    let mut uids: HashMap<Key, String> = HashMap::new();
    for o in &mut out {
        let kind = o["kind"].as_str().unwrap_or("").to_string();
        let ns = o["metadata"]["namespace"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let name = o["metadata"]["name"].as_str().unwrap_or("").to_string();
        if !o["metadata"].is_object() || name.is_empty() {
            continue;
        }
        let uid = match o["metadata"]["uid"].as_str().filter(|u| !u.is_empty()) {
            Some(u) => u.to_string(),
            None => {
                let from_refs = referenced
                    .get(&key(&kind, &ns, &name))
                    .or_else(|| referenced.get(&key(&kind, "", &name)))
                    .cloned();
                let u = from_refs.unwrap_or_else(crate::store::new_uid);
                o["metadata"]["uid"] = json!(u);
                u
            }
        };
        uids.insert(key(&kind, &ns, &name), uid);
    }
    for o in &mut out {
        let ns = o["metadata"]["namespace"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let Some(list) = o["metadata"]["ownerReferences"].as_array_mut() else {
            continue;
        };
        for r in list {
            if r["uid"].as_str().is_some_and(|u| !u.is_empty()) {
                continue;
            }
            let kind = r["kind"].as_str().unwrap_or("");
            let name = r["name"].as_str().unwrap_or("");
            if let Some(u) = uids
                .get(&key(kind, &ns, name))
                .or_else(|| uids.get(&key(kind, "", name)))
            {
                r["uid"] = json!(u);
            }
        }
    }
    out
}

fn seed_error(object: &str, name: &str, body: &Value) -> ServerError {
    let object = if name.is_empty() {
        object.to_string()
    } else {
        format!("{object}/{name}")
    };
    ServerError::Seed {
        object,
        message: body["message"].as_str().unwrap_or("refused").to_string(),
    }
}
