//! `repel explain`: the match table, feature gates, NoExecute outcomes, scores, workloads and kubectl's type forms, advice.

use super::*;

#[test]
fn explain_the_seven_rows_of_the_match_table() {
    let dir = tempfile::tempdir().unwrap();
    let gpu = json!([{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]);
    let rows = [
        (
            "Equal gpu NoSchedule",
            json!({"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}),
            true,
        ),
        (
            "Exists NoSchedule",
            json!({"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}),
            true,
        ),
        (
            "Exists without effect",
            json!({"key": "dedicated", "operator": "Exists"}),
            true,
        ),
        (
            "Equal cpu",
            json!({"key": "dedicated", "operator": "Equal", "value": "cpu", "effect": "NoSchedule"}),
            false,
        ),
        (
            "Equal gpu without effect",
            json!({"key": "dedicated", "operator": "Equal", "value": "gpu"}),
            true,
        ),
        (
            "Equal gpu NoExecute",
            json!({"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoExecute"}),
            false,
        ),
        (
            "the empty Exists toleration",
            json!({"operator": "Exists"}),
            true,
        ),
    ];
    for (i, (name, tol, want)) in rows.into_iter().enumerate() {
        let f = write_list(
            dir.path(),
            &format!("t{i}.json"),
            vec![node("gpu-1", gpu.clone()), pod("p", json!([tol]))],
        );
        let (code, v) = json_out(&[
            "explain",
            "default/p",
            "-f",
            f.to_str().unwrap(),
            "-o",
            "json",
        ]);
        assert_eq!(code, 0, "{name}");
        let n = &v["nodes"][0];
        assert_eq!(n["taints"][0]["tolerated"], json!(want), "{name}");
        assert_eq!(n["feasible"], json!(want), "{name}");
        assert_eq!(
            n["taints"][0]["toleration"],
            if want { json!(0) } else { Value::Null },
            "{name}"
        );
        if want {
            assert_eq!(v["message"], json!(""), "{name}");
        } else {
            assert_eq!(
                n["reasons"],
                json!(["node(s) had untolerated taint(s)"]),
                "{name}"
            );
            assert_eq!(
                v["message"],
                json!(
                    "0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
                ),
                "{name}"
            );
            assert_eq!(
                n["suggestedTolerations"],
                json!([{"effect": "NoSchedule", "key": "dedicated", "operator": "Equal", "value": "gpu"}]),
                "{name}"
            );
        }
    }
}

#[test]
fn explain_gt_follows_the_feature_gate() {
    let dir = tempfile::tempdir().unwrap();
    let key = "servicelevel.organization.example/agreed-service-level";
    let f = write_list(
        dir.path(),
        "gt.json",
        vec![
            node(
                "node1",
                json!([{"key": key, "value": "950", "effect": "NoSchedule"}]),
            ),
            node(
                "node2",
                json!([{"key": key, "value": "800", "effect": "NoSchedule"}]),
            ),
            pod(
                "p",
                json!([{"key": key, "operator": "Gt", "value": "900", "effect": "NoSchedule"}]),
            ),
        ],
    );
    let f = f.to_str().unwrap();
    let (_, on) = json_out(&[
        "explain",
        "p",
        "-f",
        f,
        "-o",
        "json",
        "--feature-gates",
        "TaintTolerationComparisonOperators=true",
    ]);
    assert_eq!(
        on["nodes"][0]["taints"][0]["tolerated"],
        json!(true),
        "950 > 900 with the gate on"
    );
    assert_eq!(
        on["nodes"][1]["taints"][0]["tolerated"],
        json!(false),
        "800 is not > 900"
    );
    let (_, off) = json_out(&["explain", "p", "-f", f, "-o", "json"]);
    assert_eq!(
        off["nodes"][0]["taints"][0]["tolerated"],
        json!(false),
        "Gt never matches with the gate off (default)"
    );
    let (code, _, err) = run(&["explain", "p", "-f", f, "--feature-gates", "Bogus=true"]);
    assert_eq!(code, 2, "an unknown gate is bad input");
    assert!(err.contains("unrecognized feature gate: Bogus"), "{err}");
}

#[test]
fn explain_no_execute_outcomes() {
    let dir = tempfile::tempdir().unwrap();
    let t = json!([{"key": "key1", "value": "value1", "effect": "NoExecute"}]);
    let cases = [
        (
            "tolerationSeconds 3600: after",
            json!([{"key": "key1", "operator": "Equal", "value": "value1", "effect": "NoExecute", "tolerationSeconds": 3600}]),
            json!({"evict": "after", "seconds": 3600}),
        ),
        (
            "no tolerationSeconds: never",
            json!([{"key": "key1", "operator": "Exists", "effect": "NoExecute"}]),
            json!({"evict": "never"}),
        ),
        (
            "no toleration: immediately",
            json!([]),
            json!({"evict": "immediately"}),
        ),
    ];
    for (i, (name, tols, want)) in cases.into_iter().enumerate() {
        let f = write_list(
            dir.path(),
            &format!("ne{i}.json"),
            vec![node("node1", t.clone()), pod("p", tols)],
        );
        let (_, v) = json_out(&[
            "explain",
            "default/p",
            "-f",
            f.to_str().unwrap(),
            "-o",
            "json",
        ]);
        assert_eq!(v["nodes"][0]["noExecute"], want, "{name}");
    }
}

#[test]
fn explain_scores_prefer_no_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_list(
        dir.path(),
        "s.json",
        vec![
            node("a", json!([])),
            node(
                "b",
                json!([{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]),
            ),
            node("c", json!([{"key": "x", "effect": "NoSchedule"}])),
            pod("p", json!([])),
        ],
    );
    let (_, v) = json_out(&[
        "explain",
        "default/p",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(v["nodes"][0]["scores"]["TaintToleration"], json!(100));
    assert_eq!(v["nodes"][1]["scores"]["TaintToleration"], json!(0));
    let total = |n: &Value| -> i64 {
        let w = |p: &str| match p {
            "TaintToleration" => 3,
            "NodeAffinity" | "PodTopologySpread" | "InterPodAffinity" => 2,
            _ => 1,
        };
        n["scores"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(p, s)| s.as_i64().unwrap() * w(p))
            .sum()
    };
    assert_eq!(
        v["nodes"][0]["score"].as_i64(),
        Some(total(&v["nodes"][0])),
        "score is the weighted sum"
    );
    assert!(
        v["nodes"][0]["score"].as_i64() > v["nodes"][1]["score"].as_i64(),
        "the untainted node wins"
    );
    assert_eq!(
        v["nodes"][1]["feasible"],
        json!(true),
        "PreferNoSchedule never filters"
    );
    assert!(
        v["nodes"][2].get("scores").is_none(),
        "infeasible nodes have no scores"
    );
}

#[test]
fn explain_and_schedule_read_the_nodes_images() {
    // Two of three nodes hold nginx:latest (500 MiB); the pod's `nginx` is read as
    // `nginx:latest`. 500 MiB * 2/3 = 349,525,333 bytes: 100 * (349,525,333 - 23 MiB) /
    // (1000 MiB - 23 MiB) = 31 (upstream ImageLocality, v1.35).
    let dir = tempfile::tempdir().unwrap();
    let with_image = |name: &str| {
        let mut n = node(name, json!([]));
        n["status"] = json!({"images": [{"names": ["docker.io/library/nginx:latest", "nginx:latest"],
            "sizeBytes": 500 * 1024 * 1024}]});
        n
    };
    let f = write_list(
        dir.path(),
        "s.json",
        vec![
            with_image("a"),
            node("b", json!([])),
            with_image("c"),
            pod("p", json!([])),
        ],
    );
    let (_, v) = json_out(&[
        "explain",
        "default/p",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
    ]);
    let image = |i: usize| v["nodes"][i]["scores"]["ImageLocality"].clone();
    assert_eq!(
        [image(0), image(1), image(2)],
        [json!(31), json!(0), json!(31)]
    );
    let (_, text, _) = run(&["explain", "default/p", "-f", f.to_str().unwrap()]);
    assert!(text.contains("ImageLocality 31"), "{text}");
    for engine in [&[][..], &["--reference"][..]] {
        let mut args = vec!["schedule", "-f", f.to_str().unwrap(), "-o", "json"];
        args.extend_from_slice(engine);
        let (_, v) = json_out(&args);
        assert_ne!(
            v["placements"][0]["node"],
            json!("b"),
            "{engine:?}: a node holding the image wins"
        );
    }
}

#[test]
fn explain_adds_the_default_tolerations_before_judging() {
    let (_, v) = json_out(&[
        "explain",
        "plain",
        "-f",
        &fixture("docs.yaml"),
        "-o",
        "json",
    ]);
    let keys: Vec<&str> = util::strs(&v["tolerations"], "/key");
    assert_eq!(
        keys,
        [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable"
        ]
    );
    // And they are used: on an unreachable node the pod is let past the NoExecute taint for
    // 300 s (DefaultTolerationSeconds), not evicted at once; with the plugin off, at once.
    let dir = tempfile::tempdir().unwrap();
    let unreachable = json!([{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]);
    let f = write_list(
        dir.path(),
        "u.json",
        vec![node("node1", unreachable), pod("p", json!([]))],
    );
    let f = f.to_str().unwrap();
    let (_, v) = json_out(&["explain", "default/p", "-f", f, "-o", "json"]);
    assert_eq!(
        v["nodes"][0]["noExecute"],
        json!({"evict": "after", "seconds": 300})
    );
    let (_, v) = json_out(&[
        "explain",
        "default/p",
        "-f",
        f,
        "-o",
        "json",
        "--disable-admission-plugins",
        "DefaultTolerationSeconds",
    ]);
    assert_eq!(v["nodes"][0]["noExecute"], json!({"evict": "immediately"}));
}

#[test]
fn explain_human_output() {
    let (code, out, _) = run(&["explain", "default/equal", "-f", &fixture("docs.yaml")]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("explain_equal", out);
    let (_, out, _) = run(&["explain", "plain", "-f", &fixture("docs.yaml")]);
    insta::assert_snapshot!("explain_plain", out);
}

#[test]
fn explain_a_workload_by_kind_and_name() {
    let (code, v) = json_out(&[
        "explain",
        "ds/nvidia-device-plugin",
        "-n",
        "kube-system",
        "-f",
        &demo_cluster(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 0);
    assert!(
        v["pod"]
            .as_str()
            .unwrap()
            .starts_with("kube-system/nvidia-device-plugin-"),
        "{}",
        v["pod"]
    );
    let gpu = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "gpu-1")
        .unwrap();
    assert_eq!(
        gpu["feasible"],
        json!(false),
        "the device plugin lacks the sku=gpu toleration"
    );
    let cp = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "general-1")
        .unwrap();
    assert_eq!(
        cp["reasons"],
        json!(["node(s) didn't match Pod's node affinity/selector"])
    );
}

#[test]
fn explain_takes_kubectls_type_dot_group_forms() {
    // `deployment.apps/web` is kubectl's form, not the namespace `deployment.apps` (a
    // namespace is a DNS label, which has no dot).
    let dir = tempfile::tempdir().unwrap();
    let web = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let f = write_list(dir.path(), "web.json", vec![node("n1", json!([])), web]);
    let f = f.to_str().unwrap();
    for arg in [
        "deployment/web",
        "deployment.apps/web",
        "deployments.v1.apps/web",
    ] {
        let (code, v) = json_out(&["explain", arg, "-f", f, "-o", "json"]);
        assert_eq!(code, 0, "{arg}");
        assert!(
            v["pod"].as_str().unwrap().starts_with("default/web-"),
            "{arg}: {}",
            v["pod"]
        );
    }
    let (code, _, err) = run(&["explain", "deployment.batch/web", "-f", f]);
    assert_eq!(code, 2);
    assert!(
        err.contains("the server doesn't have a resource type \"deployment.batch\""),
        "{err}"
    );
    let (code, _, err) = run(&["explain", "job.batch/web", "-f", f]);
    assert_eq!(code, 2);
    assert!(err.contains("jobs.batch \"web\" not found"), "{err}");
}

#[test]
fn explain_advice_only_where_the_selector_singles_the_tainted_nodes_out() {
    // CoreDNS selects `kubernetes.io/os: linux`, which every node has: it runs on the plain
    // node, and being kept off the GPU node is no mistake of its own.
    let dir = tempfile::tempdir().unwrap();
    let linux = |name: &str, taints: Value| {
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
               "spec": {"taints": taints}})
    };
    let gpu_taint = json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]);
    let mut coredns = pod("coredns", json!([]));
    coredns["spec"]["nodeSelector"] = json!({"kubernetes.io/os": "linux"});
    let f = write_list(
        dir.path(),
        "c.json",
        vec![
            linux("plain", json!([])),
            linux("gpu-1", gpu_taint.clone()),
            linux("gpu-2", gpu_taint),
            coredns,
        ],
    );
    let f = f.to_str().unwrap();
    let (code, v) = json_out(&["explain", "default/coredns", "-f", f, "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(v["advice"], json!([]));
    let (_, out, _) = run(&["explain", "default/coredns", "-f", f]);
    assert!(!out.contains("add to its tolerations"), "{out}");
    // A pod that selects only the GPU nodes, with a toleration whose value differs by case: the
    // advice names its own nodes, the toleration to paste is shown once for both nodes, and
    // the near miss says why its toleration does not match.
    let mut trainer = pod(
        "trainer",
        json!([{"key": "nvidia.com/gpu", "operator": "Equal", "value": "True", "effect": "NoSchedule"}]),
    );
    trainer["spec"]["nodeSelector"] = json!({"kubernetes.io/hostname": "gpu-1"});
    trainer["spec"]["affinity"] = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-1", "gpu-2"]}]}]}}});
    trainer["spec"]["nodeSelector"] = json!(null);
    let g = write_list(
        dir.path(),
        "t.json",
        vec![
            linux("plain", json!([])),
            linux(
                "gpu-1",
                json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
            ),
            linux(
                "gpu-2",
                json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
            ),
            trainer,
        ],
    );
    let g = g.to_str().unwrap();
    let (code, v) = json_out(&["explain", "default/trainer", "-f", g, "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(v["advice"].as_array().unwrap().len(), 1, "{}", v["advice"]);
    assert!(
        v["advice"][0]
            .as_str()
            .unwrap()
            .starts_with("kept off the nodes its own selector picks")
    );
    assert_eq!(
        v["nearMisses"],
        json!([{"toleration": 0, "taint": "nvidia.com/gpu=true:NoSchedule",
                "message": "value \"True\" differs from the taint's \"true\" only by case; values are compared exactly"}])
    );
    let (_, out, _) = run(&["explain", "default/trainer", "-f", g]);
    assert_eq!(out.matches("add to its tolerations").count(), 1, "{out}");
    assert!(
        out.contains("To let the pod onto gpu-1, gpu-2, add to its tolerations:"),
        "{out}"
    );
    assert!(
        out.contains("Near miss: toleration #0 does not match nvidia.com/gpu=true:NoSchedule: value \"True\" differs"),
        "{out}"
    );
}

#[test]
fn explain_an_unknown_pod_is_bad_input() {
    let (code, _, err) = run(&["explain", "default/nope", "-f", &fixture("docs.yaml")]);
    assert_eq!(code, 2);
    assert!(err.contains("pods \"nope\" not found"), "{err}");
}

#[test]
fn explain_a_generated_pod_by_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let sts = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "team"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
        "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "db", "image": "postgres"}]}}}});
    let f = write_list(dir.path(), "s.json", vec![node("n", json!([])), sts]);
    let (code, v) = json_out(&[
        "explain",
        "team/db-1",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(v["pod"], json!("team/db-1"));
}
