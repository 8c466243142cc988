//! A session's what-ifs against the same what-ifs on a copy compiled anew, and which judges a
//! session keeps the compiled state for.

use super::*;
use crate::drain::consolidate::cluster_autoscaler;
use crate::generate::{ClusterShape, GenerateOptions};
use crate::kubectl::drain::DrainOptions;

const NOW: i64 = 2_000_000_000;

fn input(shape: ClusterShape, seed: u64) -> ClusterInput {
    shape
        .generate(&GenerateOptions {
            nodes: 30,
            pods: 600,
            seed,
            taints_per_node: 0,
        })
        .input()
}

fn opts(seed: u64) -> SessionOptions {
    SessionOptions {
        seed,
        now_unix: NOW,
        ..SessionOptions::default()
    }
}

fn deciders(c: &Cluster) -> Vec<Decider> {
    vec![
        Decider::Kubectl(DrainOptions {
            ignore_daemonsets: true,
            delete_emptydir_data: true,
            force: true,
            ..DrainOptions::default()
        }),
        Decider::ClusterAutoscaler(ca::Options {
            controllers: ca::pod_controllers(c),
            ..ca::Options::default()
        }),
        Decider::Karpenter,
    ]
}

#[test]
fn a_session_keeps_the_compiled_state_only_for_a_judge_that_starts_from_it() {
    for (judge, kept) in [
        (Judge::Kubectl, true),
        (Judge::ClusterAutoscaler, true),
        (Judge::Karpenter, false),
    ] {
        let s = Session::new(input(ClusterShape::Default, 1), &opts(1), judge);
        assert_eq!(s.has_compiled_state(), kept, "{judge:?}");
    }
}

#[test]
fn a_session_knows_the_workloads_of_its_input_and_their_replica_sets() {
    let s = Session::new(input(ClusterShape::Default, 2), &opts(2), Judge::Kubectl);
    assert!(s.workloads.iter().any(|(k, _, _)| k == "Deployment"));
    assert!(s.workloads.iter().any(|(k, _, _)| k == "ReplicaSet"));
}

#[test]
fn a_session_drain_judges_as_a_drain_of_a_copy_compiled_anew() {
    for (shape, seed) in [
        (ClusterShape::Default, 3),
        (ClusterShape::LargeWorkloads, 4),
    ] {
        for independent in [true, false] {
            let scheduled = Session::new(input(shape, seed), &opts(seed), Judge::Karpenter);
            let c = scheduled.cluster().clone();
            let names: Vec<&str> = c.nodes.iter().map(|n| n.name.as_str()).collect();
            for decider in deciders(&c) {
                let name = decider.name();
                let cfg = DrainConfig {
                    decider: decider.clone(),
                    independent,
                    now_unix: NOW,
                    gates: FeatureGates::default(),
                    seed,
                };
                let want = crate::drain::on_copy(&c, &names, &cfg);
                let mut s = Session::new(input(shape, seed), &opts(seed), decider.judge());
                let got = drain(&mut s, &names, decider, independent);
                assert_eq!(got, want, "{shape} {name} independent={independent}");
                if independent {
                    // The cluster is as it was, and the compiled state kept for the next one.
                    assert_eq!(s.cluster().pods.len(), c.pods.len(), "{shape} {name}");
                    for (a, b) in s.cluster().pods.iter().zip(&c.pods) {
                        assert_eq!(a.node, b.node, "{shape} {name} {}", a.key());
                    }
                    assert_eq!(
                        s.has_compiled_state(),
                        name != "karpenter",
                        "{shape} {name}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_session_consolidation_is_cluster_autoscalers_on_the_cluster_compiled_anew() {
    let mut s = Session::new(
        input(ClusterShape::Default, 5),
        &opts(5),
        Judge::ClusterAutoscaler,
    );
    let c = s.cluster().clone();
    let (options, cfg) = ca_config(&c, 5);
    let want = cluster_autoscaler(&c, &options, 0.5, &cfg);
    let got = consolidate(
        &mut s,
        Consolidator::ClusterAutoscaler {
            options,
            threshold: 0.5,
        },
    );
    assert_eq!(got, want);
    assert!(!s.has_compiled_state(), "consolidation uses the state up");
}

/// Consolidation with the nodes that go buried in the working cluster and removed together
/// when a judgement would see them (among them nodes that go with nothing to move: nodes
/// tainted so that only DaemonSet pods run there) finds what removing each when it goes
/// finds: the same nodes, the pods to the same nodes, the same nodes kept and why.
#[test]
fn consolidation_removing_empty_nodes_together_finds_what_one_by_one_finds() {
    use crate::drain::consolidate::cluster_autoscaler_in;
    use k8s_openapi::api::core::v1::Taint;
    for shape in [ClusterShape::Default, ClusterShape::LargeWorkloads] {
        // Lightly loaded: some nodes' pods fit elsewhere.
        let mut input = shape
            .generate(&GenerateOptions {
                nodes: 30,
                pods: 200,
                seed: 9,
                taints_per_node: 0,
            })
            .input();
        for (i, at) in [2usize, 9, 16, 23].into_iter().enumerate() {
            let mut node = input.nodes[at].clone();
            let name = format!("empty-{i}");
            node.metadata.name = Some(name.clone());
            if let Some(l) = node.metadata.labels.as_mut() {
                l.insert("kubernetes.io/hostname".to_string(), name);
            }
            node.spec.get_or_insert_with(Default::default).taints = Some(vec![Taint {
                key: "example.com/empty".into(),
                value: Some("true".into()),
                effect: "NoSchedule".into(),
                time_added: None,
            }]);
            input.nodes.insert(at, node);
        }
        let s = Session::new(input, &opts(9), Judge::ClusterAutoscaler);
        let c = s.cluster().clone();
        let (options, cfg) = ca_config(&c, 9);
        let together = cluster_autoscaler_in(&c, &options, 0.8, &cfg, None, true);
        let one_by_one = cluster_autoscaler_in(&c, &options, 0.8, &cfg, None, false);
        assert_eq!(together, one_by_one, "{shape:?}");
        let gone = |f: fn(&crate::drain::consolidate::Removable) -> bool| {
            together.removable.iter().filter(|r| f(r)).count()
        };
        assert!(
            gone(|r| r.node.starts_with("empty-")) >= 3,
            "{shape:?} {together:?}"
        );
        assert!(gone(|r| !r.pods.is_empty()) >= 1, "{shape:?} {together:?}");
    }
}

/// cluster-autoscaler's options for the pods of `c` (their controllers found), and a drain
/// configuration of a sequence judged with them.
fn ca_config(c: &Cluster, seed: u64) -> (ca::Options, DrainConfig) {
    let options = ca::Options {
        controllers: ca::pod_controllers(c),
        ..ca::Options::default()
    };
    let cfg = DrainConfig {
        decider: Decider::ClusterAutoscaler(options.clone()),
        independent: false,
        now_unix: NOW,
        gates: FeatureGates::default(),
        seed,
    };
    (options, cfg)
}
