//! [`build`]: the report's model of a cluster, computed from what the engine already answers.
//!
//! The cluster is built and its pending pods placed as a drain what-if places them
//! ([`Session::new`], the compiled scheduler); then:
//! - each matrix row's pod (a workload's representative pod, admitted; a bare pod as stored)
//!   is filtered by the reference scheduler against every node
//!   ([`Scheduler::evaluate_filters`]: `repel explain`'s evaluation without the scores, which
//!   no cell reads), as `repel explain` filters it; a DaemonSet by its controller's
//!   `NodeShouldRunDaemonPod`, as `repel explain ds/NAME`;
//!   rows whose deciding fields are equal ([`matrix::class_key`]) are evaluated once;
//! - every node is judged for a drain as `kubectl drain --ignore-daemonsets`,
//!   cluster-autoscaler (its default flags) and Karpenter would judge it, each node against
//!   the unchanged cluster (`--independent`);
//! - lint runs on the same objects ([`repel_core::lint::lint`], default options).

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1::{Namespace, Node, Pod, Toleration};
use repel_core::FeatureGates;
use repel_core::admission::{AdmissionConfig, create_pod};
use repel_core::affinity::{PreferredSchedulingTerms, RequiredNodeAffinity};
use repel_core::lint::{LintInput, LintObject, LintOptions, Subject};
use repel_core::pools::Pool;
use repel_core::taint::{is_do_not_schedule, taint_to_string};
use repel_core::toleration::{describe_toleration, tolerates};
use repel_core::workload::{Workload, namespace_of, representative_pod};
use repel_engine::PodInfo;
use repel_engine::drain::{Decider, DrainReport, ca};
use repel_engine::kubectl::drain::DrainOptions;
use repel_engine::load::ClusterInput;
use repel_engine::scheduler::Scheduler;
use repel_engine::whatif::{self, Judge, Session, SessionOptions};

use crate::matrix::{self, NodeCell, daemon_cell, daemon_verdicts, judge_pools, node_cell};
use crate::model::{
    Coverage, CoverageCell, DrainNode, DrainPool, DrainVerdict, Finding, PoolRow, PoolTaint,
    Report, RowClass, Summary, WorkloadRow,
};
use crate::pools::{Group, group};
use crate::{MAX_DRAIN_NODES, MAX_NAMES};

/// How the cluster is read.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Feature gates.
    pub gates: FeatureGates,
    /// The admission plugins pods pass.
    pub admission: AdmissionConfig,
    /// The seed of generated names and the scheduler's ties.
    pub seed: u64,
    /// The time of the drain what-ifs, Unix seconds.
    pub now_unix: i64,
    /// What was read (file names, a context, `repel serve`), shown on the page.
    pub source: String,
}

/// A matrix row before its cells: the object and its representative pod.
struct Subject_ {
    kind: String,
    namespace: String,
    name: String,
    pods: usize,
    /// The pod as evaluated (admitted).
    pod: Pod,
    /// For a bare pod: its id in the cluster.
    existing: Option<usize>,
    /// For a bare pod: `spec.nodeName` as written.
    spec_node_name: Option<String>,
    daemon: bool,
}

