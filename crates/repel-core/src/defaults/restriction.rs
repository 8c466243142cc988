//! The PodTolerationRestriction admission plugin and the toleration-set helpers it uses
//! (`plugin/pkg/admission/podtolerationrestriction`, `pkg/util/tolerations`).

use k8s_openapi::api::core::v1::{Namespace, Pod, Toleration};
use thiserror::Error;

use super::gojson;
use super::qos::get_pod_qos;
use crate::taint::{NO_EXECUTE, NO_SCHEDULE, TAINT_NODE_MEMORY_PRESSURE};
use crate::toleration::{OP_EQUAL, OP_EXISTS};

/// Namespace annotation holding the namespace's default tolerations (a JSON list).
pub const NS_DEFAULT_TOLERATIONS: &str = "scheduler.alpha.kubernetes.io/defaultTolerations";
/// Namespace annotation holding the namespace's toleration whitelist (a JSON list).
pub const NS_WHITELIST_TOLERATIONS: &str = "scheduler.alpha.kubernetes.io/tolerationsWhitelist";

/// Upstream's rejection when the namespace's own whitelist annotation is in force.
pub const WHITELIST_CONFLICT_NAMESPACE: &str = "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist";
/// Upstream's rejection when the cluster-wide whitelist (plugin config) is in force.
pub const WHITELIST_CONFLICT_CLUSTER: &str = "pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist";

/// The plugin's cluster-wide configuration (`podtolerationrestriction.admission.k8s.io`
/// `Configuration`): used when the namespace has no annotation of its own.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PodTolerationRestrictionConfig {
    /// Cluster default tolerations, added to new pods of namespaces without the default annotation.
    pub default: Vec<Toleration>,
    /// Cluster whitelist, checked for namespaces without the whitelist annotation; empty allows all.
    pub whitelist: Vec<Toleration>,
}

/// The admission operation being admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdmissionOperation {
    /// A pod is being created: namespace (or cluster) defaults are merged in.
    Create,
    /// A pod is being updated: only the memory-pressure toleration is merged in.
    Update,
}

/// Which whitelist rejected a pod; upstream names it in the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhitelistScope {
    /// The namespace's `tolerationsWhitelist` annotation.
    Namespace,
    /// The plugin configuration's cluster-wide whitelist.
    Cluster,
}

/// Why PodTolerationRestriction refused a pod. `Display` is the message the API server returns.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AdmissionError {
    /// Some pod toleration is not covered by any whitelist entry. Upstream returns a plain
    /// error: the API server answers 500 with this bare message (no `pods "x" is forbidden:`).
    #[error("{}", match .scope {
        WhitelistScope::Namespace => WHITELIST_CONFLICT_NAMESPACE,
        WhitelistScope::Cluster => WHITELIST_CONFLICT_CLUSTER,
    })]
    WhitelistConflict {
        /// The whitelist in force.
        scope: WhitelistScope,
    },
    /// A namespace annotation is not a JSON list of tolerations; the message is Go's
    /// `encoding/json` error text, returned bare (500) as upstream does.
    #[error("{message}")]
    InvalidAnnotation {
        /// The annotation key.
        annotation: &'static str,
        /// Go's `json.Unmarshal` error message.
        message: String,
    },
    /// The pod's namespace does not exist (upstream's NotFound, HTTP 404).
    #[error("namespaces \"{0}\" not found")]
    NamespaceNotFound(String),
}

impl AdmissionError {
    /// The HTTP status the API server answers with: 404 for a missing namespace, else 500
    /// (upstream returns plain errors, which the server reports as internal errors).
    pub fn http_status(&self) -> u16 {
        match self {
            Self::NamespaceNotFound(_) => 404,
            _ => 500,
        }
    }
}

fn s(o: &Option<String>) -> &str {
    o.as_deref().unwrap_or_default()
}

/// Go's `apiequality.Semantic.DeepEqual` on internal tolerations: an unset string equals `""`.
fn semantic_eq(a: &Toleration, b: &Toleration) -> bool {
    s(&a.key) == s(&b.key)
        && s(&a.operator) == s(&b.operator)
        && s(&a.value) == s(&b.value)
        && s(&a.effect) == s(&b.effect)
        && a.toleration_seconds == b.toleration_seconds
}

