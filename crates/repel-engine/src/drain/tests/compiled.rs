//! The compiled what-ifs judge every node as the reference scheduler does, and undo restores the cluster.

use super::*;

/// A generated cluster with every pod placed, as `repel drain` loads one, and the controllers
/// of its pods (so that cluster-autoscaler finds them all).
/// A generated cluster as read, its pods not scheduled yet.
fn generated(
    shape: crate::generate::ClusterShape,
    nodes: usize,
    pods: usize,
    seed: u64,
) -> Cluster {
    let g = shape.generate(&crate::generate::GenerateOptions {
        nodes,
        pods,
        seed,
        taints_per_node: 0,
    });
    crate::load::build_cluster(
        g.input(),
        &repel_core::FeatureGates::default(),
        &repel_core::admission::AdmissionConfig::default(),
        seed,
    )
    .cluster
}

pub(super) fn placed(
    shape: crate::generate::ClusterShape,
    nodes: usize,
    pods: usize,
    seed: u64,
) -> (Cluster, Options) {
    let gates = repel_core::FeatureGates::default();
    let mut c = generated(shape, nodes, pods, seed);
    crate::scheduler::fast::FastScheduler::new(gates, None, seed).schedule_all(&mut c);
    let opts = Options {
        controllers: super::ca::pod_controllers(&c),
        ..Options::default()
    };
    (c, opts)
}

/// What a what-if may change, node by node and pod by pod.
fn fingerprint(c: &Cluster) -> String {
    let mut out = String::new();
    for n in &c.nodes {
        out += &format!(
            "{} {:?} {:?} {:?} {:?} {:?} {} {:?} {}\n",
            n.name,
            n.pods,
            n.requested,
            n.non_zero_requested,
            n.taints,
            n.used_ports,
            n.unschedulable,
            n.pods_with_required_anti_affinity,
            serde_json::to_string(&*n.node).unwrap_or_default()
        );
    }
    for p in &c.pods {
        out += &format!(
            "{} {:?} {:?} {:?} {:?} {}\n",
            p.key(),
            p.node,
            p.phase,
            p.nominated,
            p.spec_node_name(),
            p.deleted
        );
    }
    out
}

#[test]
fn the_compiled_first_fit_judges_every_node_as_the_reference_and_undo_restores_the_cluster() {
    use crate::generate::ClusterShape;
    for (shape, nodes, pods, seed) in [
        (ClusterShape::Default, 40, 1_200, 1),
        (ClusterShape::LargeWorkloads, 40, 1_200, 2),
        (ClusterShape::LargeWorkloads, 60, 2_400, 5),
    ] {
        let (c, opts) = placed(shape, nodes, pods, seed);
        let names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for independent in [true, false] {
            let cfg = cfg(Decider::ClusterAutoscaler(opts.clone()), independent);
            let mut a = c.clone();
            let (got, answered) = drain_ca_on(&mut a, &names, &opts, &cfg, &mut None, true);
            let mut b = c.clone();
            let (want, _) = drain_ca_on(&mut b, &names, &opts, &cfg, &mut None, false);
            assert!(answered.0 > 10 * answered.1, "{answered:?}");
            assert_eq!(got, want, "{shape} seed {seed} independent {independent}");
            assert_eq!(fingerprint(&a), fingerprint(&b));
            if independent {
                assert_eq!(fingerprint(&a), fingerprint(&c), "{shape} seed {seed}");
            }
            let moved = got
                .nodes
                .iter()
                .flat_map(|n| &n.pods)
                .filter(|p| matches!(p.action, PodAction::Move { .. }))
                .count();
            assert!(moved > 100, "{shape} seed {seed}: {moved} pods moved");
            assert!(got.nodes.iter().any(|n| n.drainable), "{shape} seed {seed}");
            assert!(
                got.nodes.iter().any(|n| !n.drainable),
                "{shape} seed {seed}"
            );
        }
    }
}

