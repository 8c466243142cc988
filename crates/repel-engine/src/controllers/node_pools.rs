//! The fixed-size node pools' controllers: AKS agent pools, EKS managed node groups
//! and eksctl's self-managed node groups keep their node count, and their nodes carry the
//! pool's current taints and labels ([`repel_core::pool_nodes`] builds each node).
//!
//! What each provider does, as it documents it (and the README repeats):
//!
//! - **A pool short of nodes** gets new ones at once (the instance launching and registering is
//!   not modelled), named as the provider names them; a pool with too many loses its newest
//!   nodes first: each is cordoned, its pods are evicted (deleted gracefully; DaemonSet pods
//!   stay, as a drain leaves them) and the node is deleted — AKS and EKS both cordon and drain
//!   a node they scale in.
//! - **AKS** (`az aks nodepool update --node-taints`): the pool's taints are applied to its
//!   running nodes in place; "node taints and labels applied using the AKS node pool API aren't
//!   modifiable from the Kubernetes API" — so a pool taint changed or removed on a node with
//!   `kubectl taint` is put back at the controller's next pass, while taints added with kubectl
//!   are left alone (and not removed by a later pool update). `--node-taints ""` removes the
//!   pool's taints.
//! - **EKS** (`aws eks update-nodegroup-config --taints`): `addOrUpdateTaints` and
//!   `removeTaints` are applied to the running nodes in place (a taint is the one with the same
//!   key and effect); nothing watches the nodes afterwards, so a taint removed by hand is not
//!   added back, though the node group still lists it — new nodes get the group's list.
//! - **eksctl's self-managed node groups** (`nodeGroups`) take their taints at boot (the
//!   kubelet's `--register-with-taints`); there is no command to change them but a new group.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Taint;
use repel_core::pool_nodes::{node_name, pool_node, pool_resources};
use repel_core::pools::{Pool, aks_taint_string, aks_validate, eks_validate};
// The same taint for the providers: upstream's `MatchTaint` (key and effect).
use repel_core::taint::match_taint as same;

use crate::cluster::{Cluster, NodeId, PodPhase};
use crate::load::assume_allocatable;
use crate::pool_steps::PoolCommand;

/// One pool and what its controller remembers.
#[derive(Debug, Clone)]
pub struct PoolState {
    /// The pool as it is now (updates change it).
    pub pool: Pool,
    /// The next instance index (names are never reused).
    next: usize,
}

/// Every fixed-size pool's controller.
#[derive(Debug, Clone, Default)]
pub struct PoolController {
    /// The pools, in input order.
    pub pools: Vec<PoolState>,
    /// Instance-type capacities given by the user, by type name.
    overrides: BTreeMap<String, BTreeMap<String, String>>,
    /// Notes for the user (an instance type neither the catalogue nor an override knows).
    pub warnings: Vec<String>,
}

impl PoolController {
    /// A controller of `pools`.
    pub fn new(pools: Vec<Pool>, overrides: BTreeMap<String, BTreeMap<String, String>>) -> Self {
        let mut warnings = Vec::new();
        for p in &pools {
            if let Some(t) = p.instance_types.first()
                && pool_resources(p, &overrides).is_none()
            {
                warnings.push(format!(
                    "{} pool {}: instance type {t} is not in repel's catalogue; its nodes are given the assumed allocatable (give its capacity in the scenario: instanceTypes: {{{t}: {{cpu: N, memory: Q, pods: N}}}})",
                    p.provider, p.name
                ));
            }
        }
        PoolController {
            pools: pools
                .into_iter()
                .map(|pool| PoolState { pool, next: 0 })
                .collect(),
            overrides,
            warnings,
        }
    }

    /// Replaces the Karpenter NodePools with `pools` (what `serve`'s store holds now), keeping
    /// the fixed-size pools.
    pub fn set_karpenter(&mut self, pools: Vec<Pool>) {
        self.pools.retain(|s| s.pool.provider != "karpenter");
        self.pools
            .extend(pools.into_iter().map(|pool| PoolState { pool, next: 0 }));
    }

    /// Adds a pool (a NodePool applied in a step).
    pub fn add(&mut self, pool: Pool) {
        self.pools.push(PoolState { pool, next: 0 });
    }

