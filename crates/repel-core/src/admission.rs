//! The admission chain a pod passes on creation in kube-apiserver, as far as tolerations go.
//!
//! kube-apiserver runs its mutating plugins in the fixed order of `AllOrderedPlugins`
//! (`pkg/kubeapiserver/options/plugins.go`), then their validating halves in the same order:
//! Priority, DefaultTolerationSeconds, PodTolerationRestriction, ExtendedResourceToleration.
//! DefaultTolerationSeconds and Priority are on by default upstream (kube-apiserver v1.35's
//! `DefaultOffAdmissionPlugins` leaves them on); PodTolerationRestriction and
//! ExtendedResourceToleration are not: a cluster enables them with `--enable-admission-plugins`.
//! repel's default is stock kube-apiserver's. The concept page's sentence about the
//! memory-pressure toleration for pods outside BestEffort describes PodTolerationRestriction
//! (kubernetes#50180): it holds only where a cluster enables that plugin, and a stock cluster's
//! pods (a kind cluster's v1.35 dump among them) carry no such toleration.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Namespace, Pod, PodSpec, Toleration};
use k8s_openapi::api::scheduling::v1::PriorityClass;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::FeatureGates;
use crate::defaults::{
    AdmissionError, AdmissionOperation, DefaultTolerationSecondsConfig,
    PodTolerationRestrictionConfig, default_toleration_seconds, extended_resource_toleration,
    pod_toleration_restriction_admit, pod_toleration_restriction_validate,
};
use crate::validation::{
    FieldError, ValidationOptions, invalid_message, validate_pod_spec_tolerations,
};
use crate::workload::namespace_of;

mod plugins;

pub use plugins::{
    ADMISSION_PRESETS, ALL_ORDERED_PLUGINS, DEFAULT_TOLERATION_SECONDS,
    EXTENDED_RESOURCE_TOLERATION, POD_TOLERATION_RESTRICTION, PRIORITY, PluginFlagError,
    PluginFlagErrors, TAINT_NODES_BY_CONDITION,
};

/// Which admission plugins run, with their configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct AdmissionConfig {
    /// DefaultTolerationSeconds, when enabled.
    pub default_toleration_seconds: Option<DefaultTolerationSecondsConfig>,
    /// PodTolerationRestriction, when enabled.
    pub pod_toleration_restriction: Option<PodTolerationRestrictionConfig>,
    /// ExtendedResourceToleration (off by default, as upstream).
    pub extended_resource_toleration: bool,
    /// The PriorityClasses the Priority plugin resolves `priorityClassName` against (the two
    /// built-in system classes are always there).
    pub priority_classes: Vec<PriorityClass>,
}

impl Default for AdmissionConfig {
    /// Stock kube-apiserver v1.35: DefaultTolerationSeconds on, with upstream's defaults (300 s);
    /// PodTolerationRestriction and ExtendedResourceToleration off.
    fn default() -> Self {
        AdmissionConfig {
            default_toleration_seconds: Some(DefaultTolerationSecondsConfig::default()),
            pod_toleration_restriction: None,
            extended_resource_toleration: false,
            priority_classes: Vec::new(),
        }
    }
}

/// Admits a pod through the enabled plugins in kube-apiserver's order: the mutating halves
/// (DefaultTolerationSeconds, PodTolerationRestriction's Admit, ExtendedResourceToleration), then
/// the validating one (PodTolerationRestriction's whitelist, which so also judges the tolerations
/// ExtendedResourceToleration added). `namespace` is the pod's Namespace object; when the caller
/// has none, the namespace is taken to exist without annotations, as it would in a cluster.
pub fn admit_pod(
    pod: &mut Pod,
    namespace: Option<&Namespace>,
    cfg: &AdmissionConfig,
) -> Result<(), AdmissionError> {
    admit(pod, namespace, cfg, &mut |_, _| {})
}

/// [`admit_pod`], saying which plugin added each toleration: one entry per toleration of the
/// admitted pod, `None` for one the pod had before admission, else the plugin's name
/// ([`DEFAULT_TOLERATION_SECONDS`], [`POD_TOLERATION_RESTRICTION`],
/// [`EXTENDED_RESOURCE_TOLERATION`]). (PodTolerationRestriction's merge may also drop tolerations
/// a wider one covers, the pod's own among them, as upstream's `DoTolerationsMerge` does.)
pub fn admit_pod_traced(
    pod: &mut Pod,
    namespace: Option<&Namespace>,
    cfg: &AdmissionConfig,
) -> Result<Vec<Option<&'static str>>, AdmissionError> {
    let tolerations = |pod: &Pod| -> Vec<Toleration> {
        pod.spec
            .as_ref()
            .and_then(|s| s.tolerations.clone())
            .unwrap_or_default()
    };
    let own = tolerations(pod);
    // Each plugin's tolerations as it left them, in the order the plugins ran.
    let mut stages: Vec<(&'static str, Vec<Toleration>)> = Vec::new();
    admit(pod, namespace, cfg, &mut |plugin, pod| {
        stages.push((plugin, tolerations(pod)))
    })?;
    let after = tolerations(pod);
    Ok(after
        .iter()
        .map(|t| {
            if own.contains(t) {
                return None;
            }
            stages
                .iter()
                .find(|(_, ts)| ts.contains(t))
                .map(|(plugin, _)| *plugin)
        })
        .collect())
}

