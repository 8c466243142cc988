//! The scenario's object steps on the simulated cluster, as kubectl would make them: objects
//! applied (`kubectl apply -f`), pods updated, objects deleted (background deletion: the
//! garbage collector takes dependents), workloads scaled, and `kubectl drain` retried as
//! kubectl retries an eviction a PodDisruptionBudget refuses.

use super::*;

impl Simulation {
    pub(super) fn add_objects(&mut self, objects: &[Value]) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for v in objects {
            let kind = v.get("kind").and_then(Value::as_str).unwrap_or_default();
            let name = v
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let bad = |e: serde_json::Error| format!("{kind} {name}: {e}");
            if name.is_empty() {
                return Err(format!(
                    "{kind}: metadata.name: Required value: name is required"
                ));
            }
            match kind {
                "Node" if self.cluster.node_id(&name).is_some() => {
                    // kubectl apply of an existing node: labels, taints and cordon are updated.
                    let node: Node = serde_json::from_value(v.clone()).map_err(bad)?;
                    let id = self.cluster.node_id(&name).unwrap_or_default();
                    let spec = node.spec.clone().unwrap_or_default();
                    self.cluster
                        .set_node_labels(id, node.metadata.labels.clone().unwrap_or_default());
                    self.cluster
                        .set_node_taints(id, spec.taints.unwrap_or_default());
                    self.cluster
                        .set_unschedulable(id, spec.unschedulable.unwrap_or(false));
                    out.push(format!("node/{name} configured"));
                }
                "Pod"
                    if {
                        let ns = v
                            .pointer("/metadata/namespace")
                            .and_then(Value::as_str)
                            .unwrap_or("default");
                        self.cluster.pod_id(ns, &name).is_some()
                    } =>
                {
                    out.push(self.update_pod(v, &name)?);
                }
                "Node" => {
                    let mut node: Node = serde_json::from_value(v.clone()).map_err(bad)?;
                    taint_nodes_by_condition(&mut node);
                    assume_allocatable(&mut node);
                    self.cluster.add_node(node);
                    out.push(format!("node/{name} created"));
                }
                "Pod" => {
                    let mut pod: Pod = serde_json::from_value(v.clone()).map_err(bad)?;
                    let ns = repel_core::workload::namespace_of(&pod.metadata).to_string();
                    match create_pod(
                        &mut pod,
                        self.cluster.namespace(&ns),
                        &self.cfg.admission,
                        &self.cfg.gates,
                    ) {
                        Ok(()) => {
                            let id = self.cluster.add_pod(pod);
                            // The API server sets `creationTimestamp` on create.
                            self.cluster.pods[id].created = Some(self.now);
                            out.push(format!("pod/{name} created"));
                        }
                        Err(e) => return Err(e.to_string()),
                    }
                }
                "Namespace" => {
                    self.cluster
                        .namespaces
                        .push(serde_json::from_value::<Namespace>(v.clone()).map_err(bad)?);
                    out.push(format!("namespace/{name} created"));
                }
                "PodDisruptionBudget" => {
                    self.cluster.pdbs.push(
                        serde_json::from_value::<PodDisruptionBudget>(v.clone()).map_err(bad)?,
                    );
                    out.push(format!("poddisruptionbudget.policy/{name} created"));
                }
                "Deployment"
                | "ReplicaSet"
                | "StatefulSet"
                | "DaemonSet"
                | "Job"
                | "CronJob"
                | "ReplicationController" => {
                    let w = match kind {
                        "Deployment" => {
                            Workload::Deployment(serde_json::from_value(v.clone()).map_err(bad)?)
                        }
                        "ReplicaSet" => {
                            Workload::ReplicaSet(serde_json::from_value(v.clone()).map_err(bad)?)
                        }
                        "StatefulSet" => {
                            Workload::StatefulSet(serde_json::from_value(v.clone()).map_err(bad)?)
                        }
                        "DaemonSet" => {
                            Workload::DaemonSet(serde_json::from_value(v.clone()).map_err(bad)?)
                        }
                        "Job" => Workload::Job(serde_json::from_value(v.clone()).map_err(bad)?),
                        "ReplicationController" => {
                            let mut rc = serde_json::from_value(v.clone()).map_err(bad)?;
                            repel_core::workload::set_defaults_replication_controller(&mut rc);
                            Workload::from(rc)
                        }
                        _ => Workload::CronJob(serde_json::from_value(v.clone()).map_err(bad)?),
                    };
                    let said = if self.plane.workloads.replace(w.clone()) {
                        "configured"
                    } else {
                        self.plane.workloads.add(w.clone());
                        "created"
                    };
                    if let Some(owner) = self.plane.workloads.owner_name(&w) {
                        self.cluster.register_workload(&w, &owner);
                    }
                    out.push(format!("{}/{name} {said}", kind.to_ascii_lowercase()));
                }
                "NodePool" => {
                    let pool = repel_core::pools::karpenter_pool(v)
                        .map_err(|e| format!("NodePool {name}: {e}"))?;
                    if let Some(e) = repel_core::pools::validate_taints(&pool).into_iter().next() {
                        return Err(format!("NodePool {name}: {e}"));
                    }
                    let said = match self
                        .plane
                        .pools
                        .pools
                        .iter_mut()
                        .find(|s| s.pool.provider == "karpenter" && s.pool.name == name)
                    {
                        Some(s) => {
                            s.pool = pool;
                            "configured"
                        }
                        None => {
                            self.plane.pools.add(pool);
                            "created"
                        }
                    };
                    out.push(format!("nodepool.karpenter.sh/{name} {said}"));
                }
                other => return Err(format!("kind {other:?} is not supported in a scenario")),
            }
        }
        Ok(out)
    }

    /// `kubectl drain` as kubectl runs it: evictions a PodDisruptionBudget refuses are retried
    /// every 5 s (the cluster goes on meanwhile — controllers replace evicted pods, budgets
    /// recover) until they succeed or `--timeout` runs out; with no timeout, until the scenario's
    /// end. The step blocks, as kubectl does in a script: later steps wait for it.
    pub(super) fn drain_with_retries(&mut self, line: &str) -> (Vec<String>, bool) {
        let timeout = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("--timeout="))
            .and_then(|d| crate::clock::parse_duration(d).ok())
            .filter(|d| *d > 0);
        let started = self.now;
        let mut lines: Vec<String> = Vec::new();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let r = run_kubectl(line, &mut self.cluster, &self.cfg.gates);
            let out_of_time = timeout.is_some_and(|t| self.now + 5_000 > started + t)
                || self.now >= self.until_hint;
            let last = r.blocked.is_empty() || out_of_time;
            if last && attempt == 1 {
                // One attempt: kubectl's whole run, as one command shows it.
                lines.extend(r.transcript.into_iter().map(|(_, l)| l));
                return (lines, r.ok);
            }
            lines.extend(retried_attempt(&r.transcript, attempt, last));
            if last {
                return (lines, r.ok);
            }
            let next = self.now + 5_000;
            self.advance_to(next);
        }
    }

    /// `kubectl apply` of an existing pod: only its tolerations may change, as upstream's pod
    /// update validation allows (entries added, `tolerationSeconds` changed); the update goes
    /// through admission (DefaultTolerationSeconds, PodTolerationRestriction) first.
    pub(super) fn update_pod(&mut self, v: &Value, name: &str) -> Result<String, String> {
        let mut pod: Pod =
            serde_json::from_value(v.clone()).map_err(|e| format!("Pod {name}: {e}"))?;
        let ns = repel_core::workload::namespace_of(&pod.metadata).to_string();
        let Some(id) = self.cluster.pod_id(&ns, name) else {
            return Err(format!("pods \"{name}\" not found"));
        };
        repel_core::admission::admit_pod(
            &mut pod,
            self.cluster.namespace(&ns),
            &self.cfg.admission,
        )
        .map_err(|e| e.to_string())?;
        let new = pod
            .spec
            .as_ref()
            .and_then(|s| s.tolerations.clone())
            .unwrap_or_default();
        let old = self.cluster.pods[id].tolerations().to_vec();
        if new == old {
            return Ok(format!("pod/{name} unchanged"));
        }
        let errors =
            repel_core::validation::validate_pod_toleration_update(&old, &new, "spec.tolerations");
        if !errors.is_empty() {
            return Err(
                repel_core::validation::invalid_message("Pod", name, &errors)
                    .trim_end()
                    .to_string(),
            );
        }
        if self.cluster.pods[id].shared_spec().is_some() {
            self.cluster.pods[id].spec_mut().tolerations = Some(new);
            self.cluster.touch_pod(id);
        }
        Ok(format!("pod/{name} configured"))
    }

    pub(super) fn delete_objects(&mut self, refs: &[ObjectRef]) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for r in refs {
            let ns = r.namespace.clone().unwrap_or_else(|| "default".into());
            match r.kind.to_ascii_lowercase().as_str() {
                "pod" => match self.cluster.pod_id(&ns, &r.name) {
                    Some(id) => {
                        self.cluster.delete_pod(id);
                        out.push(format!("pod \"{}\" deleted", r.name));
                    }
                    None => return Err(format!("pods \"{}\" not found", r.name)),
                },
                "node" => match self.cluster.node_id(&r.name) {
                    Some(id) => {
                        self.cluster.delete_node(id);
                        self.plane.node_removed(id, &r.name);
                        out.push(format!("node \"{}\" deleted", r.name));
                    }
                    None => return Err(format!("nodes \"{}\" not found", r.name)),
                },
                k @ ("deployment"
                | "replicaset"
                | "statefulset"
                | "daemonset"
                | "job"
                | "cronjob"
                | "replicationcontroller") => {
                    // kubectl's background deletion: the object goes, the garbage collector
                    // takes its dependents (a Deployment's ReplicaSets live inside it here).
                    // kubectl's `resource.group` (`replicationcontroller` of the core group).
                    let dotted = |k: &str| match group_of(k) {
                        "" => String::new(),
                        g => format!(".{g}"),
                    };
                    let Some(gone) = self.plane.workloads.remove(k, &ns, &r.name) else {
                        return Err(format!("{k}s{} \"{}\" not found", dotted(k), r.name));
                    };
                    self.plane.workloads.note_deleted(&ns, &gone);
                    for (kind, name) in gone {
                        self.plane.gc.owner_gone(&kind, &ns, &name, "");
                    }
                    out.push(format!("{k}{} \"{}\" deleted", dotted(k), r.name));
                }
                other => return Err(format!("deleting a {other} is not supported in a scenario")),
            }
        }
        Ok(out)
    }

    /// Whether `node` can be drained now, as `decider` judges it with its default flags
    /// ([`crate::drain`], on a copy of the cluster): what it found, and the verdict (`None`
    /// when there is no such node).
    pub fn judge_drain(
        &self,
        node: &str,
        decider: crate::scenario::ExpectedDecider,
    ) -> (String, Option<bool>) {
        use crate::drain::{Decider, DrainConfig, ca};
        if self.cluster.node_id(node).is_none() {
            return (format!("no node {node}"), None);
        }
        let decider = match decider {
            crate::scenario::ExpectedDecider::Kubectl => Decider::Kubectl(Default::default()),
            crate::scenario::ExpectedDecider::ClusterAutoscaler => {
                let mut controllers: Vec<(String, String, String)> =
                    self.cluster.owner_selectors.keys().cloned().collect();
                controllers.extend(self.plane.workloads.objects());
                Decider::ClusterAutoscaler(ca::Options {
                    controllers: controllers.into_iter().collect(),
                    ..Default::default()
                })
            }
            crate::scenario::ExpectedDecider::Karpenter => Decider::Karpenter,
        };
        let cfg = DrainConfig {
            decider,
            independent: true,
            now_unix: self.now / 1000,
            gates: self.cfg.gates,
            seed: self.cfg.seed,
        };
        let report = crate::drain::on_copy(&self.cluster, &[node], &cfg);
        match report.nodes.first() {
            Some(v) if v.drainable => ("drainable".to_string(), Some(true)),
            Some(v) => (
                format!(
                    "not drainable: {}: {}",
                    v.reason.as_deref().unwrap_or(""),
                    v.message.as_deref().unwrap_or("")
                ),
                Some(false),
            ),
            None => (format!("no node {node}"), None),
        }
    }

    /// `kubectl scale` (parsed by [`crate::kubectl_steps::scale`]): each object's
    /// `spec.replicas` set on its controller, with kubectl's output and errors.
    pub(super) fn scale(&mut self, line: &str) -> Result<Vec<String>, String> {
        let words = crate::kubectl_steps::command_words(line)
            .map_err(|e| format!("repel: cannot split the command line: {e}"))?;
        let req = crate::kubectl_steps::scale::parse(words.get(1..).unwrap_or_default())
            .map_err(|e| format!("error: {e}"))?;
        let mut out = Vec::new();
        for t in &req.targets {
            let ns = req.namespace.as_str();
            let Some(w) = self.plane.workloads.get(t.kind, ns, &t.name) else {
                return Err(format!(
                    "Error from server (NotFound): {} \"{}\" not found",
                    t.plural, t.name
                ));
            };
            let was = i32::try_from(w.pod_count()).unwrap_or(i32::MAX);
            if let Some(c) = req.current.filter(|c| *c != was) {
                return Err(format!("error: Expected replicas to be {c}, was {was}"));
            }
            self.plane
                .workloads
                .scale(t.kind, ns, &t.name, req.replicas);
            out.push(format!("{}/{} scaled", t.resource, t.name));
        }
        Ok(out)
    }
}

