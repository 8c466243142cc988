//! DefaultPreemption as PostFilter (upstream v1.35,
//! `pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go` and
//! `pkg/scheduler/framework/preemption/preemption.go`): when no node fits a pod, find the nodes
//! where removing lower-priority pods would make it fit, pick one, and name its victims.
//!
//! What repel does differently, on purpose:
//! - Upstream dry-runs the candidate nodes on 16 goroutines, starting from a random offset, and
//!   collects candidates from map iteration; repel checks them one by one from offset 0 in node
//!   order, so the candidates, and the "first" one among equals, are deterministic.
//! - A pod's start time (upstream `GetPodStartTime`) is its creation order ([`PodInfo::seq`]).
//! - In a one-shot batch (`repel schedule`, no clock) victims are removed from the cluster at
//!   once (`schedule_one`). The over-time drivers ([`Scheduler::graceful_preemption`]) delete
//!   them as upstream does ([`prepare_candidate`]): `DisruptionTarget`, a graceful deletion
//!   that the kubelet finishes after the grace period, the preemptor nominated meanwhile.
//! - Filters run through [`Scheduler::run_filters_with_nominated`], as upstream's
//!   `SelectVictimsOnNode` runs `RunFilterPluginsWithNominatedPods`.
//! - Extenders, async preemption and workload-aware preemption do not exist here.

mod pdb;
mod pick;
mod prepare;
mod victims;

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use repel_core::fit_error::{
    NO_NEW_CLAIMS_TO_DEALLOCATE, PREEMPTION_NOT_HELPFUL, PREEMPTION_POLICY_NEVER,
    default_post_filter, default_post_filter_counted,
};

use crate::cluster::{Cluster, NodeId, PodId, PodInfo};
use crate::scheduler::framework::{Code, CycleState, Status};
use crate::scheduler::{Diagnosis, Scheduler};
use pdb::Budget;
pub use pdb::filter_pods_with_pdb_violation;
pub use pick::pick_one_node_for_preemption;
pub use prepare::{
    DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS, PREEMPTING_MESSAGE_SUFFIX, REASON_PREEMPTED,
    preempted_message, prepare_candidate,
};
use victims::select_victims;
pub use victims::{more_important_pod, select_victims_on_node};

/// The plugin's name.
pub const NAME: &str = "DefaultPreemption";
/// Upstream `DefaultPreemptionArgs.MinCandidateNodesPercentage` default.
pub const MIN_CANDIDATE_NODES_PERCENTAGE: usize = 10;
/// Upstream `DefaultPreemptionArgs.MinCandidateNodesAbsolute` default.
pub const MIN_CANDIDATE_NODES_ABSOLUTE: usize = 100;
/// `PodEligibleToPreemptOthers`' reason when victims of an earlier preemption are terminating.
pub const NOT_ELIGIBLE_TERMINATING: &str =
    "not eligible due to a terminating pod on the nominated node.";
/// The prefix DefaultPreemption puts on its messages.
pub const PREEMPTION_PREFIX: &str = "preemption: ";
/// Upstream `v1.PodReasonPreemptionByScheduler`.
pub const REASON_PREEMPTION_BY_SCHEDULER: &str = "PreemptionByScheduler";

/// PostFilter's result.
#[derive(Debug, Clone, Default)]
pub struct PostFilterResult {
    /// The default profile's PostFilter message, which the FitError appends: `no new claims to
    /// deallocate, preemption: …` when preemption failed, empty when it nominated a node (upstream
    /// returns Success, whose message is empty, and stops at that plugin).
    pub message: String,
    /// The node nominated for the pod.
    pub nominated: Option<NodeId>,
    /// Pods to remove from it, most important first.
    pub victims: Vec<PodId>,
    /// Whether the pod's nomination is to be cleared: no candidate was found (upstream returns
    /// `NewPostFilterResultWithNominatedNode("")`); when the pod was not eligible, or on an
    /// error, its nomination is kept.
    pub clear_nomination: bool,
}

/// A node where the pod would fit once its victims are gone (upstream `Candidate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The node.
    pub node: NodeId,
    /// The victims, most important first.
    pub victims: Vec<PodId>,
    /// How many victims' PodDisruptionBudgets their removal would violate.
    pub num_pdb_violations: usize,
}

