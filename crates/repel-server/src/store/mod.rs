//! The object store: every API object as its JSON text ([`Stored`]), a monotonic
//! `resourceVersion`, the watch feed, and (with `--data-dir`) a redb file that each write is
//! committed to before it is acknowledged.
//!
//! One writer at a time (a mutex around [`Inner`]); a write is, in order: checked against the
//! current object, committed to redb (fsync), applied in memory, and published to watchers. So a
//! reply never acknowledges a write that a restart could lose, and the resourceVersion sequence
//! restarts where it stopped (it is stored in the same transaction as the object). The control
//! plane's writes of one pass are committed together ([`Store::group`]), and published only once
//! committed.
//!
//! With a file, Events live in it only ([`disk`]): a restart reads the text of the objects
//! the control plane and the API need at once (nodes, pods, workloads, …) without decoding it,
//! and not the Events, which are read when asked for; the Events that outlived `--event-ttl` are purged at open through an index
//! of their last writes ([`Store::purge_expired_events`]).

mod disk;
mod expiry;
mod group;
mod stored;
mod write;

pub use disk::ON_DISK;
pub use group::{GROUP_MAX, Grouped};
pub use stored::Stored;
use stored::same_but_rv;

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use redb::{Database, ReadTransaction, ReadableDatabase, ReadableTable};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::time;
use disk::{EVENT_EXPIRY, EXPIRY_INDEX_KEY, META, OBJECTS, RV_KEY, db_key};

/// redb's page cache (its default is 1 GiB, which a restart reading every object filled):
/// the objects the store needs are decoded in memory, the Events read from the file go through
/// the operating system's cache.
const CACHE_BYTES: usize = 64 << 20;

/// How many past events a watch can resume from (older resourceVersions get 410 Gone).
pub const HISTORY: usize = 20_000;

/// A watch event's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// The object was created.
    Added,
    /// The object changed.
    Modified,
    /// The object was removed (the event carries its last state).
    Deleted,
}

impl EventType {
    /// The wire name: `ADDED`, `MODIFIED`, `DELETED`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One change, as watchers see it (and the history a watch resumes from keeps it).
#[derive(Debug, Clone)]
pub struct WatchEvent {
    /// What happened.
    pub kind: EventType,
    /// The resource (plural name, e.g. `pods`).
    pub resource: String,
    /// The resourceVersion of this change.
    pub rv: u64,
    /// The object after the change (before it, for a deletion, with the deletion's rv); shared
    /// with the store's copy, not a copy of it.
    pub object: Stored,
    /// The object before a modification (watches with selectors turn a change that moves an
    /// object out of or into their selection into DELETED or ADDED, as upstream's cacher).
    pub prev: Option<Stored>,
}

/// One change, as a change feed ([`Store::list_with_feed`]) delivers it: the watch event
/// itself (the object's text, shared with the store and the history; its reader decodes what it
/// needs of it, so that a pass writing 150,000 pods does not queue 150,000 decoded objects).
pub type Change = WatchEvent;

/// Why a write was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// No such object.
    #[error("not found")]
    NotFound,
    /// An object with that name exists.
    #[error("already exists")]
    AlreadyExists,
    /// The caller's resourceVersion is not the current one.
    #[error("conflict")]
    Conflict,
    /// The disk write failed; nothing was changed.
    #[error("storage: {0}")]
    Storage(String),
}

/// One write in a batch (see [`Store::write_batch`]).
#[derive(Debug, Clone)]
pub enum Op {
    /// Create or replace the object (its namespace/name from its metadata).
    Put(String, Value),
    /// Delete the object if it exists.
    Delete(String, String, String),
}

