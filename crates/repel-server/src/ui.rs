//! `/ui/`: `repel report`'s page of the cluster the server holds, kept current.
//!
//! The page is [`repel_report::html::page_with`] of the model [`repel_report::build`] computes
//! from the store's objects (the same model and page `repel report` writes), with a short
//! script that polls `/ui/model.json` every second and reloads the page when the model changed
//! (its `digest`; the store's resourceVersion moves with every Lease and Event, the model only
//! when something it shows does): a `kubectl taint nodes …` shows within about a second. Polling, not a
//! watch: the page stays the plain file `repel report` writes, and the model is computed at most
//! once per resourceVersion (cached here). Read-only; behind the same token and TLS as the API
//! (the request passes [`crate::dispatch`]'s authentication first).
//!
//! Under `serve --scenario` the model also holds the scenario's timeline as far as it has
//! played ([`crate::scenario::PlayedTimeline`], which the scenario's driver publishes from its
//! simulation's events and steps through [`repel_report::timeline::entries_of`], as `repel
//! report --scenario` does for the finished run): the timeline grows as the scenario plays, and
//! stays when the scenario has ended.

use std::sync::Arc;

use axum::response::{IntoResponse, Response};
use repel_core::pools::Pool;
use repel_engine::load::ClusterInput;
use repel_report::Report;
use serde_json::Value;

use crate::App;
use crate::request::json_reply;
use crate::view::{typed, workload};

/// The script `/ui/` adds to the page: poll the model's resourceVersion, reload when it moved.
const POLL: &str = r#"
<script>
(function () {
  var digest = document.body.getAttribute("data-model-digest");
  setInterval(function () {
    fetch("/ui/model.json").then(function (r) { return r.json(); }).then(function (m) {
      if (m.digest !== digest) location.reload();
    }).catch(function () {});
  }, 1000);
})();
document.body.setAttribute("data-live", "true");
</script>"#;

/// The last model computed per store (keyed by its address): its resourceVersion and how much
/// of the scenario's timeline it holds, and the model with its digest.
/// A model `/ui/` computed: the store's resourceVersion and the timeline's counts it was
/// computed at, and the model with its digest.
pub type Cached = ((u64, (usize, usize)), Arc<(Report, String)>);

/// The store's objects as the report reads a cluster.
pub fn cluster_input(app: &App) -> ClusterInput {
    let list = |r: &str| app.store.list(r, None).0;
    let mut input = ClusterInput {
        nodes: list("nodes").iter().filter_map(typed).collect(),
        pods: list("pods").iter().filter_map(typed).collect(),
        namespaces: list("namespaces").iter().filter_map(typed).collect(),
        pdbs: list("poddisruptionbudgets")
            .iter()
            .filter_map(typed)
            .collect(),
        priority_classes: list("priorityclasses").iter().filter_map(typed).collect(),
        ..Default::default()
    };
    for resource in [
        "deployments",
        "replicasets",
        "replicationcontrollers",
        "statefulsets",
        "daemonsets",
        "jobs",
        "cronjobs",
    ] {
        input
            .workloads
            .extend(list(resource).iter().filter_map(|v| workload(resource, v)));
    }
    let pools: Vec<Pool> = list("nodepools")
        .iter()
        .filter_map(|v| repel_core::pools::karpenter_pool(v).ok())
        .collect();
    input.pools = pools;
    input
}

/// A digest of what the page shows: the model without its compute time.
fn digest(report: &Report) -> String {
    use std::hash::{Hash, Hasher};
    let mut r = report.clone();
    r.summary.compute_seconds = 0.0;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(&r).unwrap_or_default().hash(&mut h);
    format!("{:016x}", h.finish())
}

/// The model of the store as it is now, with its digest (cached per resourceVersion).
pub fn model(app: &App) -> (u64, Arc<(Report, String)>) {
    let rv = app.store.resource_version();
    let timeline = app
        .scenario_timeline
        .lock()
        .map(|t| t.clone())
        .unwrap_or_else(|e| e.into_inner().clone());
    let version = (rv, timeline.as_ref().map(|t| t.seen).unwrap_or_default());
    if let Ok(cache) = app.ui_model.lock()
        && let Some((v, r)) = cache.as_ref()
        && *v == version
    {
        return (rv, r.clone());
    }
    let opts = repel_report::Options {
        now_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
            .unwrap_or(0),
        source: format!("repel serve at {}", app.address),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let mut report = repel_report::build(cluster_input(app), &opts);
    if let Some(t) = timeline {
        report.timeline = t.entries.clone();
        report.timeline_end = Some(t.end);
    }
    report.summary.compute_seconds = started.elapsed().as_secs_f64();
    let d = digest(&report);
    let report = Arc::new((report, d));
    if let Ok(mut cache) = app.ui_model.lock() {
        *cache = Some((version, report.clone()));
    }
    (rv, report)
}

/// `GET /ui/`: the page.
pub async fn page(app: Arc<App>) -> Response {
    let Ok((rv, report)) = tokio::task::spawn_blocking(move || model(&app)).await else {
        return json_reply(500, &serde_json::json!({"message": "the report failed"}));
    };
    let (report, digest) = &*report;
    let page = repel_report::html::page_with(report, POLL).replacen(
        "<body data-ready=\"false\">",
        &format!(
            "<body data-ready=\"false\" data-resource-version=\"{rv}\" data-model-digest=\"{digest}\">"
        ),
        1,
    );
    (
        [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
        page,
    )
        .into_response()
}

/// `GET /ui/model.json`: the model (`repel report -o json`'s) with the store's
/// `resourceVersion` it reflects and its `digest`.
pub async fn model_json(app: Arc<App>) -> Response {
    let Ok((rv, report)) = tokio::task::spawn_blocking(move || model(&app)).await else {
        return json_reply(500, &serde_json::json!({"message": "the report failed"}));
    };
    let (report, digest) = &*report;
    let mut v = serde_json::to_value(repel_report::JsonReport::new(report)).unwrap_or_default();
    if let Value::Object(m) = &mut v {
        m.insert("resourceVersion".to_string(), Value::from(rv));
        m.insert("digest".to_string(), Value::from(digest.clone()));
    }
    json_reply(200, &v)
}
