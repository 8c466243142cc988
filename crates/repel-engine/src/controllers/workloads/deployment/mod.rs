//! The Deployment controller (upstream `pkg/controller/deployment`, v1.35): a Deployment keeps
//! ReplicaSets, one per pod template it has had, and moves pods from the old ones to the new
//! one by scaling them — a rolling update within `maxSurge`/`maxUnavailable`, or Recreate.
//!
//! This module holds the decisions, ported function by function and named after upstream's: the
//! fenceposts ([`resolve_fenceposts`], [`max_surge`], [`max_unavailable`]),
//! [`new_rs_new_replicas`], and on a [`Sync`] (one sync of one Deployment, which records its
//! events and writes) `reconcileNewReplicaSet`, `reconcileOldReplicaSets`,
//! `cleanupUnhealthyReplicas`, `scaleDownOldReplicaSetsForRollingUpdate`, `rolloutRecreate`'s
//! scaling, `scale` (proportional scaling) and `cleanupDeployment`. The ReplicaSets' pods are
//! the ReplicaSet controller's ([`super`]), and the statuses are the `status` module's.
//!
//! Simplifications: a pod is available when it is Running and not terminating (repel's pods
//! are ready once running; `minReadySeconds` is taken as 0); conditions carry no timestamps and
//! `progressDeadlineSeconds` never times out (simulated pods either run or stay Pending, and a
//! timed-out rollout changes nothing the controller does); a pod-template-hash collision is not
//! handled (`collisionCount` stays 0); the new ReplicaSet's annotations and the Deployment's
//! revision are updated in one sync where upstream takes two.

mod sync;

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

pub use sync::Sync;

/// Upstream's event reason on the Deployment for a ReplicaSet scaled.
pub const SCALING_REPLICA_SET: &str = "ScalingReplicaSet";
/// A ReplicaSet's revision (and the Deployment's: its new ReplicaSet's).
pub const REVISION_ANNOTATION: &str = "deployment.kubernetes.io/revision";
/// The revisions a ReplicaSet had before a rollback made it new again.
pub const REVISION_HISTORY_ANNOTATION: &str = "deployment.kubernetes.io/revision-history";
/// The Deployment's `spec.replicas` when it last scaled the ReplicaSet.
pub const DESIRED_REPLICAS_ANNOTATION: &str = "deployment.kubernetes.io/desired-replicas";
/// The Deployment's `spec.replicas + maxSurge` when it last scaled the ReplicaSet.
pub const MAX_REPLICAS_ANNOTATION: &str = "deployment.kubernetes.io/max-replicas";
/// The label that tells a Deployment's ReplicaSets (and their pods) apart.
pub const POD_TEMPLATE_HASH_LABEL: &str = "pod-template-hash";
/// `spec.revisionHistoryLimit`'s default (apps/v1).
pub const DEFAULT_REVISION_HISTORY_LIMIT: i32 = 10;

/// Deployment condition reasons and their messages (upstream `deploymentutil`).
pub mod reason {
    /// `Available` True.
    pub const MINIMUM_REPLICAS_AVAILABLE: &str = "MinimumReplicasAvailable";
    /// `Available` True's message.
    pub const MINIMUM_AVAILABILITY: &str = "Deployment has minimum availability.";
    /// `Available` False.
    pub const MINIMUM_REPLICAS_UNAVAILABLE: &str = "MinimumReplicasUnavailable";
    /// `Available` False's message.
    pub const NO_MINIMUM_AVAILABILITY: &str = "Deployment does not have minimum availability.";
    /// `Progressing` True when a new ReplicaSet is created.
    pub const NEW_REPLICA_SET_CREATED: &str = "NewReplicaSetCreated";
    /// `Progressing` True when an existing new ReplicaSet is first seen.
    pub const FOUND_NEW_REPLICA_SET: &str = "FoundNewReplicaSet";
    /// `Progressing` True while pods move.
    pub const REPLICA_SET_UPDATED: &str = "ReplicaSetUpdated";
    /// `Progressing` True once the rollout is complete.
    pub const NEW_REPLICA_SET_AVAILABLE: &str = "NewReplicaSetAvailable";
}

/// Annotations a ReplicaSet does not copy from its Deployment (upstream `annotationsToSkip`).
pub(crate) const ANNOTATIONS_TO_SKIP: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    "deprecated.deployment.rollback.to",
];

