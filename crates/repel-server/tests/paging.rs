//! Paged lists through the real kubectl: `kubectl get` asks for pages of
//! `--chunk-size` (500 by default) and follows `continue` tokens; the pages of one list are
//! read at one resourceVersion.

use crate::util::{have_kubectl, node, pod, start};
use serde_json::{Value, json};

#[test]
fn kubectl_follows_continue_tokens_across_namespaces() {
    if !have_kubectl() {
        return;
    }
    let mut seed = vec![node("node1", json!(null))];
    for ns in ["alpha", "beta", "default"] {
        seed.push(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}));
        for i in 0..5 {
            seed.push(pod(ns, &format!("p{i}"), Some("node1")));
        }
    }
    let s = start(seed);
    for chunk in ["1", "2", "4", "500"] {
        let o = s.kubectl(&[
            "get",
            "pods",
            "-A",
            "--chunk-size",
            chunk,
            "-o",
            "custom-columns=NS:.metadata.namespace,NAME:.metadata.name",
            "--no-headers",
        ]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        let rows: Vec<String> = o
            .stdout
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join("/"))
            .collect();
        let want: Vec<String> = ["alpha", "beta", "default"]
            .iter()
            .flat_map(|ns| (0..5).map(move |i| format!("{ns}/p{i}")))
            .collect();
        assert_eq!(rows, want, "--chunk-size {chunk}");
    }
    // The table kubectl asks for carries the token and the count.
    let o = s.kubectl(&["get", "--raw", "/api/v1/namespaces/beta/pods?limit=2"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["metadata"]["remainingItemCount"], 3);
    let token = v["metadata"]["continue"].as_str().unwrap().to_string();
    let rv = v["metadata"]["resourceVersion"].clone();
    // A pod created after the first page does not show in the rest of that list.
    let file = s.write(
        "p9.yaml",
        &serde_json::to_string(&pod("beta", "p9", Some("node1"))).unwrap(),
    );
    let o = s.kubectl(&["apply", "-f", &file]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = s.kubectl(&[
        "get",
        "--raw",
        &format!("/api/v1/namespaces/beta/pods?limit=10&continue={token}"),
    ]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let names: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["p2", "p3", "p4"],
        "read at the first page's version: no p9"
    );
    assert_eq!(v["metadata"]["resourceVersion"], rv);
    assert!(v["metadata"].get("continue").is_none());
    let o = s.kubectl(&[
        "get",
        "pods",
        "-n",
        "beta",
        "--chunk-size",
        "2",
        "-o",
        "name",
    ]);
    assert_eq!(o.stdout.lines().last(), Some("pod/p9"), "{}", o.stdout);
}
