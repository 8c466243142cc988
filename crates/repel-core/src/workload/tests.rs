use super::*;
use crate::testing::{node_with_taints, taint, tol};
use k8s_openapi::api::apps::v1::{DaemonSetSpec, DeploymentSpec, StatefulSetSpec};
use k8s_openapi::api::batch::v1::JobSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

fn template(tolerations: Vec<Toleration>) -> PodTemplateSpec {
    PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some([("app".to_string(), "x".to_string())].into()),
            ..Default::default()
        }),
        spec: crate::testing::pod_with_tolerations("t", tolerations).spec,
    }
}

fn meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: Some("ns".into()),
        ..Default::default()
    }
}

use k8s_openapi::api::core::v1::Toleration;

fn names(pods: &[Pod]) -> Vec<String> {
    pods.iter()
        .map(|p| p.metadata.name.clone().unwrap_or_default())
        .collect()
}

#[test]
fn statefulset_pods_are_numbered_in_order() {
    let w = Workload::from(StatefulSet {
        metadata: meta("db"),
        spec: StatefulSetSpec {
            replicas: Some(3),
            template: template(vec![]),
            selector: LabelSelector::default(),
            ..Default::default()
        },
        status: None,
    });
    let pods = expand_pods(&w, &[], &FeatureGates::default(), 1);
    assert_eq!(names(&pods), ["db-0", "db-1", "db-2"]);
    assert_eq!(
        pods[1]
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("statefulset.kubernetes.io/pod-name"))
            .map(String::as_str),
        Some("db-1")
    );
    assert_eq!(pods[0].metadata.namespace.as_deref(), Some("ns"));
}

#[test]
fn deployment_pods_are_named_rs_hash_then_suffix() {
    let w = Workload::from(Deployment {
        metadata: meta("web"),
        spec: DeploymentSpec {
            replicas: Some(2),
            template: template(vec![]),
            selector: LabelSelector::default(),
            ..Default::default()
        },
        status: None,
    });
    let a = expand_pods(&w, &[], &FeatureGates::default(), 42);
    let b = expand_pods(&w, &[], &FeatureGates::default(), 42);
    let c = expand_pods(&w, &[], &FeatureGates::default(), 43);
    assert_eq!(names(&a), names(&b), "the same seed gives the same names");
    assert_ne!(names(&a), names(&c), "another seed, other suffixes");
    let hash = pod_template_hash(&template(vec![]));
    for n in names(&a) {
        let rest = n
            .strip_prefix(&format!("web-{hash}-"))
            .unwrap_or_else(|| panic!("{n} lacks web-{hash}-"));
        assert_eq!(rest.len(), 5, "{n}");
        assert!(rest.bytes().all(|b| NAME_ALPHABET.contains(&b)), "{n}");
    }
    assert_eq!(
        a[0].metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("pod-template-hash")),
        Some(&hash)
    );
    assert!(hash.bytes().all(|b| NAME_ALPHABET.contains(&b)));
}

/// 27^5 suffixes: 30,000 random draws repeat about 30 of them, and upstream's API server
/// refuses a name that exists (its controller tries another), so every pod of a workload has a
/// name of its own. The streamed pods are the collected ones, in order.
#[test]
fn a_large_workloads_pods_have_distinct_names_streamed_or_collected() {
    let replicas = 30_000;
    let deployment = Workload::from(Deployment {
        metadata: meta("web"),
        spec: DeploymentSpec {
            replicas: Some(replicas),
            template: template(vec![]),
            selector: LabelSelector::default(),
            ..Default::default()
        },
        status: None,
    });
    let job = Workload::from(Job {
        metadata: meta("batch"),
        spec: Some(JobSpec {
            parallelism: Some(replicas),
            completions: Some(replicas),
            template: template(vec![]),
            ..Default::default()
        }),
        status: None,
    });
    for w in [deployment, job] {
        let plan = claim::plan(std::slice::from_ref(&w), &[], &[], &FeatureGates::default());
        let collected = expand_planned(&w, &plan.workloads[0], 7, |_| false);
        let mut streamed = Vec::new();
        for_each_planned_pod(&w, &plan.workloads[0], 7, |_| false, |p| streamed.push(p));
        assert_eq!(collected.len(), replicas as usize, "{}", w.kind());
        assert_eq!(collected, streamed, "{}", w.kind());
        let distinct: std::collections::HashSet<String> = names(&collected).into_iter().collect();
        assert_eq!(
            distinct.len(),
            collected.len(),
            "{}: repeated names",
            w.kind()
        );
    }
}

