//! A DaemonSet's or StatefulSet's ControllerRevisions, as upstream's controllers keep them
//! (v1.35, `pkg/controller/daemon/update.go` `constructHistory`/`cleanupHistory`,
//! `pkg/controller/statefulset` `getStatefulSetRevisions`/`truncateHistory`): one revision per
//! pod template the workload has had, numbered in the order they were current, each holding
//! the patch that restores its template ([`repel_core::workload::revision::template_patch`]).
//! `kubectl rollout history|undo` of a DaemonSet or StatefulSet reads them.
//!
//! The controller decides; [`History::sync`] returns the writes (a revision created, one
//! renumbered, old ones deleted) as [`ObjectWrite`]s for a driver that keeps them in a store.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use repel_core::workload::Workload;
use repel_core::workload::revision::{
    CONTROLLER_REVISION_HASH, HASH_LABEL, daemon_set_hash, hash_controller_revision, revision_name,
    template_patch,
};
use serde_json::{Value, json};

use crate::actions::ObjectWrite;

/// The resource ControllerRevisions are stored under.
pub const RESOURCE: &str = "controllerrevisions";

/// One ControllerRevision.
#[derive(Debug, Clone, PartialEq)]
pub struct Revision {
    /// Its name (`NAME-<hash>`).
    pub name: String,
    /// The hash in its name (a DaemonSet's pods carry it; a StatefulSet's pods carry the name).
    pub hash: String,
    /// Its `revision` number.
    pub revision: i64,
    /// Its `data`: the patch that restores its template.
    pub data: Value,
}

/// A workload's revisions, in no particular order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// The revisions.
    pub revisions: Vec<Revision>,
}

/// What a pod of the workload names its revision by: the hash for a DaemonSet, the revision's
/// name for a StatefulSet (upstream labels them so).
pub fn pod_label_of(w: &Workload, r: &Revision) -> String {
    match w {
        Workload::StatefulSet(_) => r.name.clone(),
        _ => r.hash.clone(),
    }
}

/// The revision the workload's current template makes: (name, hash, data).
fn current(w: &Workload) -> Option<(String, String, Value)> {
    let (template, _) = w.template()?;
    let data = template_patch(template);
    let hash = match w {
        Workload::StatefulSet(_) => hash_controller_revision(&data, Some(0)),
        _ => daemon_set_hash(template),
    };
    Some((revision_name(w.name(), &hash), hash, data))
}

/// The ControllerRevision object for `r` of `w` (upstream `snapshot` / `newRevision`): the
/// template's labels plus the hash label, the workload's annotations, its controller
/// ownerReference, `data`, `revision`.
fn object(w: &Workload, r: &Revision) -> Value {
    let meta: &ObjectMeta = w.metadata();
    let mut labels: BTreeMap<String, String> = w
        .template()
        .and_then(|(t, _)| t.metadata.as_ref())
        .and_then(|m| m.labels.clone())
        .unwrap_or_default();
    let key = match w {
        Workload::StatefulSet(_) => HASH_LABEL,
        _ => CONTROLLER_REVISION_HASH,
    };
    labels.insert(key.to_string(), r.hash.clone());
    let mut metadata = json!({
        "name": r.name,
        "namespace": w.namespace(),
        "labels": labels,
        "ownerReferences": [{
            "apiVersion": "apps/v1",
            "kind": w.kind(),
            "name": w.name(),
            "uid": meta.uid.clone().unwrap_or_default(),
            "controller": true,
            "blockOwnerDeletion": true,
        }],
    });
    if let Some(a) = meta.annotations.as_ref().filter(|a| !a.is_empty()) {
        metadata["annotations"] = json!(a);
    }
    json!({
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": metadata,
        "data": r.data,
        "revision": r.revision,
    })
}

impl History {
    /// The highest revision number (0 when there is none).
    fn max_revision(&self) -> i64 {
        self.revisions.iter().map(|r| r.revision).max().unwrap_or(0)
    }

