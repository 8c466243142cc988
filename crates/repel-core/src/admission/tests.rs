//! Unit tests of `crate::admission`.

use super::*;
use crate::testing::{pod_with_tolerations, tol, tol_secs};
use k8s_openapi::api::core::v1::{ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

fn keys(pod: &Pod) -> Vec<String> {
    pod.spec
        .as_ref()
        .and_then(|s| s.tolerations.as_ref())
        .map(|ts| {
            ts.iter()
                .map(|t: &Toleration| {
                    format!(
                        "{}:{}",
                        t.key.as_deref().unwrap_or(""),
                        t.toleration_seconds.map_or("-".into(), |s| s.to_string())
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn burstable(name: &str) -> Pod {
    let mut p = pod_with_tolerations(name, vec![]);
    if let Some(c) = p.spec.as_mut().and_then(|s| s.containers.first_mut()) {
        c.resources = Some(ResourceRequirements {
            requests: Some([("cpu".to_string(), Quantity("100m".into()))].into()),
            ..Default::default()
        });
    }
    p
}

#[test]
fn default_toleration_seconds_then_pod_toleration_restriction() {
    let nr = "node.kubernetes.io/not-ready";
    let un = "node.kubernetes.io/unreachable";
    let mp = "node.kubernetes.io/memory-pressure";
    let stock = AdmissionConfig::default();
    let ptr = AdmissionConfig {
        pod_toleration_restriction: Some(PodTolerationRestrictionConfig::default()),
        ..Default::default()
    };
    let nothing = AdmissionConfig {
        default_toleration_seconds: None,
        pod_toleration_restriction: None,
        ..Default::default()
    };
    #[rustfmt::skip]
    let cases: Vec<(&str, Pod, AdmissionConfig, Vec<String>)> = vec![
        ("a BestEffort pod gets the two 300 s tolerations",
            pod_with_tolerations("p", vec![]), stock.clone(), vec![format!("{nr}:300"), format!("{un}:300")]),
        ("stock kube-apiserver runs no PodTolerationRestriction: a Burstable pod gets no memory-pressure",
            burstable("p"), stock.clone(), vec![format!("{nr}:300"), format!("{un}:300")]),
        ("with PodTolerationRestriction enabled, a Burstable pod also gets memory-pressure, after them",
            burstable("p"), ptr, vec![format!("{nr}:300"), format!("{un}:300"), format!("{mp}:-")]),
        ("with both plugins off, nothing changes",
            burstable("p"), nothing, vec![]),
        ("the pod's own not-ready toleration is kept",
            pod_with_tolerations("p", vec![tol_secs(nr, "Exists", "", "NoExecute", 60)]), AdmissionConfig::default(), vec![format!("{nr}:60"), format!("{un}:300")]),
    ];
    for (name, mut pod, cfg, want) in cases {
        admit_pod(&mut pod, None, &cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(keys(&pod), want, "{name}");
    }
}

fn gpu_pod(extra: &[(&str, &str)]) -> Pod {
    let mut p = pod_with_tolerations("gpu", vec![]);
    if let Some(c) = p.spec.as_mut().and_then(|s| s.containers.first_mut()) {
        let mut requests: BTreeMap<String, Quantity> =
            [("nvidia.com/gpu".to_string(), Quantity("1".into()))].into();
        for (k, v) in extra {
            requests.insert(k.to_string(), Quantity(v.to_string()));
        }
        c.resources = Some(ResourceRequirements {
            requests: Some(requests),
            ..Default::default()
        });
    }
    p
}

fn namespace(annotation: &str, value: &str) -> Namespace {
    Namespace {
        metadata: ObjectMeta {
            name: Some("default".into()),
            annotations: Some([(annotation.to_string(), value.to_string())].into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn admission_names_the_plugin_that_added_each_toleration() {
    let mp = "node.kubernetes.io/memory-pressure";
    let all = AdmissionConfig {
        pod_toleration_restriction: Some(PodTolerationRestrictionConfig::default()),
        extended_resource_toleration: true,
        ..Default::default()
    };
    // Burstable (a CPU request), so that PodTolerationRestriction adds memory-pressure.
    let mut pod = gpu_pod(&[("cpu", "100m")]);
    if let Some(spec) = pod.spec.as_mut() {
        spec.tolerations = Some(vec![tol("dedicated", "Exists", "", "NoSchedule")]);
    }
    let sources = admit_pod_traced(&mut pod, None, &all).unwrap_or_default();
    let keys: Vec<String> = pod
        .spec
        .as_ref()
        .and_then(|s| s.tolerations.as_ref())
        .map(|ts| {
            ts.iter()
                .map(|t| t.key.clone().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "dedicated",
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
            mp,
            "nvidia.com/gpu"
        ]
    );
    assert_eq!(
        sources,
        [
            None,
            Some(DEFAULT_TOLERATION_SECONDS),
            Some(DEFAULT_TOLERATION_SECONDS),
            Some(POD_TOLERATION_RESTRICTION),
            Some(EXTENDED_RESOURCE_TOLERATION),
        ]
    );
    // The traced chain admits exactly as the plain one does.
    let mut plain = gpu_pod(&[("cpu", "100m")]);
    if let Some(spec) = plain.spec.as_mut() {
        spec.tolerations = Some(vec![tol("dedicated", "Exists", "", "NoSchedule")]);
    }
    admit_pod(&mut plain, None, &all).unwrap_or_default();
    assert_eq!(plain, pod);
}

#[test]
fn a_stored_pod_is_one_the_api_server_wrote() {
    use k8s_openapi::api::core::v1::PodStatus;
    let bound = |phase: Option<&str>| {
        let mut p = pod_with_tolerations("p", vec![]);
        if let Some(s) = p.spec.as_mut() {
            s.node_name = Some("node1".into());
        }
        p.status = Some(PodStatus {
            phase: phase.map(str::to_string),
            ..Default::default()
        });
        p
    };
    // `kubectl run --dry-run=client -o yaml` prints `status: {}`: a pod to create.
    assert!(!is_stored(&pod_with_tolerations("p", vec![])));
    assert!(!is_stored(&bound(None)));
    // A bound pod with a phase, as `kubectl get pods -o yaml` prints it.
    assert!(is_stored(&bound(Some("Running"))));
    // An unbound pod is stored when it carries what only the API server writes.
    let mut pending = pod_with_tolerations("p", vec![]);
    pending.metadata.uid = Some("36447428-81f8-45eb-b825-414de2e8012b".into());
    assert!(is_stored(&pending));
    let mut versioned = pod_with_tolerations("p", vec![]);
    versioned.metadata.resource_version = Some("407".into());
    assert!(is_stored(&versioned));
    // A phase without a node is not enough (a hand-written status).
    let mut unbound = bound(Some("Pending"));
    if let Some(s) = unbound.spec.as_mut() {
        s.node_name = None;
    }
    assert!(!is_stored(&unbound));
}

#[test]
fn extended_resource_toleration_in_upstreams_order() {
    use crate::defaults::{NS_DEFAULT_TOLERATIONS, NS_WHITELIST_TOLERATIONS, WhitelistScope};
    let nr = "node.kubernetes.io/not-ready";
    let un = "node.kubernetes.io/unreachable";
    let mp = "node.kubernetes.io/memory-pressure";
    let gpu = "nvidia.com/gpu";
    let ert = AdmissionConfig {
        extended_resource_toleration: true,
        pod_toleration_restriction: Some(PodTolerationRestrictionConfig::default()),
        ..Default::default()
    };
    let whitelist = namespace(
        NS_WHITELIST_TOLERATIONS,
        &format!(r#"[{{"key":"{nr}","operator":"Exists"}},{{"key":"{un}","operator":"Exists"}}]"#),
    );
    let wildcard_default = namespace(NS_DEFAULT_TOLERATIONS, r#"[{"operator":"Exists"}]"#);
    #[rustfmt::skip]
    let cases: Vec<(&str, Pod, Option<&Namespace>, AdmissionConfig, Result<Vec<String>, AdmissionError>)> = vec![
        ("off by default, as upstream: a GPU pod gets no GPU toleration",
            gpu_pod(&[]), None, AdmissionConfig::default(), Ok(vec![format!("{nr}:300"), format!("{un}:300")])),
        ("on: the GPU toleration comes after DefaultTolerationSeconds' two",
            gpu_pod(&[]), None, ert.clone(), Ok(vec![format!("{nr}:300"), format!("{un}:300"), format!("{gpu}:-")])),
        ("on, Burstable: after PodTolerationRestriction's memory-pressure too",
            gpu_pod(&[("cpu", "100m")]), None, ert.clone(), Ok(vec![format!("{nr}:300"), format!("{un}:300"), format!("{mp}:-"), format!("{gpu}:-")])),
        ("without ExtendedResourceToleration, the whitelist admits the GPU pod",
            gpu_pod(&[]), Some(&whitelist), AdmissionConfig { extended_resource_toleration: false, ..ert.clone() }, Ok(vec![format!("{nr}:300"), format!("{un}:300")])),
        ("the whitelist is validated after every mutating plugin: it refuses the GPU toleration ExtendedResourceToleration added",
            gpu_pod(&[]), Some(&whitelist), ert.clone(), Err(AdmissionError::WhitelistConflict { scope: WhitelistScope::Namespace })),
        ("a wildcard namespace default swallows DefaultTolerationSeconds' tolerations in the merge, but the GPU toleration is added after the merge and stays",
            gpu_pod(&[]), Some(&wildcard_default), ert.clone(), Ok(vec![":-".to_string(), format!("{gpu}:-")])),
        ("without PodTolerationRestriction, ExtendedResourceToleration still runs",
            gpu_pod(&[]), Some(&whitelist), AdmissionConfig { pod_toleration_restriction: None, ..ert.clone() },
            Ok(vec![format!("{nr}:300"), format!("{un}:300"), format!("{gpu}:-")])),
    ];
    for (name, mut pod, ns, cfg, want) in cases {
        let got = admit_pod(&mut pod, ns, &cfg).map(|()| keys(&pod));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn create_pod_reads_a_limit_only_gpu_after_defaulting() {
    let mut p = pod_with_tolerations("gpu", vec![]);
    if let Some(c) = p.spec.as_mut().and_then(|s| s.containers.first_mut()) {
        c.resources = Some(ResourceRequirements {
            limits: Some([("nvidia.com/gpu".to_string(), Quantity("1".into()))].into()),
            ..Default::default()
        });
    }
    let cfg = AdmissionConfig {
        extended_resource_toleration: true,
        ..Default::default()
    };
    create_pod(&mut p, None, &cfg, &FeatureGates::default()).unwrap();
    assert!(
        keys(&p).contains(&"nvidia.com/gpu:-".to_string()),
        "a GPU asked for by limit alone is a request once defaulted, so it is tolerated: {:?}",
        keys(&p)
    );
}

#[test]
fn limits_become_requests() {
    let mut p = burstable("p");
    if let Some(c) = p.spec.as_mut().and_then(|s| s.containers.first_mut()) {
        c.resources = Some(ResourceRequirements {
            limits: Some(
                [
                    ("nvidia.com/gpu".to_string(), Quantity("1".into())),
                    ("cpu".to_string(), Quantity("2".into())),
                ]
                .into(),
            ),
            requests: Some([("cpu".to_string(), Quantity("1".into()))].into()),
            ..Default::default()
        });
    }
    let spec = p.spec.as_mut().unwrap();
    set_defaults_pod(spec);
    let req = spec.containers[0]
        .resources
        .as_ref()
        .and_then(|r| r.requests.clone())
        .unwrap();
    assert_eq!(
        req.get("nvidia.com/gpu").map(|q| q.0.as_str()),
        Some("1"),
        "a limit without a request becomes the request"
    );
    assert_eq!(
        req.get("cpu").map(|q| q.0.as_str()),
        Some("1"),
        "an explicit request stays"
    );
}

#[test]
fn priority_classes() {
    use k8s_openapi::api::scheduling::v1::PriorityClass;
    let class = |name: &str, value: i32, default: bool| PriorityClass {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        value: Some(value),
        global_default: Some(default),
        ..Default::default()
    };
    let classes = vec![class("high", 1000, false), class("normal", 10, true)];
    #[rustfmt::skip]
    let cases: Vec<(&str, Option<&str>, Option<i32>, Result<i32, &str>)> = vec![
        ("a named class gives its value", Some("high"), None, Ok(1000)),
        ("no name: the global default", None, None, Ok(10)),
        ("a built-in system class", Some("system-node-critical"), None, Ok(2_000_001_000)),
        ("an unknown class is refused", Some("gold"), None, Err("no PriorityClass with name gold was found")),
        ("a matching explicit priority is fine", Some("high"), Some(1000), Ok(1000)),
        ("a different explicit priority is refused", Some("high"), Some(5),
            Err("the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name")),
    ];
    for (name, class_name, priority, want) in cases {
        let mut spec = PodSpec {
            priority_class_name: class_name.map(str::to_string),
            priority,
            ..Default::default()
        };
        let got = resolve_priority(&mut spec, &classes).map(|()| spec.priority.unwrap_or(-1));
        assert_eq!(got, want.map_err(str::to_string), "{name}");
    }
    let mut spec = PodSpec::default();
    resolve_priority(&mut spec, &[]).unwrap();
    assert_eq!(
        (spec.priority, spec.preemption_policy.as_deref()),
        (Some(0), Some("PreemptLowerPriority")),
        "no classes at all: 0"
    );
}
