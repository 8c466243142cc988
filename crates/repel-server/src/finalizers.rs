//! Deletion with finalizers, as upstream's registry does it (`staging/src/k8s.io/apiserver/
//! pkg/registry/generic/registry/store.go`: `Delete`, `deletionFinalizersForGarbageCollection`,
//! `shouldOrphanDependents`, `shouldDeleteDependents`), for every kind but pods (deleted
//! gracefully by their kubelet) and namespaces (their own finalizer).
//!
//! A deletion decides the garbage-collection finalizers from the request's propagation policy
//! (`Orphan` → `orphan`, `Foreground` → `foregroundDeletion`, `Background` → neither), else from
//! the finalizers the object already has, else from its kind's default (a `batch/v1` Job
//! orphans its pods; everything else is deleted in the background). An object left with no
//! finalizer is deleted at once; otherwise it is marked — `deletionTimestamp` now,
//! `deletionGracePeriodSeconds: 0`, its generation bumped — and stays (`kubectl get` shows it)
//! until its finalizers are removed: the garbage collector removes `orphan` and
//! `foregroundDeletion` (repel-engine's
//! [`repel_engine::controllers::garbage_collector`]), a user or their controller the others,
//! and the update that removes the last one deletes it ([`Store::modify`]).

use serde_json::{Value, json};

use crate::store::{Store, StoreError};
use crate::time;

pub use repel_engine::controllers::garbage_collector::{FINALIZER_FOREGROUND, FINALIZER_ORPHAN};

/// The propagation a deletion asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Propagation {
    /// None given: the object's finalizers, else its kind's default.
    #[default]
    Default,
    /// `Orphan` (or `orphanDependents: true`).
    Orphan,
    /// `Foreground`.
    Foreground,
    /// `Background` (or `orphanDependents: false`).
    Background,
}

impl Propagation {
    /// The propagation of a request's DeleteOptions.
    pub fn of(opts: &crate::query::DeleteOptions) -> Propagation {
        if opts.orphan {
            Propagation::Orphan
        } else if opts.foreground {
            Propagation::Foreground
        } else if opts.background {
            Propagation::Background
        } else {
            Propagation::Default
        }
    }
}

/// Whether deleting an object of `resource` orphans its dependents by default (upstream's
/// `DefaultGarbageCollectionPolicy`: `OrphanDependents` for batch/v1 Jobs).
fn orphans_by_default(resource: &str) -> bool {
    resource == "jobs"
}

/// The object's finalizers after a deletion with `policy` (upstream's
/// `deletionFinalizersForGarbageCollection`): its own, without `orphan` and
/// `foregroundDeletion`, then those the policy asks for.
pub fn deletion_finalizers(resource: &str, obj: &Value, policy: Propagation) -> Vec<String> {
    let current: Vec<&str> = obj["metadata"]["finalizers"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let has = |f: &str| current.contains(&f);
    let (orphan, foreground) = match policy {
        Propagation::Orphan => (true, false),
        Propagation::Foreground => (false, true),
        Propagation::Background => (false, false),
        Propagation::Default => {
            let orphan = if has(FINALIZER_ORPHAN) {
                true
            } else if has(FINALIZER_FOREGROUND) {
                false
            } else {
                orphans_by_default(resource)
            };
            (orphan, has(FINALIZER_FOREGROUND))
        }
    };
    let mut out: Vec<String> = current
        .iter()
        .filter(|f| **f != FINALIZER_ORPHAN && **f != FINALIZER_FOREGROUND)
        .map(|f| f.to_string())
        .collect();
    if orphan {
        out.push(FINALIZER_ORPHAN.to_string());
    }
    if foreground {
        out.push(FINALIZER_FOREGROUND.to_string());
    }
    out
}

/// Deletes `resource` `namespace`/`name` with `policy`: gone at once when no finalizer is
/// left, otherwise marked as being deleted (see the module documentation). `uid`, when given,
/// is a precondition (the garbage collector's): another object of that name is left alone
/// (`NotFound`). Returns the object as deleted, or as now stored.
pub fn delete(
    store: &Store,
    resource: &str,
    namespace: &str,
    name: &str,
    policy: Propagation,
    uid: Option<&str>,
) -> Result<Value, StoreError> {
    let current = store
        .get(resource, namespace, name)
        .ok_or(StoreError::NotFound)?;
    if uid.is_some_and(|u| !u.is_empty() && current["metadata"]["uid"].as_str() != Some(u)) {
        return Err(StoreError::NotFound);
    }
    let finalizers = deletion_finalizers(resource, &current, policy);
    let deleting = !current["metadata"]["deletionTimestamp"].is_null();
    if finalizers.is_empty() && !deleting {
        return store.delete(resource, namespace, name);
    }
    store.modify::<StoreError>(resource, namespace, name, |cur| {
        let mut obj = cur.clone();
        let m = &mut obj["metadata"];
        if finalizers.is_empty() {
            if let Some(m) = m.as_object_mut() {
                m.remove("finalizers");
            }
        } else {
            m["finalizers"] = json!(finalizers);
        }
        if m["deletionTimestamp"].is_null() {
            m["deletionTimestamp"] = json!(time::now_rfc3339());
            m["deletionGracePeriodSeconds"] = json!(0);
            if let Some(g) = m["generation"].as_i64().filter(|g| *g > 0) {
                m["generation"] = json!(g + 1);
            }
        }
        if obj == *cur {
            return Ok(None);
        }
        obj["metadata"]["resourceVersion"] = Value::Null;
        Ok(Some(obj))
    })
}

/// Takes the ownerReferences naming `kind` `owner_name` (of uid `owner_uid`, when not empty)
/// off an object (the garbage collector orphaning it, or dropping a dangling reference).
pub fn remove_owner_reference(
    store: &Store,
    resource: &str,
    namespace: &str,
    name: &str,
    (kind, owner_name, owner_uid): (&str, &str, &str),
) -> Result<Value, StoreError> {
    store.modify::<StoreError>(resource, namespace, name, |cur| {
        let mut obj = cur.clone();
        let Some(refs) = obj["metadata"]["ownerReferences"].as_array_mut() else {
            return Ok(None);
        };
        let before = refs.len();
        refs.retain(|r| {
            !(r["kind"] == kind
                && r["name"] == owner_name
                && (owner_uid.is_empty() || r["uid"].as_str().is_none_or(|u| u == owner_uid)))
        });
        if refs.len() == before {
            return Ok(None);
        }
        if refs.is_empty()
            && let Some(m) = obj["metadata"].as_object_mut()
        {
            m.remove("ownerReferences");
        }
        obj["metadata"]["resourceVersion"] = Value::Null;
        Ok(Some(obj))
    })
}

/// Removes finalizer `f` from an object (the last one of an object being deleted deletes it).
pub fn remove_finalizer(
    store: &Store,
    resource: &str,
    namespace: &str,
    name: &str,
    f: &str,
) -> Result<Value, StoreError> {
    store.modify::<StoreError>(resource, namespace, name, |cur| {
        let mut obj = cur.clone();
        let Some(list) = obj["metadata"]["finalizers"].as_array_mut() else {
            return Ok(None);
        };
        let before = list.len();
        list.retain(|x| x != f);
        if list.len() == before {
            return Ok(None);
        }
        if list.is_empty()
            && let Some(m) = obj["metadata"].as_object_mut()
        {
            m.remove("finalizers");
        }
        obj["metadata"]["resourceVersion"] = Value::Null;
        Ok(Some(obj))
    })
}

#[cfg(test)]
mod tests;
