//! Upstream `default_preemption_test.go` (v1.35): TestPostFilter, TestDryRunPreemption,
//! TestSelectBestCandidate, TestPodEligibleToPreemptOthers and `filterPodsWithPDBViolation`,
//! ported with a test-only resource filter (NodeResourcesFit is written elsewhere).

mod candidates;
mod graceful;
mod post_filter;

use std::collections::BTreeMap;

use repel_core::FeatureGates;
use repel_core::k8s_openapi::api::core::v1::{Node, Pod, PodCondition, PodStatus};
use repel_core::k8s_openapi::api::policy::v1::PodDisruptionBudget;
use repel_core::k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    LabelSelector as ApiSelector, Time,
};

use super::*;
use crate::cluster::NodeInfo;
use crate::scheduler::framework::{Plugin, PreFilterResult};
use crate::scheduler::{Entry, Profile};
use repel_core::testing::{MakeNode, MakePdb, MakePod};

const NEG: i32 = -100;
const LOW: i32 = 0;
const MID: i32 = 100;
const HIGH: i32 = 1000;
const VERY_HIGH: i32 = 10000;

/// `(milli-cpu, memory)` of upstream's `smallRes`, `mediumRes`, `largeRes`, `veryLargeRes`.
const SMALL: (i64, i64) = (100, 100);
const MEDIUM: (i64, i64) = (200, 200);
const LARGE: (i64, i64) = (300, 300);
const VERY_LARGE: (i64, i64) = (500, 500);
const NONE: (i64, i64) = (0, 0);

/// A stand-in for NodeResourcesFit's filter: pod count, then cpu, then memory.
struct TestFit;

impl Plugin for TestFit {
    fn name(&self) -> &'static str {
        "TestFit"
    }

    fn filter(&self, _: &CycleState, pod: &PodInfo, node: &NodeInfo, _: &Cluster) -> Status {
        let mut reasons = Vec::new();
        if node.pods.len() as i64 + 1 > node.allocatable.allowed_pod_number {
            reasons.push("Too many pods".to_string());
        }
        let (req, used, cap) = (&pod.requests, &node.requested, &node.allocatable);
        if req.milli_cpu > 0 && req.milli_cpu > cap.milli_cpu - used.milli_cpu {
            reasons.push("Insufficient cpu".to_string());
        }
        if req.memory > 0 && req.memory > cap.memory - used.memory {
            reasons.push("Insufficient memory".to_string());
        }
        if reasons.is_empty() {
            Status::success()
        } else {
            Status::unschedulable("TestFit", reasons)
        }
    }
}

/// Rejects a node while its count of `block=true` pods, kept in the cycle state by PreFilter
/// and updated by the `remove_pod`/`add_pod` extensions, is above zero.
struct Blockers;

#[derive(Debug, Clone)]
struct BlockerCounts(BTreeMap<String, usize>);

impl Plugin for Blockers {
    fn name(&self) -> &'static str {
        "Blockers"
    }

    fn pre_filter(
        &self,
        state: &mut CycleState,
        _: &PodInfo,
        cluster: &Cluster,
    ) -> (Status, PreFilterResult) {
        let mut counts = BTreeMap::new();
        for n in &cluster.nodes {
            let c = n
                .pods
                .iter()
                .filter(|id| is_blocker(&cluster.pods[**id]))
                .count();
            counts.insert(n.name.clone(), c);
        }
        state.write("Blockers", BlockerCounts(counts));
        (Status::success(), None)
    }

    fn remove_pod(&self, s: &mut CycleState, _: &PodInfo, v: &PodInfo, n: &NodeInfo, _: &Cluster) {
        if let Some(c) = s.read_mut::<BlockerCounts>("Blockers")
            && is_blocker(v)
        {
            *c.0.entry(n.name.clone()).or_default() -= 1;
        }
    }

    fn add_pod(&self, s: &mut CycleState, _: &PodInfo, v: &PodInfo, n: &NodeInfo, _: &Cluster) {
        if let Some(c) = s.read_mut::<BlockerCounts>("Blockers")
            && is_blocker(v)
        {
            *c.0.entry(n.name.clone()).or_default() += 1;
        }
    }

    fn filter(&self, s: &CycleState, _: &PodInfo, n: &NodeInfo, _: &Cluster) -> Status {
        let count = s
            .read::<BlockerCounts>("Blockers")
            .and_then(|c| c.0.get(&n.name).copied())
            .unwrap_or(0);
        if count > 0 {
            Status::unschedulable("Blockers", vec!["node(s) had blockers".to_string()])
        } else {
            Status::success()
        }
    }
}

