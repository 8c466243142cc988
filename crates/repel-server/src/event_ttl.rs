//! kube-apiserver's `--event-ttl`: Events expire.
//!
//! kube-apiserver stores each Event with a lease of `--event-ttl` (1 h by default), renewed by
//! every write of it, so an Event no one writes again is gone an hour after its last write.
//! Without it a store that runs for long (or restarts a scheduler that records a
//! `FailedScheduling` for every pending pod each time) holds every Event ever recorded.
//!
//! repel's TTL is in cluster time, as the rest of `repel serve`'s clock: `ttl` cluster seconds
//! are `ttl / --time-scale` wall-clock seconds. An Event's last write is the latest of its
//! `lastTimestamp`, `eventTime`, `series.lastObservedTime` and `metadata.creationTimestamp`
//! (what the recorders and clients stamp on each write). A sweep every tenth of the TTL (at
//! least every 50 ms, at most every 10 s) deletes the expired ones, each a `DELETED` to watchers
//! as etcd's lease expiry is, a thousand to a transaction. With a data directory the store
//! finds them through its index of Events by last write, reading no other Event
//! ([`Store::expired_events`]), and a restart purges those that expired while it was down
//! before it serves ([`Store::purge_expired_events`]).

use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

use crate::store::{Op, Store};

/// kube-apiserver's default `--event-ttl`.
pub const DEFAULT_EVENT_TTL: Duration = Duration::from_secs(3600);

/// The resources that hold Events (core/v1 and events.k8s.io/v1 share one store).
const EVENTS: &str = "events";

/// When an Event was last written, as it says.
pub fn last_write(ev: &Value) -> Option<Timestamp> {
    [
        &ev["lastTimestamp"],
        &ev["eventTime"],
        &ev["series"]["lastObservedTime"],
        &ev["metadata"]["creationTimestamp"],
    ]
    .into_iter()
    .filter_map(|v| v.as_str().and_then(crate::time::parse))
    .max()
}

/// Whether an Event last written at `last` has outlived `ttl` (wall clock) at `now`.
pub fn expired(last: Timestamp, now: Timestamp, ttl: Duration) -> bool {
    let ttl = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
    now.as_millisecond().saturating_sub(last.as_millisecond()) > ttl
}

/// The wall-clock TTL of `ttl` cluster time at `time_scale` cluster seconds per wall second.
pub fn wall_ttl(ttl: Duration, time_scale: f64) -> Duration {
    let scale = if time_scale.is_finite() && time_scale > 0.0 {
        time_scale
    } else {
        1.0
    };
    Duration::try_from_secs_f64(ttl.as_secs_f64() / scale).unwrap_or(Duration::MAX)
}

/// How many expired Events one transaction deletes.
const SWEEP_BATCH: usize = 1000;

/// Deletes the Events of `store` that have outlived `ttl` (wall clock) at `now`; returns how
/// many. An Event without any timestamp is kept.
pub fn sweep(store: &Store, now: Timestamp, ttl: Duration) -> usize {
    let mut gone = 0;
    loop {
        let keys = store.expired_events(now, ttl, SWEEP_BATCH);
        let n = keys.len();
        let before = store.resource_version();
        let ops = keys
            .into_iter()
            .map(|(ns, name)| (EVENTS.to_string(), Op::Delete(String::new(), ns, name)))
            .collect();
        if n == 0 || store.write_batch(ops).is_err() {
            break;
        }
        let deleted = store.resource_version().saturating_sub(before);
        gone += usize::try_from(deleted).unwrap_or(n);
        // A short batch was the last; a batch that deleted nothing will not do better.
        if n < SWEEP_BATCH || deleted == 0 {
            break;
        }
    }
    gone
}

/// Sweeps `store` for ever, every tenth of `ttl` (wall clock; 50 ms to 10 s).
pub async fn run(store: std::sync::Arc<Store>, ttl: Duration) {
    let period = (ttl / 10).clamp(Duration::from_millis(50), Duration::from_secs(10));
    loop {
        tokio::time::sleep(period).await;
        sweep(&store, crate::time::now(), ttl);
    }
}

#[cfg(test)]
mod tests;