/// What the controller reads of a Deployment's spec, defaulted as the API server defaults
/// apps/v1 (`SetDefaults_Deployment`: `replicas` 1, strategy `RollingUpdate` with `maxSurge`
/// and `maxUnavailable` 25%, `revisionHistoryLimit` 10, `progressDeadlineSeconds` 600).
#[derive(Debug, Clone, PartialEq)]
pub struct Strategy {
    /// `spec.replicas`.
    pub replicas: i32,
    /// `spec.strategy.type` is `Recreate`.
    pub recreate: bool,
    /// `spec.strategy.rollingUpdate.maxSurge`.
    pub max_surge: Option<IntOrString>,
    /// `spec.strategy.rollingUpdate.maxUnavailable`.
    pub max_unavailable: Option<IntOrString>,
    /// `spec.revisionHistoryLimit`.
    pub revision_history_limit: i32,
    /// `spec.paused`.
    pub paused: bool,
    /// `spec.progressDeadlineSeconds` is set (it always is once defaulted).
    pub progress_deadline: bool,
}

impl Strategy {
    /// A rolling update of `replicas` with these fenceposts (the tables' deployments).
    pub fn rolling(
        replicas: i32,
        max_surge: Option<IntOrString>,
        max_unavailable: Option<IntOrString>,
    ) -> Self {
        Strategy {
            replicas,
            recreate: false,
            max_surge,
            max_unavailable,
            revision_history_limit: DEFAULT_REVISION_HISTORY_LIMIT,
            paused: false,
            progress_deadline: true,
        }
    }

    /// The Deployment's, defaulted.
    pub fn of(d: &Deployment) -> Self {
        let spec = &d.spec;
        let recreate = spec
            .strategy
            .as_ref()
            .and_then(|s| s.type_.as_deref())
            .is_some_and(|t| t == "Recreate");
        let rolling = spec
            .strategy
            .as_ref()
            .and_then(|s| s.rolling_update.as_ref());
        let quarter = || Some(IntOrString::String("25%".into()));
        let (surge, unavailable) = if recreate {
            (None, None)
        } else {
            (
                rolling.and_then(|r| r.max_surge.clone()).or_else(quarter),
                rolling
                    .and_then(|r| r.max_unavailable.clone())
                    .or_else(quarter),
            )
        };
        Strategy {
            replicas: spec.replicas.unwrap_or(1),
            recreate,
            max_surge: surge,
            max_unavailable: unavailable,
            revision_history_limit: spec
                .revision_history_limit
                .unwrap_or(DEFAULT_REVISION_HISTORY_LIMIT),
            paused: spec.paused.unwrap_or(false),
            progress_deadline: true,
        }
    }
}

/// Upstream `intstr.GetScaledValueFromIntOrPercent`: an int as it is; `N%` of `total`, rounded
/// up or down; any other string is an error.
pub fn scaled_value(v: &IntOrString, total: i32, round_up: bool) -> Result<i32, String> {
    match v {
        IntOrString::Int(i) => Ok(*i),
        IntOrString::String(s) => {
            let Some(pct) = s.strip_suffix('%') else {
                return Err(
                    "invalid value for IntOrString: invalid type: string is not a percentage"
                        .into(),
                );
            };
            let pct: i64 = pct
                .parse()
                .map_err(|e| format!("invalid value for IntOrString: invalid value {s:?}: {e}"))?;
            let product = pct * i64::from(total);
            let v = if round_up {
                product.div_euclid(100) + i64::from(product.rem_euclid(100) != 0)
            } else {
                product.div_euclid(100)
            };
            Ok(i32::try_from(v).unwrap_or(i32::MAX))
        }
    }
}

/// Upstream `ResolveFenceposts` (v1.35): the absolute `(maxSurge, maxUnavailable)` for
/// `desired` replicas.
///
/// 1. An unset value is 0.
/// 2. `maxSurge` rounds up, `maxUnavailable` down.
/// 3. When both come to 0, `maxUnavailable` is 1 ("surge might not work due to quota").
pub fn resolve_fenceposts(
    max_surge: Option<&IntOrString>,
    max_unavailable: Option<&IntOrString>,
    desired: i32,
) -> Result<(i32, i32), String> {
    let zero = IntOrString::Int(0);
    let surge = scaled_value(max_surge.unwrap_or(&zero), desired, true)?;
    let mut unavailable = scaled_value(max_unavailable.unwrap_or(&zero), desired, false)?;
    if surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    Ok((surge, unavailable))
}

/// Upstream `MaxUnavailable`: 0 for Recreate or 0 replicas; otherwise the resolved value, at
/// most `replicas` (an invalid value counts as 0, as validation would have refused it).
pub fn max_unavailable(s: &Strategy) -> i32 {
    if s.recreate || s.replicas == 0 {
        return 0;
    }
    let (_, u) = resolve_fenceposts(s.max_surge.as_ref(), s.max_unavailable.as_ref(), s.replicas)
        .unwrap_or((0, 0));
    u.min(s.replicas)
}

