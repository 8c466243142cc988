//! Paged lists (`limit` and `continue`), as kube-apiserver serves them from etcd (`GetList` of
//! `storage/etcd3/store.go`): a page holds up to `limit` objects that match the selectors, in
//! key order (`namespace/name`); when objects remain after the last one read, the page carries
//! a continue token (`{"v":"meta.k8s.io/v1","rv":R,"start":"<last key>\0"}`) and, when the
//! list has no selector, `remainingItemCount`. Every page of a list is read at the first
//! page's resourceVersion, so a list is consistent across pages.
//!
//! repel keeps no history of its objects, so a list that continues holds a snapshot of the
//! resource as it was read (a key and a shared pointer per object). Decision, in place of
//! etcd's compaction: a token can be continued for [`SNAPSHOT_TTL`] (5 minutes, the API
//! server's default `--etcd-compaction-interval`) while its snapshot is among the
//! [`MAX_SNAPSHOTS`] latest; a token at the store's current resourceVersion needs no snapshot.
//! After that it is upstream's 410 `Expired`, whose status carries a token at
//! resourceVersion `-1` that continues from the same key at the latest state.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use repel_api::status;
use serde_json::{Value, json};

use crate::query::{ContinueToken, encode_continue};
use crate::request::ApiError;
use crate::store::{Store, Stored};

/// How long a list can be continued (upstream: until etcd compacts its revision).
pub const SNAPSHOT_TTL: Duration = Duration::from_secs(300);
/// How many lists in progress are kept.
pub const MAX_SNAPSHOTS: usize = 8;

/// Upstream's message for a continue token whose revision is compacted.
pub const INCONSISTENT_CONTINUE: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

type Items = Arc<Vec<(String, Stored)>>;

struct Snapshot {
    resource: String,
    namespace: Option<String>,
    rv: u64,
    taken: Instant,
    items: Items,
}

/// The snapshots of lists in progress.
#[derive(Default)]
pub struct Pages {
    snapshots: Mutex<VecDeque<Snapshot>>,
}

/// One page of a list.
#[derive(Debug)]
pub struct Page {
    /// The objects.
    pub items: Vec<Stored>,
    /// The resourceVersion the list is read at.
    pub rv: u64,
    /// The token for the next page.
    pub continue_token: Option<String>,
    /// How many objects follow the page (only for a list without selectors).
    pub remaining: Option<i64>,
}

impl Page {
    /// The list's `metadata`.
    pub fn metadata(&self) -> Value {
        let mut m = json!({"resourceVersion": self.rv.to_string()});
        if let Some(c) = &self.continue_token {
            m["continue"] = json!(c);
        }
        if let Some(r) = self.remaining {
            m["remainingItemCount"] = json!(r);
        }
        m
    }

    /// The page as a JSON list, its items written as the store holds their text (no object
    /// decoded): the bytes `serde_json` writes for `{"kind", "apiVersion", "metadata",
    /// "items"}`.
    pub fn json(&self, kind: &str, api_version: &str) -> Vec<u8> {
        let head = serde_json::to_vec(&json!({
            "kind": kind,
            "apiVersion": api_version,
            "metadata": self.metadata(),
        }))
        .unwrap_or_default();
        let items: usize = self.items.iter().map(|i| i.json().len() + 1).sum();
        let mut body = Vec::with_capacity(head.len() + 12 + items);
        // `{…}` without its closing brace, then `,"items":[…]}`.
        body.extend_from_slice(&head[..head.len().saturating_sub(1)]);
        body.extend_from_slice(b",\"items\":[");
        for (i, item) in self.items.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            body.extend_from_slice(item.json().as_bytes());
        }
        body.extend_from_slice(b"]}");
        body
    }
}

