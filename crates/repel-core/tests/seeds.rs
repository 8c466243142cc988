//! Every claim of the documentation pages users read (../shared/seeds/), as a test: what the
//! page says must be what repel does.
#![allow(clippy::unwrap_used, clippy::type_complexity)]

use k8s_openapi::api::core::v1::{PodSpec, Taint, Toleration};
use repel_core::admission::{AdmissionConfig, admit_pod};
use repel_core::kubectl::{TaintOperation, apply_taints, parse_taint_command};
use repel_core::taint::{
    NoExecuteOutcome, find_matching_untolerated_taint, is_do_not_schedule, new_taint,
    no_execute_outcome,
};
use repel_core::testing::{tol, tol_secs};
use repel_core::validation::{ValidationOptions, validate_tolerations};
use repel_core::{FeatureGates, tolerates};

fn fits(taints: &[Taint], tols: &[Toleration]) -> bool {
    find_matching_untolerated_taint(taints, tols, is_do_not_schedule, &FeatureGates::default())
        .is_none()
}

#[test]
fn concepts_page_000() {
    let off = FeatureGates::default();
    let key1 = new_taint("key1", "value1", "NoSchedule");
    // "Both of the following tolerations match the taint created by the kubectl taint line above."
    assert!(tolerates(
        &tol("key1", "Equal", "value1", "NoSchedule"),
        &key1,
        &off
    ));
    assert!(tolerates(
        &tol("key1", "Exists", "", "NoSchedule"),
        &key1,
        &off
    ));
    // "The default value for operator is Equal."
    assert!(tolerates(
        &tol("key1", "", "value1", "NoSchedule"),
        &key1,
        &off
    ));
    // "If the key is empty, then the operator must be Exists, which matches all keys and values.
    //  Note that the effect still needs to be matched at the same time."
    assert!(tolerates(&tol("", "Exists", "", "NoSchedule"), &key1, &off));
    assert!(!tolerates(&tol("", "Exists", "", "NoExecute"), &key1, &off));
    let errs = validate_tolerations(
        &[tol("", "Equal", "value1", "NoSchedule")],
        "spec.tolerations",
        &ValidationOptions::from_gates(&off),
    );
    assert_eq!(errs.len(), 1, "an empty key with Equal is refused");
    // "An empty effect matches all effects with key key1."
    for effect in ["NoSchedule", "PreferNoSchedule", "NoExecute"] {
        assert!(
            tolerates(
                &tol("key1", "Exists", "", ""),
                &new_taint("key1", "x", effect),
                &off
            ),
            "{effect}"
        );
    }
    // NoExecute: not tolerated → evicted immediately; tolerated without tolerationSeconds →
    // bound forever; with tolerationSeconds → after that time.
    let ne = [new_taint("key1", "value1", "NoExecute")];
    assert_eq!(
        no_execute_outcome(&ne, &[], &off),
        NoExecuteOutcome::Immediately
    );
    assert_eq!(
        no_execute_outcome(&ne, &[tol("key1", "Equal", "value1", "NoExecute")], &off),
        NoExecuteOutcome::Never
    );
    assert_eq!(
        no_execute_outcome(
            &ne,
            &[tol_secs("key1", "Equal", "value1", "NoExecute", 3600)],
            &off
        ),
        NoExecuteOutcome::After(3600)
    );
    // "NoSchedule: ... Pods currently running on the node are not evicted."
    assert_eq!(
        no_execute_outcome(std::slice::from_ref(&key1), &[], &off),
        NoExecuteOutcome::Never
    );
    // kubectl taint nodes node1 key1=value1:NoSchedule, then ...NoSchedule- removes it.
    let add = parse_taint_command(
        &["nodes", "node1", "key1=value1:NoSchedule"],
        false,
        None,
        false,
    )
    .unwrap();
    let (after, op) = apply_taints("node1", &[], &add.to_add, &add.to_remove, false).unwrap();
    assert_eq!(
        (after.clone(), op),
        (vec![key1.clone()], TaintOperation::Tainted)
    );
    let rm = parse_taint_command(
        &["nodes", "node1", "key1=value1:NoSchedule-"],
        false,
        None,
        false,
    )
    .unwrap();
    let (after, op) = apply_taints("node1", &after, &rm.to_add, &rm.to_remove, false).unwrap();
    assert_eq!((after, op), (vec![], TaintOperation::Untainted));
}

#[test]
fn russian_page_001() {
    let off = FeatureGates::default();
    let batch = tol("workload", "Equal", "batch", "NoSchedule");
    // "Этот фрагмент разрешает поду находиться на узле с taint workload=batch:NoSchedule ...
    //  и не покрывает taint с другим ключом, значением или эффектом."
    assert!(tolerates(
        &batch,
        &new_taint("workload", "batch", "NoSchedule"),
        &off
    ));
    assert!(
        !tolerates(&batch, &new_taint("other", "batch", "NoSchedule"), &off),
        "another key"
    );
    assert!(
        !tolerates(&batch, &new_taint("workload", "web", "NoSchedule"), &off),
        "another value"
    );
    assert!(
        !tolerates(&batch, &new_taint("workload", "batch", "NoExecute"), &off),
        "another effect"
    );
    // "Под всё равно не будет допущен к узлу, если оставшийся taint несовместим с его tolerations."
    let taints = [
        new_taint("workload", "batch", "NoSchedule"),
        new_taint("ssd", "local", "NoSchedule"),
    ];
    assert!(!fits(&taints, std::slice::from_ref(&batch)));
    // PreferNoSchedule is only a preference: it never filters.
    assert!(fits(&[new_taint("soft", "", "PreferNoSchedule")], &[]));
}

