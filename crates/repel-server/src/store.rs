//! The object store: every API object as JSON, a monotonic `resourceVersion`, the watch feed,
//! and (with `--data-dir`) a redb file that each write is committed to before it is
//! acknowledged.
//!
//! One writer at a time (a mutex around [`Inner`]); a write is, in order: checked against the
//! current object, committed to redb (fsync), applied in memory, and published to watchers. So a
//! reply never acknowledges a write that a restart could lose, and the resourceVersion sequence
//! restarts where it stopped (it is stored in the same transaction as the object).

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::time;

const OBJECTS: TableDefinition<&str, &[u8]> = TableDefinition::new("objects");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const RV_KEY: &str = "resourceVersion";

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

/// One change, as watchers see it.
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
    pub object: Arc<Value>,
    /// The object before a modification (watches with selectors turn a change that moves an
    /// object out of or into their selection into DELETED or ADDED, as upstream's cacher).
    pub prev: Option<Arc<Value>>,
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
    /// per object.
    objects: BTreeMap<String, BTreeMap<String, Arc<Value>>>,
    rv: u64,
    history: VecDeque<Arc<Event>>,
    /// The rv before the oldest event in `history`: a watch from an rv below it is too old.
    oldest: u64,
    db: Option<Database>,
    /// The change feeds ([`Store::list_with_feed`]): every change, unbounded, to a reader that
    /// drains them itself; a feed whose reader is gone is dropped at the next change.
    feeds: Vec<std::sync::mpsc::Sender<Arc<Event>>>,
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

fn db_key(resource: &str, k: &str) -> String {
    format!("{resource}|{k}")
}

