//! Kubelets registering and heartbeating, and the node-lifecycle controller: conditions and
//! the condition taints.

use super::*;

fn condition_status<'a>(node: &'a Value, kind: &str) -> Option<&'a str> {
    node["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)?["status"]
        .as_str()
}

/// The condition taints a node should carry for its Ready condition (upstream node-lifecycle
/// controller and TaintNodesByCondition): False → not-ready, Unknown → unreachable, each
/// NoSchedule and NoExecute; True → none.
fn condition_taint_key(node: &Value) -> Option<&'static str> {
    match condition_status(node, "Ready") {
        Some("False") => Some(TAINT_NODE_NOT_READY),
        Some("Unknown") => Some(TAINT_NODE_UNREACHABLE),
        _ => None,
    }
}

fn sync_condition_taints(node: &mut Value) {
    let want = condition_taint_key(node);
    let mut taints: Vec<Value> = node["spec"]["taints"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let before = taints.clone();
    taints.retain(|t| {
        let k = t["key"].as_str().unwrap_or("");
        let managed = k == TAINT_NODE_NOT_READY || k == TAINT_NODE_UNREACHABLE;
        !managed || Some(k) == want
    });
    if let Some(key) = want {
        for effect in ["NoSchedule", "NoExecute"] {
            if !taints
                .iter()
                .any(|t| t["key"] == key && t["effect"] == effect)
            {
                taints
                    .push(json!({"key": key, "effect": effect, "timeAdded": time::now_rfc3339()}));
            }
        }
    }
    if taints != before {
        if taints.is_empty() {
            if let Some(spec) = node.pointer_mut("/spec").and_then(Value::as_object_mut) {
                spec.remove("taints");
            }
        } else {
            node["spec"]["taints"] = json!(taints);
        }
    }
}

fn set_all_unknown(node: &mut Value) {
    let now = time::now_rfc3339();
    if let Some(cs) = node
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
    {
        for c in cs {
            c["status"] = json!("Unknown");
            c["reason"] = json!("NodeStatusUnknown");
            c["message"] = json!("Kubelet stopped posting node status.");
            c["lastTransitionTime"] = json!(now);
        }
    }
}

/// Upstream `MarkPodsNotReady`: the pods of a node that went Unknown get `Ready=False`, with
/// the node controller's `NodeNotReady` warning each.
fn mark_pods_not_ready(store: &crate::store::Store, node: &str) -> Vec<(String, Op)> {
    let (pods, _) = store.list("pods", None);
    let now = time::now_rfc3339();
    let mut ops = Vec::new();
    for p in pods
        .iter()
        .filter(|p| node_name_of(p) == Some(node) && !is_terminal(p))
    {
        let mut n = p.clone();
        if let Some(cs) = n
            .pointer_mut("/status/conditions")
            .and_then(Value::as_array_mut)
        {
            for c in cs
                .iter_mut()
                .filter(|c| c["type"] == "Ready" && c["status"] != "False")
            {
                c["status"] = json!("False");
                c["lastTransitionTime"] = json!(now);
            }
        }
        if n != *p {
            ops.push(put("pods", n));
            ops.push(put(
                "events",
                event(
                    p,
                    "Pod",
                    "Warning",
                    "NodeNotReady",
                    "Node is not ready",
                    "node-controller",
                ),
            ));
        }
    }
    ops
}

impl Engine {
    pub(super) fn nodes(&mut self, now: Instant) {
        let (nodes, _) = self.app.store.list("nodes", None);
        let mut ops = Vec::new();
        let renew = self
            .last_lease
            .is_none_or(|t| now.saturating_duration_since(t) >= LEASE_PERIOD);
        let mut seen = HashSet::new();
        for node in nodes {
            let (_, name) = ns_name(&node);
            seen.insert(name.clone());
            let mut n = node.clone();
            let registering = n["status"]["nodeInfo"].is_null();
            if registering {
                join_node(&mut n);
                let msg = format!("Node {name} event: Registered Node {name} in Controller");
                ops.push(put(
                    "events",
                    event(
                        &n,
                        "Node",
                        "Normal",
                        "RegisteredNode",
                        &msg,
                        "node-controller",
                    ),
                ));
            }
            let stopped = n["metadata"]["annotations"][HEARTBEAT_ANNOTATION] == "stopped";
            if stopped {
                let since = *self.stopped.entry(name.clone()).or_insert(now);
                if self.cluster_seconds_since(since, now) >= NODE_MONITOR_GRACE_SECONDS
                    && condition_status(&n, "Ready") != Some("Unknown")
                {
                    set_all_unknown(&mut n);
                    let msg = format!("Node {name} status is now: NodeNotReady");
                    ops.push(put(
                        "events",
                        event(
                            &n,
                            "Node",
                            "Normal",
                            "NodeNotReady",
                            &msg,
                            "node-controller",
                        ),
                    ));
                    ops.extend(mark_pods_not_ready(&self.app.store, &name));
                }
            } else {
                self.stopped.remove(&name);
                let unknown_by_us = n["status"]["conditions"].as_array().is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c["type"] == "Ready" && c["reason"] == "NodeStatusUnknown")
                });
                if unknown_by_us {
                    n["status"]["conditions"] = healthy_conditions(&time::now_rfc3339());
                    let msg = format!("Node {name} status is now: NodeReady");
                    ops.push(put(
                        "events",
                        event(&n, "Node", "Normal", "NodeReady", &msg, "kubelet"),
                    ));
                }
            }
            sync_condition_taints(&mut n);
            if n != node {
                ops.push(put("nodes", n));
            }
            if (renew && !stopped) || registering {
                let mut l = lease(&name, node["metadata"]["uid"].as_str());
                if let Some(old) = self.app.store.get("leases", LEASE_NAMESPACE, &name) {
                    l["metadata"] = old["metadata"].clone();
                    l["spec"]["acquireTime"] = old["spec"]["acquireTime"].clone();
                }
                ops.push(put("leases", l));
            }
        }
        self.stopped.retain(|n, _| seen.contains(n));
        if renew {
            self.last_lease = Some(now);
        }
        self.write(ops);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(ready: &str, taints: Value) -> Value {
        json!({"metadata": {"name": "n"}, "spec": {"taints": taints},
               "status": {"conditions": [{"type": "Ready", "status": ready}]}})
    }

    #[test]
    fn condition_taints_follow_the_ready_condition() {
        let mut n = node("Unknown", json!([{"key": "a", "effect": "NoSchedule"}]));
        sync_condition_taints(&mut n);
        let keys: Vec<String> = n["spec"]["taints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                format!(
                    "{}:{}",
                    t["key"].as_str().unwrap(),
                    t["effect"].as_str().unwrap()
                )
            })
            .collect();
        assert_eq!(
            keys,
            vec![
                "a:NoSchedule",
                "node.kubernetes.io/unreachable:NoSchedule",
                "node.kubernetes.io/unreachable:NoExecute"
            ]
        );
        assert!(n["spec"]["taints"][2]["timeAdded"].is_string());
        n["status"]["conditions"][0]["status"] = json!("True");
        sync_condition_taints(&mut n);
        assert_eq!(
            n["spec"]["taints"],
            json!([{"key": "a", "effect": "NoSchedule"}])
        );
        let mut bare = node("True", json!(null));
        bare["spec"] = json!({});
        sync_condition_taints(&mut bare);
        assert_eq!(
            bare["spec"],
            json!({}),
            "a healthy node gets no taints field"
        );
    }
}
