//! The scheduler (repel-engine's default profile on a Cluster built from the store) and the
//! kubelets starting (or rejecting) bound pods.

use super::*;

impl Engine {
    pub(super) fn schedule(&mut self) {
        let (pods, _) = self.app.store.list("pods", None);
        let mut pending: Vec<&Value> = pods
            .iter()
            .filter(|p| {
                node_name_of(p).is_none()
                    && !is_terminal(p)
                    && p["metadata"]["deletionTimestamp"].is_null()
                    && p["spec"]["schedulerName"]
                        .as_str()
                        .is_none_or(|s| s == "default-scheduler")
            })
            .collect();
        if pending.is_empty() {
            return;
        }
        pending.sort_by(|a, b| {
            let ka = (
                a["metadata"]["creationTimestamp"].as_str(),
                a["metadata"]["resourceVersion"]
                    .as_str()
                    .and_then(|r| r.parse::<u64>().ok()),
            );
            let kb = (
                b["metadata"]["creationTimestamp"].as_str(),
                b["metadata"]["resourceVersion"]
                    .as_str()
                    .and_then(|r| r.parse::<u64>().ok()),
            );
            ka.cmp(&kb)
        });
        let mut cluster = self.build_cluster(&pods);
        // kube-scheduler's queue (PrioritySort): higher priority first, then creation order.
        let mut queue: Vec<(usize, &Value)> = pending
            .into_iter()
            .filter_map(|p| {
                let (ns, name) = ns_name(p);
                cluster.pod_id(&ns, &name).map(|id| (id, p))
            })
            .collect();
        queue.sort_by_key(|(id, _)| std::cmp::Reverse(cluster.pods[*id].priority));
        let ids: Vec<usize> = queue.iter().map(|(id, _)| *id).collect();
        // The compiled engine: the reference scheduler's placements, computed from classes.
        let placements = self.scheduler.schedule_each(&mut cluster, &ids);
        let by_pod: HashMap<usize, &Value> = queue.into_iter().collect();
        let mut ops = Vec::new();
        let mut deletes = Vec::new();
        for placement in placements {
            let Some(p) = by_pod.get(&placement.pod).copied() else {
                continue;
            };
            let (ns, name) = ns_name(p);
            let mut new = p.clone();
            let now = time::now_rfc3339();
            match placement.outcome {
                Outcome::Scheduled { node, .. } => {
                    let node_name = cluster.nodes[node].name.clone();
                    new["spec"]["nodeName"] = json!(node_name);
                    set_pod_condition(
                        &mut new,
                        json!({"type": "PodScheduled", "status": "True", "lastTransitionTime": now}),
                    );
                    ops.push(put("pods", new));
                    let msg = format!("Successfully assigned {ns}/{name} to {node_name}");
                    ops.push(put(
                        "events",
                        event(p, "Pod", "Normal", "Scheduled", &msg, "default-scheduler"),
                    ));
                }
                Outcome::Unschedulable { message, nominated } => {
                    if let Some((node, victims)) = nominated {
                        new["status"]["nominatedNodeName"] =
                            json!(cluster.nodes[node].name.clone());
                        for v in victims {
                            if let Some(vi) = cluster.pods.get(v) {
                                deletes.push((vi.namespace.clone(), vi.name.clone()));
                            }
                        }
                    }
                    let cond = json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message, "lastTransitionTime": now});
                    let changed = set_pod_condition(&mut new, cond);
                    if changed || new != *p {
                        ops.push(put("pods", new));
                        ops.push(put(
                            "events",
                            event(
                                p,
                                "Pod",
                                "Warning",
                                "FailedScheduling",
                                &message,
                                "default-scheduler",
                            ),
                        ));
                    }
                }
            }
        }
        self.write(ops);
        for (ns, name) in deletes {
            let _ = delete_pod(&self.app.store, &ns, &name, None);
        }
    }

    pub(super) fn build_cluster(&self, pods: &[Value]) -> Cluster {
        let mut cluster = Cluster::new();
        let (nodes, _) = self.app.store.list("nodes", None);
        for n in nodes.iter().filter_map(typed::<Node>) {
            let mut n = n;
            assume_allocatable(&mut n);
            cluster.add_node(n);
        }
        let (nss, _) = self.app.store.list("namespaces", None);
        cluster.namespaces = nss.iter().filter_map(typed::<Namespace>).collect();
        let (pdbs, _) = self.app.store.list("poddisruptionbudgets", None);
        cluster.pdbs = pdbs
            .iter()
            .filter_map(typed::<PodDisruptionBudget>)
            .collect();
        for res in ["replicasets", "statefulsets", "daemonsets", "jobs"] {
            let (ws, _) = self.app.store.list(res, None);
            for v in ws {
                let w = match res {
                    "replicasets" => typed(&v).map(Workload::ReplicaSet),
                    "statefulsets" => typed(&v).map(Workload::StatefulSet),
                    "daemonsets" => typed(&v).map(Workload::DaemonSet),
                    _ => typed(&v).map(Workload::Job),
                };
                if let Some(w) = w {
                    let name = w.name().to_string();
                    cluster.register_workload(&w, &name);
                }
            }
        }
        for p in pods
            .iter()
            .filter(|p| !is_terminal(p))
            .filter_map(typed::<Pod>)
        {
            cluster.add_pod(p);
        }
        cluster
    }

    pub(super) fn kubelets(&mut self) {
        let (pods, _) = self.app.store.list("pods", None);
        let mut nodes: BTreeMap<String, Option<Value>> = BTreeMap::new();
        let mut ops = Vec::new();
        for p in pods {
            let Some(node_name) = node_name_of(&p) else {
                continue;
            };
            if terminating(&p) {
                // The node's kubelet stops the pod and the deletion completes; a stopped
                // kubelet leaves it Terminating until it is back.
                let node = nodes
                    .entry(node_name.to_string())
                    .or_insert_with(|| self.app.store.get("nodes", "", node_name))
                    .clone();
                let kubelet_up = node.as_ref().is_none_or(|n| {
                    n["metadata"]["annotations"][HEARTBEAT_ANNOTATION] != "stopped"
                });
                if kubelet_up {
                    let (ns, name) = ns_name(&p);
                    let _ = self.app.store.delete("pods", &ns, &name);
                }
                continue;
            }
            let not_ready = p["status"]["phase"] == "Running"
                && p["status"]["conditions"].as_array().is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c["type"] == "Ready" && c["status"] == "False")
                });
            if p["status"]["phase"] != "Pending" && !p["status"]["phase"].is_null() && !not_ready {
                continue;
            }
            let node = nodes
                .entry(node_name.to_string())
                .or_insert_with(|| self.app.store.get("nodes", "", node_name))
                .clone();
            let Some(node) = node.filter(is_ready) else {
                continue;
            };
            if node["metadata"]["annotations"][HEARTBEAT_ANNOTATION] == "stopped" {
                continue;
            }
            let mut new = p.clone();
            let taints: Vec<Taint> = typed(&node["spec"]["taints"]).unwrap_or_default();
            let tolerations: Vec<Toleration> = typed(&p["spec"]["tolerations"]).unwrap_or_default();
            let rejected = repel_core::find_matching_untolerated_taint(
                &taints,
                &tolerations,
                |t| t.effect == "NoExecute",
                &self.app.admission.gates,
            )
            .is_some();
            if rejected {
                // Kubelet admission (upstream predicate.go): a pod bound, by spec.nodeName, to a
                // node with a NoExecute taint it does not tolerate fails.
                new["status"]["phase"] = json!("Failed");
                new["status"]["reason"] = json!(kubelet::REASON);
                new["status"]["message"] =
                    json!(format!("{}{}", kubelet::STATUS_PREFIX, kubelet::MESSAGE));
                ops.push(put(
                    "events",
                    event(
                        &p,
                        "Pod",
                        "Warning",
                        kubelet::REASON,
                        kubelet::MESSAGE,
                        "kubelet",
                    ),
                ));
            } else {
                run_pod(&mut new, &node);
            }
            ops.push(put("pods", new));
        }
        self.write(ops);
    }
}

