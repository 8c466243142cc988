//! The node pools' controllers driven through the simulation: fixed-size pools
//! keep their count and their taints as each provider does, Karpenter launches what
//! `judge_pools` (explain's answer) says it would, startup taints hold pods until removed, and
//! the runs are repeatable.

use repel_core::pools::{Pool, aks_pool, karpenter_pool};
use repel_engine::cluster::PodInfo;
use repel_engine::controllers::karpenter::judge_pools;
use repel_engine::load::ClusterInput;
use repel_engine::scenario::{Step, StepAction};
use repel_engine::sim::Simulation;
use serde_json::{Value, json};

use crate::util;

fn pod(name: &str, spec: Value) -> k8s_openapi::api::core::v1::Pod {
    serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec
    }))
    .unwrap()
}

fn step(sim: &mut Simulation, at: repel_engine::clock::Millis, action: StepAction) {
    sim.advance_to(at);
    sim.apply_step(&Step {
        index: 0,
        at,
        action,
    });
}

fn nodepool(name: &str, weight: i64, taints: Value, startup: Value, reqs: Value) -> Pool {
    karpenter_pool(&json!({
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {"weight": weight, "template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": reqs, "taints": taints, "startupTaints": startup}}}
    }))
    .unwrap()
}

#[test]
fn karpenter_launches_what_explain_says_with_taints_and_startup_taints() {
    let pools = vec![
        nodepool(
            "gpu",
            10,
            json!([{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]),
            json!(null),
            json!([{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g5"]}]),
        ),
        nodepool(
            "general",
            0,
            json!(null),
            json!([{"key": "example.com/agent", "effect": "NoSchedule"}]),
            json!([]),
        ),
    ];
    let web = pod(
        "web",
        json!({"containers": [{"name": "c", "image": "nginx",
                "resources": {"requests": {"cpu": "3", "memory": "2Gi"}}}]}),
    );
    // What explain would say, before anything runs.
    let info = PodInfo::new(web.clone(), 0);
    let verdicts = judge_pools(&pools, &[], &info);
    assert_eq!(verdicts.len(), 2);
    assert_eq!(verdicts[0].pool, "gpu");
    assert_eq!(
        verdicts[0].reason.as_deref(),
        Some("did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)")
    );
    assert_eq!(verdicts[1].pool, "general");
    let want_type = verdicts[1].instance_type.clone().expect("general takes it");
    // 3 CPUs: the smallest type of 4 vCPUs.
    let t = repel_core::instance_types::lookup(&want_type).unwrap();
    assert_eq!(t.cpu, 4, "{want_type}");

    let mut sim = Simulation::new(
        ClusterInput {
            pods: vec![web],
            pools,
            ..Default::default()
        },
        util::config(1),
    );
    sim.settle();
    let nominated: Vec<&str> = sim
        .events
        .iter()
        .filter(|e| e.reason == "Nominated")
        .map(|e| e.message.as_str())
        .collect();
    assert_eq!(nominated.len(), 1);
    assert!(nominated[0].starts_with("Pod should schedule on: nodeclaim/general-"));
    sim.advance_to(40_000);
    assert_eq!(sim.cluster.nodes.len(), 1);
    let node = &sim.cluster.nodes[0];
    assert_eq!(node.labels["node.kubernetes.io/instance-type"], want_type);
    assert_eq!(node.labels["karpenter.sh/nodepool"], "general");
    assert_eq!(node.labels["karpenter.sh/registered"], "true");
    assert!(!node.labels.contains_key("karpenter.sh/initialized"));
    let keys: Vec<&str> = node.taints.iter().map(|t| t.key.as_str()).collect();
    assert_eq!(keys, vec!["example.com/agent"], "unregistered removed");
    let web_id = sim.cluster.pod_id("default", "web").unwrap();
    assert!(
        sim.cluster.pods[web_id].node.is_none(),
        "held by the startup taint"
    );
    let n = node.name.clone();
    step(
        &mut sim,
        60_000,
        StepAction::Kubectl(format!("taint nodes {n} example.com/agent:NoSchedule-")),
    );
    assert_eq!(
        sim.cluster.nodes[0].labels["karpenter.sh/initialized"],
        "true"
    );
    assert_eq!(sim.cluster.pods[web_id].node, Some(0));
    // No second node was launched for the held pod.
    assert_eq!(sim.cluster.nodes.len(), 1);
}

#[test]
fn a_pool_that_refuses_every_pod_says_why_once() {
    let pools = vec![nodepool(
        "gpu",
        0,
        json!([{"key": "nvidia.com/gpu", "effect": "NoSchedule"},
               {"key": "team", "value": "ml", "effect": "PreferNoSchedule"}]),
        json!(null),
        json!([]),
    )];
    let mut sim = Simulation::new(
        ClusterInput {
            pods: vec![pod(
                "p",
                json!({"containers": [{"name": "c", "image": "x"}]}),
            )],
            pools,
            ..Default::default()
        },
        util::config(1),
    );
    sim.advance_to(120_000);
    let failed: Vec<&str> = sim
        .events
        .iter()
        .filter(|e| e.reason == "FailedScheduling" && e.message.starts_with("Failed to schedule"))
        .map(|e| e.message.as_str())
        .collect();
    // The reason is the last attempt's: the pod relaxed with a toleration for PreferNoSchedule
    // taints, so only the NoSchedule taint is named.
    assert_eq!(
        failed,
        vec!["Failed to schedule pod, did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)"]
    );
    assert!(sim.cluster.nodes.is_empty());
}

/// Karpenter's provisioning suite (`pkg/controllers/provisioning/suite_test.go`, v1.14.1):
/// PreferNoSchedule taints are hard for Karpenter's scheduler, but its last relaxation of a pod
/// no NodePool takes is a toleration for them (`toleratePreferNoScheduleTaints`), so a pod only
/// a PreferNoSchedule-tainted pool can take gets a node from it; one another pool takes does
/// not. `judge_pools` (explain's and `repel pools`' answer) says the same.
#[test]
fn prefer_no_schedule_taints_are_tolerated_last() {
    let soft = json!([{"key": "foo", "value": "bar", "effect": "PreferNoSchedule"}]);
    // "should tolerate PreferNoSchedule taint only after trying to relax Affinity terms"
    let p = pod(
        "p",
        json!({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 1, "preference": {"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["invalid"]}]}},
                {"weight": 1, "preference": {"matchExpressions": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["invalid"]}]}}]}},
               "containers": [{"name": "c", "image": "x"}]}),
    );
    let pools = vec![nodepool("default", 0, soft.clone(), json!(null), json!([]))];
    let verdicts = judge_pools(&pools, &[], &PodInfo::new(p.clone(), 0));
    assert_eq!(verdicts.len(), 1);
    assert_eq!(verdicts[0].reason, None, "{verdicts:?}");
    assert_eq!(
        verdicts[0].relaxed.as_deref(),
        Some(repel_engine::controllers::karpenter::RELAXED_PREFER_NO_SCHEDULE)
    );
    let mut sim = Simulation::new(
        ClusterInput {
            pods: vec![p],
            pools,
            ..Default::default()
        },
        util::config(1),
    );
    sim.advance_to(60_000);
    assert_eq!(sim.cluster.nodes.len(), 1, "{:?}", sim.events);
    let node = &sim.cluster.nodes[0];
    assert!(
        node.taints.iter().any(|t| t.key == "foo"
            && t.value.as_deref() == Some("bar")
            && t.effect == "PreferNoSchedule"),
        "{:?}",
        node.taints
    );
    let id = sim.cluster.pod_id("default", "p").unwrap();
    assert_eq!(sim.cluster.pods[id].node, Some(0));

    // "should not match NodePool with PreferNoSchedule taint when other NodePool match": the
    // tainted pool is tried first (equal weights, names in reverse) and still not chosen.
    let pools = vec![
        nodepool("zz-soft", 0, soft, json!(null), json!([])),
        nodepool("default", 0, json!(null), json!(null), json!([])),
    ];
    let p = pod("p", json!({"containers": [{"name": "c", "image": "x"}]}));
    let verdicts = judge_pools(&pools, &[], &PodInfo::new(p.clone(), 0));
    assert_eq!(verdicts[0].pool, "zz-soft");
    assert_eq!(
        verdicts[0].reason.as_deref(),
        Some("did not tolerate taint (taint=foo=bar:PreferNoSchedule)")
    );
    assert_eq!(verdicts[1].reason, None);
    assert_eq!(verdicts[1].relaxed, None);
    let mut sim = Simulation::new(
        ClusterInput {
            pods: vec![p],
            pools,
            ..Default::default()
        },
        util::config(1),
    );
    sim.advance_to(60_000);
    assert_eq!(sim.cluster.nodes.len(), 1);
    assert_eq!(
        sim.cluster.nodes[0].labels["karpenter.sh/nodepool"],
        "default"
    );
}

