//! End-to-end scheduling on the documentation's patterns (seeds/002, seeds/003): what the docs
//! promise is what the default profile does.

use k8s_openapi::api::core::v1::{Node, Pod};
use repel_engine::{Cluster, Outcome, Scheduler, schedule_all};
use serde_json::{Value, json};

const MSG_SUFFIX_ONE: &str = "no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";

fn node(name: &str, labels: Value, taints: Value) -> Node {
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": taints},
        "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}
    }))
    .unwrap()
}

fn pod(name: &str, spec: Value) -> Pod {
    let mut spec = spec;
    spec["containers"] = json!([{"name": "c", "image": "nginx"}]);
    serde_json::from_value(
        json!({"metadata": {"name": name, "namespace": "default"}, "spec": spec}),
    )
    .unwrap()
}

fn dedicated_affinity() -> Value {
    json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "dedicated", "operator": "In", "values": ["groupName"]}]}]}}})
}

fn placements(c: &mut Cluster, seed: u64) -> Vec<(String, Option<String>)> {
    let mut s = Scheduler::new(Default::default(), None, seed);
    schedule_all(&mut s, c)
        .into_iter()
        .map(|p| {
            let node = match p.outcome {
                Outcome::Scheduled { node, .. } => Some(c.nodes[node].name.clone()),
                Outcome::Unschedulable { .. } => None,
            };
            (c.pods[p.pod].key(), node)
        })
        .collect()
}

#[test]
fn a_taint_keeps_a_pod_without_the_toleration_off() {
    let mut c = Cluster::new();
    c.add_node(node(
        "tainted",
        json!({}),
        json!([{"key": "k", "effect": "NoSchedule"}]),
    ));
    let id = c.add_pod(pod("p", json!({})));
    let mut s = Scheduler::new(Default::default(), None, 0);
    match s.schedule_one(&mut c, id) {
        Outcome::Unschedulable { message, nominated } => {
            assert_eq!(
                message,
                format!(
                    "0/1 nodes are available: 1 node(s) had untolerated taint(s). {MSG_SUFFIX_ONE}"
                )
            );
            assert!(nominated.is_none());
        }
        other => panic!("{other:?}"),
    }
}

/// The dedicated-nodes recipe: taint + label + required affinity puts the group on its nodes
/// and only there; the toleration alone lets pods land anywhere.
#[test]
fn dedicated_nodes_pattern() {
    let mut c = Cluster::new();
    c.add_node(node("general-1", json!({}), json!([])));
    c.add_node(node("general-2", json!({}), json!([])));
    c.add_node(node(
        "dedicated-1",
        json!({"dedicated": "groupName"}),
        json!([{"key": "dedicated", "value": "groupName", "effect": "NoSchedule"}]),
    ));
    let tol = json!([{"key": "dedicated", "operator": "Equal", "value": "groupName", "effect": "NoSchedule"}]);
    for i in 0..5 {
        c.add_pod(pod(
            &format!("group-{i}"),
            json!({"tolerations": tol, "affinity": dedicated_affinity()}),
        ));
        c.add_pod(pod(&format!("other-{i}"), json!({})));
    }
    for (pod, node) in placements(&mut c, 1) {
        let node = node.unwrap();
        if pod.starts_with("default/group-") {
            assert_eq!(node, "dedicated-1", "{pod}: the group goes to its nodes");
        } else {
            assert_ne!(node, "dedicated-1", "{pod}: others are kept off");
        }
    }
    let mut c2 = Cluster::new();
    c2.add_node(node("general-1", json!({}), json!([])));
    c2.add_node(node(
        "dedicated-1",
        json!({"dedicated": "groupName"}),
        json!([{"key": "dedicated", "value": "groupName", "effect": "NoSchedule"}]),
    ));
    for i in 0..20 {
        c2.add_pod(pod(&format!("tol-only-{i}"), json!({"tolerations": tol})));
    }
    let nodes: Vec<String> = placements(&mut c2, 3)
        .into_iter()
        .filter_map(|(_, n)| n)
        .collect();
    assert!(
        nodes.iter().any(|n| n == "general-1"),
        "the toleration alone lets pods land elsewhere: {nodes:?}"
    );
}

/// AKS Spot: toleration + affinity lands on spot; the toleration without affinity may not.
#[test]
fn spot_pool_pattern() {
    let mut c = Cluster::new();
    let key = "kubernetes.azure.com/scalesetpriority";
    c.add_node(node("regular", json!({}), json!([])));
    c.add_node(node(
        "spot-1",
        json!({key: "spot"}),
        json!([{"key": key, "value": "spot", "effect": "NoSchedule"}]),
    ));
    let tol = json!([{"key": key, "operator": "Equal", "value": "spot", "effect": "NoSchedule"}]);
    let aff = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "In", "values": ["spot"]}]}]}}});
    c.add_pod(pod("spot", json!({"tolerations": tol, "affinity": aff})));
    c.add_pod(pod("plain", json!({})));
    let got = placements(&mut c, 0);
    assert_eq!(got[0], ("default/spot".into(), Some("spot-1".into())));
    assert_eq!(got[1], ("default/plain".into(), Some("regular".into())));
}