/// What the dry run found (upstream `DryRunPreemption`'s results).
#[derive(Debug, Clone, Default)]
pub struct DryRun {
    /// Candidates: those violating no PDB first, then the others, each in the order checked.
    pub candidates: Vec<Candidate>,
    /// Why each checked node that is not a candidate is not one.
    pub statuses: BTreeMap<NodeId, Status>,
    /// Internal errors met (status code Error), as messages.
    pub errors: Vec<String>,
}

/// How `Preempt` ended.
#[derive(Debug, Clone)]
enum Outcome {
    /// Success: the chosen candidate.
    Nominated(Candidate),
    /// Unschedulable before looking for candidates, with this reason.
    NotEligible(&'static str),
    /// Unschedulable: no candidate; the nodes' preemption reasons, each with how many nodes
    /// gave it.
    NoCandidate(Vec<(String, usize)>),
    /// Error with this message (without the `preemption: ` prefix).
    Error(String),
}

/// Runs the default profile's PostFilter for a pod no node fits: DynamicResources (nothing to
/// deallocate), then DefaultPreemption (upstream `DefaultPreemption.PostFilter` and
/// `Evaluator.Preempt`, v1.35):
///
/// 1. The pod must be eligible ([`pod_eligible_to_preempt_others`]); otherwise Unschedulable
///    with the reason.
/// 2. Candidates come from the nodes whose status is Unschedulable
///    ([`nodes_where_preemption_might_help`]), dry-run from offset 0 over
///    [`calculate_num_candidates`] of them ([`dry_run_preemption`]).
/// 3. No candidate: Unschedulable with a FitError over all nodes, where each node checked gives
///    its own reasons (a filter's, e.g. "Insufficient cpu", or "No preemption victims found for
///    incoming pod") and every other node "Preemption is not helpful for scheduling". If errors
///    were met and there is no candidate, the result is an Error carrying them instead.
/// 4. Otherwise the best candidate ([`pick_one_node_for_preemption`]) is nominated; its victims
///    are returned.
/// 5. The message: on Success empty (RunPostFilterPlugins stops at the first Success and the
///    FitError gets no PostFilter part); on Unschedulable `no new claims to deallocate,
///    preemption: <msg>` (the two plugins' reasons joined); on Error `preemption: <msg>` alone
///    (RunPostFilterPlugins returns an Error at once).
pub fn post_filter(
    sched: &Scheduler,
    cluster: &Cluster,
    state: &CycleState,
    pod: &PodInfo,
    diagnosis: &Diagnosis,
) -> PostFilterResult {
    let outcome = preempt(sched, cluster, state, pod, diagnosis, false);
    if let Outcome::Nominated(c) = outcome {
        return PostFilterResult {
            message: String::new(),
            nominated: Some(c.node),
            victims: c.victims,
            clear_nomination: false,
        };
    }
    PostFilterResult {
        clear_nomination: matches!(outcome, Outcome::NoCandidate(_)),
        message: outcome_message(cluster, outcome),
        ..PostFilterResult::default()
    }
}

/// [`post_filter`]'s message alone (what a FitError appends). The same text, for less: the
/// message says only whether some node has victims (then it is empty), so the dry run stops
/// at the first such node instead of gathering candidates to pick from.
pub fn post_filter_message(
    sched: &Scheduler,
    cluster: &Cluster,
    state: &CycleState,
    pod: &PodInfo,
    diagnosis: &Diagnosis,
) -> String {
    outcome_message(
        cluster,
        preempt(sched, cluster, state, pod, diagnosis, true),
    )
}

/// The PostFilter message of an outcome (see [`post_filter`]).
fn outcome_message(cluster: &Cluster, outcome: Outcome) -> String {
    let n = cluster.nodes.len();
    match outcome {
        Outcome::Nominated(_) => String::new(),
        Outcome::NotEligible(PREEMPTION_POLICY_NEVER) => default_post_filter(n, [], true),
        Outcome::NotEligible(reason) => {
            format!("{NO_NEW_CLAIMS_TO_DEALLOCATE}, {PREEMPTION_PREFIX}{reason}")
        }
        Outcome::NoCandidate(reasons) => {
            default_post_filter_counted(n, reasons.iter().map(|(r, k)| (r.as_str(), *k)), false)
        }
        Outcome::Error(msg) => format!("{PREEMPTION_PREFIX}{msg}"),
    }
}

/// Steps 1–4 of [`post_filter`]; with `first`, the dry run stops at the first node with
/// victims (the candidate nominated is then not upstream's pick: only for the message).
fn preempt(
    sched: &Scheduler,
    cluster: &Cluster,
    state: &CycleState,
    pod: &PodInfo,
    diagnosis: &Diagnosis,
    first: bool,
) -> Outcome {
    if let Err(reason) = pod_eligible_to_preempt_others(cluster, pod, diagnosis) {
        return Outcome::NotEligible(reason);
    }
    let potential = nodes_where_preemption_might_help(cluster, diagnosis);
    let run = if potential.is_empty() {
        DryRun::default()
    } else {
        let num = calculate_num_candidates(potential.len());
        let mut run = DryRun::default();
        dry_run(
            (sched, cluster, state, pod),
            &potential,
            &cluster.pdbs,
            (0, num),
            first,
            &mut run,
        );
        run
    };
    let best = pick_one_node_for_preemption(cluster, &run.candidates);
    match best.and_then(|i| run.candidates.get(i)) {
        Some(c) => Outcome::Nominated(c.clone()),
        None if !run.errors.is_empty() => Outcome::Error(aggregate_errors(&run.errors)),
        None => {
            // The checked nodes' own reasons; every other node "not helpful".
            let n = cluster.nodes.len();
            let checked = run.statuses.range(..n);
            let mut reasons: Vec<(String, usize)> = checked
                .clone()
                .flat_map(|(_, st)| st.reasons.iter().map(|r| (r.clone(), 1)))
                .collect();
            let unchecked = n - checked.count();
            if unchecked > 0 {
                reasons.push((PREEMPTION_NOT_HELPFUL.to_string(), unchecked));
            }
            Outcome::NoCandidate(reasons)
        }
    }
}

/// Upstream `utilerrors.NewAggregate(errs).Error()`: one error as is; several deduplicated,
/// joined by `", "` and bracketed.
fn aggregate_errors(errs: &[String]) -> String {
    let mut seen = BTreeSet::new();
    let unique: Vec<&str> = errs
        .iter()
        .filter(|e| seen.insert(e.as_str()))
        .map(String::as_str)
        .collect();
    if unique.len() == 1 {
        unique[0].to_string()
    } else {
        format!("[{}]", unique.join(", "))
    }
}

/// Upstream `DefaultPreemption.PodEligibleToPreemptOthers` (v1.35):
///
/// 1. `preemptionPolicy: Never`: not eligible, "not eligible due to preemptionPolicy=Never.".
/// 2. A pod with a nominated node (its `nominated`, else `status.nominatedNodeName`): eligible if
///    that node's status this cycle is UnschedulableAndUnresolvable (absent nodes count so);
///    otherwise not eligible while a lower-priority pod on it is terminating by preemption
///    (`deletionTimestamp` set and condition `DisruptionTarget=True`, reason
///    `PreemptionByScheduler`): "not eligible due to a terminating pod on the nominated node.".
/// 3. Otherwise eligible.
pub fn pod_eligible_to_preempt_others(
    cluster: &Cluster,
    pod: &PodInfo,
    diagnosis: &Diagnosis,
) -> Result<(), &'static str> {
    if pod.spec().preemption_policy.as_deref() == Some("Never") {
        return Err(PREEMPTION_POLICY_NEVER);
    }
    let nominated = pod.nominated.or_else(|| {
        let name = pod.status.as_ref()?.nominated_node_name.as_deref()?;
        cluster.node_id(name)
    });
    let Some(node) = nominated else {
        return Ok(());
    };
    let code = diagnosis
        .status(node)
        .map_or(Code::UnschedulableAndUnresolvable, |s| s.code);
    if code == Code::UnschedulableAndUnresolvable {
        return Ok(());
    }
    let Some(info) = cluster.nodes.get(node) else {
        return Ok(());
    };
    let terminating = info
        .pods
        .iter()
        .filter_map(|id| cluster.pods.get(*id))
        .any(|p| p.priority < pod.priority && terminating_by_preemption(p));
    if terminating {
        Err(NOT_ELIGIBLE_TERMINATING)
    } else {
        Ok(())
    }
}