/// The report's model of `input` (see the module docs).
pub fn build(mut input: ClusterInput, opts: &Options) -> Report {
    let findings = lint(&input, &opts.gates);
    // The pools are read here; the what-ifs run on the cluster as `repel drain` builds it.
    let pools: Vec<Pool> = std::mem::take(&mut input.pools);
    let workloads: Vec<Workload> = input.workloads.clone();
    let bare: Vec<Pod> = input
        .pods
        .iter()
        .filter(|p| {
            !p.metadata
                .owner_references
                .as_ref()
                .is_some_and(|o| o.iter().any(|r| r.controller == Some(true)))
        })
        .cloned()
        .collect();
    let namespaces: Vec<Namespace> = input.namespaces.clone();
    let daemon_specs: Vec<k8s_openapi::api::core::v1::PodSpec> = workloads
        .iter()
        .filter(|w| matches!(w, Workload::DaemonSet(_)))
        .filter_map(|w| w.template().and_then(|(t, _)| t.spec.clone()))
        .collect();
    let sopts = SessionOptions {
        gates: opts.gates,
        admission: opts.admission.clone(),
        seed: opts.seed,
        percentage_of_nodes_to_score: None,
        now_unix: opts.now_unix,
    };
    let mut session = Session::new(input, &sopts, Judge::Kubectl);
    let drains = drains(&mut session);
    let owners = session.built.owners.clone();
    let cluster = &mut session.built.cluster;
    let groups = group(cluster, &pools, &|_| false);
    let nodes: Vec<Node> = cluster.nodes.iter().map(|n| (*n.node).clone()).collect();
    let ns_of = |name: &str| {
        namespaces
            .iter()
            .find(|n| n.metadata.name.as_deref() == Some(name))
    };

    // The rows, in input order: workloads their own controller (not another workload of the
    // input) manages, then bare pods.
    let mut subjects: Vec<Subject_> = Vec::new();
    for (i, w) in workloads.iter().enumerate() {
        if matches!(owners.get(i), Some(None)) {
            continue;
        }
        let Some(mut pod) = representative_pod(w, opts.seed) else {
            continue;
        };
        let daemon = matches!(w, Workload::DaemonSet(_));
        if !daemon {
            let _ = create_pod(&mut pod, ns_of(w.namespace()), &opts.admission, &opts.gates);
        }
        subjects.push(Subject_ {
            kind: w.kind().to_string(),
            namespace: w.namespace().to_string(),
            name: w.name().to_string(),
            pods: w.pod_count(),
            pod,
            existing: None,
            spec_node_name: None,
            daemon,
        });
    }
    // Each live pod's id by its key (the first, as a scan in id order finds it): one pass
    // over the cluster's pods, not one per bare pod.
    let mut pod_ids: HashMap<String, usize> = HashMap::new();
    if !bare.is_empty() {
        for (id, c) in cluster.pods.iter().enumerate() {
            if !c.deleted {
                pod_ids.entry(c.key()).or_insert(id);
            }
        }
    }
    for p in &bare {
        let namespace = namespace_of(&p.metadata).to_string();
        let name = p.metadata.name.clone().unwrap_or_default();
        let key = format!("{namespace}/{name}");
        let existing = pod_ids.get(&key).copied();
        let pod = match existing {
            Some(id) => cluster.pods[id].to_pod(),
            None => p.clone(),
        };
        subjects.push(Subject_ {
            kind: "Pod".to_string(),
            namespace,
            name,
            pods: 1,
            pod,
            existing,
            spec_node_name: p.spec.as_ref().and_then(|s| s.node_name.clone()),
            daemon: false,
        });
    }

    let mut sched = Scheduler::new(opts.gates, Some(100), opts.seed);
    let karpenter_pools: Vec<Pool> = pools
        .iter()
        .filter(|p| p.provider == "karpenter")
        .cloned()
        .collect();
    // Pods in the cluster with required anti-affinity judge every incoming pod by its labels
    // and namespace: then those take part in every row class's key.
    let existing_anti_affinity = cluster
        .nodes
        .iter()
        .any(|n| !n.pods_with_required_anti_affinity.is_empty());
    let mut by_key: HashMap<(bool, String), usize> = HashMap::new();
    let mut classes: Vec<RowClass> = Vec::new();
    let mut class_ids: HashMap<RowClass, usize> = HashMap::new();
    let mut rows: Vec<WorkloadRow> = Vec::new();
    let mut row_tolerations: Vec<Vec<Toleration>> = Vec::new();
    let mut coverage: Vec<Coverage> = Vec::new();
    for s in &subjects {
        let spec = s.pod.spec.clone().unwrap_or_default();
        let tolerations = spec.tolerations.clone().unwrap_or_default();
        let labels = s.pod.metadata.labels.clone().unwrap_or_default();
        let key = (
            s.daemon,
            match s.existing {
                // A bound pod's own resources count on its node: evaluated on its own.
                Some(id) => format!("pod {id}"),
                None => matrix::class_key(&s.namespace, &labels, &spec, existing_anti_affinity),
            },
        );
        let mut pods = s.pods;
        let class = if let Some(c) = by_key.get(&key).filter(|_| !s.daemon) {
            *c
        } else {
            let (cells, daemon) = if s.daemon {
                let verdicts = daemon_verdicts(&spec, &nodes, &opts.gates);
                let node_cells: BTreeMap<usize, NodeCell> = verdicts
                    .iter()
                    .enumerate()
                    .map(|(id, v)| {
                        (
                            id,
                            daemon_cell(v, &cluster.nodes[id].taints, &tolerations, &opts.gates),
                        )
                    })
                    .collect();
                pods = verdicts.iter().filter(|v| v.should_run).count();
                let cov =
                    daemon_coverage(&spec, &nodes, &verdicts, &groups, &tolerations, &opts.gates);
                (
                    matrix::row_cells(&groups, &node_cells, &tolerations, &|_| None, &opts.gates),
                    Some(cov),
                )
            } else {
                let bound = s
                    .existing
                    .and_then(|id| cluster.pods[id].node.map(|n| (id, n)));
                if let Some((id, _)) = bound {
                    cluster.unbind(id);
                }
                let info = match s.existing {
                    // As `repel explain` judges a pod the input holds: unbound, with the node
                    // name it was written with (binding set one).
                    Some(id) => {
                        let mut info = cluster.pods[id].clone();
                        info.set_spec_node_name(s.spec_node_name.clone());
                        info
                    }
                    None => PodInfo::new(s.pod.clone(), cluster.pods.len()),
                };
                let eval = sched.evaluate_filters(cluster, &info);
                if let Some((id, n)) = bound {
                    cluster.bind(id, n);
                }
                let preferred = PreferredSchedulingTerms::from_pod_spec(&spec)
                    .ok()
                    .filter(|p| !p.is_empty());
                let mut feasible = vec![false; cluster.nodes.len()];
                for id in &eval.feasible {
                    if let Some(f) = feasible.get_mut(*id) {
                        *f = true;
                    }
                }
                let node_cells: BTreeMap<usize, NodeCell> = groups
                    .iter()
                    .flat_map(|g| g.nodes.iter().copied())
                    .map(|id| {
                        let cell = node_cell(
                            cluster,
                            id,
                            &info,
                            feasible.get(id).copied().unwrap_or(false),
                            &eval,
                            preferred.as_ref(),
                            &opts.gates,
                        );
                        (id, cell)
                    })
                    .collect();
                let needs_karpenter = groups.iter().any(|g| {
                    g.nodes.is_empty() && g.pool.as_ref().is_some_and(|p| p.provider == "karpenter")
                });
                let verdicts = if needs_karpenter {
                    judge_pools(&karpenter_pools, &daemon_specs, &info)
                } else {
                    Vec::new()
                };
                let karpenter = |p: &Pool| {
                    (p.provider == "karpenter").then(|| {
                        verdicts
                            .iter()
                            .find(|v| v.pool == p.name)
                            .and_then(|v| v.reason.clone())
                    })
                };
                (
                    matrix::row_cells(&groups, &node_cells, &tolerations, &karpenter, &opts.gates),
                    None,
                )
            };
            let row_class = RowClass { cells };
            let id = *class_ids.entry(row_class.clone()).or_insert_with(|| {
                classes.push(row_class);
                classes.len() - 1
            });
            by_key.insert(key, id);
            if let Some(mut cov) = daemon {
                cov.daemonset = format!("DaemonSet/{}/{}", s.namespace, s.name);
                coverage.push(cov);
            }
            id
        };
        rows.push(WorkloadRow {
            workload: format!("{}/{}/{}", s.kind, s.namespace, s.name),
            kind: s.kind.clone(),
            namespace: s.namespace.clone(),
            name: s.name.clone(),
            pods,
            tolerations: tolerations.iter().map(describe_toleration).collect(),
            class,
        });
        row_tolerations.push(tolerations);
    }

    let pool_rows = pool_rows(cluster, &groups, &rows, &row_tolerations, &opts.gates);
    let (drain_pools, drain_nodes) = drain_rows(cluster, &groups, &drains);
    let pending = cluster
        .pods
        .iter()
        .filter(|p| !p.deleted && p.node.is_none())
        .count();
    Report {
        source: opts.source.clone(),
        summary: Summary {
            nodes: cluster.nodes.len(),
            pods: cluster.pods.iter().filter(|p| !p.deleted).count(),
            workloads: rows.len(),
            pending,
            compute_seconds: 0.0,
        },
        pools: pool_rows,
        workloads: rows,
        classes,
        coverage,
        drain_pools,
        drain_nodes,
        findings,
        timeline: Vec::new(),
        timeline_end: None,
    }
}