/// The admission chain, calling `after` with each mutating plugin's name and the pod as it
/// left it.
fn admit(
    pod: &mut Pod,
    namespace: Option<&Namespace>,
    cfg: &AdmissionConfig,
    after: &mut dyn FnMut(&'static str, &Pod),
) -> Result<(), AdmissionError> {
    if let Some(dts) = &cfg.default_toleration_seconds
        && let Some(spec) = pod.spec.as_mut()
    {
        default_toleration_seconds(spec, dts);
        after(DEFAULT_TOLERATION_SECONDS, pod);
    }
    let implied;
    let ns = match namespace {
        Some(ns) => ns,
        None => {
            implied = Namespace {
                metadata: ObjectMeta {
                    name: Some(namespace_of(&pod.metadata).to_string()),
                    ..Default::default()
                },
                ..Default::default()
            };
            &implied
        }
    };
    if let Some(ptr) = &cfg.pod_toleration_restriction {
        if pod.metadata.namespace.is_none() {
            pod.metadata.namespace = Some(namespace_of(&pod.metadata).to_string());
        }
        pod_toleration_restriction_admit(pod, Some(ns), ptr, AdmissionOperation::Create)?;
        after(POD_TOLERATION_RESTRICTION, pod);
    }
    if cfg.extended_resource_toleration
        && let Some(spec) = pod.spec.as_mut()
    {
        extended_resource_toleration(spec);
        after(EXTENDED_RESOURCE_TOLERATION, pod);
    }
    if let Some(ptr) = &cfg.pod_toleration_restriction {
        pod_toleration_restriction_validate(pod, Some(ns), ptr)?;
    }
    Ok(())
}

/// Whether a pod is one an API server already stored, so that admission ran on it when it was
/// created and must not run again: admission plugins act on create (and some on update), never
/// on an object that is only read back. A pod is taken as stored when it carries what only the
/// API server writes — `metadata.uid` or `metadata.resourceVersion` — or when it is bound
/// (`spec.nodeName`) and has a `status.phase`, as every pod of `kubectl get pods -o yaml`, a
/// snapshot or a live read does. A manifest to create (`kubectl run --dry-run=client -o yaml`
/// prints `creationTimestamp: null` and `status: {}`) is not.
pub fn is_stored(pod: &Pod) -> bool {
    let m = &pod.metadata;
    if m.uid.as_deref().is_some_and(|u| !u.is_empty())
        || m.resource_version.as_deref().is_some_and(|v| !v.is_empty())
    {
        return true;
    }
    let bound = pod
        .spec
        .as_ref()
        .and_then(|s| s.node_name.as_deref())
        .is_some_and(|n| !n.is_empty());
    let phase = pod
        .status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .is_some_and(|p| !p.is_empty());
    bound && phase
}

/// The built-in PriorityClass `system-cluster-critical`.
pub const SYSTEM_CLUSTER_CRITICAL: (&str, i32) = ("system-cluster-critical", 2_000_000_000);
/// The built-in PriorityClass `system-node-critical`.
pub const SYSTEM_NODE_CRITICAL: (&str, i32) = ("system-node-critical", 2_000_001_000);
/// `PreemptLowerPriority`, the default preemption policy.
pub const PREEMPT_LOWER_PRIORITY: &str = "PreemptLowerPriority";

/// Upstream `SetDefaults_Pod` (pkg/apis/core/v1/defaults.go, v1.35), the part the scheduler
/// sees: for every container and init container, a resource with a limit but no request gets
/// the limit as its request; the same for pod-level `spec.resources`.
pub fn set_defaults_pod(spec: &mut PodSpec) {
    fn default_requests(r: &mut k8s_openapi::api::core::v1::ResourceRequirements) {
        let Some(limits) = r.limits.clone() else {
            return;
        };
        let requests = r.requests.get_or_insert_with(BTreeMap::new);
        for (k, v) in limits {
            requests.entry(k).or_insert(v);
        }
    }
    let containers = spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten());
    for c in containers {
        let c: &mut Container = c;
        if let Some(r) = c.resources.as_mut() {
            default_requests(r);
        }
    }
    if let Some(r) = spec.resources.as_mut() {
        default_requests(r);
    }
}

