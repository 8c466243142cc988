use super::*;

#[test]
fn resources_print_as_karpenter_prints_them() {
    let mut r = Resources {
        milli_cpu: 150,
        memory: 128 << 20,
        allowed_pod_number: 2,
        ..Resources::default()
    };
    assert_eq!(
        resources_string(&r),
        r#"{"cpu":"150m","memory":"128Mi","pods":"2"}"#
    );
    r.milli_cpu = 2000;
    r.scalar.insert("nvidia.com/gpu".into(), 1);
    assert_eq!(
        resources_string(&r),
        r#"{"cpu":"2","memory":"128Mi","nvidia.com/gpu":"1","pods":"2"}"#
    );
    assert_eq!(resources_string(&Resources::default()), "{}");
    r.milli_cpu = 10_000_000;
    r.memory = 1_000_000_000;
    assert_eq!(
        resources_string(&r),
        r#"{"cpu":"10k","memory":"1G","nvidia.com/gpu":"1","pods":"2"}"#
    );
}

#[test]
fn every_taint_is_hard_and_named_as_karpenter_names_it() {
    let taints = vec![
        Taint {
            key: "nvidia.com/gpu".into(),
            value: None,
            effect: "NoSchedule".into(),
            time_added: None,
        },
        Taint {
            key: "team".into(),
            value: Some("ml".into()),
            effect: "PreferNoSchedule".into(),
            time_added: None,
        },
    ];
    assert_eq!(
        taint_errors(&taints, &[]),
        Some(
            "did not tolerate taint (taint=nvidia.com/gpu:NoSchedule); did not tolerate taint (taint=team=ml:PreferNoSchedule)"
                .into()
        )
    );
    let all = k8s_openapi::api::core::v1::Toleration {
        operator: Some("Exists".into()),
        ..Default::default()
    };
    assert_eq!(taint_errors(&taints, &[all]), None);
}

#[test]
fn instance_types_by_requirements_and_size() {
    let pool = Pool {
        name: "default".into(),
        provider: "karpenter",
        cloud: "aws",
        ..Pool::default()
    };
    let mut types = pool_types(&pool);
    assert!(types.iter().all(|t| t.cloud == "aws"));
    by_size(&mut types);
    assert!(types.windows(2).all(|w| w[0].cpu <= w[1].cpu));
    let arm =
        Requirements::from_node_selector(&[k8s_openapi::api::core::v1::NodeSelectorRequirement {
            key: "kubernetes.io/arch".into(),
            operator: "In".into(),
            values: Some(vec!["arm64".into()]),
        }]);
    let arm_types: Vec<_> = types.iter().filter(|t| type_allowed(t, &arm)).collect();
    assert!(!arm_types.is_empty());
    assert!(
        arm_types
            .iter()
            .all(|t| repel_core::pool_nodes::is_graviton(t.name))
    );
}
