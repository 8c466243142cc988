//! A pod's tolerations at its spec path, and upstream `TestValidatePodUpdate`'s rule that an update may only add tolerations.

use super::*;

#[test]
fn pod_spec_tolerations_use_the_spec_path() {
    let pod = pod_with_tolerations("p", vec![tol("foo", "Exists", "value1", "NoSchedule")]);
    let spec = pod.spec.unwrap();
    assert_eq!(
        strings(&validate_pod_spec_tolerations(&spec, "spec", &GATE_OFF)),
        vec![
            "spec.tolerations[0].operator: Invalid value: \"value1\": value must be empty when `operator` is 'Exists'"
        ]
    );
    assert_eq!(
        strings(&validate_pod_spec_tolerations(
            &spec,
            "spec.template.spec",
            &GATE_OFF
        ))[0]
            .split(':')
            .next()
            .unwrap(),
        "spec.template.spec.tolerations[0].operator"
    );
    let bare = pod_with_tolerations("p", vec![]).spec.unwrap();
    assert!(validate_pod_spec_tolerations(&bare, "spec", &GATE_OFF).is_empty());
}

/// Upstream `TestValidatePodUpdate` toleration cases (`validateOnlyAddedTolerations`).
#[test]
fn pod_update_may_only_add_tolerations() {
    let forbidden = "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds";
    let t1 = tol_secs("key1", "Equal", "value1", "NoExecute", 10);
    type UpdateCase<'a> = (&'a str, Vec<Toleration>, Vec<Toleration>, Vec<&'a str>);
    let cases: Vec<UpdateCase> = vec![
        ("no change", vec![t1.clone()], vec![t1.clone()], vec![]),
        (
            "adding a toleration",
            vec![t1.clone()],
            vec![t1.clone(), tol("key2", "Equal", "value2", "NoSchedule")],
            vec![],
        ),
        (
            "adding to none",
            vec![],
            vec![tol("key2", "Exists", "", "")],
            vec![],
        ),
        (
            "changing only tolerationSeconds",
            vec![t1.clone()],
            vec![tol_secs("key1", "Equal", "value1", "NoExecute", 20)],
            vec![],
        ),
        (
            "removing tolerationSeconds",
            vec![t1.clone()],
            vec![tol("key1", "Equal", "value1", "NoExecute")],
            vec![],
        ),
        (
            "reordering",
            vec![t1.clone(), tol("key2", "Exists", "", "")],
            vec![tol("key2", "Exists", "", ""), t1.clone()],
            vec![],
        ),
        (
            "changing the effect",
            vec![tol("key1", "Equal", "value1", "NoSchedule")],
            vec![tol("key1", "Equal", "value1", "NoExecute")],
            vec![forbidden],
        ),
        (
            "changing the value",
            vec![t1.clone()],
            vec![tol_secs("key1", "Equal", "value2", "NoExecute", 10)],
            vec![forbidden],
        ),
        (
            "an empty operator is not the same as Equal",
            vec![tol("key1", "", "value1", "NoSchedule")],
            vec![tol("key1", "Equal", "value1", "NoSchedule")],
            vec![forbidden],
        ),
        (
            "removing a toleration",
            vec![t1.clone()],
            vec![],
            vec![forbidden],
        ),
        (
            "removing two tolerations reports once",
            vec![t1.clone(), tol("key2", "Exists", "", "")],
            vec![],
            vec![forbidden],
        ),
    ];
    for (name, old, new, want) in cases {
        let got = strings(&validate_pod_toleration_update(
            &old,
            &new,
            "spec.tolerations",
        ));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn only_added_tolerations_then_validates_the_new_list() {
    let old = vec![tol("key1", "Exists", "", "")];
    let new = vec![
        tol("key1", "Exists", "", ""),
        tol("key2", "Exists", "v", ""),
    ];
    assert_eq!(
        strings(&validate_only_added_tolerations(
            &old,
            &new,
            "spec.tolerations",
            &GATE_OFF
        )),
        vec![
            "spec.tolerations[1].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"
        ],
        "an added toleration is validated"
    );
    assert_eq!(
        strings(&validate_only_added_tolerations(
            &old,
            &[tol("key2", "Exists", "v", "")],
            "spec.tolerations",
            &GATE_OFF
        )),
        vec![
            "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"
        ],
        "a removal is reported alone"
    );
    let old_gt = vec![tol("t", "Gt", "5", "")];
    let opts = ValidationOptions::for_update(&FeatureGates::default(), &old_gt);
    assert!(
        validate_only_added_tolerations(&old_gt, &old_gt, "spec.tolerations", &opts).is_empty(),
        "a pod that already uses Gt stays updatable with the gate off"
    );
}
