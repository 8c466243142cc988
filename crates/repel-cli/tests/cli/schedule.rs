//! `repel schedule` and `demo`: placements, upstream's messages, preemption, priorities, budgets, the compiled engine.

use super::*;

#[test]
fn demo_runs_on_built_in_data() {
    let (code, out, err) = run(&["demo"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("a toleration allows, it does not attract"),
        "{out}"
    );
    assert!(out.contains("tolerates every taint"), "{out}");
    assert!(
        out.contains("kept off the nodes its own selector picks"),
        "{out}"
    );
    insta::assert_snapshot!("demo", out);
}

#[test]
fn schedule_gpu_pool_and_upstreams_messages() {
    let (code, v) = json_out(&["schedule", "-f", &fixture("gpu-pool.yaml"), "-o", "json"]);
    assert_eq!(
        code, 0,
        "unschedulable pods alone do not fail without --fail-unschedulable"
    );
    let placed: Vec<(String, String)> = v["placements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["pod"].as_str().unwrap().to_string(),
                p["node"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        placed[0].0, "default/urgent",
        "the highest priority goes first"
    );
    assert!(
        placed.contains(&("default/trainer".to_string(), "gpu-1".to_string())),
        "{placed:?}"
    );
    let msg = |pod: &str| {
        v["unschedulable"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["pod"] == pod)
            .map(|u| u["message"].as_str().unwrap().to_string())
    };
    assert_eq!(
        msg("default/trainer-no-toleration").as_deref(),
        Some(
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
        )
    );
    assert_eq!(
        msg("default/big-2").as_deref(),
        Some(
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
        )
    );
    let (code, _, _) = run(&[
        "schedule",
        "-f",
        &fixture("gpu-pool.yaml"),
        "--fail-unschedulable",
    ]);
    assert_eq!(code, 1);
    let (_, out, _) = run(&["schedule", "-f", &fixture("gpu-pool.yaml")]);
    insta::assert_snapshot!("schedule_gpu_pool", out);
}

#[test]
fn schedule_preempts_lower_priority_pods() {
    let dir = tempfile::tempdir().unwrap();
    let n = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let class = |name: &str, value: i64| json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value});
    let mut low = pod("low", json!([]));
    low["spec"]["nodeName"] = json!("n1");
    low["spec"]["priorityClassName"] = json!("low");
    low["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "3"}});
    let mut high = pod("high", json!([]));
    high["spec"]["priorityClassName"] = json!("high");
    high["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "3"}});
    let f = write_list(
        dir.path(),
        "p.json",
        vec![class("low", 1), class("high", 100), n, low, high],
    );
    let (code, v) = json_out(&["schedule", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(
        v["placements"],
        json!([{"pod": "default/high", "node": "n1"}])
    );
    assert_eq!(
        v["preempted"],
        json!([{"pod": "default/low", "node": "n1", "by": "default/high"}])
    );
    assert_eq!(v["unschedulable"], json!([]));
}

#[test]
fn a_node_without_status_is_a_loud_guess_or_under_strict_nodes_fits_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_list(
        dir.path(),
        "c.json",
        vec![node("bare", json!([])), pod("web", json!([]))],
    );
    let f = f.to_str().unwrap();
    let (code, out, err) = run(&["schedule", "-f", f, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["placements"],
        json!([{"pod": "default/web", "node": "bare"}])
    );
    assert!(
        err.contains("taken to allow 110 pods and unlimited cpu, memory and storage, so every placement on them is a guess")
            && err.contains("--strict-nodes")
            && err.ends_with(": bare\n"),
        "{err}"
    );
    // kube-scheduler's answer for a node the API server stores without a status.
    let (code, out, err) = run(&["schedule", "-f", f, "-o", "json", "--strict-nodes"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["placements"], json!([]));
    assert_eq!(
        v["unschedulable"][0]["message"],
        "0/1 nodes are available: 1 Too many pods. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
    assert!(err.contains("fit no pod, as in kube-scheduler"), "{err}");
    // explain agrees with schedule.
    let (_, v) = json_out(&["explain", "web", "-f", f, "-o", "json", "--strict-nodes"]);
    assert_eq!(
        v["message"],
        "0/1 nodes are available: 1 Too many pods. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );
}

#[test]
fn schedule_is_reproducible_with_a_seed() {
    let args = [
        "schedule",
        "-f",
        &demo_cluster(),
        "-o",
        "json",
        "--seed",
        "9",
        "--feature-gates",
        "TaintTolerationComparisonOperators=true",
    ];
    let (_, a) = json_out(&args);
    let (_, b) = json_out(&args);
    assert_eq!(a, b);
    let placed = |pod: &str| {
        a["placements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pod"] == pod)
            .map(|p| p["node"].as_str().unwrap().to_string())
    };
    assert_eq!(placed("default/group-app").as_deref(), Some("dedicated-1"));
    assert_eq!(placed("default/spot-batch").as_deref(), Some("spot-1"));
    assert_eq!(placed("default/gpu-trainer").as_deref(), Some("gpu-1"));
    assert_eq!(
        placed("default/sla-above-900")
            .as_deref()
            .map(|n| n != "sla-bronze"),
        Some(true),
        "800 is not > 900"
    );
}

#[test]
fn limits_only_requests_are_defaulted_as_the_api_server_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut items = vec![gpu_node("gpu-1", "4")];
    for i in 0..6 {
        let mut p = pod(&format!("t{i}"), json!([]));
        p["spec"]["containers"][0]["resources"] = json!({"limits": {"nvidia.com/gpu": "1"}});
        items.push(p);
    }
    let f = write_list(dir.path(), "g.json", items);
    let (_, v) = json_out(&["schedule", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(v["placements"].as_array().unwrap().len(), 4, "{v}");
    assert_eq!(
        v["unschedulable"][0]["message"],
        json!(
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
        )
    );
}

#[test]
fn priority_classes_order_the_queue_and_preempt() {
    let dir = tempfile::tempdir().unwrap();
    let pc = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000});
    let n = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let mut low = pod("low", json!([]));
    low["spec"]["nodeName"] = json!("n1");
    low["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "3"}});
    let mut hi = pod("hi", json!([]));
    hi["spec"]["priorityClassName"] = json!("high");
    hi["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "3"}});
    let mut unknown = pod("unknown-class", json!([]));
    unknown["spec"]["priorityClassName"] = json!("gold");
    let f = write_list(dir.path(), "p.json", vec![pc, n, low, hi, unknown]);
    let (code, v) = json_out(&["schedule", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1, "a pod the API server refuses makes the run fail");
    assert_eq!(
        v["preempted"],
        json!([{"pod": "default/low", "node": "n1", "by": "default/hi"}])
    );
    assert_eq!(
        v["rejected"],
        json!([{"pod": "default/unknown-class", "message": "pods \"unknown-class\" is forbidden: no PriorityClass with name gold was found"}])
    );
}

#[test]
fn finished_pods_hold_no_resources() {
    let dir = tempfile::tempdir().unwrap();
    let n = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1", "memory": "8Gi", "pods": "110"}}});
    let mut done = pod("done", json!([]));
    done["spec"]["nodeName"] = json!("n1");
    done["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "1"}});
    done["status"] = json!({"phase": "Succeeded"});
    let mut new = pod("new", json!([]));
    new["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "1"}});
    let f = write_list(dir.path(), "p.json", vec![n, done, new]);
    let (_, v) = json_out(&["schedule", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(
        v["placements"],
        json!([{"pod": "default/new", "node": "n1"}])
    );
}

#[test]
fn a_pdb_without_status_is_computed_for_preemption() {
    let dir = tempfile::tempdir().unwrap();
    let mk_node = |n: &str| json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}, "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"}}});
    let bound = |name: &str, node: &str, prio: i64, labels: Value| {
        let mut p = pod(name, json!([]));
        p["metadata"]["labels"] = labels;
        p["spec"]["nodeName"] = json!(node);
        p["spec"]["priorityClassName"] = json!(format!("p{prio}"));
        p["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "1"}});
        p
    };
    let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "g"},
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "g"}}}});
    let mut hi = pod("hi", json!([]));
    hi["spec"]["priorityClassName"] = json!("p100");
    hi["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "1"}});
    let class = |v: i64| json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": format!("p{v}")}, "value": v});
    let f = write_list(
        dir.path(),
        "p.json",
        vec![
            class(0),
            class(5),
            class(100),
            mk_node("n1"),
            mk_node("n2"),
            pdb,
            bound("guarded", "n1", 0, json!({"app": "g"})),
            bound("guarded-2", "n1", 0, json!({"app": "g"})),
            bound("free1", "n2", 5, json!({})),
            bound("free2", "n2", 5, json!({})),
            hi,
        ],
    );
    let (_, v) = json_out(&["schedule", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(v["preempted"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(
        v["preempted"][0]["node"],
        json!("n1"),
        "maxUnavailable 1 allows one disruption on n1, whose victims have the lowest priority: {v}"
    );
}

/// `repel schedule` places every pod where the reference engine does, on the docs' clusters
/// and on generated ones (every node scored and the adaptive percentage, several seeds).
#[test]
fn schedule_compiled_engine_matches_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let generated = dir.path().join("gen");
    let (code, _, err) = run(&[
        "generate",
        "--nodes",
        "150",
        "--pods",
        "2500",
        "--seed",
        "4",
        "--taints-per-node",
        "2",
        "-o",
        generated.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let inputs = [
        vec!["-f".to_string(), fixture("docs.yaml")],
        vec!["-f".to_string(), fixture("gpu-pool.yaml")],
        vec!["-f".to_string(), demo_cluster()],
        vec![
            "-R".to_string(),
            "-f".to_string(),
            generated.display().to_string(),
        ],
    ];
    for input in &inputs {
        for extra in [
            vec!["--seed", "1", "--percentage-of-nodes-to-score", "100"],
            vec!["--seed", "2"],
        ] {
            let mut args: Vec<&str> = vec!["schedule", "-o", "json"];
            args.extend(input.iter().map(String::as_str));
            args.extend(extra.iter().copied());
            let (_, compiled) = json_out(&args);
            args.push("--reference");
            let (_, reference) = json_out(&args);
            assert!(
                compiled["placements"]
                    .as_array()
                    .is_some_and(|p| !p.is_empty()),
                "{input:?}: {compiled}"
            );
            assert_eq!(compiled, reference, "{input:?} {extra:?}");
        }
    }
}

/// A batch command starts itself again in place with mimalloc's `MIMALLOC_PURGE_DELAY=10000`,
/// `MIMALLOC_ALLOW_THP=0` and `MIMALLOC_DESTROY_ON_EXIT=2` (main.rs, `keep_freed_memory`): its
/// arguments, standard input, output and exit code are those of a run where the variables are
/// already set and nothing is started again, or where only one is set and the others are added.
#[test]
fn starting_again_to_keep_freed_memory_changes_nothing_a_user_sees() {
    let text = std::fs::read_to_string(demo_cluster()).unwrap();
    let outcome = |set: &[(&str, &str)], args: &[&str]| {
        let mut c = repel();
        c.env_remove("MIMALLOC_PURGE_DELAY");
        c.env_remove("MIMALLOC_ALLOW_THP");
        c.env_remove("MIMALLOC_DESTROY_ON_EXIT");
        for (name, v) in set {
            c.env(name, v);
        }
        let out = c.args(args).write_stdin(text.clone()).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for args in [
        &["schedule", "-f", "-", "-o", "json"][..],
        &["check", "-f", "-"][..],
        &["explain", "pod/no-such-pod", "-f", "-"][..],
    ] {
        let again = outcome(&[], args);
        let kept = outcome(
            &[
                ("MIMALLOC_PURGE_DELAY", "1000"),
                ("MIMALLOC_ALLOW_THP", "0"),
                ("MIMALLOC_DESTROY_ON_EXIT", "2"),
            ],
            args,
        );
        assert_eq!(again, kept, "repel {args:?}");
        let one = outcome(&[("MIMALLOC_ALLOW_THP", "1")], args);
        assert_eq!(again, one, "repel {args:?}");
        assert!(
            !again.1.is_empty() || !again.2.is_empty(),
            "repel {args:?} said something"
        );
    }
}
