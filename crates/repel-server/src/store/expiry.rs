//! The Events' time to live (`--event-ttl`): which Events outlived it, and their purge at
//! open (the sweep that deletes them while serving is [`crate::event_ttl`]).

use redb::ReadableDatabase;

use super::disk::{self, EVENT_EXPIRY, META, OBJECTS, RV_KEY, db_key};
use super::{ON_DISK, Store, StoreError, storage_err};

/// The Unix millisecond before which an Event's last write has outlived `ttl` at `now` (as
/// [`crate::event_ttl::expired`] judges).
fn cutoff_ms(now: k8s_openapi::jiff::Timestamp, ttl: std::time::Duration) -> i64 {
    let ttl = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
    now.as_millisecond().saturating_sub(ttl)
}

impl Store {
    /// The Events that outlived `ttl` (wall clock) at `now`, deleted from the file with one
    /// resourceVersion and no watch event each: for the start, before anyone watches (a watch
    /// from an older resourceVersion is then 410 Gone, so a client lists again and sees them
    /// gone). Reads only the expired Events' index entries, not the Events. Returns how many;
    /// 0 without a file (the sweep, [`crate::event_ttl`], deletes those).
    pub fn purge_expired_events(
        &self,
        now: k8s_openapi::jiff::Timestamp,
        ttl: std::time::Duration,
    ) -> Result<usize, StoreError> {
        let mut guard = self.lock();
        let g = &mut *guard;
        let Some(db) = &g.db else {
            return Ok(0);
        };
        let cutoff = cutoff_ms(now, ttl);
        let mut purged = 0;
        loop {
            let keys = disk::expired(&db.begin_read().map_err(storage_err)?, cutoff, 50_000)?;
            if keys.is_empty() {
                break;
            }
            let rv = g.rv + 1;
            let w = db.begin_write().map_err(storage_err)?;
            {
                let mut t = w.open_table(OBJECTS).map_err(storage_err)?;
                let mut x = w.open_table(EVENT_EXPIRY).map_err(storage_err)?;
                for k in &keys {
                    let dk = db_key(ON_DISK, k);
                    let old = t.remove(dk.as_str()).map_err(storage_err)?;
                    let old = old.as_ref().map(|v| v.value());
                    disk::reindex(&mut x, &dk, old, None)?;
                }
                let mut m = w.open_table(META).map_err(storage_err)?;
                m.insert(RV_KEY, rv).map_err(storage_err)?;
            }
            w.commit().map_err(storage_err)?;
            purged += keys.len();
            g.rv = rv;
            g.history.clear();
            g.oldest = rv;
        }
        Ok(purged)
    }

    /// The keys (`namespace/name`) of up to `limit` Events that outlived `ttl` (wall clock) at
    /// `now`, oldest first: from the file's index, reading no Event; without a file, from
    /// the Events held.
    pub fn expired_events(
        &self,
        now: k8s_openapi::jiff::Timestamp,
        ttl: std::time::Duration,
        limit: usize,
    ) -> Vec<(String, String)> {
        let g = self.lock();
        let split = |k: &str| {
            let (ns, name) = k.split_once('/').unwrap_or(("", k));
            (ns.to_string(), name.to_string())
        };
        if let Some(db) = &g.db {
            let cutoff = cutoff_ms(now, ttl);
            return match db.begin_read().map_err(storage_err) {
                Ok(r) => disk::expired(&r, cutoff, limit).unwrap_or_default(),
                Err(_) => Vec::new(),
            }
            .iter()
            .map(|k| split(k))
            .collect();
        }
        let cutoff = cutoff_ms(now, ttl);
        g.objects
            .get(ON_DISK)
            .into_iter()
            .flat_map(|m| m.iter())
            .filter(|(_, ev)| {
                disk::last_write_ms(ev.json().as_bytes()).is_some_and(|last| last < cutoff)
            })
            .take(limit)
            .map(|(k, _)| split(k))
            .collect()
    }
}