/// Where the keys of a list start in the store: `ns/` in a namespace, `/` for a cluster-scoped
/// resource (stored as `/name`), nothing across namespaces. A token's start is relative to it.
pub fn key_prefix(namespaced: bool, namespace: Option<&str>) -> String {
    match (namespaced, namespace) {
        (true, Some(ns)) => format!("{ns}/"),
        (true, None) => String::new(),
        (false, _) => "/".to_string(),
    }
}

impl Pages {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Snapshot>> {
        match self.snapshots.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    fn find(&self, resource: &str, namespace: Option<&str>, rv: u64) -> Option<Items> {
        let mut g = self.lock();
        g.retain(|s| s.taken.elapsed() < SNAPSHOT_TTL);
        g.iter()
            .find(|s| s.resource == resource && s.namespace.as_deref() == namespace && s.rv == rv)
            .map(|s| Arc::clone(&s.items))
    }

    fn keep(&self, resource: &str, namespace: Option<&str>, rv: u64, items: &Items) {
        let mut g = self.lock();
        if g.iter()
            .any(|s| s.resource == resource && s.namespace.as_deref() == namespace && s.rv == rv)
        {
            return;
        }
        g.push_back(Snapshot {
            resource: resource.to_string(),
            namespace: namespace.map(str::to_string),
            rv,
            taken: Instant::now(),
            items: Arc::clone(items),
        });
        while g.len() > MAX_SNAPSHOTS {
            g.pop_front();
        }
    }

    /// A page of `resource` (in `namespace` when given): up to `limit` objects (`limit` ≤ 0:
    /// all) that `matches` accepts, from `token`'s key on (the start when `None`).
    /// `selective` says whether a selector filters (then no `remainingItemCount`; without one,
    /// `matches` is not asked and no object is decoded).
    #[allow(clippy::too_many_arguments)]
    pub fn list(
        &self,
        store: &Store,
        resource: &str,
        namespaced: bool,
        namespace: Option<&str>,
        limit: i64,
        token: Option<&ContinueToken>,
        selective: bool,
        matches: impl Fn(&Value) -> bool,
    ) -> Result<Page, ApiError> {
        let prefix = key_prefix(namespaced, namespace);
        // A continuation reads the list's snapshot (also when the store has not moved since:
        // taking a fresh one for every page of a long list would copy every key each time).
        let kept = token
            .filter(|t| t.rv > 0)
            .and_then(|t| self.find(resource, namespace, t.rv as u64));
        let (items, rv): (Items, u64) = match (token, kept) {
            (Some(t), Some(items)) => (items, t.rv as u64),
            (Some(t), None) if t.rv > 0 && t.rv as u64 != store.resource_version() => {
                let (code, mut body) = status::gone(INCONSISTENT_CONTINUE);
                body["metadata"] = json!({"continue": encode_continue(&t.start, -1)});
                return Err(ApiError(code, body));
            }
            _ => {
                let (items, rv) = store.snapshot(resource, namespace);
                (Arc::new(items), rv)
            }
        };
        let from = match token {
            Some(t) => {
                let start = format!("{prefix}{}", t.start);
                items.partition_point(|(k, _)| k.as_str() < start.as_str())
            }
            None => 0,
        };
        let mut page = Vec::new();
        let mut last: Option<&str> = None;
        let mut more = false;
        for (k, v) in &items[from..] {
            if limit > 0 && page.len() as i64 >= limit {
                more = true;
                break;
            }
            last = Some(k);
            // Without a selector every object is in the page, undecoded.
            if !selective || matches(&v.decode()) {
                page.push(v.clone());
            }
        }
        let mut out = Page {
            items: page,
            rv,
            continue_token: None,
            remaining: None,
        };
        if more && let Some(last) = last {
            let start = format!("{}\0", last.strip_prefix(prefix.as_str()).unwrap_or(last));
            out.continue_token = Some(encode_continue(&start, rv as i64));
            if !selective {
                out.remaining = Some((items.len() - from) as i64 - limit);
            }
            self.keep(resource, namespace, rv, &items);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
