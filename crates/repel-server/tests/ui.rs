//! `/ui/`: `repel report`'s page of the cluster the server holds, kept current: a `kubectl
//! taint` changes the model `/ui/model.json` serves and the page's matrix, seen in headless
//! Chromium (Debian's `chromium`; `REPEL_SKIP_BROWSER_TESTS=1` skips the browser part where it
//! is absent).

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::util::{have_kubectl, node, request, start};

fn web() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web", "namespace": "default"},
           "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}})
}

/// The cell of `workload` on `pool` in the model: `(verdict, taint)`.
fn cell(model: &Value, workload: &str, pool: &str) -> Option<(String, Option<String>)> {
    model["matrix"].as_array()?.iter().find_map(|c| {
        (c["workload"] == workload && c["pool"] == pool).then(|| {
            (
                c["verdict"].as_str().unwrap().to_string(),
                c["taint"].as_str().map(str::to_string),
            )
        })
    })
}

/// Chromium's DOM of `url` after its scripts ran, or `None` when chromium is absent and the
/// browser tests are skipped.
fn dump_dom(url: &str) -> Option<String> {
    let bin = Path::new("/usr/bin/chromium");
    if !bin.exists() {
        assert!(
            std::env::var("REPEL_SKIP_BROWSER_TESTS").as_deref() == Ok("1"),
            "chromium is not installed (.ci/run installs it); REPEL_SKIP_BROWSER_TESTS=1 skips"
        );
        return None;
    }
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .unwrap();
    assert!(out.status.success());
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The `data-verdict` of the page's cell of `workload` on `pool`.
fn page_verdict(dom: &str, workload: &str, pool: &str) -> Option<String> {
    let want = format!("data-workload=\"{workload}\" data-pool=\"{pool}\" data-verdict=\"");
    let at = dom.find(&want)? + want.len();
    Some(dom[at..at + dom[at..].find('"')?].to_string())
}

#[test]
fn a_kubectl_taint_shows_in_the_report_page() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![
        node("node1", json!(null)),
        node("node2", json!(null)),
        web(),
    ]);
    let (code, before) = request(s.addr, "GET", "/ui/model.json", &[], "");
    assert_eq!(code, 200, "{before}");
    assert_eq!(
        cell(&before, "Deployment/default/web", "untainted"),
        Some(("lands".to_string(), None))
    );
    let url = format!("http://{}/ui/", s.addr);
    let dom = dump_dom(&url);
    if let Some(dom) = &dom {
        assert!(dom.contains("data-ready=\"true\""), "the page's script ran");
        assert!(
            dom.contains("<div id=\"errors\" role=\"alert\"></div>"),
            "no script error"
        );
        assert_eq!(
            page_verdict(dom, "Deployment/default/web", "untainted").as_deref(),
            Some("lands")
        );
    }

    s.kubectl_ok(&["taint", "nodes", "node1", "dedicated=gpu:NoSchedule"]);
    let (_, after) = request(s.addr, "GET", "/ui/model.json", &[], "");
    assert_ne!(before["digest"], after["digest"], "the model changed");
    assert_eq!(
        cell(&after, "Deployment/default/web", "dedicated=gpu:NoSchedule"),
        Some((
            "blocked".to_string(),
            Some("dedicated=gpu:NoSchedule".to_string())
        )),
        "node1 is a pool of its own now, its taint keeping web off"
    );
    if dom.is_some() {
        let dom = dump_dom(&url).unwrap();
        assert_eq!(
            page_verdict(&dom, "Deployment/default/web", "dedicated=gpu:NoSchedule").as_deref(),
            Some("blocked")
        );
    }
}
