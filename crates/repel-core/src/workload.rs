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

/// A small deterministic generator (SplitMix64) for name suffixes.
#[derive(Debug, Clone)]
pub struct NameRng(u64);

impl NameRng {
    /// A generator for `seed` and a stream name (e.g. the owner's name), so names do not
    /// depend on the order workloads are read in.
    pub fn new(seed: u64, stream: &str) -> Self {
        NameRng(seed ^ u64::from(fnv32a(stream.as_bytes())).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `n` characters of [`NAME_ALPHABET`], as upstream `utilrand.String(n)`.
    pub fn suffix(&mut self, n: usize) -> String {
        (0..n).map(|_| char::from(self.letter())).collect()
    }

    /// One character of [`NAME_ALPHABET`], as [`NameRng::suffix`] draws each.
    fn letter(&mut self) -> u8 {
        NAME_ALPHABET[(self.next() % NAME_ALPHABET.len() as u64) as usize]
    }
}

/// FNV-1a, 32 bits.
pub fn fnv32a(bytes: &[u8]) -> u32 {
    fnv32a_on(0x811c_9dc5, bytes)
}

/// FNV-1a's state `h` after `bytes` (the hash of a stream, a piece at a time).
fn fnv32a_on(h: u32, bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u32::from(*b)).wrapping_mul(0x0100_0193))
}

/// Upstream `rand.SafeEncodeString`: each byte mapped into [`NAME_ALPHABET`].
pub fn safe_encode_string(s: &str) -> String {
    s.bytes()
        .map(|b| NAME_ALPHABET[b as usize % NAME_ALPHABET.len()] as char)
        .collect()
}

/// The `pod-template-hash` of a template (see the module docs for how it differs from upstream).
pub fn pod_template_hash(template: &PodTemplateSpec) -> String {
    /// FNV-1a over what is written (the JSON, as it is written, without holding it).
    struct Fnv(u32);
    impl std::io::Write for Fnv {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = fnv32a_on(self.0, buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut h = Fnv(fnv32a(&[]));
    // A template serialises; if it did not, the hash is of what was written, as `to_vec`'s
    // empty output was before.
    if serde_json::to_writer(&mut h, template).is_err() {
        h = Fnv(fnv32a(&[]));
    }
    safe_encode_string(&h.0.to_string())
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

/// Upstream `ReplaceDaemonSetPodNodeNameNodeAffinity`: the pod's required node affinity becomes
/// the single term `matchFields metadata.name In [node]`; preferred terms are kept.
pub fn pin_to_node(spec: &mut PodSpec, node: &str) {
    let term = NodeSelectorTerm {
        match_fields: Some(vec![NodeSelectorRequirement {
            key: "metadata.name".to_string(),
            operator: "In".to_string(),
            values: Some(vec![node.to_string()]),
        }]),
        match_expressions: None,
    };
    let affinity = spec.affinity.get_or_insert_with(Affinity::default);
    let node_affinity = affinity
        .node_affinity
        .get_or_insert_with(NodeAffinity::default);
    node_affinity.required_during_scheduling_ignored_during_execution = Some(NodeSelector {
        node_selector_terms: vec![term],
    });
}

/// Upstream `NodeShouldRunDaemonPod` (pkg/controller/daemon, v1.35) for a daemon pod spec that
/// already carries the DaemonSet tolerations. Returns `(should_run, should_continue_running)`:
///
/// 1. The pod's `nodeName`, if set, must be the node, and its required node affinity (and
///    nodeSelector) must match; otherwise neither.
/// 2. An untolerated `NoSchedule`/`NoExecute` taint: do not run; keep running only if no
///    `NoExecute` taint is untolerated.
pub fn node_should_run_daemon_pod(
    spec: &PodSpec,
    node: &Node,
    gates: &FeatureGates,
) -> (bool, bool) {
    match daemon_pod_refusal(spec, node, gates) {
        None => (true, true),
        Some(DaemonPredicate::NodeName | DaemonPredicate::NodeAffinity) => (false, false),
        Some(DaemonPredicate::Taints) => {
            let keeps = find_matching_untolerated_taint(
                node_taints(node),
                spec.tolerations.as_deref().unwrap_or_default(),
                |t| t.effect == NO_EXECUTE,
                gates,
            )
            .is_none();
            (false, keeps)
        }
    }
}

/// The predicates of upstream `NodeShouldRunDaemonPod`, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DaemonPredicate {
    /// The pod's `nodeName` names another node.
    NodeName,
    /// Its required node affinity (or nodeSelector) does not match (a term that cannot be
    /// parsed matches nothing, as upstream ignores the parse error here).
    NodeAffinity,
    /// A `NoSchedule`/`NoExecute` taint is not tolerated.
    Taints,
}

/// The first of [`node_should_run_daemon_pod`]'s predicates that `node` fails; `None` when the
/// DaemonSet runs its pod there.
pub fn daemon_pod_refusal(
    spec: &PodSpec,
    node: &Node,
    gates: &FeatureGates,
) -> Option<DaemonPredicate> {
    let name = node.metadata.name.as_deref().unwrap_or_default();
    if !spec
        .node_name
        .as_deref()
        .is_none_or(|n| n.is_empty() || n == name)
    {
        return Some(DaemonPredicate::NodeName);
    }
    if !RequiredNodeAffinity::from_pod_spec(spec)
        .matches(node)
        .unwrap_or(false)
    {
        return Some(DaemonPredicate::NodeAffinity);
    }
    let tolerations = spec.tolerations.as_deref().unwrap_or_default();
    find_matching_untolerated_taint(node_taints(node), tolerations, is_do_not_schedule, gates)
        .map(|_| DaemonPredicate::Taints)
}

fn node_taints(node: &Node) -> &[k8s_openapi::api::core::v1::Taint] {
    node.spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default()
}

/// The nodes a DaemonSet runs a pod on, in node order.
pub fn daemon_nodes<'a>(ds: &DaemonSet, nodes: &'a [Node], gates: &FeatureGates) -> Vec<&'a Node> {
    let mut pod_spec = ds.spec.template.spec.clone().unwrap_or_default();
    add_daemonset_tolerations(&mut pod_spec);
    nodes
        .iter()
        .filter(|n| node_should_run_daemon_pod(&pod_spec, n, gates).0)
        .collect()
}