fn aks(count: i64, taints: Value) -> Pool {
    aks_pool(
        &json!({"name": "gpu", "type": "VirtualMachineScaleSets", "count": count,
        "vmSize": "Standard_D4s_v3", "maxPods": 30, "nodeTaints": taints}),
    )
    .unwrap()
}

#[test]
fn an_aks_pool_scales_in_newest_first_and_its_pods_move() {
    let mut sim = Simulation::new(
        ClusterInput {
            pools: vec![aks(3, json!([]))],
            workloads: vec![
                serde_json::from_value(json!({
                    "apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": "web", "namespace": "default"},
                    "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                             "template": {"metadata": {"labels": {"app": "web"}},
                                          "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}
                }))
                .map(repel_core::workload::Workload::Deployment)
                .unwrap(),
            ],
            ..Default::default()
        },
        util::config(1),
    );
    sim.settle();
    let names: Vec<String> = sim.cluster.nodes.iter().map(|n| n.name.clone()).collect();
    assert_eq!(names.len(), 3);
    assert!(names[2].ends_with("-vmss000002"));
    step(
        &mut sim,
        60_000,
        StepAction::Az(
            "aks nodepool scale -g rg --cluster-name c --name gpu --node-count 1".into(),
        ),
    );
    sim.advance_to(200_000);
    let left: Vec<String> = sim.cluster.nodes.iter().map(|n| n.name.clone()).collect();
    assert_eq!(left, vec![names[0].clone()], "the oldest stays");
    let running = sim
        .final_pods()
        .iter()
        .filter(|p| p.phase == "Running" && p.node.as_deref() == Some(names[0].as_str()))
        .count();
    assert_eq!(running, 3);
    // An unknown pool is ARM's error, and the step fails.
    step(
        &mut sim,
        210_000,
        StepAction::Az(
            "aks nodepool update -g rg --cluster-name c --name nope --node-taints a=b:NoSchedule"
                .into(),
        ),
    );
    let last = sim.steps.last().unwrap();
    assert!(!last.ok);
    assert_eq!(
        last.output,
        vec![
            "(ResourceNotFound) The Resource 'Microsoft.ContainerService/managedClusters/c/agentPools/nope' under resource group 'rg' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix"
        ]
    );
}

