//! Watch: a chunked stream of newline-delimited events (`ADDED`, `MODIFIED`, `DELETED`,
//! `BOOKMARK`), resumable from a resourceVersion, `410 Gone` when that version is older than
//! the store's history. With `as=Table` each event's object is a one-row Table, as
//! `kubectl get -w` asks.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::SinkExt;
use futures::channel::mpsc;
use repel_api::status;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use crate::App;
use crate::api::{Selectors, table};
use crate::registry::ApiResource;
use crate::request::ApiError;
use crate::store::{EventType, Stored, WatchEvent};

/// How often a watch with `allowWatchBookmarks=true` gets a BOOKMARK, and how often an idle
/// watch checks that its client is still there.
const TICK: Duration = Duration::from_secs(1);

/// Default `timeoutSeconds` when the client sets none (upstream picks 30–60 min at random).
const DEFAULT_TIMEOUT: u64 = 1800;

/// One event's line, written from the object's stored text as it is (no object decoded): the
/// bytes [`line`] writes.
fn raw_line(kind: &str, object: &Stored) -> Bytes {
    let mut s = Vec::with_capacity(object.json().len() + 32);
    s.extend_from_slice(b"{\"type\":");
    // A kind is one of the fixed words.
    s.extend_from_slice(serde_json::to_string(kind).unwrap_or_default().as_bytes());
    s.extend_from_slice(b",\"object\":");
    s.extend_from_slice(object.json().as_bytes());
    s.extend_from_slice(b"}\n");
    Bytes::from(s)
}

/// One event's line, written from the object as it is (no copy of it).
fn line(kind: &str, object: &Value) -> Bytes {
    #[derive(serde::Serialize)]
    struct Line<'a> {
        #[serde(rename = "type")]
        kind: &'a str,
        object: &'a Value,
    }
    // Serialising a JSON value cannot fail.
    let mut s = serde_json::to_vec(&Line { kind, object }).unwrap_or_default();
    s.push(b'\n');
    Bytes::from(s)
}