/// PreferNoSchedule: avoided while an untainted node fits, used when none does.
#[test]
fn prefer_no_schedule_is_a_preference() {
    let mut c = Cluster::new();
    c.add_node(node(
        "soft",
        json!({}),
        json!([{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]),
    ));
    c.add_node(node("clean", json!({}), json!([])));
    for i in 0..10 {
        c.add_pod(pod(&format!("p{i}"), json!({})));
    }
    for (p, n) in placements(&mut c, 5) {
        assert_eq!(
            n.as_deref(),
            Some("clean"),
            "{p}: TaintToleration's weight 3 outweighs spreading"
        );
    }
    let mut only_soft = Cluster::new();
    only_soft.add_node(node(
        "soft",
        json!({}),
        json!([{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]),
    ));
    only_soft.add_node(node(
        "hard",
        json!({}),
        json!([{"key": "x", "effect": "NoSchedule"}]),
    ));
    only_soft.add_pod(pod("p", json!({})));
    assert_eq!(
        placements(&mut only_soft, 0),
        vec![("default/p".to_string(), Some("soft".to_string()))]
    );
}

/// Priority first, then creation order (PrioritySort).
#[test]
fn queue_order_is_priority_then_creation() {
    let mut c = Cluster::new();
    c.add_node(node("n", json!({}), json!([])));
    c.add_pod(pod("low", json!({"priority": 1})));
    c.add_pod(pod("high", json!({"priority": 100})));
    c.add_pod(pod("low-2", json!({"priority": 1})));
    let order: Vec<String> = placements(&mut c, 0).into_iter().map(|(p, _)| p).collect();
    assert_eq!(order, ["default/high", "default/low", "default/low-2"]);
}

/// 200 nodes, 2,000 pods, the same seed twice: the same placements, pod by pod.
#[test]
fn the_same_seed_places_identically() {
    let build = || {
        let mut c = Cluster::new();
        for i in 0..200 {
            let taints = if i % 10 == 0 {
                json!([{"key": "pool", "value": "gpu", "effect": "NoSchedule"}])
            } else if i % 7 == 0 {
                json!([{"key": "spot", "effect": "PreferNoSchedule"}])
            } else {
                json!([])
            };
            c.add_node(node(
                &format!("node-{i}"),
                json!({"topology.kubernetes.io/zone": format!("zone-{}", i % 3)}),
                taints,
            ));
        }
        for i in 0..2000 {
            let spec = if i % 5 == 0 {
                json!({"tolerations": [{"key": "pool", "operator": "Exists"}]})
            } else {
                json!({})
            };
            c.add_pod(pod(&format!("p-{i}"), spec));
        }
        c
    };
    let a = placements(&mut build(), 42);
    let b = placements(&mut build(), 42);
    assert_eq!(a.len(), 2000);
    assert!(a.iter().all(|(_, n)| n.is_some()));
    assert_eq!(a, b);
    let c = placements(&mut build(), 43);
    assert_ne!(a, c, "another seed breaks ties differently");
}

#[test]
fn num_feasible_nodes_to_find_is_upstreams() {
    let s = Scheduler::new(Default::default(), None, 0);
    #[rustfmt::skip]
    let cases = [
        ("fewer than 100 nodes: all", 50, 50),
        ("100 nodes: all (50 - 0 = 50% of 100 is 50, floor 100)", 100, 100),
        ("1000 nodes: 50 - 8 = 42%", 1000, 420),
        ("5000 nodes: 50 - 40 = 10%", 5000, 500),
        ("6000 nodes: at least 5%", 6000, 300),
    ];
    for (name, n, want) in cases {
        assert_eq!(s.num_feasible_nodes_to_find(n), want, "{name}");
    }
    let all = Scheduler::new(Default::default(), Some(100), 0);
    assert_eq!(
        all.num_feasible_nodes_to_find(5000),
        5000,
        "--percentage-of-nodes-to-score 100 scores every node"
    );
}

/// Upstream's system default constraints (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway)
/// spread a ReplicaSet's pods, found through their ownerReference.
#[test]
fn default_topology_spreading_for_workload_pods() {
    use k8s_openapi::api::apps::v1::Deployment;
    use repel_core::workload::Workload;
    let dep: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "w"}]}}}
    })).unwrap();
    for seed in 0..5 {
        let input = repel_engine::load::ClusterInput {
            nodes: vec![
                node(
                    "a",
                    json!({"kubernetes.io/hostname": "a", "topology.kubernetes.io/zone": "z1"}),
                    json!([]),
                ),
                node(
                    "b",
                    json!({"kubernetes.io/hostname": "b", "topology.kubernetes.io/zone": "z2"}),
                    json!([]),
                ),
            ],
            workloads: vec![Workload::from(dep.clone())],
            ..Default::default()
        };
        let mut built = repel_engine::load::build_cluster(
            input,
            &Default::default(),
            &Default::default(),
            seed,
        );
        let got = placements(&mut built.cluster, seed);
        let on_a = got
            .iter()
            .filter(|(_, n)| n.as_deref() == Some("a"))
            .count();
        assert_eq!(on_a, 3, "seed {seed}: {got:?}");
    }
}

