//! Karpenter: provisioning for pods no node takes, NodeClaims that become nodes,
//! startup taints, and drift — `sigs.k8s.io/karpenter`'s provisioner, registration,
//! initialization and disruption controllers, as far as taints and scheduling need them.
//!
//! - **Provisioning.** A pod the scheduler left Unschedulable (not a DaemonSet's) is first
//!   offered to the NodeClaims already launching (those of earlier passes by name, as
//!   Karpenter's `sortExistingNodes` walks its existing nodes, then this pass's, fewest pods
//!   first); then to the NodePools, heaviest `weight` first (then by name, in reverse order).
//!   A NodePool takes it when (Karpenter's `NodeClaim.CanAdd`, in its order) the pod tolerates
//!   every one of the pool's `taints` — every effect is hard, PreferNoSchedule included,
//!   `startupTaints` are ignored — its node selector and first required node-affinity term are
//!   compatible with the pool's requirements and template labels, and an instance type fits
//!   the pod with the DaemonSet pods the pool's nodes would run (a DaemonSet pod tolerates
//!   PreferNoSchedule taints there); the pool's `limits` are checked first. When nothing takes
//!   the pod and a NodePool has a PreferNoSchedule taint, it is tried again with a toleration
//!   for PreferNoSchedule taints (Karpenter's last relaxation,
//!   `toleratePreferNoScheduleTaints`), and a failure's reasons are that attempt's. The
//!   instance type is the smallest that fits (fewest vCPUs, then least
//!   memory) — repel's stand-in for Karpenter's cheapest price, the catalogue having no prices.
//!   The pod gets Karpenter's `Nominated` event ("Pod should schedule on: nodeclaim/NAME"), or
//!   when no pool takes it a `FailedScheduling` event "Failed to schedule pod, " with every
//!   pool's reason joined by `; ` (`did not tolerate taint (taint=…)`, `incompatible
//!   requirements, …`, as Karpenter v1.14.1 words them) — once per distinct message.
//! - **Launch and registration.** [`LAUNCH_DELAY`] after the claim, its Node appears (named as
//!   the claim, as Karpenter's kwok provider names it) with the pool's labels, the
//!   `karpenter.sh/nodepool`, capacity-type and instance-type labels, its taints and startup
//!   taints, and the kubelet's `karpenter.sh/unregistered:NoExecute`; registration removes that
//!   taint and labels the node `karpenter.sh/registered=true` in the same pass.
//! - **Initialization**: once no startup taint (and no known ephemeral taint) is left the node is
//!   labelled `karpenter.sh/initialized=true`. Karpenter never removes a startup taint itself: a
//!   DaemonSet or a person must (`kubectl taint … key-` in a scenario).
//! - **Drift**: a NodePool applied with another template (its taints, startup taints, labels,
//!   annotations… — [`repel_core::pools::Pool::template_hash`]) drifts every node it launched
//!   before. Each drifted node with pods is tainted `karpenter.sh/disrupted:NoSchedule` and
//!   gets a replacement claim in the same pass ("Launching NodeClaim: Drifted"); once the
//!   replacement is initialized the old node is disrupted ("Disrupting Node: Drifted",
//!   "Disrupting NodeClaim: Drifted") and its pods evicted
//!   (PodDisruptionBudgets respected, one eviction per budget-allowed disruption per pass;
//!   DaemonSet pods and pods that tolerate the disrupted taint are neither evicted nor waited
//!   for), then it is deleted. A node or pod with `karpenter.sh/do-not-disrupt` blocks it
//!   (`DisruptionBlocked`).
//! - **`kubectl taint` on a Karpenter node** changes the Node, not its NodeClaim, and drift
//!   compares the NodeClaim's hash with the NodePool's: Karpenter does not put the taint back
//!   (its maintainers declined in-place taint sync, aws/karpenter-provider-aws#6256). The
//!   guide's sentence says it does; the README says why repel follows the code.

pub mod requirements;

mod drift;
mod instance;
mod judge;

