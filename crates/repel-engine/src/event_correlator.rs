//! What upstream's event recorders (client-go `tools/record`, `EventCorrelator`) do to the
//! events a controller records before they reach the API server: a spam filter, aggregation
//! of similar events and counting of repeated ones. `repel serve` records the control plane's
//! events through it, as kube-controller-manager and the kubelet do (the scheduler records
//! through the newer events API, which has none of this: its events are written as they come).
//!
//! Upstream's rules and numbers (`events_cache.go`):
//! - **spam filter**: a token bucket per source and object (component, involved object's kind,
//!   namespace, name, uid, apiVersion), burst 25, refilled at one event per 300 s; an event
//!   finding it empty is dropped;
//! - **aggregation**: events differing only in their message (same source, object, type and
//!   reason) within 600 s of the previous one: once 10 distinct messages are seen, each further
//!   one becomes a single event, `(combined from similar events): <message>`, counted;
//! - **counting**: an event identical to one recorded (the same key, message included)
//!   increments that event's `count` and `lastTimestamp` instead of creating a new object.
//!
//! Each cache holds at most 4,096 keys, least recently used first out (upstream's LRU size).

use std::collections::HashSet;
use std::num::NonZeroUsize;

use lru::LruCache;

use crate::clock::Millis;

/// Upstream's `maxLruCacheEntries`.
pub const CACHE_ENTRIES: usize = 4096;
/// Upstream's `defaultAggregateMaxEvents`.
pub const AGGREGATE_MAX_EVENTS: usize = 10;
/// Upstream's `defaultAggregateIntervalInSeconds`, in ms.
pub const AGGREGATE_INTERVAL_MS: Millis = 600_000;
/// Upstream's `defaultSpamBurst`.
pub const SPAM_BURST: f64 = 25.0;
/// Upstream's `defaultSpamQPS` is one event per this many ms.
pub const SPAM_REFILL_MS: f64 = 300_000.0;
/// The prefix of an aggregated event's message (`EventAggregatorByReasonMessageFunc`).
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";

/// An event as a recorder sees it.
#[derive(Debug, Clone, Copy)]
pub struct Recording<'a> {
    /// `source.component`.
    pub component: &'a str,
    /// The involved object's kind, namespace (empty when cluster-scoped), name, uid and
    /// apiVersion.
    pub kind: &'a str,
    /// See `kind`.
    pub namespace: &'a str,
    /// See `kind`.
    pub name: &'a str,
    /// See `kind`.
    pub uid: &'a str,
    /// See `kind`.
    pub api_version: &'a str,
    /// `Normal` or `Warning`.
    pub type_: &'a str,
    /// The reason.
    pub reason: &'a str,
    /// The message.
    pub message: &'a str,
}

/// What to write for a recorded event (upstream's `EventCorrelateResult`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Correlation {
    /// Nothing: the spam filter dropped it.
    Skip,
    /// A new Event object with this message and `count` 1; tell [`Correlator::created`] its
    /// name under `key`.
    Create {
        /// The message to write (the event's own, or the combined one).
        message: String,
        /// The key to report the new object's name under.
        key: String,
    },
    /// The existing Event object `name`: its `count`, `lastTimestamp` and message.
    Update {
        /// The stored event's name.
        name: String,
        /// Its new count.
        count: u32,
        /// Its message now.
        message: String,
    },
}

#[derive(Debug, Clone)]
struct Bucket {
    tokens: f64,
    at: Millis,
}

#[derive(Debug, Clone, Default)]
struct Aggregate {
    messages: HashSet<String>,
    last: Option<Millis>,
}

#[derive(Debug, Clone)]
struct Logged {
    name: String,
    count: u32,
}

/// The correlator of one recorder.
#[derive(Debug)]
pub struct Correlator {
    spam: LruCache<String, Bucket>,
    aggregates: LruCache<String, Aggregate>,
    logged: LruCache<String, Logged>,
}

impl Default for Correlator {
    fn default() -> Self {
        let size = NonZeroUsize::new(CACHE_ENTRIES).unwrap_or(NonZeroUsize::MIN);
        Correlator {
            spam: LruCache::new(size),
            aggregates: LruCache::new(size),
            logged: LruCache::new(size),
        }
    }
}

impl Correlator {
    /// A correlator with empty caches.
    pub fn new() -> Self {
        Correlator::default()
    }

    /// Correlates event `e` recorded at `now`.
    pub fn record(&mut self, e: &Recording<'_>, now: Millis) -> Correlation {
        let source_object = [
            e.component,
            e.kind,
            e.namespace,
            e.name,
            e.uid,
            e.api_version,
        ]
        .join("\u{0}");
        // The spam filter: a full bucket for a new source and object.
        let bucket = self
            .spam
            .get_or_insert_mut(source_object.clone(), || Bucket {
                tokens: SPAM_BURST,
                at: now,
            });
        let elapsed = now.saturating_sub(bucket.at).max(0) as f64;
        bucket.tokens = (bucket.tokens + elapsed / SPAM_REFILL_MS).min(SPAM_BURST);
        bucket.at = bucket.at.max(now);
        if bucket.tokens < 1.0 {
            return Correlation::Skip;
        }
        bucket.tokens -= 1.0;
        // Aggregation of events differing only in their message.
        let aggregate_key = [source_object.as_str(), e.type_, e.reason].join("\u{0}");
        let record = self
            .aggregates
            .get_or_insert_mut(aggregate_key.clone(), Aggregate::default);
        if record
            .last
            .is_none_or(|last| now.saturating_sub(last) > AGGREGATE_INTERVAL_MS)
        {
            record.messages.clear();
        }
        record.messages.insert(e.message.to_string());
        record.last = Some(now);
        let (key, message) = if record.messages.len() < AGGREGATE_MAX_EVENTS {
            (
                [aggregate_key.as_str(), e.message].join("\u{0}"),
                e.message.to_string(),
            )
        } else {
            // Upstream's set never grows past its maximum: one message leaves.
            if let Some(any) = record.messages.iter().next().cloned() {
                record.messages.remove(&any);
            }
            (aggregate_key, format!("{COMBINED_PREFIX}{}", e.message))
        };
        // Counting: the same event again updates the one recorded.
        match self.logged.get_mut(&key) {
            Some(l) => {
                l.count = l.count.saturating_add(1);
                Correlation::Update {
                    name: l.name.clone(),
                    count: l.count,
                    message,
                }
            }
            None => Correlation::Create { message, key },
        }
    }

    /// Notes the name of the Event object written for an [`Correlation::Create`].
    pub fn created(&mut self, key: String, name: String) {
        self.logged.put(key, Logged { name, count: 1 });
    }
}

#[cfg(test)]
mod tests;
