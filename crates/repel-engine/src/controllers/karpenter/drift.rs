//! Drift: nodes launched from an older NodePool template are tainted disrupted, replaced and
//! drained, unless `karpenter.sh/do-not-disrupt` blocks it (after `sigs.k8s.io/karpenter`
//! `pkg/controllers/nodeclaim/disruption/drift.go` and `pkg/controllers/disruption/`, v1.14.1).

use super::*;

impl Karpenter {
    /// Drifted nodes are replaced (see the module docs).
    pub(super) fn drift(
        &mut self,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
        pools: &[&Pool],
        gates: &repel_core::FeatureGates,
    ) -> (Vec<(NodeId, String)>, bool) {
        let mut changed = false;
        let mut removed = Vec::new();
        let now_unix = now / 1000;
        let mut new_claims = Vec::new();
        let snapshot: Vec<(String, bool)> = self
            .claims
            .iter()
            .map(|c| (c.name.clone(), c.initialized))
            .collect();
        for i in 0..self.claims.len() {
            let claim = &self.claims[i];
            let Some(pool) = pools.iter().find(|p| p.name == claim.pool) else {
                continue;
            };
            if !claim.initialized || pool.template_hash == claim.hash {
                continue;
            }
            let Some(node_name) = claim.node.clone() else {
                continue;
            };
            let Some(id) = cluster.node_id(&node_name) else {
                continue;
            };
            if !claim.disrupting {
                // The replacement launched for this claim, and whether it is initialized.
                let replacement = snapshot
                    .iter()
                    .zip(self.claims.iter())
                    .find(|(_, c)| c.replaces.as_deref() == Some(claim.name.as_str()))
                    .map(|((_, init), _)| *init)
                    .or_else(|| {
                        new_claims
                            .iter()
                            .find(|c: &&Claim| c.replaces.as_deref() == Some(claim.name.as_str()))
                            .map(|_| false)
                    });
                match replacement {
                    // The command started: wait for its replacement to initialize.
                    Some(false) => continue,
                    Some(true) => {}
                    None => {
                        // do-not-disrupt on the node or on a pod blocks it.
                        if let Some(msg) = self.blocked(cluster, id, now_unix) {
                            if self.last_blocked.get(&node_name) != Some(&msg) {
                                self.last_blocked.insert(node_name.clone(), msg.clone());
                                events.push(Event::normal(
                                    now,
                                    "DisruptionBlocked",
                                    format!("Node/{node_name}"),
                                    Some(node_name.clone()),
                                    msg,
                                ));
                            }
                            continue;
                        }
                        let has_pods = cluster.nodes[id].pods.iter().any(|p| {
                            let pod = &cluster.pods[*p];
                            !pod.deleted
                                && repel_core::workload::controller_of(&pod.meta)
                                    .is_none_or(|(k, _)| k != "DaemonSet")
                        });
                        if has_pods {
                            // Karpenter's `Queue.StartCommand`: "Cordon the old nodes before
                            // we launch the replacements to prevent new pods from scheduling
                            // to the old nodes" — the disrupted taint first, then the
                            // replacement (the same instance options, the pool's template
                            // now); the node is terminated once the replacement is
                            // initialized.
                            crate::drain::karpenter::taint_disrupted(cluster, id);
                            self.counter += 1;
                            let name = self.claim_name(cluster, pool);
                            events.push(Event::normal(
                                now,
                                "DisruptionLaunching",
                                format!("NodeClaim/{name}"),
                                None,
                                "Launching NodeClaim: Drifted".to_string(),
                            ));
                            new_claims.push(Claim {
                                name,
                                pool: pool.name.clone(),
                                options: claim.options.clone(),
                                requests: Resources::default(),
                                requirements: pool_requirements(pool),
                                pods: Vec::new(),
                                launch_at: now + LAUNCH_DELAY,
                                node: None,
                                hash: pool.template_hash.clone(),
                                initialized: false,
                                replaces: Some(claim.name.clone()),
                                disrupting: false,
                            });
                            changed = true;
                            continue;
                        }
                    }
                }
                // Karpenter's `waitOrTerminate`: the replacements initialized (or none needed),
                // the NodeClaim is deleted with a `DisruptionTerminating` event on the Node and
                // on the NodeClaim (`disruption/events/events.go` `Terminating`, v1.14.1).
                events.push(Event::normal(
                    now,
                    "DisruptionTerminating",
                    format!("Node/{node_name}"),
                    Some(node_name.clone()),
                    "Disrupting Node: Drifted".to_string(),
                ));
                events.push(Event::normal(
                    now,
                    "DisruptionTerminating",
                    format!("NodeClaim/{}", claim.name),
                    None,
                    "Disrupting NodeClaim: Drifted".to_string(),
                ));
                crate::drain::karpenter::taint_disrupted(cluster, id);
                self.claims[i].disrupting = true;
                changed = true;
            }
            // Draining: evict what may go (each budget's allowed disruptions, counted across
            // this pass's evictions); delete the node once nothing waited for is left.
            let mut waiting = false;
            let mut evicted: HashMap<usize, i32> = HashMap::new();
            for p in cluster.pods_on_node(id) {
                let pod = &cluster.pods[p];
                if pod.deleted
                    || matches!(pod.phase, PodPhase::Succeeded | PodPhase::Failed)
                    || repel_core::workload::controller_of(&pod.meta)
                        .is_some_and(|(k, _)| k == "DaemonSet")
                    || crate::drain::karpenter::tolerates_disrupted(pod, gates)
                {
                    continue;
                }
                let pdbs = crate::drain::selecting_pdbs(cluster, pod);
                let allowed = pdbs.iter().all(|i| {
                    let used = evicted.get(i).copied().unwrap_or(0);
                    crate::disruption::disruptions_allowed(&cluster.pdbs[*i], cluster) > used
                });
                if allowed && pdbs.len() <= 1 {
                    for i in &pdbs {
                        *evicted.entry(*i).or_insert(0) += 1;
                    }
                    cluster.delete_pod(p);
                    changed = true;
                }
                waiting = true;
            }
            if !waiting {
                cluster.delete_node(id);
                removed.push((id, node_name.clone()));
                self.claims[i].node = None;
                self.claims[i].launch_at = Millis::MAX;
                changed = true;
            }
        }
        self.claims.retain(|c| !(c.disrupting && c.node.is_none()));
        self.claims.extend(new_claims);
        (removed, changed)
    }

    /// Why `karpenter.sh/do-not-disrupt` blocks disrupting node `id` (on the node, or on one
    /// of its pods), in Karpenter's words; `None` when nothing does.
    pub(super) fn blocked(
        &self,
        cluster: &Cluster,
        id: NodeId,
        now_unix: Millis,
    ) -> Option<String> {
        let node_meta = &cluster.nodes[id].node.metadata;
        if crate::drain::karpenter::do_not_disrupt(
            node_meta
                .annotations
                .as_ref()
                .and_then(|a| a.get(DO_NOT_DISRUPT))
                .map(String::as_str),
            None,
            now_unix,
        ) {
            return Some(format!(
                "disruption is blocked through the {DO_NOT_DISRUPT:?} annotation"
            ));
        }
        cluster.nodes[id].pods.iter().find_map(|p| {
            let pod = &cluster.pods[*p];
            crate::drain::karpenter::do_not_disrupt(
                pod.meta
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(DO_NOT_DISRUPT))
                    .map(String::as_str),
                None,
                now_unix,
            )
            .then(|| crate::drain::karpenter::pod_blocks_message(&pod.key()))
        })
    }
}