#[test]
fn a_system_pool_refuses_a_custom_taint_as_aks_does() {
    let mut system = aks(1, json!(["CriticalAddonsOnly=true:NoSchedule"]));
    system.system = true;
    let mut sim = Simulation::new(
        ClusterInput {
            pools: vec![system],
            ..Default::default()
        },
        util::config(1),
    );
    sim.settle();
    step(
        &mut sim,
        1_000,
        StepAction::Az(
            "aks nodepool update -g rg --cluster-name c --name gpu --node-taints sku=gpu:NoSchedule"
                .into(),
        ),
    );
    let last = sim.steps.last().unwrap();
    assert!(!last.ok);
    assert!(
        last.output[0].starts_with(
            "(SystemPoolHasRestrictedTaint) Placing custom taints on system pool is not supported"
        ),
        "{:?}",
        last.output
    );
    // The node keeps the pool's taint.
    assert_eq!(sim.cluster.nodes[0].taints[0].key, "CriticalAddonsOnly");
}

#[test]
fn the_same_scenario_gives_the_same_run() {
    let run = || {
        let mut sim = Simulation::new(
            ClusterInput {
                pods: (0..4)
                    .map(|i| {
                        pod(
                            &format!("p{i}"),
                            json!({"containers": [{"name": "c", "image": "x",
                                "resources": {"requests": {"cpu": "1500m"}}}]}),
                        )
                    })
                    .collect(),
                pools: vec![
                    nodepool("a", 0, json!(null), json!(null), json!([])),
                    aks(2, json!(["k=v:NoSchedule"])),
                ],
                ..Default::default()
            },
            util::config(1),
        );
        sim.advance_to(300_000);
        let events: Vec<String> = sim
            .events
            .iter()
            .map(|e| format!("{} {} {} {}", e.at, e.reason, e.object, e.message))
            .collect();
        let nodes: Vec<String> = sim.cluster.nodes.iter().map(|n| n.name.clone()).collect();
        (events, nodes)
    };
    let (a, na) = run();
    let (b, nb) = run();
    assert_eq!(a, b);
    assert_eq!(na, nb);
    // Four pods of 1.5 CPUs: Karpenter packs them onto claims that fit them all.
    assert!(na.iter().any(|n| n.starts_with("a-")));
}

