//! The engine live under the real kubectl: `get pods -w` sees a NoExecute eviction, `drain`
//! evicts (a PodDisruptionBudget holds one pod back until its replacement runs elsewhere,
//! DaemonSet pods stay), a node whose kubelet stops goes `NotReady` and its pods move.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use repel_engine::load::ClusterInput;
use repel_engine::scenario::parse_scenario;
use repel_server::scenario::{CLUSTER_TIME_ANNOTATION, ScenarioSetup};
use serde_json::{Value, json};

use crate::util::{self, Server, have_kubectl, node, pod, start, table_rows};

/// Waits (up to 20 s) until `f` holds.
fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn pods(s: &Server) -> Vec<Value> {
    s.app.store.list("pods", None).0
}

fn running_on(s: &Server, node: &str) -> Vec<String> {
    pods(s)
        .iter()
        .filter(|p| p["spec"]["nodeName"] == node && p["status"]["phase"] == "Running")
        .map(|p| p["metadata"]["name"].as_str().unwrap().to_string())
        .collect()
}

fn replica_set(name: &str, replicas: i32, empty_dir: bool) -> Value {
    let mut rs = json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "nginx"}]}
            }
        }
    });
    if empty_dir {
        rs["spec"]["template"]["spec"]["volumes"] = json!([{"name": "scratch", "emptyDir": {}}]);
    }
    rs
}

#[test]
fn get_pods_watch_shows_a_no_execute_eviction() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![
        node("node1", json!(null)),
        pod("default", "web", Some("node1")),
    ]);
    let cache = tempfile::tempdir().unwrap();
    let mut child = Command::new("kubectl")
        .env("KUBECONFIG", &s.kubeconfig)
        .arg(format!("--cache-dir={}", cache.path().display()))
        .args(["get", "pods", "-w"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    let next = || {
        rx.recv_timeout(Duration::from_secs(20))
            .expect("a line from kubectl get -w")
    };
    lines.push(next());
    lines.push(next());
    let o = s.kubectl(&["taint", "nodes", "node1", "key1=value1:NoExecute"]);
    assert_eq!(o.stdout, "node/node1 tainted\n", "{}", o.stderr);
    lines.push(next());
    lines.push(next());
    child.kill().unwrap();
    let _ = child.wait();
    assert_eq!(
        table_rows(&lines.join("\n"), 4),
        vec![
            "NAME READY STATUS RESTARTS AGE",
            "web 1/1 Running 0 AGE",
            "web 1/1 Terminating 0 AGE",
            "web 1/1 Terminating 0 AGE",
        ],
        "the watch prints the pod Terminating when the taint manager deletes it, then gone"
    );
    assert!(s.get("pods", "default", "web").is_none());
    let (events, _) = s.app.store.list("events", Some("default"));
    assert!(
        events.iter().any(|e| e["reason"] == "TaintManagerEviction"
            && e["message"] == "Marking for deletion Pod default/web"),
        "{events:?}"
    );
}

#[test]
fn drain_evicts_respects_the_budget_and_ignores_daemonset_pods() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![
        node("node1", json!(null)),
        replica_set("web", 2, true),
        replica_set("guarded", 1, false),
        json!({
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "guarded", "namespace": "default"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}}
        }),
        json!({
            "apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "proxy", "namespace": "kube-system"},
            "spec": {
                "selector": {"matchLabels": {"app": "proxy"}},
                "template": {"metadata": {"labels": {"app": "proxy"}},
                             "spec": {"containers": [{"name": "proxy", "image": "proxy"}]}}
            }
        }),
    ]);
    wait_for("4 pods running on node1", || {
        running_on(&s, "node1").len() == 4
    });
    let node2 = s.write(
        "node2.yaml",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: node2\n  labels:\n    kubernetes.io/hostname: node2\n",
    );
    let o = s.kubectl(&["create", "-f", &node2]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "node/node2 created\n"),
        "{}",
        o.stderr
    );
    wait_for("the DaemonSet's pod on node2", || {
        running_on(&s, "node2").len() == 1
    });

    wait_for("the budget's status", || {
        s.get("poddisruptionbudgets", "default", "guarded").unwrap()["status"]["currentHealthy"]
            == 1
    });
    let o = s.kubectl(&["get", "pdb", "guarded"]);
    assert_eq!(
        table_rows(&o.stdout, 4),
        vec![
            "NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE",
            "guarded 1 N/A 0 AGE"
        ],
        "{}",
        o.stderr
    );
    // The budget blocks the guarded pod (1 healthy, 1 needed): kubectl retries every 5 s until
    // the budget is deleted.
    let cache = tempfile::tempdir().unwrap();
    let mut drain = Command::new("kubectl")
        .env("KUBECONFIG", &s.kubeconfig)
        .arg(format!("--cache-dir={}", cache.path().display()))
        .args([
            "drain",
            "node1",
            "--ignore-daemonsets",
            "--delete-emptydir-data",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = drain.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            all.push_str(&line);
            all.push('\n');
            let _ = tx.send(line);
        }
        all
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("the budget's refusal");
        if line.contains("will retry after 5s") {
            break;
        }
    }
    let o = s.kubectl(&["delete", "pdb", "guarded"]);
    assert_eq!(
        o.stdout, "poddisruptionbudget.policy \"guarded\" deleted\n",
        "{}",
        o.stderr
    );
    let out = drain.wait_with_output().unwrap();
    let stderr = reader.join().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.first(), Some(&"node/node1 cordoned"), "{stdout}");
    assert_eq!(lines.last(), Some(&"node/node1 drained"), "{stdout}");
    let evicted: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("pod/") && l.ends_with(" evicted"))
        .collect();
    assert_eq!(evicted.len(), 3, "{stdout}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("evicting pod default/guarded-")),
        "{stdout}"
    );
    assert!(
        stderr.contains("Warning: ignoring DaemonSet-managed Pods: kube-system/proxy-"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error when evicting pods/\"guarded-"),
        "{stderr}"
    );
    assert!(
        stderr.contains("\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n"),
        "{stderr}"
    );
    let on1 = running_on(&s, "node1");
    assert_eq!(on1.len(), 1, "only the DaemonSet's pod stays: {on1:?}");
    assert!(on1[0].starts_with("proxy-"));
    wait_for("the three replacements running on node2", || {
        running_on(&s, "node2").len() == 4
    });
    assert_eq!(
        s.get("nodes", "", "node1").unwrap()["spec"]["unschedulable"],
        true
    );
}

