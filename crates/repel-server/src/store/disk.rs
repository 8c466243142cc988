//! The redb file: its tables, the objects kept there only (Events), and the Events' expiry
//! index.
//!
//! With a data directory, Events are not held in memory and not read at open: a restart reads
//! the objects the control plane needs, and an Event is decoded when a request reads it. The
//! store's lists, gets, watches and writes read Events from redb under the same
//! resourceVersion as everything else (a read transaction begun under the store's lock sees
//! exactly the writes up to the store's resourceVersion). The `event_expiry` table orders the
//! Events by their last write, so the `--event-ttl` sweep and the purge at open read only the
//! expired ones.

use redb::{ReadTransaction, ReadableTable, Table, TableDefinition};
use serde::Deserialize;

use super::{StoreError, Stored, storage_err};

/// Every object, by `resource|namespace/name`, as JSON.
pub(super) const OBJECTS: TableDefinition<&str, &[u8]> = TableDefinition::new("objects");
/// The resourceVersion, and which indexes the file holds.
pub(super) const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
/// Events by their last write (Unix milliseconds) and `events|namespace/name`.
pub(super) const EVENT_EXPIRY: TableDefinition<(i64, &str), ()> =
    TableDefinition::new("event_expiry");
/// The META key of the resourceVersion.
pub(super) const RV_KEY: &str = "resourceVersion";
/// The META key saying `event_expiry` holds every stored Event (a file written before the
/// index existed gets it built once at open).
pub(super) const EXPIRY_INDEX_KEY: &str = "eventExpiryIndex";

/// The resource kept on disk only, when the store has a file.
pub const ON_DISK: &str = "events";

/// The redb key of an object.
pub(super) fn db_key(resource: &str, k: &str) -> String {
    format!("{resource}|{k}")
}

/// The timestamps [`crate::event_ttl::last_write`] reads, decoded without the rest.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stamps {
    #[serde(default)]
    last_timestamp: Option<String>,
    #[serde(default)]
    event_time: Option<String>,
    #[serde(default)]
    series: Option<SeriesStamp>,
    #[serde(default)]
    metadata: Option<MetaStamp>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SeriesStamp {
    #[serde(default)]
    last_observed_time: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MetaStamp {
    #[serde(default)]
    creation_timestamp: Option<String>,
}

/// An Event's last write (Unix milliseconds) from its stored JSON, as
/// [`crate::event_ttl::last_write`] reads it from the object.
pub(super) fn last_write_ms(bytes: &[u8]) -> Option<i64> {
    let s: Stamps = serde_json::from_slice(bytes).ok()?;
    [
        s.last_timestamp,
        s.event_time,
        s.series.and_then(|x| x.last_observed_time),
        s.metadata.and_then(|m| m.creation_timestamp),
    ]
    .into_iter()
    .flatten()
    .filter_map(|t| crate::time::parse(&t))
    .max()
    .map(|t| t.as_millisecond())
}

/// Moves an Event's entry in the expiry index from its old stored JSON to its new one
/// (`None`: absent before, or deleted).
pub(super) fn reindex(
    x: &mut Table<(i64, &str), ()>,
    dk: &str,
    old: Option<&[u8]>,
    new: Option<&[u8]>,
) -> Result<(), StoreError> {
    if let Some(ms) = old.and_then(last_write_ms) {
        x.remove((ms, dk)).map_err(storage_err)?;
    }
    if let Some(ms) = new.and_then(last_write_ms) {
        x.insert((ms, dk), ()).map_err(storage_err)?;
    }
    Ok(())
}

/// Builds the expiry index of every stored Event (a file from before the index).
pub(super) fn build_expiry_index(w: &redb::WriteTransaction) -> Result<(), StoreError> {
    let t = w.open_table(OBJECTS).map_err(storage_err)?;
    let mut x = w.open_table(EVENT_EXPIRY).map_err(storage_err)?;
    let prefix = db_key(ON_DISK, "");
    for entry in t.range(prefix.as_str()..).map_err(storage_err)? {
        let (k, v) = entry.map_err(storage_err)?;
        let k = k.value();
        if !k.starts_with(&prefix) {
            break;
        }
        if let Some(ms) = last_write_ms(v.value()) {
            x.insert((ms, k), ()).map_err(storage_err)?;
        }
    }
    Ok(())
}

/// One stored object of `resource`, as its text.
pub(super) fn get(
    r: &ReadTransaction,
    resource: &str,
    k: &str,
) -> Result<Option<Stored>, StoreError> {
    let t = r.open_table(OBJECTS).map_err(storage_err)?;
    let Some(v) = t.get(db_key(resource, k).as_str()).map_err(storage_err)? else {
        return Ok(None);
    };
    Stored::from_bytes(v.value()).map(Some)
}

/// The stored objects of `resource` (in `namespace` when given) with their keys, in key order
/// (the order the in-memory maps keep), as their text.
pub(super) fn scan(
    r: &ReadTransaction,
    resource: &str,
    namespace: Option<&str>,
) -> Result<Vec<(String, Stored)>, StoreError> {
    let t = r.open_table(OBJECTS).map_err(storage_err)?;
    let prefix = match namespace {
        Some(ns) => db_key(resource, &format!("{ns}/")),
        None => db_key(resource, ""),
    };
    let skip = resource.len() + 1;
    let mut out = Vec::new();
    for entry in t.range(prefix.as_str()..).map_err(storage_err)? {
        let (k, v) = entry.map_err(storage_err)?;
        let k = k.value();
        if !k.starts_with(&prefix) {
            break;
        }
        out.push((k[skip..].to_string(), Stored::from_bytes(v.value())?));
    }
    Ok(out)
}

/// Whether any object of `resource` is stored.
pub(super) fn any(r: &ReadTransaction, resource: &str) -> Result<bool, StoreError> {
    let t = r.open_table(OBJECTS).map_err(storage_err)?;
    let prefix = db_key(resource, "");
    let mut it = t.range(prefix.as_str()..).map_err(storage_err)?;
    match it.next() {
        Some(entry) => {
            let (k, _) = entry.map_err(storage_err)?;
            Ok(k.value().starts_with(&prefix))
        }
        None => Ok(false),
    }
}

/// The keys (`namespace/name`) of the Events last written before `cutoff_ms`, oldest first, at
/// most `limit`.
pub(super) fn expired(
    r: &ReadTransaction,
    cutoff_ms: i64,
    limit: usize,
) -> Result<Vec<String>, StoreError> {
    let x = r.open_table(EVENT_EXPIRY).map_err(storage_err)?;
    let skip = ON_DISK.len() + 1;
    let mut out = Vec::new();
    for entry in x.range(..(cutoff_ms, "")).map_err(storage_err)? {
        let (k, _) = entry.map_err(storage_err)?;
        let (_, dk) = k.value();
        out.push(dk.get(skip..).unwrap_or("").to_string());
        if out.len() >= limit {
            break;
        }
    }
    Ok(out)
}
