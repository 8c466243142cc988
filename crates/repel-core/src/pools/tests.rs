//! Unit tests of `crate::pools`.

use serde_json::json;

use super::*;

fn pool(taints: Value, startup: Value) -> Pool {
    karpenter_pool(&json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": "gpu"},
        "spec": {"template": {"metadata": {"labels": {"team": "ml"}},
                              "spec": {"taints": taints, "startupTaints": startup}}}}))
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn reads_the_template_and_validates_as_karpenter() {
    let p = pool(
        json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
        json!([{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}]),
    );
    assert_eq!(p.name, "gpu");
    assert_eq!(p.labels["team"], "ml");
    assert_eq!(p.taints.len(), 1);
    assert_eq!(p.startup_taints.len(), 1);
    assert!(validate_taints(&p).is_empty());
    let bad = pool(
        json!([{"key": "-bad", "effect": "NoSchedule"},
               {"key": "a", "value": "example.com/ok", "effect": "Sometimes"},
               {"key": "dup", "effect": "NoSchedule"}]),
        json!([{"key": "dup", "effect": "NoSchedule"}]),
    );
    assert_eq!(
        validate_taints(&bad),
        [
            "invalid value: -bad in taints",
            "invalid value: \"Sometimes\" in taints",
            "duplicate taint Key/Effect pair dup=NoSchedule",
        ]
    );
}

/// karpenter `pkg/apis/v1/nodepool_default_test.go` ("CEL/Default"),
/// `nodepool_conversion_test.go` ("Disruption") and `duration.go` (`Never`): which
/// `consolidateAfter` Karpenter v1 holds.
#[test]
fn consolidate_after_as_karpenter_v1_holds_it() {
    let np = |version: &str, disruption: Value| {
        json!({"apiVersion": format!("karpenter.sh/{version}"), "kind": "NodePool",
               "metadata": {"name": "p"}, "spec": {"disruption": disruption}})
    };
    let cases: Vec<(&str, Value, Option<&str>)> = vec![
        (
            "should default the disruption stanza when undefined",
            np("v1", Value::Null),
            Some("0s"),
        ),
        (
            "a v1 pool without consolidateAfter has the CRD's default",
            np("v1", json!({"consolidationPolicy": "WhenEmpty"})),
            Some("0s"),
        ),
        (
            "Never disables consolidation",
            np("v1", json!({"consolidateAfter": "Never"})),
            None,
        ),
        (
            "a duration is kept as written",
            np("v1", json!({"consolidateAfter": "1h30m"})),
            Some("1h30m"),
        ),
        (
            "should convert v1beta1 nodepool consolidateAfter to 0 for WhenUnderutilized",
            np(
                "v1beta1",
                json!({"consolidationPolicy": "WhenUnderutilized"}),
            ),
            Some("0s"),
        ),
        (
            "a v1beta1 pool's default policy is WhenUnderutilized",
            np("v1beta1", Value::Null),
            Some("0s"),
        ),
        (
            "should convert v1beta1 nodepool consolidateAfter for WhenEmpty",
            np(
                "v1beta1",
                json!({"consolidationPolicy": "WhenEmpty", "consolidateAfter": "2121s"}),
            ),
            Some("2121s"),
        ),
        (
            "a v1beta1 WhenEmpty pool with Never stays disabled",
            np(
                "v1beta1",
                json!({"consolidationPolicy": "WhenEmpty", "consolidateAfter": "Never"}),
            ),
            None,
        ),
    ];
    for (name, v, want) in cases {
        let got = karpenter_pool(&v).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.consolidate_after.as_deref(), want, "{name}");
    }
    for (bad, want) in [
        (
            json!("5x"),
            "spec.disruption.consolidateAfter: Invalid value: \"5x\": \
             spec.disruption.consolidateAfter in body should match \
             '^(([0-9]+(s|m|h))+|Never)$'",
        ),
        (
            json!(30),
            "spec.disruption.consolidateAfter: Invalid value: \"integer\": \
             spec.disruption.consolidateAfter in body must be of type string: \"integer\"",
        ),
    ] {
        let got = karpenter_pool(&np("v1", json!({"consolidateAfter": bad})));
        assert_eq!(got.err().as_deref(), Some(want));
    }
    for ok in ["0s", "10m", "1h30m", "Never"] {
        assert!(consolidate_after_matches(ok), "{ok}");
    }
    for bad in ["", "s", "1", "1.5h", "1d", "never", "1h "] {
        assert!(!consolidate_after_matches(bad), "{bad:?}");
    }
}

