//! A pod chosen on the command line, admitted as the API server would admit it and explained
//! against the nodes: what `explain` and `demo` show.

use k8s_openapi::api::core::v1::{Namespace, Node, Pod, Toleration};
use repel_core::FeatureGates;
use repel_core::admission::{AdmissionConfig, admit_pod_traced, is_stored, set_defaults_pod};
use repel_core::explain::{Explanation, explain};
use repel_core::taint::NoExecuteOutcome;
use repel_core::validation::{ValidationOptions, validate_pod_spec_tolerations};
use repel_core::workload::namespace_of;

use crate::CliError;

/// A pod chosen on the command line, before admission.
pub struct Target<'a> {
    /// The pod (a workload's representative pod).
    pub pod: Pod,
    /// Its namespace object, when one was given.
    pub namespace: Option<&'a Namespace>,
    /// What was asked for, e.g. `Deployment default/web`.
    pub origin: Option<String>,
    /// Whether it stands for a DaemonSet's pods (the DaemonSet controller, not the
    /// scheduler's FitError, decides where those go).
    pub daemonset: bool,
}

/// The human words for a NoExecute outcome.
pub fn outcome_words(o: NoExecuteOutcome) -> String {
    match o {
        NoExecuteOutcome::Never => "stays".to_string(),
        NoExecuteOutcome::Immediately => "evicted at once".to_string(),
        NoExecuteOutcome::After(s) => format!("evicted after {s}s"),
    }
}

/// Admits the target pod and explains it; with `warn`, prints invalid tolerations as warnings first.
/// Returns the pod's `ns/name`, which admission plugin added each of its tolerations (`None`:
/// its own), its tolerations after admission, and the explanation.
#[allow(clippy::type_complexity)]
pub fn evaluate(
    target: &Target,
    nodes: &[Node],
    gates: &FeatureGates,
    warn: bool,
    admission: &AdmissionConfig,
) -> Result<
    (
        String,
        Vec<Option<&'static str>>,
        Vec<Toleration>,
        Explanation,
    ),
    CliError,
> {
    let mut pod = target.pod.clone();
    let original = pod
        .spec
        .as_ref()
        .and_then(|s| s.tolerations.clone())
        .unwrap_or_default();
    let pod_id = format!(
        "{}/{}",
        namespace_of(&pod.metadata),
        pod.metadata.name.as_deref().unwrap_or_default()
    );
    if let Some(spec) = pod.spec.as_ref().filter(|_| warn) {
        let opts = ValidationOptions::from_gates(gates);
        for e in validate_pod_spec_tolerations(spec, "spec", &opts) {
            eprintln!("warning: Pod {pod_id}: {e} (evaluated anyway, as upstream's matcher would)");
        }
    }
    if let Some(spec) = pod.spec.as_mut() {
        set_defaults_pod(spec); // before admission, as the API server: limits become requests
    }
    // A pod the API server already stored (a dump, a snapshot, a live read) was admitted when it
    // was created: it is judged as it is.
    let sources = if is_stored(&pod) {
        vec![None; original.len()]
    } else {
        admit_pod_traced(&mut pod, target.namespace, admission)
            .map_err(|e| CliError::Usage(format!("Pod {pod_id}: {e}")))?
    };
    let spec = pod.spec.clone().unwrap_or_default();
    let tolerations = spec.tolerations.clone().unwrap_or_default();
    let e = explain(&spec, nodes, gates);
    Ok((pod_id, sources, tolerations, e))
}