#[test]
fn karpenters_compiled_what_if_judges_every_node_as_the_reference_on_copies() {
    use crate::generate::ClusterShape;
    for (shape, nodes, pods, seed) in [
        (ClusterShape::Default, 40, 1_200, 1),
        (ClusterShape::LargeWorkloads, 40, 1_200, 2),
    ] {
        let (c, _) = placed(shape, nodes, pods, seed);
        let names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for independent in [true, false] {
            let cfg = cfg(Decider::Karpenter, independent);
            let want = on_copies(&c, &names, &cfg, |w, n| {
                karpenter::judge(
                    w,
                    n,
                    &cfg,
                    &crate::drain::PodsOn::new(w),
                    &mut crate::drain::Undo::default(),
                )
            });
            let mut a = c.clone();
            let (got, answered) = drain_karpenter_on(&mut a, &names, &cfg, true);
            assert_eq!(got, want, "{shape} seed {seed} independent {independent}");
            assert!(answered.0 > 10 * answered.1, "{answered:?}");
            let mut b = c.clone();
            let (reference, _) = drain_karpenter_on(&mut b, &names, &cfg, false);
            assert_eq!(got, reference);
            if independent {
                let mut hard = c.clone();
                karpenter::harden_taints(&mut hard, None);
                assert_eq!(fingerprint(&a), fingerprint(&hard), "{shape} seed {seed}");
            }
            let count = |f: fn(&PodAction) -> bool| {
                got.nodes
                    .iter()
                    .flat_map(|n| &n.pods)
                    .filter(|p| f(&p.action))
                    .count()
            };
            assert!(count(|a| matches!(a, PodAction::Move { .. })) > 100);
            assert!(count(|a| matches!(a, PodAction::Pending { .. })) > 0);
            assert!(got.nodes.iter().any(|n| n.drainable));
        }
    }
}

/// Each node judged by `judge` on a copy of the cluster: of `c` when `independent`, else of the
/// cluster the last drainable node left (the what-ifs before [`Undo`], kept to check it).
fn on_copies(
    c: &Cluster,
    nodes: &[&str],
    cfg: &DrainConfig,
    judge: impl Fn(&mut Cluster, NodeId) -> DrainVerdict,
) -> DrainReport {
    let mut carried = c.clone();
    let mut out = Vec::new();
    for name in nodes {
        let mut work = if cfg.independent {
            c.clone()
        } else {
            carried.clone()
        };
        let Some(node) = work.node_id(name) else {
            continue;
        };
        let verdict = judge(&mut work, node);
        if verdict.drainable && !cfg.independent {
            carried = work;
        }
        out.push(verdict);
    }
    DrainReport {
        as_: cfg.decider.name(),
        nodes: out,
    }
}

/// Budgets on the first `n` apps of `c` (their `app` label): every other one allows one
/// disruption (in its status, and as `maxUnavailable`), the others none, so that in a what-if
/// budgets change, evictions are refused and retried, and some refusals stand.
fn with_budgets(c: &mut Cluster, n: usize) {
    use k8s_openapi::api::policy::v1::{
        PodDisruptionBudget, PodDisruptionBudgetSpec, PodDisruptionBudgetStatus,
    };
    let mut apps: Vec<(String, String)> = c
        .pods
        .iter()
        .filter(|p| p.node.is_some())
        .filter_map(|p| Some((p.namespace.clone(), p.labels().get("app")?.clone())))
        .collect();
    apps.sort();
    apps.dedup();
    // Running, as a kubelet reports them: eviction consults no budget for a Pending pod.
    for p in c.pods.iter_mut().filter(|p| p.node.is_some()) {
        p.phase = crate::cluster::PodPhase::Running;
    }
    for (i, (ns, app)) in apps.into_iter().take(n).enumerate() {
        let allowed = i32::from(i % 2 == 0);
        c.pdbs.push(PodDisruptionBudget {
            metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                name: Some(format!("{app}-pdb")),
                namespace: Some(ns),
                ..Default::default()
            },
            spec: Some(PodDisruptionBudgetSpec {
                max_unavailable: Some(
                    k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(allowed),
                ),
                selector: Some(
                    k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector {
                        match_labels: Some([("app".to_string(), app)].into()),
                        ..Default::default()
                    },
                ),
                ..Default::default()
            }),
            status: Some(PodDisruptionBudgetStatus {
                disruptions_allowed: Some(allowed),
                ..Default::default()
            }),
        });
    }
}

