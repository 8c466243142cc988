//! Upstream `SelectVictimsOnNode` (v1.35): which pods to remove from one node.

use super::pdb::{Budget, split_by_pdb};
use super::{NAME, PREEMPTION_NOT_HELPFUL};
use crate::cluster::{Cluster, NodeId, NodeInfo, PodId, PodInfo};
use crate::scheduler::Scheduler;
use crate::scheduler::framework::{CycleState, Plugin, Status};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use repel_core::fit_error::NO_PREEMPTION_VICTIMS;

/// Upstream `DefaultPreemption.SelectVictimsOnNode` (v1.35): the fewest pods to remove from
/// `node` for `pod` to fit, and how many of them violate a PodDisruptionBudget.
///
/// 1. Every pod on the node with a lower priority than `pod` is a potential victim; all are
///    removed from a copy of the node (`NodeInfo::remove_pod`, then each filter plugin's
///    `remove_pod` on a copy of the cycle state).
/// 2. No potential victim: UnschedulableAndUnresolvable "No preemption victims found for
///    incoming pod".
/// 3. If the filters still reject the pod, their status is returned.
/// 4. Potential victims are sorted most important first ([`more_important_pod`]) and split into
///    those whose removal would violate a PDB and the others
///    ([`super::filter_pods_with_pdb_violation`]).
/// 5. Each is added back in that order (PDB-violating ones first); it stays if the pod still
///    fits, otherwise it is removed again and becomes a victim (counted as a violation if it
///    came from the first group).
/// 6. When both groups were non-empty the victims are sorted again, most important first.
pub fn select_victims_on_node(
    sched: &Scheduler,
    cluster: &Cluster,
    state: &CycleState,
    pod: &PodInfo,
    node: NodeId,
    pdbs: &[PodDisruptionBudget],
) -> Result<(Vec<PodId>, usize), Status> {
    select_victims(
        sched,
        cluster,
        state,
        pod,
        node,
        &Budget::all(pdbs, cluster),
    )
}

pub(super) fn select_victims(
    sched: &Scheduler,
    cluster: &Cluster,
    state: &CycleState,
    pod: &PodInfo,
    node: NodeId,
    budgets: &[Budget],
) -> Result<(Vec<PodId>, usize), Status> {
    let Some(original) = cluster.nodes.get(node) else {
        return Err(Status::unresolvable(NAME, PREEMPTION_NOT_HELPFUL));
    };
    let mut potential: Vec<PodId> = original
        .pods
        .iter()
        .copied()
        .filter(|id| {
            cluster
                .pods
                .get(*id)
                .is_some_and(|v| v.priority < pod.priority)
        })
        .collect();
    if potential.is_empty() {
        // (Upstream removes nothing from its copy of the node first: no copy is needed.)
        return Err(Status::unresolvable(NAME, NO_PREEMPTION_VICTIMS));
    }
    let mut what_if = WhatIf {
        sched,
        cluster,
        pod,
        node: original.clone(),
        extensions: sched
            .profile
            .entries
            .iter()
            .filter(|e| e.filter && !state.skip_filter.contains(e.plugin.name()))
            .map(|e| e.plugin.as_ref())
            .collect(),
        state: state.clone(),
    };
    for id in &potential {
        what_if.remove(*id);
    }
    let st = what_if.filter();
    if !st.is_success() {
        return Err(st);
    }
    sort_by_importance(cluster, &mut potential);
    let (violating, non_violating) = split_by_pdb(cluster, &potential, budgets);
    let mut victims = Vec::new();
    let mut num_violating = 0;
    for (id, violates) in violating
        .iter()
        .map(|id| (*id, true))
        .chain(non_violating.iter().map(|id| (*id, false)))
    {
        what_if.add(id);
        if !what_if.filter().is_success() {
            what_if.remove(id);
            victims.push(id);
            if violates {
                num_violating += 1;
            }
        }
    }
    if !violating.is_empty() && !non_violating.is_empty() {
        sort_by_importance(cluster, &mut victims);
    }
    Ok((victims, num_violating))
}

/// A node and cycle state being changed for one preemption what-if.
struct WhatIf<'a> {
    sched: &'a Scheduler,
    cluster: &'a Cluster,
    pod: &'a PodInfo,
    node: NodeInfo,
    /// The filter plugins whose PreFilter ran (upstream skips PreFilter extensions of plugins
    /// whose PreFilter returned Skip).
    extensions: Vec<&'a dyn Plugin>,
    state: CycleState,
}

impl<'a> WhatIf<'a> {
    fn remove(&mut self, id: PodId) {
        let Some(victim) = self.cluster.pods.get(id) else {
            return;
        };
        self.node.remove_pod(id, victim);
        for pl in &self.extensions {
            pl.remove_pod(&mut self.state, self.pod, victim, &self.node, self.cluster);
        }
    }

    fn add(&mut self, id: PodId) {
        let Some(victim) = self.cluster.pods.get(id) else {
            return;
        };
        self.node.add_pod(id, victim);
        for pl in &self.extensions {
            pl.add_pod(&mut self.state, self.pod, victim, &self.node, self.cluster);
        }
    }

    fn filter(&self) -> Status {
        self.sched
            .run_filters_with_nominated(&self.state, self.pod, &self.node, self.cluster)
    }
}

/// Upstream `util.MoreImportantPod`: the higher priority; at equal priority the one started
/// earlier (here: created earlier, [`PodInfo::seq`]).
pub fn more_important_pod(a: &PodInfo, b: &PodInfo) -> bool {
    if a.priority != b.priority {
        return a.priority > b.priority;
    }
    a.seq < b.seq
}

fn sort_by_importance(cluster: &Cluster, pods: &mut [PodId]) {
    pods.sort_by_key(|id| {
        cluster
            .pods
            .get(*id)
            .map_or((std::cmp::Reverse(i32::MIN), usize::MAX), |p| {
                (std::cmp::Reverse(p.priority), p.seq)
            })
    });
}