/// Upstream `isSuperset(ss, t)` (`pkg/util/tolerations`, v1.19+): whether `ss` tolerates
/// everything `t` tolerates. In order:
///
/// 1. Deep-equal (unset strings equal `""`): true.
/// 2. Different keys: false, unless `ss` is the wildcard (empty key with `Exists`).
/// 3. `ss` has a non-empty effect different from `t`'s: false.
/// 4. `ss` is `NoExecute` with `tolerationSeconds` S: `t` needs seconds, at most S.
/// 5. `ss` operator `Equal` or empty: `t`'s operator must be literally `Equal` (empty is not
///    enough) and the values equal. `Exists`: true. Any other operator (`Lt`/`Gt` too): false.
pub fn is_superset(ss: &Toleration, t: &Toleration) -> bool {
    if semantic_eq(ss, t) {
        return true;
    }
    if s(&t.key) != s(&ss.key) && (!s(&ss.key).is_empty() || s(&ss.operator) != OP_EXISTS) {
        return false;
    }
    if s(&t.effect) != s(&ss.effect) && !s(&ss.effect).is_empty() {
        return false;
    }
    if s(&ss.effect) == NO_EXECUTE
        && let Some(max) = ss.toleration_seconds
        && t.toleration_seconds.is_none_or(|secs| secs > max)
    {
        return false;
    }
    match s(&ss.operator) {
        "" | OP_EQUAL => s(&t.operator) == OP_EQUAL && s(&t.value) == s(&ss.value),
        OP_EXISTS => true,
        _ => false,
    }
}

/// Upstream `VerifyAgainstWhitelist`: true when the whitelist or the tolerations are empty,
/// else when every toleration has a superset ([`is_superset`]) in the whitelist.
pub fn verify_against_whitelist(tolerations: &[Toleration], whitelist: &[Toleration]) -> bool {
    whitelist.is_empty()
        || tolerations
            .iter()
            .all(|t| whitelist.iter().any(|w| is_superset(w, t)))
}

/// Upstream `MergeTolerations(first, second)` (v1.19+): walk `first` then `second` in order and
/// keep an element unless
///
/// 1. something already kept is a superset of it, or
/// 2. a later element, not deep-equal to it, is a superset of it (of two equal ones the first stays).
pub fn merge_tolerations(first: &[Toleration], second: &[Toleration]) -> Vec<Toleration> {
    let all: Vec<&Toleration> = first.iter().chain(second).collect();
    let mut merged: Vec<Toleration> = Vec::new();
    for (i, t) in all.iter().enumerate() {
        if merged.iter().any(|kept| is_superset(kept, t)) {
            continue;
        }
        if all[i + 1..]
            .iter()
            .any(|later| !semantic_eq(t, later) && is_superset(later, t))
        {
            continue;
        }
        merged.push((*t).clone());
    }
    merged
}

/// Upstream `extractNSTolerations`: `Ok(None)` when the annotation is absent, `Ok(Some([]))`
/// when it is present but empty, the decoded list otherwise (Go `encoding/json` rules).
pub fn namespace_tolerations(
    namespace: &Namespace,
    annotation: &'static str,
) -> Result<Option<Vec<Toleration>>, AdmissionError> {
    let Some(value) = namespace
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(annotation))
    else {
        return Ok(None);
    };
    if value.is_empty() {
        return Ok(Some(Vec::new()));
    }
    gojson::decode_tolerations(value)
        .map(Some)
        .map_err(|message| AdmissionError::InvalidAnnotation {
            annotation,
            message,
        })
}

/// The toleration PodTolerationRestriction adds to every pod that is not `BestEffort`.
pub fn memory_pressure_toleration() -> Toleration {
    Toleration {
        key: Some(TAINT_NODE_MEMORY_PRESSURE.to_string()),
        operator: Some(OP_EXISTS.to_string()),
        effect: Some(NO_SCHEDULE.to_string()),
        ..Default::default()
    }
}

