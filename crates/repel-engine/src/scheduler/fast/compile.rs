//! Compiling a pod's class (upstream `pkg/scheduler/schedule_one.go` `schedulePod` up to
//! `findNodesThatFitPod`'s PreFilter, and the static plugins `NodeUnschedulable`, `NodeName`,
//! `TaintToleration`, `NodeAffinity` and `NodePorts`, v1.35).
//!
//! [`FastScheduler::compile`] decides whether a pod takes the compiled path (not when it names
//! nodes with spread constraints, has pod (anti-)affinity, or a PreFilter narrows the nodes:
//! [`names_nodes`], [`has_pod_affinity`]) and builds its [`PodClass`]: the static plugins asked
//! once per node class on a representative node ([`FastScheduler::compile_statics`]), the
//! requests, and the spread constraints.

use super::*;

/// Whether a pod's node selection names particular nodes: `spec.nodeName`, `matchFields`, or
/// the hostname label in a nodeSelector or a node-affinity term.
fn names_nodes(pod: &PodInfo) -> bool {
    let spec = pod.spec();
    if pod.spec_node_name().is_some() {
        return true;
    }
    if spec
        .node_selector
        .as_ref()
        .is_some_and(|s| s.contains_key(LABEL_HOSTNAME))
    {
        return true;
    }
    let Some(na) = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
    else {
        return false;
    };
    let term_names = |t: &k8s_openapi::api::core::v1::NodeSelectorTerm| {
        t.match_fields.as_ref().is_some_and(|f| !f.is_empty())
            || t.match_expressions
                .iter()
                .flatten()
                .any(|e| e.key == LABEL_HOSTNAME)
    };
    na.required_during_scheduling_ignored_during_execution
        .as_ref()
        .is_some_and(|r| r.node_selector_terms.iter().any(term_names))
        || na
            .preferred_during_scheduling_ignored_during_execution
            .iter()
            .flatten()
            .any(|p| term_names(&p.preference))
}

pub(super) fn has_pod_affinity(pod: &PodInfo) -> bool {
    pod.spec()
        .affinity
        .as_ref()
        .is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
}

impl FastScheduler {
    /// The pod's compiled class, compiling it on first sight; `None` when the compiled path does
    /// not cover the pod.
    pub(super) fn class_of(
        &self,
        run: &mut Run,
        cluster: &Cluster,
        pod: PodId,
        key: u128,
        draft: Option<Box<Draft>>,
    ) -> Option<Arc<PodClass>> {
        if let Some(c) = run.classes.get(&key) {
            return c.clone();
        }
        let compiled = self.compile(run, cluster, pod, draft).map(Arc::new);
        run.classes.insert(key, compiled.clone());
        compiled
    }

    pub(super) fn plugin(&self, name: &str) -> Option<&dyn Plugin> {
        self.reference
            .profile
            .entries
            .iter()
            .find(|e| e.plugin.name() == name)
            .map(|e| e.plugin.as_ref())
    }

