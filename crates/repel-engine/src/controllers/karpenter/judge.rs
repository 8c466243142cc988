//! Why a NodePool would or would not launch a node for a pod: limits, taints, requirements and
//! instance types in Karpenter's order, with its error texts (after `sigs.k8s.io/karpenter`
//! `pkg/controllers/provisioning/scheduling/scheduler.go` and `nodeclaim.go`, v1.14.1).

use super::*;

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
pub(super) fn try_pool(
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
pub(super) fn relaxes_prefer_no_schedule<'a>(pools: impl IntoIterator<Item = &'a Pool>) -> bool {
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
pub(super) enum Added {
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
pub(super) fn nominated_message(c: &Claim) -> String {
    let mut info = vec![format!("nodeclaim/{}", c.name)];
    if let Some(n) = &c.node {
        info.push(format!("node/{n}"));
    }
    format!("Pod should schedule on: {}", info.join(", "))
}