/// Karpenter's provisioning suite, "should account for daemonsets (with startup taint)": the
/// pool's startup taint, which the DaemonSet does not tolerate, does not keep its pods out of
/// the overhead, so the instance type fits the pod and the DaemonSet pod.
#[test]
fn daemonset_overhead_counts_despite_a_startup_taint() {
    let pools = vec![nodepool(
        "default",
        0,
        json!(null),
        json!([{"key": "foo.com/taint", "effect": "NoSchedule"}]),
        json!([]),
    )];
    let ds: k8s_openapi::api::core::v1::PodSpec = serde_json::from_value(json!({
        "containers": [{"name": "d", "image": "agent",
            "resources": {"requests": {"cpu": "2", "memory": "2Gi"}}}]
    }))
    .unwrap();
    let p = pod(
        "p",
        json!({"containers": [{"name": "c", "image": "x",
            "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}),
    );
    let info = PodInfo::new(p, 0);
    let with = judge_pools(&pools, std::slice::from_ref(&ds), &info);
    let without = judge_pools(&pools, &[], &info);
    let cpu = |v: &[repel_engine::controllers::karpenter::PoolVerdict]| {
        repel_core::instance_types::lookup(v[0].instance_type.as_deref().unwrap())
            .unwrap()
            .cpu
    };
    assert_eq!(cpu(&without), 2);
    assert_eq!(cpu(&with), 4, "{:?}", with);
    // "should not schedule if daemonset overhead is too large".
    let huge: k8s_openapi::api::core::v1::PodSpec = serde_json::from_value(json!({
        "containers": [{"name": "d", "image": "agent",
            "resources": {"requests": {"cpu": "10000", "memory": "10000Gi"}}}]
    }))
    .unwrap();
    let v = judge_pools(&pools, &[huge], &info);
    let reason = v[0].reason.as_deref().unwrap();
    assert!(
        reason.starts_with(
            "no instance type has enough resources, requirements=karpenter.sh/nodepool In [default], resources={\"cpu\":\"10001\",\"memory\":\"10001Gi\",\"pods\":\"2\"}"
        ),
        "{reason}"
    );
    assert!(
        reason.contains("no instance type has enough resources"),
        "{reason}"
    );
}

/// Karpenter's provisioning suite (`pkg/controllers/provisioning/suite_test.go`, v1.14.1),
/// "should consider a daemonset schedulable with a PreferNoSchedule taint": the DaemonSet's pod
/// counts in the overhead of a pool tainted PreferNoSchedule (`isDaemonPodCompatible` adds the
/// toleration), so the node launched is large enough for it and the pod, and both run there.
#[test]
fn daemonset_overhead_counts_on_a_prefer_no_schedule_pool() {
    let pools = vec![nodepool(
        "default",
        0,
        json!([{"key": "test", "effect": "PreferNoSchedule"}]),
        json!(null),
        json!([]),
    )];
    let ds: repel_core::workload::Workload = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "kube-system"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}},
                 "template": {"metadata": {"labels": {"app": "agent"}},
                              "spec": {"containers": [{"name": "d", "image": "agent",
                                  "resources": {"requests": {"cpu": "2", "memory": "2Gi"}}}]}}}
    }))
    .map(repel_core::workload::Workload::DaemonSet)
    .unwrap();
    let ds_spec: k8s_openapi::api::core::v1::PodSpec = serde_json::from_value(json!({
        "containers": [{"name": "d", "image": "agent",
            "resources": {"requests": {"cpu": "2", "memory": "2Gi"}}}]
    }))
    .unwrap();
    let p = pod(
        "p",
        json!({"containers": [{"name": "c", "image": "x",
            "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}),
    );
    let verdicts = judge_pools(&pools, &[ds_spec], &PodInfo::new(p.clone(), 0));
    let want = verdicts[0]
        .instance_type
        .clone()
        .expect("the pool takes it");
    assert_eq!(
        repel_core::instance_types::lookup(&want).unwrap().cpu,
        4,
        "{verdicts:?}"
    );
    let mut sim = Simulation::new(
        ClusterInput {
            pods: vec![p],
            workloads: vec![ds],
            pools,
            ..Default::default()
        },
        util::config(1),
    );
    sim.advance_to(120_000);
    assert_eq!(sim.cluster.nodes.len(), 1, "{:?}", sim.events);
    assert_eq!(
        sim.cluster.nodes[0].labels["node.kubernetes.io/instance-type"],
        want
    );
    let running: Vec<String> = sim
        .cluster
        .pods
        .iter()
        .filter(|p| !p.deleted && p.node == Some(0))
        .map(|p| p.key())
        .collect();
    assert_eq!(running.len(), 2, "the pod and the DaemonSet's: {running:?}");
}

/// Karpenter's provisioning suite (`pkg/controllers/provisioning/suite_test.go`, v1.14.1),
/// "should schedule pods that tolerate taints": a NodePool tainted
/// `nvidia.com/gpu=true:NoSchedule` and four pending pods that tolerate it — Equal with the
/// value, Exists on the key with and without the effect, and a bare Exists — provisioned
/// together; upstream asserts `ExpectScheduled` for each: each is bound to a node (here: one
/// the pool launched, carrying its taint).
#[test]
fn pods_that_tolerate_the_taint_get_a_node() {
    let pools = vec![nodepool(
        "gpu",
        0,
        json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
        json!(null),
        json!([]),
    )];
    let tolerations = [
        json!([{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]),
        json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]),
        json!([{"key": "nvidia.com/gpu", "operator": "Exists"}]),
        json!([{"operator": "Exists"}]),
    ];
    let pods = tolerations
        .iter()
        .enumerate()
        .map(|(i, t)| {
            pod(
                &format!("p{i}"),
                json!({"tolerations": t, "containers": [{"name": "c", "image": "x"}]}),
            )
        })
        .collect();
    let mut sim = Simulation::new(
        ClusterInput {
            pods,
            pools,
            ..Default::default()
        },
        util::config(1),
    );
    sim.advance_to(120_000);
    for (i, t) in tolerations.iter().enumerate() {
        let id = sim.cluster.pod_id("default", &format!("p{i}")).unwrap();
        let node = sim.cluster.pods[id]
            .node
            .unwrap_or_else(|| panic!("p{i} ({t}) is not scheduled: {:?}", sim.events));
        let node = &sim.cluster.nodes[node];
        assert_eq!(node.labels["karpenter.sh/nodepool"], "gpu", "p{i}");
        assert!(
            node.taints.iter().any(|t| t.key == "nvidia.com/gpu"
                && t.value.as_deref() == Some("true")
                && t.effect == "NoSchedule"),
            "p{i}: {:?}",
            node.taints
        );
    }
}

/// Drift (a NodePool's taints changed) replaces the node — replacement first — unless a pod on
/// it carries `karpenter.sh/do-not-disrupt`: then Karpenter's `DisruptionBlocked` names it.
#[test]
fn drift_replaces_the_node_unless_a_pod_blocks_it() {
    let np = |value: &str| {
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
               "spec": {"template": {"spec": {
                   "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                   "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large"]}],
                   "taints": [{"key": "team", "value": value, "effect": "NoSchedule"}]}}}})
    };
    for blocked in [false, true] {
        let mut annotations = json!({});
        if blocked {
            annotations = json!({"karpenter.sh/do-not-disrupt": "true"});
        }
        let p: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web", "namespace": "default", "annotations": annotations,
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1",
                                              "uid": "u1", "controller": true}]},
            "spec": {"tolerations": [{"key": "team", "operator": "Exists"}],
                     "containers": [{"name": "c", "image": "nginx"}]}
        }))
        .unwrap();
        let mut sim = Simulation::new(
            ClusterInput {
                pods: vec![p],
                pools: vec![karpenter_pool(&np("a")).unwrap()],
                ..Default::default()
            },
            util::config(1),
        );
        sim.advance_to(60_000);
        let first = sim.cluster.nodes[0].name.clone();
        step(&mut sim, 60_000, StepAction::Apply(vec![np("b")]));
        sim.settle();
        let disrupted = |sim: &Simulation| {
            sim.cluster.nodes[0]
                .taints
                .iter()
                .any(|t| t.key == "karpenter.sh/disrupted" && t.effect == "NoSchedule")
        };
        if !blocked {
            // Karpenter's disruption queue suite, "should keep nodes tainted when replacements
            // haven't finished initialization" (`pkg/controllers/disruption/queue_test.go`,
            // v1.14.1): `StartCommand` cordons the old node before it launches the
            // replacement, and the taint stays while the replacement is not initialized.
            assert!(disrupted(&sim), "tainted with the replacement's launch");
            assert_eq!(sim.plane.karpenter.claims.len(), 2);
            assert_eq!(sim.cluster.nodes.len(), 1, "the replacement is launching");
            // A pod that arrives meanwhile does not land on the drifted node: it goes to the
            // replacement.
            step(
                &mut sim,
                70_000,
                StepAction::Apply(vec![json!({
                    "apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": "late", "namespace": "default"},
                    "spec": {"tolerations": [{"key": "team", "operator": "Exists"}],
                             "containers": [{"name": "c", "image": "nginx"}]}})]),
            );
            let late = sim.cluster.pod_id("default", "late").unwrap();
            assert_eq!(sim.cluster.pods[late].node, None, "not on {first}");
            sim.advance_to(89_000);
            assert!(
                disrupted(&sim),
                "still tainted until the replacement registers"
            );
        } else {
            assert!(!disrupted(&sim), "a blocked node is not tainted");
        }
        sim.advance_to(300_000);
        let reasons: Vec<(&str, &str)> = sim
            .events
            .iter()
            .filter(|e| e.reason.starts_with("Disruption"))
            .map(|e| (e.reason.as_str(), e.message.as_str()))
            .collect();
        if blocked {
            assert_eq!(
                reasons,
                vec![(
                    "DisruptionBlocked",
                    "pod has \"karpenter.sh/do-not-disrupt\" annotation (Pod=default/web)"
                )]
            );
            assert_eq!(sim.cluster.nodes.len(), 1);
            assert_eq!(sim.cluster.nodes[0].name, first);
        } else {
            // Karpenter's `Terminating` events: on the Node and on its NodeClaim.
            assert_eq!(
                reasons,
                vec![
                    ("DisruptionLaunching", "Launching NodeClaim: Drifted"),
                    ("DisruptionTerminating", "Disrupting Node: Drifted"),
                    ("DisruptionTerminating", "Disrupting NodeClaim: Drifted")
                ]
            );
            assert_eq!(sim.cluster.nodes.len(), 1);
            assert_ne!(sim.cluster.nodes[0].name, first);
            assert_eq!(sim.cluster.nodes[0].taints[0].value.as_deref(), Some("b"));
            let late = sim.cluster.pod_id("default", "late").unwrap();
            assert_eq!(sim.cluster.pods[late].node, Some(0), "on the replacement");
        }
    }
}

