//! `repel taint` (files rewritten as kubectl taint would) and `repel admit` (what the control plane adds).

use super::*;

#[test]
fn taint_add_and_remove_rewrites_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_list(dir.path(), "n.json", vec![node("node1", json!([]))]);
    let f = f.to_str().unwrap();
    let (code, out, _) = run(&["taint", "nodes", "node1", "key1=value1:NoSchedule", "-f", f]);
    assert_eq!((code, out.as_str()), (0, "node/node1 tainted\n"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
    assert_eq!(
        v["items"][0]["spec"]["taints"],
        json!([{"effect": "NoSchedule", "key": "key1", "value": "value1"}])
    );
    let (code, out, err) = run(&["taint", "nodes", "node1", "key1=value1:NoSchedule", "-f", f]);
    assert_eq!((code, out.as_str()), (1, ""), "adding it again is refused");
    assert_eq!(
        err,
        "error: node node1 already has key1 taint(s) with same effect(s) and --overwrite is false\n"
    );
    let (code, out, _) = run(&[
        "taint",
        "nodes",
        "node1",
        "key1=other:NoSchedule",
        "--overwrite",
        "-f",
        f,
    ]);
    assert_eq!((code, out.as_str()), (0, "node/node1 modified\n"));
    let (code, out, _) = run(&["taint", "nodes", "node1", "key1-", "-f", f]);
    assert_eq!((code, out.as_str()), (0, "node/node1 untainted\n"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
    assert!(v["items"][0]["spec"].get("taints").is_none(), "{v}");
    let (code, _, err) = run(&["taint", "nodes", "node1", "key1:NoSchedule-", "-f", f]);
    assert_eq!(code, 1);
    assert_eq!(err, "error: taint \"key1:NoSchedule\" not found\n");
}

#[test]
fn taint_keeps_other_yaml_documents_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("c.yaml");
    let text = std::fs::read_to_string(fixture("docs.yaml")).unwrap();
    std::fs::write(&p, &text).unwrap();
    let (code, out, err) = run(&[
        "taint",
        "nodes",
        "node2",
        "dedicated=groupName:NoSchedule",
        "-f",
        p.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "node/node2 tainted\n");
    let after = std::fs::read_to_string(&p).unwrap();
    let docs_before: Vec<&str> = text.split("\n---\n").collect();
    let docs_after: Vec<&str> = after.split("\n---\n").collect();
    assert_eq!(docs_before.len(), docs_after.len());
    assert_eq!(
        docs_before[0], docs_after[0],
        "node1's document, comments included, is untouched"
    );
    assert_eq!(
        &docs_before[2..],
        &docs_after[2..],
        "the pods are untouched"
    );
    assert!(docs_after[1].contains("dedicated"), "{}", docs_after[1]);
    let (code, v) = json_out(&["explain", "equal", "-f", p.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(
        v["nodes"][1]["taints"][0]["key"],
        json!("dedicated"),
        "the rewritten file reads back"
    );
}

#[test]
fn taint_argument_errors_are_kubectls() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_list(dir.path(), "n.json", vec![node("node1", json!([]))]);
    let f = f.to_str().unwrap();
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["nodes", "node1", "key1=value1:Sometimes"],
            2,
            "error: invalid taint effect: Sometimes, unsupported taint effect\nSee 'repel taint -h' for help and examples\n",
        ),
        (
            &["nodes", "node1"],
            2,
            "error: at least one taint update is required\n",
        ),
        (
            &["nodes", "node1", "a=b:NoSchedule", "a:NoSchedule-"],
            2,
            "error: can not both modify and remove the following taint(s) in the same command: a=NoSchedule\n",
        ),
        (
            &["nodes", "node1", "a=b:NoSchedule", "node2"],
            2,
            "error: all resources must be specified before taint changes: node2\n",
        ),
        (
            &["pods", "p", "a=b:NoSchedule"],
            2,
            "error: invalid resource type pods, only node types are supported\n",
        ),
        (
            &["nodes", "ghost", "a=b:NoSchedule"],
            2,
            "Error from server (NotFound): nodes \"ghost\" not found\n",
        ),
    ];
    for (args, want_code, want_err) in cases {
        let mut full = vec!["taint"];
        full.extend_from_slice(args);
        full.extend_from_slice(&["-f", f]);
        let (code, _, err) = run(&full);
        assert_eq!((code, err.as_str()), (*want_code, *want_err), "{args:?}");
    }
}

#[test]
fn taint_all_and_selector() {
    let dir = tempfile::tempdir().unwrap();
    let mut gpu = node("gpu-1", json!([]));
    gpu["metadata"]["labels"]["pool"] = json!("gpu");
    let f = write_list(dir.path(), "n.json", vec![node("a", json!([])), gpu]);
    let f = f.to_str().unwrap();
    let (code, out, _) = run(&[
        "taint",
        "nodes",
        "-l",
        "pool=gpu",
        "sku=gpu:NoSchedule",
        "-f",
        f,
    ]);
    assert_eq!((code, out.as_str()), (0, "node/gpu-1 tainted\n"));
    let (code, out, _) = run(&[
        "taint",
        "nodes",
        "--all",
        "maintenance=soon:PreferNoSchedule",
        "-f",
        f,
    ]);
    assert_eq!(
        (code, out.as_str()),
        (0, "node/a tainted\nnode/gpu-1 tainted\n")
    );
    let (code, out, _) = run(&[
        "taint",
        "nodes",
        "--all",
        "maintenance-",
        "--dry-run",
        "-f",
        f,
    ]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "node/a untainted (dry run)\nnode/gpu-1 untainted (dry run)\n"
        )
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
    assert_eq!(
        v["items"][0]["spec"]["taints"][0]["key"],
        json!("maintenance"),
        "dry run leaves the file alone"
    );
    // A directory is read when nothing is written (its files, as kubectl reads -f DIR), and
    // refused when it would be rewritten.
    let d = std::path::Path::new(f).parent().unwrap().to_str().unwrap();
    let before = std::fs::read_to_string(f).unwrap();
    let (code, out, err) = run(&[
        "taint",
        "nodes",
        "a",
        "dedicated=x:NoSchedule",
        "--dry-run",
        "-f",
        d,
    ]);
    assert_eq!(
        (code, out.as_str()),
        (0, "node/a tainted (dry run)\n"),
        "{err}"
    );
    let (code, _, err) = run(&["taint", "nodes", "a", "dedicated=x:NoSchedule", "-f", d]);
    assert_eq!(code, 2);
    assert!(err.contains("is a directory"), "{err}");
    assert_eq!(
        std::fs::read_to_string(f).unwrap(),
        before,
        "nothing written"
    );
}

#[test]
fn taint_on_stdin_prints_instead_of_rewriting() {
    let text = "apiVersion: v1\nkind: Node\nmetadata: {name: b}\n";
    let out = repel()
        .args(["taint", "nodes", "b", "w=1:NoSchedule", "-f", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard input cannot be rewritten"));
    let out = repel()
        .args([
            "taint",
            "nodes",
            "b",
            "w=1:NoSchedule",
            "-f",
            "-",
            "-o",
            "json",
        ])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["spec"]["taints"],
        json!([{"effect": "NoSchedule", "key": "w", "value": "1"}])
    );
}

#[test]
fn admit_adds_what_the_control_plane_adds() {
    let dir = tempfile::tempdir().unwrap();
    let mut burstable = pod("burstable", json!([]));
    burstable["spec"]["containers"][0]["resources"] = json!({"requests": {"memory": "64Mi"}});
    let own = pod(
        "own-unreachable",
        json!([{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 6000}]),
    );
    let f = write_list(
        dir.path(),
        "p.json",
        vec![pod("best-effort", json!([])), burstable, own],
    );
    // PodTolerationRestriction is off in stock kube-apiserver: enabled here for its
    // memory-pressure toleration.
    let (code, v) = json_out(&[
        "admit",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
        "--enable-admission-plugins",
        "PodTolerationRestriction",
    ]);
    assert_eq!(code, 0);
    assert_eq!(v["kind"], json!("List"));
    let tols = |i: usize| -> Vec<(String, Option<i64>)> {
        v["items"][i]["spec"]["tolerations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    format!(
                        "{}:{}",
                        t["key"].as_str().unwrap(),
                        t["effect"].as_str().unwrap()
                    ),
                    t["tolerationSeconds"].as_i64(),
                )
            })
            .collect()
    };
    let nr = (
        "node.kubernetes.io/not-ready:NoExecute".to_string(),
        Some(300),
    );
    let un = (
        "node.kubernetes.io/unreachable:NoExecute".to_string(),
        Some(300),
    );
    assert_eq!(
        tols(0),
        vec![nr.clone(), un.clone()],
        "a BestEffort pod: the two 300 s tolerations"
    );
    assert_eq!(
        tols(1),
        vec![
            nr.clone(),
            un,
            (
                "node.kubernetes.io/memory-pressure:NoSchedule".to_string(),
                None
            )
        ],
        "Burstable: memory-pressure too"
    );
    assert_eq!(
        tols(2),
        vec![
            (
                "node.kubernetes.io/unreachable:NoExecute".to_string(),
                Some(6000)
            ),
            nr
        ],
        "its own unreachable toleration is kept"
    );
}

