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

/// The instance labels Karpenter's requirements can select on.
fn instance_labels(t: &InstanceType) -> BTreeMap<String, String> {
    let mut l = BTreeMap::new();
    l.insert(
        "node.kubernetes.io/instance-type".into(),
        t.name.to_string(),
    );
    l.insert(
        "kubernetes.io/arch".into(),
        if repel_core::pool_nodes::is_graviton(t.name) && t.cloud == "aws" {
            "arm64"
        } else {
            "amd64"
        }
        .into(),
    );
    l.insert("kubernetes.io/os".into(), "linux".into());
    if t.cloud == "aws" {
        let family = t.name.split('.').next().unwrap_or_default();
        let category: String = family
            .chars()
            .take_while(|c| c.is_ascii_lowercase())
            .collect();
        let generation: String = family
            .chars()
            .skip_while(|c| c.is_ascii_lowercase())
            .take_while(char::is_ascii_digit)
            .collect();
        l.insert("karpenter.k8s.aws/instance-family".into(), family.into());
        l.insert("karpenter.k8s.aws/instance-category".into(), category);
        l.insert("karpenter.k8s.aws/instance-generation".into(), generation);
        l.insert(
            "karpenter.k8s.aws/instance-size".into(),
            t.name
                .split_once('.')
                .map(|(_, s)| s)
                .unwrap_or_default()
                .into(),
        );
        l.insert("karpenter.k8s.aws/instance-cpu".into(), t.cpu.to_string());
        l.insert(
            "karpenter.k8s.aws/instance-memory".into(),
            t.memory_mib.to_string(),
        );
        l.insert(
            "karpenter.k8s.aws/instance-gpu-count".into(),
            t.gpus.to_string(),
        );
    } else {
        l.insert("karpenter.azure.com/sku-name".into(), t.name.to_string());
        // The family letter of `Standard_D4s_v3` (D), `Standard_NC6s_v3` (N), and the version.
        let size = t.name.strip_prefix("Standard_").unwrap_or(t.name);
        l.insert(
            "karpenter.azure.com/sku-family".into(),
            size.chars().take(1).collect(),
        );
        if let Some((_, v)) = size.rsplit_once("_v") {
            l.insert("karpenter.azure.com/sku-version".into(), v.to_string());
        }
        l.insert("karpenter.azure.com/sku-cpu".into(), t.cpu.to_string());
        l.insert(
            "karpenter.azure.com/sku-memory".into(),
            t.memory_mib.to_string(),
        );
        l.insert(
            "karpenter.azure.com/sku-gpu-count".into(),
            t.gpus.to_string(),
        );
    }
    l
}

/// Whether an instance type meets the requirements on the labels it has.
fn type_allowed(t: &InstanceType, reqs: &Requirements) -> bool {
    let labels = instance_labels(t);
    reqs.0.values().all(|r| match labels.get(&r.key) {
        None => true,
        Some(v) => {
            let one = Requirements::from_labels([(&r.key, v)]);
            one.compatible(&Requirements(BTreeMap::from([(r.key.clone(), r.clone())])))
                .is_ok()
        }
    })
}

/// A node of `pool` that is an instance of `t`, as Karpenter's instance-type model has it
/// ([`repel_core::pool_nodes::instance_resources`], the one place pool nodes' reservations
/// are computed): `(capacity, allocatable)` as the scheduler counts them (GPUs included:
/// they are what the node will advertise once its device plugin runs). Karpenter packs pods
/// against the allocatable (`InstanceType.Allocatable()`: capacity less kube-reserved,
/// system-reserved and the eviction threshold) and holds a NodePool's `limits` against the
/// capacity.
fn resources(pool: &Pool, t: &InstanceType) -> (Resources, Resources) {
    let r = instance_resources(pool, t);
    let list = |m: &BTreeMap<String, String>| {
        Resources::from_list(
            &m.iter()
                .map(|(k, v)| (k.clone(), Quantity(v.clone())))
                .collect(),
        )
    };
    (list(&r.capacity), list(&r.allocatable))
}

