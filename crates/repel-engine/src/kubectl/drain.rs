//! `kubectl drain`'s client-side rules (kubectl v1.32: `staging/src/k8s.io/kubectl/pkg/drain/
//! {drain,filters}.go`): its flags that change what happens, the pod filters (DaemonSet-managed,
//! mirror, local storage, unmanaged) with upstream's messages, and the list of pods a drain
//! deletes or evicts. The scenario step (`kubectl drain` in [`crate::kubectl_steps`]) and the
//! drain what-if ([`crate::drain`]) both judge a node's pods with them.

use repel_core::labels::LabelSelector;

use crate::clock::Millis;

/// Filter error for DaemonSet-managed pods (upstream `daemonSetFatal`).
pub const DAEMON_SET_FATAL: &str = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)";
/// Filter warning for DaemonSet-managed pods (upstream `daemonSetWarning`).
pub const DAEMON_SET_WARNING: &str = "ignoring DaemonSet-managed Pods";
/// Filter error for pods with emptyDir volumes (upstream `localStorageFatal`).
pub const LOCAL_STORAGE_FATAL: &str =
    "Pods with local storage (use --delete-emptydir-data to override)";
/// Filter warning for pods with emptyDir volumes (upstream `localStorageWarning`).
pub const LOCAL_STORAGE_WARNING: &str = "deleting Pods with local storage";
/// Filter error for pods without a controller (upstream `unmanagedFatal`).
pub const UNMANAGED_FATAL: &str =
    "cannot delete Pods that declare no controller (use --force to override)";
/// Filter warning for pods without a controller (upstream `unmanagedWarning`).
pub const UNMANAGED_WARNING: &str = "deleting Pods that declare no controller";
/// The annotation marking a mirror pod.
pub const MIRROR_POD_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// The drain flags that change what happens.
#[derive(Debug, Clone, Default)]
pub struct DrainOptions {
    /// `--force`: delete pods without a controller.
    pub force: bool,
    /// `--ignore-daemonsets`.
    pub ignore_daemonsets: bool,
    /// `--delete-emptydir-data` (or the deprecated `--delete-local-data`).
    pub delete_emptydir_data: bool,
    /// `--disable-eviction`: delete instead of evicting (budgets are not consulted).
    pub disable_eviction: bool,
    /// `--timeout` (`None`: wait forever).
    pub timeout: Option<Millis>,
    /// `--pod-selector`.
    pub pod_selector: Option<LabelSelector>,
    /// The DaemonSets the API server holds, `(namespace, name)`, which `daemonSetFilter` looks
    /// a pod's controller up in; `None` takes every DaemonSet a pod names to exist.
    pub daemon_sets: Option<std::sync::Arc<std::collections::BTreeSet<(String, String)>>>,
}

mod filters;
pub use filters::{
    PodDeleteList, PodDeleteStatus, filter_pod, pods_for_deletion, pods_for_deletion_of,
};
