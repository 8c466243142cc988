//! The object store: every API object as its JSON text ([`Stored`]), a monotonic
//! `resourceVersion`, the watch feed, and (with `--data-dir`) a redb file that each write is
//! committed to before it is acknowledged.
//!
//! One writer at a time (a mutex around [`Inner`]); a write is, in order: checked against the
//! current object, committed to redb (fsync), applied in memory, and published to watchers. So a
//! reply never acknowledges a write that a restart could lose, and the resourceVersion sequence
//! restarts where it stopped (it is stored in the same transaction as the object).
//!
//! With a file, Events live in it only ([`disk`]): a restart reads the text of the objects
//! the control plane and the API need at once (nodes, pods, workloads, …) without decoding it,
//! and not the Events, which are read when asked for; the Events that outlived `--event-ttl` are purged at open through an index
//! of their last writes ([`Store::purge_expired_events`]).

mod disk;
mod expiry;
mod stored;

pub use disk::ON_DISK;
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
pub struct Event {
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

/// One change, as a change feed ([`Store::list_with_feed`]) delivers it: the object decoded,
/// as the writer had it (the control plane reads every change's fields; decoding each again
/// would cost what writing it did).
#[derive(Debug, Clone)]
pub struct Change {
    /// What happened.
    pub kind: EventType,
    /// The resource (plural name, e.g. `pods`).
    pub resource: String,
    /// The resourceVersion of this change.
    pub rv: u64,
    /// The object after the change (before it, for a deletion, with the deletion's rv).
    pub object: Arc<Value>,
}

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
    history: VecDeque<Arc<Event>>,
    /// The rv before the oldest event in `history`: a watch from an rv below it is too old.
    oldest: u64,
    db: Option<Database>,
    /// The change feeds ([`Store::list_with_feed`]): every change, unbounded, to a reader that
    /// drains them itself; a feed whose reader is gone is dropped at the next change.
    feeds: Vec<std::sync::mpsc::Sender<Arc<Change>>>,
}

