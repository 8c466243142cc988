//! What each workload's controller finds already there, and so what it still creates: the
//! pods (and ReplicaSets, and Jobs) it owns, counted as upstream's controllers count them
//! (v1.35, pkg/controller: `ClaimPods`/`ClaimReplicaSets` of the controller-ref manager, then
//! each controller's sync).
//!
//! Rules, in upstream's words where it has them:
//! 1. A pod belongs to the workload its controller `ownerReference` names (kind, namespace and
//!    name; the uid too when both sides carry one — a reference to another uid is someone
//!    else's). A pod without a controller reference, not being deleted, is **adopted** by the
//!    first workload in input order of its namespace whose selector matches its labels (the
//!    ReplicaSet, ReplicationController, DaemonSet, StatefulSet and Job controllers adopt; a
//!    StatefulSet only pods
//!    named `SET-<ordinal>`; a Deployment adopts ReplicaSets, not pods; an empty selector adopts
//!    nothing). Adopted pods get the controller reference, as upstream patches it in.
//! 2. A ReplicaSet whose controller is a Deployment of the input (or an orphan ReplicaSet the
//!    Deployment's selector matches) is that Deployment's: it creates nothing on its own, and
//!    its pods count for the Deployment. So does a pod whose controller is a ReplicaSet named
//!    `DEPLOYMENT-<hash>` that is not in the input, when the Deployment's selector matches it
//!    (an export of pods and Deployments without their ReplicaSets).
//! 3. ReplicaSet, ReplicationController and Deployment: `replicas` (default 1) minus the active pods (not Succeeded,
//!    not Failed, not being deleted). Surplus pods are left as they are (repel deletes nothing
//!    here). A Deployment's new pods belong to the ReplicaSet of its current template: the
//!    input's ReplicaSet whose template equals the Deployment's (the `pod-template-hash` label
//!    aside); without ReplicaSets in the input, the one most of its pods name; else a new one.
//!    Claiming rolls nothing out: today's pods count against `replicas` (the engine's
//!    Deployment controller then rolls a changed template out).
//! 4. StatefulSet: each ordinal of `spec.ordinals.start … start + replicas - 1` without a pod
//!    named `SET-<ordinal>` (in any phase: the name is taken until the pod is deleted).
//! 5. DaemonSet: each node `NodeShouldRunDaemonPod` accepts that runs none of its pods (bound
//!    there, or pinned there by `matchFields metadata.name`).
//! 6. Job: none once it has a `Complete` or `Failed` condition, or more failed pods than
//!    `backoffLimit` (default 6). Otherwise, with `completions`, `min(parallelism, completions -
//!    succeeded) - active`; without, `parallelism - active` until one pod has succeeded, then
//!    none (upstream `syncJob`). Succeeded is the larger of `status.succeeded` and the owned
//!    Succeeded pods.
//! 7. CronJob: none when a Job of the input, or a pod's controller Job named
//!    `CRONJOB-<minutes>`, belongs to it (that Job runs its pods); otherwise the pods of its next
//!    run, as [`super::expand_pods`] makes them.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

/// The plan's indexes: keyed by names and numbers, hashed fast (not DoS-resistant: the keys are
/// the input's own names).
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

use k8s_openapi::api::core::v1::{Node, Pod, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference};

use super::{Workload, api_version_of, daemon_nodes, namespace_of, pod_template_hash};
use crate::gates::FeatureGates;
use crate::labels::{LabelSelector as Selector, label_selector_from_api};

/// A Job's default `backoffLimit`.
pub const DEFAULT_BACKOFF_LIMIT: i32 = 6;

/// A pod as a controller counts it.
#[derive(Debug, Clone, Copy)]
pub struct PodView<'a> {
    /// Its metadata (namespace, name, labels, owner references, deletion).
    pub meta: &'a ObjectMeta,
    /// Its spec (`nodeName`, and a DaemonSet pod's pinned node).
    pub spec: Option<&'a PodSpec>,
    /// `status.phase`, when it has one.
    pub phase: Option<&'a str>,
}

