//! The claim rules of upstream's controllers, one named case each.

use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::{Value, json};

use super::*;
use crate::testing::{self, MakeNode, MakePod};
use crate::workload::{Workload, expand_planned};

fn parse<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("test workload parses")
}

fn workload(v: Value) -> Workload {
    let kind = v["kind"].as_str().unwrap_or_default().to_string();
    match kind.as_str() {
        "Deployment" => Workload::Deployment(parse(v)),
        "ReplicaSet" => Workload::ReplicaSet(parse(v)),
        "StatefulSet" => Workload::StatefulSet(parse(v)),
        "DaemonSet" => Workload::DaemonSet(parse(v)),
        "Job" => Workload::Job(parse(v)),
        "ReplicationController" => Workload::ReplicationController(parse(v)),
        _ => Workload::CronJob(parse(v)),
    }
}

fn template(app: &str) -> Value {
    json!({"metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
}

fn rs(name: &str, replicas: i32, app: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
           "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
           "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}}, "template": template(app)}})
}

fn pod(name: &str, app: &str, owner: Option<(&str, &str, &str)>, phase: &str) -> Pod {
    let pod = MakePod::new()
        .name(name)
        .namespace("default")
        .label("app", app);
    let pod = match owner {
        Some((kind, oname, uid)) => pod.owner_reference("apps/v1", kind, oname, uid),
        None => pod,
    };
    pod.container("c", "nginx").phase(phase).obj()
}

fn node(name: &str, taint: bool) -> Node {
    let node = MakeNode::new().name(name);
    if taint {
        node.taints(vec![testing::taint("dedicated", "gpu", "NoSchedule")])
            .obj()
    } else {
        node.obj()
    }
}

fn run(workloads: &[Value], mut pods: Vec<Pod>, nodes: &[Node]) -> (Plan, Vec<Pod>) {
    let ws: Vec<Workload> = workloads.iter().cloned().map(workload).collect();
    let p = claim_pods(&ws, &mut pods, nodes, &FeatureGates::default());
    (p, pods)
}

#[test]
fn replicaset_counts_the_pods_it_owns() {
    type Case = (&'static str, i32, Vec<Pod>, Create);
    let cases: Vec<Case> = vec![
        (
            "a ReplicaSet of 1 with its running pod creates nothing",
            1,
            vec![pod(
                "web-abcde",
                "web",
                Some(("ReplicaSet", "web", "uid-web")),
                "Running",
            )],
            Create::Nothing,
        ),
        (
            "a ReplicaSet of 3 with one pod creates two",
            3,
            vec![pod(
                "web-abcde",
                "web",
                Some(("ReplicaSet", "web", "uid-web")),
                "Running",
            )],
            Create::Pods(2),
        ),
        (
            "a pod of another ReplicaSet named alike (another uid) is not counted",
            1,
            vec![pod(
                "web-abcde",
                "web",
                Some(("ReplicaSet", "web", "uid-other")),
                "Running",
            )],
            Create::Pods(1),
        ),
        (
            "a failed pod is not active: it is replaced",
            1,
            vec![pod(
                "web-abcde",
                "web",
                Some(("ReplicaSet", "web", "uid-web")),
                "Failed",
            )],
            Create::Pods(1),
        ),
        (
            "an orphan the selector matches is adopted and counted",
            2,
            vec![pod("stray", "web", None, "Running")],
            Create::Pods(1),
        ),
        (
            "an orphan the selector does not match stays an orphan",
            1,
            vec![pod("stray", "db", None, "Running")],
            Create::Pods(1),
        ),
        (
            "surplus pods are left, nothing created",
            1,
            vec![
                pod(
                    "web-aaaaa",
                    "web",
                    Some(("ReplicaSet", "web", "uid-web")),
                    "Running",
                ),
                pod(
                    "web-bbbbb",
                    "web",
                    Some(("ReplicaSet", "web", "uid-web")),
                    "Running",
                ),
            ],
            Create::Nothing,
        ),
    ];
    for (name, replicas, pods, want) in cases {
        let (p, _) = run(&[rs("web", replicas, "web")], pods, &[]);
        assert_eq!(p.workloads[0].create, want, "{name}");
    }
}

#[test]
fn adopted_orphans_get_the_controller_reference() {
    let (p, pods) = run(
        &[rs("web", 2, "web")],
        vec![pod("stray", "web", None, "Running")],
        &[],
    );
    assert_eq!(p.workloads[0].owned, vec![0]);
    let r = pods[0]
        .metadata
        .owner_references
        .as_ref()
        .and_then(|o| o.first())
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        (
            r.kind.as_str(),
            r.name.as_str(),
            r.uid.as_str(),
            r.controller
        ),
        ("ReplicaSet", "web", "uid-web", Some(true))
    );
    // The new pods skip the names taken.
    let ws = [workload(rs("web", 2, "web"))];
    let made = expand_planned(&ws[0], &p.workloads[0], 1, |n| n == "stray");
    assert_eq!(made.len(), 1);
}

fn rc(name: &str, replicas: i32, app: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ReplicationController",
           "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
           "spec": {"replicas": replicas, "selector": {"app": app}, "template": template(app)}})
}