#[test]
fn every_taint_is_hard_and_startup_taints_are_ignored() {
    let p = pool(
        json!([{"key": "soft", "effect": "PreferNoSchedule"}]),
        json!([{"key": "startup", "effect": "NoSchedule"}]),
    );
    let gates = FeatureGates::default();
    assert_eq!(
        untolerated(&p, &[], &gates).map(|t| t.key.as_str()),
        Some("soft")
    );
    let tol: Toleration =
        serde_json::from_value(json!({"key": "soft", "operator": "Exists"})).unwrap_or_default();
    assert_eq!(untolerated(&p, &[tol], &gates), None);
}

fn cluster_config(groups: Value) -> Vec<Pool> {
    let mut v = json!({"apiVersion": "eksctl.io/v1alpha5", "kind": "ClusterConfig",
                       "metadata": {"name": "c", "region": "us-west-1"}});
    if let (Some(o), Value::Object(g)) = (v.as_object_mut(), groups) {
        o.extend(g);
    }
    eksctl_pools(&v).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn eksctl_instance_types_in_each_of_its_fields() {
    let pools = cluster_config(json!({
        "nodeGroups": [
            {"name": "a", "instanceType": "m5.large", "maxPodsPerNode": 20},
            {"name": "b", "instancesDistribution": {"instanceTypes": ["g5.xlarge", "g4dn.xlarge"]}}],
        "managedNodeGroups": [{"name": "c", "instanceTypes": ["c5.large"]}, {"name": "d"},
                              {"name": "e", "launchTemplate": {"id": "lt-1"}}]}));
    let got: Vec<(Vec<String>, Option<i64>)> = pools
        .iter()
        .map(|p| (p.instance_types.clone(), p.max_pods))
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        vec![
            (s(&["m5.large"]), Some(20)),
            (s(&["g5.xlarge", "g4dn.xlarge"]), None),
            (s(&["c5.large"]), None),
            // None named: eksctl's DefaultNodeType.
            (s(&[EKSCTL_DEFAULT_NODE_TYPE]), None),
            // A launch template names its own instance type, which is not read.
            (Vec::new(), None),
        ]
    );
}

use crate::testing::taint;

