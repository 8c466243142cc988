//! The DaemonSet controller's reconcile: one pod per eligible node, and rolling updates node by
//! node (after upstream `pkg/controller/daemon/daemon_controller.go` and `update.go`, v1.35).

use super::*;

impl WorkloadControllers {
    /// Upstream's DaemonSet `RollingUpdate` (v1.35, `maxSurge` 0): pods of an older template
    /// (their `controller-revision-hash` label is not the template's) are replaced node by node.
    /// Old pods that are not running go at once; running ones are deleted while fewer than
    /// `maxUnavailable` (default 1; a percentage of the nodes that should run the pod, rounded
    /// up; at least 1) of those nodes lack a running pod — each deletion lets the per-node loop
    /// create the new pod there, and the next old pod goes once it runs. `OnDelete` replaces
    /// nothing (a pod deleted by hand comes back with the new template).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn roll_daemonset(
        &mut self,
        i: usize,
        w: &Workload,
        spec: &k8s_openapi::api::core::v1::PodSpec,
        nodes: &[Node],
        object: &str,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
    ) {
        let Workload::DaemonSet(ds) = w else { return };
        let old_hashes = self.tracked[i].old_hashes.clone();
        if old_hashes.is_empty() {
            return;
        }
        let strategy = ds.spec.update_strategy.as_ref();
        if strategy.and_then(|s| s.type_.as_deref()) == Some("OnDelete") {
            return;
        }
        let Some((template, _)) = w.template() else {
            return;
        };
        let current = pod_template_hash(template);
        let should_run: BTreeSet<String> = nodes
            .iter()
            .filter(|n| node_should_run_daemon_pod(spec, n, &self.gates).0)
            .filter_map(|n| n.metadata.name.clone())
            .collect();
        let pods = owned(cluster, w, "DaemonSet", w.name());
        let node_of = |c: &Cluster, p: PodId| {
            let info = &c.pods[p];
            info.node
                .and_then(|n| c.nodes.get(n))
                .map(|n| n.name.clone())
                .or_else(|| repel_core::workload::claim::pinned_node(info.spec()))
        };
        let running = |c: &Cluster, p: PodId| {
            let info = &c.pods[p];
            !info.deleted && !info.terminating && info.phase == PodPhase::Running
        };
        let is_old = |c: &Cluster, p: PodId| {
            c.pods[p]
                .labels()
                .get("controller-revision-hash")
                .is_some_and(|h| *h != current && old_hashes.contains(h))
        };
        // Upstream scales both against the nodes that should run the pod, rounding up.
        let rolling = strategy.and_then(|s| s.rolling_update.as_ref());
        let desired = i32::try_from(should_run.len()).unwrap_or(i32::MAX);
        let scaled = |v: Option<&k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>,
                      unset: i64| {
            v.map_or(unset, |v| {
                i64::from(deployment::scaled_value(v, desired, true).unwrap_or(0))
            })
        };
        let max_unavailable = scaled(rolling.and_then(|r| r.max_unavailable.as_ref()), 1).max(1);
        let max_surge = scaled(rolling.and_then(|r| r.max_surge.as_ref()), 0);
        let with_running: BTreeSet<String> = pods
            .iter()
            .filter(|p| running(cluster, **p))
            .filter_map(|p| node_of(cluster, *p))
            .collect();
        let mut unavailable = should_run.difference(&with_running).count() as i64;
        let delete = |c: &mut Cluster, p: PodId, events: &mut Vec<Event>| {
            let name = c.pods[p].name.clone();
            let node = node_of(c, p);
            c.delete_pod(p);
            events.push(Event::normal(
                now,
                SUCCESSFUL_DELETE,
                object.to_string(),
                node,
                format!("Deleted pod: {name}"),
            ));
        };
        for p in pods.iter().copied() {
            if is_old(cluster, p) && !cluster.pods[p].terminating && !running(cluster, p) {
                delete(cluster, p, events);
            }
        }
        if max_surge > 0 {
            // Upstream's surge (`rollingUpdate` with maxSurge): a node's new pod starts beside
            // its old one, at most `maxSurge` nodes at a time; the old pod goes once the new
            // one runs. (An old pod not running was replaced above, outside the budget.)
            let live = |c: &Cluster, p: PodId| !c.pods[p].deleted && !c.pods[p].terminating;
            let mut surging = 0;
            let mut candidates: Vec<String> = Vec::new();
            for node in &should_run {
                let on: Vec<PodId> = pods
                    .iter()
                    .copied()
                    .filter(|p| live(cluster, *p) && node_of(cluster, *p).as_ref() == Some(node))
                    .collect();
                let old: Vec<PodId> = on.iter().copied().filter(|p| is_old(cluster, *p)).collect();
                let new = on.iter().copied().find(|p| {
                    cluster.pods[*p].labels().get("controller-revision-hash") == Some(&current)
                });
                match (old.is_empty(), new) {
                    (true, _) => {}
                    (false, None) => candidates.push(node.clone()),
                    (false, Some(n)) if running(cluster, n) => {
                        for p in old {
                            delete(cluster, p, events);
                        }
                    }
                    (false, Some(_)) => surging += 1,
                }
            }
            let room = usize::try_from(max_surge - surging).unwrap_or(0);
            for node in candidates.into_iter().take(room) {
                self.create_daemon_pod(i, w, w.name(), &node, object, now, cluster, events);
            }
            return;
        }
        for p in pods.iter().copied() {
            if unavailable >= max_unavailable {
                break;
            }
            if is_old(cluster, p) && running(cluster, p) {
                delete(cluster, p, events);
                unavailable += 1;
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn reconcile_daemonset(
        &mut self,
        i: usize,
        w: &Workload,
        oname: &str,
        object: &str,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
    ) {
        let Some(template_pod) = controller_pod(w, String::new(), "DaemonSet", oname, None) else {
            return;
        };
        let spec = template_pod.spec.clone().unwrap_or_default();
        let nodes: Vec<Node> = cluster.nodes.iter().map(|n| (*n.node).clone()).collect();
        self.roll_daemonset(i, w, &spec, &nodes, object, now, cluster, events);
        // The DaemonSet's pods, once, by the node they are bound or pinned to.
        let mut by_node: HashMap<String, Vec<PodId>> = HashMap::new();
        for p in owned(cluster, w, "DaemonSet", oname) {
            let info = &cluster.pods[p];
            let target = info
                .node
                .and_then(|n| cluster.nodes.get(n))
                .map(|n| n.name.clone())
                .or_else(|| repel_core::workload::claim::pinned_node(info.spec()));
            if let Some(t) = target {
                by_node.entry(t).or_default().push(p);
            }
        }
        for node in &nodes {
            let node_name = node.metadata.name.clone().unwrap_or_default();
            let (should_run, should_continue) =
                node_should_run_daemon_pod(&spec, node, &self.gates);
            let on_node: Vec<PodId> = by_node.remove(&node_name).unwrap_or_default();
            for p in &on_node {
                let failed = cluster.pods[*p].phase == PodPhase::Failed;
                if failed || !should_continue {
                    let name = cluster.pods[*p].name.clone();
                    cluster.delete_pod(*p);
                    events.push(Event::normal(
                        now,
                        SUCCESSFUL_DELETE,
                        object.to_string(),
                        Some(node_name.clone()),
                        format!("Deleted pod: {name}"),
                    ));
                }
            }
            let live = on_node.iter().any(|p| !cluster.pods[*p].deleted);
            if should_run && !live {
                self.create_daemon_pod(i, w, oname, &node_name, object, now, cluster, events);
            }
        }
    }

    /// Creates the DaemonSet's pod for `node` (named after `oname`), with its event.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn create_daemon_pod(
        &mut self,
        i: usize,
        w: &Workload,
        oname: &str,
        node: &str,
        object: &str,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
    ) {
        let name = self.free_name(i, cluster, oname);
        let pod = controller_pod(w, name.clone(), "DaemonSet", oname, Some(node));
        self.create(
            cluster,
            events,
            now,
            w,
            object,
            pod,
            format!("Created pod: {name}"),
        );
    }
}