/// [`resources`]' allocatable: what the pods nominated to a claim must fit in.
fn allocatable(pool: &Pool, t: &InstanceType) -> Resources {
    resources(pool, t).1
}

/// Whether `need` fits in `have` (cpu, memory, pods, every scalar asked for).
fn fits(need: &Resources, have: &Resources) -> bool {
    need.milli_cpu <= have.milli_cpu
        && need.memory <= have.memory
        && need.allowed_pod_number <= have.allowed_pod_number
        && need
            .scalar
            .iter()
            .all(|(k, v)| *v <= have.scalar.get(k).copied().unwrap_or(0))
}

/// A quantity as Go's `resource.Quantity` prints a canonical one: CPU in decimal SI (`150m`,
/// `2`, `10k`), byte amounts in binary SI when a power of 1024 divides them (`128Mi`), else in
/// decimal SI (`1G`).
fn quantity(name: &str, v: i64) -> String {
    fn decimal(mut n: i64) -> String {
        let mut suffix = "";
        for s in ["k", "M", "G", "T", "P", "E"] {
            if n != 0 && n % 1000 == 0 {
                n /= 1000;
                suffix = s;
            } else {
                break;
            }
        }
        format!("{n}{suffix}")
    }
    if name == "cpu" {
        return if v % 1000 == 0 {
            decimal(v / 1000)
        } else {
            format!("{v}m")
        };
    }
    for (unit, size) in [
        ("Ei", 1i64 << 60),
        ("Pi", 1 << 50),
        ("Ti", 1 << 40),
        ("Gi", 1 << 30),
        ("Mi", 1 << 20),
        ("Ki", 1 << 10),
    ] {
        if v != 0 && v % size == 0 {
            return format!("{}{unit}", v / size);
        }
    }
    decimal(v)
}

/// Karpenter's `resources.String`: the list as JSON, `{}` when empty.
pub fn resources_string(r: &Resources) -> String {
    let mut m: BTreeMap<String, String> = BTreeMap::new();
    if r.milli_cpu != 0 {
        m.insert("cpu".into(), quantity("cpu", r.milli_cpu));
    }
    if r.memory != 0 {
        m.insert("memory".into(), quantity("memory", r.memory));
    }
    if r.ephemeral_storage != 0 {
        m.insert(
            "ephemeral-storage".into(),
            quantity("memory", r.ephemeral_storage),
        );
    }
    if r.allowed_pod_number != 0 {
        m.insert("pods".into(), r.allowed_pod_number.to_string());
    }
    for (k, v) in &r.scalar {
        if *v != 0 {
            m.insert(k.clone(), v.to_string());
        }
    }
    serde_json::to_string(&m).unwrap_or_else(|_| "{}".to_string())
}

/// `did not tolerate taint (taint=KEY=VALUE:EFFECT)` for each taint of `taints` the pod does
/// not tolerate, joined as multierr joins (`; `).
fn taint_errors(
    taints: &[Taint],
    tolerations: &[k8s_openapi::api::core::v1::Toleration],
) -> Option<String> {
    let gates = repel_core::FeatureGates {
        taint_toleration_comparison_operators: true,
    };
    let errs: Vec<String> = taints
        .iter()
        .filter(|t| {
            !tolerations
                .iter()
                .any(|tol| repel_core::toleration::tolerates(tol, t, &gates))
        })
        .map(|t| {
            let pretty = match t.value.as_deref().filter(|v| !v.is_empty()) {
                Some(v) => format!("{}={v}:{}", t.key, t.effect),
                None => format!("{}:{}", t.key, t.effect),
            };
            format!("did not tolerate taint (taint={pretty})")
        })
        .collect();
    (!errs.is_empty()).then(|| errs.join("; "))
}

/// A NodePool's own requirements: its `requirements`, its template labels, its name.
fn pool_requirements(pool: &Pool) -> Requirements {
    let mut r = Requirements::from_node_selector(&pool.requirements);
    for (k, v) in &pool.labels {
        r.add(Requirement::new(k, "In", std::slice::from_ref(v)));
    }
    r.add(Requirement::new(
        NODEPOOL_LABEL,
        "In",
        std::slice::from_ref(&pool.name),
    ));
    r
}