/// A ReplicationController claims as a ReplicaSet does (upstream runs the ReplicaSet
/// controller over it, its selector map as `matchLabels`): it counts the pods whose controller
/// reference names it and adopts the orphans its selector matches, naming itself `v1`
/// `ReplicationController`.
#[test]
fn a_replication_controller_counts_and_adopts_as_a_replicaset() {
    let owned = |name: &str, kind: &str, uid: &str| {
        let mut p = pod(name, "web", Some((kind, "web", uid)), "Running");
        if let Some(r) = p.metadata.owner_references.as_mut() {
            r[0].api_version = "v1".into();
        }
        p
    };
    type Case = (&'static str, i32, Vec<Pod>, Create, Vec<usize>);
    let cases: Vec<Case> = vec![
        (
            "an RC of 3 with one pod it owns creates two",
            3,
            vec![owned("web-abcde", "ReplicationController", "uid-web")],
            Create::Pods(2),
            vec![0],
        ),
        (
            "a pod of a ReplicaSet of the same name is not the RC's",
            1,
            vec![owned("web-abcde", "ReplicaSet", "uid-web")],
            Create::Pods(1),
            vec![],
        ),
        (
            "an orphan the selector matches is adopted and counted",
            2,
            vec![pod("stray", "web", None, "Running")],
            Create::Pods(1),
            vec![0],
        ),
        (
            "an orphan the selector does not match stays an orphan",
            1,
            vec![pod("stray", "db", None, "Running")],
            Create::Pods(1),
            vec![],
        ),
    ];
    for (name, replicas, pods, want, owned) in cases {
        let (p, pods) = run(&[rc("web", replicas, "web")], pods, &[]);
        assert_eq!(p.workloads[0].create, want, "{name}");
        assert_eq!(p.workloads[0].owned, owned, "{name}");
        assert_eq!(
            p.workloads[0].owner,
            Some(OwnerId {
                kind: "ReplicationController".into(),
                name: "web".into(),
                uid: Some("uid-web".into()),
            }),
            "{name}"
        );
        if name.contains("adopted") {
            let r = pods[0]
                .metadata
                .owner_references
                .as_ref()
                .and_then(|o| o.first())
                .cloned()
                .unwrap_or_default();
            assert_eq!(
                (
                    r.api_version.as_str(),
                    r.kind.as_str(),
                    r.name.as_str(),
                    r.uid.as_str(),
                    r.controller
                ),
                ("v1", "ReplicationController", "web", "uid-web", Some(true)),
                "{name}"
            );
        }
    }
}

#[test]
fn a_deployment_counts_its_replicasets_pods() {
    let dep = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "uid": "uid-dep"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": template("web")}});
    let mut owned_rs = rs("web-5d78c9869d", 3, "web");
    owned_rs["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "uid-dep", "controller": true}]);
    owned_rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] = json!("5d78c9869d");
    let rs_pod = |n: &str| {
        pod(
            n,
            "web",
            Some(("ReplicaSet", "web-5d78c9869d", "uid-web-5d78c9869d")),
            "Running",
        )
    };

    // With its ReplicaSet: the ReplicaSet creates nothing itself; the Deployment the missing one.
    let (p, _) = run(
        &[dep.clone(), owned_rs],
        vec![
            rs_pod("web-5d78c9869d-aaaaa"),
            rs_pod("web-5d78c9869d-bbbbb"),
        ],
        &[],
    );
    assert_eq!(
        p.workloads[0].create,
        Create::Pods(1),
        "deployment with its ReplicaSet"
    );
    assert_eq!(
        p.workloads[0]
            .owner
            .as_ref()
            .map(|o| (o.name.as_str(), o.uid.as_deref())),
        Some(("web-5d78c9869d", Some("uid-web-5d78c9869d"))),
        "the new pod belongs to the ReplicaSet of the current template"
    );
    assert_eq!(
        p.workloads[1].create,
        Create::Nothing,
        "the Deployment's ReplicaSet"
    );
    assert!(p.workloads[1].owner.is_none());

    // Pods exported without their ReplicaSet.
    let (p, _) = run(
        std::slice::from_ref(&dep),
        vec![
            rs_pod("web-5d78c9869d-aaaaa"),
            rs_pod("web-5d78c9869d-bbbbb"),
            rs_pod("web-5d78c9869d-ccccc"),
        ],
        &[],
    );
    assert_eq!(
        p.workloads[0].create,
        Create::Nothing,
        "all three pods there"
    );
    let mut four = dep;
    four["spec"]["replicas"] = json!(4);
    let ws = [workload(four.clone())];
    let (p, _) = run(&[four], vec![rs_pod("web-5d78c9869d-aaaaa")], &[]);
    let made = expand_planned(&ws[0], &p.workloads[0], 1, |_| false);
    assert_eq!(made.len(), 3, "4 replicas, one there");
    for m in &made {
        let name = m.metadata.name.as_deref().unwrap_or_default();
        assert!(
            name.starts_with("web-5d78c9869d-"),
            "{name} belongs to the pods' ReplicaSet"
        );
        assert_eq!(
            m.metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("pod-template-hash"))
                .map(String::as_str),
            Some("5d78c9869d")
        );
    }
}