/// A command line with its program's name in front, whether or not the step wrote it.
pub(super) fn with_program(program: &str, line: &str) -> String {
    let line = line.trim();
    if line.split_whitespace().next() == Some(program) {
        line.to_string()
    } else {
        format!("{program} {line}")
    }
}

/// What kubectl shows of attempt `attempt` of a drain the simulation retries every 5 s, as one
/// `kubectl drain` prints it over time (upstream `evictPods`: each pod's goroutine prints
/// `evicting pod` at every attempt and the 429's `(will retry after 5s)` line after it):
/// 1. the first attempt's cordon lines and warnings, which kubectl prints once;
/// 2. each attempt's `evicting pod`, `pod/x evicted` and `will retry` lines, in the order they
///    were written (not `already cordoned`, not a second `evicting pod` line for a pod before
///    its attempt's result);
/// 3. the last attempt's end (`node/x drained`, or its errors); the `repel:` notes of a drain
///    run as one attempt are not shown, since the simulation retries for real.
fn retried_attempt(transcript: &[(Stream, String)], attempt: usize, last: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut retried: Vec<String> = Vec::new();
    for (stream, line) in transcript {
        if line.starts_with("repel: ") {
            continue;
        }
        if attempt > 1 && (line.ends_with(" cordoned") || line.starts_with("Warning: ")) {
            continue;
        }
        if let Some(pod) = line.strip_prefix("evicting pod ")
            && retried.iter().any(|r| r == pod)
        {
            // The next attempt's line, which one run prints ahead of it.
            continue;
        }
        if *stream == Stream::Err && line.contains("(will retry after 5s)") {
            if let Some(pod) = will_retry_pod(line) {
                retried.push(pod);
            }
            out.push(line.clone());
            continue;
        }
        if *stream == Stream::Err && !last && !line.starts_with("Warning: ") {
            continue;
        }
        if !last && line.ends_with(" drained") {
            continue;
        }
        out.push(line.clone());
    }
    out
}

/// `ns/name` of kubectl's `error when evicting pods/"name" -n "ns" (will retry after 5s): …`.
fn will_retry_pod(line: &str) -> Option<String> {
    let rest = line.strip_prefix("error when evicting pods/\"")?;
    let (name, rest) = rest.split_once('"')?;
    let rest = rest.strip_prefix(" -n \"")?;
    let (ns, _) = rest.split_once('"')?;
    Some(format!("{ns}/{name}"))
}

/// The API group of a workload kind by its singular, as kubectl names it (`deployment.apps`,
/// `job.batch`), from [`repel_core::kinds`].
fn group_of(kind: &str) -> &'static str {
    repel_core::kinds::by_singular(kind).map_or("apps", |k| k.group)
}