/// The three judges' drain reports on every node, each node against the unchanged cluster.
fn drains(session: &mut Session) -> [DrainReport; 3] {
    let names: Vec<String> = session
        .cluster()
        .nodes
        .iter()
        .map(|n| n.name.clone())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let daemon_sets = std::sync::Arc::new(
        session
            .workloads
            .iter()
            .filter(|(kind, _, _)| kind == "DaemonSet")
            .map(|(_, ns, name)| (ns.clone(), name.clone()))
            .collect(),
    );
    let kubectl = Decider::Kubectl(DrainOptions {
        ignore_daemonsets: true,
        daemon_sets: Some(daemon_sets),
        ..Default::default()
    });
    let ca = Decider::ClusterAutoscaler(ca::Options {
        controllers: session.workloads.iter().cloned().collect(),
        ..Default::default()
    });
    [
        whatif::drain(session, &names, kubectl, true),
        whatif::drain(session, &names, ca, true),
        whatif::drain(session, &names, Decider::Karpenter, true),
    ]
}

/// The drain rows: counts per pool, and the nodes some judge refuses (every node of a small
/// cluster).
fn drain_rows(
    cluster: &repel_engine::Cluster,
    groups: &[Group],
    drains: &[DrainReport; 3],
) -> (Vec<DrainPool>, Vec<DrainNode>) {
    let verdict = |n: Option<&repel_engine::drain::DrainVerdict>| match n {
        Some(n) => DrainVerdict {
            drainable: n.drainable,
            reason: n.reason.clone(),
            message: n.message.clone(),
        },
        None => DrainVerdict {
            drainable: false,
            reason: Some("NotJudged".to_string()),
            message: None,
        },
    };
    let index: Vec<HashMap<&str, usize>> = drains
        .iter()
        .map(|r| {
            r.nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.node.as_str(), i))
                .collect()
        })
        .collect();
    let all = cluster.nodes.len() <= MAX_DRAIN_NODES;
    let mut pools = Vec::new();
    let mut nodes = Vec::new();
    for g in groups {
        let mut counts = [0usize; 3];
        for id in &g.nodes {
            let name = cluster.nodes[*id].name.as_str();
            let ok: Vec<bool> = drains
                .iter()
                .zip(&index)
                .map(|(r, ix)| ix.get(name).is_some_and(|i| r.nodes[*i].drainable))
                .collect();
            for (c, o) in counts.iter_mut().zip(&ok) {
                *c += usize::from(*o);
            }
            if all || ok.iter().any(|o| !o) {
                let pick = |k: usize| verdict(index[k].get(name).map(|i| &drains[k].nodes[*i]));
                nodes.push(DrainNode {
                    node: name.to_string(),
                    pool: g.name.clone(),
                    kubectl: pick(0),
                    cluster_autoscaler: pick(1),
                    karpenter: pick(2),
                });
            }
        }
        pools.push(DrainPool {
            pool: g.name.clone(),
            nodes: g.nodes.len(),
            kubectl: counts[0],
            cluster_autoscaler: counts[1],
            karpenter: counts[2],
        });
    }
    (pools, nodes)
}