/// Starts a watch on `r` (in `ns` when given).
pub fn watch(
    app: Arc<App>,
    r: Arc<ApiResource>,
    ns: Option<String>,
    query: &HashMap<String, String>,
    opts: &crate::query::ListOptions,
    as_table: bool,
) -> Result<Response, ApiError> {
    let sel = Selectors::parse(&r, query)?;
    let include = if as_table {
        crate::api::include_object(query)?
    } else {
        repel_api::table::IncludeObject::default()
    };
    // Upstream: none or 0 is the server's default; a negative timeout has already expired,
    // so the watch ends at once (after nothing).
    let timeout = match opts.timeout_seconds {
        None | Some(0) => DEFAULT_TIMEOUT,
        Some(t) => u64::try_from(t).unwrap_or(0),
    };
    let bookmarks = query
        .get("allowWatchBookmarks")
        .is_some_and(|b| crate::query::query_bool(b));
    // Without a namespace or selector every object is in the watch, and none is decoded.
    let filtered = ns.is_some() || !sel.is_empty();
    let matches = move |obj: &Value| {
        let in_scope = match &ns {
            None => true,
            Some(n) => obj["metadata"]["namespace"].as_str() == Some(n.as_str()),
        };
        in_scope && sel.matches(obj)
    };
    let filter = Filter {
        on: filtered,
        matches,
    };
    let (initial, mut rx) = match Some(opts.resource_version.as_str()) {
        None | Some("") | Some("0") => {
            let (items, _, rx) = app.store.watch_snapshot(r.key());
            let evs: Vec<(EventType, Stored)> = items
                .into_iter()
                .filter(|o| filter.accepts(o))
                .map(|o| (EventType::Added, o))
                .collect();
            (evs, rx)
        }
        Some(rv) => {
            let since: u64 = rv.parse().map_err(|_| {
                ApiError::from(status::bad_request(&format!(
                    "invalid resource version: {rv}"
                )))
            })?;
            let (past, rx) = app.store.watch_from(since).map_err(|oldest| {
                ApiError::from(status::too_old_resource_version(since, oldest))
            })?;
            let evs = past
                .into_iter()
                .filter(|e| e.resource == r.key())
                .filter_map(|e| selected(&e, &filter))
                .collect();
            (evs, rx)
        }
    };
    let key = r.key().to_string();
    let (bookmark_kind, bookmark_version) = (r.kind.clone(), r.api_version());
    // The event's line: the object as the request's version shows it (a custom object's
    // apiVersion), as a one-row Table when asked; a built-in object is sent as stored, as its
    // text.
    let render = move |kind: EventType, obj: &Stored| -> Bytes {
        if !r.is_custom() && !as_table {
            return raw_line(kind.as_str(), obj);
        }
        let mut obj = obj.decode();
        if r.is_custom() {
            obj = crate::api::at_version(&r, obj);
        }
        if as_table {
            let rv = obj["metadata"]["resourceVersion"]
                .as_str()
                .unwrap_or("")
                .to_string();
            obj = table(&r, &[&obj], &rv, include);
        }
        line(kind.as_str(), &obj)
    };
    let (mut tx, body_rx) = mpsc::channel::<Result<Bytes, Infallible>>(256);
    let store = app.store.clone();
    tokio::spawn(async move {
        if timeout == 0 {
            return;
        }
        for (kind, obj) in initial {
            if tx.send(Ok(render(kind, &obj))).await.is_err() {
                return;
            }
        }
        let deadline = tokio::time::sleep(Duration::from_secs(timeout));
        tokio::pin!(deadline);
        let mut tick = tokio::time::interval(TICK);
        tick.tick().await;
        loop {
            tokio::select! {
                ev = rx.recv() => match ev {
                    Ok(ev) => {
                        if ev.resource != key {
                            continue;
                        }
                        let Some((kind, obj)) = selected(&ev, &filter) else {
                            continue;
                        };
                        if tx.send(Ok(render(kind, &obj))).await.is_err() {
                            return;
                        }
                    }
                    // A watcher too slow to keep up ends; the client lists and watches again.
                    Err(RecvError::Lagged(_)) | Err(RecvError::Closed) => return,
                },
                _ = tick.tick() => {
                    if tx.is_closed() {
                        return;
                    }
                    if bookmarks {
                        let rv = store.resource_version().to_string();
                        let b = json!({"kind": bookmark_kind, "apiVersion": bookmark_version, "metadata": {"resourceVersion": rv}});
                        if tx.send(Ok(line("BOOKMARK", &b))).await.is_err() {
                            return;
                        }
                    }
                }
                _ = &mut deadline => return,
            }
        }
    });
    let mut resp = (StatusCode::OK, Body::from_stream(body_rx)).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(resp)
}

/// Which objects a watch sees: all of them (`on` false: no object is decoded to tell), or
/// those `matches` accepts.
struct Filter<F> {
    on: bool,
    matches: F,
}

impl<F: Fn(&Value) -> bool> Filter<F> {
    fn accepts(&self, obj: &Stored) -> bool {
        !self.on || (self.matches)(&obj.decode())
    }
}

/// What a watch with a selection sees of a change (upstream's cacher): a modification that
/// moves the object into the selection is ADDED, out of it DELETED; changes outside it are
/// not seen.
fn selected<F: Fn(&Value) -> bool>(
    ev: &WatchEvent,
    filter: &Filter<F>,
) -> Option<(EventType, Stored)> {
    let now = filter.accepts(&ev.object);
    let kind = match ev.kind {
        EventType::Added | EventType::Deleted => now.then_some(ev.kind)?,
        EventType::Modified => {
            let before = ev.prev.as_ref().is_some_and(|p| filter.accepts(p));
            match (before, now) {
                (true, true) => EventType::Modified,
                (false, true) => EventType::Added,
                (true, false) => EventType::Deleted,
                (false, false) => return None,
            }
        }
    };
    Some((kind, ev.object.clone()))
}

#[cfg(test)]
mod tests;
