//! What the control plane adds to pods and nodes: admission defaults and DaemonSet tolerations.
//!
//! - [`default_toleration_seconds`]: the DefaultTolerationSeconds admission plugin.
//! - [`add_daemonset_tolerations`], [`add_or_update_toleration`]: what the DaemonSet controller
//!   puts on its pods.
//! - [`pod_qos`], [`quantity_is_positive`]: the pod QoS class.
//! - [`pod_toleration_restriction`], [`merge_tolerations`], [`is_superset`],
//!   [`verify_against_whitelist`]: the PodTolerationRestriction admission plugin.
//! - [`taint_nodes_by_condition`]: the TaintNodesByCondition admission plugin.
//! - [`extended_resource_toleration`], [`is_extended_resource_name`]: the
//!   ExtendedResourceToleration admission plugin.
//!
//! All of it is pure: the caller says which operation is admitted and passes the namespace.

use k8s_openapi::api::core::v1::{Node, PodSpec, Taint, Toleration};

use crate::taint::{
    NO_EXECUTE, NO_SCHEDULE, TAINT_NODE_DISK_PRESSURE, TAINT_NODE_MEMORY_PRESSURE,
    TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_NODE_NOT_READY, TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE, match_taint, new_taint,
};
use crate::toleration::OP_EXISTS;

mod extended_resource;
mod gojson;
mod qos;
mod restriction;

pub use extended_resource::{
    DEFAULT_RESOURCE_REQUESTS_PREFIX, EXTENDED_RESOURCE_TOLERATION,
    RESOURCE_DEFAULT_NAMESPACE_PREFIX, extended_resource_toleration,
    extended_resource_toleration_for, is_extended_resource_name, is_native_resource,
    requested_extended_resources,
};

pub use qos::{QosClass, get_pod_qos, parse_quantity_nanos, pod_qos, quantity_is_positive};
pub use restriction::{
    AdmissionError, AdmissionOperation, NS_DEFAULT_TOLERATIONS, NS_WHITELIST_TOLERATIONS,
    PodTolerationRestrictionConfig, WHITELIST_CONFLICT_CLUSTER, WHITELIST_CONFLICT_NAMESPACE,
    WhitelistScope, is_superset, memory_pressure_toleration, merge_tolerations,
    namespace_tolerations, pod_toleration_restriction, pod_toleration_restriction_admit,
    pod_toleration_restriction_validate, verify_against_whitelist,
};

/// The kube-apiserver default of `--default-not-ready-toleration-seconds`.
pub const DEFAULT_NOT_READY_TOLERATION_SECONDS: i64 = 300;
/// The kube-apiserver default of `--default-unreachable-toleration-seconds`.
pub const DEFAULT_UNREACHABLE_TOLERATION_SECONDS: i64 = 300;

/// The DefaultTolerationSeconds settings (kube-apiserver flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultTolerationSecondsConfig {
    /// `--default-not-ready-toleration-seconds` (300).
    pub not_ready_seconds: i64,
    /// `--default-unreachable-toleration-seconds` (300).
    pub unreachable_seconds: i64,
}

impl Default for DefaultTolerationSecondsConfig {
    fn default() -> Self {
        Self {
            not_ready_seconds: DEFAULT_NOT_READY_TOLERATION_SECONDS,
            unreachable_seconds: DEFAULT_UNREACHABLE_TOLERATION_SECONDS,
        }
    }
}

fn s(o: &Option<String>) -> &str {
    o.as_deref().unwrap_or_default()
}

fn exists_toleration(key: &str, effect: &str, seconds: Option<i64>) -> Toleration {
    Toleration {
        key: Some(key.to_string()),
        operator: Some(OP_EXISTS.to_string()),
        effect: Some(effect.to_string()),
        toleration_seconds: seconds,
        value: None,
    }
}

/// Upstream `Toleration.MatchToleration` with Go's string semantics (an unset field equals `""`).
fn match_toleration(a: &Toleration, b: &Toleration) -> bool {
    s(&a.key) == s(&b.key)
        && s(&a.operator) == s(&b.operator)
        && s(&a.value) == s(&b.value)
        && s(&a.effect) == s(&b.effect)
}

/// Whether DefaultTolerationSeconds counts `t` as tolerating `key:NoExecute`: the key equals
/// `key` or is empty, and the effect is `NoExecute` or empty. Operator and value are not read.
fn counts_for(t: &Toleration, key: &str) -> bool {
    (s(&t.key) == key || s(&t.key).is_empty())
        && (s(&t.effect) == NO_EXECUTE || s(&t.effect).is_empty())
}