/// The store. Cheap to share behind an `Arc`.
pub struct Store {
    inner: Mutex<Inner>,
    tx: broadcast::Sender<Arc<Event>>,
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
            }),
            tx,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
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
    ) -> Result<(Vec<Arc<Event>>, broadcast::Receiver<Arc<Event>>), u64> {
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
    ) -> (Vec<Stored>, u64, broadcast::Receiver<Arc<Event>>) {
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

    /// Creates an object: sets uid, creationTimestamp and resourceVersion.
    pub fn create(&self, resource: &str, obj: Value) -> Result<Value, StoreError> {
        self.add(resource, obj).map(Arc::unwrap_or_clone)
    }

    /// [`Store::create`], returning the stored object shared (no copy).
    pub fn add(&self, resource: &str, mut obj: Value) -> Result<Arc<Value>, StoreError> {
        let mut g = self.lock();
        let (ns, name) = ns_name(&obj);
        let k = key(&ns, &name);
        if g.current(resource, &k)?.is_some() {
            return Err(StoreError::AlreadyExists);
        }
        let rv = g.rv + 1;
        if let Some(m) = obj["metadata"].as_object_mut() {
            // A uid the server gave before storing (a Job's, which its generated selector
            // names) is kept; admission drops any a client sent.
            if m.get("uid")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                m.insert("uid".into(), json!(new_uid()));
            }
            if m.get("creationTimestamp").is_none_or(|v| v.is_null()) {
                m.insert("creationTimestamp".into(), json!(time::now_rfc3339()));
            }
            m.insert("resourceVersion".into(), json!(rv.to_string()));
            m.remove("deletionTimestamp");
        }
        let stored = self.commit(
            &mut g,
            vec![(resource.to_string(), k, Some(obj), EventType::Added)],
        )?;
        stored.into_iter().next().ok_or(StoreError::NotFound)
    }

    /// Read-modify-write of one object under the store's lock. `f` gets the current object
    /// and returns the new one (or an error, returned as is). A new object whose
    /// `metadata.resourceVersion` is set and differs from the current one is a conflict.
    /// Returns `Ok(None)` from `f` to leave the object unchanged.
    pub fn modify<E: From<StoreError>>(
        &self,
        resource: &str,
        namespace: &str,
        name: &str,
        f: impl FnOnce(&Value) -> Result<Option<Value>, E>,
    ) -> Result<Value, E> {
        self.modify_or_preview(resource, namespace, name, false, f)
    }

    /// [`Store::modify`], or with `dry_run` everything but the write: the object as it would
    /// be stored, with the current resourceVersion (`?dryRun=All`).
    pub fn modify_or_preview<E: From<StoreError>>(
        &self,
        resource: &str,
        namespace: &str,
        name: &str,
        dry_run: bool,
        f: impl FnOnce(&Value) -> Result<Option<Value>, E>,
    ) -> Result<Value, E> {
        let mut g = self.lock();
        let k = key(namespace, name);
        let Some(current) = g.current(resource, &k)?.map(|s| s.decode()) else {
            return Err(StoreError::NotFound.into());
        };
        let Some(mut new) = f(&current)? else {
            return Ok(current);
        };
        let cur_rv = &current["metadata"]["resourceVersion"];
        match &new["metadata"]["resourceVersion"] {
            Value::String(s) if !s.is_empty() && Some(s.as_str()) != cur_rv.as_str() => {
                return Err(StoreError::Conflict.into());
            }
            _ => {}
        }
        // Identity fields never change through an update.
        for f in ["uid", "creationTimestamp", "name", "namespace"] {
            match current["metadata"].get(f) {
                Some(v) => new["metadata"][f] = v.clone(),
                None => {
                    if let Some(m) = new["metadata"].as_object_mut() {
                        m.remove(f);
                    }
                }
            }
        }
        // An object being deleted stays being deleted (upstream keeps `deletionTimestamp`
        // through updates); once its last finalizer goes it is deleted (upstream's
        // `deleteWithoutFinalizers`: one DELETED event, the update itself not stored). A pod's
        // deletion is finished by its kubelet instead.
        let deleting = current["metadata"]
            .get("deletionTimestamp")
            .filter(|v| !v.is_null())
            .cloned();
        let finished = match deleting {
            Some(dt) => {
                new["metadata"]["deletionTimestamp"] = dt;
                resource != "pods"
                    && new["metadata"]["finalizers"]
                        .as_array()
                        .is_none_or(|a| a.is_empty())
            }
            None => false,
        };
        if same_but_rv(&new, &current) {
            return Ok(current);
        }
        if dry_run {
            new["metadata"]["resourceVersion"] = cur_rv.clone();
            return Ok(new);
        }
        if finished {
            self.commit(
                &mut g,
                vec![(resource.to_string(), k, None, EventType::Deleted)],
            )
            .map_err(E::from)?;
            return Ok(new);
        }
        let rv = g.rv + 1;
        new["metadata"]["resourceVersion"] = json!(rv.to_string());
        self.commit(
            &mut g,
            vec![(
                resource.to_string(),
                k,
                Some(new.clone()),
                EventType::Modified,
            )],
        )
        .map_err(E::from)?;
        Ok(new)
    }

    /// Deletes an object; returns its last state.
    pub fn delete(&self, resource: &str, namespace: &str, name: &str) -> Result<Value, StoreError> {
        let mut g = self.lock();
        let k = key(namespace, name);
        let Some(current) = g.current(resource, &k)?.map(|s| s.decode()) else {
            return Err(StoreError::NotFound);
        };
        self.commit(
            &mut g,
            vec![(resource.to_string(), k, None, EventType::Deleted)],
        )?;
        Ok(current)
    }

    /// Several writes in one transaction (the engine's decisions of one tick). Objects are put
    /// as given except for a new resourceVersion (and uid/creationTimestamp when new). A put
    /// whose `metadata.resourceVersion` is no longer the stored one is skipped: it was decided
    /// on an older state.
    pub fn write_batch(&self, ops: Vec<(String, Op)>) -> Result<(), StoreError> {
        if ops.is_empty() {
            return Ok(());
        }
        let mut g = self.lock();
        let mut changes = Vec::new();
        for (resource, op) in ops {
            match op {
                Op::Put(_, mut obj) => {
                    let (ns, name) = ns_name(&obj);
                    let k = key(&ns, &name);
                    let existing = g.current(&resource, &k)?.map(|s| s.decode());
                    let kind = if existing.is_some() {
                        EventType::Modified
                    } else {
                        EventType::Added
                    };
                    if let Some(old) = existing.as_ref() {
                        // Written from an older read: skip (the engine retries next tick).
                        let given = obj["metadata"]["resourceVersion"].as_str();
                        if given.is_some_and(|rv| {
                            Some(rv) != old["metadata"]["resourceVersion"].as_str()
                        }) {
                            continue;
                        }
                        if same_but_rv(old, &obj) {
                            continue;
                        }
                    } else if obj["metadata"]["resourceVersion"]
                        .as_str()
                        .is_some_and(|rv| !rv.is_empty())
                    {
                        // Read from the store and deleted since: never bring it back.
                        continue;
                    } else if let Some(m) = obj["metadata"].as_object_mut() {
                        if m.get("uid").is_none_or(|v| v.is_null()) {
                            m.insert("uid".into(), json!(new_uid()));
                        }
                        if m.get("creationTimestamp").is_none_or(|v| v.is_null()) {
                            m.insert("creationTimestamp".into(), json!(time::now_rfc3339()));
                        }
                    }
                    changes.push((resource, k, Some(obj), kind));
                }
                Op::Delete(_, ns, name) => {
                    let k = key(&ns, &name);
                    if g.current(&resource, &k)?.is_some() {
                        changes.push((resource, k, None, EventType::Deleted));
                    }
                }
            }
        }
        self.commit(&mut g, changes).map(|_| ())
    }

    /// Commits changes: rv per change, redb first (one transaction, fsync), then memory, then
    /// watchers and feeds. `None` = delete. Returns the objects put, as stored.
    fn commit(
        &self,
        g: &mut Inner,
        mut changes: Vec<(String, String, Option<Value>, EventType)>,
    ) -> Result<Vec<Arc<Value>>, StoreError> {
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        // Each put's text, written to the file and held (one encoding for both).
        let mut rv = g.rv;
        let texts: Vec<Option<Stored>> = changes
            .iter_mut()
            .map(|(_, _, obj, _)| {
                rv += 1;
                obj.as_mut().map(|o| {
                    o["metadata"]["resourceVersion"] = json!(rv.to_string());
                    Stored::encode(o)
                })
            })
            .collect();
        // The previous state of each change to an object kept in the file only (from the
        // file, as the write replaces it).
        let mut olds: Vec<Option<Stored>> = vec![None; changes.len()];
        if let Some(db) = &g.db {
            let w = db.begin_write().map_err(storage_err)?;
            {
                let mut t = w.open_table(OBJECTS).map_err(storage_err)?;
                let mut x = w.open_table(EVENT_EXPIRY).map_err(storage_err)?;
                for (((resource, k, _, _), text), old_obj) in
                    changes.iter().zip(&texts).zip(olds.iter_mut())
                {
                    let dk = db_key(resource, k);
                    let bytes = text.as_ref().map(|s| s.json().as_bytes());
                    let old = match bytes {
                        Some(b) => t.insert(dk.as_str(), b),
                        None => t.remove(dk.as_str()),
                    }
                    .map_err(storage_err)?;
                    if resource == ON_DISK {
                        let old = old.as_ref().map(|v| v.value());
                        disk::reindex(&mut x, &dk, old, bytes)?;
                        *old_obj = old.and_then(|b| Stored::from_bytes(b).ok());
                    }
                }
                let mut m = w.open_table(META).map_err(storage_err)?;
                m.insert(RV_KEY, rv).map_err(storage_err)?;
            }
            w.commit().map_err(storage_err)?;
        }
        let mut rv = g.rv;
        let mut stored = Vec::new();
        for (((resource, k, obj, kind), text), old) in changes.into_iter().zip(texts).zip(olds) {
            rv += 1;
            let on_disk = g.on_disk(&resource);
            let mut prev = None;
            let (object, text) = match (obj, text) {
                (Some(o), Some(text)) => {
                    let o = Arc::new(o);
                    prev = if on_disk {
                        old
                    } else {
                        let m = g.objects.entry(resource.clone()).or_default();
                        m.insert(k, text.clone())
                    };
                    stored.push(o.clone());
                    (o, text)
                }
                _ => {
                    let last = if on_disk {
                        old
                    } else {
                        g.objects.get_mut(&resource).and_then(|m| m.remove(&k))
                    };
                    let mut last = last.map(|s| s.decode()).unwrap_or(Value::Null);
                    if last.is_object() {
                        last["metadata"]["resourceVersion"] = json!(rv.to_string());
                    }
                    let text = Stored::encode(&last);
                    (Arc::new(last), text)
                }
            };
            if !g.feeds.is_empty() {
                let change = Arc::new(Change {
                    kind,
                    resource: resource.clone(),
                    rv,
                    object,
                });
                g.feeds.retain(|f| f.send(Arc::clone(&change)).is_ok());
            }
            let ev = Arc::new(Event {
                kind,
                resource,
                rv,
                object: text,
                prev,
            });
            g.history.push_back(ev.clone());
            while g.history.len() > HISTORY {
                if let Some(old) = g.history.pop_front() {
                    g.oldest = old.rv;
                }
            }
            // No receiver is fine.
            let _ = self.tx.send(ev);
        }
        g.rv = rv;
        Ok(stored)
    }
}

#[cfg(test)]
mod tests;