/// A DaemonSet's coverage per pool: the nodes it is meant for (its node name, node selector and
/// required affinity pick them) and those its controller runs it on.
fn daemon_coverage(
    spec: &k8s_openapi::api::core::v1::PodSpec,
    nodes: &[Node],
    verdicts: &[repel_core::explain::DaemonVerdict],
    groups: &[Group],
    tolerations: &[Toleration],
    gates: &FeatureGates,
) -> Coverage {
    let affinity = RequiredNodeAffinity::from_pod_spec(spec);
    let node_name = spec.node_name.as_deref().filter(|n| !n.is_empty());
    let intended = |id: usize| {
        let n = &nodes[id];
        node_name.is_none_or(|want| n.metadata.name.as_deref() == Some(want))
            && affinity.matches(n).unwrap_or(false)
    };
    let pools = groups
        .iter()
        .map(|g| {
            let meant: Vec<usize> = g.nodes.iter().copied().filter(|id| intended(*id)).collect();
            let would_run = g
                .nodes
                .iter()
                .filter(|id| verdicts[**id].should_run)
                .count();
            let taint = meant
                .iter()
                .filter(|id| !verdicts[**id].should_run)
                .find_map(|id| {
                    nodes[*id]
                        .spec
                        .as_ref()
                        .and_then(|s| s.taints.as_ref())
                        .and_then(|ts| {
                            ts.iter().find(|t| {
                                is_do_not_schedule(t)
                                    && !tolerations.iter().any(|tol| tolerates(tol, t, gates))
                            })
                        })
                        .map(taint_to_string)
                });
            CoverageCell {
                pool: g.name.clone(),
                intended: meant.len(),
                would_run,
                of: g.nodes.len(),
                taint,
            }
        })
        .collect();
    Coverage {
        daemonset: String::new(),
        pools,
    }
}