/// Upstream `podTerminatingByPreemption`: a `deletionTimestamp`, and the first
/// `DisruptionTarget` condition is `True` with reason `PreemptionByScheduler`.
pub fn terminating_by_preemption(p: &PodInfo) -> bool {
    if p.meta.deletion_timestamp.is_none() {
        return false;
    }
    let conditions = p.status.as_ref().and_then(|s| s.conditions.as_deref());
    conditions
        .unwrap_or_default()
        .iter()
        .find(|c| c.type_ == "DisruptionTarget")
        .is_some_and(|c| {
            c.status == "True" && c.reason.as_deref() == Some(REASON_PREEMPTION_BY_SCHEDULER)
        })
}

/// The nodes preemption may help on (upstream `NodeToStatus.NodesForStatusCode(Unschedulable)`,
/// once `nodesWherePreemptionMightHelp`): those whose status this cycle is Unschedulable. Nodes
/// with UnschedulableAndUnresolvable, with no status (upstream's default absent status is
/// UnschedulableAndUnresolvable), or with an Error are left out. In node order.
pub fn nodes_where_preemption_might_help(cluster: &Cluster, diagnosis: &Diagnosis) -> Vec<NodeId> {
    (0..cluster.nodes.len())
        .filter(|id| diagnosis.status(*id).map(|s| s.code) == Some(Code::Unschedulable))
        .collect()
}