#[test]
fn kubectls_compiled_what_if_places_as_the_reference_and_undo_restores_the_cluster() {
    use crate::generate::ClusterShape;
    let mut gone = 0;
    for (shape, nodes, pods, seed, budgets) in [
        (ClusterShape::Default, 40, 1_200, 1, 0),
        (ClusterShape::Default, 40, 1_400, 3, 8),
        (ClusterShape::LargeWorkloads, 40, 1_200, 2, 0),
        (ClusterShape::LargeWorkloads, 60, 2_400, 5, 0),
    ] {
        let (mut c, _) = placed(shape, nodes, pods, seed);
        with_budgets(&mut c, budgets);
        let names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let opts = DrainOptions {
            ignore_daemonsets: true,
            delete_emptydir_data: true,
            force: true,
            ..DrainOptions::default()
        };
        for independent in [true, false] {
            let cfg = cfg(Decider::Kubectl(opts.clone()), independent);
            let what = format!("{shape} seed {seed} independent {independent}");
            let mut a = c.clone();
            let mut ff = None;
            let (got, answered) = drain_kubectl_on(&mut a, &names, &opts, &cfg, &mut ff, true);
            assert!(answered.0 > 10 * answered.1, "{what}: {answered:?}");
            if independent {
                // Placements answered from the cluster before each what-if (the others fit
                // one node or none: the full path's).
                let (levels, built, _) = ff.as_ref().map_or((0, 0, 0), |f| f.what_if_stats());
                assert!(levels > 100 && built > 0, "{what}: {levels} {built}");
            }
            // The reference for every placement, on one working cluster put back each time.
            let mut b = c.clone();
            let (reference, answered) =
                drain_kubectl_on(&mut b, &names, &opts, &cfg, &mut None, false);
            assert_eq!(answered.0, 0);
            assert_eq!(got, reference, "{what}");
            // The reference on a copy of the cluster per node, nothing put back.
            let want = on_copies(&c, &names, &cfg, |w, n| {
                let name = w.nodes[n].name.clone();
                let (mut r, _) = drain_kubectl_on(w, &[&name], &opts, &cfg, &mut None, false);
                r.nodes.remove(0)
            });
            assert_eq!(got, want, "{what}");
            if independent {
                assert_eq!(fingerprint(&a), fingerprint(&c), "{what}");
                assert_eq!(
                    serde_json::to_string(&a.pdbs).ok(),
                    serde_json::to_string(&c.pdbs).ok(),
                    "{what}"
                );
            }
            let count = |f: fn(&PodAction) -> bool| {
                got.nodes
                    .iter()
                    .flat_map(|n| &n.pods)
                    .filter(|p| f(&p.action))
                    .count()
            };
            let verdicts: Vec<(bool, usize)> = got
                .nodes
                .iter()
                .map(|n| (n.drainable, n.pods.len()))
                .collect();
            assert!(
                count(|a| matches!(a, PodAction::Move { .. })) > 100,
                "{what}: {verdicts:?}"
            );
            gone += count(|a| matches!(a, PodAction::Gone { .. }));
            if budgets > 0 {
                assert!(
                    count(|a| matches!(a, PodAction::Blocked { .. })) > 0,
                    "{what}"
                );
            }
            assert!(got.nodes.iter().any(|n| n.drainable), "{what}");
            if !independent {
                assert!(
                    count(|a| matches!(a, PodAction::Pending { .. })) > 0,
                    "{what}"
                );
                assert!(got.nodes.iter().any(|n| !n.drainable), "{what}");
            }
        }
    }
    // Pods without a controller, deleted for good (--force), are put back too.
    assert!(gone > 0);
}