fn is_blocker(p: &PodInfo) -> bool {
    p.labels().get("block").map(String::as_str) == Some("true")
}

fn scheduler(plugins: Vec<Box<dyn Plugin>>) -> Scheduler {
    let mut s = Scheduler::new(FeatureGates::default(), None, 1);
    s.profile = Profile {
        entries: plugins
            .into_iter()
            .map(|plugin| Entry {
                plugin,
                filter: true,
                weight: None,
            })
            .collect(),
    };
    s
}

/// Upstream's test PreFilter run: each filter plugin's PreFilter, Skip recorded.
fn pre_filter(sched: &Scheduler, pod: &PodInfo, cluster: &Cluster) -> CycleState {
    let mut state = CycleState::default();
    for e in sched.profile.entries.iter().filter(|e| e.filter) {
        let (st, _) = e.plugin.pre_filter(&mut state, pod, cluster);
        if st.code == Code::Skip {
            state.skip_filter.insert(e.plugin.name());
        }
    }
    state
}

/// A node with allocatable cpu (milli), memory and pods, and labels.
fn node(name: &str, (cpu, mem): (i64, i64), pods: i64, labels: &[(&str, &str)]) -> Node {
    let (cpu, mem, pods) = (format!("{cpu}m"), mem.to_string(), pods.to_string());
    let node =
        MakeNode::new()
            .name(name)
            .allocatable(&[("cpu", &cpu), ("memory", &mem), ("pods", &pods)]);
    labels.iter().fold(node, |n, (k, v)| n.label(k, v)).obj()
}

/// A pod in `default`: priority, requests, the node it is bound to, labels.
fn pod(
    name: &str,
    priority: i32,
    (cpu, mem): (i64, i64),
    node: Option<&str>,
    labels: &[(&str, &str)],
) -> Pod {
    let pod = MakePod::new()
        .name(name)
        .namespace("default")
        .labels(labels)
        .priority(priority);
    let pod = if cpu > 0 || mem > 0 {
        pod.req(&[("cpu", &format!("{cpu}m")), ("memory", &mem.to_string())])
    } else {
        pod.container("c", "")
    };
    node.map_or(pod.clone(), |n| pod.node(n)).obj()
}

/// A PDB in `default` selecting `key=value`.
fn pdb(key: &str, value: &str, allowed: i32, disrupted: &[&str]) -> PodDisruptionBudget {
    let pdb = MakePdb::new()
        .name(&format!("pdb-{value}"))
        .namespace("default")
        .match_label(key, value)
        .disruptions_allowed(allowed);
    disrupted
        .iter()
        .fold(pdb, |p, name| p.disrupted_pod(name))
        .obj()
}

/// A cluster of `nodes` and bound `pods`; each pod's start time (`seq`) as given.
fn cluster(nodes: Vec<Node>, pods: Vec<(Pod, usize)>, pdbs: Vec<PodDisruptionBudget>) -> Cluster {
    let mut c = Cluster::new();
    for n in nodes {
        c.add_node(n);
    }
    for (p, start) in pods {
        let id = c.add_pod(p);
        c.pods[id].seq = start;
    }
    c.pdbs = pdbs;
    c
}

fn names(c: &Cluster, ids: &[PodId]) -> Vec<String> {
    ids.iter().map(|id| c.pods[*id].name.clone()).collect()
}

/// A diagnosis: the given nodes' codes, every other node absent (UnschedulableAndUnresolvable).
fn diagnosis(c: &Cluster, codes: &[(&str, Code)]) -> Diagnosis {
    let mut d = Diagnosis::default();
    for (name, code) in codes {
        let id = c.node_id(name).unwrap();
        d.reject(
            id,
            Status {
                code: *code,
                reasons: Vec::new(),
                plugin: "TestFit",
            },
        );
    }
    d
}
