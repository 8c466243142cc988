//! kubectl's drain filters (`pkg/drain/filters.go`, kubectl v1.32) and the pod list they
//! produce.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::{
    DAEMON_SET_FATAL, DAEMON_SET_WARNING, DrainOptions, LOCAL_STORAGE_FATAL, LOCAL_STORAGE_WARNING,
    MIRROR_POD_ANNOTATION, UNMANAGED_FATAL, UNMANAGED_WARNING,
};
use crate::cluster::{Cluster, NodeId, PodId, PodInfo, PodPhase};

/// Upstream `PodDeleteStatus`: whether a pod is deleted, and why not or with what warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodDeleteStatus {
    /// Delete it.
    Okay,
    /// Leave it, silently (mirror pods).
    Skip,
    /// A warning; `delete` says whether the pod still goes.
    Warning {
        /// Whether the pod is deleted.
        delete: bool,
        /// The warning.
        message: String,
    },
    /// The drain cannot go on: the pod would have to be deleted and may not be.
    Error(String),
}

impl PodDeleteStatus {
    /// Whether the pod is deleted.
    pub fn delete(&self) -> bool {
        matches!(self, Self::Okay | Self::Warning { delete: true, .. })
    }
}

/// Upstream `metav1.GetControllerOf`: the owner reference with `controller: true`.
fn controller_kind(meta: &ObjectMeta) -> Option<&str> {
    controller_of(meta).map(|o| o.kind.as_str())
}

/// Upstream `metav1.GetControllerOf`.
fn controller_of(
    meta: &ObjectMeta,
) -> Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> {
    meta.owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
}

/// The API server's NotFound message for a DaemonSet (`apierrors.NewNotFound` on
/// `daemonsets.apps`), as `err.Error()` gives it to kubectl.
pub fn daemon_set_not_found(name: &str) -> String {
    format!("daemonsets.apps {name:?} not found")
}

fn finished(info: &PodInfo) -> bool {
    matches!(info.phase, PodPhase::Succeeded | PodPhase::Failed)
        || matches!(
            info.status.as_ref().and_then(|s| s.phase.as_deref()),
            Some("Succeeded" | "Failed")
        )
}

/// Upstream `makeFilters` + `filterPods` (kubectl v1.32 `pkg/drain`), for one pod. The filters
/// run in order and stop at the first that does not delete; the last status is the pod's:
///
/// 1. `daemonSetFilter`: a pod whose controller is a DaemonSet and that has not finished: when
///    the DaemonSet is not found, the API server's NotFound error (`daemonsets.apps "x" not
///    found`) unless `--force`, which deletes it with that warning — `--ignore-daemonsets`
///    does not help; else an error without `--ignore-daemonsets`, else a warning and not
///    deleted.
/// 2. `mirrorPodFilter`: a pod with the `kubernetes.io/config.mirror` annotation is skipped.
/// 3. `localStorageFilter`: an unfinished pod with an emptyDir volume is an error without
///    `--delete-emptydir-data`, else a warning (later filters may overwrite it, as upstream).
/// 4. `unreplicatedFilter`: an unfinished pod without a controller is an error without
///    `--force`, else a warning.
pub fn filter_pod(info: &PodInfo, opts: &DrainOptions) -> PodDeleteStatus {
    let filters: [fn(&PodInfo, &DrainOptions) -> PodDeleteStatus; 4] = [
        daemon_set_filter,
        mirror_pod_filter,
        local_storage_filter,
        unreplicated_filter,
    ];
    let mut status = PodDeleteStatus::Okay;
    for f in filters {
        status = f(info, opts);
        if !status.delete() {
            break;
        }
    }
    status
}

fn daemon_set_filter(info: &PodInfo, opts: &DrainOptions) -> PodDeleteStatus {
    let Some(owner) = controller_of(&info.meta).filter(|o| o.kind == "DaemonSet") else {
        return PodDeleteStatus::Okay;
    };
    if finished(info) {
        return PodDeleteStatus::Okay;
    }
    if let Some(known) = &opts.daemon_sets
        && !known.contains(&(info.namespace.clone(), owner.name.clone()))
    {
        // d.Client.AppsV1().DaemonSets(ns).Get(…): NotFound.
        let err = daemon_set_not_found(&owner.name);
        if opts.force {
            return PodDeleteStatus::Warning {
                delete: true,
                message: err,
            };
        }
        return PodDeleteStatus::Error(err);
    }
    if !opts.ignore_daemonsets {
        return PodDeleteStatus::Error(DAEMON_SET_FATAL.to_string());
    }
    PodDeleteStatus::Warning {
        delete: false,
        message: DAEMON_SET_WARNING.to_string(),
    }
}

fn mirror_pod_filter(info: &PodInfo, _: &DrainOptions) -> PodDeleteStatus {
    let mirror = info
        .meta
        .annotations
        .as_ref()
        .is_some_and(|a| a.contains_key(MIRROR_POD_ANNOTATION));
    if mirror {
        PodDeleteStatus::Skip
    } else {
        PodDeleteStatus::Okay
    }
}