/// Upstream's Priority admission plugin (`plugin/pkg/admission/priority`, v1.35) on a new pod:
///
/// 1. Without `priorityClassName`: the class with `globalDefault: true` if any (its name, value
///    and preemption policy), else priority 0.
/// 2. With one: the class of that name — the built-in `system-cluster-critical` and
///    `system-node-critical` included — else "no PriorityClass with name X was found".
/// 3. A `spec.priority` or `spec.preemptionPolicy` the pod sets must equal the computed ones,
///    with upstream's messages.
pub fn resolve_priority(spec: &mut PodSpec, classes: &[PriorityClass]) -> Result<(), String> {
    let class_of = |name: &str| -> Option<(String, i32, Option<String>)> {
        if let Some(c) = classes
            .iter()
            .find(|c| c.metadata.name.as_deref() == Some(name))
        {
            return Some((
                name.to_string(),
                c.value.unwrap_or(0),
                c.preemption_policy.clone(),
            ));
        }
        [SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL]
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, v)| (n.to_string(), *v, None))
    };
    let resolved = match spec
        .priority_class_name
        .as_deref()
        .filter(|n| !n.is_empty())
    {
        None => classes
            .iter()
            .find(|c| c.global_default == Some(true))
            .map(|c| {
                (
                    c.metadata.name.clone().unwrap_or_default(),
                    c.value.unwrap_or(0),
                    c.preemption_policy.clone(),
                )
            }),
        Some(name) => Some(
            class_of(name).ok_or_else(|| format!("no PriorityClass with name {name} was found"))?,
        ),
    };
    let (name, value, policy) = match resolved {
        Some(r) => (
            Some(r.0),
            r.1,
            r.2.unwrap_or_else(|| PREEMPT_LOWER_PRIORITY.to_string()),
        ),
        None => (None, 0, PREEMPT_LOWER_PRIORITY.to_string()),
    };
    if let Some(p) = spec.priority
        && p != value
    {
        return Err(format!(
            "the integer value of priority ({p}) must not be provided in pod spec; priority admission controller computed {value} from the given PriorityClass name"
        ));
    }
    if let Some(p) = spec.preemption_policy.as_deref()
        && p != policy
    {
        return Err(format!(
            "the string value of PreemptionPolicy ({p}) must not be provided in pod spec; priority admission controller computed {policy} from the given PriorityClass name"
        ));
    }
    if name.is_some() {
        spec.priority_class_name = name;
    }
    spec.priority = Some(value);
    spec.preemption_policy = Some(policy);
    Ok(())
}

/// Why the API server would not store a new pod.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CreatePodError {
    /// An admission plugin refused it (its message, as the API server returns it).
    #[error(transparent)]
    Admission(#[from] AdmissionError),
    /// The Priority plugin refused it; displays as the API server's Forbidden.
    #[error("pods {name:?} is forbidden: {message}")]
    Priority {
        /// The pod's name.
        name: String,
        /// Upstream's message.
        message: String,
    },
    /// Validation after admission failed; displays as kubectl prints a 422.
    #[error("{}", invalid_message("Pod", name, errors).trim_end())]
    Invalid {
        /// The pod's name.
        name: String,
        /// The field errors.
        errors: Vec<FieldError>,
    },
}

/// What the API server does with a new pod, as far as the scheduler and tolerations go:
/// defaulting ([`set_defaults_pod`]), the Priority plugin ([`resolve_priority`]), the admission
/// chain ([`admit_pod`]), then validation of the result (`spec.tolerations`). Mutating admission
/// runs before validation in kube-apiserver, so a pod is judged as it would be stored.
pub fn create_pod(
    pod: &mut Pod,
    namespace: Option<&Namespace>,
    cfg: &AdmissionConfig,
    gates: &FeatureGates,
) -> Result<(), CreatePodError> {
    if let Some(spec) = pod.spec.as_mut() {
        set_defaults_pod(spec);
        resolve_priority(spec, &cfg.priority_classes).map_err(|message| {
            CreatePodError::Priority {
                name: pod.metadata.name.clone().unwrap_or_default(),
                message,
            }
        })?;
    }
    admit_pod(pod, namespace, cfg)?;
    let errors = pod
        .spec
        .as_ref()
        .map(|s| validate_pod_spec_tolerations(s, "spec", &ValidationOptions::from_gates(gates)))
        .unwrap_or_default();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(CreatePodError::Invalid {
            name: pod.metadata.name.clone().unwrap_or_default(),
            errors,
        })
    }
}

#[cfg(test)]
#[allow(clippy::type_complexity)]
mod tests;