#[test]
fn admit_expands_workloads_and_daemonsets() {
    let (code, v) = json_out(&[
        "admit",
        "-f",
        &demo_cluster(),
        "-o",
        "json",
        "--feature-gates",
        "TaintTolerationComparisonOperators=true",
    ]);
    assert_eq!(
        code, 0,
        "the demo's Gt toleration is valid with the gate on"
    );
    let (code, _) = json_out(&["admit", "-f", &demo_cluster(), "-o", "json"]);
    assert_eq!(code, 1, "and refused by validation with the gate off");
    let items = v["items"].as_array().unwrap();
    assert!(
        !items.iter().any(|p| p["metadata"]["name"]
            .as_str()
            .unwrap()
            .starts_with("nvidia-device-plugin")),
        "the device plugin without the sku=gpu toleration runs nowhere"
    );
    let dir = tempfile::tempdir().unwrap();
    let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}},
        "spec": {"hostNetwork": true, "containers": [{"name": "a", "image": "agent"}],
                 "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]}}}});
    let mut cordoned = node("cordoned", json!([]));
    cordoned["spec"]["unschedulable"] = json!(true);
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}});
    let f = write_list(
        dir.path(),
        "w.json",
        vec![
            node("a", json!([])),
            node("tainted", json!([{"key": "x", "effect": "NoSchedule"}])),
            cordoned,
            ds,
            deploy,
        ],
    );
    let (_, v) = json_out(&[
        "admit",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
        "--seed",
        "7",
    ]);
    let items = v["items"].as_array().unwrap();
    let agents: Vec<&Value> = items
        .iter()
        .filter(|p| {
            p["metadata"]["name"]
                .as_str()
                .unwrap()
                .starts_with("agent-")
        })
        .collect();
    let pinned: Vec<&str> = agents
        .iter()
        .map(|p| {
            p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                ["nodeSelectorTerms"][0]["matchFields"][0]["values"][0]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(
        pinned,
        ["a", "cordoned"],
        "one pod per eligible node (cordoned nodes included), pinned by matchFields"
    );
    let keys: Vec<String> = agents[0]["spec"]["tolerations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            format!(
                "{}:{}:{}",
                t["key"].as_str().unwrap(),
                t["effect"].as_str().unwrap(),
                t["tolerationSeconds"]
                    .as_i64()
                    .map_or("forever".into(), |s| s.to_string())
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            "node.kubernetes.io/not-ready:NoExecute:forever",
            "node.kubernetes.io/unreachable:NoExecute:forever",
            "node.kubernetes.io/disk-pressure:NoSchedule:forever",
            "node.kubernetes.io/memory-pressure:NoSchedule:forever",
            "node.kubernetes.io/pid-pressure:NoSchedule:forever",
            "node.kubernetes.io/unschedulable:NoSchedule:forever",
            "node.kubernetes.io/network-unavailable:NoSchedule:forever",
        ],
        "the template's 300 s not-ready toleration is replaced in place; hostNetwork adds network-unavailable"
    );
    let web: Vec<&str> = items
        .iter()
        .filter_map(|p| p["metadata"]["name"].as_str())
        .filter(|n| n.starts_with("web-"))
        .collect();
    assert_eq!(web.len(), 3, "{web:?}");
    for n in &web {
        let parts: Vec<&str> = n.split('-').collect();
        assert_eq!(parts.len(), 3, "web-<hash>-<suffix>: {n}");
        assert_eq!(parts[2].len(), 5, "{n}");
        assert!(
            parts[2]
                .chars()
                .all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)),
            "{n}"
        );
    }
    let (_, again) = json_out(&[
        "admit",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
        "--seed",
        "7",
    ]);
    assert_eq!(v, again, "the same seed gives the same names");
}