/// EKS's limits refuse an update ("up to 50 taints" a group), an unknown group is EKS's
/// ResourceNotFoundException, and a refused update changes nothing.
#[test]
fn eks_refuses_a_51st_taint_and_an_unknown_group() {
    let ng = repel_core::pools::eks_nodegroup(&json!({"nodegroup": {
        "nodegroupName": "ng", "instanceTypes": ["m5.large"],
        "scalingConfig": {"desiredSize": 1},
        "taints": (0..50).map(|i| json!({"key": format!("k{i}"), "value": "v", "effect": "NO_SCHEDULE"})).collect::<Vec<_>>()
    }}))
    .unwrap();
    let mut sim = Simulation::new(
        ClusterInput {
            pools: vec![ng],
            ..Default::default()
        },
        util::config(1),
    );
    sim.settle();
    assert_eq!(sim.cluster.nodes[0].taints.len(), 50);
    step(
        &mut sim,
        1_000,
        StepAction::Aws(
            "eks update-nodegroup-config --cluster-name c --nodegroup-name ng --taints 'addOrUpdateTaints=[{key=extra,value=v,effect=NO_EXECUTE}]'".into(),
        ),
    );
    let last = sim.steps.last().unwrap();
    assert!(!last.ok);
    assert_eq!(
        last.output,
        vec![
            "An error occurred (InvalidParameterException) when calling the UpdateNodegroupConfig operation: taints: a managed node group holds at most 50 taints, not 51"
        ]
    );
    assert_eq!(sim.cluster.nodes[0].taints.len(), 50);
    // Replacing one (same key and effect) is not a 51st.
    step(
        &mut sim,
        2_000,
        StepAction::Aws(
            "eks update-nodegroup-config --cluster-name c --nodegroup-name ng --taints 'addOrUpdateTaints=[{key=k0,value=w,effect=NO_SCHEDULE}]'".into(),
        ),
    );
    assert!(sim.steps.last().unwrap().ok, "{:?}", sim.steps.last());
    assert!(
        sim.cluster.nodes[0]
            .taints
            .iter()
            .any(|t| t.key == "k0" && t.value.as_deref() == Some("w"))
    );
    step(
        &mut sim,
        3_000,
        StepAction::Aws(
            "eks update-nodegroup-config --cluster-name c --nodegroup-name nope --scaling-config desiredSize=2".into(),
        ),
    );
    assert_eq!(
        sim.steps.last().unwrap().output,
        vec![
            "An error occurred (ResourceNotFoundException) when calling the UpdateNodegroupConfig operation: No node group found for name: nope."
        ]
    );
}