struct Inner {
    /// Objects by resource, then key; shared, so that a paged list's snapshot costs a pointer
    /// per object. With a file, every resource but [`ON_DISK`] (which is read from the file).
    objects: BTreeMap<String, BTreeMap<String, Stored>>,
    rv: u64,
    history: VecDeque<Arc<WatchEvent>>,
    /// The rv before the oldest event in `history`: a watch from an rv below it is too old.
    oldest: u64,
    db: Option<Database>,
    /// The change feeds ([`Store::list_with_feed`]): every change, unbounded, to a reader that
    /// drains them itself; a feed whose reader is gone is dropped at the next change.
    feeds: Vec<std::sync::mpsc::Sender<Arc<Change>>>,
    /// The writes of a group not yet committed ([`Store::group`]).
    group: Option<group::Group>,
    /// The watchers' channel (the one [`Store`] subscribes them to).
    tx: broadcast::Sender<Arc<WatchEvent>>,
}

/// The store. Cheap to share behind an `Arc`.
pub struct Store {
    inner: Mutex<Inner>,
    tx: broadcast::Sender<Arc<WatchEvent>>,
}

/// The key of an object inside its resource: `namespace/name` (`/name` when cluster-scoped).
pub fn key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

/// `metadata.namespace` and `metadata.name` of an object ("" when missing).
pub fn ns_name(obj: &Value) -> (String, String) {
    let m = &obj["metadata"];
    (
        m["namespace"].as_str().unwrap_or("").to_string(),
        m["name"].as_str().unwrap_or("").to_string(),
    )
}

pub(super) fn storage_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Storage(e.to_string())
}

impl Inner {
    /// Whether `resource` lives in the file only.
    fn on_disk(&self, resource: &str) -> bool {
        self.db.is_some() && resource == ON_DISK
    }

    /// A read transaction of the file: begun under the lock, it sees exactly the writes
    /// committed up to the store's resourceVersion, whenever it is read.
    fn reader(&self) -> Result<ReadTransaction, StoreError> {
        match &self.db {
            Some(db) => db.begin_read().map_err(storage_err),
            None => Err(StoreError::Storage("no data directory".into())),
        }
    }

    /// The stored object, shared (read from the file for a resource kept there).
    fn current(&self, resource: &str, k: &str) -> Result<Option<Stored>, StoreError> {
        if self.on_disk(resource) {
            return disk::get(&self.reader()?, resource, k);
        }
        Ok(self.objects.get(resource).and_then(|m| m.get(k)).cloned())
    }
}

/// The objects of a held map (in `namespace` when given) with their keys, in key order.
fn held_items(
    m: Option<&BTreeMap<String, Stored>>,
    namespace: Option<&str>,
) -> Vec<(String, Stored)> {
    let Some(m) = m else {
        return Vec::new();
    };
    match namespace {
        None => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(ns) => {
            let prefix = format!("{ns}/");
            m.range(prefix.clone()..)
                .take_while(|(k, _)| k.starts_with(&prefix))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        }
    }
}

/// The objects of a resource kept in the file, as a read transaction sees them; a file that
/// cannot be read lists nothing (the write path reports its errors).
fn file_items(
    r: Result<ReadTransaction, StoreError>,
    resource: &str,
    namespace: Option<&str>,
) -> Vec<(String, Stored)> {
    r.and_then(|r| disk::scan(&r, resource, namespace))
        .unwrap_or_default()
}

/// A fresh random-looking UID in UUID v4 form.
pub fn new_uid() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut bytes = [0u8; 16];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        let mut h = RandomState::new().build_hasher();
        h.write_u128(time::now_nanos());
        h.write_usize(i);
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let h: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

impl Store {
    /// An empty store in memory only.
    pub fn in_memory() -> Store {
        Store::with(None, BTreeMap::new(), 0)
    }

