//! Updates ignore the defaults but add the memory-pressure toleration, as the recorded QoS class decides (upstream `TestIgnoreUpdatingInitializedPod` and neighbours).

use super::*;

#[test]
fn update_ignores_defaults_but_adds_memory_pressure() {
    let ns = raw_namespace(&[(NS_DEFAULT_TOLERATIONS, "not json")]);
    let cfg = PodTolerationRestrictionConfig {
        default: vec![t_eq("cluster")],
        whitelist: vec![],
    };
    let cases = [
        (
            "an updated BestEffort pod is left alone, bad defaults unread",
            Qos::BestEffort,
            vec![t_eq("x")],
        ),
        (
            "an updated Burstable pod gets memory-pressure only",
            Qos::Burstable,
            vec![t_eq("x"), mp()],
        ),
    ];
    for (name, qos, want) in cases {
        let mut p = pod(qos, vec![t_eq("x")]);
        let got = pod_toleration_restriction(&mut p, Some(&ns), &cfg, AdmissionOperation::Update);
        assert_eq!(got, Ok(()), "{name}");
        assert_eq!(
            p.spec.and_then(|s| s.tolerations).unwrap_or_default(),
            want,
            "{name}"
        );
    }
}

#[test]
fn recorded_qos_class_decides_memory_pressure() {
    let mut p = pod(Qos::Guaranteed, vec![]);
    p.status = Some(PodStatus {
        qos_class: Some("BestEffort".into()),
        ..Default::default()
    });
    let got = pod_toleration_restriction(
        &mut p,
        Some(&raw_namespace(&[])),
        &Default::default(),
        AdmissionOperation::Update,
    );
    assert_eq!(got, Ok(()), "admitted");
    assert_eq!(
        p.spec.and_then(|s| s.tolerations),
        None,
        "status.qosClass BestEffort wins over the spec"
    );
}