impl PodView<'_> {
    fn is_active(&self) -> bool {
        self.meta.deletion_timestamp.is_none()
            && !matches!(self.phase, Some("Succeeded" | "Failed"))
    }

    fn namespace(&self) -> &str {
        namespace_of(self.meta)
    }

    fn name(&self) -> &str {
        self.meta.name.as_deref().unwrap_or_default()
    }

    fn labels(&self) -> &BTreeMap<String, String> {
        static EMPTY: BTreeMap<String, String> = BTreeMap::new();
        self.meta.labels.as_ref().unwrap_or(&EMPTY)
    }

    /// The node it runs on or is pinned to.
    fn node(&self) -> Option<String> {
        let spec = self.spec?;
        spec.node_name
            .clone()
            .filter(|n| !n.is_empty())
            .or_else(|| pinned_node(spec))
    }
}

/// The node a pod is pinned to by `matchFields metadata.name In [node]` (a DaemonSet pod).
pub fn pinned_node(spec: &PodSpec) -> Option<String> {
    spec.affinity
        .as_ref()?
        .node_affinity
        .as_ref()?
        .required_during_scheduling_ignored_during_execution
        .as_ref()?
        .node_selector_terms
        .iter()
        .flat_map(|t| t.match_fields.iter().flatten())
        .find(|f| f.key == "metadata.name" && f.operator == "In")
        .and_then(|f| f.values.as_ref()?.first().cloned())
}

/// The controller a workload's new pods name in their `ownerReference`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerId {
    /// `ReplicaSet`, `StatefulSet`, `DaemonSet` or `Job`.
    pub kind: String,
    /// Its name (a Deployment's ReplicaSet: `NAME-<pod-template-hash>`).
    pub name: String,
    /// Its uid, when the input gave one.
    pub uid: Option<String>,
}

/// What a workload's controller creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Create {
    /// Nothing: another workload of the input manages its pods (a Deployment's ReplicaSet, a
    /// CronJob whose Job is given), or nothing is missing.
    Nothing,
    /// This many pods (ReplicaSet, Deployment, Job, CronJob).
    Pods(usize),
    /// These StatefulSet ordinals.
    Ordinals(Vec<u64>),
    /// One pod on each of these nodes (DaemonSet), in node order.
    OnNodes(Vec<String>),
}

impl Create {
    /// How many pods it makes.
    pub fn count(&self) -> usize {
        match self {
            Create::Nothing => 0,
            Create::Pods(n) => *n,
            Create::Ordinals(o) => o.len(),
            Create::OnNodes(n) => n.len(),
        }
    }
}

/// One workload's share of the [`Plan`].
#[derive(Debug, Clone)]
pub struct WorkloadPlan {
    /// Whom its new pods belong to; `None` when another workload of the input manages it.
    pub owner: Option<OwnerId>,
    /// The pods (indexes into the pods given to [`plan`]) it counts as its own, adopted ones
    /// included.
    pub owned: Vec<usize>,
    /// What it still creates.
    pub create: Create,
}

/// Every workload's share, and the adoptions.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// One per workload, in the order given.
    pub workloads: Vec<WorkloadPlan>,
    /// Orphan pods adopted: (pod index, the controller reference to add).
    pub adopt: Vec<(usize, OwnerReference)>,
}

/// The workload's selector; a ReplicationController's map as `matchLabels` (upstream
/// `Convert_Map_string_To_string_To_v1_LabelSelector`, v1.35), `None` when it has none.
fn selector_of(w: &Workload) -> Option<Cow<'_, LabelSelector>> {
    Some(match w {
        Workload::ReplicationController(rc) => Cow::Owned(LabelSelector {
            match_labels: Some(rc.spec.as_ref()?.selector.clone()?),
            match_expressions: None,
        }),
        other => Cow::Borrowed(borrowed_selector_of(other)?),
    })
}

fn borrowed_selector_of(w: &Workload) -> Option<&LabelSelector> {
    match w {
        Workload::Deployment(d) => Some(&d.spec.selector),
        Workload::ReplicaSet(r) => Some(&r.spec.selector),
        Workload::StatefulSet(s) => Some(&s.spec.selector),
        Workload::DaemonSet(d) => Some(&d.spec.selector),
        Workload::Job(j) => j.spec.as_ref().and_then(|s| s.selector.as_ref()),
        Workload::CronJob(_) | Workload::ReplicationController(_) => None,
    }
}

