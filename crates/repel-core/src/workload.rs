//! Workloads and the pods their controllers create, named as upstream names them.
//!
//! Pod names follow upstream's shapes: a Deployment's ReplicaSet is `NAME-<pod-template-hash>`
//! and its pods `RS-<5 chars>`; a ReplicaSet's, ReplicationController's, DaemonSet's and Job's pods
//! `NAME-<5 chars>`;
//! a StatefulSet's `NAME-0 … NAME-(n-1)`; a CronJob's job `NAME-<minutes>` and its pods
//! `JOB-<5 chars>`. The random parts use upstream's alphabet (`bcdfghjklmnpqrstvwxz2456789`) from
//! a generator seeded by the caller, so the same seed gives the same names. The
//! pod-template-hash is FNV-32a over the template's JSON encoded with upstream's
//! `SafeEncodeString`; upstream hashes Go's in-memory dump of the template, which cannot be
//! reproduced outside Go, so hashes have upstream's form but not a real cluster's value.
//!
//! Every pod carries its controller's `ownerReference` (a Deployment's pods name their
//! ReplicaSet, a CronJob's their Job); a workload without a `uid` gets a stable stand-in.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{
    Affinity, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod,
    PodSpec, PodTemplateSpec, ReplicationController,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use crate::affinity::RequiredNodeAffinity;
use crate::defaults::add_daemonset_tolerations;
use crate::gates::FeatureGates;
use crate::taint::{NO_EXECUTE, find_matching_untolerated_taint, is_do_not_schedule};

pub mod claim;
pub mod revision;

mod daemon;
mod expand;
mod names;

pub use daemon::*;
pub use expand::*;
pub use names::*;

/// Upstream's alphabet for generated name suffixes (no vowels, no confusable characters).
pub const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// A workload whose controller creates pods from a template. Each object is boxed: a typed
/// workload is kilobytes (a CronJob 3 KB) and an input of 20,000 of them is moved from the
/// reading to the inventory to the build; boxed, each move is a pointer's, not a copy of tens of
/// megabytes into fresh pages.
#[derive(Debug, Clone)]
pub enum Workload {
    /// apps/v1 Deployment.
    Deployment(Box<Deployment>),
    /// apps/v1 ReplicaSet.
    ReplicaSet(Box<ReplicaSet>),
    /// apps/v1 StatefulSet.
    StatefulSet(Box<StatefulSet>),
    /// apps/v1 DaemonSet.
    DaemonSet(Box<DaemonSet>),
    /// batch/v1 Job.
    Job(Box<Job>),
    /// batch/v1 CronJob.
    CronJob(Box<CronJob>),
    /// v1 ReplicationController: kube-controller-manager runs it as a ReplicaSet whose
    /// `spec.selector` map is `matchLabels` (pkg/controller/replication, v1.35).
    ReplicationController(Box<ReplicationController>),
}

/// `From<Kind> for Workload` for each kind: the object goes into its box.
macro_rules! workload_from {
    ($($kind:ident),*) => {
        $(impl From<$kind> for Workload {
            fn from(o: $kind) -> Self {
                Workload::$kind(Box::new(o))
            }
        })*
    };
}

workload_from!(
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    Job,
    CronJob,
    ReplicationController
);