#[test]
fn job_pods_follow_parallelism_and_completions() {
    let job = |parallelism, completions| {
        Workload::from(Job {
            metadata: meta("j"),
            spec: Some(JobSpec {
                parallelism,
                completions,
                template: template(vec![]),
                ..Default::default()
            }),
            status: None,
        })
    };
    #[rustfmt::skip]
    let cases = [
        ("defaults: one pod", None, None, 1),
        ("parallelism 3", Some(3), None, 3),
        ("parallelism capped by completions", Some(5), Some(2), 2),
        ("parallelism 0 creates nothing", Some(0), Some(4), 0),
    ];
    for (name, p, c, want) in cases {
        assert_eq!(job(p, c).pod_count(), want, "{name}");
    }
}

#[test]
fn daemonset_runs_where_taints_and_selector_allow() {
    let mut gpu = node_with_taints("gpu-1", vec![taint("sku", "gpu", "NoSchedule")]);
    gpu.metadata.labels = Some([("accelerator".to_string(), "nvidia".to_string())].into());
    let mut cordoned = node_with_taints("cordoned", vec![]);
    if let Some(s) = cordoned.spec.as_mut() {
        s.unschedulable = Some(true);
    }
    let not_ready = node_with_taints(
        "not-ready",
        vec![taint("node.kubernetes.io/not-ready", "", "NoExecute")],
    );
    let plain = node_with_taints("plain", vec![]);
    let nodes = vec![plain, gpu, cordoned, not_ready];
    let ds = |tols: Vec<Toleration>, selector: bool| {
        let mut t = template(tols);
        if let Some(s) = t.spec.as_mut().filter(|_| selector) {
            s.node_selector = Some([("accelerator".to_string(), "nvidia".to_string())].into());
        }
        Workload::from(DaemonSet {
            metadata: meta("agent"),
            spec: DaemonSetSpec {
                template: t,
                ..Default::default()
            },
            status: None,
        })
    };
    let on = |w: &Workload| -> Vec<String> {
        let Workload::DaemonSet(d) = w else {
            return vec![];
        };
        daemon_nodes(d, &nodes, &FeatureGates::default())
            .iter()
            .map(|n| n.metadata.name.clone().unwrap_or_default())
            .collect()
    };
    assert_eq!(
        on(&ds(vec![], false)),
        ["plain", "cordoned", "not-ready"],
        "DaemonSet tolerations cover cordon and not-ready; the sku taint blocks"
    );
    assert_eq!(
        on(&ds(vec![], true)),
        Vec::<String>::new(),
        "the device plugin without the GPU toleration runs nowhere"
    );
    assert_eq!(
        on(&ds(vec![tol("sku", "Equal", "gpu", "NoSchedule")], true)),
        ["gpu-1"],
        "with it, on its own node"
    );
    let pods = expand_pods(&ds(vec![], false), &nodes, &FeatureGates::default(), 0);
    assert_eq!(pods.len(), 3);
    assert!(
        pods.iter().all(|p| p
            .spec
            .as_ref()
            .and_then(|s| s.tolerations.as_ref())
            .is_some_and(|t| t.len() == 6)),
        "six DaemonSet tolerations without hostNetwork"
    );
}

#[test]
fn daemon_pod_keeps_running_only_without_untolerated_no_execute() {
    let mut spec = crate::testing::pod_with_tolerations("d", vec![])
        .spec
        .unwrap_or_default();
    crate::defaults::add_daemonset_tolerations(&mut spec);
    let gates = FeatureGates::default();
    #[rustfmt::skip]
    let cases = [
        ("no taints: run", node_with_taints("n", vec![]), (true, true)),
        ("an untolerated NoSchedule taint: do not start, keep running", node_with_taints("n", vec![taint("x", "", "NoSchedule")]), (false, true)),
        ("an untolerated NoExecute taint: neither", node_with_taints("n", vec![taint("x", "", "NoExecute")]), (false, false)),
        ("unreachable NoExecute is tolerated forever", node_with_taints("n", vec![taint("node.kubernetes.io/unreachable", "", "NoExecute")]), (true, true)),
    ];
    for (name, node, want) in cases {
        assert_eq!(
            node_should_run_daemon_pod(&spec, &node, &gates),
            want,
            "{name}"
        );
    }
}

