//! Requests to `repel serve`, in process: [`repel_server::router`] over a fresh in-memory store
//! (a node, pods, a Deployment, a PodDisruptionBudget; no engine running), driven with tower's
//! `oneshot` on a current-thread runtime. The input is up to four requests separated by a line
//! `=====`, each written as on the wire:
//!
//! ```text
//! PATCH /api/v1/nodes/node1?fieldValidation=Strict
//! Content-Type: application/strategic-merge-patch+json
//!
//! {"spec":{"unschedulable":true}}
//! ```
//!
//! A request hyper would refuse before the router sees it (an invalid method, URI or header
//! name or value) is skipped; a header line without `:` is dropped. The response body is read
//! as far as it is ready: a watch streams its first events and is then dropped.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Method, Request, Uri};
use futures::{FutureExt, StreamExt};
use repel_server::{Admission, App, Store, kubelet, router};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tower::ServiceExt;

/// The line between two requests of one input.
const SEPARATOR: &[u8] = b"\n=====\n";
/// Requests read from one input.
const MAX_REQUESTS: usize = 4;
/// Response bytes read per request (a list of the seeded store is a few kB).
const MAX_BODY: usize = 1 << 20;
/// Times the body is polled when not ready, with a yield to the runtime between.
const MAX_PENDING: usize = 3;

/// The target body.
pub fn run(data: &[u8]) {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    else {
        return;
    };
    let app = Arc::new(App {
        store: Arc::new(Store::in_memory()),
        admission: Admission::default(),
        token: None,
        address: "127.0.0.1:6443".to_string(),
        wake: Notify::new(),
        evictions: Mutex::new(()),
        request_timeout: std::time::Duration::from_secs(1),
        pages: repel_server::paging::Pages::default(),
        registry: Default::default(),
        scenario_playing: Default::default(),
        scenario_end_rv: Default::default(),
        scenario_timeline: Default::default(),
        ui_model: Default::default(),
    });
    if kubelet::seed(&app, &seed()).is_err() {
        return;
    }
    let requests: Vec<Request<Body>> = split(data, SEPARATOR)
        .into_iter()
        .take(MAX_REQUESTS)
        .filter_map(request)
        .collect();
    rt.block_on(async move {
        for req in requests {
            let response = match router(app.clone()).oneshot(req).await {
                Ok(r) => r,
                Err(never) => match never {},
            };
            let mut body = response.into_body().into_data_stream();
            let (mut read, mut pending) = (0, 0);
            while read < MAX_BODY && pending < MAX_PENDING {
                match body.next().now_or_never() {
                    Some(Some(Ok(chunk))) => read += chunk.len(),
                    Some(Some(Err(_)) | None) => break,
                    None => {
                        pending += 1;
                        tokio::task::yield_now().await;
                    }
                }
            }
        }
    });
}

/// One request in wire form: `METHOD TARGET`, header lines, a blank line, the body.
fn request(raw: &[u8]) -> Option<Request<Body>> {
    let (head, body) = match find(raw, b"\n\n") {
        Some(i) => (&raw[..i], &raw[i + 2..]),
        None => (raw, &[][..]),
    };
    let mut lines = head.split(|&b| b == b'\n');
    let first = lines.next()?;
    let (method, target) = match first.iter().position(|&b| b == b' ') {
        Some(i) => (&first[..i], &first[i + 1..]),
        None => (&b"GET"[..], first),
    };
    let method = Method::from_bytes(method).ok()?;
    let uri = Uri::try_from(target).ok()?;
    let mut builder = Request::builder().method(method).uri(uri);
    for line in lines {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let name = HeaderName::from_bytes(&line[..colon]).ok()?;
        let value = HeaderValue::from_bytes(line[colon + 1..].trim_ascii()).ok()?;
        builder = builder.header(name, value);
    }
    builder.body(Body::from(body.to_vec())).ok()
}

fn split<'a>(data: &'a [u8], sep: &[u8]) -> Vec<&'a [u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while let Some(i) = find(rest, sep) {
        parts.push(&rest[..i]);
        rest = &rest[i + sep.len()..];
    }
    parts.push(rest);
    parts
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The starting cluster: a tainted node and a plain one, a bound and a pending pod, a
/// Deployment and a PodDisruptionBudget over its pods.
fn seed() -> Vec<Value> {
    vec![
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": "node1", "labels": {"kubernetes.io/hostname": "node1", "zone": "a"}},
               "spec": {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}}),
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": "node2", "labels": {"kubernetes.io/hostname": "node2", "zone": "b"}}}),
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web"}},
               "spec": {"nodeName": "node2", "containers": [{"name": "app", "image": "nginx"}]}}),
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "pending", "namespace": "team"},
               "spec": {"containers": [{"name": "app", "image": "nginx"}],
                        "tolerations": [{"key": "dedicated", "operator": "Exists"}]}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web", "namespace": "default"},
               "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"app": "web"}},
                                     "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}}),
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
               "metadata": {"name": "web", "namespace": "default"},
               "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}),
    ]
}