#[test]
fn kubectls_replacement_that_tolerates_the_cordon_may_land_back_on_the_node() {
    // Node a is the emptier: LeastAllocated prefers it. A replacement that tolerates
    // node.kubernetes.io/unschedulable passes NodeUnschedulable there, cordoned or not; one
    // that does not goes to b. The compiled path and the reference agree.
    let mut c = Cluster::new();
    c.add_node(node("a", "110"));
    c.add_node(node("b", "110"));
    let request = |v: &mut Value, cpu: &str| {
        v["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": cpu}});
    };
    c.add_pod(pod("default", "filler", "b", |v| {
        replicated(v);
        v["metadata"]["labels"] = json!({"app": "filler"});
        request(v, "2");
    }));
    c.add_pod(pod("default", "tolerant", "a", |v| {
        replicated(v);
        request(v, "100m");
        v["spec"]["tolerations"] = json!([{"key": "node.kubernetes.io/unschedulable",
            "operator": "Exists", "effect": "NoSchedule"}]);
    }));
    c.add_pod(pod("default", "plain", "a", |v| {
        replicated(v);
        v["metadata"]["labels"] = json!({"app": "plain"});
        request(v, "100m");
    }));
    let opts = DrainOptions::default();
    let cfg = cfg(Decider::Kubectl(opts.clone()), true);
    for compiled in [true, false] {
        let mut w = c.clone();
        let (r, answered) = drain_kubectl_on(&mut w, &["a"], &opts, &cfg, &mut None, compiled);
        assert_eq!(answered.0 > 0, compiled);
        assert!(r.nodes[0].drainable, "{r:?}");
        let to = |p| match action(&r.nodes[0], p) {
            PodAction::Move { to } => to,
            other => panic!("{other:?}"),
        };
        assert_eq!(to("default/tolerant"), "a", "compiled {compiled}");
        assert_eq!(to("default/plain"), "b", "compiled {compiled}");
    }
}

#[test]
fn kubectls_what_if_scores_every_node_whatever_the_state_was_scheduled_with() {
    // `repel drain` starts from the state of the run that scheduled its input, with the
    // user's percentageOfNodesToScore (upstream's adaptive one by default); a replacement is
    // still placed against every node (more than 100 nodes, so that 10% is fewer).
    let gates = repel_core::FeatureGates::default();
    let mut c = generated(crate::generate::ClusterShape::Default, 400, 8_000, 4);
    let mut fast = crate::scheduler::fast::FastScheduler::new(gates, Some(10), 4);
    fast.keep_state();
    fast.schedule_all(&mut c);
    let kept = FirstFit::from_scheduler(fast, &c);
    let names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
    let names: Vec<&str> = names.iter().take(60).map(String::as_str).collect();
    let opts = DrainOptions {
        ignore_daemonsets: true,
        delete_emptydir_data: true,
        force: true,
        ..DrainOptions::default()
    };
    let cfg = cfg(Decider::Kubectl(opts.clone()), true);
    let (got, answered) =
        drain_kubectl_on(&mut c.clone(), &names, &opts, &cfg, &mut Some(kept), true);
    assert!(answered.0 > 10 * answered.1, "{answered:?}");
    let (want, _) = drain_kubectl_on(&mut c.clone(), &names, &opts, &cfg, &mut None, false);
    assert_eq!(got, want);
}