#[test]
fn a_statefulset_creates_its_missing_ordinals() {
    let sts = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default", "uid": "uid-db"},
        "spec": {"replicas": 3, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}}, "template": template("db")}});
    let (p, _) = run(
        std::slice::from_ref(&sts),
        vec![
            pod(
                "db-0",
                "db",
                Some(("StatefulSet", "db", "uid-db")),
                "Running",
            ),
            pod(
                "db-2",
                "db",
                Some(("StatefulSet", "db", "uid-db")),
                "Failed",
            ),
            pod("other", "db", None, "Running"),
        ],
        &[],
    );
    assert_eq!(
        p.workloads[0].create,
        Create::Ordinals(vec![1]),
        "db-1 is missing; a failed db-2 still holds its name; `other` is no member"
    );
    let (p, _) = run(&[sts], vec![pod("db-1", "db", None, "Running")], &[]);
    assert_eq!(
        p.workloads[0].create,
        Create::Ordinals(vec![0, 2]),
        "an orphan named db-1 is adopted"
    );
}

#[test]
fn a_daemonset_skips_the_nodes_that_run_its_pod() {
    let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "default", "uid": "uid-agent"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template("agent")}});
    let nodes = [node("n1", false), node("n2", false), node("n3", true)];
    let mut on_n1 = pod(
        "agent-aaaaa",
        "agent",
        Some(("DaemonSet", "agent", "uid-agent")),
        "Running",
    );
    on_n1.spec.get_or_insert_with(Default::default).node_name = Some("n1".into());
    let (p, _) = run(&[ds], vec![on_n1], &nodes);
    assert_eq!(
        p.workloads[0].create,
        Create::OnNodes(vec!["n2".into()]),
        "n1 runs it, n3's taint keeps it off"
    );
}

#[test]
fn a_job_counts_its_completions() {
    let job = |completions: Option<i32>, parallelism: i32, status: Value| {
        let mut spec = json!({"parallelism": parallelism, "template": template("j")});
        if let Some(c) = completions {
            spec["completions"] = json!(c);
        }
        json!({"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": "j", "namespace": "default", "uid": "uid-j"},
               "spec": spec, "status": status})
    };
    let p = |phase: &str, i: usize| pod(&format!("j-{i}"), "j", Some(("Job", "j", "uid-j")), phase);
    type Case = (&'static str, Value, Vec<Pod>, Create);
    let cases: Vec<Case> = vec![
        (
            "5 completions, parallelism 2: 3 succeeded and 1 running leaves one to start",
            job(Some(5), 2, json!({})),
            vec![
                p("Succeeded", 0),
                p("Succeeded", 1),
                p("Succeeded", 2),
                p("Running", 3),
            ],
            Create::Pods(1),
        ),
        (
            "status.succeeded counts completions whose pods are gone",
            job(Some(3), 2, json!({"succeeded": 3})),
            vec![],
            Create::Nothing,
        ),
        (
            "without completions, one success ends the Job",
            job(None, 2, json!({})),
            vec![p("Succeeded", 0)],
            Create::Nothing,
        ),
        (
            "without completions and no success, parallelism pods run",
            job(None, 3, json!({})),
            vec![p("Running", 0)],
            Create::Pods(2),
        ),
        (
            "a Complete Job creates nothing",
            job(
                Some(4),
                2,
                json!({"conditions": [{"type": "Complete", "status": "True"}]}),
            ),
            vec![],
            Create::Nothing,
        ),
        (
            "more failures than backoffLimit: nothing more",
            {
                let mut j = job(Some(4), 2, json!({}));
                j["spec"]["backoffLimit"] = json!(1);
                j
            },
            vec![p("Failed", 0), p("Failed", 1)],
            Create::Nothing,
        ),
    ];
    for (name, j, pods, want) in cases {
        let (plan, _) = run(&[j], pods, &[]);
        assert_eq!(plan.workloads[0].create, want, "{name}");
    }
}

#[test]
fn a_cronjob_with_its_job_given_creates_nothing() {
    let cj = json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "nightly", "namespace": "default", "uid": "uid-cj"},
        "spec": {"schedule": "0 0 * * *", "jobTemplate": {"spec": {"template": template("n")}}}});
    let job = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "nightly-29000000", "namespace": "default", "uid": "uid-job",
                     "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "nightly", "uid": "uid-cj", "controller": true}]},
        "spec": {"template": template("n")}});
    let (p, _) = run(&[cj.clone(), job], vec![], &[]);
    assert_eq!(
        p.workloads[0].create,
        Create::Nothing,
        "its Job runs the pods"
    );
    assert_eq!(
        p.workloads[1].create,
        Create::Pods(1),
        "the Job starts its pod"
    );
    let (p, _) = run(&[cj], vec![], &[]);
    assert_eq!(
        p.workloads[0].create,
        Create::Pods(1),
        "alone: the next run's pod"
    );
}
