//! `repel simulate`, `test`, `generate` and `bench`: scenarios, determinism, the contract.

use super::*;

#[test]
fn simulate_prints_events_at_one_instant_in_the_order_they_happened() {
    // The taint evicts the pod before the second step removes it, both at 10 s: the eviction
    // is printed between the two steps, not after the removal.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("order.yaml");
    std::fs::write(
        &f,
        "kind: Scenario\nobjects:\n- {apiVersion: v1, kind: Node, metadata: {name: node1}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default}, spec: {nodeName: node1, containers: [{name: c, image: nginx}]}}\nsteps:\n- {at: 10s, kubectl: taint nodes node1 x=y:NoExecute}\n- {at: 10s, kubectl: taint nodes node1 x=y:NoExecute-}\n",
    )
    .unwrap();
    let (code, out, err) = run(&["simulate", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let at = |needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("{needle} not in {out}"))
    };
    assert!(at("RegisteredNode") < at("x=y:NoExecute\n"), "{out}");
    assert!(at("x=y:NoExecute\n") < at("TaintManagerEviction"), "{out}");
    assert!(at("TaintManagerEviction") < at("x=y:NoExecute-"), "{out}");
}

/// Every scenario under examples/ runs in the test suite, through `repel test`.
#[test]
fn every_example_scenario_passes() {
    let (code, out, err) = run(&["test", &examples_dir()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains(" 0 failed"), "{out}");
    let passed: usize = out.lines().filter(|l| l.starts_with("PASS")).count();
    assert!(passed >= 9, "{out}");
    let (code, v) = json_out(&["test", &examples_dir(), "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(v["failed"], json!(0));
    assert_eq!(v["passed"].as_u64(), Some(passed as u64));
}

#[test]
fn simulate_is_deterministic_and_keeps_the_contract() {
    let f = Path::new(&examples_dir())
        .join("node-outage.yaml")
        .display()
        .to_string();
    let (code, a) = json_out(&["simulate", &f, "-o", "json"]);
    let (_, b) = json_out(&["simulate", &f, "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(a, b, "the same scenario twice gives the same JSON");
    let eviction = a["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["reason"] == "TaintManagerEviction")
        .unwrap();
    assert_eq!(
        eviction["at"],
        json!(410.0),
        "heartbeats stop at 60 s; unreachable at 60 + 50 s; evicted 300 s later"
    );
    assert_eq!(eviction["object"], json!("Pod/default/web-0"));
    assert_eq!(eviction["type"], json!("Normal"));
    assert_eq!(
        eviction["message"],
        json!("Marking for deletion Pod default/web-0")
    );
    assert_eq!(eviction["node"], json!("node-a"));
    let web = a["final"]["pods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pod"] == "default/web-0")
        .unwrap();
    assert_eq!(
        (
            web["node"].as_str(),
            web["phase"].as_str(),
            web["terminating"].as_bool()
        ),
        (Some("node-a"), Some("Running"), Some(true)),
        "the StatefulSet's pod stays Terminating on the unreachable node"
    );
}

#[test]
fn a_failing_expectation_fails_the_run_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.yaml");
    std::fs::write(&p, "kind: Scenario\nobjects:\n- {apiVersion: v1, kind: Node, metadata: {name: node1}}\n- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {nodeName: node1, containers: [{name: c}]}}\nsteps:\n- {at: 10s, kubectl: taint nodes node1 k=v:NoExecute}\nexpect:\n- {at: 20s, pod: p, phase: Running}\n").unwrap();
    let (code, out, _) = run(&["test", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("FAIL"), "{out}");
    assert!(
        out.contains("expect[0]: at 20s: pod default/p Running"),
        "{out}"
    );
    assert!(out.contains("but: Gone"), "{out}");
    assert!(
        out.contains("TaintManagerEviction  Marking for deletion Pod default/p"),
        "{out}"
    );
}

#[test]
fn scenario_errors_name_the_step_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.yaml");
    std::fs::write(&p, "kind: Scenario\nsteps:\n- {at: 10x, kubectl: cordon n}\nexpect:\n- {pod: p, phase: Runing}\n").unwrap();
    let (code, _, err) = run(&["simulate", p.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("steps[0].at: time: invalid duration \"10x\""),
        "{err}"
    );
    assert!(err.contains("expect[0].phase"), "{err}");
}

#[test]
fn generate_is_deterministic_and_schedulable() {
    let (code, a, _) = run(&["generate", "--nodes", "30", "--pods", "300", "--seed", "4"]);
    assert_eq!(code, 0);
    let (_, b, _) = run(&["generate", "--nodes", "30", "--pods", "300", "--seed", "4"]);
    assert_eq!(a, b, "the same seed gives the same manifests");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gen");
    let (code, _, err) = run(&[
        "generate",
        "--nodes",
        "30",
        "--pods",
        "300",
        "--seed",
        "4",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, v) = json_out(&["schedule", "-f", out.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0);
    let placed = v["placements"].as_array().unwrap().len();
    let pending = v["unschedulable"].as_array().unwrap().len();
    assert_eq!(
        placed + pending,
        300,
        "every generated pod is scheduled or explained"
    );
    assert!(placed >= 270, "{placed} placed");
}

#[test]
fn bench_reports_the_contracts_fields() {
    let (code, v) = json_out(&[
        "bench", "--nodes", "20", "--pods", "100", "-q", "-o", "json",
    ]);
    assert_eq!(code, 0);
    for field in [
        "nodes",
        "pods",
        "scheduled",
        "unschedulable",
        "schedule_seconds",
        "pods_per_second",
        "eviction_plan_seconds",
        "explain_seconds",
        "peak_rss_bytes",
    ] {
        assert!(v.get(field).is_some(), "{field} missing: {v}");
    }
    assert_eq!(v["nodes"], json!(20));
    assert_eq!(v["pods"], json!(100));
    // Which path each pod took: here (nothing preempted) one cycle per pod, on one path.
    let paths = &v["paths"];
    let n = |x: &serde_json::Value| x.as_u64().unwrap_or(u64::MAX);
    assert_eq!(
        n(&paths["compiled"]) + n(&paths["compiled_unschedulable"]) + n(&paths["reference"]),
        n(&v["scheduled"]) + n(&v["unschedulable"]),
        "{v}"
    );
    assert_eq!(paths["compiled"], v["compiled_pods"], "{v}");
    assert!(n(&paths["repeated"]) <= n(&paths["compiled"]), "{v}");
    assert!(
        n(&paths["compiled_unschedulable"]) <= n(&v["unschedulable"]),
        "{v}"
    );
    assert!(
        n(&paths["node_classes"]) >= 1 && n(&paths["pod_classes"]) >= 1,
        "{v}"
    );
}

#[test]
fn test_reports_every_scenario_even_after_an_unreadable_one() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("a-bad.yaml");
    std::fs::write(&bad, "kind: Scenario\nstpes: []\n").unwrap();
    let good = dir.path().join("b-good.yaml");
    std::fs::write(
        &good,
        "kind: Scenario\nobjects:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}}\nuntil: 1m\nexpect: []\n",
    )
    .unwrap();
    let (code, out, err) = run(&["test", bad.to_str().unwrap(), good.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("ERROR ") && out.contains("a-bad.yaml"),
        "{out}"
    );
    assert!(err.starts_with("error: ") && err.contains("stpes"), "{err}");
    assert!(
        out.contains("PASS  ") && out.contains("b-good.yaml"),
        "{out}"
    );
    assert!(
        out.contains("1 passed, 0 failed, 1 could not be read"),
        "{out}"
    );
    let (code, v) = json_out(&[
        "test",
        bad.to_str().unwrap(),
        good.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 2);
    assert_eq!(v["unusable"], json!(1));
    assert_eq!(v["passed"], json!(1));
    assert!(
        v["scenarios"][0]["error"]
            .as_str()
            .unwrap()
            .contains("stpes"),
        "{v}"
    );
}

#[test]
fn a_retried_drain_prints_as_one_kubectl_drain_over_time() {
    // kubectl's evictPods: each attempt prints `evicting pod`, then its result; a 429 is
    // retried 5 s later with `evicting pod` again; the node is cordoned (and said so) once.
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/drain-with-pdb.yaml")
        .display()
        .to_string();
    let (code, v) = json_out(&["simulate", &example, "-o", "json"]);
    assert_eq!(code, 0);
    let drain = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"].as_str().unwrap().starts_with("kubectl drain"))
        .unwrap();
    let out: Vec<&str> = drain["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let (a, b) = ("web-857968576-qtd9x", "web-857968576-vms75");
    assert_eq!(
        out,
        [
            "node/node-a cordoned".to_string(),
            format!("evicting pod default/{a}"),
            format!("evicting pod default/{b}"),
            format!(
                "error when evicting pods/\"{b}\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."
            ),
            format!("pod/{a} evicted"),
            format!("evicting pod default/{b}"),
            format!("pod/{b} evicted"),
            "node/node-a drained".to_string(),
        ]
    );
}