/// The pool's instance types: those its `node.kubernetes.io/instance-type` requirement names
/// (that the catalogue knows), else every catalogue type of its cloud.
fn pool_types(pool: &Pool) -> Vec<&'static InstanceType> {
    if !pool.instance_types.is_empty() {
        return pool
            .instance_types
            .iter()
            .filter_map(|n| repel_core::instance_types::lookup(n))
            .collect();
    }
    CATALOGUE.iter().filter(|t| t.cloud == pool.cloud).collect()
}

/// The Karpenter NodePools among `pools`, in the order Karpenter tries them — Karpenter's
/// `OrderByWeight` (`pkg/utils/nodepool/nodepool.go`, v1.14.1):
/// 1. the heaviest `spec.weight` first (no weight is 0);
/// 2. among equal weights, the names in **reverse** order (`nps[a].Name > nps[b].Name`).
fn karpenter_order<'a>(pools: impl IntoIterator<Item = &'a Pool>) -> Vec<&'a Pool> {
    let mut ordered: Vec<&Pool> = pools
        .into_iter()
        .filter(|p| p.provider == "karpenter")
        .collect();
    ordered.sort_by(|a, b| {
        b.weight
            .unwrap_or(0)
            .cmp(&a.weight.unwrap_or(0))
            .then_with(|| b.name.cmp(&a.name))
    });
    ordered
}

