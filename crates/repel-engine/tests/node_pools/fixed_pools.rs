//! Fixed-size pools (AKS, EKS): their count, scale-in order, taint limits and instance-type overrides, and the same scenario giving the same run.

use super::*;

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
