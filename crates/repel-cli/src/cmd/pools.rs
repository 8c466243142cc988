//! `repel pools -f …`: each node pool (a Karpenter NodePool, a node group of an
//! eksctl ClusterConfig) with its taints, startup taints, labels and nodes, its provider's
//! validation of its taints, and which workloads tolerate it as its scheduler decides
//! ([`repel_core::pools`]).

use std::collections::BTreeMap;

use clap::Args;
use repel_core::instance_types;
use repel_core::pools::{Pool, untolerated, validate_taints};
use repel_core::taint::taint_to_string;
use serde::Serialize;

use crate::output::{print_machine, render, table, warn_all};
use crate::{CliError, Format, Inputs};

/// Arguments of `repel pools`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel pools -f examples/pools/karpenter-general-purpose.yaml
  repel pools -f examples/pools/karpenter-general-purpose.yaml -o json")]
pub struct PoolsArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Output format (default: a table).
    #[arg(short = 'o', long = "output")]
    pub output: Option<Format>,
    /// An instance type's capacity, for a type the built-in catalogue does not hold or whose
    /// figures must be exact: `NAME=cpu=N,memory=Q,pods=N[,RESOURCE=Q...]` (repeatable;
    /// replaces the catalogue's entry of that name; the provider's kubelet reservations are
    /// subtracted from it for the allocatable)
    #[arg(long = "instance-type", value_name = "NAME=cpu=N,memory=Q,pods=N")]
    pub instance_types: Vec<String>,
}

/// One instance type of a pool, with the capacity and allocatable of its nodes.
#[derive(Debug, Serialize)]
pub struct InstanceTypeRow {
    /// As the pool names it.
    pub name: String,
    /// `status.capacity` of a node of that type (`cpu`, `memory`, `pods`, and GPUs as
    /// `nvidia.com/gpu`), from `--instance-type` or the built-in catalogue; `null` when
    /// neither knows the type.
    pub capacity: Option<BTreeMap<String, String>>,
    /// `status.allocatable` of such a node: the capacity less the provider's kubelet
    /// reservations ([`repel_core::kubelet_reserved`]); `null` when the capacity is.
    pub allocatable: Option<BTreeMap<String, String>>,
}

/// A workload a pool's taints keep out, and the first taint it does not tolerate.
#[derive(Debug, Serialize)]
pub struct Refused {
    /// `Kind/namespace/name`.
    pub workload: String,
    /// The taint, as kubectl prints it.
    pub taint: String,
}

/// One pool of `repel pools -o json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolRow {
    /// Its name.
    pub name: String,
    /// `karpenter`, `eksctl` (a self-managed node group), `eks` (a managed node group) or `aks`
    /// (an agent pool).
    pub provider: &'static str,
    /// As written.
    pub api_version: String,
    /// `spec.weight`.
    pub weight: Option<i64>,
    /// Its taints (`key=value:Effect`).
    pub taints: Vec<String>,
    /// Its startup taints.
    pub startup_taints: Vec<String>,
    /// Its template's labels.
    pub labels: BTreeMap<String, String>,
    /// The input's nodes labelled as the pool's (`karpenter.sh/nodepool=NAME`,
    /// `alpha.eksctl.io/nodegroup-name=NAME`, `eks.amazonaws.com/nodegroup=NAME`).
    pub nodes: Vec<String>,
    /// Its provider's validation errors of its taints (Karpenter's; eksctl's first) — empty
    /// when valid.
    pub errors: Vec<String>,
    /// The workloads (and bare pods) whose pods tolerate every taint, as the pool's scheduler
    /// decides (Karpenter's; kube-scheduler's for a node group).
    pub tolerated_by: Vec<String>,
    /// The others, with the first taint they do not tolerate.
    pub not_tolerated_by: Vec<Refused>,
    /// The instance types its nodes may be, with their capacity.
    pub instance_types: Vec<InstanceTypeRow>,
    /// A Karpenter NodePool: the pending pods (those no node of the input fits, as `repel
    /// schedule` places the rest) it is the first pool to take, so would launch a node for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisions: Option<Vec<String>>,
    /// A Karpenter NodePool: the pending pods it refuses, with Karpenter's reason.
    #[serde(rename = "refuses", skip_serializing_if = "Option::is_none")]
    pub refuses: Option<Vec<RefusedPod>>,
}

/// A pending pod a NodePool would not launch a node for.
#[derive(Debug, Serialize)]
pub struct RefusedPod {
    /// `ns/name`.
    pub pod: String,
    /// Karpenter's text (`did not tolerate taint (taint=…)`, …).
    pub reason: String,
}

/// `repel pools -o json`.
#[derive(Debug, Serialize)]
pub struct PoolsReport {
    /// The pools, in input order.
    pub pools: Vec<PoolRow>,
}