#[test]
fn a_node_whose_kubelet_stops_goes_not_ready_and_its_pods_move() {
    if !have_kubectl() {
        return;
    }
    // A pod that tolerates an unreachable node for ever stays, NotReady, and is Ready again
    // when its kubelet is back.
    let mut sticky = pod("default", "sticky", Some("node1"));
    sticky["spec"]["tolerations"] = json!([{"key": "node.kubernetes.io/unreachable",
                                            "operator": "Exists", "effect": "NoExecute"}]);
    let s = start(vec![
        node("node1", json!(null)),
        node(
            "node2",
            json!([{"key": "spare", "effect": "PreferNoSchedule"}]),
        ),
        replica_set("web", 1, false),
        sticky,
    ]);
    wait_for("web running on node1", || {
        running_on(&s, "node1").len() == 2
    });
    let before: Vec<String> = running_on(&s, "node1")
        .into_iter()
        .filter(|p| p != "sticky")
        .collect();
    let o = s.kubectl(&["annotate", "node", "node1", "repel.dev/heartbeat=stopped"]);
    assert_eq!(o.stdout, "node/node1 annotated\n", "{}", o.stderr);
    wait_for("the replacement running on node2", || {
        running_on(&s, "node2").len() == 1
    });
    let o = s.kubectl(&["get", "nodes"]);
    assert_eq!(
        table_rows(&o.stdout, 3),
        vec![
            "NAME STATUS ROLES AGE VERSION",
            "node1 NotReady <none> AGE v1.32.0",
            "node2 Ready <none> AGE v1.32.0",
        ]
    );
    let o = s.kubectl(&["describe", "node", "node1"]);
    assert!(
        o.stdout.contains(
            "Taints:             node.kubernetes.io/unreachable:NoExecute\n                    node.kubernetes.io/unreachable:NoSchedule\n"
        ),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("node-controller  Node node1 status is now: NodeNotReady\n"),
        "{}",
        o.stdout
    );
    let evicted = s.get("pods", "default", &before[0]).unwrap();
    assert!(
        evicted["metadata"]["deletionTimestamp"].is_string(),
        "evicted after its 300 s toleration, Terminating while its kubelet is down: {evicted}"
    );
    let ready = evicted["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "Ready")
        .unwrap()["status"]
        .clone();
    assert_eq!(ready, "False", "MarkPodsNotReady");
    let sticky = s.get("pods", "default", "sticky").unwrap();
    assert!(
        sticky["metadata"]["deletionTimestamp"].is_null(),
        "tolerated for ever: {sticky}"
    );
    assert!(
        sticky["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "Ready" && c["status"] == "False")
    );
    let (events, _) = s.app.store.list("events", Some("default"));
    assert!(events.iter().any(|e| e["reason"] == "NodeNotReady"
        && e["message"] == "Node is not ready"
        && e["involvedObject"]["name"] == before[0].as_str()));
    let o = s.kubectl(&["get", "pod", &before[0]]);
    assert_eq!(
        table_rows(&o.stdout, 4)[1],
        format!("{} 1/1 Terminating 0 AGE", before[0])
    );
    let o = s.kubectl(&["annotate", "node", "node1", "repel.dev/heartbeat-"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    wait_for("the Terminating pod gone once the kubelet is back", || {
        s.get("pods", "default", &before[0]).is_none()
    });
    wait_for("node1 Ready and untainted again", || {
        let n = s.get("nodes", "", "node1").unwrap();
        n["spec"].get("taints").is_none()
            && n["status"]["conditions"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["type"] == "Ready" && c["status"] == "True")
    });
    wait_for("sticky Ready again", || {
        let p = s.get("pods", "default", "sticky").unwrap();
        p["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "Ready" && c["status"] == "True")
    });
}

#[test]
fn a_deployment_keeps_its_replicas_scales_and_goes_with_its_pods() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null)), node("node2", json!(null))]);
    let f = s.write(
        "web.yaml",
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: web, image: nginx}
",
    );
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(o.stdout, "deployment.apps/web created\n", "{}", o.stderr);
    let web_pods = |s: &Server| {
        pods(s)
            .iter()
            .filter(|p| {
                p["metadata"]["labels"]["app"] == "web" && p["status"]["phase"] == "Running"
            })
            .count()
    };
    wait_for("2 web pods running", || web_pods(&s) == 2);
    let o = s.kubectl(&["scale", "deployment", "web", "--replicas=3"]);
    assert_eq!(o.stdout, "deployment.apps/web scaled\n", "{}", o.stderr);
    wait_for("3 web pods running", || web_pods(&s) == 3);
    wait_for("the deployment's status", || {
        s.get("deployments", "default", "web").unwrap()["status"]["readyReplicas"] == 3
    });
    let o = s.kubectl(&["get", "deployment", "web"]);
    assert_eq!(
        table_rows(&o.stdout, 4),
        vec!["NAME READY UP-TO-DATE AVAILABLE AGE", "web 3/3 3 3 AGE"]
    );
    // A new template: the new ReplicaSet takes over, the old one is scaled to 0. (apply also
    // sets replicas back to the file's 2, as kubectl's three-way merge does.)
    std::fs::write(
        &f,
        std::fs::read_to_string(&f)
            .unwrap()
            .replace("image: nginx}", "image: nginx:1.27}"),
    )
    .unwrap();
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(o.stdout, "deployment.apps/web configured\n", "{}", o.stderr);
    let o = s.kubectl(&["rollout", "status", "deployment", "web", "--timeout=20s"]);
    assert_eq!(
        o.stdout, "deployment \"web\" successfully rolled out\n",
        "{}",
        o.stderr
    );
    wait_for("2 pods of the new template, none of the old", || {
        let images: Vec<Value> = pods(&s)
            .iter()
            .filter(|p| p["metadata"]["labels"]["app"] == "web")
            .map(|p| p["spec"]["containers"][0]["image"].clone())
            .collect();
        images.len() == 2 && images.iter().all(|i| i == "nginx:1.27")
    });
    let o = s.kubectl(&["rollout", "history", "deployment", "web"]);
    assert_eq!(
        o.stdout,
        "deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["get", "rs"]);
    let rows = table_rows(&o.stdout, 5);
    assert_eq!(rows.len(), 3, "{}", o.stdout);
    assert!(
        rows.iter().any(|r| r.contains(" 0 0 0 ")),
        "the old ReplicaSet kept at 0: {rows:?}"
    );
    // Back to revision 1: kubectl patches the old template back; its ReplicaSet is reused.
    let o = s.kubectl(&["rollout", "undo", "deployment", "web"]);
    assert_eq!(
        o.stdout, "deployment.apps/web rolled back\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["rollout", "status", "deployment", "web", "--timeout=20s"]);
    assert_eq!(
        o.stdout, "deployment \"web\" successfully rolled out\n",
        "{}",
        o.stderr
    );
    wait_for("2 pods of the first template again", || {
        let images: Vec<Value> = pods(&s)
            .iter()
            .filter(|p| p["metadata"]["labels"]["app"] == "web")
            .map(|p| p["spec"]["containers"][0]["image"].clone())
            .collect();
        images.len() == 2 && images.iter().all(|i| i == "nginx")
    });
    assert_eq!(
        s.app.store.list("replicasets", None).0.len(),
        2,
        "revision 1's ReplicaSet reused"
    );
    let o = s.kubectl(&["delete", "deployment", "web"]);
    assert_eq!(
        o.stdout, "deployment.apps \"web\" deleted\n",
        "{}",
        o.stderr
    );
    wait_for("its ReplicaSet and pods gone", || {
        pods(&s).is_empty() && s.app.store.list("replicasets", None).0.is_empty()
    });
}

#[test]
fn the_kubelet_rejects_a_pod_bound_past_a_no_execute_taint() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node(
        "node1",
        json!([{"key": "key1", "value": "value1", "effect": "NoExecute"}]),
    )]);
    let f = s.write(
        "pinned.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pinned\nspec:\n  nodeName: node1\n  containers:\n  - {name: app, image: nginx}\n",
    );
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(o.stdout, "pod/pinned created\n", "{}", o.stderr);
    // The kubelet rejects it (phase Failed, reason TaintToleration), then the taint-eviction
    // controller deletes it, as it deletes every pod on the node that does not tolerate the
    // taint: the watch shows the rejection on the Terminating pod, then the pod gone.
    wait_for("the pod rejected and deleted", || {
        s.get("pods", "default", "pinned").is_none()
    });
    let (history, _) = s.app.store.watch_from(0).unwrap();
    let rejected = history
        .iter()
        .filter(|e| e.resource == "pods")
        .map(|e| e.object.decode())
        .find(|o| o["status"]["phase"] == "Failed")
        .expect("the pod's Failed status was written");
    assert_eq!(rejected["status"]["reason"], "TaintToleration");
    assert_eq!(
        rejected["status"]["message"],
        "Pod was rejected: Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"
    );
    let (events, _) = s.app.store.list("events", Some("default"));
    let reasons: Vec<(String, String)> = events
        .iter()
        .map(|e| {
            (
                e["reason"].as_str().unwrap_or("").to_string(),
                e["source"]["component"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert!(
        reasons.contains(&("TaintToleration".into(), "kubelet".into()))
            && reasons.contains(&(
                "TaintManagerEviction".into(),
                "taint-eviction-controller".into()
            )),
        "{reasons:?}"
    );
}

/// The hour of `tolerationSeconds`, judged by the cluster's own clock. Plain `serve` stamps
/// Events with the wall clock, in whole seconds (kube-apiserver's `metav1.Time`), which at
/// 6,000 cluster seconds per wall second cannot tell an hour from none; a `--scenario` played
/// live stamps each Event with its cluster time ([`CLUSTER_TIME_ANNOTATION`], seconds since
/// the scenario's start). So the taint is the scenario's step at 10 s, and `kubectl get events`
/// must show the taint manager marking the untolerating pod at 10 s and the tolerating one at
/// 10 s + 3600 s.
#[test]
fn a_toleration_with_seconds_keeps_the_pod_that_long_in_cluster_time() {
    if !have_kubectl() {
        return;
    }
    let mut p = pod("default", "key1-for-an-hour", Some("node1"));
    p["spec"]["tolerations"] = json!([{"key": "key1", "operator": "Equal", "value": "value1",
                                       "effect": "NoExecute", "tolerationSeconds": 3600}]);
    let input = ClusterInput {
        nodes: vec![serde_json::from_value(node("node1", json!(null))).unwrap()],
        pods: vec![
            serde_json::from_value(p).unwrap(),
            serde_json::from_value(pod("default", "plain", Some("node1"))).unwrap(),
        ],
        ..Default::default()
    };
    let scenario = parse_scenario(&json!({
        "kind": "Scenario",
        "steps": [{"at": "10s", "kubectl": "taint nodes node1 key1=value1:NoExecute"}],
        "until": "2h"
    }))
    .unwrap();
    let mut cfg = util::config(Vec::new(), 6000.0);
    cfg.scenario = Some(ScenarioSetup { scenario, input });
    // Two hours of cluster time pass in about a second: the Events must outlive them.
    cfg.event_ttl = Duration::from_secs(100 * 365 * 24 * 3600);
    let s = util::start_config(cfg, util::runtime());
    wait_for("the scenario's end", || {
        !s.app.scenario_playing.load(Ordering::SeqCst)
    });
    let events: Value =
        serde_json::from_str(&s.kubectl_ok(&["get", "events", "-o", "json"])).unwrap();
    let mut evictions: Vec<(String, String)> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["reason"] == "TaintManagerEviction")
        .map(|e| {
            (
                e["involvedObject"]["name"].as_str().unwrap().to_string(),
                e["metadata"]["annotations"][CLUSTER_TIME_ANNOTATION]
                    .as_str()
                    .unwrap_or("no cluster time")
                    .to_string(),
            )
        })
        .collect();
    evictions.sort();
    assert_eq!(
        evictions,
        [
            ("key1-for-an-hour".to_string(), "3610.000".to_string()),
            ("plain".to_string(), "10.000".to_string()),
        ],
        "{events}"
    );
    assert!(s.get("pods", "default", "plain").is_none());
    assert!(s.get("pods", "default", "key1-for-an-hour").is_none());
}

/// The rollout's steps as the cluster recorded them, in the order it recorded them (the
/// Events' resourceVersions, read through `kubectl get events`): `("down", node)` for the
/// DaemonSet controller's `SuccessfulDelete` of an old pod (on the node `old` says), `("up",
/// node)` for the scheduler's `Scheduled` of a new pod, from `since` on.
fn rollout_steps(
    s: &Server,
    since: u64,
    old: &std::collections::BTreeMap<String, String>,
) -> Vec<(&'static str, String)> {
    let events: Value =
        serde_json::from_str(&s.kubectl_ok(&["get", "events", "-o", "json"])).unwrap();
    let mut events: Vec<(u64, &Value)> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let rv = e["metadata"]["resourceVersion"].as_str().unwrap();
            (rv.parse().unwrap(), e)
        })
        .filter(|(rv, _)| *rv > since)
        .collect();
    events.sort_by_key(|(rv, _)| *rv);
    let mut steps = Vec::new();
    for (_, e) in events {
        let message = e["message"].as_str().unwrap_or("");
        match e["reason"].as_str().unwrap_or("") {
            "SuccessfulDelete" => {
                let pod = message.trim_start_matches("Deleted pod: ");
                steps.push(("down", old.get(pod).cloned().unwrap_or_default()));
            }
            "Scheduled" if message.contains("default/agent-") => {
                let node = message.rsplit(' ').next().unwrap_or("");
                steps.push(("up", node.to_string()));
            }
            _ => {}
        }
    }
    steps
}

