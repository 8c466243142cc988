//! `repel report`'s page in a real browser: headless Chromium (Debian's `chromium`, installed
//! by `.ci/run`; as root it needs `--no-sandbox`) loads the page from a file, runs its script,
//! and the DOM it dumps is asserted on (the DOM contract: `data-workload`, `data-pool`,
//! `data-verdict`, `data-taint`; timeline marks' `data-pod`, `data-event`, `data-at`), with
//! `<body data-ready="true">` and an empty `#errors` (no script error). A screenshot must not be
//! blank: larger than one of an empty page.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::run;

/// Chromium, or `None` when absent and `REPEL_SKIP_BROWSER_TESTS=1` says to skip (absent
/// without it, the test fails, saying so).
pub fn chromium() -> Option<PathBuf> {
    for c in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(c).exists() {
            return Some(PathBuf::from(c));
        }
    }
    assert!(
        std::env::var("REPEL_SKIP_BROWSER_TESTS").as_deref() == Ok("1"),
        "chromium is not installed (apt-get install -y chromium; .ci/run installs it); \
         REPEL_SKIP_BROWSER_TESTS=1 skips the browser tests"
    );
    None
}

/// Chromium's flags for a headless run that fetches nothing of its own.
fn browser(bin: &Path, profile: &Path) -> Command {
    let mut c = Command::new(bin);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// The DOM of `url` after its scripts ran.
pub fn dump_dom(bin: &Path, url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = browser(bin, profile.path())
        .arg("--dump-dom")
        .arg(url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A screenshot of `url` (1280×900), its PNG bytes.
pub fn screenshot(bin: &Path, url: &str) -> Vec<u8> {
    let profile = tempfile::tempdir().unwrap();
    let png = profile.path().join("shot.png");
    let out = browser(bin, profile.path())
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1280,900")
        .arg("--hide-scrollbars")
        .arg(url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&png).unwrap()
}

/// The attributes of every element named `tag` in `dom`, as `(name, value)` lists.
pub fn elements(dom: &str, tag: &str) -> Vec<Vec<(String, String)>> {
    let open = format!("<{tag} ");
    dom.match_indices(&open)
        .map(|(i, _)| {
            let rest = &dom[i + open.len()..];
            let head = &rest[..rest.find('>').unwrap_or(rest.len())];
            let mut attrs = Vec::new();
            let mut s = head;
            while let Some(eq) = s.find("=\"") {
                let name = s[..eq].trim().to_string();
                let after = &s[eq + 2..];
                let end = after.find('"').unwrap_or(after.len());
                attrs.push((name, unescape(&after[..end])));
                s = &after[(end + 1).min(after.len())..];
            }
            attrs
        })
        .collect()
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The value of attribute `name`.
pub fn attr<'a>(e: &'a [(String, String)], name: &str) -> Option<&'a str> {
    e.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// The page drew everything and logged no script error.
pub fn assert_ready(dom: &str) {
    let body = elements(dom, "body");
    assert_eq!(
        attr(&body[0], "data-ready"),
        Some("true"),
        "the script did not finish"
    );
    let errors = dom
        .split("<div id=\"errors\" role=\"alert\">")
        .nth(1)
        .and_then(|r| r.split("</div>").next())
        .unwrap();
    assert_eq!(errors, "", "script errors: {errors}");
}

/// The verdict and taint of the matrix cell of `workload` on `pool`.
pub fn cell(dom: &str, workload: &str, pool: &str) -> (String, Option<String>) {
    let all = elements(dom, "td");
    let c = all
        .iter()
        .find(|e| attr(e, "data-workload") == Some(workload) && attr(e, "data-pool") == Some(pool))
        .unwrap_or_else(|| panic!("no cell {workload} × {pool}"));
    (
        attr(c, "data-verdict").unwrap().to_string(),
        attr(c, "data-taint").map(str::to_string),
    )
}

/// The `data-at` of the timeline's eviction mark (`TaintManagerEviction`) of `pod`
/// (`ns/name`) in a page's DOM, if it has one.
pub fn eviction_at(dom: &str, pod: &str) -> Option<String> {
    elements(dom, "circle")
        .iter()
        .find(|m| {
            attr(m, "data-event") == Some("TaintManagerEviction")
                && attr(m, "data-pod") == Some(pod)
        })
        .and_then(|m| attr(m, "data-at"))
        .map(str::to_string)
}

fn report_page(args: &[&str], dir: &Path) -> String {
    let out = dir.join("report.html");
    let mut a = vec!["report"];
    a.extend(args);
    a.extend(["-o", out.to_str().unwrap()]);
    let (code, _, err) = run(&a);
    assert_eq!(code, 0, "{err}");
    format!("file://{}", out.display())
}

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");

#[test]
fn the_demo_report_draws_the_verdicts_in_a_browser() {
    let Some(bin) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let url = report_page(
        &["-f", &format!("{EXAMPLES}/demo/cluster.yaml")],
        dir.path(),
    );
    let dom = dump_dom(&bin, &url);
    assert_ready(&dom);
    let cases = [
        ("Pod/default/web", "untainted", "lands", None),
        (
            "Pod/default/web",
            "sku=gpu:NoSchedule",
            "blocked",
            Some("sku=gpu:NoSchedule"),
        ),
        (
            "Pod/default/web",
            "maintenance=planned:PreferNoSchedule",
            "avoided",
            None,
        ),
        (
            "Pod/default/gpu-trainer",
            "sku=gpu:NoSchedule",
            "lands",
            None,
        ),
        ("Pod/default/group-app", "untainted", "blocked", None),
        (
            "DaemonSet/kube-system/nvidia-device-plugin",
            "sku=gpu:NoSchedule",
            "blocked",
            Some("sku=gpu:NoSchedule"),
        ),
    ];
    for (w, p, verdict, taint) in cases {
        assert_eq!(
            cell(&dom, w, p),
            (verdict.to_string(), taint.map(str::to_string)),
            "{w} on {p}"
        );
    }
    let rows = elements(&dom, "tr");
    assert!(
        rows.iter()
            .any(|r| attr(r, "data-pool") == Some("sku=gpu:NoSchedule")
                && attr(r, "data-taint") == Some("sku=gpu:NoSchedule")),
        "an inventory row of the GPU pool's taint"
    );
    let trap = elements(&dom, "td")
        .into_iter()
        .find(|e| {
            attr(e, "data-daemonset") == Some("DaemonSet/kube-system/nvidia-device-plugin")
                && attr(e, "data-pool") == Some("sku=gpu:NoSchedule")
        })
        .unwrap();
    assert_eq!(
        attr(&trap, "class"),
        Some("trap"),
        "the device-plugin trap is a red cell"
    );
    let shot = screenshot(&bin, &url);
    let blank = screenshot(&bin, "about:blank");
    assert!(shot.starts_with(b"\x89PNG"), "a PNG");
    assert!(
        shot.len() > 4 * blank.len(),
        "the screenshot is not blank: {} bytes, an empty page's {}",
        shot.len(),
        blank.len()
    );
}

/// A tainted NodePool beside the example's untainted one, and a Deployment for both.
const GPU_POOL_AND_WEB: &str = "apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      taints: [{key: nvidia.com/gpu, value: \"true\", effect: NoSchedule}]
      requirements: [{key: kubernetes.io/os, operator: In, values: [linux]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: nginx, resources: {requests: {cpu: 100m}}}]
";

#[test]
fn a_pools_report_has_a_column_per_node_pool() {
    let Some(bin) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let extra = dir.path().join("gpu.yaml");
    std::fs::write(&extra, GPU_POOL_AND_WEB).unwrap();
    let url = report_page(
        &[
            "-f",
            &format!("{EXAMPLES}/pools/karpenter-general-purpose.yaml"),
            "-f",
            extra.to_str().unwrap(),
        ],
        dir.path(),
    );
    let dom = dump_dom(&bin, &url);
    assert_ready(&dom);
    // Pools without nodes yet: judged by their templates, as Karpenter would provision.
    assert_eq!(
        cell(&dom, "Deployment/default/web", "general-purpose"),
        ("lands".to_string(), None)
    );
    assert_eq!(
        cell(&dom, "Deployment/default/web", "gpu"),
        (
            "blocked".to_string(),
            Some("nvidia.com/gpu=true:NoSchedule".to_string())
        )
    );
    assert!(
        elements(&dom, "tr")
            .iter()
            .any(|r| attr(r, "data-pool") == Some("gpu")
                && attr(r, "data-taint") == Some("nvidia.com/gpu=true:NoSchedule")),
        "the inventory lists the NodePool's taint"
    );
}

#[test]
fn a_scenarios_timeline_marks_the_eviction_at_its_time() {
    let Some(bin) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let url = report_page(
        &[
            "--scenario",
            &format!("{EXAMPLES}/noexecute-toleration-seconds.yaml"),
        ],
        dir.path(),
    );
    let dom = dump_dom(&bin, &url);
    assert_ready(&dom);
    let marks = elements(&dom, "circle");
    let eviction = |pod: &str| eviction_at(&dom, pod);
    // The scenario's own expectations: at once at 1m, after tolerationSeconds 3600 at 61m.
    assert_eq!(eviction("default/intolerant").as_deref(), Some("60"));
    assert_eq!(eviction("default/for-an-hour").as_deref(), Some("3660"));
    assert_eq!(eviction("default/forever"), None);
    assert!(
        marks
            .iter()
            .any(|m| attr(m, "data-event") == Some("Step") && attr(m, "data-node") == Some("node1")),
        "the taint step is marked on node1's lane"
    );
    assert!(
        dom.contains("class=\"countdown\""),
        "the countdown is drawn"
    );
    let rows = elements(&dom, "tr");
    assert!(
        rows.iter()
            .any(|r| attr(r, "data-event") == Some("TaintManagerEviction")
                && attr(r, "data-pod") == Some("default/for-an-hour")
                && attr(r, "data-at") == Some("3660")),
        "the events table holds the eviction"
    );
}