/// The pods a workload's controller creates, as it creates them (before admission), when
/// none of its pods exist yet: names as described in the module docs, template labels plus the
/// controller's own, DaemonSet pods with the DaemonSet tolerations and pinned to their node.
/// With pods already there, use [`claim::plan`] and [`expand_planned`].
pub fn expand_pods(w: &Workload, nodes: &[Node], gates: &FeatureGates, seed: u64) -> Vec<Pod> {
    let p = claim::plan(std::slice::from_ref(w), &[], nodes, gates);
    match p.workloads.first() {
        Some(wp) => expand_planned(w, wp, seed, |_| false),
        None => Vec::new(),
    }
}

/// The pods a workload's controller creates, as metadata beside one shared spec: what
/// [`expand_planned`] returns, without a copy of the spec per pod (a workload's pods share it
/// until admission; a DaemonSet's differ only in the node each is pinned to).
#[derive(Debug, Clone)]
pub struct PlannedPods {
    /// The template's spec as the controller sets it (a DaemonSet's with the DaemonSet
    /// tolerations), before any pinning.
    pub spec: PodSpec,
    /// Each pod's metadata (boxed: it moves on as a pointer, into the cluster's pods), and
    /// the node a DaemonSet pod is pinned to.
    pub pods: Vec<(Box<ObjectMeta>, Option<String>)>,
}

impl PlannedPods {
    /// The pods as whole objects (each with its own copy of the spec, pinned when a DaemonSet's).
    pub fn into_pods(self) -> Vec<Pod> {
        let PlannedPods { spec, pods } = self;
        pods.into_iter()
            .map(|(metadata, pin)| {
                let mut spec = spec.clone();
                if let Some(node) = pin {
                    pin_to_node(&mut spec, &node);
                }
                Pod {
                    metadata: *metadata,
                    spec: Some(spec),
                    status: None,
                }
            })
            .collect()
    }
}

/// The pods `w`'s controller creates according to its share of a [`claim::plan`]: its missing
/// pods, owned by the plan's owner, named as in the module docs; a generated name `taken(name)`
/// says exists already (in the workload's namespace), or that this workload's controller has
/// just given another of its pods, is drawn again.
pub fn expand_planned(
    w: &Workload,
    plan: &claim::WorkloadPlan,
    seed: u64,
    taken: impl Fn(&str) -> bool,
) -> Vec<Pod> {
    let mut out = Vec::new();
    for_each_planned_pod(w, plan, seed, taken, |pod| out.push(pod));
    out
}

/// The most pods [`expand_planned_parts`] makes room for before it makes them.
const PLANNED_ROOM_MAX: usize = 1 << 16;

/// [`expand_planned`] as metadata beside one shared spec; `None` when the workload has no
/// template.
pub fn expand_planned_parts(
    w: &Workload,
    plan: &claim::WorkloadPlan,
    seed: u64,
    taken: impl Fn(&str) -> bool,
) -> Option<PlannedPods> {
    // Room for every pod at once (within a bound: the count is the input's).
    let mut pods = Vec::with_capacity(plan.create.count().min(PLANNED_ROOM_MAX));
    let spec = for_each_planned_part(w, plan, seed, taken, |_, meta, pin| {
        pods.push((Box::new(meta), pin));
    })?;
    Some(PlannedPods { spec, pods })
}