impl Workload {
    /// The kind, as in manifests.
    pub fn kind(&self) -> &'static str {
        match self {
            Workload::Deployment(_) => "Deployment",
            Workload::ReplicaSet(_) => "ReplicaSet",
            Workload::StatefulSet(_) => "StatefulSet",
            Workload::DaemonSet(_) => "DaemonSet",
            Workload::Job(_) => "Job",
            Workload::CronJob(_) => "CronJob",
            Workload::ReplicationController(_) => "ReplicationController",
        }
    }

    /// The object's metadata.
    pub fn metadata(&self) -> &ObjectMeta {
        match self {
            Workload::Deployment(o) => &o.metadata,
            Workload::ReplicaSet(o) => &o.metadata,
            Workload::StatefulSet(o) => &o.metadata,
            Workload::DaemonSet(o) => &o.metadata,
            Workload::Job(o) => &o.metadata,
            Workload::CronJob(o) => &o.metadata,
            Workload::ReplicationController(o) => &o.metadata,
        }
    }

    /// The workload's name.
    pub fn name(&self) -> &str {
        self.metadata().name.as_deref().unwrap_or_default()
    }

    /// The workload's namespace, `default` when unset.
    pub fn namespace(&self) -> &str {
        namespace_of(self.metadata())
    }

    /// The pod template and the path of its pod spec in the manifest (`spec.template.spec`, or
    /// `spec.jobTemplate.spec.template.spec` for a CronJob).
    pub fn template(&self) -> Option<(&PodTemplateSpec, &'static str)> {
        const T: &str = "spec.template.spec";
        match self {
            Workload::Deployment(o) => Some((&o.spec.template, T)),
            Workload::ReplicaSet(o) => o.spec.template.as_ref().map(|t| (t, T)),
            Workload::ReplicationController(o) => {
                o.spec.as_ref()?.template.as_ref().map(|t| (t, T))
            }
            Workload::StatefulSet(o) => Some((&o.spec.template, T)),
            Workload::DaemonSet(o) => Some((&o.spec.template, T)),
            Workload::Job(o) => o.spec.as_ref().map(|s| (&s.template, T)),
            Workload::CronJob(o) => o
                .spec
                .job_template
                .spec
                .as_ref()
                .map(|s| (&s.template, "spec.jobTemplate.spec.template.spec")),
        }
    }

    /// How many pods the controller keeps (DaemonSets: see [`daemon_nodes`]): `replicas`
    /// (default 1); for a Job, `parallelism` (default 1) capped by `completions`.
    pub fn pod_count(&self) -> usize {
        let n = match self {
            Workload::Deployment(o) => o.spec.replicas.unwrap_or(1),
            Workload::ReplicaSet(o) => o.spec.replicas.unwrap_or(1),
            Workload::ReplicationController(o) => {
                o.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1)
            }
            Workload::StatefulSet(o) => o.spec.replicas.unwrap_or(1),
            Workload::DaemonSet(_) => 0,
            Workload::Job(o) => job_pods(o.spec.as_ref().map(|s| (s.parallelism, s.completions))),
            Workload::CronJob(o) => job_pods(
                o.spec
                    .job_template
                    .spec
                    .as_ref()
                    .map(|s| (s.parallelism, s.completions)),
            ),
        };
        usize::try_from(n).unwrap_or(0)
    }
}

fn job_pods(p: Option<(Option<i32>, Option<i32>)>) -> i32 {
    let (parallelism, completions) = p.unwrap_or((None, None));
    let par = parallelism.unwrap_or(1);
    completions.map_or(par, |c| par.min(c))
}

/// Upstream `SetDefaults_ReplicationController` (pkg/apis/core/v1/defaults.go, v1.35), as the
/// API server applies it:
///
/// 1. When the template has labels: an empty `spec.selector` becomes them, and so do empty
///    `metadata.labels`.
/// 2. A missing `spec.replicas` becomes 1.
pub fn set_defaults_replication_controller(rc: &mut ReplicationController) {
    let spec = rc.spec.get_or_insert_with(Default::default);
    let labels = spec
        .template
        .as_ref()
        .and_then(|t| t.metadata.as_ref())
        .and_then(|m| m.labels.clone());
    if let Some(labels) = labels {
        if spec.selector.as_ref().is_none_or(BTreeMap::is_empty) {
            spec.selector = Some(labels.clone());
        }
        if rc.metadata.labels.as_ref().is_none_or(BTreeMap::is_empty) {
            rc.metadata.labels = Some(labels);
        }
    }
    spec.replicas.get_or_insert(1);
}

/// An object's namespace, `default` when unset.
pub fn namespace_of(meta: &ObjectMeta) -> &str {
    meta.namespace
        .as_deref()
        .filter(|n| !n.is_empty())
        .unwrap_or("default")
}

fn owner_ref(api_version: &str, kind: &str, meta: &ObjectMeta) -> Option<OwnerReference> {
    let name = meta.name.clone().unwrap_or_default();
    // A manifest rarely carries a uid; a stable stand-in keeps the reference (drain and the
    // workload controllers find a pod's owner through it).
    let uid = meta
        .uid
        .clone()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| {
            let ns = meta.namespace.as_deref().unwrap_or("default");
            format!(
                "repel-{:08x}",
                fnv32a(format!("{kind}/{ns}/{name}").as_bytes())
            )
        });
    Some(OwnerReference {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        name,
        uid,
        controller: Some(true),
        block_owner_deletion: Some(true),
    })
}

