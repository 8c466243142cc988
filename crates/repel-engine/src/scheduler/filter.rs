//! The filtering half of a scheduling cycle: PreFilter, Filter over the nodes (nominated pods
//! included), `percentageOfNodesToScore` and the round-robin start (after upstream
//! `pkg/scheduler/schedule_one.go` `findNodesThatFitPod`, `findNodesThatPassFilters` and
//! `pkg/scheduler/framework/runtime/framework.go` `RunFilterPluginsWithNominatedPods`, v1.35).

use super::*;

impl Scheduler {
    /// PreFilter over every filter plugin (upstream `RunPreFilterPlugins`): the first rejection
    /// stops; node-name results intersect. Returns the rejection, or the allowed nodes (`None`:
    /// all) with the plugins that narrowed them.
    pub(crate) fn pre_filter(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        cluster: &Cluster,
    ) -> Result<(Option<BTreeSet<String>>, Vec<&'static str>), Status> {
        let mut result: Option<BTreeSet<String>> = None;
        let mut narrowed: Vec<&'static str> = Vec::new();
        for pl in self.profile.filters() {
            let (mut st, res) = pl.pre_filter(state, pod, cluster);
            match st.code {
                Code::Skip => {
                    state.skip_filter.insert(pl.name());
                    continue;
                }
                Code::Success => {}
                _ => {
                    st.plugin = pl.name();
                    return Err(st);
                }
            }
            if let Some(names) = res {
                narrowed.push(pl.name());
                result = Some(match result {
                    None => names,
                    Some(r) => r.intersection(&names).cloned().collect(),
                });
                if result.as_ref().is_some_and(BTreeSet::is_empty) {
                    // Upstream (v1.35): UnschedulableAndUnresolvable, the plugins as a sorted set.
                    let mut names = narrowed.clone();
                    names.sort_unstable();
                    let msg = if names.len() == 1 {
                        format!("node(s) didn't satisfy plugin {}", names[0])
                    } else {
                        format!(
                            "node(s) didn't satisfy plugin(s) [{}] simultaneously",
                            names.join(" ")
                        )
                    };
                    return Err(Status::unresolvable(pl.name(), &msg));
                }
            }
        }
        Ok((result, narrowed))
    }

    /// Runs the Filter plugins on one node, stopping at the first rejection (upstream
    /// `RunFilterPlugins`).
    pub fn run_filters(
        &self,
        state: &CycleState,
        pod: &PodInfo,
        node: &crate::cluster::NodeInfo,
        cluster: &Cluster,
    ) -> Status {
        for pl in self.profile.filters() {
            if state.skip_filter.contains(pl.name()) {
                continue;
            }
            let mut st = pl.filter(state, pod, node, cluster);
            if !st.is_success() {
                st.plugin = pl.name();
                return st;
            }
        }
        Status::success()
    }

    /// Upstream `RunFilterPluginsWithNominatedPods` (v1.35,
    /// `pkg/scheduler/framework/runtime/framework.go`, with `addGhostPods`):
    ///
    /// 1. The pods nominated for the node ([`Cluster::nominated_pods`]) whose priority is at
    ///    least the pod's, the pod itself left out, are added to a copy of the node and of the
    ///    cycle state (each filter plugin's PreFilter extension `add_pod`): the pod must not
    ///    take room opened for a pod it yields to.
    /// 2. The filters run on that copy; a rejection is the answer.
    /// 3. If pods were added and the filters passed, they run again without them (a filter
    ///    like inter-pod affinity may need the nominated pods absent), and that is the answer.
    /// 4. With no such nominated pod, the filters run once ([`Scheduler::run_filters`]).
    pub fn run_filters_with_nominated(
        &self,
        state: &CycleState,
        pod: &PodInfo,
        node: &crate::cluster::NodeInfo,
        cluster: &Cluster,
    ) -> Status {
        // (Checked first: with no nomination anywhere, the usual case, nothing is looked up.)
        let node_id = || cluster.node_id(&node.name);
        let ghosts: Vec<PodId> = match cluster.has_nominations().then(node_id).flatten() {
            Some(id) => cluster
                .nominated_pods(id)
                .into_iter()
                .filter(|g| {
                    cluster.pods.get(*g).is_some_and(|p| {
                        p.priority >= pod.priority
                            && (p.namespace != pod.namespace || p.name != pod.name)
                    })
                })
                .collect(),
            None => Vec::new(),
        };
        if ghosts.is_empty() {
            return self.run_filters(state, pod, node, cluster);
        }
        let mut with = node.clone();
        let mut with_state = state.clone();
        for g in ghosts {
            let Some(ghost) = cluster.pods.get(g) else {
                continue;
            };
            with.add_pod(g, ghost);
            for pl in self.profile.filters() {
                if !with_state.skip_filter.contains(pl.name()) {
                    pl.add_pod(&mut with_state, pod, ghost, &with, cluster);
                }
            }
        }
        let st = self.run_filters(&with_state, pod, &with, cluster);
        if !st.is_success() {
            return st;
        }
        self.run_filters(state, pod, node, cluster)
    }