/// A non-empty selector, parsed; an empty or invalid one selects nothing here.
fn parsed_selector(w: &Workload) -> Option<Selector> {
    let s = selector_of(w)?;
    let parsed = label_selector_from_api(&s).ok()?;
    (!parsed.is_empty() && !parsed.is_nothing()).then_some(parsed)
}

fn controller_ref(meta: &ObjectMeta) -> Option<&OwnerReference> {
    meta.owner_references
        .as_ref()?
        .iter()
        .find(|o| o.controller == Some(true))
}

/// Whether `r` names `w` (its kind, name, and its uid when both carry one).
fn names(r: &OwnerReference, kind: &str, meta: &ObjectMeta) -> bool {
    r.kind == kind
        && Some(r.name.as_str()) == meta.name.as_deref()
        && match meta.uid.as_deref().filter(|u| !u.is_empty()) {
            Some(uid) => r.uid.is_empty() || r.uid == uid,
            None => true,
        }
}

/// The workload's kind as a pod's controller reference names it (`None` for a Deployment and a
/// CronJob, whose pods name a ReplicaSet or a Job).
fn pod_owner_kind(w: &Workload) -> Option<&'static str> {
    match w {
        Workload::ReplicaSet(_) => Some("ReplicaSet"),
        Workload::ReplicationController(_) => Some("ReplicationController"),
        Workload::StatefulSet(_) => Some("StatefulSet"),
        Workload::DaemonSet(_) => Some("DaemonSet"),
        Workload::Job(_) => Some("Job"),
        Workload::Deployment(_) | Workload::CronJob(_) => None,
    }
}

/// Two pod templates equal but for the `pod-template-hash` label (upstream
/// `EqualIgnoreHash`).
fn equal_ignore_hash(a: &PodTemplateSpec, b: &PodTemplateSpec) -> bool {
    let strip = |t: &PodTemplateSpec| {
        let mut t = t.clone();
        if let Some(labels) = t.metadata.as_mut().and_then(|m| m.labels.as_mut()) {
            labels.remove("pod-template-hash");
        }
        serde_json::to_value(t).ok()
    };
    strip(a) == strip(b)
}