/// The PodTolerationRestriction admission plugin, Admit then Validate (Kubernetes v1.19+,
/// unchanged through v1.35): [`pod_toleration_restriction_admit`] then
/// [`pod_toleration_restriction_validate`]. `namespace` is the pod's namespace object (`None`: it
/// does not exist). kube-apiserver runs every mutating plugin before any validating one, so in a
/// chain with plugins after it (ExtendedResourceToleration) call the two halves apart.
pub fn pod_toleration_restriction(
    pod: &mut Pod,
    namespace: Option<&Namespace>,
    cfg: &PodTolerationRestrictionConfig,
    op: AdmissionOperation,
) -> Result<(), AdmissionError> {
    pod_toleration_restriction_admit(pod, namespace, cfg, op)?;
    pod_toleration_restriction_validate(pod, namespace, cfg)
}

/// PodTolerationRestriction's `Admit` (the mutating half):
///
/// 1. On `Create`, the namespace's `defaultTolerations` annotation (absent: the config default;
///    present but `""`: nothing) gives the extra tolerations.
/// 2. On `Create` and `Update`, a pod whose QoS (`status.qosClass` if set, else computed) is not
///    `BestEffort` also gets `node.kubernetes.io/memory-pressure` `Exists` `NoSchedule`.
/// 3. If there are extras, `tolerations = merge_tolerations(pod tolerations, extras)`. A pod
///    toleration never conflicts with a default: both stay unless one is a superset.
///
/// A bad annotation is an error only when it is read (defaults on Create); so is a missing
/// namespace. On error the pod may already be mutated; upstream discards it too.
pub fn pod_toleration_restriction_admit(
    pod: &mut Pod,
    namespace: Option<&Namespace>,
    cfg: &PodTolerationRestrictionConfig,
    op: AdmissionOperation,
) -> Result<(), AdmissionError> {
    let mut extra: Vec<Toleration> = Vec::new();
    if op == AdmissionOperation::Create {
        let ns = namespace_or_err(pod, namespace)?;
        extra = namespace_tolerations(ns, NS_DEFAULT_TOLERATIONS)?
            .unwrap_or_else(|| cfg.default.clone());
    }
    if get_pod_qos(pod) != "BestEffort" {
        extra.push(memory_pressure_toleration());
    }
    if !extra.is_empty() {
        let spec = pod.spec.get_or_insert_with(Default::default);
        let merged = merge_tolerations(spec.tolerations.as_deref().unwrap_or_default(), &extra);
        spec.tolerations = (!merged.is_empty()).then_some(merged);
    }
    Ok(())
}

/// PodTolerationRestriction's `Validate` (the validating half), on the pod as every mutating
/// plugin left it:
///
/// 1. If the pod has tolerations, the whitelist is the namespace's `tolerationsWhitelist`
///    annotation (absent: the config whitelist); an empty whitelist allows everything.
/// 2. Every toleration must have a superset in it, else [`AdmissionError::WhitelistConflict`]
///    naming the `namespace` or `cluster` whitelist.
///
/// A bad annotation, or a missing namespace, is an error only when the pod has tolerations.
pub fn pod_toleration_restriction_validate(
    pod: &Pod,
    namespace: Option<&Namespace>,
    cfg: &PodTolerationRestrictionConfig,
) -> Result<(), AdmissionError> {
    let tolerations = pod
        .spec
        .as_ref()
        .and_then(|s| s.tolerations.as_deref())
        .unwrap_or_default();
    if tolerations.is_empty() {
        return Ok(());
    }
    let ns = namespace_or_err(pod, namespace)?;
    let (whitelist, scope) = match namespace_tolerations(ns, NS_WHITELIST_TOLERATIONS)? {
        Some(list) => (list, WhitelistScope::Namespace),
        None => (cfg.whitelist.clone(), WhitelistScope::Cluster),
    };
    if verify_against_whitelist(tolerations, &whitelist) {
        Ok(())
    } else {
        Err(AdmissionError::WhitelistConflict { scope })
    }
}

/// The namespace, or upstream's NotFound for the pod's namespace.
fn namespace_or_err<'a>(
    pod: &Pod,
    namespace: Option<&'a Namespace>,
) -> Result<&'a Namespace, AdmissionError> {
    namespace.ok_or_else(|| {
        AdmissionError::NamespaceNotFound(pod.metadata.namespace.clone().unwrap_or_default())
    })
}

#[cfg(test)]
mod tests;
