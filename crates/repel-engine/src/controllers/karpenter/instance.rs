//! Instance types against a NodePool: the labels Karpenter's requirements select on, which
//! types a pool allows and fit, their resources, and the pools in Karpenter's order (after
//! `sigs.k8s.io/karpenter` `pkg/controllers/provisioning/scheduling/nodeclaim.go` and
//! `pkg/cloudprovider/types.go`, v1.14.1).

use super::*;

/// The instance labels Karpenter's requirements can select on.
pub(super) fn instance_labels(t: &InstanceType) -> BTreeMap<String, String> {
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
pub(super) fn type_allowed(t: &InstanceType, reqs: &Requirements) -> bool {
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
pub(super) fn resources(pool: &Pool, t: &InstanceType) -> (Resources, Resources) {
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
pub(super) fn allocatable(pool: &Pool, t: &InstanceType) -> Resources {
    resources(pool, t).1
}

/// Whether `need` fits in `have` (cpu, memory, pods, every scalar asked for).
pub(super) fn fits(need: &Resources, have: &Resources) -> bool {
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
pub(super) fn quantity(name: &str, v: i64) -> String {
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
pub(super) fn taint_errors(
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
pub(super) fn pool_requirements(pool: &Pool) -> Requirements {
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
pub(super) fn pool_types(pool: &Pool) -> Vec<&'static InstanceType> {
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
pub(super) fn karpenter_order<'a>(pools: impl IntoIterator<Item = &'a Pool>) -> Vec<&'a Pool> {
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
pub(super) fn by_size(types: &mut [&'static InstanceType]) {
    types.sort_by_key(|t| (t.cpu, t.memory_mib, t.gpus, t.name));
}

/// Whether a pod is one Karpenter provisions for: pending, unschedulable by the scheduler,
/// not a DaemonSet's, not deleted.
pub(super) fn provisionable(cluster: &Cluster, p: PodId) -> bool {
    let pod = &cluster.pods[p];
    !pod.deleted
        && pod.node.is_none()
        && pod.phase == PodPhase::Pending
        && pod.condition("PodScheduled") == Some("False")
        && repel_core::workload::controller_of(&pod.meta).is_none_or(|(k, _)| k != "DaemonSet")
}
