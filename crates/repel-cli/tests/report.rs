//! `repel report`: its model's verdicts are `repel explain`'s (two paths, one answer), its
//! JSON keeps the contract, and its page opens in a real browser (headless Chromium) with
//! the verdicts drawn and no script error.

use serde_json::Value;

use crate::util::{json_out, run};

/// The demo cluster of the documentation.
const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/demo/cluster.yaml"
);

/// A node's verdict from `repel explain -o json`'s row, by the rules the report's model
/// documents (`repel_report::matrix`): `(verdict, taint)`.
fn explain_node_verdict(row: &Value) -> (&'static str, Option<String>) {
    let taints = row["taints"].as_array().cloned().unwrap_or_default();
    let untolerated = |effects: &[&str]| {
        taints
            .iter()
            .find(|t| t["tolerated"] == false && effects.contains(&t["effect"].as_str().unwrap()))
            .map(|t| {
                let (k, v, e) = (
                    t["key"].as_str().unwrap(),
                    t["value"].as_str().unwrap(),
                    t["effect"].as_str().unwrap(),
                );
                if v.is_empty() {
                    format!("{k}:{e}")
                } else {
                    format!("{k}={v}:{e}")
                }
            })
    };
    let feasible = match row.get("daemonPod") {
        Some(d) => d == true,
        None => row["feasible"] == true,
    };
    if feasible {
        if row.get("daemonPod").is_none()
            && let Some(t) = untolerated(&["PreferNoSchedule"])
        {
            return ("avoided", Some(t));
        }
        return ("lands", None);
    }
    match row["plugin"].as_str() {
        Some("NodeResourcesFit" | "NodePorts") if row.get("daemonPod").is_none() => {
            ("no-room", None)
        }
        Some("TaintToleration") => ("blocked", untolerated(&["NoSchedule", "NoExecute"])),
        _ => ("blocked", None),
    }
}

/// The `explain` argument naming a row of the report.
fn explain_arg(kind: &str, name: &str) -> String {
    let t = match kind {
        "Pod" => "pod",
        "Deployment" => "deployment",
        "StatefulSet" => "statefulset",
        "DaemonSet" => "daemonset",
        "Job" => "job",
        "CronJob" => "cronjob",
        "ReplicaSet" => "replicaset",
        other => panic!("unexpected kind {other}"),
    };
    format!("{t}/{name}")
}