    /// Opens (or creates) `dir/repel.redb` and loads every stored object but the Events
    /// (read from the file when asked for).
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(storage_err)?;
        let db = Database::builder()
            .set_cache_size(CACHE_BYTES)
            .create(dir.join("repel.redb"))
            .map_err(storage_err)?;
        let mut objects: BTreeMap<String, BTreeMap<String, Stored>> = BTreeMap::new();
        let mut rv = 0;
        {
            let w = db.begin_write().map_err(storage_err)?;
            w.open_table(OBJECTS).map_err(storage_err)?;
            w.open_table(EVENT_EXPIRY).map_err(storage_err)?;
            let indexed = {
                let m = w.open_table(META).map_err(storage_err)?;
                m.get(EXPIRY_INDEX_KEY).map_err(storage_err)?.is_some()
            };
            if !indexed {
                disk::build_expiry_index(&w)?;
                let mut m = w.open_table(META).map_err(storage_err)?;
                m.insert(EXPIRY_INDEX_KEY, 1).map_err(storage_err)?;
            }
            w.commit().map_err(storage_err)?;
        }
        let r = db.begin_read().map_err(storage_err)?;
        let t = r.open_table(OBJECTS).map_err(storage_err)?;
        // Every key up to the Events', then every key after them: the Events are not read.
        let below = db_key(ON_DISK, "");
        let above = format!("{ON_DISK}}}");
        let head = t.range(..below.as_str()).map_err(storage_err)?;
        let tail = t.range(above.as_str()..).map_err(storage_err)?;
        for entry in head.chain(tail) {
            let (k, v) = entry.map_err(storage_err)?;
            let k = k.value();
            let Some((resource, rest)) = k.split_once('|') else {
                continue;
            };
            // Kept as the text it is (the file holds what [`Stored::encode`] wrote).
            let obj = Stored::from_bytes(v.value())?;
            objects
                .entry(resource.to_string())
                .or_default()
                .insert(rest.to_string(), obj);
        }
        let m = r.open_table(META).map_err(storage_err)?;
        if let Some(v) = m.get(RV_KEY).map_err(storage_err)? {
            rv = v.value();
        }
        drop((t, m, r));
        Ok(Store::with(Some(db), objects, rv))
    }

    fn with(
        db: Option<Database>,
        objects: BTreeMap<String, BTreeMap<String, Stored>>,
        rv: u64,
    ) -> Store {
        let (tx, _) = broadcast::channel(65_536);
        Store {
            inner: Mutex::new(Inner {
                objects,
                rv,
                history: VecDeque::new(),
                oldest: rv,
                db,
                feeds: Vec::new(),
                group: None,
                tx: tx.clone(),
            }),
            tx,
        }
    }

    /// The store's lock. A group of writes another thread is making is committed first
    /// ([`Store::group`]): nobody but its writer sees a write before it is durable.
    fn lock(&self) -> MutexGuard<'_, Inner> {
        let mut g = match self.inner.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        if g.group.as_ref().is_some_and(group::Group::must_flush) {
            // A commit that fails is reported and undone: the caller reads the store without it.
            let _ = g.flush();
        }
        g
    }

    /// The current resourceVersion (of the last write).
    pub fn resource_version(&self) -> u64 {
        self.lock().rv
    }

    /// Whether the store holds no object at all (a fresh data dir).
    pub fn is_empty(&self) -> bool {
        let g = self.lock();
        g.objects.values().all(|m| m.is_empty())
            && (!g.on_disk(ON_DISK)
                || !g
                    .reader()
                    .and_then(|r| disk::any(&r, ON_DISK))
                    .unwrap_or(true))
    }

    /// How many objects of `resource` the store holds (none decoded).
    pub fn count(&self, resource: &str) -> usize {
        let g = self.lock();
        if g.on_disk(resource) {
            let r = g.reader();
            drop(g);
            return file_items(r, resource, None).len();
        }
        g.objects.get(resource).map_or(0, BTreeMap::len)
    }

    /// One object.
    pub fn get(&self, resource: &str, namespace: &str, name: &str) -> Option<Value> {
        self.read(resource, namespace, name, Value::clone)
    }

    /// `f` of an object, decoded (after the store's lock is let go).
    pub fn read<R>(
        &self,
        resource: &str,
        namespace: &str,
        name: &str,
        f: impl FnOnce(&Value) -> R,
    ) -> Option<R> {
        let g = self.lock();
        let k = key(namespace, name);
        let stored = if g.on_disk(resource) {
            let r = g.reader().ok()?;
            drop(g);
            disk::get(&r, resource, &k).ok()??
        } else {
            let s = g.objects.get(resource).and_then(|m| m.get(&k)).cloned()?;
            drop(g);
            s
        };
        Some(f(&stored.decode()))
    }

    /// Every object of a resource (in one namespace when given), with the store's rv.
    pub fn list(&self, resource: &str, namespace: Option<&str>) -> (Vec<Value>, u64) {
        let (items, rv) = self.snapshot(resource, namespace);
        let items = items.into_iter().map(|(_, v)| v.decode()).collect();
        (items, rv)
    }

    /// The objects of `resource` (in `namespace` when given) with their keys, in key order,
    /// shared, and the store's rv: a consistent snapshot for a paged list, costing a key and a
    /// pointer per object.
    pub fn snapshot(
        &self,
        resource: &str,
        namespace: Option<&str>,
    ) -> (Vec<(String, Stored)>, u64) {
        let g = self.lock();
        let rv = g.rv;
        if g.on_disk(resource) {
            // Decoded after the lock is let go: the read transaction is the snapshot.
            let r = g.reader();
            drop(g);
            return (file_items(r, resource, namespace), rv);
        }
        (held_items(g.objects.get(resource), namespace), rv)
    }

    /// Every object of each of `resources`, shared, read under one lock, with the store's rv,
    /// and a change feed from that state on: every later change, in
    /// order, none lost however many pile up before the reader drains them (an informer's
    /// list and watch; the history a watch resumes from is bounded, a feed is not, so its
    /// reader must drain it: the driver does at every pass).
    #[allow(clippy::type_complexity)]
    pub fn list_with_feed(
        &self,
        resources: &[&str],
    ) -> (
        Vec<Vec<Stored>>,
        u64,
        std::sync::mpsc::Receiver<Arc<Change>>,
    ) {
        let mut g = self.lock();
        let (tx, rx) = std::sync::mpsc::channel();
        g.feeds.push(tx);
        let lists = resources
            .iter()
            .map(|r| {
                let items = if g.on_disk(r) {
                    file_items(g.reader(), r, None)
                } else {
                    held_items(g.objects.get(*r), None)
                };
                items.into_iter().map(|(_, v)| v).collect()
            })
            .collect();
        (lists, g.rv, rx)
    }

    /// [`Store::list_with_feed`] of every resource the store holds in memory, by resource
    /// (with a file, not the Events: the control plane does not read them).
    #[allow(clippy::type_complexity)]
    pub fn list_all_with_feed(
        &self,
    ) -> (
        Vec<(String, Vec<Stored>)>,
        u64,
        std::sync::mpsc::Receiver<Arc<Change>>,
    ) {
        let mut g = self.lock();
        let (tx, rx) = std::sync::mpsc::channel();
        g.feeds.push(tx);
        let mut lists: Vec<(String, Vec<Stored>)> = g
            .objects
            .iter()
            .map(|(r, m)| (r.clone(), m.values().cloned().collect()))
            .collect();
        lists.sort_by(|a, b| a.0.cmp(&b.0));
        (lists, g.rv, rx)
    }

    /// Subscribes to changes, with the events after `since` that are still in history.
    /// `Err(oldest)` when `since` is older than the history reaches.
    #[allow(clippy::type_complexity)]
    pub fn watch_from(
        &self,
        since: u64,
    ) -> Result<(Vec<Arc<WatchEvent>>, broadcast::Receiver<Arc<WatchEvent>>), u64> {
        let g = self.lock();
        if since < g.oldest {
            return Err(g.oldest);
        }
        let past = g.history.iter().filter(|e| e.rv > since).cloned().collect();
        Ok((past, self.tx.subscribe()))
    }

    /// Subscribes to changes after a snapshot of every object of `resource` (for a watch
    /// without resourceVersion: synthetic ADDED events first).
    pub fn watch_snapshot(
        &self,
        resource: &str,
    ) -> (Vec<Stored>, u64, broadcast::Receiver<Arc<WatchEvent>>) {
        let g = self.lock();
        let (rv, rx) = (g.rv, self.tx.subscribe());
        let items = if g.on_disk(resource) {
            let r = g.reader();
            drop(g);
            file_items(r, resource, None)
        } else {
            held_items(g.objects.get(resource), None)
        };
        (items.into_iter().map(|(_, v)| v).collect(), rv, rx)
    }
}

#[cfg(test)]
mod tests;