    /// The pool called `name` (any provider).
    pub fn pool(&self, name: &str) -> Option<&Pool> {
        self.pools.iter().map(|s| &s.pool).find(|p| p.name == name)
    }

    /// The nodes of `pool`, in creation order.
    pub fn nodes_of(cluster: &Cluster, pool: &Pool) -> Vec<NodeId> {
        let (k, v) = &pool.node_label;
        let mut ids = cluster.nodes_with_label(k, v).to_vec();
        ids.sort_unstable();
        ids
    }

    /// One pass: pools short of nodes get new ones, pools with too many lose their newest,
    /// AKS pools' taints are put back on their nodes. Returns the nodes deleted, for the other
    /// controllers ([`crate::control_plane::ControlPlane::node_removed`]), and whether anything
    /// changed.
    pub fn reconcile(&mut self, cluster: &mut Cluster) -> (Vec<(NodeId, String)>, bool) {
        let mut removed = Vec::new();
        let mut changed = false;
        for state in &mut self.pools {
            let pool = &state.pool;
            if pool.provider == "karpenter" {
                continue;
            }
            let Some(want) = pool.count.map(|c| usize::try_from(c).unwrap_or(0)) else {
                continue;
            };
            let mut have = Self::nodes_of(cluster, pool);
            while have.len() < want {
                let resources = pool_resources(pool, &self.overrides);
                let mut attempt = 0;
                let mut name = node_name(pool, state.next, attempt);
                while cluster.node_id(&name).is_some() && attempt < 1000 {
                    attempt += 1;
                    name = node_name(pool, state.next, attempt);
                }
                let mut node = pool_node(pool, &name, state.next, resources.as_ref());
                assume_allocatable(&mut node);
                state.next += 1;
                have.push(cluster.add_node(node));
                changed = true;
            }
            while have.len() > want {
                let Some(id) = have.pop() else { break };
                let name = cluster.nodes[id].name.clone();
                cluster.set_unschedulable(id, true);
                for p in cluster.pods_on_node(id) {
                    let daemon = repel_core::workload::controller_of(&cluster.pods[p].meta)
                        .is_some_and(|(k, _)| k == "DaemonSet");
                    if !daemon && cluster.pods[p].phase != PodPhase::Succeeded {
                        cluster.delete_pod(p);
                    }
                }
                cluster.delete_node(id);
                // Ids after the deleted one move down. The ids already in `removed` stay as
                // they were at their deletion: the other controllers are told of each deletion
                // in order, each shifting its ids as it happens.
                for h in have.iter_mut() {
                    if *h > id {
                        *h -= 1;
                    }
                }
                removed.push((id, name));
                changed = true;
            }
            if pool.provider == "aks" {
                for id in have {
                    let taints = &cluster.nodes[id].taints;
                    let missing = pool
                        .taints
                        .iter()
                        .any(|t| !taints.iter().any(|x| same(x, t) && x.value == t.value));
                    if missing {
                        let mut next: Vec<Taint> = taints
                            .iter()
                            .filter(|x| !pool.taints.iter().any(|t| same(x, t)))
                            .cloned()
                            .collect();
                        next.extend(pool.taints.iter().cloned());
                        cluster.set_node_taints(id, next);
                        changed = true;
                    }
                }
            }
        }
        (removed, changed)
    }