fn meta_from_template(
    template: &PodTemplateSpec,
    namespace: &str,
    name: String,
    extra_labels: &[(&str, String)],
    owner: Option<OwnerReference>,
) -> ObjectMeta {
    let mut labels: BTreeMap<String, String> = template
        .metadata
        .as_ref()
        .and_then(|m| m.labels.clone())
        .unwrap_or_default();
    for (k, v) in extra_labels {
        labels.insert((*k).to_string(), v.clone());
    }
    ObjectMeta {
        name: Some(name),
        namespace: Some(namespace.to_string()),
        labels: (!labels.is_empty()).then_some(labels),
        annotations: template
            .metadata
            .as_ref()
            .and_then(|m| m.annotations.clone()),
        owner_references: owner.map(|o| vec![o]),
        ..Default::default()
    }
}

fn pod_from_template(
    template: &PodTemplateSpec,
    namespace: &str,
    name: String,
    extra_labels: &[(&str, String)],
    owner: Option<OwnerReference>,
) -> Pod {
    Pod {
        metadata: meta_from_template(template, namespace, name, extra_labels, owner),
        spec: Some(template.spec.clone().unwrap_or_default()),
        status: None,
    }
}

/// The apiVersion of a controller kind that owns pods (`batch/v1` for a Job, `v1` for a
/// ReplicationController, else `apps/v1`).
pub(crate) fn api_version_of(kind: &str) -> &'static str {
    match kind {
        "Job" => "batch/v1",
        "ReplicationController" => "v1",
        _ => "apps/v1",
    }
}

/// The controller that owns an object (a pod), as `(kind, name)`, from the controller
/// `ownerReference` in its metadata (a Deployment's pods belong to its ReplicaSet, a CronJob's
/// to a Job).
pub fn controller_of(meta: &ObjectMeta) -> Option<(String, String)> {
    let owner = meta
        .owner_references
        .as_ref()?
        .iter()
        .find(|o| o.controller == Some(true))?;
    Some((owner.kind.clone(), owner.name.clone()))
}

/// A new pod the workload's controller creates in place of a missing one (upstream's
/// ReplicaSet, StatefulSet, DaemonSet and Job controllers): `pod_name` chosen by the caller
/// (`OWNER-<5 chars>`, or `NAME-<ordinal>` for a StatefulSet), owned by `(owner_kind,
/// owner_name)`, with the controller's labels; a DaemonSet's pod gets the DaemonSet tolerations
/// and is pinned to `node`.
pub fn controller_pod(
    w: &Workload,
    pod_name: String,
    owner_kind: &str,
    owner_name: &str,
    node: Option<&str>,
) -> Option<Pod> {
    let (template, _) = w.template()?;
    let ns = w.namespace();
    let mut labels: Vec<(&str, String)> = Vec::new();
    match w {
        Workload::Deployment(_) => labels.push(("pod-template-hash", pod_template_hash(template))),
        Workload::StatefulSet(_) => {
            let ordinal = pod_name.rsplit('-').next().unwrap_or_default().to_string();
            labels.push(("statefulset.kubernetes.io/pod-name", pod_name.clone()));
            labels.push(("apps.kubernetes.io/pod-index", ordinal));
            // The StatefulSet controller's revision label: its ControllerRevision's name.
            labels.push((
                revision::CONTROLLER_REVISION_HASH,
                revision::stateful_set_revision_name(w.name(), template),
            ));
        }
        Workload::Job(_) | Workload::CronJob(_) => {
            labels.push(("batch.kubernetes.io/job-name", owner_name.to_string()));
            labels.push(("job-name", owner_name.to_string()));
        }
        // The DaemonSet controller's revision label (upstream's value is its ControllerRevision's
        // hash; repel's the template's, as for `pod-template-hash`): what a rolling update
        // compares.
        Workload::DaemonSet(_) => {
            labels.push(("controller-revision-hash", pod_template_hash(template)))
        }
        _ => {}
    }
    let api_version = api_version_of(owner_kind);
    let owner_meta = ObjectMeta {
        name: Some(owner_name.to_string()),
        namespace: Some(ns.to_string()),
        uid: (owner_name == w.name())
            .then(|| w.metadata().uid.clone())
            .flatten(),
        ..Default::default()
    };
    let mut pod = pod_from_template(
        template,
        ns,
        pod_name,
        &labels,
        owner_ref(api_version, owner_kind, &owner_meta),
    );
    if let (Workload::DaemonSet(_), Some(spec)) = (w, pod.spec.as_mut()) {
        add_daemonset_tolerations(spec);
        if let Some(node) = node {
            pin_to_node(spec, node);
        }
    }
    Some(pod)
}

#[cfg(test)]
mod tests;