    /// cluster-autoscaler's first fit: PreFilter once, then Filter on each node from `start` in
    /// node order (wrapping over every node, `skip`ped ones left out) until one passes; no
    /// scores, and the round-robin index is not moved.
    pub fn first_fit(
        &self,
        pod: &PodInfo,
        cluster: &Cluster,
        start: usize,
        skip: impl Fn(NodeId) -> bool,
    ) -> Option<NodeId> {
        self.first_passing(pod, cluster, start, skip, false)
    }

    /// The first node in node order, `skip`ped ones left out, that
    /// [`Self::find_nodes_that_fit`] with `find_all` finds feasible: PreFilter once, then Filter
    /// (the nominated pods counted) on each node until one passes, the rest not filtered.
    pub(crate) fn first_feasible(
        &self,
        pod: &PodInfo,
        cluster: &Cluster,
        skip: impl Fn(NodeId) -> bool,
    ) -> Option<NodeId> {
        self.first_passing(pod, cluster, 0, skip, true)
    }

    /// [`Self::first_fit`], the nominated pods counted on each node when `nominated`.
    fn first_passing(
        &self,
        pod: &PodInfo,
        cluster: &Cluster,
        start: usize,
        skip: impl Fn(NodeId) -> bool,
        nominated: bool,
    ) -> Option<NodeId> {
        let mut state = CycleState::default();
        let names = self.pre_filter(&mut state, pod, cluster).ok()?.0;
        let n = cluster.nodes.len();
        (0..n)
            .map(|i| (start + i) % n)
            .filter(|&i| !skip(i))
            .filter(|&i| {
                names
                    .as_ref()
                    .is_none_or(|s| s.contains(&cluster.nodes[i].name))
            })
            .find(|&i| {
                let node = &cluster.nodes[i];
                let st = if nominated {
                    self.run_filters_with_nominated(&state, pod, node, cluster)
                } else {
                    self.run_filters(&state, pod, node, cluster)
                };
                st.is_success()
            })
    }

    /// PreFilter then Filter. With `find_all`, every candidate node is checked (explain);
    /// otherwise upstream's `numFeasibleNodesToFind` from the round-robin start, advancing it.
    pub(crate) fn find_nodes_that_fit(
        &mut self,
        state: &mut CycleState,
        pod: &PodInfo,
        cluster: &Cluster,
        find_all: bool,
    ) -> (Vec<NodeId>, Diagnosis) {
        let mut diagnosis = Diagnosis::default();
        let candidates: Vec<NodeId> = match self.pre_filter(state, pod, cluster) {
            Err(st) if st.code == Code::Error => {
                diagnosis.error = Some(format!(
                    "running PreFilter plugin {:?}: {}",
                    st.plugin,
                    st.message()
                ));
                return (Vec::new(), diagnosis);
            }
            Err(st) => {
                diagnosis.pre_filter_msg = Some(st.message());
                diagnosis.absent = Some(st);
                return (Vec::new(), diagnosis);
            }
            Ok((None, _)) => (0..cluster.nodes.len()).collect(),
            Ok((Some(names), narrowed)) => {
                diagnosis.absent = Some(Status {
                    code: Code::UnschedulableAndUnresolvable,
                    reasons: vec![format!(
                        "node(s) didn't satisfy plugin(s) [{}]",
                        narrowed.join(" ")
                    )],
                    plugin: narrowed.first().copied().unwrap_or(""),
                });
                (0..cluster.nodes.len())
                    .filter(|i| names.contains(&cluster.nodes[*i].name))
                    .collect()
            }
        };
        if candidates.is_empty() {
            return (Vec::new(), diagnosis);
        }
        // Upstream `evaluateNominatedNode`: a pod nominated by an earlier preemption tries
        // that node first; if it passes, it is the only feasible node (the round-robin index
        // does not move).
        if !find_all
            && let Some(nominated) = nominated_node(cluster, pod)
            && let Some(n) = cluster.nodes.get(nominated)
        {
            let st = self.run_filters_with_nominated(state, pod, n, cluster);
            if st.is_success() {
                return (vec![nominated], diagnosis);
            }
        }
        let to_find = if find_all {
            candidates.len()
        } else {
            self.num_feasible_nodes_to_find(candidates.len())
        };
        // Upstream: the scan starts at nextStartNodeIndex modulo the candidates, and the index
        // advances by the nodes processed modulo all nodes.
        let start = if find_all {
            0
        } else {
            self.next_start_node_index % candidates.len()
        };
        let mut feasible = Vec::new();
        let mut processed = 0;
        for i in 0..candidates.len() {
            if feasible.len() >= to_find {
                break;
            }
            let id = candidates[(start + i) % candidates.len()];
            processed += 1;
            let st = self.run_filters_with_nominated(state, pod, &cluster.nodes[id], cluster);
            if st.is_success() {
                feasible.push(id);
            } else {
                diagnosis.reject(id, st);
            }
        }
        if !find_all {
            self.next_start_node_index =
                (self.next_start_node_index + processed) % cluster.nodes.len().max(1);
        }
        (feasible, diagnosis)
    }
}