/// Smallest first: vCPUs, memory, GPUs, name.
fn by_size(types: &mut [&'static InstanceType]) {
    types.sort_by_key(|t| (t.cpu, t.memory_mib, t.gpus, t.name));
}

/// Whether a pod is one Karpenter provisions for: pending, unschedulable by the scheduler,
/// not a DaemonSet's, not deleted.
fn provisionable(cluster: &Cluster, p: PodId) -> bool {
    let pod = &cluster.pods[p];
    !pod.deleted
        && pod.node.is_none()
        && pod.phase == PodPhase::Pending
        && pod.condition("PodScheduled") == Some("False")
        && repel_core::workload::controller_of(&pod.meta).is_none_or(|(k, _)| k != "DaemonSet")
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

    /// Drifted nodes are replaced (see the module docs).
    fn drift(
        &mut self,
        now: Millis,
        cluster: &mut Cluster,
        events: &mut Vec<Event>,
        pools: &[&Pool],
        gates: &repel_core::FeatureGates,
    ) -> (Vec<(NodeId, String)>, bool) {
        let mut changed = false;
        let mut removed = Vec::new();
        let now_unix = now / 1000;
        let mut new_claims = Vec::new();
        let snapshot: Vec<(String, bool)> = self
            .claims
            .iter()
            .map(|c| (c.name.clone(), c.initialized))
            .collect();
        for i in 0..self.claims.len() {
            let claim = &self.claims[i];
            let Some(pool) = pools.iter().find(|p| p.name == claim.pool) else {
                continue;
            };
            if !claim.initialized || pool.template_hash == claim.hash {
                continue;
            }
            let Some(node_name) = claim.node.clone() else {
                continue;
            };
            let Some(id) = cluster.node_id(&node_name) else {
                continue;
            };
            if !claim.disrupting {
                // The replacement launched for this claim, and whether it is initialized.
                let replacement = snapshot
                    .iter()
                    .zip(self.claims.iter())
                    .find(|(_, c)| c.replaces.as_deref() == Some(claim.name.as_str()))
                    .map(|((_, init), _)| *init)
                    .or_else(|| {
                        new_claims
                            .iter()
                            .find(|c: &&Claim| c.replaces.as_deref() == Some(claim.name.as_str()))
                            .map(|_| false)
                    });
                match replacement {
                    // The command started: wait for its replacement to initialize.
                    Some(false) => continue,
                    Some(true) => {}
                    None => {
                        // do-not-disrupt on the node or on a pod blocks it.
                        if let Some(msg) = self.blocked(cluster, id, now_unix) {
                            if self.last_blocked.get(&node_name) != Some(&msg) {
                                self.last_blocked.insert(node_name.clone(), msg.clone());
                                events.push(Event::normal(
                                    now,
                                    "DisruptionBlocked",
                                    format!("Node/{node_name}"),
                                    Some(node_name.clone()),
                                    msg,
                                ));
                            }
                            continue;
                        }
                        let has_pods = cluster.nodes[id].pods.iter().any(|p| {
                            let pod = &cluster.pods[*p];
                            !pod.deleted
                                && repel_core::workload::controller_of(&pod.meta)
                                    .is_none_or(|(k, _)| k != "DaemonSet")
                        });
                        if has_pods {
                            // Karpenter's `Queue.StartCommand`: "Cordon the old nodes before
                            // we launch the replacements to prevent new pods from scheduling
                            // to the old nodes" — the disrupted taint first, then the
                            // replacement (the same instance options, the pool's template
                            // now); the node is terminated once the replacement is
                            // initialized.
                            crate::drain::karpenter::taint_disrupted(cluster, id);
                            self.counter += 1;
                            let name = self.claim_name(cluster, pool);
                            events.push(Event::normal(
                                now,
                                "DisruptionLaunching",
                                format!("NodeClaim/{name}"),
                                None,
                                "Launching NodeClaim: Drifted".to_string(),
                            ));
                            new_claims.push(Claim {
                                name,
                                pool: pool.name.clone(),
                                options: claim.options.clone(),
                                requests: Resources::default(),
                                requirements: pool_requirements(pool),
                                pods: Vec::new(),
                                launch_at: now + LAUNCH_DELAY,
                                node: None,
                                hash: pool.template_hash.clone(),
                                initialized: false,
                                replaces: Some(claim.name.clone()),
                                disrupting: false,
                            });
                            changed = true;
                            continue;
                        }
                    }
                }
                // Karpenter's `waitOrTerminate`: the replacements initialized (or none needed),
                // the NodeClaim is deleted with a `DisruptionTerminating` event on the Node and
                // on the NodeClaim (`disruption/events/events.go` `Terminating`, v1.14.1).
                events.push(Event::normal(
                    now,
                    "DisruptionTerminating",
                    format!("Node/{node_name}"),
                    Some(node_name.clone()),
                    "Disrupting Node: Drifted".to_string(),
                ));
                events.push(Event::normal(
                    now,
                    "DisruptionTerminating",
                    format!("NodeClaim/{}", claim.name),
                    None,
                    "Disrupting NodeClaim: Drifted".to_string(),
                ));
                crate::drain::karpenter::taint_disrupted(cluster, id);
                self.claims[i].disrupting = true;
                changed = true;
            }
            // Draining: evict what may go (each budget's allowed disruptions, counted across
            // this pass's evictions); delete the node once nothing waited for is left.
            let mut waiting = false;
            let mut evicted: HashMap<usize, i32> = HashMap::new();
            for p in cluster.pods_on_node(id) {
                let pod = &cluster.pods[p];
                if pod.deleted
                    || matches!(pod.phase, PodPhase::Succeeded | PodPhase::Failed)
                    || repel_core::workload::controller_of(&pod.meta)
                        .is_some_and(|(k, _)| k == "DaemonSet")
                    || crate::drain::karpenter::tolerates_disrupted(pod, gates)
                {
                    continue;
                }
                let pdbs = crate::drain::selecting_pdbs(cluster, pod);
                let allowed = pdbs.iter().all(|i| {
                    let used = evicted.get(i).copied().unwrap_or(0);
                    crate::disruption::disruptions_allowed(&cluster.pdbs[*i], cluster) > used
                });
                if allowed && pdbs.len() <= 1 {
                    for i in &pdbs {
                        *evicted.entry(*i).or_insert(0) += 1;
                    }
                    cluster.delete_pod(p);
                    changed = true;
                }
                waiting = true;
            }
            if !waiting {
                cluster.delete_node(id);
                removed.push((id, node_name.clone()));
                self.claims[i].node = None;
                self.claims[i].launch_at = Millis::MAX;
                changed = true;
            }
        }
        self.claims.retain(|c| !(c.disrupting && c.node.is_none()));
        self.claims.extend(new_claims);
        (removed, changed)
    }

    /// Why `karpenter.sh/do-not-disrupt` blocks disrupting node `id` (on the node, or on one
    /// of its pods), in Karpenter's words; `None` when nothing does.
    fn blocked(&self, cluster: &Cluster, id: NodeId, now_unix: Millis) -> Option<String> {
        let node_meta = &cluster.nodes[id].node.metadata;
        if crate::drain::karpenter::do_not_disrupt(
            node_meta
                .annotations
                .as_ref()
                .and_then(|a| a.get(DO_NOT_DISRUPT))
                .map(String::as_str),
            None,
            now_unix,
        ) {
            return Some(format!(
                "disruption is blocked through the {DO_NOT_DISRUPT:?} annotation"
            ));
        }
        cluster.nodes[id].pods.iter().find_map(|p| {
            let pod = &cluster.pods[*p];
            crate::drain::karpenter::do_not_disrupt(
                pod.meta
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(DO_NOT_DISRUPT))
                    .map(String::as_str),
                None,
                now_unix,
            )
            .then(|| crate::drain::karpenter::pod_blocks_message(&pod.key()))
        })
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

/// Karpenter's error when a NodePool's `limits` leave room for none of its instance types
/// (`Scheduler.addToNewNodeClaim`, `pkg/controllers/provisioning/scheduling/scheduler.go`,
/// v1.14.1), followed by operatorpkg's `serrors.Wrap` values: ` (NodePool=NAME)`.
pub const EXCEED_LIMITS: &str = "all available instance types exceed limits for nodepool";

/// Karpenter's prefix of a requirements error (`NodeClaim.CanAdd`,
/// `pkg/controllers/provisioning/scheduling/nodeclaim.go`, v1.14.1).
pub const INCOMPATIBLE_REQUIREMENTS: &str = "incompatible requirements";

/// Whether NodePool `pool` would launch a node for `pod` with `tolerations` (Karpenter's
/// `Scheduler.add` for one template: limits, then `NodeClaim.CanAdd`'s taints, requirements,
/// instance types), given the claims launched so far and the pool's DaemonSet overhead: the
/// narrowed requirements, the total requests and the fitting instance types smallest first, or
/// Karpenter's error text as v1.14.1 words it (`pkg/scheduling/taints.go` `Tolerates`,
/// `nodeclaim.go` `CanAdd` and `InstanceTypeFilterError.Error`, `scheduler.go`
/// `addToNewNodeClaim`). Since v1.5.0 the text is the error alone: v1.0–v1.4 wrapped it as
/// `incompatible with nodepool "NAME", daemonset overhead={…}, …`, a wrapper the
/// parallelised `addToNewNodeClaim` (kubernetes-sigs/karpenter#2126) dropped.
#[allow(clippy::type_complexity)]
fn try_pool(
    claims: &[Claim],
    pool: &Pool,
    pod: &crate::cluster::PodInfo,
    tolerations: &[Toleration],
    overhead: &Resources,
) -> Result<(Requirements, Resources, Vec<&'static InstanceType>), String> {
    let pod_reqs = Requirements::of_pod(pod.spec(), false);
    let mut need = pod.requests.clone();
    need.allowed_pod_number += 1;
    let base = pool_requirements(pool);
    let mut types = pool_types(pool);
    if !pool.limits.is_empty() {
        let mut used = Resources::default();
        for c in claims.iter().filter(|c| c.pool == pool.name) {
            if let Some(t) = c.options.first() {
                used.add(&resources(pool, t).0);
            }
        }
        let limit = |name: &str| {
            pool.limits
                .get(name)
                .and_then(|q| repel_core::quantity::milli_value(q))
        };
        types.retain(|t| {
            let cap = resources(pool, t).0;
            limit("cpu").is_none_or(|l| i128::from(used.milli_cpu + cap.milli_cpu) <= i128::from(l))
                && limit("memory")
                    .is_none_or(|l| i128::from(used.memory + cap.memory) * 1000 <= i128::from(l))
        });
        if types.is_empty() {
            return Err(format!("{EXCEED_LIMITS} (NodePool={})", pool.name));
        }
    }
    if let Some(e) = taint_errors(&pool.taints, tolerations) {
        return Err(e);
    }
    if let Err(e) = base.compatible(&pod_reqs) {
        return Err(format!("{INCOMPATIBLE_REQUIREMENTS}, {e}"));
    }
    let mut reqs = base.clone();
    for r in pod_reqs.0.values() {
        reqs.add(r.clone());
    }
    let mut total = overhead.clone();
    total.add(&need);
    let meets: Vec<&'static InstanceType> = types
        .iter()
        .copied()
        .filter(|t| type_allowed(t, &reqs))
        .collect();
    let mut fitting: Vec<&'static InstanceType> = meets
        .iter()
        .copied()
        .filter(|t| fits(&total, &allocatable(pool, t)))
        .collect();
    if fitting.is_empty() {
        let any_fits = types.iter().any(|t| fits(&total, &allocatable(pool, t)));
        let what = match (meets.is_empty(), any_fits) {
            (true, false) => {
                "no instance type met the scheduling requirements or had enough resources"
            }
            (true, true) => "no instance type met all requirements",
            (false, false) => "no instance type has enough resources",
            // Every type has an offering here: some meet the requirements, some fit, none
            // both (Karpenter's `fitsAndOffering` case).
            (false, true) => {
                "no instance type which had enough resources and the required offering met the scheduling requirements"
            }
        };
        let mut pod_only = pod.requests.clone();
        pod_only.allowed_pod_number += 1;
        let mut with_daemons = overhead.clone();
        with_daemons.add(&pod_only);
        // "special case for a user typo I saw reported once": a CPU request of a million or
        // more.
        let typo = if what == "no instance type has enough resources"
            && pod.requests.milli_cpu >= 1_000_000_000
        {
            " (CPU request >= 1 Million, m vs M typo?)"
        } else {
            ""
        };
        return Err(format!(
            "{what}, requirements={}, resources={}{typo}",
            reqs.to_karpenter_string(),
            resources_string(&with_daemons)
        ));
    }
    by_size(&mut fitting);
    Ok((reqs, total, fitting))
}

/// What one Karpenter NodePool would do for a pod no node fits.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PoolVerdict {
    /// The NodePool.
    pub pool: String,
    /// The instance type it would launch (the smallest that fits), when it takes the pod.
    #[serde(rename = "instanceType", skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<String>,
    /// Karpenter's reason when it does not (`did not tolerate taint (taint=…)`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How Karpenter relaxed the pod before this judgement, in its log's words
    /// ([`RELAXED_PREFER_NO_SCHEDULE`]), when no NodePool took the pod as it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relaxed: Option<String>,
}

/// The reason Karpenter logs when it relaxes a pod by tolerating PreferNoSchedule taints
/// (`Preferences.toleratePreferNoScheduleTaints`, `pkg/controllers/provisioning/scheduling/
/// preferences.go`, v1.14.1).
pub const RELAXED_PREFER_NO_SCHEDULE: &str = "adding: toleration for PreferNoSchedule taints";

/// Karpenter's `Preferences.toleratePreferNoScheduleTaints` (`pkg/controllers/provisioning/
/// scheduling/preferences.go`, v1.14.1): the pod's tolerations plus `{operator: Exists, effect:
/// PreferNoSchedule}`, or `None` when one of them already is that toleration (Go's
/// `MatchToleration`: the same key, operator, value and effect) and nothing is relaxed.
pub fn tolerate_prefer_no_schedule_taints(tolerations: &[Toleration]) -> Option<Vec<Toleration>> {
    let field = |v: &Option<String>| v.clone().unwrap_or_default();
    let already = tolerations.iter().any(|t| {
        field(&t.key).is_empty()
            && field(&t.operator) == "Exists"
            && field(&t.value).is_empty()
            && field(&t.effect) == "PreferNoSchedule"
    });
    if already {
        return None;
    }
    let mut relaxed = tolerations.to_vec();
    relaxed.push(Toleration {
        operator: Some("Exists".into()),
        effect: Some("PreferNoSchedule".into()),
        ..Toleration::default()
    });
    Some(relaxed)
}

/// Whether Karpenter's scheduler relaxes a pod with a toleration for PreferNoSchedule taints:
/// `NewScheduler` turns it on when a NodePool's template has a PreferNoSchedule taint
/// (`pkg/controllers/provisioning/scheduling/scheduler.go`, v1.14.1).
fn relaxes_prefer_no_schedule<'a>(pools: impl IntoIterator<Item = &'a Pool>) -> bool {
    pools
        .into_iter()
        .any(|p| p.taints.iter().any(|t| t.effect == "PreferNoSchedule"))
}

