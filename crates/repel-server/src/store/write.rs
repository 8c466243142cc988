//! The store's writes: create, modify (or preview), delete and batches, each committed (to the
//! redb file when there is one) and fed to the watchers under one lock (after kube-apiserver's
//! `staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go` `Create`, `GuaranteedUpdate` and
//! `Delete`).

use super::*;

impl Store {
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

    /// Commits changes: rv per change, redb first (one transaction, fsync; or the calling
    /// thread's group's transaction, see [`Store::group`]), then memory, then watchers and feeds
    /// (held back until a group commits). `None` = delete. Returns the objects put, as stored.
    pub(super) fn commit(
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
        let grouped = g.group.as_ref().is_some_and(group::Group::is_mine);
        let file = {
            let Inner {
                db, group, rv: now, ..
            } = &mut *g;
            match (db, group.as_mut().filter(|_| grouped)) {
                (None, _) => Ok(()),
                (Some(db), Some(gr)) => {
                    let w = match gr.txn.take() {
                        Some(w) => Ok(w),
                        None => {
                            gr.rv = *now;
                            db.begin_write().map_err(storage_err)
                        }
                    };
                    w.and_then(|w| {
                        let r = write_file(&w, &changes, &texts, &mut olds, rv);
                        gr.txn = Some(w);
                        gr.disk |= r?;
                        Ok(())
                    })
                }
                (Some(db), None) => db.begin_write().map_err(storage_err).and_then(|w| {
                    write_file(&w, &changes, &texts, &mut olds, rv)?;
                    w.commit().map_err(storage_err)
                }),
            }
        };
        if let Err(e) = file {
            if grouped {
                g.abort();
            }
            return Err(e);
        }
        let mut rv = g.rv;
        let mut stored = Vec::new();
        for (((resource, k, obj, kind), text), old) in changes.into_iter().zip(texts).zip(olds) {
            rv += 1;
            let on_disk = g.on_disk(&resource);
            let mut prev = None;
            let undo = grouped && !on_disk;
            let text = match (obj, text) {
                (Some(o), Some(text)) => {
                    prev = if on_disk {
                        old
                    } else {
                        let m = g.objects.entry(resource.clone()).or_default();
                        let p = m.insert(k.clone(), text.clone());
                        if undo {
                            let gr = g.group.as_mut().map(|gr| &mut gr.undo);
                            gr.into_iter()
                                .for_each(|u| u.push((resource.clone(), k.clone(), p.clone())));
                        }
                        p
                    };
                    stored.push(Arc::new(o));
                    text
                }
                _ => {
                    let last = if on_disk {
                        old
                    } else {
                        let p = g.objects.get_mut(&resource).and_then(|m| m.remove(&k));
                        if undo {
                            let gr = g.group.as_mut().map(|gr| &mut gr.undo);
                            gr.into_iter()
                                .for_each(|u| u.push((resource.clone(), k.clone(), p.clone())));
                        }
                        p
                    };
                    let mut last = last.map(|s| s.decode()).unwrap_or(Value::Null);
                    if last.is_object() {
                        last["metadata"]["resourceVersion"] = json!(rv.to_string());
                    }
                    Stored::encode(&last)
                }
            };
            let ev = Arc::new(WatchEvent {
                kind,
                resource,
                rv,
                object: text,
                prev,
            });
            match g.group.as_mut().filter(|_| grouped) {
                Some(gr) => gr.pending.push(ev),
                None => g.publish(ev),
            }
        }
        g.rv = rv;
        Ok(stored)
    }
}

/// Writes changes (with their texts) to the file's transaction `w`, and the resourceVersion
/// `rv` after them; fills `olds` with the previous text of each object kept in the file only.
/// Returns whether such an object was written.
fn write_file(
    w: &redb::WriteTransaction,
    changes: &[(String, String, Option<Value>, EventType)],
    texts: &[Option<Stored>],
    olds: &mut [Option<Stored>],
    rv: u64,
) -> Result<bool, StoreError> {
    let mut disk = false;
    let mut t = w.open_table(OBJECTS).map_err(storage_err)?;
    let mut x = w.open_table(EVENT_EXPIRY).map_err(storage_err)?;
    for (((resource, k, _, _), text), old_obj) in changes.iter().zip(texts).zip(olds.iter_mut()) {
        let dk = db_key(resource, k);
        let bytes = text.as_ref().map(|s| s.json().as_bytes());
        let old = match bytes {
            Some(b) => t.insert(dk.as_str(), b),
            None => t.remove(dk.as_str()),
        }
        .map_err(storage_err)?;
        if resource == ON_DISK {
            disk = true;
            let old = old.as_ref().map(|v| v.value());
            disk::reindex(&mut x, &dk, old, bytes)?;
            *old_obj = old.and_then(|b| Stored::from_bytes(b).ok());
        }
    }
    let mut m = w.open_table(META).map_err(storage_err)?;
    m.insert(RV_KEY, rv).map_err(storage_err)?;
    Ok(disk)
}