fn local_storage_filter(info: &PodInfo, opts: &DrainOptions) -> PodDeleteStatus {
    let local = info
        .spec()
        .volumes
        .iter()
        .flatten()
        .any(|v| v.empty_dir.is_some());
    if !local || finished(info) {
        return PodDeleteStatus::Okay;
    }
    if !opts.delete_emptydir_data {
        return PodDeleteStatus::Error(LOCAL_STORAGE_FATAL.to_string());
    }
    PodDeleteStatus::Warning {
        delete: true,
        message: LOCAL_STORAGE_WARNING.to_string(),
    }
}

fn unreplicated_filter(info: &PodInfo, opts: &DrainOptions) -> PodDeleteStatus {
    if finished(info) || controller_kind(&info.meta).is_some() {
        return PodDeleteStatus::Okay;
    }
    if opts.force {
        return PodDeleteStatus::Warning {
            delete: true,
            message: UNMANAGED_WARNING.to_string(),
        };
    }
    PodDeleteStatus::Error(UNMANAGED_FATAL.to_string())
}

/// Upstream `PodDeleteList`: every pod on the node with its status.
#[derive(Debug, Clone, Default)]
pub struct PodDeleteList {
    /// `(pod, ns/name, status)` in the API's list order (namespace, then name).
    pub items: Vec<(PodId, String, PodDeleteStatus)>,
}

/// Groups `ns/name` by message, in first-seen order (upstream groups through a Go map, whose
/// order is random).
fn grouped<'a>(items: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<(&'a str, Vec<&'a str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for (msg, key) in items {
        match out.iter_mut().find(|(m, _)| *m == msg) {
            Some((_, keys)) => keys.push(key),
            None => out.push((msg, vec![key])),
        }
    }
    out
}

impl PodDeleteList {
    /// Upstream `Pods()`: the pods to delete.
    pub fn pods(&self) -> Vec<PodId> {
        self.items
            .iter()
            .filter(|(_, _, s)| s.delete())
            .map(|(id, _, _)| *id)
            .collect()
    }

    /// Upstream `Warnings()`: `message: ns/a, ns/b` per message, joined by `"; "`.
    pub fn warnings(&self) -> String {
        grouped(self.items.iter().filter_map(|(_, key, s)| match s {
            PodDeleteStatus::Warning { message, .. } => Some((message.as_str(), key.as_str())),
            _ => None,
        }))
        .into_iter()
        .map(|(m, keys)| format!("{m}: {}", keys.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
    }

    /// Upstream `errors()`: one per message, `cannot delete <message>: ns/a, ns/b` (a message
    /// that already starts with "cannot delete" is not prefixed again).
    pub fn errors(&self) -> Vec<String> {
        grouped(self.items.iter().filter_map(|(_, key, s)| match s {
            PodDeleteStatus::Error(m) => Some((m.as_str(), key.as_str())),
            _ => None,
        }))
        .into_iter()
        .map(|(m, keys)| {
            let m = if m.is_empty() { "unexpected error" } else { m };
            if m.to_lowercase().starts_with("cannot delete") {
                format!("{m}: {}", keys.join(", "))
            } else {
                format!("cannot delete {m}: {}", keys.join(", "))
            }
        })
        .collect()
    }
}

/// Upstream `GetPodsForDeletion`: the live pods whose `spec.nodeName` is the node (matching
/// `--pod-selector`), sorted by namespace and name as the API lists them, each filtered.
pub fn pods_for_deletion(cluster: &Cluster, node: NodeId, opts: &DrainOptions) -> PodDeleteList {
    let Some(name) = cluster.nodes.get(node).map(|n| n.name.as_str()) else {
        return PodDeleteList::default();
    };
    let ids: Vec<PodId> = (0..cluster.pods.len())
        .filter(|i| {
            let p = &cluster.pods[*i];
            !p.deleted && (p.node == Some(node) || p.spec_node_name() == Some(name))
        })
        .collect();
    pods_for_deletion_of(cluster, ids, opts)
}

/// [`pods_for_deletion`] given the live pods on the node (`ids`, any order): a what-if that
/// keeps the pods per node finds them without a pass over every pod.
pub fn pods_for_deletion_of(
    cluster: &Cluster,
    mut ids: Vec<PodId>,
    opts: &DrainOptions,
) -> PodDeleteList {
    ids.retain(|&i| {
        opts.pod_selector
            .as_ref()
            .is_none_or(|s| s.matches(cluster.pods[i].labels()))
    });
    ids.sort_by(|a, b| {
        let (pa, pb) = (&cluster.pods[*a], &cluster.pods[*b]);
        (&pa.namespace, &pa.name).cmp(&(&pb.namespace, &pb.name))
    });
    PodDeleteList {
        items: ids
            .into_iter()
            .map(|id| {
                let p = &cluster.pods[id];
                (id, p.key(), filter_pod(p, opts))
            })
            .collect(),
    }
}