#[test]
fn safe_encode_and_fnv_are_upstreams() {
    assert_eq!(fnv32a(b""), 0x811c_9dc5);
    assert_eq!(fnv32a(b"a"), 0xe40c_292c);
    // SafeEncodeString maps each byte modulo 27 into the alphabet: '0' (48) -> 21 -> '4'.
    assert_eq!(safe_encode_string("0"), "4");
    assert_eq!(safe_encode_string("123"), "567");
}

fn rc_from(v: serde_json::Value) -> ReplicationController {
    serde_json::from_value(v).expect("test RC parses")
}

/// Upstream `TestSetDefaultReplicationController` (pkg/apis/core/v1/defaults_test.go): the
/// selector, and the RC's labels, become the template's labels only when empty. Upstream's
/// cases have no names; these say what each holds.
#[test]
fn set_default_replication_controller() {
    use serde_json::json;
    let template = json!({"metadata": {"labels": {"foo": "bar"}}});
    let cases = [
        (
            "no labels, no selector: both defaulted",
            json!({"spec": {"template": template}}),
            true,
            true,
        ),
        (
            "labels given, no selector: the selector defaulted",
            json!({"metadata": {"labels": {"bar": "foo"}}, "spec": {"template": template}}),
            false,
            true,
        ),
        (
            "labels and selector given: neither defaulted",
            json!({"metadata": {"labels": {"bar": "foo"}},
                   "spec": {"selector": {"some": "other"}, "template": template}}),
            false,
            false,
        ),
        (
            "selector given, no labels: the labels defaulted",
            json!({"spec": {"selector": {"some": "other"}, "template": template}}),
            true,
            false,
        ),
    ];
    for (name, v, expect_labels, expect_selector) in cases {
        let mut rc = rc_from(v);
        set_defaults_replication_controller(&mut rc);
        let spec = rc.spec.clone().unwrap_or_default();
        let labels = spec
            .template
            .and_then(|t| t.metadata)
            .and_then(|m| m.labels);
        assert_eq!(spec.selector == labels, expect_selector, "{name}");
        assert_eq!(rc.metadata.labels == labels, expect_labels, "{name}");
    }
}

/// Upstream `TestSetDefaultReplicationControllerReplicas`: a missing `replicas` is 1, a given
/// one (0 too) is kept.
#[test]
fn set_default_replication_controller_replicas() {
    use serde_json::json;
    let template = json!({"metadata": {"labels": {"foo": "bar"}}});
    for (replicas, want) in [(None, 1), (Some(0), 0), (Some(3), 3)] {
        let mut rc = rc_from(json!({"spec": {"replicas": replicas, "template": template}}));
        set_defaults_replication_controller(&mut rc);
        assert_eq!(rc.spec.and_then(|s| s.replicas), Some(want), "{replicas:?}");
    }
}

/// A ReplicationController's pods are a ReplicaSet's: `NAME-<5 chars>`, with the template's
/// labels (no `pod-template-hash`), owned by the RC as `v1` `ReplicationController`.
#[test]
fn replication_controller_pods_are_named_and_owned_as_upstream() {
    let rc = Workload::from(rc_from(serde_json::json!({
        "metadata": {"name": "nginx", "namespace": "web", "uid": "uid-1"},
        "spec": {"replicas": 3, "selector": {"app": "nginx"},
                 "template": {"metadata": {"labels": {"app": "nginx"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})));
    assert_eq!(rc.kind(), "ReplicationController");
    assert_eq!(rc.pod_count(), 3);
    let pods = expand_pods(&rc, &[], &FeatureGates::default(), 7);
    assert_eq!(pods.len(), 3);
    for p in &pods {
        let name = p.metadata.name.clone().unwrap_or_default();
        let suffix = name.strip_prefix("nginx-").unwrap_or_default();
        assert_eq!(suffix.len(), 5, "{name}");
        assert!(suffix.bytes().all(|b| NAME_ALPHABET.contains(&b)), "{name}");
        assert_eq!(
            p.metadata.labels,
            Some([("app".to_string(), "nginx".to_string())].into())
        );
        let r = &p.metadata.owner_references.clone().unwrap_or_default()[0];
        assert_eq!(
            (r.api_version.as_str(), r.kind.as_str(), r.name.as_str()),
            ("v1", "ReplicationController", "nginx")
        );
        assert_eq!((r.uid.as_str(), r.controller), ("uid-1", Some(true)));
    }
}
