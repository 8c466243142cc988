//! A DaemonSet's new template rolls node by node (upstream `RollingUpdate`, `maxUnavailable`
//! 1): at every pass at most one node's pod is replaced, every pod ends on
//! the new template, each old pod is deleted with `SuccessfulDelete` "Deleted pod: NAME". With
//! `OnDelete`, nothing is replaced.

use repel_core::workload::Workload;
use repel_engine::cluster::PodPhase;
use repel_engine::load::ClusterInput;
use repel_engine::sim::Simulation;
use serde_json::{Value, json};

use crate::util;

fn ds(image: &str, strategy: Value) -> Workload {
    Workload::DaemonSet(
        serde_json::from_value(json!({
            "apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "agent", "namespace": "kube-system"},
            "spec": {"selector": {"matchLabels": {"app": "agent"}},
                     "updateStrategy": strategy,
                     "template": {"metadata": {"labels": {"app": "agent"}},
                                  "spec": {"containers": [{"name": "a", "image": image}]}}}
        }))
        .unwrap(),
    )
}

fn sim(strategy: Value) -> Simulation {
    let mut s = Simulation::new(
        ClusterInput {
            nodes: util::ready_nodes(4),
            workloads: vec![ds("agent:1", strategy)],
            ..Default::default()
        },
        util::config(3),
    );
    s.settle();
    s
}

fn images(s: &Simulation) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = s
        .cluster
        .pods
        .iter()
        .filter(|p| !p.deleted && p.phase == PodPhase::Running)
        .map(|p| {
            (
                p.node
                    .map(|n| s.cluster.nodes[n].name.clone())
                    .unwrap_or_default(),
                p.spec().containers[0].image.clone().unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_new_template_rolls_one_node_at_a_time() {
    let mut s = sim(json!({"type": "RollingUpdate"}));
    assert_eq!(images(&s).len(), 4);
    assert!(
        s.plane
            .workloads
            .replace(ds("agent:2", json!({"type": "RollingUpdate"})))
    );
    let events_before = s.events.len();
    let now = s.now;
    let mut passes = 0;
    loop {
        let before = s.events.len();
        let changed = s.plane.pass(now, &mut s.cluster, &mut s.events);
        let deleted = s.events[before..]
            .iter()
            .filter(|e| e.reason == "SuccessfulDelete")
            .count();
        assert!(
            deleted <= 1,
            "more than one node without the agent in a pass"
        );
        if !changed {
            break;
        }
        passes += 1;
        assert!(passes < 50, "never settles");
    }
    assert!(passes >= 4, "one node per pass at most: {passes} passes");
    assert_eq!(
        images(&s),
        (0..4)
            .map(|i| (format!("n{i}"), "agent:2".to_string()))
            .collect::<Vec<_>>()
    );
    let deleted: Vec<&str> = s.events[events_before..]
        .iter()
        .filter(|e| e.reason == "SuccessfulDelete")
        .map(|e| e.message.as_str())
        .collect();
    assert_eq!(deleted.len(), 4, "{deleted:?}");
    assert!(deleted.iter().all(|m| m.starts_with("Deleted pod: agent-")));
}

#[test]
fn on_delete_replaces_nothing() {
    let mut s = sim(json!({"type": "OnDelete"}));
    assert!(
        s.plane
            .workloads
            .replace(ds("agent:2", json!({"type": "OnDelete"})))
    );
    s.settle();
    assert!(images(&s).iter().all(|(_, i)| i == "agent:1"));
}

#[test]
fn max_unavailable_two_replaces_two_at_a_time() {
    let strategy = json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}});
    let mut s = sim(strategy.clone());
    assert!(s.plane.workloads.replace(ds("agent:2", strategy)));
    let now = s.now;
    let mut most = 0;
    loop {
        let before = s.events.len();
        let changed = s.plane.pass(now, &mut s.cluster, &mut s.events);
        most = most.max(
            s.events[before..]
                .iter()
                .filter(|e| e.reason == "SuccessfulDelete")
                .count(),
        );
        if !changed {
            break;
        }
    }
    assert_eq!(most, 2, "two nodes at a time");
    assert!(images(&s).iter().all(|(_, i)| i == "agent:2"));
}

/// `maxSurge` 1 (`maxUnavailable` 0, as upstream's validation requires with a surge): each
/// node's new pod starts beside its old one, one node at a time, and the old pod goes once
/// the new one runs — no node is ever without a running agent.
#[test]
fn max_surge_starts_the_new_pod_before_the_old_one_goes() {
    let strategy = json!({"type": "RollingUpdate",
                          "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}});
    let mut s = sim(strategy.clone());
    assert!(s.plane.workloads.replace(ds("agent:2", strategy)));
    let events_before = s.events.len();
    let now = s.now;
    let mut passes = 0;
    loop {
        let changed = s.plane.pass(now, &mut s.cluster, &mut s.events);
        let mut per_node = std::collections::BTreeMap::<String, (usize, usize)>::new();
        for p in s
            .cluster
            .pods
            .iter()
            .filter(|p| !p.deleted && !p.terminating)
        {
            let node = p
                .node
                .map(|n| s.cluster.nodes[n].name.clone())
                .or_else(|| p.spec_node_name().map(str::to_string))
                .unwrap_or_else(|| {
                    repel_core::workload::claim::pinned_node(p.spec()).unwrap_or_default()
                });
            let e = per_node.entry(node).or_default();
            e.0 += 1;
            if p.phase == PodPhase::Running {
                e.1 += 1;
            }
        }
        assert_eq!(per_node.len(), 4, "{per_node:?}");
        assert!(
            per_node.values().all(|(_, running)| *running >= 1),
            "a node without a running agent: {per_node:?}"
        );
        assert!(
            per_node.values().filter(|(live, _)| *live > 1).count() <= 1,
            "more than one node surging: {per_node:?}"
        );
        if !changed {
            break;
        }
        passes += 1;
        assert!(passes < 50, "never settles");
    }
    assert_eq!(
        images(&s),
        (0..4)
            .map(|i| (format!("n{i}"), "agent:2".to_string()))
            .collect::<Vec<_>>()
    );
    let count = |reason: &str| {
        s.events[events_before..]
            .iter()
            .filter(|e| e.reason == reason)
            .count()
    };
    assert_eq!(
        (count("SuccessfulCreate"), count("SuccessfulDelete")),
        (4, 4)
    );
}