    /// Runs an `az` or `aws` step's command on its pool; `Ok`: what the command prints (a
    /// summary), `Err`: the provider's error.
    pub fn run(&mut self, cmd: &PoolCommand, cluster: &mut Cluster) -> Result<Vec<String>, String> {
        match cmd {
            PoolCommand::Aks {
                verb: _,
                resource_group,
                cluster: cluster_name,
                pool,
                taints,
                count,
            } => {
                let Some(state) = self
                    .pools
                    .iter_mut()
                    .find(|s| s.pool.provider == "aks" && s.pool.name == *pool)
                else {
                    return Err(format!(
                        "(ResourceNotFound) The Resource 'Microsoft.ContainerService/managedClusters/{cluster_name}/agentPools/{pool}' under resource group '{resource_group}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix"
                    ));
                };
                let mut out = Vec::new();
                if let Some(new) = taints {
                    let mut next = state.pool.clone();
                    next.taints = new.clone();
                    // The Spot pool's taint is AKS's own: it stays.
                    if next.spot
                        && !next
                            .taints
                            .iter()
                            .any(|t| t.key == repel_core::pools::AKS_SPOT_KEY)
                    {
                        next.taints.extend(
                            state
                                .pool
                                .taints
                                .iter()
                                .filter(|t| t.key == repel_core::pools::AKS_SPOT_KEY)
                                .cloned(),
                        );
                    }
                    if let Some(e) = aks_validate(&next).into_iter().next() {
                        return Err(e);
                    }
                    let old = std::mem::replace(&mut state.pool, next);
                    for id in Self::nodes_of(cluster, &state.pool) {
                        let mut t: Vec<Taint> = cluster.nodes[id]
                            .taints
                            .iter()
                            .filter(|x| !old.taints.iter().any(|o| same(x, o)))
                            .cloned()
                            .collect();
                        t.extend(state.pool.taints.iter().cloned());
                        if t != cluster.nodes[id].taints {
                            cluster.set_node_taints(id, t);
                        }
                    }
                    out.push(format!(
                        "agentPools/{pool}: nodeTaints {}",
                        taint_list(&state.pool.taints, aks_taint_string)
                    ));
                }
                if let Some(n) = count {
                    if state.pool.system && *n < 1 {
                        // AKS keeps a system pool at one node at least; its error text was not
                        // found, so this one is repel's.
                        return Err(format!(
                            "agent pool {pool} is a system pool: AKS requires at least 1 node in it, not {n}"
                        ));
                    }
                    state.pool.count = Some(*n);
                    out.push(format!("agentPools/{pool}: count {n}"));
                }
                Ok(out)
            }
            PoolCommand::Eks {
                cluster: _,
                nodegroup,
                add,
                remove,
                desired,
            } => {
                let Some(state) = self
                    .pools
                    .iter_mut()
                    .find(|s| s.pool.provider == "eks" && s.pool.name == *nodegroup)
                else {
                    return Err(format!(
                        "An error occurred (ResourceNotFoundException) when calling the UpdateNodegroupConfig operation: No node group found for name: {nodegroup}."
                    ));
                };
                let mut next = state.pool.clone();
                next.api_version = String::new();
                for t in add {
                    next.taints.retain(|x| !same(x, t));
                    next.taints.push(t.clone());
                }
                for t in remove {
                    next.taints.retain(|x| !same(x, t));
                }
                if let Some(e) = eks_validate(&next).into_iter().next() {
                    return Err(format!(
                        "An error occurred (InvalidParameterException) when calling the UpdateNodegroupConfig operation: {e}"
                    ));
                }
                next.api_version = state.pool.api_version.clone();
                state.pool.taints = next.taints;
                if !add.is_empty() || !remove.is_empty() {
                    for id in Self::nodes_of(cluster, &state.pool) {
                        let mut t = cluster.nodes[id].taints.clone();
                        for a in add {
                            t.retain(|x| !same(x, a));
                            t.push(a.clone());
                        }
                        for r in remove {
                            t.retain(|x| !same(x, r));
                        }
                        if t != cluster.nodes[id].taints {
                            cluster.set_node_taints(id, t);
                        }
                    }
                }
                if let Some(n) = desired {
                    state.pool.count = Some(*n);
                }
                Ok(vec![format!(
                    "nodegroup {nodegroup}: taints {}{}",
                    taint_list(&state.pool.taints, eks_taint_string),
                    desired
                        .map(|n| format!(", desiredSize {n}"))
                        .unwrap_or_default()
                )])
            }
        }
    }
}

/// `[a, b]` of taints written by `f`.
fn taint_list(taints: &[Taint], f: fn(&Taint) -> String) -> String {
    format!("[{}]", taints.iter().map(f).collect::<Vec<_>>().join(", "))
}

/// A taint as the EKS API writes it: `key=value:NO_SCHEDULE`.
fn eks_taint_string(t: &Taint) -> String {
    let effect = match t.effect.as_str() {
        "NoSchedule" => "NO_SCHEDULE",
        "PreferNoSchedule" => "PREFER_NO_SCHEDULE",
        "NoExecute" => "NO_EXECUTE",
        other => other,
    };
    match &t.value {
        Some(v) => format!("{}={v}:{effect}", t.key),
        None => format!("{}:{effect}", t.key),
    }
}