/// The inventory: each pool with its taints, their node counts and who tolerates each.
fn pool_rows(
    cluster: &repel_engine::Cluster,
    groups: &[Group],
    rows: &[WorkloadRow],
    row_tolerations: &[Vec<Toleration>],
    gates: &FeatureGates,
) -> Vec<PoolRow> {
    groups
        .iter()
        .map(|g| {
            // Every taint of the pool's nodes (or its template's), with how many nodes carry it.
            let mut taints: Vec<(k8s_openapi::api::core::v1::Taint, usize)> = Vec::new();
            if let Some(p) = g.pool.as_ref().filter(|_| g.nodes.is_empty()) {
                taints.extend(p.taints.iter().map(|t| (t.clone(), 0)));
            }
            for id in &g.nodes {
                for t in &cluster.nodes[*id].taints {
                    match taints.iter_mut().find(|(o, _)| o == t) {
                        Some((_, n)) => *n += 1,
                        None => taints.push((t.clone(), 1)),
                    }
                }
            }
            let shared: Vec<String> = match &g.pool {
                Some(p) => p.taints.iter().map(taint_to_string).collect(),
                None => taints
                    .iter()
                    .filter(|(_, n)| *n == g.nodes.len())
                    .map(|(t, _)| taint_to_string(t))
                    .collect(),
            };
            let taint_details = taints
                .iter()
                .map(|(t, n)| {
                    let who: Vec<&str> = rows
                        .iter()
                        .zip(row_tolerations)
                        .filter(|(_, tols)| tols.iter().any(|tol| tolerates(tol, t, gates)))
                        .map(|(r, _)| r.workload.as_str())
                        .collect();
                    PoolTaint {
                        taint: taint_to_string(t),
                        effect: t.effect.clone(),
                        nodes: *n,
                        tolerated_by: who.iter().take(MAX_NAMES).map(|s| s.to_string()).collect(),
                        tolerated_by_more: who.len().saturating_sub(MAX_NAMES),
                    }
                })
                .collect();
            PoolRow {
                name: g.name.clone(),
                kind: g.kind.clone(),
                label: g.label.clone(),
                taints: shared,
                taint_details,
                nodes: g
                    .nodes
                    .iter()
                    .take(MAX_NAMES)
                    .map(|id| cluster.nodes[*id].name.clone())
                    .collect(),
                node_count: g.nodes.len(),
                cordoned: g
                    .nodes
                    .iter()
                    .filter(|id| cluster.nodes[**id].unschedulable)
                    .count(),
            }
        })
        .collect()
}

/// The pool object's kind as lint's findings name it.
fn pool_kind(provider: &str) -> &'static str {
    match provider {
        "karpenter" => "NodePool",
        "aks" => "AgentPool",
        _ => "NodeGroup",
    }
}

/// Lint's findings on the input's objects (default options), without file positions.
pub fn lint(input: &ClusterInput, gates: &FeatureGates) -> Vec<Finding> {
    let objects: Vec<LintObject<'_>> = input
        .workloads
        .iter()
        .filter_map(LintObject::from_workload)
        .chain(input.pods.iter().filter_map(LintObject::from_pod))
        .collect();
    let li = LintInput {
        objects,
        nodes: input.nodes.iter().collect(),
        pools: input.pools.iter().collect(),
        node_classes: Default::default(),
        gates: *gates,
    };
    repel_core::lint::lint(&li, &LintOptions::default())
        .into_iter()
        .map(|f| Finding {
            rule: f.rule.to_string(),
            severity: f.severity.as_str().to_string(),
            object: match f.subject {
                Subject::Object(i) => li.objects[i].id(),
                Subject::Node(i) => format!(
                    "Node/{}",
                    li.nodes[i].metadata.name.as_deref().unwrap_or_default()
                ),
                Subject::Pool(i) => {
                    format!("{}/{}", pool_kind(li.pools[i].provider), li.pools[i].name)
                }
            },
            path: f.path,
            message: f.message,
            fix: f.fix,
        })
        .collect()
}