/// NodeClaims of the input (an exported cluster's) are Karpenter's: one whose node is there is
/// registered and drifts with its NodePool; one without a node yet registers it after the
/// launch delay.
#[test]
fn nodeclaims_of_the_input_are_adopted() {
    let np = |value: &str| {
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
               "spec": {"template": {"spec": {
                   "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                   "requirements": [],
                   "taints": [{"key": "team", "value": value, "effect": "NoSchedule"}]}}}})
    };
    let claim = |name: &str, node: Option<&str>| {
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": name,
                "labels": {"karpenter.sh/nodepool": "default", "node.kubernetes.io/instance-type": "m5.large"}},
               "spec": {}, "status": {"nodeName": node}})
    };
    let node: k8s_openapi::api::core::v1::Node = serde_json::from_value(json!({
        "metadata": {"name": "default-aaaaa", "labels": {"karpenter.sh/nodepool": "default",
            "karpenter.sh/initialized": "true", "node.kubernetes.io/instance-type": "m5.large"}},
        "spec": {"taints": [{"key": "team", "value": "a", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "29"},
                   "conditions": [{"type": "Ready", "status": "True"}]}
    }))
    .unwrap();
    let web = pod(
        "web",
        json!({"tolerations": [{"key": "team", "operator": "Exists"}],
               "containers": [{"name": "c", "image": "nginx"}]}),
    );
    let mut sim = Simulation::new(
        ClusterInput {
            nodes: vec![node],
            pods: vec![web],
            pools: vec![karpenter_pool(&np("a")).unwrap()],
            node_claims: vec![
                claim("default-aaaaa", Some("default-aaaaa")),
                claim("default-bbbbb", None),
            ],
            ..Default::default()
        },
        util::config(1),
    );
    assert!(sim.warnings.is_empty(), "{:?}", sim.warnings);
    sim.advance_to(40_000);
    let names: Vec<&str> = sim.cluster.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, vec!["default-aaaaa", "default-bbbbb"]);
    step(&mut sim, 60_000, StepAction::Apply(vec![np("b")]));
    sim.advance_to(300_000);
    let mut names: Vec<String> = sim.cluster.nodes.iter().map(|n| n.name.clone()).collect();
    names.sort();
    assert!(!names.contains(&"default-aaaaa".to_string()), "{names:?}");
    assert!(
        sim.cluster
            .nodes
            .iter()
            .all(|n| n.taints.iter().any(|t| t.value.as_deref() == Some("b"))),
        "every node has the new taint"
    );
}