/// What every workload's controller finds and creates, given the pods already there (see the
/// module docs for the rules) and the nodes (for DaemonSets).
pub fn plan(
    workloads: &[Workload],
    pods: &[PodView<'_>],
    nodes: &[Node],
    gates: &FeatureGates,
) -> Plan {
    let (selectors, hashes): (Vec<Option<Selector>>, Vec<Option<String>>) =
        per_workload(workloads).into_iter().unzip();
    // Rule 2: ReplicaSets (by index) that belong to a Deployment (by index).
    let mut deployments: HashMap<&str, Vec<usize>> = HashMap::default();
    for (i, w) in workloads.iter().enumerate() {
        if matches!(w, Workload::Deployment(_)) {
            deployments.entry(w.namespace()).or_default().push(i);
        }
    }
    let mut rs_of_deploy: HashMap<usize, usize> = HashMap::default();
    for (i, w) in workloads.iter().enumerate() {
        let Workload::ReplicaSet(rs) = w else {
            continue;
        };
        let Some(candidates) = deployments.get(w.namespace()) else {
            continue;
        };
        let owner = candidates.iter().copied().find(|j| {
            let dep = workloads[*j].metadata();
            match controller_ref(&rs.metadata) {
                Some(r) => names(r, "Deployment", dep),
                None => selectors[*j].as_ref().is_some_and(|s| {
                    s.matches(rs.metadata.labels.as_ref().unwrap_or(&BTreeMap::new()))
                }),
            }
        });
        if let Some(d) = owner {
            rs_of_deploy.insert(i, d);
        }
    }
    // Rule 7: CronJobs (by index) with a Job of the input.
    let mut cronjob_has_job = vec![false; workloads.len()];
    for w in workloads {
        if let Workload::Job(job) = w
            && let Some(r) = controller_ref(&job.metadata)
            && let Some(c) = workloads.iter().position(|c| {
                matches!(c, Workload::CronJob(cj) if c.namespace() == w.namespace() && names(r, "CronJob", &cj.metadata))
            })
        {
            cronjob_has_job[c] = true;
        }
    }

    // Rule 1: which workload each pod belongs to. Indexes, so that a cluster of 150,000 pods
    // and 20,000 workloads is claimed in one pass: workloads by (namespace, the kind their
    // pods' controller reference names, name) — a Deployment under ReplicaSet, a CronJob
    // under Job, matched by the name's prefix — and the adopting ones by namespace.
    let mut by_owner: HashMap<(&str, &str, &str), Vec<usize>> = HashMap::default();
    let mut by_parent: HashMap<(&str, &str, &str), Vec<usize>> = HashMap::default();
    let mut adopters: HashMap<&str, Vec<usize>> = HashMap::default();
    for (i, w) in workloads.iter().enumerate() {
        let ns = w.namespace();
        match w {
            Workload::Deployment(_) => by_parent
                .entry((ns, "ReplicaSet", w.name()))
                .or_default()
                .push(i),
            Workload::CronJob(_) => by_parent.entry((ns, "Job", w.name())).or_default().push(i),
            other => {
                let kind = pod_owner_kind(other).unwrap_or_default();
                by_owner.entry((ns, kind, w.name())).or_default().push(i);
                if selectors[i].is_some() {
                    adopters.entry(ns).or_default().push(i);
                }
            }
        }
    }
    let mut owner_of: Vec<Option<usize>> = vec![None; pods.len()];
    let mut adopt = Vec::new();
    for (p, pod) in pods.iter().enumerate() {
        let ns = pod.namespace();
        match controller_ref(pod.meta) {
            Some(r) => {
                let direct = by_owner
                    .get(&(ns, r.kind.as_str(), r.name.as_str()))
                    .and_then(|ws| {
                        ws.iter()
                            .copied()
                            .find(|i| names(r, &r.kind, workloads[*i].metadata()))
                    });
                // Rule 2's pods whose ReplicaSet is not in the input (and a CronJob's whose Job
                // is not): `PARENT-<suffix>`.
                let parent = || {
                    if by_owner.contains_key(&(ns, r.kind.as_str(), r.name.as_str())) {
                        return None;
                    }
                    let (parent, _) = r.name.rsplit_once('-')?;
                    by_parent
                        .get(&(ns, r.kind.as_str(), parent))?
                        .iter()
                        .copied()
                        .find(|i| match &workloads[*i] {
                            Workload::Deployment(_) => selectors[*i]
                                .as_ref()
                                .is_some_and(|s| s.matches(pod.labels())),
                            _ => true,
                        })
                };
                owner_of[p] = direct.or_else(parent);
            }
            None if pod.meta.deletion_timestamp.is_none() => {
                let found = adopters.get(ns).and_then(|ws| {
                    ws.iter().copied().find(|i| {
                        let w = &workloads[*i];
                        selectors[*i]
                            .as_ref()
                            .is_some_and(|s| s.matches(pod.labels()))
                            && match w {
                                Workload::StatefulSet(_) => pod
                                    .name()
                                    .strip_prefix(w.name())
                                    .and_then(|r| r.strip_prefix('-'))
                                    .is_some_and(|r| r.parse::<u64>().is_ok()),
                                _ => true,
                            }
                    })
                });
                if let Some(i) = found {
                    owner_of[p] = Some(i);
                    let w = &workloads[i];
                    let kind = pod_owner_kind(w).unwrap_or_default();
                    let meta = w.metadata();
                    adopt.push((
                        p,
                        OwnerReference {
                            api_version: api_version_of(kind).to_string(),
                            kind: kind.to_string(),
                            name: w.name().to_string(),
                            uid: meta.uid.clone().unwrap_or_default(),
                            controller: Some(true),
                            block_owner_deletion: Some(true),
                        },
                    ));
                }
            }
            None => {}
        }
    }
    // A Deployment's pods: its own (rule 2, ReplicaSets not given) and its ReplicaSets'.
    let mut owned: Vec<Vec<usize>> = vec![Vec::new(); workloads.len()];
    for (p, o) in owner_of.iter().enumerate() {
        if let Some(i) = *o {
            let i = rs_of_deploy.get(&i).copied().unwrap_or(i);
            owned[i].push(p);
        }
    }

    let plans = workloads
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let mine = std::mem::take(&mut owned[i]);
            if rs_of_deploy.contains_key(&i) || cronjob_has_job[i] {
                return WorkloadPlan {
                    owner: None,
                    owned: mine,
                    create: Create::Nothing,
                };
            }
            let active = mine.iter().filter(|p| pods[**p].is_active()).count();
            let missing = |want: usize| {
                if want > active {
                    Create::Pods(want - active)
                } else {
                    Create::Nothing
                }
            };
            let own = |kind: &str, meta: &ObjectMeta| OwnerId {
                kind: kind.to_string(),
                name: meta.name.clone().unwrap_or_default(),
                uid: meta.uid.clone().filter(|u| !u.is_empty()),
            };
            let (owner, create) = match w {
                Workload::Deployment(_) => (
                    Some(deployment_owner(
                        i,
                        w,
                        workloads,
                        &rs_of_deploy,
                        &mine,
                        pods,
                        hashes.get(i).and_then(Option::as_deref),
                    )),
                    missing(w.pod_count()),
                ),
                Workload::ReplicaSet(_) | Workload::ReplicationController(_) => {
                    (Some(own(w.kind(), w.metadata())), missing(w.pod_count()))
                }
                Workload::StatefulSet(s) => {
                    let start = s
                        .spec
                        .ordinals
                        .as_ref()
                        .and_then(|o| o.start)
                        .and_then(|n| u64::try_from(n).ok())
                        .unwrap_or(0);
                    let taken: Vec<&str> = mine.iter().map(|p| pods[*p].name()).collect();
                    let ordinals: Vec<u64> = (start..start + w.pod_count() as u64)
                        .filter(|o| !taken.contains(&format!("{}-{o}", w.name()).as_str()))
                        .collect();
                    let create = if ordinals.is_empty() {
                        Create::Nothing
                    } else {
                        Create::Ordinals(ordinals)
                    };
                    (Some(own("StatefulSet", &s.metadata)), create)
                }
                Workload::DaemonSet(ds) => {
                    let running: Vec<String> = mine
                        .iter()
                        .filter(|p| pods[**p].is_active())
                        .filter_map(|p| pods[*p].node())
                        .collect();
                    let on: Vec<String> = daemon_nodes(ds, nodes, gates)
                        .into_iter()
                        .filter_map(|n| n.metadata.name.clone())
                        .filter(|n| !running.contains(n))
                        .collect();
                    let create = if on.is_empty() {
                        Create::Nothing
                    } else {
                        Create::OnNodes(on)
                    };
                    (Some(own("DaemonSet", &ds.metadata)), create)
                }
                Workload::Job(job) => (
                    Some(own("Job", &job.metadata)),
                    job_create(job, &mine, pods, active),
                ),
                Workload::CronJob(_) => (None, missing(w.pod_count())),
            };
            WorkloadPlan {
                owner,
                owned: mine,
                create,
            }
        })
        .collect();
    Plan {
        workloads: plans,
        adopt,
    }
}