/// A node with `cpu` allocatable.
fn sized_node(name: &str, labels: Value, taints: Value, cpu: &str) -> Node {
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": taints},
        "status": {"allocatable": {"cpu": cpu, "memory": "32Gi", "pods": "110"}}
    }))
    .unwrap()
}

/// A pod requesting `cpu`, of `priority`, with `spec`'s other fields.
fn sized_pod(name: &str, cpu: &str, priority: i32, spec: Value) -> Pod {
    let mut spec = spec;
    spec["priority"] = json!(priority);
    spec["containers"] =
        json!([{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]);
    serde_json::from_value(
        json!({"metadata": {"name": name, "namespace": "default"}, "spec": spec}),
    )
    .unwrap()
}

/// `evaluate_filters` is `evaluate` without the scores: the same feasible nodes, the same
/// rejections, and when no node fits the same PostFilter (preemption's nominee and victims)
/// and the FitError text `schedule_one` gives the pod.
#[test]
fn evaluate_filters_is_evaluate_without_the_scores() {
    let mut c = Cluster::new();
    c.add_node(sized_node(
        "tainted",
        json!({"pool": "tainted"}),
        json!([{"key": "k", "effect": "NoSchedule"}]),
        "8",
    ));
    let full = c.add_node(sized_node("full", json!({"pool": "full"}), json!([]), "8"));
    c.add_node(sized_node("free", json!({"pool": "free"}), json!([]), "8"));
    let low = c.add_pod(sized_pod("low", "6", 0, json!({})));
    c.bind(low, full);
    let on_full = json!({"nodeSelector": {"pool": "full"}});
    let cases: Vec<(&str, Pod, Option<&str>)> = vec![
        ("two nodes fit", sized_pod("fits", "1", 0, json!({})), None),
        (
            "preemption nominates the full node",
            sized_pod("preempts", "4", 1000, on_full.clone()),
            Some(
                "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s).",
            ),
        ),
        (
            "preemption cannot help",
            sized_pod("nowhere", "1", 0, json!({"nodeSelector": {"pool": "none"}})),
            Some(
                "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            ),
        ),
        (
            "a lower priority cannot preempt",
            sized_pod("yields", "4", 0, on_full),
            Some(
                "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
            ),
        ),
    ];
    let rejected = |e: &repel_engine::scheduler::Evaluation| -> Vec<(usize, &str, Vec<String>)> {
        e.diagnosis
            .rejected()
            .map(|(n, st)| (n, st.plugin, st.reasons.clone()))
            .collect()
    };
    for (name, p, message) in cases {
        let mut c = c.clone();
        let id = c.add_pod(p);
        let info = c.pods[id].clone();
        let mut s = Scheduler::new(Default::default(), Some(100), 0);
        let full_eval = s.evaluate(&c, &info);
        let filters = s.evaluate_filters(&c, &info);
        assert!(filters.scores.is_empty(), "{name}");
        assert_eq!(filters.feasible, full_eval.feasible, "{name}");
        assert_eq!(rejected(&filters), rejected(&full_eval), "{name}");
        assert_eq!(filters.message, full_eval.message, "{name}");
        assert_eq!(filters.preemption, full_eval.preemption, "{name}");
        match message {
            None => {
                assert_eq!(filters.feasible.len(), 2, "{name}");
                assert_eq!(full_eval.scores.len(), 2, "{name}: evaluate scores");
                assert!(filters.message.is_empty(), "{name}");
            }
            Some(want) => {
                assert!(filters.feasible.is_empty(), "{name}");
                assert_eq!(filters.message, want, "{name}");
                match Scheduler::new(Default::default(), Some(100), 0).schedule_one(&mut c, id) {
                    Outcome::Unschedulable { message, nominated } => {
                        assert_eq!(filters.message, message, "{name}: schedule_one's text");
                        assert_eq!(filters.preemption, nominated, "{name}");
                    }
                    other => panic!("{name}: {other:?}"),
                }
            }
        }
    }
}