/// An instance type the catalogue lacks takes its capacity from the scenario's
/// `instanceTypes`; its devices wait for their plugin like a catalogue GPU's.
#[test]
fn an_instance_type_override_sizes_the_pools_nodes() {
    let ng = repel_core::pools::eks_nodegroup(&json!({"nodegroup": {
        "nodegroupName": "big", "instanceTypes": ["x2iedn.xlarge"],
        "scalingConfig": {"desiredSize": 1}}}))
    .unwrap();
    let overrides = std::collections::BTreeMap::from([(
        "x2iedn.xlarge".to_string(),
        std::collections::BTreeMap::from([
            ("cpu".to_string(), "4".to_string()),
            ("memory".to_string(), "128Gi".to_string()),
            ("pods".to_string(), "58".to_string()),
            ("example.com/fpga".to_string(), "2".to_string()),
        ]),
    )]);
    let sim = {
        let mut sim = Simulation::new(
            ClusterInput {
                pools: vec![ng],
                instance_types: overrides,
                ..Default::default()
            },
            util::config(1),
        );
        sim.settle();
        sim
    };
    assert!(sim.warnings.is_empty(), "{:?}", sim.warnings);
    let n = &sim.cluster.nodes[0];
    // The override is the instance's capacity; the EKS AMI's reservations come off it:
    // 80m of 4 cores, 11 × 58 + 255 = 893Mi, and the 100Mi eviction threshold.
    assert_eq!(n.allocatable.milli_cpu, 4000 - 80);
    assert_eq!(n.allocatable.memory, (128 << 30) - ((893 + 100) << 20));
    assert_eq!(n.allocatable.allowed_pod_number, 58);
    let capacity = n
        .node
        .status
        .as_ref()
        .and_then(|s| s.capacity.clone())
        .unwrap_or_default();
    assert_eq!(capacity["cpu"].0, "4");
    assert_eq!(capacity["memory"].0, "128Gi");
    assert_eq!(
        n.allocatable.scalar.get("example.com/fpga"),
        None,
        "until a plugin runs"
    );
    assert_eq!(
        repel_core::pool_nodes::node_devices(&n.node),
        Ok(vec![("example.com/fpga".to_string(), 2)])
    );
}