/// Upstream `MaxSurge`: 0 for Recreate; otherwise the resolved value.
pub fn max_surge(s: &Strategy) -> i32 {
    if s.recreate {
        return 0;
    }
    resolve_fenceposts(s.max_surge.as_ref(), s.max_unavailable.as_ref(), s.replicas)
        .map(|(surge, _)| surge)
        .unwrap_or(0)
}

/// Upstream `NewRSNewReplicas` (v1.35): how many replicas the new ReplicaSet may have, given
/// `current` (the `spec.replicas` of all the Deployment's ReplicaSets) and its own `new`.
///
/// 1. Recreate: the Deployment's replicas.
/// 2. Rolling update: at most `replicas + maxSurge` (maxSurge rounded up) pods in all; when
///    `current` is there already, `new` stays.
/// 3. Otherwise scale up by what is left under that ceiling, never past `replicas`.
pub fn new_rs_new_replicas(s: &Strategy, current: i32, new: i32) -> Result<i32, String> {
    if s.recreate {
        return Ok(s.replicas);
    }
    let zero = IntOrString::Int(0);
    let surge = scaled_value(s.max_surge.as_ref().unwrap_or(&zero), s.replicas, true)?;
    let max_total = s.replicas.saturating_add(surge);
    if current >= max_total {
        return Ok(new);
    }
    let up = (max_total - current).min(s.replicas - new);
    Ok(new + up)
}

/// A ReplicaSet's status as its controller computes it from its pods.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RsStatus {
    /// Active pods (not finished, not terminating).
    pub replicas: i32,
    /// Active pods whose labels include the template's.
    pub fully_labeled: i32,
    /// Active pods that are ready (Running).
    pub ready: i32,
    /// Ready pods (`minReadySeconds` 0).
    pub available: i32,
}

/// One of a Deployment's ReplicaSets as the controller keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaSetState {
    /// `metadata.name` (`DEPLOYMENT-<pod-template-hash>`).
    pub name: String,
    /// Its `pod-template-hash`.
    pub hash: String,
    /// `spec.replicas`.
    pub replicas: i32,
    /// `spec.template`, the hash label included.
    pub template: PodTemplateSpec,
    /// `metadata.annotations` (revision, desired and max replicas, the Deployment's own).
    pub annotations: BTreeMap<String, String>,
    /// Creation order among the Deployment's ReplicaSets (upstream sorts by creation time).
    pub created: u64,
    /// `metadata.uid`, when one was given.
    pub uid: Option<String>,
    /// `metadata.generation` (1 for those the controller creates).
    pub generation: i64,
    /// The status computed at the start of the sync.
    pub status: RsStatus,
}

impl ReplicaSetState {
    /// A ReplicaSet of `replicas` of which `available` are available (the tables' `rs()`).
    pub fn with_counts(name: &str, replicas: i32, available: i32) -> Self {
        ReplicaSetState {
            name: name.to_string(),
            hash: String::new(),
            replicas,
            template: PodTemplateSpec::default(),
            annotations: BTreeMap::new(),
            created: 0,
            uid: None,
            generation: 1,
            status: RsStatus {
                replicas,
                fully_labeled: replicas,
                ready: available,
                available,
            },
        }
    }

    /// Its `deployment.kubernetes.io/revision` (0 when unset or not a number).
    pub fn revision(&self) -> i64 {
        self.annotations
            .get(REVISION_ANNOTATION)
            .and_then(|r| r.parse().ok())
            .unwrap_or(0)
    }

    pub(crate) fn annotation_i32(&self, key: &str) -> Option<i32> {
        self.annotations.get(key).and_then(|v| v.parse().ok())
    }
}

/// Upstream `EqualIgnoreHash`: two templates equal but for the `pod-template-hash` label.
pub fn equal_ignore_hash(a: &PodTemplateSpec, b: &PodTemplateSpec) -> bool {
    let strip = |t: &PodTemplateSpec| {
        let mut t = t.clone();
        if let Some(m) = t.metadata.as_mut()
            && let Some(l) = m.labels.as_mut()
        {
            l.remove(POD_TEMPLATE_HASH_LABEL);
            if l.is_empty() {
                m.labels = None;
            }
        }
        serde_json::to_value(t).ok().map(prune_empty)
    };
    strip(a) == strip(b)
}

/// A template as apimachinery's semantic equality sees it: empty lists and maps (a client's
/// `resources: {}`, `tolerations: []`) equal absent ones.
fn prune_empty(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (k, prune_empty(v)))
                .filter(|(_, v)| match v {
                    Value::Object(m) => !m.is_empty(),
                    Value::Array(a) => !a.is_empty(),
                    Value::Null => false,
                    _ => true,
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(prune_empty).collect()),
        other => other,
    }
}
