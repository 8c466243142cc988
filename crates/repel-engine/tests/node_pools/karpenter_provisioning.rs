//! Karpenter provisioning: it launches what `judge_pools` says, counts DaemonSet overhead and allocatable, tolerates PreferNoSchedule taints last.

use super::*;

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
