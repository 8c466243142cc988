//! Upstream `TestPodAdmission` (`plugin/pkg/admission/podtolerationrestriction/admission_test.go`).

use super::*;

struct Case {
    name: &'static str,
    qos: Qos,
    cluster_default: Vec<Toleration>,
    ns_default: Option<Vec<Toleration>>,
    ns_whitelist: Option<Vec<Toleration>>,
    cluster_whitelist: Vec<Toleration>,
    pod: Vec<Toleration>,
    want: Result<Vec<Toleration>, AdmissionError>,
}

#[test]
fn pod_toleration_restriction_table() {
    use Qos::*;
    let conflict_ns = Err(AdmissionError::WhitelistConflict {
        scope: WhitelistScope::Namespace,
    });
    let conflict_cluster = Err(AdmissionError::WhitelistConflict {
        scope: WhitelistScope::Cluster,
    });
    // Upstream TestPodAdmission (current version), then the rules it does not cover.
    let cases = vec![
        Case {
            name: "default cluster tolerations with empty pod tolerations and nil namespace tolerations",
            qos: BestEffort,
            cluster_default: vec![t_eq("testValue")],
            ns_default: None,
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "default cluster tolerations with pod tolerations specified",
            qos: BestEffort,
            cluster_default: vec![t_eq("testValue")],
            ns_default: Some(vec![]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![t_eq("testValue")],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "namespace tolerations",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![t_eq("testValue")],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "no pod tolerations",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "duplicate key pod and namespace tolerations are both kept, no conflict error",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![t_eq("testValue1")],
            want: Ok(vec![t_eq("testValue1"), t_eq("testValue")]),
        },
        Case {
            name: "conflicting pod and default cluster tolerations but overridden by empty namespace tolerations",
            qos: BestEffort,
            cluster_default: vec![t_eq("testValue2")],
            ns_default: Some(vec![]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![t_eq("testValue1")],
            want: Ok(vec![t_eq("testValue1")]),
        },
        Case {
            name: "merged pod tolerations satisfy whitelist",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: Some(vec![t_eq("testValue")]),
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "Override default cluster toleration by empty namespace level toleration",
            qos: BestEffort,
            cluster_default: vec![t_eq("testValue")],
            ns_default: Some(vec![]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![]),
        },
        Case {
            name: "pod toleration conflicts with default cluster white list which is overridden by empty namespace whitelist",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: Some(vec![]),
            cluster_whitelist: vec![t_eq("testValue1")],
            pod: vec![t_eq("testValue")],
            want: Ok(vec![t_eq("testValue")]),
        },
        Case {
            name: "merged pod tolerations conflict with the whitelist",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: Some(vec![t_eq("testValue1")]),
            cluster_whitelist: vec![],
            pod: vec![],
            want: conflict_ns.clone(),
        },
        Case {
            name: "added memoryPressure for Burstable pod (upstream compares as a set; pod first, extras after)",
            qos: Burstable,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: Some(vec![]),
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![t_eq("testValue"), mp()]),
        },
        Case {
            name: "Pod with duplicate key tolerations should not be modified",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: Some(vec![]),
            ns_whitelist: Some(vec![]),
            cluster_whitelist: vec![],
            pod: vec![t_eq("testValue"), t_eq("testValue1")],
            want: Ok(vec![t_eq("testValue"), t_eq("testValue1")]),
        },
        Case {
            name: "added memoryPressure for Guaranteed pod",
            qos: Guaranteed,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: Some(vec![]),
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![t_eq("testValue"), mp()]),
        },
        // Beyond upstream's table.
        Case {
            name: "a BestEffort pod does not get memory-pressure",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![]),
        },
        Case {
            name: "a Burstable pod gets memory-pressure even with no defaults",
            qos: Burstable,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![],
            want: Ok(vec![mp()]),
        },
        Case {
            name: "a pod wildcard swallows the namespace default and memory-pressure",
            qos: Burstable,
            cluster_default: vec![],
            ns_default: Some(vec![t_eq("testValue")]),
            ns_whitelist: None,
            cluster_whitelist: vec![],
            pod: vec![tol("", "Exists", "", "")],
            want: Ok(vec![tol("", "Exists", "", "")]),
        },
        Case {
            name: "the cluster whitelist rejects with the cluster scope",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: None,
            cluster_whitelist: vec![t_eq("ok")],
            pod: vec![t_eq("other")],
            want: conflict_cluster.clone(),
        },
        Case {
            name: "memory-pressure must itself pass the whitelist",
            qos: Burstable,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: Some(vec![t_eq("ok")]),
            cluster_whitelist: vec![],
            pod: vec![t_eq("ok")],
            want: conflict_ns.clone(),
        },
        Case {
            name: "an Exists whitelist entry covers Equal tolerations of its key",
            qos: BestEffort,
            cluster_default: vec![],
            ns_default: None,
            ns_whitelist: Some(vec![tol("testKey", "Exists", "", "")]),
            cluster_whitelist: vec![],
            pod: vec![t_eq("a"), t_eq("b")],
            want: Ok(vec![t_eq("a"), t_eq("b")]),
        },
    ];
    for c in cases {
        let ns = namespace(c.ns_default.as_deref(), c.ns_whitelist.as_deref());
        let cfg = PodTolerationRestrictionConfig {
            default: c.cluster_default.clone(),
            whitelist: c.cluster_whitelist.clone(),
        };
        let mut p = pod(c.qos, c.pod.clone());
        let got = pod_toleration_restriction(&mut p, Some(&ns), &cfg, AdmissionOperation::Create)
            .map(|()| p.spec.and_then(|s| s.tolerations).unwrap_or_default());
        assert_eq!(got, c.want, "{}", c.name);
    }
}
