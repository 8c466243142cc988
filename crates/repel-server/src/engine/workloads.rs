//! The workload controllers: Deployment → ReplicaSet → pods (a changed template replaces the
//! old ReplicaSet at once), StatefulSet, DaemonSet, Job, and the status fields kubectl prints.

use super::*;

impl Engine {
    pub(super) fn create_pod(&self, pod: &Pod) -> Option<Value> {
        let r = crate::resources::find("", "pods")?;
        let v = serde_json::to_value(pod).ok()?;
        let ns = pod
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| "default".into());
        let none = HashMap::new();
        let admitted = self
            .app
            .admission
            .create(&self.app.store, &r, Some(&ns), v, &none)
            .ok()?;
        self.app.store.create("pods", admitted).ok()
    }

    pub(super) fn workloads(&mut self) {
        let (pods, _) = self.app.store.list("pods", None);
        let mut owned: HashMap<(String, String, String), Vec<&Value>> = HashMap::new();
        for p in pods.iter().filter(|p| !is_terminal(p) && !terminating(p)) {
            if let Some((k, n)) = controller(p) {
                let (ns, _) = ns_name(p);
                owned.entry((ns, k, n)).or_default().push(p);
            }
        }
        let count = |ns: &str, kind: &str, name: &str| {
            owned
                .get(&(ns.to_string(), kind.to_string(), name.to_string()))
                .map_or(0, Vec::len)
        };
        // Deployments keep one ReplicaSet.
        let (deps, _) = self.app.store.list("deployments", None);
        for d in deps {
            let Some(dep) = typed::<Deployment>(&d) else {
                continue;
            };
            let spec = &dep.spec;
            let hash = pod_template_hash(&spec.template);
            let (ns, name) = ns_name(&d);
            let rs_name = format!("{name}-{hash}");
            let replicas = spec.replicas.unwrap_or(1);
            let mut template = serde_json::to_value(&spec.template).unwrap_or(json!({}));
            template["metadata"]["labels"]["pod-template-hash"] = json!(hash);
            let mut selector = serde_json::to_value(&spec.selector).unwrap_or(json!({}));
            selector["matchLabels"]["pod-template-hash"] = json!(hash);
            let rs = json!({
                "apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {
                    "name": rs_name, "namespace": ns,
                    "labels": template["metadata"]["labels"].clone(),
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name,
                        "uid": d["metadata"]["uid"], "controller": true, "blockOwnerDeletion": true}]
                },
                "spec": {"replicas": replicas, "selector": selector, "template": template}
            });
            match self.app.store.get("replicasets", &ns, &rs_name) {
                None => {
                    let _ = self.app.store.create("replicasets", rs);
                }
                Some(old) if old["spec"]["replicas"] != json!(replicas) => {
                    let mut new = old.clone();
                    new["spec"]["replicas"] = json!(replicas);
                    self.write(vec![put("replicasets", new)]);
                }
                Some(_) => {}
            }
            // A new template replaces the old ReplicaSets at once (no surge, no revision
            // pruning): they are scaled to 0 and kept, as upstream keeps revision history.
            let (rss, _) = self.app.store.list("replicasets", Some(&ns));
            let stale: Vec<(String, Op)> = rss
                .into_iter()
                .filter(|rs| {
                    ns_name(rs).1 != rs_name
                        && rs["spec"]["replicas"] != json!(0)
                        && rs["metadata"]["ownerReferences"]
                            .as_array()
                            .is_some_and(|os| {
                                os.iter().any(|o| {
                                    o["uid"] == d["metadata"]["uid"] && o["controller"] == true
                                })
                            })
                })
                .map(|mut rs| {
                    rs["spec"]["replicas"] = json!(0);
                    put("replicasets", rs)
                })
                .collect();
            self.write(stale);
        }
        let mut to_create: Vec<Pod> = Vec::new();
        let mut to_delete: Vec<(String, String)> = Vec::new();
        let (rss, _) = self.app.store.list("replicasets", None);
        for v in rss {
            let Some(rs) = typed::<ReplicaSet>(&v) else {
                continue;
            };
            let (ns, name) = ns_name(&v);
            let want = rs.spec.replicas.unwrap_or(1).max(0) as usize;
            let have = count(&ns, "ReplicaSet", &name);
            let w = Workload::ReplicaSet(rs);
            for _ in have..want {
                let pod_name = format!("{name}-{}", self.names.suffix(5));
                to_create.extend(controller_pod(&w, pod_name, "ReplicaSet", &name, None));
            }
            if have > want
                && let Some(ps) = owned.get(&(ns.clone(), "ReplicaSet".into(), name.clone()))
            {
                for p in ps.iter().rev().take(have - want) {
                    to_delete.push(ns_name(p));
                }
            }
        }
        let (stss, _) = self.app.store.list("statefulsets", None);
        for v in stss {
            let Some(sts) = typed::<StatefulSet>(&v) else {
                continue;
            };
            let (ns, name) = ns_name(&v);
            let want = sts.spec.replicas.unwrap_or(1).max(0);
            let w = Workload::StatefulSet(sts);
            for i in 0..want {
                let pod_name = format!("{name}-{i}");
                if self.app.store.get("pods", &ns, &pod_name).is_none() {
                    to_create.extend(controller_pod(&w, pod_name, "StatefulSet", &name, None));
                }
            }
        }
        let (dss, _) = self.app.store.list("daemonsets", None);
        if !dss.is_empty() {
            let (nodes, _) = self.app.store.list("nodes", None);
            let typed_nodes: Vec<Node> = nodes.iter().filter_map(typed).collect();
            for v in dss {
                let Some(ds) = typed::<DaemonSet>(&v) else {
                    continue;
                };
                let (ns, name) = ns_name(&v);
                let covered: HashSet<String> = owned
                    .get(&(ns.clone(), "DaemonSet".into(), name.clone()))
                    .map(|ps| ps.iter().filter_map(|p| daemon_target(p)).collect())
                    .unwrap_or_default();
                let targets: Vec<String> =
                    daemon_nodes(&ds, &typed_nodes, &self.app.admission.gates)
                        .iter()
                        .filter_map(|n| n.metadata.name.clone())
                        .collect();
                let w = Workload::DaemonSet(ds);
                for node in targets.iter().filter(|n| !covered.contains(*n)) {
                    let pod_name = format!("{name}-{}", self.names.suffix(5));
                    to_create.extend(controller_pod(&w, pod_name, "DaemonSet", &name, Some(node)));
                }
            }
        }
        let (jobs, _) = self.app.store.list("jobs", None);
        for v in jobs {
            let Some(job) = typed::<Job>(&v) else {
                continue;
            };
            let (ns, name) = ns_name(&v);
            let want = job
                .spec
                .as_ref()
                .and_then(|s| s.parallelism.or(s.completions))
                .unwrap_or(1)
                .max(0) as usize;
            let have = count(&ns, "Job", &name);
            let w = Workload::Job(job);
            for _ in have..want {
                let pod_name = format!("{name}-{}", self.names.suffix(5));
                to_create.extend(controller_pod(&w, pod_name, "Job", &name, None));
            }
        }
        for (ns, name) in to_delete {
            let _ = delete_pod(&self.app.store, &ns, &name, None);
        }
        for p in &to_create {
            self.create_pod(p);
        }
    }

    /// The status fields `kubectl get deploy,rs,sts,ds,pdb` print: replicas, ready, available;
    /// a budget's allowed disruptions (the disruption controller's numbers).
    pub(super) fn workload_status(&self) {
        let (pods, _) = self.app.store.list("pods", None);
        // (ns, kind, name) -> (pods, running pods)
        let mut counts: HashMap<(String, String, String), (i64, i64)> = HashMap::new();
        for p in pods.iter().filter(|p| !is_terminal(p) && !terminating(p)) {
            if let Some((k, n)) = controller(p) {
                let e = counts.entry((ns_name(p).0, k, n)).or_default();
                e.0 += 1;
                if p["status"]["phase"] == "Running" {
                    e.1 += 1;
                }
            }
        }
        let mut ops = Vec::new();
        let mut by_deployment: HashMap<(String, String), (i64, i64)> = HashMap::new();
        for (res, kind) in [
            ("replicasets", "ReplicaSet"),
            ("statefulsets", "StatefulSet"),
            ("daemonsets", "DaemonSet"),
        ] {
            let (objs, _) = self.app.store.list(res, None);
            for o in objs {
                let (ns, name) = ns_name(&o);
                let (total, ready) = counts
                    .get(&(ns.clone(), kind.to_string(), name))
                    .copied()
                    .unwrap_or((0, 0));
                let mut n = o.clone();
                let generation = o["metadata"]["generation"].as_i64().unwrap_or(1);
                n["status"] = match kind {
                    "DaemonSet" => json!({
                        "currentNumberScheduled": total, "desiredNumberScheduled": total,
                        "numberMisscheduled": 0, "numberReady": ready, "numberAvailable": ready,
                        "updatedNumberScheduled": total, "observedGeneration": generation
                    }),
                    "StatefulSet" => json!({
                        "replicas": total, "readyReplicas": ready, "currentReplicas": total,
                        "updatedReplicas": total, "availableReplicas": ready, "observedGeneration": generation
                    }),
                    _ => json!({
                        "replicas": total, "fullyLabeledReplicas": total, "readyReplicas": ready,
                        "availableReplicas": ready, "observedGeneration": generation
                    }),
                };
                if kind == "ReplicaSet"
                    && let Some((k, dn)) = controller(&o)
                    && k == "Deployment"
                {
                    let e = by_deployment.entry((ns, dn)).or_default();
                    e.0 += total;
                    e.1 += ready;
                }
                if n != o {
                    ops.push(put(res, n));
                }
            }
        }
        let (pdbs, _) = self.app.store.list("poddisruptionbudgets", None);
        for v in pdbs {
            let Some(pdb) = typed::<PodDisruptionBudget>(&v) else {
                continue;
            };
            let (ns, _) = ns_name(&v);
            let ns_pods: Vec<Value> = pods
                .iter()
                .filter(|p| ns_name(p).0 == ns)
                .cloned()
                .collect();
            let Some(b) = crate::eviction::budget(&pdb, &ns_pods) else {
                continue;
            };
            let mut n = v.clone();
            n["status"] = json!({
                "disruptionsAllowed": b.allowed, "currentHealthy": b.healthy,
                "desiredHealthy": b.desired, "expectedPods": b.expected,
                "observedGeneration": v["metadata"]["generation"].as_i64().unwrap_or(1)
            });
            if n != v {
                ops.push(put("poddisruptionbudgets", n));
            }
        }
        let (deps, _) = self.app.store.list("deployments", None);
        for d in deps {
            let (ns, name) = ns_name(&d);
            let (total, ready) = by_deployment.get(&(ns, name)).copied().unwrap_or((0, 0));
            let want = d["spec"]["replicas"].as_i64().unwrap_or(1);
            let mut n = d.clone();
            n["status"] = json!({
                "replicas": total, "updatedReplicas": total, "readyReplicas": ready,
                "availableReplicas": ready, "unavailableReplicas": (want - ready).max(0),
                "observedGeneration": d["metadata"]["generation"].as_i64().unwrap_or(1)
            });
            if let Some(m) = n["status"].as_object_mut() {
                m.retain(|_, v| v != &json!(0));
            }
            if n != d {
                ops.push(put("deployments", n));
            }
        }
        self.write(ops);
    }
}

/// The node a DaemonSet pod is pinned to (its `spec.nodeName`, or the node affinity term the
/// DaemonSet controller sets).
fn daemon_target(p: &Value) -> Option<String> {
    if let Some(n) = node_name_of(p) {
        return Some(n.to_string());
    }
    let terms = p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"].as_array()?;
    terms.iter().find_map(|t| {
        t["matchFields"].as_array()?.iter().find_map(|f| {
            (f["key"] == "metadata.name")
                .then(|| f["values"][0].as_str().map(str::to_string))
                .flatten()
        })
    })
}
