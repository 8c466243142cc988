//! Thousands of `kubectl taint` steps on one node: a step costs what it touches (the
//! node's taints, moved in place, not copied), not the steps before it. The cluster used to keep
//! every taint set a node ever had and search them all at each change, so N steps took O(N²)
//! time and memory: these scenarios took 4.8 s and 2.6 s in a release build then (5,000
//! distinct taints added one by one: 174 s and 2.4 GB), and take a second or two in a debug
//! build now. The speed itself is measured with the release binary (README, "CLI input").

use k8s_openapi::api::core::v1::Taint;
use repel_engine::scenario::{Step, StepAction};
use repel_engine::sim::Simulation;
use serde_json::json;

use crate::util;

fn one_node() -> Simulation {
    let node = serde_json::from_value(json!({
        "metadata": {"name": "node1", "labels": {"kubernetes.io/hostname": "node1"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}
    }))
    .unwrap();
    util::settled(vec![node], 1)
}

/// Runs `lines` as `kubectl` steps one second apart; every step must succeed.
fn run(sim: &mut Simulation, lines: impl Iterator<Item = String>) {
    for (index, line) in lines.enumerate() {
        let at = (index as i64 + 1) * 1000;
        sim.advance_to(at);
        sim.apply_step(&Step {
            index,
            at,
            action: StepAction::Kubectl(line),
        });
        let record = sim.steps.last().unwrap();
        assert!(record.ok, "step {index}: {record:?}");
    }
}

fn taint(key: &str, value: &str) -> Taint {
    repel_core::testing::taint(key, value, "NoSchedule")
}

#[test]
fn five_thousand_overwrites_of_fifty_taints() {
    let mut sim = one_node();
    let steps = 5000;
    run(
        &mut sim,
        (0..steps).map(|i| format!("taint nodes node1 k{}=v{i}:NoSchedule --overwrite", i % 50)),
    );
    assert_eq!(sim.steps.len(), steps);
    // With --overwrite kubectl says "modified", even of a taint it adds.
    assert!(
        sim.steps
            .iter()
            .all(|s| s.output == ["node/node1 modified"])
    );
    // kubectl puts the taint it writes first: the last written leads.
    let want: Vec<Taint> = (steps - 50..steps)
        .rev()
        .map(|i| taint(&format!("k{}", i % 50), &format!("v{i}")))
        .collect();
    assert_eq!(sim.cluster.nodes[0].taints, want);
    assert_eq!(
        sim.cluster.nodes[0]
            .node
            .spec
            .as_ref()
            .and_then(|s| s.taints.as_ref()),
        Some(&want),
        "the Node object carries the same taints"
    );
}

#[test]
fn a_thousand_taints_added_one_by_one_then_removed() {
    let mut sim = one_node();
    let n = 1000;
    run(
        &mut sim,
        (0..n)
            .map(|i| format!("taint nodes node1 k{i}=v:NoSchedule"))
            .chain((0..n).map(|i| format!("taint nodes node1 k{i}:NoSchedule-"))),
    );
    assert_eq!(sim.steps.len(), 2 * n);
    assert_eq!(sim.steps[n - 1].output, ["node/node1 tainted"]);
    assert_eq!(sim.steps[n].output, ["node/node1 untainted"]);
    assert_eq!(sim.cluster.nodes[0].taints, Vec::<Taint>::new());
}