fn storage_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Storage(e.to_string())
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

    /// Opens (or creates) `dir/repel.redb` and loads every stored object.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(storage_err)?;
        let db = Database::create(dir.join("repel.redb")).map_err(storage_err)?;
        let mut objects: BTreeMap<String, BTreeMap<String, Arc<Value>>> = BTreeMap::new();
        let mut rv = 0;
        {
            let w = db.begin_write().map_err(storage_err)?;
            w.open_table(OBJECTS).map_err(storage_err)?;
            w.open_table(META).map_err(storage_err)?;
            w.commit().map_err(storage_err)?;
        }
        let r = db.begin_read().map_err(storage_err)?;
        let t = r.open_table(OBJECTS).map_err(storage_err)?;
        for entry in t.iter().map_err(storage_err)? {
            let (k, v) = entry.map_err(storage_err)?;
            let k = k.value();
            let Some((resource, rest)) = k.split_once('|') else {
                continue;
            };
            let obj: Value = serde_json::from_slice(v.value()).map_err(storage_err)?;
            objects
                .entry(resource.to_string())
                .or_default()
                .insert(rest.to_string(), Arc::new(obj));
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
        objects: BTreeMap<String, BTreeMap<String, Arc<Value>>>,
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
        self.lock().objects.values().all(|m| m.is_empty())
    }

    /// One object.
    pub fn get(&self, resource: &str, namespace: &str, name: &str) -> Option<Value> {
        self.lock()
            .objects
            .get(resource)
            .and_then(|m| m.get(&key(namespace, name)))
            .map(|v| Value::clone(v))
    }

    /// `f` of an object, read in place (no copy of the object is made).
    pub fn read<R>(
        &self,
        resource: &str,
        namespace: &str,
        name: &str,
        f: impl FnOnce(&Value) -> R,
    ) -> Option<R> {
        self.lock()
            .objects
            .get(resource)
            .and_then(|m| m.get(&key(namespace, name)))
            .map(|v| f(v))
    }

    /// Every object of a resource (in one namespace when given), with the store's rv.
    pub fn list(&self, resource: &str, namespace: Option<&str>) -> (Vec<Value>, u64) {
        let g = self.lock();
        let items = match g.objects.get(resource) {
            None => Vec::new(),
            Some(m) => match namespace {
                None => m.values().map(|v| Value::clone(v)).collect(),
                Some(ns) => {
                    let prefix = format!("{ns}/");
                    m.range(prefix.clone()..)
                        .take_while(|(k, _)| k.starts_with(&prefix))
                        .map(|(_, v)| Value::clone(v))
                        .collect()
                }
            },
        };
        (items, g.rv)
    }

    /// The objects of `resource` (in `namespace` when given) with their keys, in key order,
    /// shared, and the store's rv: a consistent snapshot for a paged list, costing a key and a
    /// pointer per object.
    pub fn snapshot(
        &self,
        resource: &str,
        namespace: Option<&str>,
    ) -> (Vec<(String, Arc<Value>)>, u64) {
        let g = self.lock();
        let items = match g.objects.get(resource) {
            None => Vec::new(),
            Some(m) => match namespace {
                None => m.iter().map(|(k, v)| (k.clone(), Arc::clone(v))).collect(),
                Some(ns) => {
                    let prefix = format!("{ns}/");
                    m.range(prefix.clone()..)
                        .take_while(|(k, _)| k.starts_with(&prefix))
                        .map(|(k, v)| (k.clone(), Arc::clone(v)))
                        .collect()
                }
            },
        };
        (items, g.rv)
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
        Vec<Vec<Arc<Value>>>,
        u64,
        std::sync::mpsc::Receiver<Arc<Event>>,
    ) {
        let mut g = self.lock();
        let (tx, rx) = std::sync::mpsc::channel();
        g.feeds.push(tx);
        let lists = resources
            .iter()
            .map(|r| {
                g.objects
                    .get(*r)
                    .map(|m| m.values().cloned().collect())
                    .unwrap_or_default()
            })
            .collect();
        (lists, g.rv, rx)
    }

    /// [`Store::list_with_feed`] of every resource the store holds, by resource.
    #[allow(clippy::type_complexity)]
    pub fn list_all_with_feed(
        &self,
    ) -> (
        Vec<(String, Vec<Arc<Value>>)>,
        u64,
        std::sync::mpsc::Receiver<Arc<Event>>,
    ) {
        let mut g = self.lock();
        let (tx, rx) = std::sync::mpsc::channel();
        g.feeds.push(tx);
        let mut lists: Vec<(String, Vec<Arc<Value>>)> = g
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
    ) -> (Vec<Arc<Value>>, u64, broadcast::Receiver<Arc<Event>>) {
        let g = self.lock();
        let items = g
            .objects
            .get(resource)
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default();
        (items, g.rv, self.tx.subscribe())
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
        if g.objects.get(resource).is_some_and(|m| m.contains_key(&k)) {
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
        self.commit(
            &mut g,
            vec![(resource.to_string(), k.clone(), Some(obj), EventType::Added)],
        )?;
        g.objects
            .get(resource)
            .and_then(|m| m.get(&k))
            .cloned()
            .ok_or(StoreError::NotFound)
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
        let Some(current) = g
            .objects
            .get(resource)
            .and_then(|m| m.get(&k))
            .map(|v| Value::clone(v))
        else {
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
        if strip_rv(&new) == strip_rv(&current) {
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
        let Some(current) = g
            .objects
            .get(resource)
            .and_then(|m| m.get(&k))
            .map(|v| Value::clone(v))
        else {
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
                    let existing = g.objects.get(&resource).and_then(|m| m.get(&k));
                    let kind = if existing.is_some() {
                        EventType::Modified
                    } else {
                        EventType::Added
                    };
                    if let Some(old) = existing {
                        // Written from an older read: skip (the engine retries next tick).
                        let given = obj["metadata"]["resourceVersion"].as_str();
                        if given.is_some_and(|rv| {
                            Some(rv) != old["metadata"]["resourceVersion"].as_str()
                        }) {
                            continue;
                        }
                        if strip_rv(old) == strip_rv(&obj) {
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
                    if g.objects.get(&resource).is_some_and(|m| m.contains_key(&k)) {
                        changes.push((resource, k, None, EventType::Deleted));
                    }
                }
            }
        }
        self.commit(&mut g, changes)
    }

    /// Commits changes: rv per change, redb first (one transaction, fsync), then memory, then
    /// watchers. `None` = delete.
    fn commit(
        &self,
        g: &mut Inner,
        mut changes: Vec<(String, String, Option<Value>, EventType)>,
    ) -> Result<(), StoreError> {
        if changes.is_empty() {
            return Ok(());
        }
        let mut rv = g.rv;
        for (_, _, obj, _) in changes.iter_mut() {
            rv += 1;
            if let Some(o) = obj {
                o["metadata"]["resourceVersion"] = json!(rv.to_string());
            }
        }
        if let Some(db) = &g.db {
            let w = db.begin_write().map_err(storage_err)?;
            {
                let mut t = w.open_table(OBJECTS).map_err(storage_err)?;
                for (resource, k, obj, _) in &changes {
                    let dk = db_key(resource, k);
                    match obj {
                        Some(o) => {
                            let bytes = serde_json::to_vec(o).map_err(storage_err)?;
                            t.insert(dk.as_str(), bytes.as_slice())
                                .map_err(storage_err)?;
                        }
                        None => {
                            t.remove(dk.as_str()).map_err(storage_err)?;
                        }
                    }
                }
                let mut m = w.open_table(META).map_err(storage_err)?;
                m.insert(RV_KEY, rv).map_err(storage_err)?;
            }
            w.commit().map_err(storage_err)?;
        }
        let mut rv = g.rv;
        for (resource, k, obj, kind) in changes {
            rv += 1;
            let m = g.objects.entry(resource.clone()).or_default();
            let mut prev = None;
            let object = match obj {
                Some(o) => {
                    let o = Arc::new(o);
                    prev = m.insert(k, o.clone());
                    o
                }
                None => {
                    let mut last = m
                        .remove(&k)
                        .map(Arc::unwrap_or_clone)
                        .unwrap_or(Value::Null);
                    if last.is_object() {
                        last["metadata"]["resourceVersion"] = json!(rv.to_string());
                    }
                    Arc::new(last)
                }
            };
            let ev = Arc::new(Event {
                kind,
                resource,
                rv,
                object,
                prev,
            });
            g.feeds.retain(|f| f.send(Arc::clone(&ev)).is_ok());
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
        Ok(())
    }
}

fn strip_rv(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(m) = v["metadata"].as_object_mut() {
        m.remove("resourceVersion");
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
    }

    #[test]
    fn writes_get_increasing_resource_versions_and_identity() {
        let s = Store::in_memory();
        let a = s.create("nodes", node("a")).unwrap();
        let b = s.create("nodes", node("b")).unwrap();
        assert_eq!(a["metadata"]["resourceVersion"], "1");
        assert_eq!(b["metadata"]["resourceVersion"], "2");
        assert_eq!(a["metadata"]["uid"].as_str().unwrap().len(), 36);
        assert_eq!(s.create("nodes", node("a")), Err(StoreError::AlreadyExists));
        let m = s
            .modify::<StoreError>("nodes", "", "a", |cur| {
                let mut n = cur.clone();
                n["spec"] = json!({"unschedulable": true});
                Ok(Some(n))
            })
            .unwrap();
        assert_eq!(m["metadata"]["resourceVersion"], "3");
        assert_eq!(m["metadata"]["uid"], a["metadata"]["uid"]);
    }

    #[test]
    fn a_stale_resource_version_is_a_conflict_and_an_unchanged_object_is_no_write() {
        let s = Store::in_memory();
        s.create("nodes", node("a")).unwrap();
        let r = s.modify::<StoreError>("nodes", "", "a", |cur| {
            let mut n = cur.clone();
            n["metadata"]["resourceVersion"] = json!("0");
            n["spec"] = json!({"unschedulable": true});
            Ok(Some(n))
        });
        assert_eq!(r, Err(StoreError::Conflict));
        let same = s
            .modify::<StoreError>("nodes", "", "a", |cur| Ok(Some(cur.clone())))
            .unwrap();
        assert_eq!(same["metadata"]["resourceVersion"], "1");
        assert_eq!(s.resource_version(), 1);
    }

    #[test]
    fn a_batch_never_resurrects_a_deleted_object_nor_overwrites_a_newer_one() {
        let s = Store::in_memory();
        let a = s.create("nodes", node("a")).unwrap();
        let b = s.create("nodes", node("b")).unwrap();
        s.delete("nodes", "", "a").unwrap();
        let mut stale_b = b.clone();
        s.modify::<StoreError>("nodes", "", "b", |cur| {
            let mut n = cur.clone();
            n["spec"] = json!({"unschedulable": true});
            Ok(Some(n))
        })
        .unwrap();
        stale_b["spec"] = json!({"podCIDR": "x"});
        let mut a2 = a.clone();
        a2["spec"] = json!({"podCIDR": "y"});
        s.write_batch(vec![
            ("nodes".into(), Op::Put(String::new(), a2)),
            ("nodes".into(), Op::Put(String::new(), stale_b)),
            ("nodes".into(), Op::Put(String::new(), node("c"))),
        ])
        .unwrap();
        assert!(s.get("nodes", "", "a").is_none(), "deleted stays deleted");
        assert_eq!(
            s.get("nodes", "", "b").unwrap()["spec"],
            json!({"unschedulable": true})
        );
        assert!(s.get("nodes", "", "c").is_some(), "a new object is created");
    }

    #[test]
    fn a_watch_resumes_after_an_rv_and_a_too_old_rv_is_refused() {
        let s = Store::in_memory();
        s.create("nodes", node("a")).unwrap();
        s.create("nodes", node("b")).unwrap();
        s.delete("nodes", "", "a").unwrap();
        let (past, _rx) = s.watch_from(1).unwrap();
        let kinds: Vec<_> = past.iter().map(|e| (e.kind, e.rv)).collect();
        assert_eq!(kinds, vec![(EventType::Added, 2), (EventType::Deleted, 3)]);
        for i in 0..HISTORY {
            s.create("pods", node(&format!("p{i}"))).unwrap();
        }
        assert!(s.watch_from(1).is_err());
    }

    #[test]
    fn a_feed_keeps_every_change_beyond_the_history_and_drops_a_gone_reader() {
        let s = Store::in_memory();
        s.create("nodes", node("a")).unwrap();
        let (lists, rv, feed) = s.list_with_feed(&["nodes", "pods"]);
        assert_eq!((lists[0].len(), lists[1].len(), rv), (1, 0, 1));
        for i in 0..HISTORY + 5 {
            s.create("pods", node(&format!("p{i}"))).unwrap();
        }
        s.delete("nodes", "", "a").unwrap();
        let got: Vec<u64> = feed.try_iter().map(|e| e.rv).collect();
        let want: Vec<u64> = (2..=HISTORY as u64 + 7).collect();
        assert_eq!(got, want, "every change after the list, in order");
        assert!(
            s.watch_from(1).is_err(),
            "while the history no longer reaches back"
        );
        drop(feed);
        s.create("nodes", node("b")).unwrap();
        assert!(s.lock().feeds.is_empty());
    }

    #[test]
    fn redb_keeps_objects_and_the_resource_version_across_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let s = Store::open(dir.path()).unwrap();
            s.create("nodes", node("a")).unwrap();
            s.create("nodes", node("b")).unwrap();
            s.delete("nodes", "", "b").unwrap();
        }
        let s = Store::open(dir.path()).unwrap();
        assert_eq!(s.resource_version(), 3);
        assert!(s.get("nodes", "", "a").is_some());
        assert!(s.get("nodes", "", "b").is_none());
        let c = s.create("nodes", node("c")).unwrap();
        assert_eq!(c["metadata"]["resourceVersion"], "4");
    }
}