    /// Compiles the class of pod `pod` (`draft`: its [`Draft`] when found ahead). The static
    /// plugins' PreFilter and PreScore run once per static key: every class of the key shares
    /// their answers ([`StaticFacts`]).
    fn compile(
        &self,
        run: &mut Run,
        cluster: &Cluster,
        pod: PodId,
        draft: Option<Box<Draft>>,
    ) -> Option<PodClass> {
        let info = &cluster.pods[pod];
        let draft = match draft {
            Some(d) => *d,
            None => Draft::of(info, cluster),
        };
        let DraftSpreads {
            hard: hard_c,
            soft: soft_c,
            explicit,
        } = draft.spreads?;
        // The static plugins read tolerations, nodeSelector, affinity and nodeName (host ports
        // are excluded above): pod classes that share them share these tables, and the
        // node-inclusion answers of their spread constraints.
        let memo = run.spec_memo(info)?;
        let static_key = match info.spec_node_name() {
            None => memo.static_key,
            Some(name) => {
                let mut h = KeyHasher::new();
                h.feed(&memo.static_key.to_le_bytes());
                h.str(name);
                h.finish()
            }
        };
        // PreFilter of the static plugins, unless a class of the key compiled before.
        let known = run.statics.get(&static_key).cloned();
        let mut state = CycleState::default();
        let mut skip_filters = SkipSet::default();
        let mut names: Option<BTreeSet<String>> = None;
        let per_node = match &known {
            Some(f) => {
                skip_filters = f.skip_filters;
                f.per_node
            }
            None => {
                for (i, name) in STATIC_FILTERS.iter().enumerate() {
                    let pl = self.plugin(name)?;
                    let (st, res) = pl.pre_filter(&mut state, info, cluster);
                    match st.code {
                        Code::Skip => skip_filters.insert(i),
                        Code::Success => {
                            if let Some(r) = res {
                                names = Some(match names {
                                    None => r,
                                    Some(n) => n.intersection(&r).cloned().collect(),
                                });
                            }
                        }
                        _ => return None,
                    }
                }
                names.is_some() || names_nodes(info)
            }
        };
        if per_node && (!hard_c.is_empty() || !soft_c.is_empty())
            || hard_c.len() > MAX_SPREADS
            || soft_c.len() > MAX_SPREADS
        {
            return None;
        }
        // Read only when a constraint's node-inclusion answers are not known yet.
        let required = std::cell::OnceCell::new();
        let compile_spreads = |cs: Vec<DraftSpread>, run: &mut Run| {
            cs.into_iter()
                .map(|DraftSpread { c, self_match, sel_key }| {
                    let dom = run.domains(cluster, &c.topology_key);
                    let policies = (
                        static_key,
                        c.node_affinity_policy == NodeInclusionPolicy::Honor,
                        c.node_taints_policy == NodeInclusionPolicy::Honor,
                    );
                    let include = match run.includes.get(&policies) {
                        Some(i) => i.clone(),
                        None => {
                            let i: Arc<Vec<bool>> = Arc::new(
                                run.reps
                                    .iter()
                                    .map(|&r| {
                                        c.match_node_inclusion_policies(
                                            info,
                                            &cluster.nodes[r],
                                            required.get_or_init(|| {
                                                repel_core::affinity::RequiredNodeAffinity::from_pod_spec(
                                                    info.spec(),
                                                )
                                            }),
                                            &self.gates,
                                        )
                                    })
                                    .collect(),
                            );
                            run.includes.insert(policies, i.clone());
                            i
                        }
                    };
                    let honor_taints = c.node_taints_policy == NodeInclusionPolicy::Honor;
                    let hostname = c.topology_key == LABEL_HOSTNAME;
                    let (max_skew, min_domains) = (c.max_skew, c.min_domains);
                    // The selector moves into the counts when it is new (not copied).
                    let selector = std::borrow::Cow::Owned(c.selector);
                    let sel = run.sel.selector(cluster, &info.namespace, sel_key, selector);
                    Spread {
                        honor_taints,
                        hostname,
                        self_match,
                        sel,
                        dom,
                        include,
                        max_skew,
                        min_domains,
                    }
                })
                .collect::<Vec<_>>()
        };
        let hard = compile_spreads(hard_c, run);
        let soft = compile_spreads(soft_c, run);
        let mut keys_of = |spreads: &[Spread]| -> Arc<[bool]> {
            let doms: Vec<usize> = spreads.iter().map(|s| s.dom).collect();
            if let Some(k) = run.keys.get(&doms) {
                return k.clone();
            }
            let k: Arc<[bool]> = run
                .reps
                .iter()
                .map(|&r| spreads.iter().all(|s| run.domains[s.dom].has[r]))
                .collect();
            run.keys.insert(doms, k.clone());
            k
        };
        let hard_keys = keys_of(&hard);
        let soft_keys = keys_of(&soft);
        // The eligible domains of each hard constraint: nodes with every key that the
        // node-inclusion policies admit, with or without matching pods.
        let mut hard_present = Vec::with_capacity(hard.len());
        let mut hard_domains = Vec::with_capacity(hard.len());
        for s in &hard {
            let d = &run.domains[s.dom];
            let mut present = vec![false; d.count];
            for (n, &c) in run.node_class.iter().enumerate() {
                let c = c as usize;
                if hard_keys[c] && s.include[c] {
                    present[d.of_node[n] as usize] = true;
                }
            }
            hard_domains.push(present.iter().filter(|p| **p).count());
            hard_present.push(present);
        }

        // Scoring: which plugins score (PreScore, once per static key), and the pod's requests.
        let (la_req, ba_req) = memo.score_key;
        let facts = match known {
            Some(f) => f,
            None => {
                let tt = self.plugin(taint_toleration::NAME)?;
                let na = self.plugin(node_affinity::NAME)?;
                let mut score_state = CycleState::default();
                let tt_scores =
                    tt.pre_score(&mut score_state, info, &[], cluster).code != Code::Skip;
                let na_st = na.pre_score(&mut score_state, info, &[], cluster);
                if na_st.code == Code::Error {
                    return None;
                }
                let na_scores = na_st.code != Code::Skip;
                let statics = Arc::new(self.compile_statics(
                    run,
                    cluster,
                    info,
                    (&state, skip_filters, &score_state),
                    (tt_scores, na_scores, per_node),
                    names,
                )?);
                let f = StaticFacts {
                    statics,
                    skip_filters,
                    per_node,
                    tt_scores,
                    na_scores,
                };
                run.statics.insert(static_key, f.clone());
                f
            }
        };
        // ImageLocality: the nodes holding the pod's images (none when no node reports any).
        let index = cluster.image_index();
        let images = (!index.is_empty())
            .then(|| {
                index
                    .scores(info.spec())
                    .into_iter()
                    .map(|(n, s)| (n, s.clamp(0, MAX_NODE_SCORE) * image_locality::WEIGHT))
                    .collect::<Arc<[(NodeId, i64)]>>()
            })
            .filter(|s| !s.is_empty());
        Some(PodClass {
            images,
            static_key,
            statics: facts.statics,
            skip_filters,
            need: needs(&info.requests),
            requests: info.requests.clone(),
            score_key: (la_req, ba_req),
            tt_scores: facts.tt_scores,
            na_scores: facts.na_scores,
            soft_require_all: explicit,
            hard,
            soft,
            hard_keys,
            soft_keys,
            hard_present,
            hard_domains,
        })
    }