/// Runs `repel pools`: exit 1 when a pool's taints are invalid, else 0.
pub fn run(args: PoolsArgs) -> Result<u8, CliError> {
    let mut overrides: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for o in &args.instance_types {
        let (name, capacity) = instance_types::parse_override(o).map_err(CliError::Usage)?;
        overrides.insert(name, capacity);
    }
    let inv = args.inputs.load("pools")?;
    warn_all(&inv.warnings);
    let pools: Vec<Pool> = inv.pools()?;
    if pools.is_empty() {
        return Err(CliError::Usage(
            "no node pools in the input (Karpenter NodePools, karpenter.sh/v1; eksctl ClusterConfigs, eksctl.io/v1alpha5; az aks nodepool show/list and aws eks describe-nodegroup output)".to_string(),
        ));
    }
    // What asks to run: each workload's pod template, and bare pods.
    let mut subjects: Vec<(String, Vec<k8s_openapi::api::core::v1::Toleration>)> = Vec::new();
    for w in &inv.workloads {
        let w = &w.obj;
        if let Some((t, _)) = w.template() {
            let mut tolerations = t
                .spec
                .as_ref()
                .and_then(|s| s.tolerations.clone())
                .unwrap_or_default();
            if w.kind() == "DaemonSet" {
                // Karpenter's isDaemonPodCompatible: daemons tolerate PreferNoSchedule.
                tolerations.push(k8s_openapi::api::core::v1::Toleration {
                    operator: Some("Exists".to_string()),
                    effect: Some("PreferNoSchedule".to_string()),
                    ..Default::default()
                });
            }
            subjects.push((
                format!("{}/{}/{}", w.kind(), w.namespace(), w.name()),
                tolerations,
            ));
        }
    }
    for p in &inv.pods {
        let p = &p.obj;
        let owned = p
            .metadata
            .owner_references
            .as_ref()
            .is_some_and(|o| o.iter().any(|r| r.controller == Some(true)));
        if owned {
            continue;
        }
        subjects.push((
            format!(
                "Pod/{}/{}",
                repel_core::workload::namespace_of(&p.metadata),
                p.metadata.name.as_deref().unwrap_or_default()
            ),
            p.spec
                .as_ref()
                .and_then(|s| s.tolerations.clone())
                .unwrap_or_default(),
        ));
    }
    let pending = pending_verdicts(&inv, &pools, &args)?;
    let mut unknown: Vec<String> = Vec::new();
    let rows: Vec<PoolRow> = pools
        .iter()
        .map(|pool| {
            let instance_types = pool
                .instance_types
                .iter()
                .map(|t| {
                    let r = repel_core::pool_nodes::type_resources(pool, t, &overrides);
                    if r.is_none() && !unknown.contains(t) {
                        unknown.push(t.clone());
                    }
                    InstanceTypeRow {
                        name: t.clone(),
                        capacity: r.as_ref().map(|r| r.capacity.clone()),
                        allocatable: r.map(|r| r.allocatable),
                    }
                })
                .collect();
            let mut tolerated_by = Vec::new();
            let mut not_tolerated_by = Vec::new();
            for (who, tols) in &subjects {
                match untolerated(pool, tols, &args.inputs.feature_gates) {
                    None => tolerated_by.push(who.clone()),
                    Some(t) => not_tolerated_by.push(Refused {
                        workload: who.clone(),
                        taint: taint_to_string(t),
                    }),
                }
            }
            PoolRow {
                name: pool.name.clone(),
                provider: pool.provider,
                api_version: pool.api_version.clone(),
                weight: pool.weight,
                taints: pool.taints.iter().map(taint_to_string).collect(),
                startup_taints: pool.startup_taints.iter().map(taint_to_string).collect(),
                labels: pool.labels.clone(),
                nodes: inv
                    .nodes
                    .iter()
                    .filter(|n| {
                        n.obj
                            .metadata
                            .labels
                            .as_ref()
                            .and_then(|l| l.get(pool.node_label.0))
                            == Some(&pool.node_label.1)
                    })
                    .filter_map(|n| n.obj.metadata.name.clone())
                    .collect(),
                errors: validate_taints(pool),
                tolerated_by,
                not_tolerated_by,
                instance_types,
                provisions: (pool.provider == "karpenter").then(|| {
                    pending
                        .iter()
                        .filter(|(_, v)| {
                            v.iter().find(|x| x.reason.is_none()).map(|x| &x.pool)
                                == Some(&pool.name)
                        })
                        .map(|(pod, _)| pod.clone())
                        .collect()
                }),
                refuses: (pool.provider == "karpenter").then(|| {
                    pending
                        .iter()
                        .filter_map(|(pod, v)| {
                            let r = v.iter().find(|x| x.pool == pool.name)?;
                            r.reason.as_ref().map(|reason| RefusedPod {
                                pod: pod.clone(),
                                reason: reason.clone(),
                            })
                        })
                        .collect()
                }),
            }
        })
        .collect();
    warn_all(
        &unknown
            .iter()
            .map(|t| format!("instance type {t} is not in repel's catalogue: its nodes' capacity is unknown; give it with --instance-type {t}=cpu=N,memory=Q,pods=N"))
            .collect::<Vec<_>>(),
    );
    let report = PoolsReport { pools: rows };
    match args.output {
        Some(f) => print_machine(&report, f)?,
        None => print_human(&report),
    }
    Ok(u8::from(report.pools.iter().any(|p| !p.errors.is_empty())))
}