/// [`expand_planned`] one pod at a time, in the same order and with the same names: `each`
/// gets every pod as it is made, so a workload of a million replicas never has all its pods
/// in memory at once.
pub fn for_each_planned_pod(
    w: &Workload,
    plan: &claim::WorkloadPlan,
    seed: u64,
    taken: impl Fn(&str) -> bool,
    mut each: impl FnMut(Pod),
) {
    for_each_planned_part(w, plan, seed, taken, |spec, metadata, pin| {
        let mut spec = spec.clone();
        if let Some(node) = pin {
            pin_to_node(&mut spec, &node);
        }
        each(Pod {
            metadata,
            spec: Some(spec),
            status: None,
        });
    });
}

/// [`expand_planned_parts`] one pod at a time: `each` gets the shared spec (before pinning),
/// then each pod's metadata and the node a DaemonSet pod is pinned to, in order. Returns the
/// shared spec; `None` (and no call) when the workload has no template.
pub fn for_each_planned_part(
    w: &Workload,
    plan: &claim::WorkloadPlan,
    seed: u64,
    taken: impl Fn(&str) -> bool,
    mut each: impl FnMut(&PodSpec, ObjectMeta, Option<String>),
) -> Option<PodSpec> {
    match &plan.owner {
        Some(owner) => pods_for(w, &plan.create, Some(owner), seed, &taken, &mut each),
        // A CronJob's next run (its Job is not in the input).
        None if matches!(w, Workload::CronJob(_)) => {
            pods_for(w, &plan.create, None, seed, &taken, &mut each)
        }
        None => None,
    }
}

/// One pod as the workload's controller would create it, whatever its replica count: for
/// explaining where the workload's pods may go. A DaemonSet's pod carries the DaemonSet
/// tolerations but is not pinned to a node.
pub fn representative_pod(w: &Workload, seed: u64) -> Option<Pod> {
    let mut first = None;
    let spec = pods_for(
        w,
        &claim::Create::Pods(1),
        None,
        seed,
        &|_| false,
        &mut |_, meta, _| {
            first.get_or_insert(meta);
        },
    )?;
    Some(Pod {
        metadata: first?,
        spec: Some(spec),
        status: None,
    })
}

/// The generated suffixes one controller has given so far (upstream's API server refuses a
/// name that exists, and the controller tries another): 27^5 suffixes, so a workload of a
/// million replicas would otherwise repeat tens of thousands of names.
#[derive(Default)]
struct Drawn(std::collections::HashSet<[u8; 5]>);

/// How many 5-character suffixes there are (27^5).
const SUFFIXES: usize = 27 * 27 * 27 * 27 * 27;

/// A fresh name `prefix-<5 chars>` that `taken` does not know and `drawn` has not given while
/// any suffix is left (27^5 names; the caller's cap on replicas is far below: this ends).
fn fresh(
    rng: &mut NameRng,
    prefix: &str,
    taken: &dyn Fn(&str) -> bool,
    drawn: &mut Drawn,
) -> String {
    loop {
        // `rng.suffix(5)`, without a string of its own.
        let key: [u8; 5] = std::array::from_fn(|_| rng.letter());
        if drawn.0.len() < SUFFIXES && drawn.0.contains(&key) {
            continue;
        }
        let mut name = String::with_capacity(prefix.len() + 6);
        name.push_str(prefix);
        name.push('-');
        name.extend(key.iter().map(|b| char::from(*b)));
        if !taken(&name) {
            drawn.0.insert(key);
            return name;
        }
    }
}