#[test]
fn admit_applies_namespace_default_tolerations_and_whitelist() {
    let dir = tempfile::tempdir().unwrap();
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "annotations": {
        "scheduler.alpha.kubernetes.io/defaultTolerations": "[{\"key\": \"dedicated\", \"operator\": \"Equal\", \"value\": \"team\", \"effect\": \"NoSchedule\"}]",
        "scheduler.alpha.kubernetes.io/tolerationsWhitelist": "[{\"key\": \"dedicated\", \"operator\": \"Exists\"}, {\"operator\": \"Exists\", \"effect\": \"NoExecute\"}]"}}});
    let mut ok = pod("ok", json!([]));
    ok["metadata"]["namespace"] = json!("team");
    let mut bad = pod(
        "bad",
        json!([{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]),
    );
    bad["metadata"]["namespace"] = json!("team");
    let f = write_list(dir.path(), "ns.json", vec![ns, ok, bad]);
    // The annotations are PodTolerationRestriction's: without the plugin (stock) they do
    // nothing.
    let (code, _, _) = run(&["admit", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0, "without the plugin no pod is refused");
    let (code, out, err) = run(&[
        "admit",
        "-f",
        f.to_str().unwrap(),
        "-o",
        "json",
        "--enable-admission-plugins",
        "PodTolerationRestriction",
    ]);
    assert_eq!(code, 1, "one pod is refused");
    assert!(err.contains("pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    let keys: Vec<&str> = util::strs(&items[0]["spec"]["tolerations"], "/key");
    assert_eq!(
        keys,
        [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
            "dedicated"
        ],
        "the namespace default is merged in after the pod's own"
    );
}

#[test]
fn admit_leaves_out_pods_the_api_server_would_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let bad = pod(
        "bad",
        json!([{"key": "k", "operator": "Exists", "value": "v", "effect": "NoSchedule"}]),
    );
    let f = write_list(dir.path(), "p.json", vec![bad, pod("good", json!([]))]);
    let (code, out, err) = run(&["admit", "-f", f.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1);
    assert!(err.contains("The Pod \"bad\" is invalid: spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = util::strs(&v["items"], "/metadata/name");
    assert_eq!(names, ["good"]);
}