/// The DefaultTolerationSeconds admission plugin (`plugin/pkg/admission/defaulttolerationseconds`,
/// Kubernetes v1.35), run on pod Create and Update:
///
/// 1. The pod already tolerates `node.kubernetes.io/not-ready` if some toleration has that key
///    or an empty key, and effect `NoExecute` or an empty effect; operator and value are not
///    inspected (so `Equal` with a value counts too). Likewise for `node.kubernetes.io/unreachable`.
/// 2. Otherwise `{key, operator: Exists, effect: NoExecute, tolerationSeconds}` is appended,
///    not-ready first, with the configured seconds (300 each by default).
pub fn default_toleration_seconds(spec: &mut PodSpec, cfg: &DefaultTolerationSecondsConfig) {
    let existing = spec.tolerations.as_deref().unwrap_or_default();
    let not_ready = existing.iter().any(|t| counts_for(t, TAINT_NODE_NOT_READY));
    let unreachable = existing
        .iter()
        .any(|t| counts_for(t, TAINT_NODE_UNREACHABLE));
    if not_ready && unreachable {
        return;
    }
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    if !not_ready {
        tolerations.push(exists_toleration(
            TAINT_NODE_NOT_READY,
            NO_EXECUTE,
            Some(cfg.not_ready_seconds),
        ));
    }
    if !unreachable {
        tolerations.push(exists_toleration(
            TAINT_NODE_UNREACHABLE,
            NO_EXECUTE,
            Some(cfg.unreachable_seconds),
        ));
    }
}

/// Upstream `AddOrUpdateTolerationInPodSpec` (`pkg/apis/core/v1/helper/helpers.go`, v1.35):
///
/// 1. Every existing toleration that `MatchToleration`s `t` (same key, operator, value and
///    effect; `tolerationSeconds` ignored) is replaced, in place, by `t`.
/// 2. If none matched, `t` is appended.
/// 3. Returns `true`. Upstream means to return `false` when an equal toleration is already
///    there, but its check compares a `*Toleration` with a `Toleration` through
///    `Semantic.DeepEqual`, which is never equal; so it always rewrites and returns `true`. The
///    list's content is the same either way, except that duplicates of `t` all get rewritten.
pub fn add_or_update_toleration(spec: &mut PodSpec, t: &Toleration) -> bool {
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    let mut updated = false;
    for existing in tolerations.iter_mut() {
        if match_toleration(t, existing) {
            *existing = t.clone();
            updated = true;
        }
    }
    if !updated {
        tolerations.push(t.clone());
    }
    true
}

/// The tolerations the DaemonSet controller puts on every daemon pod, in upstream's order:
/// `(key, effect)`, all `Exists` and without `tolerationSeconds`. The last one applies only to
/// `hostNetwork` pods.
pub const DAEMONSET_TOLERATIONS: [(&str, &str); 7] = [
    (TAINT_NODE_NOT_READY, NO_EXECUTE),
    (TAINT_NODE_UNREACHABLE, NO_EXECUTE),
    (TAINT_NODE_DISK_PRESSURE, NO_SCHEDULE),
    (TAINT_NODE_MEMORY_PRESSURE, NO_SCHEDULE),
    (TAINT_NODE_PID_PRESSURE, NO_SCHEDULE),
    (TAINT_NODE_UNSCHEDULABLE, NO_SCHEDULE),
    (TAINT_NODE_NETWORK_UNAVAILABLE, NO_SCHEDULE),
];

/// Upstream `AddOrUpdateDaemonPodTolerations` (`pkg/controller/daemon/util/daemonset_util.go`,
/// v1.35), applied to each new daemon pod. Through [`add_or_update_toleration`], in this order:
///
/// 1. `node.kubernetes.io/not-ready` `Exists` `NoExecute`, forever (no `tolerationSeconds`);
/// 2. `node.kubernetes.io/unreachable` `Exists` `NoExecute`, forever;
/// 3. `disk-pressure`, 4. `memory-pressure`, 5. `pid-pressure`, 6. `unschedulable`, each
///    `Exists` `NoSchedule`;
/// 7. `network-unavailable` `Exists` `NoSchedule`, only when `hostNetwork` is true.
///
/// A template's `not-ready:NoExecute` `Exists` with `tolerationSeconds: 300` is replaced in place
/// by the forever one. A wildcard toleration does not stop any of these being added.
pub fn add_daemonset_tolerations(spec: &mut PodSpec) {
    let host_network = spec.host_network == Some(true);
    let count = if host_network { 7 } else { 6 };
    for (key, effect) in &DAEMONSET_TOLERATIONS[..count] {
        add_or_update_toleration(spec, &exists_toleration(key, effect, None));
    }
}

/// The TaintNodesByCondition admission plugin (`plugin/pkg/admission/nodetaint`, v1.35), run on
/// Node Create only:
///
/// 1. If no taint has key `node.kubernetes.io/not-ready` and effect `NoSchedule` (the value is
///    ignored; a `NoExecute` one does not count), that taint is appended with an empty value and
///    no `timeAdded`.
pub fn taint_nodes_by_condition(node: &mut Node) {
    let not_ready = new_taint(TAINT_NODE_NOT_READY, "", NO_SCHEDULE);
    let taints: &mut Vec<Taint> = node
        .spec
        .get_or_insert_with(Default::default)
        .taints
        .get_or_insert_with(Vec::new);
    if !taints.iter().any(|t| match_taint(t, &not_ready)) {
        taints.push(not_ready);
    }
}

#[cfg(test)]
mod tests;
