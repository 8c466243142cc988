//! The taint-eviction controller: NoExecute taints and `tolerationSeconds` in scaled time.

use super::*;

impl Engine {
    pub(super) fn taint_eviction(&mut self, now: Instant) {
        let (nodes, _) = self.app.store.list("nodes", None);
        let no_exec: HashMap<String, Vec<Taint>> = nodes
            .iter()
            .filter_map(|n| {
                let taints: Vec<Taint> = typed::<Vec<Taint>>(&n["spec"]["taints"])?
                    .into_iter()
                    .filter(|t| t.effect == "NoExecute")
                    .collect();
                (!taints.is_empty()).then(|| (ns_name(n).1, taints))
            })
            .collect();
        if no_exec.is_empty() {
            self.no_execute.clear();
            return;
        }
        let (pods, _) = self.app.store.list("pods", None);
        let mut keep = HashSet::new();
        let mut evict = Vec::new();
        for p in &pods {
            let Some(taints) = node_name_of(p).and_then(|n| no_exec.get(n)) else {
                continue;
            };
            if is_terminal(p) || terminating(p) {
                continue;
            }
            let tolerations: Vec<Toleration> = typed(&p["spec"]["tolerations"]).unwrap_or_default();
            let uid = p["metadata"]["uid"].as_str().unwrap_or("").to_string();
            match repel_core::no_execute_outcome(taints, &tolerations, &self.app.admission.gates) {
                NoExecuteOutcome::Never => {}
                NoExecuteOutcome::Immediately => evict.push(p),
                NoExecuteOutcome::After(secs) => {
                    let (since, secs) = *self.no_execute.entry(uid.clone()).or_insert((now, secs));
                    keep.insert(uid);
                    if self.cluster_seconds_since(since, now) >= secs as f64 {
                        evict.push(p);
                    }
                }
            }
        }
        self.no_execute.retain(|uid, _| keep.contains(uid));
        let mut ops = Vec::new();
        for p in evict {
            let (ns, name) = ns_name(p);
            if delete_pod(&self.app.store, &ns, &name, None).is_ok() {
                let msg = format!("Marking for deletion Pod {ns}/{name}");
                ops.push(put(
                    "events",
                    event(
                        p,
                        "Pod",
                        "Normal",
                        "TaintManagerEviction",
                        &msg,
                        "taint-eviction-controller",
                    ),
                ));
            }
        }
        self.write(ops);
    }
}
