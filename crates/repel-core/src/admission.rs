//! The admission chain a pod passes on creation in kube-apiserver, as far as tolerations go.
//!
//! kube-apiserver runs its mutating plugins in the fixed order of `AllOrderedPlugins`
//! (`pkg/kubeapiserver/options/plugins.go`): DefaultTolerationSeconds comes before
//! PodTolerationRestriction. DefaultTolerationSeconds is on by default upstream;
//! PodTolerationRestriction is not (a cluster enables it with `--enable-admission-plugins`).
//! repel enables both by default because the documentation users read describes both as what
//! the control plane does (the memory-pressure toleration for pods outside BestEffort); turn
//! PodTolerationRestriction off to match a cluster that does not run it.

use k8s_openapi::api::core::v1::{Namespace, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::FeatureGates;
use crate::defaults::{
    AdmissionError, AdmissionOperation, DefaultTolerationSecondsConfig,
    PodTolerationRestrictionConfig, default_toleration_seconds, pod_toleration_restriction,
};
use crate::validation::{
    FieldError, ValidationOptions, invalid_message, validate_pod_spec_tolerations,
};
use crate::workload::namespace_of;

/// Which admission plugins run, with their configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct AdmissionConfig {
    /// DefaultTolerationSeconds, when enabled.
    pub default_toleration_seconds: Option<DefaultTolerationSecondsConfig>,
    /// PodTolerationRestriction, when enabled.
    pub pod_toleration_restriction: Option<PodTolerationRestrictionConfig>,
}

impl Default for AdmissionConfig {
    /// Both plugins on, with upstream's defaults (300 s; no cluster defaults or whitelist).
    fn default() -> Self {
        AdmissionConfig {
            default_toleration_seconds: Some(DefaultTolerationSecondsConfig::default()),
            pod_toleration_restriction: Some(PodTolerationRestrictionConfig::default()),
        }
    }
}

/// Admits a new pod: DefaultTolerationSeconds, then PodTolerationRestriction (admit, then
/// validate). `namespace` is the pod's Namespace object; when the caller has none, the
/// namespace is taken to exist without annotations, as it would in a cluster.
pub fn admit_pod(
    pod: &mut Pod,
    namespace: Option<&Namespace>,
    cfg: &AdmissionConfig,
) -> Result<(), AdmissionError> {
    if let Some(dts) = &cfg.default_toleration_seconds
        && let Some(spec) = pod.spec.as_mut()
    {
        default_toleration_seconds(spec, dts);
    }
    if let Some(ptr) = &cfg.pod_toleration_restriction {
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
        if pod.metadata.namespace.is_none() {
            pod.metadata.namespace = Some(namespace_of(&pod.metadata).to_string());
        }
        pod_toleration_restriction(pod, Some(ns), ptr, AdmissionOperation::Create)?;
    }
    Ok(())
}

/// Why the API server would not store a new pod.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CreatePodError {
    /// An admission plugin refused it (its message, as the API server returns it).
    #[error(transparent)]
    Admission(#[from] AdmissionError),
    /// Validation after admission failed; displays as kubectl prints a 422.
    #[error("{}", invalid_message("Pod", name, errors).trim_end())]
    Invalid {
        /// The pod's name.
        name: String,
        /// The field errors.
        errors: Vec<FieldError>,
    },
}

/// What the API server does with a new pod, as far as tolerations go: the admission chain
/// ([`admit_pod`]), then validation of the result (`spec.tolerations`). Mutating admission runs
/// before validation in kube-apiserver, so a pod is judged as it would be stored.
pub fn create_pod(
    pod: &mut Pod,
    namespace: Option<&Namespace>,
    cfg: &AdmissionConfig,
    gates: &FeatureGates,
) -> Result<(), CreatePodError> {
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
mod tests {
    use super::*;
    use crate::testing::{pod_with_tolerations, tol_secs};
    use k8s_openapi::api::core::v1::{ResourceRequirements, Toleration};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

    fn keys(pod: &Pod) -> Vec<String> {
        pod.spec
            .as_ref()
            .and_then(|s| s.tolerations.as_ref())
            .map(|ts| {
                ts.iter()
                    .map(|t: &Toleration| {
                        format!(
                            "{}:{}",
                            t.key.as_deref().unwrap_or(""),
                            t.toleration_seconds.map_or("-".into(), |s| s.to_string())
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn burstable(name: &str) -> Pod {
        let mut p = pod_with_tolerations(name, vec![]);
        if let Some(c) = p.spec.as_mut().and_then(|s| s.containers.first_mut()) {
            c.resources = Some(ResourceRequirements {
                requests: Some([("cpu".to_string(), Quantity("100m".into()))].into()),
                ..Default::default()
            });
        }
        p
    }

    #[test]
    fn default_toleration_seconds_then_pod_toleration_restriction() {
        let nr = "node.kubernetes.io/not-ready";
        let un = "node.kubernetes.io/unreachable";
        let mp = "node.kubernetes.io/memory-pressure";
        let no_ptr = AdmissionConfig {
            pod_toleration_restriction: None,
            ..Default::default()
        };
        let nothing = AdmissionConfig {
            default_toleration_seconds: None,
            pod_toleration_restriction: None,
        };
        #[rustfmt::skip]
        let cases: Vec<(&str, Pod, AdmissionConfig, Vec<String>)> = vec![
            ("a BestEffort pod gets the two 300 s tolerations",
                pod_with_tolerations("p", vec![]), AdmissionConfig::default(), vec![format!("{nr}:300"), format!("{un}:300")]),
            ("a Burstable pod also gets memory-pressure, after them",
                burstable("p"), AdmissionConfig::default(), vec![format!("{nr}:300"), format!("{un}:300"), format!("{mp}:-")]),
            ("without PodTolerationRestriction, no memory-pressure",
                burstable("p"), no_ptr, vec![format!("{nr}:300"), format!("{un}:300")]),
            ("with both plugins off, nothing changes",
                burstable("p"), nothing, vec![]),
            ("the pod's own not-ready toleration is kept",
                pod_with_tolerations("p", vec![tol_secs(nr, "Exists", "", "NoExecute", 60)]), AdmissionConfig::default(), vec![format!("{nr}:60"), format!("{un}:300")]),
        ];
        for (name, mut pod, cfg, want) in cases {
            admit_pod(&mut pod, None, &cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(keys(&pod), want, "{name}");
        }
    }
}