/// Upstream `DefaultPreemption.calculateNumCandidates` (v1.35) with the default args:
///
/// 1. `n = nodes * 10 / 100` (integer division).
/// 2. At least 100.
/// 3. At most `nodes`.
///
/// Upstream also draws a random offset in `0..nodes` (`GetOffsetAndNumCandidates`); repel uses 0.
pub fn calculate_num_candidates(num_nodes: usize) -> usize {
    (num_nodes * MIN_CANDIDATE_NODES_PERCENTAGE / 100)
        .max(MIN_CANDIDATE_NODES_ABSOLUTE)
        .min(num_nodes)
}

/// Upstream `Evaluator.DryRunPreemption` (v1.35), sequential:
///
/// 1. Nodes are checked from `offset`, wrapping around, each with a copy of its NodeInfo and of
///    the cycle state ([`select_victims_on_node`]).
/// 2. A node with victims is a candidate: among those violating no PDB, or the others. Each list
///    holds at most `num_candidates`.
/// 3. Checking stops once there is a non-violating candidate and the two lists together hold
///    `num_candidates`.
/// 4. A node that fits without removing anyone gets the error "expected at least one victim pod
///    on node \"<name>\"". Every failing node's status is kept; Error statuses are also collected.
#[allow(clippy::too_many_arguments)]
pub fn dry_run_preemption(
    sched: &Scheduler,
    cluster: &Cluster,
    state: &CycleState,
    pod: &PodInfo,
    potential: &[NodeId],
    pdbs: &[PodDisruptionBudget],
    offset: usize,
    num_candidates: usize,
) -> DryRun {
    let mut out = DryRun::default();
    dry_run(
        (sched, cluster, state, pod),
        potential,
        pdbs,
        (offset, num_candidates),
        false,
        &mut out,
    );
    out
}

/// [`dry_run_preemption`] into `out`; with `first`, stopping at the first node with victims.
fn dry_run(
    (sched, cluster, state, pod): (&Scheduler, &Cluster, &CycleState, &PodInfo),
    potential: &[NodeId],
    pdbs: &[PodDisruptionBudget],
    (offset, num_candidates): (usize, usize),
    first: bool,
    out: &mut DryRun,
) {
    let budgets = Budget::all(pdbs, cluster);
    let mut non_violating: Vec<Candidate> = Vec::new();
    let mut violating: Vec<Candidate> = Vec::new();
    for i in 0..potential.len() {
        let node = potential[(offset + i) % potential.len()];
        let status = match select_victims(sched, cluster, state, pod, node, &budgets) {
            Ok((victims, num_pdb_violations)) if !victims.is_empty() => {
                let c = Candidate {
                    node,
                    victims,
                    num_pdb_violations,
                };
                let list = if num_pdb_violations == 0 {
                    &mut non_violating
                } else {
                    &mut violating
                };
                if list.len() < num_candidates {
                    list.push(c);
                }
                if first
                    || !non_violating.is_empty()
                        && non_violating.len() + violating.len() >= num_candidates
                {
                    break;
                }
                continue;
            }
            Ok(_) => {
                let name = cluster.nodes.get(node).map_or("", |n| n.name.as_str());
                Status::error(
                    NAME,
                    format!("expected at least one victim pod on node {name:?}"),
                )
            }
            Err(st) => st,
        };
        if status.code == Code::Error {
            out.errors.push(status.message());
        }
        out.statuses.insert(node, status);
    }
    out.candidates = non_violating;
    out.candidates.append(&mut violating);
}

#[cfg(test)]
mod tests;
