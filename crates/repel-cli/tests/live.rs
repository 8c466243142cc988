//! Live clusters: the read-only commands on a cluster through a kubeconfig, against `repel
//! serve` as the real API server (kube-rs over HTTP and HTTPS, with a token), and against a
//! scripted server for what `serve` does not do (403, 404, an expired continue token);
//! `repel snapshot` and the same answers on the snapshot as on the cluster.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// A cluster for `repel serve -f`: three nodes (one with a GPU taint), a Deployment with a
/// PodDisruptionBudget, a DaemonSet, a ReplicationController, a PriorityClass, a pod too large
/// for any node, and `bare` pods (more than one page of pods).
fn cluster_yaml(bare: usize) -> String {
    let mut s = String::new();
    for (name, taint) in [("n1", ""), ("n2", ""), ("gpu1", "gpu")] {
        s.push_str(&format!(
            "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels:\n    kubernetes.io/hostname: {name}\nspec:\n{}status:\n  allocatable:\n    cpu: \"4\"\n    memory: 16Gi\n    pods: \"1000\"\n  capacity:\n    cpu: \"4\"\n    memory: 16Gi\n    pods: \"1000\"\n  conditions:\n  - type: Ready\n    status: \"True\"\n",
            if taint.is_empty() {
                "  {}\n".to_string()
            } else {
                format!("  taints:\n  - key: {taint}\n    value: \"true\"\n    effect: NoSchedule\n")
            }
        ));
    }
    s.push_str(
        r#"---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priorityClassName: high
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec:
  minAvailable: 3
  selector: {matchLabels: {app: web}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: c, image: agent, resources: {requests: {cpu: 10m}}}]
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy, namespace: default}
spec:
  replicas: 1
  selector: {app: legacy}
  template:
    metadata: {labels: {app: legacy}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: "64"}}}]
"#,
    );
    for i in 0..bare {
        s.push_str(&format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: bare-{i:04}\n  namespace: batch\nspec:\n  containers:\n  - name: c\n    image: busybox\n"
        ));
    }
    s
}