/// Sets a pod condition by type; returns whether its status, reason or message changed.
fn set_pod_condition(pod: &mut Value, cond: Value) -> bool {
    if !pod["status"]["conditions"].is_array() {
        pod["status"]["conditions"] = json!([]);
    }
    let Some(cs) = pod
        .pointer_mut("/status/conditions")
        .and_then(Value::as_array_mut)
    else {
        return false;
    };
    match cs.iter_mut().find(|c| c["type"] == cond["type"]) {
        Some(c) => {
            let changed = c["status"] != cond["status"]
                || c["reason"] != cond["reason"]
                || c["message"] != cond["message"];
            if changed {
                *c = cond;
            }
            changed
        }
        None => {
            cs.push(cond);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_condition_is_replaced_by_type() {
        let mut p = json!({"status": {}});
        assert!(set_pod_condition(
            &mut p,
            json!({"type": "PodScheduled", "status": "False", "message": "x"})
        ));
        assert!(!set_pod_condition(
            &mut p,
            json!({"type": "PodScheduled", "status": "False", "message": "x"})
        ));
        assert!(set_pod_condition(
            &mut p,
            json!({"type": "PodScheduled", "status": "True"})
        ));
        assert_eq!(p["status"]["conditions"].as_array().unwrap().len(), 1);
    }
}
