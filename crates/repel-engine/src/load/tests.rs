//! Unit tests of `crate::load`.
#![allow(clippy::unwrap_used)]
use super::*;

/// Everything a built cluster holds of its pods, in order.
fn pods_of(b: &Built) -> Vec<String> {
    b.cluster
        .pods
        .iter()
        .map(|p| {
            format!(
                "{} {:?} {:?} {:?} {:?}",
                p.key(),
                p.metadata(),
                p.spec(),
                p.priority,
                p.spec_node_name()
            )
        })
        .collect()
}

/// Workloads prepared on several threads (pods made and the first admitted ahead, in
/// batches) give the cluster that making and admitting each pod in turn gives: the same
/// pods, names, specs, order, refusals — for Deployments, StatefulSets, a DaemonSet, Jobs,
/// a template naming its node and workloads admission refuses.
/// A Deployment's pods share one label map (the template's and `pod-template-hash`), which
/// every reader sees as each pod's own: `labels`, `metadata`, `to_pod`; labelling one pod
/// changes that pod alone. A StatefulSet's pods, whose labels differ, each keep their own.
#[test]
fn a_workloads_pods_share_their_labels_and_each_reads_as_its_own() {
    use serde_json::json;
    let mut input = ClusterInput::default();
    input.nodes.push(
        serde_json::from_value(json!({"metadata": {"name": "n0"},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}))
        .unwrap(),
    );
    let template = json!({"metadata": {"labels": {"app": "web", "tier": "front"}},
        "spec": {"containers": [{"name": "c", "image": "x"}]}});
    input.workloads.push(Workload::Deployment(
        serde_json::from_value(json!({"metadata": {"name": "web", "namespace": "shop"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                "template": template}}))
        .unwrap(),
    ));
    input.workloads.push(Workload::StatefulSet(
        serde_json::from_value(json!({"metadata": {"name": "db", "namespace": "shop"},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                "template": template}}))
        .unwrap(),
    ));
    let gates = FeatureGates::default();
    let mut b = build_cluster_with(input, &gates, &AdmissionConfig::default(), 7, Some(2));
    let pods = &b.cluster.pods;
    assert_eq!(pods.len(), 5);
    let hash = pods[0].labels()["pod-template-hash"].clone();
    for p in &pods[..3] {
        let want: BTreeMap<String, String> = [
            ("app", "web"),
            ("tier", "front"),
            ("pod-template-hash", hash.as_str()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(p.labels(), &want, "{}", p.key());
        assert_eq!(p.metadata().labels.as_ref(), Some(&want), "{}", p.key());
        assert_eq!(p.to_pod().metadata.labels.as_ref(), Some(&want));
    }
    assert!(pods[1].labels_shared_with(&pods[2]));
    assert!(!pods[0].labels_shared_with(&pods[1]));
    // The StatefulSet's pods: labels of their own (each names its pod).
    assert!(!pods[3].labels_shared_with(&pods[4]));
    assert_ne!(pods[3].labels(), pods[4].labels());
    assert_eq!(
        pods[4].labels().get("statefulset.kubernetes.io/pod-name"),
        Some(&"db-1".to_string())
    );
    // Labelling one pod changes that pod alone.
    let mut mine = pods[1].labels().clone();
    mine.insert("canary".into(), "yes".into());
    b.cluster.pods[1].set_labels(Some(mine));
    let pods = &b.cluster.pods;
    assert_eq!(pods[1].labels().get("canary"), Some(&"yes".to_string()));
    assert_eq!(pods[1].to_pod().metadata.labels.unwrap().len(), 4);
    assert_eq!(pods[2].labels().get("canary"), None);
    assert_eq!(pods[2].labels().len(), 3);
}

#[test]
fn prepared_workloads_build_the_cluster_one_by_one_builds() {
    use serde_json::json;
    let mut input = ClusterInput::default();
    for i in 0..4 {
        input.nodes.push(
            serde_json::from_value(json!({
                "metadata": {"name": format!("n{i}")},
                "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}
            }))
            .unwrap(),
        );
    }
    for i in 0..150 {
        let container = json!([{"name": "c", "image": "x",
            "resources": {"requests": {"cpu": format!("{}m", i + 1)}}}]);
        let spec = match i % 5 {
            0 => json!({"containers": container}),
            // Refused by the Priority plugin.
            1 => json!({"containers": container, "priorityClassName": "no-such-class"}),
            2 => json!({"containers": container, "nodeName": "n1"}),
            3 => json!({"containers": container,
                "tolerations": [{"key": "k", "operator": "Exists"}]}),
            // Refused by validation.
            _ => json!({"containers": container,
                "tolerations": [{"key": "bad key", "operator": "Exists"}]}),
        };
        let template = json!({"metadata": {"labels": {"app": format!("w{i}")}}, "spec": spec});
        let selector = json!({"matchLabels": {"app": format!("w{i}")}});
        let meta = json!({"name": format!("w{i}"), "namespace": format!("ns{}", i % 3)});
        let w = match i % 4 {
            0 => Workload::Deployment(
                serde_json::from_value(json!({"metadata": meta, "spec":
                    {"replicas": 3, "selector": selector, "template": template}}))
                .unwrap(),
            ),
            1 => Workload::StatefulSet(
                serde_json::from_value(json!({"metadata": meta, "spec":
                    {"replicas": 2, "selector": selector, "template": template}}))
                .unwrap(),
            ),
            2 => Workload::Job(
                serde_json::from_value(json!({"metadata": meta, "spec":
                    {"parallelism": 2, "completions": 2, "template": template}}))
                .unwrap(),
            ),
            _ => Workload::DaemonSet(
                serde_json::from_value(json!({"metadata": meta, "spec":
                    {"selector": selector, "template": template}}))
                .unwrap(),
            ),
        };
        input.workloads.push(w);
    }
    let gates = FeatureGates::default();
    let admission = AdmissionConfig::default();
    let one_by_one = build_cluster_with(input.clone(), &gates, &admission, 7, None);
    assert!(
        one_by_one.cluster.pods.len() > 200,
        "{} pods, {} refused",
        one_by_one.cluster.pods.len(),
        one_by_one.rejected.len()
    );
    assert!(!one_by_one.rejected.is_empty());
    for threads in [1, 2, 4] {
        let prepared = build_cluster_with(input.clone(), &gates, &admission, 7, Some(threads));
        assert_eq!(
            pods_of(&prepared),
            pods_of(&one_by_one),
            "{threads} threads"
        );
        assert_eq!(prepared.rejected, one_by_one.rejected, "{threads} threads");
        assert_eq!(prepared.warnings, one_by_one.warnings);
    }
}

/// Stored pods (a snapshot's, bound to their nodes) of one template share one spec without
/// `nodeName` and the figures read from it, each with its own node, metadata and status, and
/// each reads as it did when built alone; a pod whose spec differs in one field has its own.
#[test]
fn stored_pods_of_one_template_share_their_spec_across_nodes() {
    use crate::cluster::PodPhase;
    use serde_json::json;
    let mut input = ClusterInput::default();
    for i in 0..3 {
        input.nodes.push(
            serde_json::from_value(json!({"metadata": {"name": format!("n{i}")},
                "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}))
            .unwrap(),
        );
    }
    let pod = |name: &str, node: &str, image: &str| -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "shop", "uid": format!("uid-{name}"),
                "creationTimestamp": "2026-12-07T16:16:12Z"},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": image,
                "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}}}]},
            "status": {"phase": "Running"}
        }))
        .unwrap()
    };
    // One template on three nodes, another image between, the first template again.
    input.pods = vec![
        pod("a0", "n0", "web"),
        pod("a1", "n1", "web"),
        pod("b0", "n1", "web:2"),
        pod("a2", "n2", "web"),
    ];
    let gates = FeatureGates::default();
    let admission = AdmissionConfig::default();
    let b = build_cluster_with(input.clone(), &gates, &admission, 7, Some(1));
    let pods = &b.cluster.pods;
    let spec = |i: usize| pods[i].shared_spec().unwrap();
    assert!(Arc::ptr_eq(spec(0), spec(1)) && Arc::ptr_eq(spec(0), spec(3)));
    assert!(!Arc::ptr_eq(spec(0), spec(2)));
    assert_eq!(spec(0).node_name, None);
    for (i, node) in [(0, 0), (1, 1), (2, 1), (3, 2)] {
        let p = &pods[i];
        assert_eq!(p.node, Some(node), "{}", p.key());
        assert_eq!(p.spec_node_name(), Some(format!("n{node}").as_str()));
        assert_eq!(p.phase, PodPhase::Running);
        // As the pod built alone reads.
        let alone = build_cluster_with(
            ClusterInput {
                pods: vec![input.pods[i].clone()],
                ..input.clone()
            },
            &gates,
            &admission,
            7,
            Some(1),
        );
        let q = &alone.cluster.pods[0];
        assert_eq!(p.to_pod(), q.to_pod(), "{}", p.key());
        assert_eq!(
            (p.priority, &p.requests, p.non_zero, &p.ports),
            (q.priority, &q.requests, q.non_zero, &q.ports),
            "{}",
            p.key()
        );
        // Requests defaulted from limits, as restoring does.
        assert_eq!(p.requests.milli_cpu, 100, "{}", p.key());
    }
    assert_eq!(b.cluster.nodes[1].pods, vec![1, 2]);
}