    /// The revision named `name`.
    pub fn get(&self, name: &str) -> Option<&Revision> {
        self.revisions.iter().find(|r| r.name == name)
    }

    /// A revision read from the cluster (a restarted server's store): kept as it is.
    pub fn observe(&mut self, r: Revision) {
        match self.revisions.iter_mut().find(|x| x.name == r.name) {
            Some(x) => *x = r,
            None => self.revisions.push(r),
        }
    }

    /// Upstream `constructHistory` (DaemonSet) and `getStatefulSetRevisions` (StatefulSet):
    /// the revision of the workload's current template, made current.
    ///
    /// 1. A revision whose data equals the template's patch is the current one; when its number
    ///    is not the highest (a rollback to it), it is renumbered to the highest + 1.
    /// 2. Otherwise a new revision is created, numbered the highest + 1 (1 for the first).
    ///
    /// Returns the current revision's name, or `None` for a workload without a template.
    pub fn sync(&mut self, w: &Workload, writes: &mut Vec<ObjectWrite>) -> Option<String> {
        let (name, hash, data) = current(w)?;
        let next = self.max_revision() + 1;
        let found = self
            .revisions
            .iter()
            .position(|r| r.data == data || r.name == name);
        match found {
            Some(i) => {
                let top = self.max_revision();
                let r = &mut self.revisions[i];
                if r.revision < top {
                    r.revision = next;
                    writes.push(ObjectWrite::SetRevision {
                        namespace: w.namespace().to_string(),
                        name: r.name.clone(),
                        revision: next,
                    });
                }
                Some(r.name.clone())
            }
            None => {
                let r = Revision {
                    name: name.clone(),
                    hash,
                    revision: next,
                    data,
                };
                writes.push(ObjectWrite::Create {
                    resource: RESOURCE,
                    object: object(w, &r),
                });
                self.revisions.push(r);
                Some(name)
            }
        }
    }

    /// Upstream `cleanupHistory` (DaemonSet) and `truncateHistory` (StatefulSet): old
    /// revisions beyond `limit` (`revisionHistoryLimit`, default 10) are deleted, oldest
    /// first, except the current ones and those a live pod still names (`live`: the pods'
    /// revision labels, see [`pod_label_of`]; asked for only when there are too many).
    pub fn truncate(
        &mut self,
        w: &Workload,
        keep: &BTreeSet<String>,
        live: impl FnOnce() -> BTreeSet<String>,
        writes: &mut Vec<ObjectWrite>,
    ) {
        let limit = match w {
            Workload::DaemonSet(d) => d.spec.revision_history_limit,
            Workload::StatefulSet(s) => s.spec.revision_history_limit,
            _ => None,
        }
        .unwrap_or(10);
        let limit = usize::try_from(limit).unwrap_or(0);
        let mut old: Vec<&Revision> = self
            .revisions
            .iter()
            .filter(|r| !keep.contains(&r.name))
            .collect();
        if old.len() <= limit {
            return;
        }
        let live = live();
        let mut to_kill = old.len() - limit;
        old.sort_by_key(|r| r.revision);
        let mut gone: BTreeSet<String> = BTreeSet::new();
        for r in old {
            if to_kill == 0 {
                break;
            }
            if live.contains(&pod_label_of(w, r)) {
                continue;
            }
            gone.insert(r.name.clone());
            to_kill -= 1;
        }
        for name in &gone {
            writes.push(ObjectWrite::Delete {
                resource: RESOURCE,
                namespace: w.namespace().to_string(),
                name: name.clone(),
            });
        }
        self.revisions.retain(|r| !gone.contains(&r.name));
    }

    /// The pod labels of every revision but `current`: the pods a rolling update replaces.
    pub fn old_labels(&self, w: &Workload, current: &str) -> BTreeSet<String> {
        self.revisions
            .iter()
            .filter(|r| r.name != current)
            .map(|r| pod_label_of(w, r))
            .collect()
    }
}