/// [`plan`] over whole pods, with the adoptions applied to them (each adopted pod gets its
/// controller reference, as upstream's controllers patch it in). The plan's `adopt` is
/// emptied.
pub fn claim_pods(
    workloads: &[Workload],
    pods: &mut [Pod],
    nodes: &[Node],
    gates: &FeatureGates,
) -> Plan {
    let mut p = {
        let views: Vec<PodView<'_>> = pods
            .iter()
            .map(|p| PodView {
                meta: &p.metadata,
                spec: p.spec.as_ref(),
                phase: p.status.as_ref().and_then(|s| s.phase.as_deref()),
            })
            .collect();
        plan(workloads, &views, nodes, gates)
    };
    for (i, owner) in std::mem::take(&mut p.adopt) {
        if let Some(pod) = pods.get_mut(i) {
            pod.metadata
                .owner_references
                .get_or_insert_with(Vec::new)
                .push(owner);
        }
    }
    p
}

/// The `namespace/name` of every pod, for [`super::expand_planned`]'s `taken`.
pub fn taken_names(pods: &[Pod]) -> HashSet<String> {
    pods.iter()
        .map(|p| {
            format!(
                "{}/{}",
                namespace_of(&p.metadata),
                p.metadata.name.as_deref().unwrap_or_default()
            )
        })
        .collect()
}