/// The pods no node of the input fits (the cluster placed as `repel schedule` places it), each
/// with what every Karpenter NodePool would do for it; none without NodePools.
#[allow(clippy::type_complexity)]
fn pending_verdicts(
    inv: &repel_manifest::Inventory,
    pools: &[Pool],
    args: &PoolsArgs,
) -> Result<
    Vec<(
        String,
        Vec<repel_engine::controllers::karpenter::PoolVerdict>,
    )>,
    CliError,
> {
    if !pools.iter().any(|p| p.provider == "karpenter") {
        return Ok(Vec::new());
    }
    let gates = args.inputs.feature_gates;
    let admission = repel_core::admission::AdmissionConfig::default();
    let built = repel_engine::load::build_cluster(inv.cluster_input(), &gates, &admission, 0);
    let mut cluster = built.cluster;
    let mut sched = repel_engine::scheduler::Scheduler::new(gates, None, 0);
    let placements = repel_engine::scheduler::schedule_all(&mut sched, &mut cluster);
    let daemons = inv.daemon_set_specs();
    Ok(placements
        .iter()
        .filter(|p| {
            matches!(
                p.outcome,
                repel_engine::scheduler::Outcome::Unschedulable { .. }
            )
        })
        .filter(|p| {
            repel_core::workload::controller_of(&cluster.pods[p.pod].meta)
                .is_none_or(|(k, _)| k != "DaemonSet")
        })
        .map(|p| {
            let info = &cluster.pods[p.pod];
            (
                info.key(),
                repel_engine::controllers::karpenter::judge_pools(pools, &daemons, info),
            )
        })
        .collect())
}

fn print_human(r: &PoolsReport) {
    let mut t = table(&["POOL", "PROVIDER", "TAINTS", "STARTUP TAINTS", "NODES"]);
    let list = |v: &[String]| {
        if v.is_empty() {
            "<none>".to_string()
        } else {
            v.join(",")
        }
    };
    for p in &r.pools {
        t.add_row(vec![
            p.name.clone(),
            p.provider.to_string(),
            list(&p.taints),
            list(&p.startup_taints),
            p.nodes.len().to_string(),
        ]);
    }
    out!("{}", render(&t));
    for p in &r.pools {
        for e in &p.errors {
            outln!("{} {}: {e}", pool_kind(p.provider), p.name);
        }
    }
    for p in &r.pools {
        if !p.instance_types.is_empty() {
            let types: Vec<String> = p
                .instance_types
                .iter()
                .map(|t| {
                    let list = |m: &BTreeMap<String, String>| {
                        m.iter()
                            .map(|(k, v)| format!("{k} {v}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    match (&t.capacity, &t.allocatable) {
                        (Some(c), Some(a)) => {
                            format!("{} ({}; allocatable {})", t.name, list(c), list(a))
                        }
                        (Some(c), None) => format!("{} ({})", t.name, list(c)),
                        _ => format!("{} (capacity unknown)", t.name),
                    }
                })
                .collect();
            outln!("{}: instance types {}", p.name, types.join("; "));
        }
    }
    for p in &r.pools {
        let provisions = p.provisions.as_deref().unwrap_or_default();
        let refuses = p.refuses.as_deref().unwrap_or_default();
        if provisions.is_empty() && refuses.is_empty() {
            continue;
        }
        outln!(
            "\n{}: Karpenter would launch nodes from it for {} pending pod(s)",
            p.name,
            provisions.len()
        );
        for pod in provisions {
            outln!("  {pod}");
        }
        for r in refuses {
            outln!("  refuses {}: {}", r.pod, r.reason);
        }
    }
    for p in &r.pools {
        if p.taints.is_empty() || p.tolerated_by.is_empty() && p.not_tolerated_by.is_empty() {
            continue;
        }
        outln!(
            "\n{}: tolerated by {} of {} workload(s)",
            p.name,
            p.tolerated_by.len(),
            p.tolerated_by.len() + p.not_tolerated_by.len()
        );
        for w in &p.tolerated_by {
            outln!("  {w}");
        }
        for w in &p.not_tolerated_by {
            outln!("  {} does not tolerate {}", w.workload, w.taint);
        }
    }
}

/// What a provider calls its pools, for messages.
fn pool_kind(provider: &str) -> &'static str {
    match provider {
        "karpenter" => "NodePool",
        "aks" => "agent pool",
        _ => "nodegroup",
    }
}