/// Every Karpenter NodePool of `pools`, in the order Karpenter tries them (weight, then name in
/// reverse), judged for `pod` as the provisioner judges it with no claim in flight, `daemons`
/// the DaemonSets' pod templates: `repel explain` and `repel pools` ask this of a pod no node
/// fits. When no pool takes the pod as it is and a pool has a PreferNoSchedule taint, the
/// verdicts are those for the pod relaxed as Karpenter relaxes it last (tolerating
/// PreferNoSchedule taints), each saying so in `relaxed`.
pub fn judge_pools(
    pools: &[Pool],
    daemons: &[PodSpec],
    pod: &crate::cluster::PodInfo,
) -> Vec<PoolVerdict> {
    let ordered = karpenter_order(pools);
    let judge = |tolerations: &[Toleration], relaxed: Option<&str>| -> Vec<PoolVerdict> {
        ordered
            .iter()
            .map(|pool| {
                let overhead = Karpenter::daemon_overhead(daemons, pool, &pool_requirements(pool));
                let (instance_type, reason) = match try_pool(&[], pool, pod, tolerations, &overhead)
                {
                    Ok((_, _, types)) => (types.first().map(|t| t.name.to_string()), None),
                    Err(e) => (None, Some(e)),
                };
                PoolVerdict {
                    pool: pool.name.clone(),
                    instance_type,
                    reason,
                    relaxed: relaxed.map(str::to_string),
                }
            })
            .collect()
    };
    let verdicts = judge(pod.tolerations(), None);
    if verdicts.iter().any(|v| v.reason.is_none())
        || !relaxes_prefer_no_schedule(ordered.iter().copied())
    {
        return verdicts;
    }
    match tolerate_prefer_no_schedule_taints(pod.tolerations()) {
        Some(relaxed) => judge(&relaxed, Some(RELAXED_PREFER_NO_SCHEDULE)),
        None => verdicts,
    }
}

/// Where [`Karpenter::add`] puts a pod.
enum Added {
    /// On claim `claim`, already launching: its requests, instance types and requirements
    /// with the pod.
    InFlight {
        claim: usize,
        requests: Resources,
        options: Vec<&'static InstanceType>,
        requirements: Requirements,
    },
    /// On a new claim of pool `pool` (an index into the pools tried).
    New {
        pool: usize,
        requests: Resources,
        options: Vec<&'static InstanceType>,
        requirements: Requirements,
    },
}

/// `Pod should schedule on: nodeclaim/NAME` (and `, node/NAME` once registered).
fn nominated_message(c: &Claim) -> String {
    let mut info = vec![format!("nodeclaim/{}", c.name)];
    if let Some(n) = &c.node {
        info.push(format!("node/{n}"));
    }
    format!("Pod should schedule on: {}", info.join(", "))
}

#[cfg(test)]
mod tests;