/// The pods `create` asks for, one [`ObjectMeta`] (and pin) at a time into `emit`; a `Pods(n)`
/// of a DaemonSet is `n` unpinned pods. `owner` defaults to the workload itself (a
/// Deployment's: its template's ReplicaSet). Returns the shared spec.
fn pods_for(
    w: &Workload,
    create: &claim::Create,
    owner: Option<&claim::OwnerId>,
    seed: u64,
    taken: &dyn Fn(&str) -> bool,
    emit: &mut dyn FnMut(&PodSpec, ObjectMeta, Option<String>),
) -> Option<PodSpec> {
    use claim::Create;
    let (template, _) = w.template()?;
    let mut spec = template.spec.clone().unwrap_or_default();
    if matches!(w, Workload::DaemonSet(_)) {
        add_daemonset_tolerations(&mut spec);
    }
    let ns = w.namespace();
    let name = w.name();
    let mut rng = NameRng::new(seed, &format!("{}/{}/{}", w.kind(), ns, name));
    let mut drawn = Drawn::default();
    let meta = w.metadata();
    let count = create.count();
    let owner_meta = |o: &claim::OwnerId| ObjectMeta {
        name: Some(o.name.clone()),
        namespace: Some(ns.to_string()),
        uid: o.uid.clone(),
        ..Default::default()
    };
    let self_owner = |kind: &str| {
        owner.map_or_else(
            || owner_ref(api_version_of(kind), kind, meta),
            |o| owner_ref(api_version_of(kind), kind, &owner_meta(o)),
        )
    };
    match w {
        Workload::Deployment(_) => {
            let (rs, hash, rs_meta) = match owner {
                Some(o) => {
                    let hash = o
                        .name
                        .strip_prefix(name)
                        .and_then(|r| r.strip_prefix('-'))
                        .map(str::to_string)
                        .unwrap_or_else(|| pod_template_hash(template));
                    (o.name.clone(), hash, owner_meta(o))
                }
                None => {
                    let hash = pod_template_hash(template);
                    let rs = format!("{name}-{hash}");
                    let rs_meta = ObjectMeta {
                        name: Some(rs.clone()),
                        namespace: Some(ns.to_string()),
                        ..Default::default()
                    };
                    (rs, hash, rs_meta)
                }
            };
            let owner = owner_ref("apps/v1", "ReplicaSet", &rs_meta);
            for _ in 0..count {
                let pod_name = fresh(&mut rng, &rs, taken, &mut drawn);
                let labels = [("pod-template-hash", hash.clone())];
                let meta = meta_from_template(template, ns, pod_name, &labels, owner.clone());
                emit(&spec, meta, None);
            }
        }
        Workload::ReplicaSet(_) | Workload::ReplicationController(_) => {
            let owner = self_owner(w.kind());
            for _ in 0..count {
                let pod_name = fresh(&mut rng, name, taken, &mut drawn);
                emit(
                    &spec,
                    meta_from_template(template, ns, pod_name, &[], owner.clone()),
                    None,
                );
            }
        }
        Workload::StatefulSet(_) => {
            let ordinals: Vec<u64> = match create {
                Create::Ordinals(o) => o.clone(),
                _ => (0..count as u64).collect(),
            };
            let owner = self_owner("StatefulSet");
            // One revision for all its pods (hashing the template is most of making a pod).
            let revision = revision::stateful_set_revision_name(name, template);
            for i in ordinals {
                let pod_name = format!("{name}-{i}");
                let labels = [
                    ("statefulset.kubernetes.io/pod-name", pod_name.clone()),
                    ("apps.kubernetes.io/pod-index", i.to_string()),
                    (revision::CONTROLLER_REVISION_HASH, revision.clone()),
                ];
                emit(
                    &spec,
                    meta_from_template(template, ns, pod_name, &labels, owner.clone()),
                    None,
                );
            }
        }
        Workload::DaemonSet(_) => {
            let targets: Vec<Option<String>> = match create {
                Create::OnNodes(nodes) => nodes.iter().cloned().map(Some).collect(),
                _ => vec![None; count],
            };
            let owner = self_owner("DaemonSet");
            let labels = [("controller-revision-hash", pod_template_hash(template))];
            for pin in targets {
                let pod_name = fresh(&mut rng, name, taken, &mut drawn);
                emit(
                    &spec,
                    meta_from_template(template, ns, pod_name, &labels, owner.clone()),
                    pin,
                );
            }
        }
        Workload::Job(_) => {
            let owner = self_owner("Job");
            for _ in 0..count {
                let labels = [
                    ("batch.kubernetes.io/job-name", name.to_string()),
                    ("job-name", name.to_string()),
                ];
                let pod_name = fresh(&mut rng, name, taken, &mut drawn);
                emit(
                    &spec,
                    meta_from_template(template, ns, pod_name, &labels, owner.clone()),
                    None,
                );
            }
        }
        Workload::CronJob(_) => {
            // Upstream names a CronJob's job after its scheduled time in minutes since the epoch;
            // there is no clock here, so the minutes come from the seed.
            let job = format!("{name}-{}", 29_000_000 + rng.next() % 1_000_000);
            let job_meta = ObjectMeta {
                name: Some(job.clone()),
                namespace: Some(ns.to_string()),
                ..Default::default()
            };
            let owner = owner_ref("batch/v1", "Job", &job_meta);
            for _ in 0..count {
                let labels = [
                    ("batch.kubernetes.io/job-name", job.clone()),
                    ("job-name", job.clone()),
                ];
                let pod_name = fresh(&mut rng, &job, taken, &mut drawn);
                emit(
                    &spec,
                    meta_from_template(template, ns, pod_name, &labels, owner.clone()),
                    None,
                );
            }
        }
    }
    Some(spec)
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