pub use instance::*;
pub use judge::*;

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1::{PodSpec, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use repel_core::instance_types::{CATALOGUE, InstanceType};
use repel_core::pool_nodes::{instance_resources, pool_node};
use repel_core::pools::{NODEPOOL_LABEL, Pool};
use requirements::{Requirement, Requirements};

use crate::clock::Millis;
use crate::cluster::{Cluster, NodeId, PodId, PodPhase};
use crate::drain::karpenter::DO_NOT_DISRUPT;
use crate::events::{Event, pod_object};
use crate::resources::Resources;

/// How long a NodeClaim takes to become a registered Node (decided: 30 s, about what an EC2
/// instance takes to boot and join).
pub const LAUNCH_DELAY: Millis = 30_000;

/// The taint the kubelet registers a Karpenter node with, removed at registration.
pub const UNREGISTERED_TAINT: &str = "karpenter.sh/unregistered";

/// Karpenter's `KnownEphemeralTaints` keys: they do not hold initialization back for long.
const EPHEMERAL: [&str; 4] = [
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.cloudprovider.kubernetes.io/uninitialized",
    UNREGISTERED_TAINT,
];

/// A NodeClaim: a node Karpenter decided to launch.
#[derive(Debug, Clone)]
pub struct Claim {
    /// Its name (`POOL-xxxxx`), also its node's.
    pub name: String,
    /// Its NodePool.
    pub pool: String,
    /// The instance types that fit everything nominated to it, smallest first.
    pub options: Vec<&'static InstanceType>,
    /// What its pods and the pool's DaemonSet pods request.
    pub requests: Resources,
    /// The pool's requirements narrowed by its pods'.
    pub requirements: Requirements,
    /// The pods nominated to it (`ns/name`).
    pub pods: Vec<String>,
    /// When its node registers.
    pub launch_at: Millis,
    /// Its node, once registered.
    pub node: Option<String>,
    /// The NodePool's template hash when it was launched.
    pub hash: String,
    /// Initialized (no startup taint left).
    pub initialized: bool,
    /// The drifted claim this one replaces.
    pub replaces: Option<String>,
    /// Tainted disrupted and draining.
    pub disrupting: bool,
}

/// Karpenter's controllers.
#[derive(Debug, Clone, Default)]
pub struct Karpenter {
    /// Every NodeClaim.
    pub claims: Vec<Claim>,
    counter: usize,
    /// The last FailedScheduling message per pod (a repeated one is not recorded again).
    last_failure: HashMap<String, String>,
    /// The last DisruptionBlocked message per node.
    last_blocked: HashMap<String, String>,
}

impl Karpenter {
    /// A NodePool's DaemonSet overhead (Karpenter's `buildDaemonOverheadGroups` with
    /// `isDaemonPodCompatible`, `pkg/controllers/provisioning/scheduling/scheduler.go`,
    /// v1.14.1): the requests of every DaemonSet's pod template that
    /// 1. tolerates the pool's taints (not its startup taints), with a toleration for
    ///    PreferNoSchedule taints added ("a daemon pod shouldn't respect the preference"), and
    /// 2. is compatible with the pool's requirements,
    ///
    /// each counting one pod.
    fn daemon_overhead(daemons: &[PodSpec], pool: &Pool, reqs: &Requirements) -> Resources {
        let mut total = Resources::default();
        for spec in daemons {
            let own = spec.tolerations.as_deref().unwrap_or_default();
            let tolerations = tolerate_prefer_no_schedule_taints(own);
            if taint_errors(&pool.taints, tolerations.as_deref().unwrap_or(own)).is_some() {
                continue;
            }
            if reqs.compatible(&Requirements::of_pod(spec, false)).is_err() {
                continue;
            }
            total.add(&crate::resources::pod_requests(spec));
            total.allowed_pod_number += 1;
        }
        total
    }

    /// One pass (see the module docs). Returns the nodes deleted (for the other controllers)
    /// and whether anything changed.
    pub fn reconcile(
        &mut self,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
        pools: &[&Pool],
        daemons: &[PodSpec],
        gates: &repel_core::FeatureGates,
    ) -> (Vec<(NodeId, String)>, bool) {
        let pools = karpenter_order(pools.iter().copied());
        let mut changed = false;
        let mut removed = Vec::new();
        if pools.is_empty() && self.claims.is_empty() {
            return (removed, changed);
        }
        changed |= self.launch(now, cluster, &pools);
        changed |= self.initialize(cluster, &pools);
        let (r, c) = self.drift(now, cluster, events, &pools, gates);
        removed.extend(r);
        changed |= c;
        changed |= self.provision(now, cluster, events, &pools, daemons);
        (removed, changed)
    }

    /// Claims due become registered nodes.
    fn launch(&mut self, now: Millis, cluster: &mut Cluster, pools: &[&Pool]) -> bool {
        let mut changed = false;
        for claim in self.claims.iter_mut().filter(|c| c.node.is_none()) {
            if claim.launch_at > now {
                continue;
            }
            let Some(pool) = pools.iter().find(|p| p.name == claim.pool) else {
                continue;
            };
            let Some(t) = claim.options.first() else {
                continue;
            };
            let mut template = (*pool).clone();
            template.instance_types = vec![t.name.to_string()];
            // A single-valued requirement becomes a label (capacity type, zone, …).
            template.spot = claim
                .requirements
                .0
                .get("karpenter.sh/capacity-type")
                .is_some_and(|r| r.operator() == "In" && !r.values.contains("on-demand"));
            for r in claim.requirements.0.values() {
                if r.operator() == "In"
                    && r.values.len() == 1
                    && r.key != "kubernetes.io/hostname"
                    && let Some(v) = r.values.iter().next()
                {
                    template.labels.entry(r.key.clone()).or_insert(v.clone());
                }
            }
            let mut node = pool_node(
                &template,
                &claim.name,
                0,
                Some(&instance_resources(&template, t)),
            );
            node.spec
                .get_or_insert_with(Default::default)
                .taints
                .get_or_insert_with(Vec::new)
                .push(Taint {
                    key: UNREGISTERED_TAINT.into(),
                    value: None,
                    effect: "NoExecute".into(),
                    time_added: None,
                });
            let id = cluster.add_node(node);
            // Registration: the unregistered taint goes, the node is labelled registered.
            let taints: Vec<Taint> = cluster.nodes[id]
                .taints
                .iter()
                .filter(|t| t.key != UNREGISTERED_TAINT)
                .cloned()
                .collect();
            cluster.set_node_taints(id, taints);
            let mut labels = cluster.nodes[id].labels.clone();
            labels.insert("karpenter.sh/registered".into(), "true".into());
            cluster.set_node_labels(id, labels);
            claim.node = Some(claim.name.clone());
            changed = true;
        }
        changed
    }

    /// Registered claims whose node has no startup taint left are initialized.
    fn initialize(&mut self, cluster: &mut Cluster, pools: &[&Pool]) -> bool {
        let mut changed = false;
        for claim in self.claims.iter_mut().filter(|c| !c.initialized) {
            let Some(id) = claim.node.as_deref().and_then(|n| cluster.node_id(n)) else {
                continue;
            };
            let startup: &[Taint] = pools
                .iter()
                .find(|p| p.name == claim.pool)
                .map(|p| p.startup_taints.as_slice())
                .unwrap_or_default();
            let held = cluster.nodes[id].taints.iter().any(|t| {
                EPHEMERAL.contains(&t.key.as_str())
                    || startup
                        .iter()
                        .any(|s| s.key == t.key && s.effect == t.effect)
            });
            if held || !cluster.node_ready(id) {
                continue;
            }
            let mut labels = cluster.nodes[id].labels.clone();
            labels.insert("karpenter.sh/initialized".into(), "true".into());
            cluster.set_node_labels(id, labels);
            claim.initialized = true;
            changed = true;
        }
        changed
    }

    /// A fresh NodeClaim name for `pool`.
    fn claim_name(&self, cluster: &Cluster, pool: &Pool) -> String {
        let mut attempt = 0;
        loop {
            let name = repel_core::pool_nodes::node_name(pool, self.counter, attempt);
            if attempt >= 1000
                || (cluster.node_id(&name).is_none() && !self.claims.iter().any(|c| c.name == name))
            {
                return name;
            }
            attempt += 1;
        }
    }

    /// Pods no node takes get a claim (see the module docs).
    fn provision(
        &mut self,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
        pools: &[&Pool],
        daemons: &[PodSpec],
    ) -> bool {
        if pools.is_empty() {
            return false;
        }
        let nominated: Vec<String> = self.claims.iter().flat_map(|c| c.pods.clone()).collect();
        let mut pending: Vec<PodId> = (0..cluster.pods.len())
            .filter(|p| provisionable(cluster, *p))
            .filter(|p| !nominated.contains(&cluster.pods[*p].key()))
            .collect();
        if pending.is_empty() {
            return false;
        }
        crate::scheduler::Scheduler::queue_order(cluster, &mut pending);
        // `pools` come in Karpenter's order (see `karpenter_order`).
        let overheads: Vec<Resources> = pools
            .iter()
            .map(|pool| Self::daemon_overhead(daemons, pool, &pool_requirements(pool)))
            .collect();
        let relax = relaxes_prefer_no_schedule(pools.iter().copied());
        // The claims made before this pass are Karpenter's existing (in-flight) nodes; those
        // made in it, its new NodeClaims.
        let first_new = self.claims.len();
        let mut changed = false;
        for p in pending {
            let pod = &cluster.pods[p];
            let key = pod.key();
            let (ns, name) = (pod.namespace.clone(), pod.name.clone());
            // Karpenter's `trySchedule`: add the pod, and while that fails relax it and add it
            // again; the toleration for PreferNoSchedule taints is its last relaxation.
            let mut added = self.add(pod, pod.tolerations(), pools, &overheads, first_new);
            if added.is_err()
                && relax
                && let Some(relaxed) = tolerate_prefer_no_schedule_taints(pod.tolerations())
            {
                added = self.add(pod, &relaxed, pools, &overheads, first_new);
            }
            match added {
                Ok(Added::InFlight {
                    claim,
                    requests,
                    options,
                    requirements,
                }) => {
                    let c = &mut self.claims[claim];
                    c.requests = requests;
                    c.options = options;
                    c.requirements = requirements;
                    c.pods.push(key.clone());
                    events.push(Event::normal(
                        now,
                        "Nominated",
                        pod_object(&ns, &name),
                        None,
                        nominated_message(c),
                    ));
                    changed = true;
                }
                Ok(Added::New {
                    pool,
                    requests,
                    options,
                    requirements,
                }) => {
                    let pool = pools[pool];
                    self.counter += 1;
                    let claim = Claim {
                        name: self.claim_name(cluster, pool),
                        pool: pool.name.clone(),
                        options,
                        requests,
                        requirements,
                        pods: vec![key.clone()],
                        launch_at: now + LAUNCH_DELAY,
                        node: None,
                        hash: pool.template_hash.clone(),
                        initialized: false,
                        replaces: None,
                        disrupting: false,
                    };
                    events.push(Event::normal(
                        now,
                        "Nominated",
                        pod_object(&ns, &name),
                        None,
                        nominated_message(&claim),
                    ));
                    self.claims.push(claim);
                    self.last_failure.remove(&key);
                    changed = true;
                }
                Err(errs) => {
                    let message = format!("Failed to schedule pod, {}", errs.join("; "));
                    if self.last_failure.get(&key) != Some(&message) {
                        self.last_failure.insert(key.clone(), message.clone());
                        events.push(Event::warning(
                            now,
                            "FailedScheduling",
                            pod_object(&ns, &name),
                            None,
                            message,
                        ));
                        changed = true;
                    }
                }
            }
        }
        changed
    }

    /// Karpenter's `Scheduler.add` (`pkg/controllers/provisioning/scheduling/scheduler.go`,
    /// v1.14.1) for a pod with `tolerations` (its own, or relaxed), in its order:
    /// 1. the existing nodes — the claims made before this pass (`self.claims[..first_new]`)
    ///    — in `sortExistingNodes`' order: initialized first, then by name;
    /// 2. the claims made in this pass (`newNodeClaims`), fewest pods first;
    /// 3. a new claim from the first of `pools` (in Karpenter's order, `overheads` beside
    ///    them) that takes the pod; else every pool's reason.
    ///
    /// An initialized node is left to the kube-scheduler, which has already found the pod no
    /// room there: only claims not yet initialized (and not being disrupted) are walked, so
    /// the existing ones go by name alone.
    fn add(
        &self,
        pod: &crate::cluster::PodInfo,
        tolerations: &[Toleration],
        pools: &[&Pool],
        overheads: &[Resources],
        first_new: usize,
    ) -> Result<Added, Vec<String>> {
        let pod_reqs = Requirements::of_pod(pod.spec(), false);
        let mut need = pod.requests.clone();
        need.allowed_pod_number += 1;
        let open = |i: &usize| !self.claims[*i].initialized && !self.claims[*i].disrupting;
        let first_new = first_new.min(self.claims.len());
        let mut existing: Vec<usize> = (0..first_new).filter(open).collect();
        existing.sort_by(|a, b| self.claims[*a].name.cmp(&self.claims[*b].name));
        let mut new: Vec<usize> = (first_new..self.claims.len()).filter(open).collect();
        new.sort_by_key(|i| self.claims[*i].pods.len());
        for i in existing.into_iter().chain(new) {
            let c = &self.claims[i];
            let Some(pool) = pools.iter().find(|x| x.name == c.pool) else {
                continue;
            };
            if taint_errors(&pool.taints, tolerations).is_some()
                || c.requirements.compatible(&pod_reqs).is_err()
            {
                continue;
            }
            let mut total = c.requests.clone();
            total.add(&need);
            let options: Vec<&'static InstanceType> = c
                .options
                .iter()
                .copied()
                .filter(|t| fits(&total, &allocatable(pool, t)))
                .collect();
            if options.is_empty() {
                continue;
            }
            let mut requirements = c.requirements.clone();
            for r in pod_reqs.0.values() {
                requirements.add(r.clone());
            }
            return Ok(Added::InFlight {
                claim: i,
                requests: total,
                options,
                requirements,
            });
        }
        let mut errs: Vec<String> = Vec::new();
        for (i, pool) in pools.iter().enumerate() {
            match try_pool(&self.claims, pool, pod, tolerations, &overheads[i]) {
                Ok((requirements, requests, options)) => {
                    return Ok(Added::New {
                        pool: i,
                        requests,
                        options,
                        requirements,
                    });
                }
                Err(e) => errs.push(e),
            }
        }
        Err(errs)
    }

    /// Takes in the NodeClaims of the input (a cluster's, exported): each belongs to the
    /// NodePool of its `karpenter.sh/nodepool` label, its instance type is its
    /// `node.kubernetes.io/instance-type` label (else its requirement's first value); one whose
    /// `status.nodeName` names a node of the cluster is registered (and initialized when the
    /// node is labelled so, or carries none of the pool's startup taints), one without is
    /// launching and registers after [`LAUNCH_DELAY`]. Its drift hash is the pool's as read
    /// (Karpenter's `karpenter.sh/nodepool-hash` is another digest). Returns warnings.
    pub fn adopt(
        &mut self,
        claims: &[serde_json::Value],
        cluster: &Cluster,
        pools: &[Pool],
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        for v in claims {
            let name = v["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let labels = &v["metadata"]["labels"];
            let Some(pool) = labels["karpenter.sh/nodepool"].as_str().and_then(|p| {
                pools
                    .iter()
                    .find(|x| x.provider == "karpenter" && x.name == p)
            }) else {
                warnings.push(format!(
                    "NodeClaim {name}: no NodePool of the input is named by its karpenter.sh/nodepool label: not managed"
                ));
                continue;
            };
            let type_name = labels["node.kubernetes.io/instance-type"]
                .as_str()
                .map(str::to_string)
                .or_else(|| {
                    v["spec"]["requirements"].as_array().and_then(|reqs| {
                        reqs.iter()
                            .find(|r| r["key"] == "node.kubernetes.io/instance-type")
                            .and_then(|r| r["values"][0].as_str().map(str::to_string))
                    })
                });
            let Some(t) = type_name
                .as_deref()
                .and_then(repel_core::instance_types::lookup)
            else {
                warnings.push(format!(
                    "NodeClaim {name}: instance type {} is not in repel's catalogue: not managed",
                    type_name.as_deref().unwrap_or("(none)")
                ));
                continue;
            };
            let node = v["status"]["nodeName"]
                .as_str()
                .filter(|n| cluster.node_id(n).is_some())
                .map(str::to_string);
            let initialized = node
                .as_deref()
                .and_then(|n| cluster.node_id(n))
                .is_some_and(|id| {
                    let n = &cluster.nodes[id];
                    n.labels.get("karpenter.sh/initialized").map(String::as_str) == Some("true")
                        || !n.taints.iter().any(|t| {
                            pool.startup_taints
                                .iter()
                                .any(|s| s.key == t.key && s.effect == t.effect)
                        })
                });
            self.claims.push(Claim {
                name,
                pool: pool.name.clone(),
                options: vec![t],
                requests: Resources::default(),
                requirements: pool_requirements(pool),
                pods: Vec::new(),
                launch_at: if node.is_some() { 0 } else { LAUNCH_DELAY },
                node,
                hash: pool.template_hash.clone(),
                initialized,
                replaces: None,
                disrupting: false,
            });
        }
        warnings
    }

    /// The next time a claim launches.
    pub fn next_wake(&self, now: Millis) -> Option<Millis> {
        self.claims
            .iter()
            .filter(|c| c.node.is_none() && c.launch_at > now && c.launch_at != Millis::MAX)
            .map(|c| c.launch_at)
            .min()
    }

    /// The pool a node was launched for, if Karpenter launched it.
    pub fn claim_of_node(&self, node: &str) -> Option<&Claim> {
        self.claims.iter().find(|c| c.node.as_deref() == Some(node))
    }
}

#[cfg(test)]
mod tests;