/// Each workload's parsed selector ([`parsed_selector`]) and its template's `pod-template-hash`
/// (a Deployment's; `None` for other workloads), on every core: hashing a template and parsing
/// a selector are most of planning a workload, and a cluster of 20,000 workloads is planned
/// before any of its pods can be made.
fn per_workload(workloads: &[Workload]) -> Vec<(Option<Selector>, Option<String>)> {
    let one = |w: &Workload| {
        let hash = match w {
            Workload::Deployment(_) => w.template().map(|(t, _)| pod_template_hash(t)),
            _ => None,
        };
        (parsed_selector(w), hash)
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    if threads < 2 || workloads.len() < 1024 {
        return workloads.iter().map(one).collect();
    }
    let chunk = workloads.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let parts: Vec<_> = workloads
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(one).collect::<Vec<_>>()))
            .collect();
        let mut out = Vec::with_capacity(workloads.len());
        for (part, handle) in workloads.chunks(chunk).zip(parts) {
            // A thread that failed: its part read here.
            match handle.join() {
                Ok(h) => out.extend(h),
                Err(_) => out.extend(part.iter().map(one)),
            }
        }
        out
    })
}

/// Rule 3: the ReplicaSet a Deployment's new pods belong to; `hash` is its template's
/// `pod-template-hash` ([`per_workload`]; `None` when it has no template).
fn deployment_owner(
    i: usize,
    w: &Workload,
    workloads: &[Workload],
    rs_of_deploy: &HashMap<usize, usize>,
    mine: &[usize],
    pods: &[PodView<'_>],
    hash: Option<&str>,
) -> OwnerId {
    let template = w.template().map(|(t, _)| t);
    let mut have_rs = false;
    for (r, d) in rs_of_deploy {
        if *d != i {
            continue;
        }
        have_rs = true;
        let rs = &workloads[*r];
        if let (Some(a), Some((b, _))) = (template, rs.template())
            && equal_ignore_hash(a, b)
        {
            return OwnerId {
                kind: "ReplicaSet".into(),
                name: rs.name().to_string(),
                uid: rs.metadata().uid.clone().filter(|u| !u.is_empty()),
            };
        }
    }
    if !have_rs {
        let mut count: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for p in mine {
            if let Some(r) = controller_ref(pods[*p].meta)
                && pods[*p].is_active()
            {
                *count.entry((r.name.as_str(), r.uid.as_str())).or_default() += 1;
            }
        }
        // The most pods; among equals, the first name.
        if let Some(((name, uid), _)) = count
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
        {
            return OwnerId {
                kind: "ReplicaSet".into(),
                name: (*name).to_string(),
                uid: (!uid.is_empty()).then(|| (*uid).to_string()),
            };
        }
    }
    let hash = hash.unwrap_or_default();
    OwnerId {
        kind: "ReplicaSet".into(),
        name: format!("{}-{hash}", w.name()),
        uid: None,
    }
}

/// Rule 6.
fn job_create(
    job: &k8s_openapi::api::batch::v1::Job,
    mine: &[usize],
    pods: &[PodView<'_>],
    active: usize,
) -> Create {
    let finished = job
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| matches!(c.type_.as_str(), "Complete" | "Failed") && c.status == "True")
        });
    let spec = job.spec.as_ref();
    let failed = mine
        .iter()
        .filter(|p| pods[**p].phase == Some("Failed"))
        .count();
    let limit = spec
        .and_then(|s| s.backoff_limit)
        .unwrap_or(DEFAULT_BACKOFF_LIMIT);
    if finished || failed as i64 > i64::from(limit) {
        return Create::Nothing;
    }
    let succeeded_pods = mine
        .iter()
        .filter(|p| pods[**p].phase == Some("Succeeded"))
        .count();
    let succeeded = job
        .status
        .as_ref()
        .and_then(|s| s.succeeded)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0)
        .max(succeeded_pods);
    let parallelism = spec
        .and_then(|s| s.parallelism)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(1);
    let want = match spec
        .and_then(|s| s.completions)
        .and_then(|n| usize::try_from(n).ok())
    {
        Some(completions) => parallelism.min(completions.saturating_sub(succeeded)),
        None if succeeded > 0 => active,
        None => parallelism,
    };
    if want > active {
        Create::Pods(want - active)
    } else {
        Create::Nothing
    }
}

#[cfg(test)]
mod tests;