#[test]
fn overview_page_002() {
    // "Any NoSchedule taint left keeps the pod off, and any NoExecute taint left also evicts it."
    let taints = [
        new_taint("dedicated", "batch", "NoSchedule"),
        new_taint("gpu", "", "NoExecute"),
    ];
    let one = [tol("dedicated", "Equal", "batch", "NoSchedule")];
    assert!(!fits(&taints, &one));
    assert_eq!(
        no_execute_outcome(&taints, &one, &FeatureGates::default()),
        NoExecuteOutcome::Immediately
    );
    // "Kubernetes adds tolerations for not-ready and unreachable to every pod, with
    //  tolerationSeconds: 300, unless you or a controller set them."
    let mut pod = k8s_openapi::api::core::v1::Pod {
        spec: Some(PodSpec::default()),
        ..Default::default()
    };
    admit_pod(&mut pod, None, &AdmissionConfig::default()).unwrap();
    let got: Vec<(Option<String>, Option<i64>)> = pod
        .spec
        .unwrap()
        .tolerations
        .unwrap()
        .into_iter()
        .map(|t| (t.key, t.toleration_seconds))
        .collect();
    assert_eq!(
        got,
        vec![
            (Some("node.kubernetes.io/not-ready".into()), Some(300)),
            (Some("node.kubernetes.io/unreachable".into()), Some(300))
        ]
    );
    // The system pool's CriticalAddonsOnly=true:NoSchedule keeps application pods off.
    let system = [new_taint("CriticalAddonsOnly", "true", "NoSchedule")];
    assert!(!fits(&system, &[]));
    assert!(fits(
        &system,
        &[tol("CriticalAddonsOnly", "Exists", "", "")]
    ));
}

#[test]
fn chinese_chapter_003() {
    let off = FeatureGates::default();
    // "设置为 0 → 立即驱逐（等同没有容忍）": tolerationSeconds 0 evicts at once.
    let unreachable = [new_taint("node.kubernetes.io/unreachable", "", "NoExecute")];
    assert_eq!(
        no_execute_outcome(
            &unreachable,
            &[tol_secs(
                "node.kubernetes.io/unreachable",
                "Exists",
                "",
                "NoExecute",
                0
            )],
            &off
        ),
        NoExecuteOutcome::Immediately
    );
    assert_eq!(
        no_execute_outcome(
            &unreachable,
            &[tol_secs(
                "node.kubernetes.io/unreachable",
                "Exists",
                "",
                "NoExecute",
                300
            )],
            &off
        ),
        NoExecuteOutcome::After(300)
    );
    // "使用 Exists 时写 value 会报错：value must be empty when operator is Exists"
    let errs = validate_tolerations(
        &[tol("dedicated", "Exists", "gpu", "NoSchedule")],
        "spec.tolerations",
        &ValidationOptions::from_gates(&off),
    );
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0]
            .to_string()
            .contains("value must be empty when `operator` is 'Exists'"),
        "{}",
        errs[0]
    );
}

#[test]
fn numeric_operators_page_004() {
    let on = FeatureGates::with_comparison_operators();
    let sla = "servicelevel.organization.example/agreed-service-level";
    let gt900 = tol(sla, "Gt", "900", "NoSchedule");
    assert!(
        tolerates(&gt900, &new_taint(sla, "950", "NoSchedule"), &on),
        "950 > 900"
    );
    assert!(
        !tolerates(&gt900, &new_taint(sla, "high", "NoSchedule"), &on),
        "a non-numeric taint value never matches"
    );
    assert!(
        tolerates(
            &tol(sla, "Lt", "1000", "NoSchedule"),
            &new_taint(sla, "950", "NoSchedule"),
            &on
        ),
        "950 < 1000"
    );
    // "zero leading numbers (e.g., "0550") are not allowed"
    let opts = ValidationOptions::from_gates(&on);
    assert!(
        !validate_tolerations(
            &[tol(sla, "Gt", "0550", "NoSchedule")],
            "spec.tolerations",
            &opts
        )
        .is_empty()
    );
    assert!(
        validate_tolerations(std::slice::from_ref(&gt900), "spec.tolerations", &opts).is_empty()
    );
    // "Numeric operators work with all taint effects"; PreferNoSchedule only lowers the score.
    for effect in ["NoSchedule", "PreferNoSchedule", "NoExecute"] {
        assert!(
            tolerates(
                &tol(sla, "Gt", "900", effect),
                &new_taint(sla, "950", effect),
                &on
            ),
            "{effect}"
        );
    }
    let soft = [new_taint(sla, "800", "PreferNoSchedule")];
    assert_eq!(
        repel_core::taint::count_intolerable_prefer_no_schedule(
            &soft,
            &[tol(sla, "Gt", "900", "PreferNoSchedule")],
            &on
        ),
        1
    );
    assert!(fits(&soft, &[]), "but the node stays feasible");
}