/// After a scale-in of nodes whose ids are not adjacent (another pool's node between them),
/// the other controllers still know every node that stays: the other pool's node whose kubelet
/// stops is marked NotReady and tainted by the node-lifecycle controller.
#[test]
fn the_nodes_left_after_a_scale_in_are_still_watched() {
    let user = aks_pool(
        &json!({"name": "user", "type": "VirtualMachineScaleSets", "count": 1,
        "vmSize": "Standard_D4s_v3", "maxPods": 30}),
    )
    .unwrap();
    let mut sim = Simulation::new(
        ClusterInput {
            pools: vec![aks(2, json!([])), user],
            ..Default::default()
        },
        util::config(1),
    );
    sim.settle();
    let other = sim.cluster.nodes[2].name.clone();
    assert!(other.starts_with("aks-user-"), "{other}");
    // gpu: 2 → 3 (its third node after user's), then 3 → 1 (ids 3 and 1 go).
    step(
        &mut sim,
        10_000,
        StepAction::Az(
            "aks nodepool scale -g rg --cluster-name c --name gpu --node-count 3".into(),
        ),
    );
    step(
        &mut sim,
        20_000,
        StepAction::Az(
            "aks nodepool scale -g rg --cluster-name c --name gpu --node-count 1".into(),
        ),
    );
    let names: Vec<&str> = sim.cluster.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&other.as_str()));
    step(
        &mut sim,
        30_000,
        StepAction::Node {
            name: other.clone(),
            condition: None,
            heartbeats: Some(false),
        },
    );
    sim.advance_to(150_000);
    let id = sim.cluster.node_id(&other).unwrap();
    let keys: Vec<&str> = sim.cluster.nodes[id]
        .taints
        .iter()
        .map(|t| t.key.as_str())
        .collect();
    assert!(keys.contains(&"node.kubernetes.io/unreachable"), "{keys:?}");
    let removing: Vec<&str> = sim
        .events
        .iter()
        .filter(|e| e.reason == "RemovingNode")
        .map(|e| e.object.as_str())
        .collect();
    assert_eq!(removing.len(), 2, "{removing:?}");
    assert!(
        !removing.contains(&format!("Node/{other}").as_str()),
        "{removing:?}"
    );
}

/// Karpenter packs pods against an instance type's allocatable, not its capacity
/// (karpenter-provider-aws `types.go`: kube-reserved, system-reserved and the eviction
/// threshold come off, and 7.5 % VM overhead off the memory): a pod that an m5.large's
/// 2 vCPUs or 8 GiB would hold but its 1930m or 6903Mi allocatable does not gets an
/// m5.xlarge — in the what-if `repel pools` and `explain` show and in the simulation alike,
/// whose node carries that allocatable.
#[test]
fn karpenter_fits_pods_to_the_allocatable() {
    let pools = vec![nodepool(
        "general",
        0,
        json!(null),
        json!(null),
        json!([{"key": "node.kubernetes.io/instance-type", "operator": "In",
                "values": ["m5.large", "m5.xlarge"]}]),
    )];
    for (case, requests, want) in [
        ("fits the allocatable", json!({"cpu": "1900m"}), "m5.large"),
        (
            "1950m is within 2 vCPUs but above 1930m",
            json!({"cpu": "1950m"}),
            "m5.xlarge",
        ),
        (
            "7Gi is within 8 GiB but above 6903Mi",
            json!({"memory": "7Gi"}),
            "m5.xlarge",
        ),
    ] {
        let p = pod(
            "p",
            json!({"containers": [{"name": "c", "image": "x", "resources": {"requests": requests}}]}),
        );
        let verdicts = judge_pools(&pools, &[], &PodInfo::new(p.clone(), 0));
        assert_eq!(verdicts[0].instance_type.as_deref(), Some(want), "{case}");
        let mut sim = Simulation::new(
            ClusterInput {
                pods: vec![p],
                pools: pools.clone(),
                ..Default::default()
            },
            util::config(1),
        );
        sim.advance_to(120_000);
        let n = &sim.cluster.nodes[0];
        let status = n.node.status.clone().unwrap_or_default();
        let t = n
            .node
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("node.kubernetes.io/instance-type"))
            .cloned();
        assert_eq!(t.as_deref(), Some(want), "{case}");
        let alloc = status.allocatable.unwrap_or_default();
        let cap = status.capacity.unwrap_or_default();
        let (cpu, memory, cap_memory) = if want == "m5.large" {
            // 2 vCPUs less 70m; 8192Mi less 615Mi overhead, then 11 × 29 + 255 and 100Mi.
            ("1930m", "6903Mi", "7577Mi")
        } else {
            // 4 vCPUs less 80m; 16384Mi less 1229Mi, then 893Mi and 100Mi.
            ("3920m", "14162Mi", "15155Mi")
        };
        assert_eq!(alloc["cpu"].0, cpu, "{case}");
        assert_eq!(alloc["memory"].0, memory, "{case}");
        assert_eq!(cap["memory"].0, cap_memory, "{case}");
        assert_eq!(
            sim.cluster.pods[0].node,
            Some(0),
            "{case}: the pod runs there"
        );
    }
}