#[test]
fn eksctl_reads_both_taint_forms_as_parse_taint_does() {
    // eksctl's pkg/utils/taints Parse table, and the map form of its examples.
    let pools = cluster_config(json!({
        "nodeGroups": [{"name": "ng-1", "taints": {"key1": "value1:NoSchedule",
                                                    "key2": ":NoExecute",
                                                    "key3": "NoSchedule",
                                                    "key4": "a:b:NoSchedule"}}],
        "managedNodeGroups": [{"name": "mng-1", "labels": {"role": "db"},
                               "taints": [{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]}]
    }));
    assert_eq!(pools.len(), 2);
    assert_eq!(
        pools[0].taints,
        [
            taint("key1", "value1", "NoSchedule"),
            taint("key2", "", "NoExecute"),
            taint("key3", "", "NoSchedule"),
            taint("key4", "", ""),
        ]
    );
    assert_eq!(pools[0].provider, "eksctl");
    assert_eq!(
        pools[0].node_label,
        (EKSCTL_NODEGROUP_LABEL, "ng-1".to_string())
    );
    assert_eq!(pools[1].provider, "eks");
    assert_eq!(pools[1].labels["role"], "db");
    assert_eq!(pools[1].labels[EKS_NODEGROUP_LABEL], "mng-1");
    assert_eq!(pools[1].taints, [taint("k", "v", "PreferNoSchedule")]);
    let wrong = eksctl_pools(&json!({"nodeGroups": [{"name": "x", "taints": "k=v"}]}));
    assert!(wrong.is_err_and(|e| e.starts_with(
        "nodeGroups[0].taints: taints must be a {string: string} or a [{key, value, effect}]: "
    )));
    let unnamed = eksctl_pools(&json!({"managedNodeGroups": [{"taints": []}]}));
    assert_eq!(
        unnamed,
        Err("managedNodeGroups[0].name: Required value".to_string())
    );
}

#[test]
fn eksctl_validates_as_its_validate_table() {
    // eksctl's pkg/utils/taints Validate table; the first error of a group only.
    let cases = [
        (taint("key1", "value1", "NoSchedule"), None),
        (taint("key2", "", "NoExecute"), None),
        (
            taint("key3", "", ""),
            Some(
                "invalid taint effect: , unsupported taint effect. Valid taint effects are: NoSchedule, NoExecute and PreferNoSchedule",
            ),
        ),
        (
            taint("key1=", "value1", "NoSchedule"),
            Some(
                "invalid taint key: key1=, name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            ),
        ),
        (
            taint("key1", "v&lue", "NoSchedule"),
            Some(
                "invalid taint value: v&lue, a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
        ),
        (
            taint("key1", "value1", "NoEffect"),
            Some(
                "invalid taint effect: NoEffect, unsupported taint effect. Valid taint effects are: NoSchedule, NoExecute and PreferNoSchedule",
            ),
        ),
        (
            taint("", "v", "NoSchedule"),
            Some("taint key must be non-empty"),
        ),
    ];
    for (t, want) in cases {
        let mut pool = cluster_config(json!({"nodeGroups": [{"name": "ng"}]})).remove(0);
        pool.taints = vec![t.clone(), taint("-also-bad", "", "NoSchedule")];
        let got = validate_taints(&pool);
        match want {
            Some(w) => assert_eq!(got, [w], "{t:?}"),
            None => assert_eq!(got.len(), 1, "{t:?}: the second taint's error, {got:?}"),
        }
    }
}

#[test]
fn a_node_groups_prefer_no_schedule_taint_keeps_no_pod_off() {
    let pools = cluster_config(json!({"nodeGroups": [{"name": "ng", "taints": [
        {"key": "soft", "effect": "PreferNoSchedule"},
        {"key": "hard", "value": "x", "effect": "NoSchedule"}]}]}));
    let gates = FeatureGates::default();
    assert_eq!(
        untolerated(&pools[0], &[], &gates).map(|t| t.key.as_str()),
        Some("hard")
    );
    let tol: Toleration =
        serde_json::from_value(json!({"key": "hard", "operator": "Exists"})).unwrap_or_default();
    assert_eq!(untolerated(&pools[0], &[tol], &gates), None);
}

fn agent_pool(v: Value) -> Pool {
    aks_pool(&v).unwrap_or_else(|e| panic!("{e}"))
}

/// `az aks nodepool show` for a Spot pool, as Microsoft's Spot node pool page prints it
/// (testdata/az/SOURCES.md).
const AZ_NODEPOOL_SHOW_SPOT: &str = include_str!("../../testdata/az/nodepool-show-spot.json");

#[test]
fn an_aks_agent_pool_as_az_prints_it() {
    let spot: Value = serde_json::from_str(AZ_NODEPOOL_SHOW_SPOT).unwrap_or_default();
    assert_eq!(spot["type"], AKS_AGENT_POOL_ARM_TYPE);
    assert_eq!(spot["typePropertiesType"], "VirtualMachineScaleSets");
    assert!(is_aks_pool(&spot));
    // ARM compares resource types without regard to case.
    let mut lower = spot.clone();
    lower["type"] = json!(AKS_AGENT_POOL_ARM_TYPE.to_lowercase());
    assert!(is_aks_pool(&lower));
    // A Kubernetes object, or an object with another ARM type, is not an agent pool.
    assert!(!is_aks_pool(
        &json!({"kind": "Node", "name": "x", "type": AKS_AGENT_POOL_ARM_TYPE})
    ));
    assert!(!is_aks_pool(
        &json!({"name": "x", "type": "Microsoft.ContainerService/managedClusters"})
    ));
    let p = agent_pool(spot);
    assert_eq!(p.provider, "aks");
    assert_eq!(p.name, "xxxxxxxxxxxx");
    assert_eq!(
        p.taints,
        [aks_taint(
            "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
        )]
    );
    assert_eq!(p.labels[AKS_AGENTPOOL_LABEL], "xxxxxxxxxxxx");
    assert_eq!(p.labels[AKS_MODE_LABEL], "user");
    assert_eq!(p.labels[AKS_SPOT_KEY], "spot");
    assert!(validate_taints(&p).is_empty());
    // A Spot pool whose output lacks the taint still gets it, as AKS gives it.
    let mut bare = serde_json::from_str::<Value>(AZ_NODEPOOL_SHOW_SPOT).unwrap_or_default();
    bare["nodeTaints"] = Value::Null;
    bare["nodeLabels"] = Value::Null;
    let bare = agent_pool(bare);
    assert_eq!(bare.taints.len(), 1);
    assert_eq!(bare.labels[AKS_SPOT_KEY], "spot");
    // The pool type in `type`, as the scenario examples write an agent pool by hand.
    assert!(is_aks_pool(
        &json!({"name": "s", "type": "VirtualMachineScaleSets", "scaleSetPriority": "Spot"})
    ));
}

#[test]
fn aks_validates_taints_as_azure_cli_and_system_pools_as_aks() {
    let pool = |taints: Value, mode: &str| {
        agent_pool(
            json!({"name": "p", "type": "VirtualMachineScaleSets", "mode": mode,
                          "nodeTaints": taints}),
        )
    };
    for ok in [
        "sku=gpu:NoSchedule",
        "a/b.c_d-e=v_1.2-3:PreferNoSchedule",
        "k=v:NoExecute",
    ] {
        assert!(
            validate_taints(&pool(json!([ok]), "User")).is_empty(),
            "{ok}"
        );
    }
    for bad in [
        "sku:NoSchedule",
        "sku=gpu",
        "sku=gpu:Sometimes",
        "-sku=gpu:NoSchedule",
        "sku=-gpu:NoSchedule",
        "sku=g/pu:NoSchedule",
        "sku=a=b:NoSchedule",
    ] {
        assert_eq!(
            validate_taints(&pool(json!([bad]), "User")),
            [format!("Invalid node taint: {bad}")],
            "{bad}"
        );
    }
    let long_value = format!("k={}:NoSchedule", "v".repeat(64));
    assert_eq!(validate_taints(&pool(json!([long_value]), "User")).len(), 1);
    assert!(
        validate_taints(&pool(
            json!(["CriticalAddonsOnly=true:NoSchedule"]),
            "System"
        ))
        .is_empty()
    );
    assert!(validate_taints(&pool(json!(["any=thing:PreferNoSchedule"]), "System")).is_empty());
    assert_eq!(
        validate_taints(&pool(json!(["sku=gpu:NoSchedule"]), "System")),
        [
            "(SystemPoolHasRestrictedTaint) Placing custom taints on system pool is not supported(except 'CriticalAddonsOnly' taint or taint effect is 'PreferNoSchedule'). Please refer to https://aka.ms/aks/system-taints for detail"
        ]
    );
}

#[test]
fn an_eks_managed_node_group_as_describe_nodegroup_prints_it() {
    let out = json!({"nodegroup": {"nodegroupName": "gpu", "clusterName": "c",
        "capacityType": "SPOT", "labels": {"team": "ml"},
        "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"},
                   {"key": "soft", "effect": "PREFER_NO_SCHEDULE"}]}});
    assert!(is_eks_nodegroup(&out));
    let p = eks_nodegroup(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        p.taints,
        [
            taint("nvidia.com/gpu", "true", "NoSchedule"),
            taint("soft", "", "PreferNoSchedule")
        ]
    );
    assert_eq!(p.labels[EKS_NODEGROUP_LABEL], "gpu");
    assert_eq!(p.labels["eks.amazonaws.com/capacityType"], "SPOT");
    assert!(validate_taints(&p).is_empty());
    let mut bad = p.clone();
    bad.taints = vec![
        taint(&"k".repeat(64), "", "NoSchedule"),
        taint("k", &"v".repeat(64), "NoExecute"),
        taint("k2", "", "NoSchedule"),
    ];
    bad.taints[2].effect = "SOMETIMES".to_string();
    assert_eq!(validate_taints(&bad).len(), 3);
    bad.taints = (0..51)
        .map(|i| taint(&format!("k{i}"), "", "NoSchedule"))
        .collect();
    assert_eq!(
        validate_taints(&bad),
        ["taints: a managed node group holds at most 50 taints, not 51"]
    );
}