/// A running `repel serve`, killed when dropped.
struct Serve {
    child: Child,
    kubeconfig: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `repel serve` with `cluster` loaded and `extra` flags; waits until it has placed
/// what it can (its controllers run live).
fn serve(bare: usize, extra: &[&str]) -> Serve {
    let cluster = &cluster_yaml(bare);
    let dir = tempfile::tempdir().unwrap();
    let manifests = dir.path().join("cluster.yaml");
    std::fs::write(&manifests, cluster).unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let mut child = Command::new(env!("CARGO_BIN_EXE_repel"))
        .args(["serve", "--listen", "127.0.0.1:0", "-f"])
        .arg(&manifests)
        .arg("--kubeconfig-out")
        .arg(&kubeconfig)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("repel serve: listening on "), "{line}");
    let s = Serve {
        child,
        kubeconfig,
        _dir: dir,
    };
    // The Deployment's and the DaemonSet's pods are created by serve's controllers: wait for
    // them, and for the scheduler to have judged `big`.
    let mut text = String::new();
    for _ in 0..200 {
        let out = repel(&["snapshot", "-o", "-"], &s);
        text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let placed = text.matches("  nodeName: ").count();
        // 3 web pods, 2 agents (gpu1's taint keeps the third out), the RC's pod, big, the
        // bare pods.
        if text.matches("kind: Pod\n").count() == 7 + bare
            && text.contains("reason: Unschedulable")
            && placed == 6 + bare
        {
            return s;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("serve did not settle: {text}");
}

/// `repel ARGS --kubeconfig <serve's>`.
fn repel(args: &[&str], s: &Serve) -> Output {
    Command::new(env!("CARGO_BIN_EXE_repel"))
        .args(args)
        .arg("--kubeconfig")
        .arg(&s.kubeconfig)
        .env_remove("KUBECONFIG")
        .output()
        .unwrap()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_repel"))
        .args(args)
        .env_remove("KUBECONFIG")
        .output()
        .unwrap()
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// A kubeconfig in `dir` (`kc.yaml`) whose current context, `context`, reaches `server`
/// (its cluster named the same), with a bearer `token` or no credentials.
fn kubeconfig_file(dir: &Path, server: &str, context: &str, token: Option<&str>) -> PathBuf {
    let user = token.map_or_else(|| "{}".to_string(), |t| format!("{{token: {t}}}"));
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: {context}\n  cluster: {{server: \"{server}\"}}\ncontexts:\n- name: {context}\n  context: {{cluster: {context}, user: u}}\nusers:\n- name: u\n  user: {user}\ncurrent-context: {context}\n"
    );
    let path = dir.join("kc.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

fn snapshot(s: &Serve, dir: &Path) -> Output {
    let out = repel(&["snapshot", "-o", dir.to_str().unwrap()], s);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn every_read_only_command_answers_the_same_on_the_cluster_and_on_its_snapshot() {
    let s = serve(0, &[]);
    let dir = tempfile::tempdir().unwrap();
    let out = snapshot(&s, dir.path());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.starts_with("cluster repel (http://127.0.0.1:"),
        "{said}"
    );
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "01-namespaces.yaml",
            "02-priorityclasses.yaml",
            "03-nodes.yaml",
            "04-poddisruptionbudgets.yaml",
            "05-deployments.yaml",
            "06-replicasets.yaml",
            "08-daemonsets.yaml",
            "11-replicationcontrollers.yaml",
            "12-pods.yaml",
            "13-nodepools.yaml",
        ]
        .iter()
        .filter(|f| *f != &"13-nodepools.yaml" || files.iter().any(|x| x == *f))
        .map(ToString::to_string)
        .collect::<Vec<_>>()
    );
    let pods = std::fs::read_to_string(dir.path().join("12-pods.yaml")).unwrap();
    assert!(!pods.contains("managedFields"), "stripped");
    assert!(!pods.contains("resourceVersion"), "stripped");
    assert!(pods.contains("ownerReferences"), "owners kept");
    let snap = dir.path().to_str().unwrap();
    for args in [
        &["schedule", "-o", "json"][..],
        &["explain", "big", "-o", "json"],
        &["explain", "deployment/web", "-o", "json"],
        &["explain", "ds/agent", "-n", "kube-system", "-o", "json"],
        &["explain", "rc/legacy", "-o", "json"],
        &["drain", "--all", "--ignore-daemonsets", "-o", "json"],
        &[
            "drain",
            "n1",
            "n2",
            "--as",
            "cluster-autoscaler",
            "-o",
            "json",
        ],
        &["consolidate", "-o", "json"],
        &["admit", "-o", "json"],
        &["pools", "-o", "json"],
    ] {
        let live = repel(args, &s);
        let mut on_files = args.to_vec();
        on_files.extend(["-f", snap]);
        let files = run(&on_files);
        assert_eq!(live.status.code(), files.status.code(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&live.stdout),
            String::from_utf8_lossy(&files.stdout),
            "{args:?}"
        );
        assert_eq!(
            String::from_utf8_lossy(&live.stderr),
            String::from_utf8_lossy(&files.stderr),
            "{args:?}"
        );
        if args[0] != "pools" {
            assert!(!live.stdout.is_empty(), "{args:?}");
        }
    }
    // check names where each object came from; its verdicts are the same.
    let live = json(&repel(&["check", "-o", "json"], &s));
    let files = json(&run(&["check", "-o", "json", "-f", snap]));
    assert_eq!(live["errors"], files["errors"]);
    assert_eq!(live["valid"], files["valid"]);
}

#[test]
fn explain_shows_the_cluster_schedulers_message_for_a_pending_pod_and_whether_repel_agrees() {
    let s = serve(0, &[]);
    let r = json(&repel(&["explain", "big", "-o", "json"], &s));
    let c = &r["clusterScheduler"];
    assert_eq!(c["reason"], "Unschedulable");
    assert_eq!(c["message"], r["message"]);
    assert_eq!(c["agrees"], true);
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("0/3 nodes are available: "),
        "{r}"
    );
    let human = repel(&["explain", "big"], &s);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("The cluster's scheduler wrote the same message (PodScheduled=False, Unschedulable, since "),
        "{text}"
    );
    assert!(text.contains("): repel agrees.\n"), "{text}");
    // A placed pod carries no such condition.
    let r = json(&repel(&["explain", "deployment/web", "-o", "json"], &s));
    assert!(r.get("clusterScheduler").is_none(), "{r}");
    // A pod the cluster does not hold is looked for in the cluster, not in files.
    let out = repel(&["explain", "nope"], &s);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error from server (NotFound): pods \"nope\" not found in the cluster (namespace \"default\")\n"
    );
}

#[test]
fn files_given_with_a_cluster_are_a_what_if_on_top_of_it() {
    let s = serve(0, &[]);
    let dir = tempfile::tempdir().unwrap();
    let v2 = dir.path().join("web-v2.yaml");
    std::fs::write(
        &v2,
        r#"apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: nginx:2, resources: {requests: {cpu: 100m}}}]
"#,
    )
    .unwrap();
    let feasible = |r: &Value| -> Vec<String> {
        r["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["feasible"] == true)
            .map(|n| n["name"].as_str().unwrap().to_string())
            .collect()
    };
    let today = json(&repel(&["explain", "deployment/web", "-o", "json"], &s));
    assert_eq!(feasible(&today), ["n1", "n2"]);
    let what_if = json(&repel(
        &[
            "explain",
            "deployment/web",
            "-o",
            "json",
            "-f",
            v2.to_str().unwrap(),
        ],
        &s,
    ));
    assert_eq!(feasible(&what_if), ["gpu1", "n1", "n2"]);
    // The cluster's other objects are still there: the DaemonSet's pods, the budget.
    let drain = json(&repel(
        &["drain", "n1", "--ignore-daemonsets", "-o", "json", "-f"]
            .into_iter()
            .chain([v2.to_str().unwrap()])
            .collect::<Vec<_>>(),
        &s,
    ));
    assert_eq!(drain["nodes"][0]["node"], "n1");
}

#[test]
fn lists_are_paged_and_every_object_is_read_once() {
    let s = serve(1234, &[]);
    let out = repel(&["snapshot", "-o", "-"], &s);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  name: bare-"))
        .collect();
    assert_eq!(names.len(), 1234);
    // Three pages of kubectl's 500 against serve (the pages' requests are observed on the
    // scripted server below): no pod twice, none left out.
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 1234);
    let r = json(&repel(&["schedule", "-o", "json"], &s));
    assert!(r["placements"].as_array().unwrap().len() <= 1234);
}

#[test]
fn a_cluster_behind_tls_and_a_token_is_read_with_the_kubeconfig_serve_wrote() {
    let s = serve(0, &["--tls", "--token", "s3cret"]);
    let text = std::fs::read_to_string(&s.kubeconfig).unwrap();
    assert!(text.contains("https://127.0.0.1:"), "{text}");
    let r = json(&repel(&["schedule", "-o", "json"], &s));
    assert_eq!(r["unschedulable"][0]["pod"], "default/big");
    // A wrong token: kubectl's words, exit 2.
    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join("wrong");
    std::fs::write(&wrong, text.replace("s3cret", "nope")).unwrap();
    let out = run(&[
        "schedule",
        "--kubeconfig",
        wrong.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: You must be logged in to the server (Unauthorized)\n"
    );
}

#[test]
fn kubeconfig_mistakes_are_kubectls_messages() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.yaml");
    let out = run(&["schedule", "--kubeconfig", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: stat {}: no such file or directory\n",
            missing.display()
        )
    );
    let kc = kubeconfig_file(dir.path(), "http://127.0.0.1:1", "ctx", Some("abc"));
    let out = run(&[
        "schedule",
        "--kubeconfig",
        kc.to_str().unwrap(),
        "--context",
        "nope",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error in configuration: context was not found for specified context: nope\n"
    );
    let out = run(&["snapshot", "--kubeconfig", kc.to_str().unwrap(), "-o", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n"
    );
    // Without -f, --kubeconfig or --context there is nothing to read.
    let out = run(&["schedule"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A scripted API server: answers each request by its path and query; records them.
fn scripted(routes: fn(&str) -> (u16, String)) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let log = log.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if stream.read(&mut byte).unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let target = head.split_whitespace().nth(1).unwrap_or("").to_string();
                log.lock().unwrap().push(target.clone());
                let (code, body) = routes(&target);
                let _ = write!(
                    stream,
                    "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    (format!("http://{addr}"), seen)
}

fn node(name: &str) -> String {
    format!(
        r#"{{"metadata":{{"name":"{name}","resourceVersion":"5","managedFields":[{{"manager":"kubelet"}}]}},"status":{{"allocatable":{{"cpu":"2","memory":"4Gi","pods":"110"}},"images":[{{"names":["x"]}}]}}}}"#
    )
}

fn list(items: &[String], cont: &str) -> String {
    format!(
        r#"{{"kind":"List","apiVersion":"v1","metadata":{{"resourceVersion":"9","continue":"{cont}"}},"items":[{}]}}"#,
        items.join(",")
    )
}

fn routes(target: &str) -> (u16, String) {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    match path {
        "/api/v1/nodes" if query.contains("continue=tok%2B1") => (
            410,
            r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"The provided continue parameter is too old to display a consistent list result.","reason":"Expired","code":410}"#.to_string(),
        ),
        "/api/v1/nodes" if query.contains("limit=500") => (200, list(&[node("a")], "tok+1")),
        "/api/v1/nodes" => (200, list(&[node("a"), node("b"), node("c")], "")),
        "/apis/policy/v1/poddisruptionbudgets" => (
            403,
            r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"poddisruptionbudgets.policy is forbidden: User \"system:serviceaccount:default:repel\" cannot list resource \"poddisruptionbudgets\" in API group \"policy\" at the cluster scope","reason":"Forbidden","code":403}"#.to_string(),
        ),
        "/apis/batch/v1/cronjobs" | "/apis/karpenter.sh/v1/nodepools" | "/apis/karpenter.sh/v1/nodeclaims" => (
            404,
            r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}"#.to_string(),
        ),
        _ => (200, list(&[], "")),
    }
}

#[test]
fn forbidden_and_unserved_kinds_are_warnings_and_an_expired_continue_lists_again_whole() {
    let (server, seen) = scripted(routes);
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig_file(dir.path(), &server, "prod", Some("t"));
    let out = run(&["snapshot", "--kubeconfig", kc.to_str().unwrap(), "-o", "-"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "warning: cannot list poddisruptionbudgets.policy: poddisruptionbudgets.policy is forbidden: User \"system:serviceaccount:default:repel\" cannot list resource \"poddisruptionbudgets\" in API group \"policy\" at the cluster scope; evictions and drains are judged as if no PodDisruptionBudget existed\n\
         warning: cannot list cronjobs.batch: the server does not serve it (/apis/batch/v1/cronjobs is not found); CronJobs' next runs are not judged\n"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("kind: Node\n").count(), 3, "{text}");
    // A node's images stay (ImageLocality reads them); its server noise goes.
    assert_eq!(text.matches("images:\n").count(), 3, "{text}");
    assert!(!text.contains("managedFields"), "{text}");
    let seen = seen.lock().unwrap().clone();
    let nodes: Vec<&String> = seen
        .iter()
        .filter(|t| t.starts_with("/api/v1/nodes"))
        .collect();
    assert_eq!(
        nodes,
        [
            "/api/v1/nodes?&limit=500",
            "/api/v1/nodes?&limit=500&continue=tok%2B1",
            "/api/v1/nodes?"
        ]
        .iter()
        .collect::<Vec<_>>(),
        "paged with kubectl's page size; the expired token answered by one whole list"
    );
    // The commands say the same, and go on.
    let out = run(&[
        "drain",
        "--all",
        "--kubeconfig",
        kc.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("warning: cannot list poddisruptionbudgets.policy: ")
    );
}

fn looping(target: &str) -> (u16, String) {
    if target.starts_with("/api/v1/nodes") {
        (200, list(&[node("a")], "same"))
    } else {
        (200, list(&[], ""))
    }
}

#[test]
fn a_server_that_repeats_its_continue_token_is_an_error_not_a_loop() {
    let (server, _) = scripted(looping);
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig_file(dir.path(), &server, "s", None);
    let out = run(&["snapshot", "--kubeconfig", kc.to_str().unwrap(), "-o", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: nodes: the server's list could not be read: the server answered continue=\"same\" with the same continue token\n"
    );
}

/// `repel lint` on a live cluster finds what it finds on the cluster's snapshot (the same rules,
/// objects, fields and messages; only the snapshot's findings have lines and columns): here the
/// DaemonSet that the GPU node's taint keeps off.
#[test]
fn lint_reads_a_live_cluster_as_its_snapshot() {
    let s = serve(0, &[]);
    let dir = tempfile::tempdir().unwrap();
    snapshot(&s, dir.path());
    let live = json(&repel(&["lint", "-o", "json"], &s));
    let files = json(&run(&[
        "lint",
        "-o",
        "json",
        "-f",
        dir.path().to_str().unwrap(),
    ]));
    let key = |v: &Value| -> Vec<(String, String, String, String)> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let s = |k: &str| f[k].as_str().unwrap().to_string();
                (s("rule"), s("object"), s("path"), s("message"))
            })
            .collect()
    };
    assert_eq!(key(&live), key(&files));
    let ds: Vec<_> = key(&live)
        .into_iter()
        .filter(|(rule, object, _, _)| {
            rule == "daemonset-misses-nodes" && object == "DaemonSet/kube-system/agent"
        })
        .collect();
    assert_eq!(ds.len(), 1, "{live}");
    assert!(
        ds[0].3.starts_with("runs on 2 of 3 intended nodes"),
        "{}",
        ds[0].3
    );
    assert!(
        files["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["line"].as_u64() > Some(0)),
        "{files}"
    );
}