    /// The static plugins' answers for a new static key: per node for a node-naming pod, else
    /// per node class with the nodes they let through.
    fn compile_statics(
        &self,
        run: &Run,
        cluster: &Cluster,
        info: &PodInfo,
        (state, skip_filters, score_state): (&CycleState, SkipSet, &CycleState),
        (tt_scores, na_scores, per_node): (bool, bool, bool),
        names: Option<BTreeSet<String>>,
    ) -> Option<Statics> {
        let tt = self.plugin(taint_toleration::NAME)?;
        let na = self.plugin(node_affinity::NAME)?;
        let statics = if per_node {
            Statics::PerNode {
                // In node order, as the reference visits them.
                candidates: names.map(|names| {
                    let mut ids: Vec<NodeId> =
                        names.iter().filter_map(|n| cluster.node_id(n)).collect();
                    ids.sort_unstable();
                    ids
                }),
            }
        } else {
            let nc = run.reps.len();
            let mut ok = Vec::with_capacity(nc);
            let mut tt_raw = Vec::with_capacity(nc);
            let mut na_raw = Vec::with_capacity(nc);
            for &r in &run.reps {
                let node = &cluster.nodes[r];
                ok.push(self.static_ok(state, skip_filters, info, node, cluster));
                tt_raw.push(if tt_scores {
                    tt.score(score_state, info, node, cluster).ok()?
                } else {
                    0
                });
                na_raw.push(if na_scores {
                    na.score(score_state, info, node, cluster).ok()?
                } else {
                    0
                });
            }
            let allowed = (0..cluster.nodes.len())
                .filter(|n| ok[run.node_class[*n] as usize])
                .collect();
            Statics::ByClass {
                tt_raw,
                na_raw,
                allowed,
                class_ok: ok,
            }
        };
        Some(statics)
    }

    pub(super) fn static_ok(
        &self,
        state: &CycleState,
        skip: SkipSet,
        pod: &PodInfo,
        node: &NodeInfo,
        cluster: &Cluster,
    ) -> bool {
        STATIC_FILTERS.iter().enumerate().all(|(i, name)| {
            skip.contains(i)
                || self
                    .plugin(name)
                    .is_some_and(|pl| pl.filter(state, pod, node, cluster).is_success())
        })
    }
}