#[test]
fn a_daemonset_rolls_its_new_template_out_node_by_node_and_rollout_status_follows() {
    if !have_kubectl() {
        return;
    }
    let mut cfg = util::config(
        vec![
            node("node1", json!(null)),
            node("node2", json!(null)),
            node("node3", json!(null)),
        ],
        600.0,
    );
    // The rollout's Events must outlive its minutes of cluster time.
    cfg.event_ttl = Duration::from_secs(100 * 365 * 24 * 3600);
    let s = util::start_config(cfg, util::runtime());
    let f = s.write(
        "agent.yaml",
        "apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  updateStrategy:
    rollingUpdate: {maxUnavailable: 1}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - {name: agent, image: agent:1}
",
    );
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(o.stdout, "daemonset.apps/agent created\n", "{}", o.stderr);
    let images = |s: &Server| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = pods(s)
            .iter()
            .filter(|p| {
                p["metadata"]["labels"]["app"] == "agent"
                    && p["status"]["phase"] == "Running"
                    && p["metadata"]["deletionTimestamp"].is_null()
            })
            .map(|p| {
                (
                    p["spec"]["nodeName"].as_str().unwrap_or("").to_string(),
                    p["spec"]["containers"][0]["image"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let o = s.kubectl(&["rollout", "status", "daemonset", "agent", "--timeout=20s"]);
    assert_eq!(
        o.stdout, "daemon set \"agent\" successfully rolled out\n",
        "{}",
        o.stderr
    );
    assert_eq!(images(&s).len(), 3);
    std::fs::write(
        &f,
        std::fs::read_to_string(&f)
            .unwrap()
            .replace("image: agent:1}", "image: agent:2}"),
    )
    .unwrap();
    // The agent:1 pods, by name, with their nodes.
    let old: std::collections::BTreeMap<String, String> = pods(&s)
        .iter()
        .filter(|p| p["metadata"]["labels"]["app"] == "agent")
        .map(|p| {
            (
                p["metadata"]["name"].as_str().unwrap().to_string(),
                p["spec"]["nodeName"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let before = s.app.store.resource_version();
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(
        o.stdout, "daemonset.apps/agent configured\n",
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["rollout", "status", "daemonset", "agent", "--timeout=20s"]);
    assert!(
        o.stdout
            .ends_with("daemon set \"agent\" successfully rolled out\n"),
        "{}{}",
        o.stdout,
        o.stderr
    );
    wait_for("every node runs agent:2", || {
        images(&s)
            == ["node1", "node2", "node3"]
                .iter()
                .map(|n| (n.to_string(), "agent:2".to_string()))
                .collect::<Vec<_>>()
    });
    // Node by node, as the cluster recorded it: with `maxUnavailable: 1` each node's old pod
    // is deleted and its new one scheduled there before the next node's old pod goes.
    let steps = rollout_steps(&s, before, &old);
    assert_eq!(steps.len(), 6, "{steps:?}");
    let mut nodes: Vec<String> = Vec::new();
    for pair in steps.chunks(2) {
        assert_eq!(pair[0].0, "down", "{steps:?}");
        assert_eq!(pair[1], ("up", pair[0].1.clone()), "{steps:?}");
        nodes.push(pair[0].1.clone());
    }
    nodes.sort();
    assert_eq!(nodes, ["node1", "node2", "node3"], "{steps:?}");
    let ds = s.get("daemonsets", "default", "agent").unwrap();
    assert_eq!(
        ds["status"]["updatedNumberScheduled"], 3,
        "{}",
        ds["status"]
    );
    assert_eq!(ds["status"]["numberAvailable"], 3, "{}", ds["status"]);
}