#[test]
fn every_cell_of_the_demo_cluster_is_the_verdict_explain_gives() {
    let (code, r) = json_out(&["report", "-f", DEMO, "-o", "json"]);
    assert_eq!(code, 0);
    let pools = r["pools"].as_array().unwrap();
    let rows = r["workloads"].as_array().unwrap();
    assert!(rows.len() >= 10, "{rows:?}");
    let mut checked = 0;
    for w in rows {
        let (kind, ns, name) = (
            w["kind"].as_str().unwrap(),
            w["namespace"].as_str().unwrap(),
            w["name"].as_str().unwrap(),
        );
        let id = w["workload"].as_str().unwrap();
        let (_, e) = json_out(&[
            "explain",
            &explain_arg(kind, name),
            "-n",
            ns,
            "-f",
            DEMO,
            "-o",
            "json",
        ]);
        let by_node: Vec<(&str, (&str, Option<String>))> = e["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| (n["name"].as_str().unwrap(), explain_node_verdict(n)))
            .collect();
        for p in pools {
            let pool = p["name"].as_str().unwrap();
            let nodes: Vec<&str> = p["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            let cells: Vec<&(&str, Option<String>)> = by_node
                .iter()
                .filter(|(n, _)| nodes.contains(n))
                .map(|(_, v)| v)
                .collect();
            let rank = |v: &str| {
                ["lands", "avoided", "no-room", "blocked"]
                    .iter()
                    .position(|x| *x == v)
                    .unwrap()
            };
            let best = cells.iter().map(|c| c.0).min_by_key(|v| rank(v)).unwrap();
            let taint = match best {
                "blocked" => cells.iter().find_map(|c| c.1.clone()),
                "avoided" => cells
                    .iter()
                    .find(|c| c.0 == "avoided")
                    .and_then(|c| c.1.clone()),
                _ => None,
            };
            let cell = r["matrix"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["workload"] == id && c["pool"] == pool)
                .unwrap_or_else(|| panic!("no cell {id} × {pool}"));
            assert_eq!(cell["verdict"], best, "{id} on {pool}: {cell}");
            assert_eq!(
                cell["taint"].as_str().map(str::to_string),
                taint,
                "{id} on {pool}: {cell}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, rows.len() * pools.len());
}

/// Two Deployments alike but for their labels share no row class when a pod already in the
/// cluster has required anti-affinity against one of them: InterPodAffinity's Filter holds the
/// existing pod's terms against the incoming pod's labels (upstream
/// `satisfyExistingPodsAntiAffinity`), and `repel explain` says so for each.
#[test]
fn existing_pods_anti_affinity_keeps_labels_in_the_row_class() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/existing-anti-affinity.yaml"
    );
    let (code, r) = json_out(&["report", "-f", file, "-o", "json"]);
    assert_eq!(code, 0);
    let verdict = |id: &str| {
        r["matrix"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["workload"] == id)
            .map(|c| c["verdict"].as_str().unwrap_or_default().to_string())
            .unwrap_or_else(|| panic!("no cell for {id}: {r}"))
    };
    for (name, fits) in [("api", true), ("web", false)] {
        let (_, e) = json_out(&[
            "explain",
            &format!("deployment/{name}"),
            "-f",
            file,
            "-o",
            "json",
        ]);
        let row = &e["nodes"][0];
        assert_eq!(row["name"], "n1", "{e}");
        assert_eq!(explain_node_verdict(row).0 == "lands", fits, "{name}: {e}");
        assert_eq!(
            verdict(&format!("Deployment/default/{name}")),
            explain_node_verdict(row).0,
            "{name}: the report's cell and explain's verdict"
        );
    }
}

#[test]
fn the_model_holds_the_contract_and_the_device_plugin_trap() {
    let (code, r) = json_out(&["report", "-f", DEMO, "-o", "json"]);
    assert_eq!(code, 0);
    let gpu = r["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["taints"] == serde_json::json!(["sku=gpu:NoSchedule"]))
        .unwrap();
    assert_eq!(gpu["nodes"], serde_json::json!(["gpu-1"]));
    assert_eq!(
        gpu["name"], "sku=gpu:NoSchedule",
        "nodes without pool labels: grouped by taints"
    );
    let trainer = r["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["workload"] == "Pod/default/web" && c["pool"] == "sku=gpu:NoSchedule")
        .unwrap();
    assert_eq!(trainer["verdict"], "blocked");
    assert_eq!(trainer["taint"], "sku=gpu:NoSchedule");
    assert_eq!(
        trainer["toleration"],
        "- key: sku\n  operator: Equal\n  value: gpu\n  effect: NoSchedule"
    );
    let cov = &r["coverage"][0];
    assert_eq!(
        cov["daemonset"],
        "DaemonSet/kube-system/nvidia-device-plugin"
    );
    let on_gpu = cov["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["pool"] == "sku=gpu:NoSchedule")
        .unwrap();
    assert_eq!(
        (on_gpu["intended"].as_u64(), on_gpu["wouldRun"].as_u64()),
        (Some(1), Some(0)),
        "meant for the GPU node, kept off by its taint: {on_gpu}"
    );
    assert_eq!(on_gpu["taint"], "sku=gpu:NoSchedule");
    assert!(
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "daemonset-misses-nodes"),
        "lint's findings are in the model"
    );
    assert!(
        r.get("timeline")
            .is_some_and(|t| t == &serde_json::json!([]))
    );
}

#[test]
fn a_scenario_adds_its_timeline_with_the_evictions_countdown() {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/noexecute-toleration-seconds.yaml"
    );
    let (code, r) = json_out(&["report", "--scenario", scenario, "-o", "json"]);
    assert_eq!(code, 0);
    let t = r["timeline"].as_array().unwrap();
    let eviction = t
        .iter()
        .find(|e| e["event"] == "TaintManagerEviction")
        .unwrap_or_else(|| panic!("no eviction in {t:?}"));
    assert!(eviction["pod"].is_string(), "{eviction}");
    assert!(eviction["at"].as_f64().unwrap() > 0.0, "{eviction}");
    assert!(
        t.iter()
            .any(|e| e["event"] == "Step" && e["node"].is_string()),
        "{t:?}"
    );
    assert!(r["timelineEnd"].as_f64().is_some());
    let (_, sim) = json_out(&["simulate", scenario, "-o", "json"]);
    let evictions = |list: &Vec<Value>, key: &str| -> Vec<(String, f64)> {
        list.iter()
            .filter(|e| e[key] == "TaintManagerEviction")
            .map(|e| (e["at"].to_string(), e["at"].as_f64().unwrap()))
            .collect()
    };
    assert_eq!(
        evictions(t, "event"),
        evictions(sim["events"].as_array().unwrap(), "reason"),
        "the timeline's evictions are simulate's"
    );
}

#[test]
fn the_page_is_one_file_that_fetches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    let (code, _, err) = run(&["report", "-f", DEMO, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    // (The one URL in it is the SVG namespace, a name, never fetched.)
    for needle in [
        "<script src",
        "<link",
        "<img",
        "url(",
        "https://",
        "fetch(",
        "import(",
    ] {
        assert!(!page.contains(needle), "the page holds {needle}");
    }
    assert!(page.contains("@media (prefers-color-scheme: dark)"));
    assert!(page.contains("@media print"));
}

/// A running `repel serve` of `manifests`, killed when dropped.
struct Serve {
    child: std::process::Child,
    kubeconfig: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(manifests: &str) -> Serve {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_repel"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "-f",
            manifests,
            "--kubeconfig-out",
        ])
        .arg(&kubeconfig)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("repel serve: listening on "), "{line}");
    Serve {
        child,
        kubeconfig,
        _dir: dir,
    }
}

#[test]
fn a_live_cluster_is_reported_as_its_snapshot_is() {
    let s = serve(DEMO);
    let kc = s.kubeconfig.to_str().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().to_str().unwrap();
    // Until serve's scheduler has placed the demo's pods (7 of its 8 fit somewhere): the
    // snapshot then holds them bound.
    let mut placed = 0;
    for _ in 0..200 {
        let (code, _, err) = run(&["snapshot", "--kubeconfig", &kc, "-o", snap]);
        assert_eq!(code, 0, "{err}");
        let pods = std::fs::read_to_string(dir.path().join("12-pods.yaml")).unwrap_or_default();
        placed = pods.matches("  nodeName: ").count();
        if placed >= 7 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(placed >= 7, "serve placed {placed} pods");
    let (code, live) = json_out(&["report", "--kubeconfig", &kc, "-o", "json"]);
    assert_eq!(code, 0);
    let (_, files) = json_out(&["report", "-f", snap, "-o", "json"]);
    assert!(
        live["source"].as_str().unwrap().starts_with("cluster "),
        "{}",
        live["source"]
    );
    for key in ["pools", "matrix", "coverage", "drainPools", "findings"] {
        assert_eq!(live[key], files[key], "{key}");
    }
    let web = live["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["workload"] == "Pod/default/web" && c["pool"] == "sku=gpu:NoSchedule")
        .unwrap();
    assert_eq!(web["verdict"], "blocked");
}