#[test]
fn kubectls_replacements_land_where_schedule_puts_them_on_the_cordoned_cluster() {
    // `repel drain` and `repel schedule` answer the same question: a node's evicted pods
    // re-created on the cluster with the node cordoned (pods deleted for good gone) are
    // scheduled — a fresh scheduler, the same seed, every node scored, in queue order — where
    // the what-if moved them (nodes where a replacement fits nowhere are left out: the
    // scheduler would preempt).
    use crate::generate::ClusterShape;
    let mut checked = 0;
    for (shape, seed) in [
        (ClusterShape::Default, 6),
        (ClusterShape::LargeWorkloads, 7),
    ] {
        let (c, _) = placed(shape, 40, 900, seed);
        let opts = DrainOptions {
            ignore_daemonsets: true,
            delete_emptydir_data: true,
            force: true,
            ..DrainOptions::default()
        };
        let mut cfg = cfg(Decider::Kubectl(opts), true);
        cfg.seed = seed;
        let names: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let report = on_copy(&c, &names, &cfg);
        for v in report.nodes.iter().filter(|v| v.drainable) {
            let mut w = c.clone();
            let Some(node) = w.node_id(&v.node) else {
                continue;
            };
            w.set_unschedulable(node, true);
            let id_of = |w: &Cluster, key: &str| {
                (0..w.pods.len()).find(|&i| w.pods[i].key() == key && !w.pods[i].deleted)
            };
            let mut queue = Vec::new();
            let mut want = std::collections::BTreeMap::new();
            for p in &v.pods {
                let Some(id) = id_of(&w, &p.pod) else {
                    continue;
                };
                match &p.action {
                    PodAction::Move { to } => {
                        unschedule(&mut w, id);
                        queue.push(id);
                        want.insert(id, to.clone());
                    }
                    PodAction::Gone { .. } => w.force_delete_pod(id),
                    _ => {}
                }
            }
            Scheduler::queue_order(&w, &mut queue);
            let mut s = crate::scheduler::fast::FastScheduler::new(cfg.gates, Some(100), seed);
            for (id, placed) in queue.iter().zip(s.schedule_each(&mut w, &queue)) {
                match placed.outcome {
                    crate::scheduler::Outcome::Scheduled { node, .. } => {
                        assert_eq!(
                            Some(&w.nodes[node].name),
                            want.get(id),
                            "{shape}: {} from {}",
                            w.pods[*id].key(),
                            v.node
                        );
                    }
                    other => panic!("{other:?}"),
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} nodes compared");
}

/// Karpenter's consolidation tries its commands on the cluster itself: a trial refused, or
/// not to be committed, puts every change back (the candidates' `karpenter.sh/disrupted`
/// taints, the PreferNoSchedule taints made hard, the pods moved), and a command committed
/// after such trials leaves the cluster as the same command on a fresh copy does.
#[test]
fn karpenters_consolidation_trials_put_the_cluster_back() {
    use super::consolidate::remove_together;
    use crate::generate::ClusterShape;
    let mut went = 0;
    for (shape, nodes, pods, seed) in [
        (ClusterShape::Default, 40, 1_000, 1),
        (ClusterShape::LargeWorkloads, 40, 1_200, 2),
    ] {
        let (mut c, _) = placed(shape, nodes, pods, seed);
        // A soft taint on every third node, which Karpenter's scheduler reads as hard.
        for n in (0..c.nodes.len()).step_by(3) {
            let mut taints = c.nodes[n].taints.clone();
            taints.push(k8s_openapi::api::core::v1::Taint {
                key: "soft".into(),
                effect: "PreferNoSchedule".into(),
                ..Default::default()
            });
            c.set_node_taints(n, taints);
        }
        let cfg = cfg(Decider::Karpenter, false);
        let on = PodsOn::new(&c);
        let before = fingerprint(&c);
        let mut work = c.clone();
        // Every node at once: their pods fit nowhere.
        let all: Vec<String> = c.nodes.iter().map(|n| n.name.clone()).collect();
        assert!(remove_together(&mut work, &all, &cfg, &on, false).is_err());
        assert_eq!(fingerprint(&work), before, "{shape} seed {seed}");
        // The emptiest nodes, two by two, tried and put back.
        let mut emptiest = all.clone();
        emptiest.sort_by_key(|n| c.node_id(n).map(|id| c.nodes[id].pods.len()));
        let mut goes = None;
        for pair in emptiest.chunks(2).take(10) {
            let tried = remove_together(&mut work, pair, &cfg, &on, false);
            assert_eq!(fingerprint(&work), before, "{shape} seed {seed} {pair:?}");
            if tried
                .as_ref()
                .is_ok_and(|v| v.iter().any(|v| !v.pods.is_empty()))
            {
                goes.get_or_insert(pair.to_vec());
            }
        }
        let Some(pair) = goes else {
            continue;
        };
        went += 1;
        let mut fresh = c.clone();
        let committed = remove_together(&mut work, &pair, &cfg, &on, true);
        assert!(committed.is_ok());
        assert_eq!(
            committed,
            remove_together(&mut fresh, &pair, &cfg, &on, true)
        );
        assert_eq!(
            fingerprint(&work),
            fingerprint(&fresh),
            "{shape} seed {seed}"
        );
        assert!(pair.iter().all(|n| work.node_id(n).is_none()));
    }
    assert!(went > 0, "no pair of nodes could go together");
}
