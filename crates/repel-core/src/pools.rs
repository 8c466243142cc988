//! Node pools: Karpenter `NodePool`s (`karpenter.sh/v1`; `v1beta1` read alike) and
//! the node groups of an eksctl `ClusterConfig` (`eksctl.io/v1alpha5`: `nodeGroups`,
//! `managedNodeGroups`), as their node template: the taints every node of the pool carries, its
//! startup taints, its labels — and which pods tolerate it as the pool's scheduler decides:
//! Karpenter's for a NodePool (every taint hard, whatever its effect, PreferNoSchedule
//! included; `Gt`/`Lt` always on; startup taints ignored: Karpenter's `scheduling.Taints.ToleratesPod` and its
//! `Requirements.Compatible`), kube-scheduler's for a node group
//! (NoSchedule and NoExecute keep a pod off, PreferNoSchedule does not).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NodeSelectorRequirement, Taint, Toleration};
use serde_json::Value;

use crate::FeatureGates;

mod aks;
mod eks;

pub use aks::*;
pub use eks::*;

/// The label Karpenter puts on a node it launched for a NodePool.
pub const NODEPOOL_LABEL: &str = "karpenter.sh/nodepool";
/// The label eksctl puts on the nodes of a self-managed node group.
pub const EKSCTL_NODEGROUP_LABEL: &str = "alpha.eksctl.io/nodegroup-name";
/// The label EKS puts on the nodes of a managed node group.
pub const EKS_NODEGROUP_LABEL: &str = "eks.amazonaws.com/nodegroup";
/// The label AKS puts on the nodes of an agent pool.
pub const AKS_AGENTPOOL_LABEL: &str = "kubernetes.azure.com/agentpool";
/// The key of the taint and label AKS puts on a Spot pool's nodes (value `spot`).
pub const AKS_SPOT_KEY: &str = "kubernetes.azure.com/scalesetpriority";
/// The label AKS puts on every node with its pool's mode (`system`, `user`).
pub const AKS_MODE_LABEL: &str = "kubernetes.azure.com/mode";

/// A pool's node template.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pool {
    /// The pool's name.
    pub name: String,
    /// Its provider: `karpenter`, `eksctl` (a self-managed node group of a ClusterConfig),
    /// `eks` (a managed node group of a ClusterConfig) or `aks` (an agent pool).
    pub provider: &'static str,
    /// The API version it was written in.
    pub api_version: String,
    /// `spec.weight` (Karpenter tries heavier pools first).
    pub weight: Option<i64>,
    /// `spec.template.spec.taints`.
    pub taints: Vec<Taint>,
    /// `spec.template.spec.startupTaints`.
    pub startup_taints: Vec<Taint>,
    /// `spec.template.metadata.labels`.
    pub labels: BTreeMap<String, String>,
    /// `spec.disruption.consolidationPolicy` (`WhenEmpty`, `WhenEmptyOrUnderutilized`).
    pub consolidation_policy: Option<String>,
    /// `spec.disruption.consolidateAfter` as Karpenter holds it (a `NillableDuration`): the
    /// duration as written, `0s` when unset (see [`consolidate_after`]); `None` for `Never`,
    /// the only value that disables consolidation.
    pub consolidate_after: Option<String>,
    /// The label that marks the pool's nodes, with its value.
    pub node_label: (&'static str, String),
    /// `mode: System` (an AKS system pool).
    pub system: bool,
    /// The instance types its nodes may be, as written: a Karpenter NodePool's
    /// `node.kubernetes.io/instance-type` requirement with operator `In` (other operators
    /// are not read), eksctl's `instanceType` / `instanceTypes` /
    /// `instancesDistribution.instanceTypes`, EKS's `instanceTypes`, AKS's `vmSize`. Their
    /// capacity comes from [`crate::instance_types`].
    pub instance_types: Vec<String>,
    /// The pool's own pods per node (AKS `maxPods`, eksctl `maxPodsPerNode`).
    pub max_pods: Option<i64>,
    /// How many nodes a fixed-size pool keeps: AKS `count`, EKS
    /// `scalingConfig.desiredSize`, eksctl `desiredCapacity` (eksctl's default 2 when the group
    /// sets neither it nor `minSize`); `None` for a Karpenter NodePool, which provisions.
    pub count: Option<i64>,
    /// The zones its nodes are spread over, round robin (`topology.kubernetes.io/zone`): AKS
    /// `availabilityZones`, eksctl's group or cluster `availabilityZones`.
    pub zones: Vec<String>,
    /// The region (`topology.kubernetes.io/region`; eksctl `metadata.region`).
    pub region: Option<String>,
    /// Spot capacity (AKS `scaleSetPriority: Spot`, EKS `capacityType: SPOT`, eksctl
    /// `spot: true`).
    pub spot: bool,
    /// A Karpenter NodePool's `spec.template.spec.requirements`.
    pub requirements: Vec<NodeSelectorRequirement>,
    /// A Karpenter NodePool's `spec.limits` (`cpu`, `memory`, …), as written.
    pub limits: BTreeMap<String, String>,
    /// The cloud whose instance types a Karpenter NodePool launches: `azure` when its
    /// `nodeClassRef.group` is `karpenter.azure.com`, else `aws`.
    pub cloud: &'static str,
    /// What decides a Karpenter NodePool's drift: its template (`spec.template`) without its
    /// requirements, lists read as sets — Karpenter's `NodePool.Hash()` rule (hashstructure
    /// with `SlicesAsSets`, requirements `hash:"ignore"`), as a repel digest.
    pub template_hash: String,
}

/// The strings of a JSON list (or of a lone string); anything else is none.
fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// A Karpenter NodePool's instance types: the values of its `In` requirements on
/// `node.kubernetes.io/instance-type`.
fn karpenter_instance_types(spec: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Value::Array(reqs) = &spec["requirements"] {
        for r in reqs {
            if r["key"].as_str() == Some("node.kubernetes.io/instance-type")
                && r["operator"].as_str() == Some("In")
            {
                out.extend(strings(&r["values"]));
            }
        }
    }
    out
}

fn taints(v: &Value, field: &str) -> Result<Vec<Taint>, String> {
    match v {
        Value::Null => Ok(Vec::new()),
        other => serde_json::from_value(other.clone()).map_err(|e| format!("{field}: {e}")),
    }
}

/// A Karpenter NodePool, read from its JSON (`Err`: the field and what is wrong).
pub fn karpenter_pool(v: &Value) -> Result<Pool, String> {
    let name = v["metadata"]["name"]
        .as_str()
        .ok_or("metadata.name: Required value")?
        .to_string();
    let spec = &v["spec"]["template"]["spec"];
    let labels: BTreeMap<String, String> = match &v["spec"]["template"]["metadata"]["labels"] {
        Value::Null => BTreeMap::new(),
        other => serde_json::from_value(other.clone())
            .map_err(|e| format!("spec.template.metadata.labels: {e}"))?,
    };
    Ok(Pool {
        name,
        provider: "karpenter",
        api_version: v["apiVersion"].as_str().unwrap_or_default().to_string(),
        weight: v["spec"]["weight"].as_i64(),
        taints: taints(&spec["taints"], "spec.template.spec.taints")?,
        startup_taints: taints(&spec["startupTaints"], "spec.template.spec.startupTaints")?,
        labels,
        consolidation_policy: v["spec"]["disruption"]["consolidationPolicy"]
            .as_str()
            .map(str::to_string),
        consolidate_after: consolidate_after(v)?,
        node_label: (NODEPOOL_LABEL, name_of(v)),
        system: false,
        instance_types: karpenter_instance_types(spec),
        requirements: match &spec["requirements"] {
            Value::Null => Vec::new(),
            other => serde_json::from_value(other.clone())
                .map_err(|e| format!("spec.template.spec.requirements: {e}"))?,
        },
        limits: match &v["spec"]["limits"] {
            Value::Null => BTreeMap::new(),
            Value::Object(m) => m
                .iter()
                .map(|(k, q)| {
                    let q = match q {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), q)
                })
                .collect(),
            _ => return Err("spec.limits: must be a map of resource quantities".to_string()),
        },
        cloud: if v["spec"]["template"]["spec"]["nodeClassRef"]["group"].as_str()
            == Some("karpenter.azure.com")
        {
            "azure"
        } else {
            "aws"
        },
        template_hash: template_hash(&v["spec"]["template"]),
        ..Pool::default()
    })
}

/// `NEVER`: the `consolidateAfter` (and `expireAfter`) value that disables the duration
/// (karpenter `pkg/apis/v1/duration.go`).
pub const NEVER: &str = "Never";
/// The CRD's pattern for `spec.disruption.consolidateAfter` (karpenter `pkg/apis/v1/nodepool.go`).
pub const CONSOLIDATE_AFTER_PATTERN: &str = "^(([0-9]+(s|m|h))+|Never)$";

/// Whether `s` matches [`CONSOLIDATE_AFTER_PATTERN`]: `Never`, or one or more `<digits><s|m|h>`.
fn consolidate_after_matches(s: &str) -> bool {
    if s == NEVER {
        return true;
    }
    let mut digits = 0;
    let mut parts = 0;
    for c in s.chars() {
        match c {
            '0'..='9' => digits += 1,
            's' | 'm' | 'h' if digits > 0 => {
                digits = 0;
                parts += 1;
            }
            _ => return false,
        }
    }
    parts > 0 && digits == 0
}

/// A NodePool's `spec.disruption.consolidateAfter` as Karpenter v1 holds it (`None`: `Never`,
/// consolidation disabled), mirroring karpenter v1.x:
/// 1. `karpenter.sh/v1` (`pkg/apis/v1/nodepool.go`): the field defaults to `0s` (the
///    `disruption` stanza's `+kubebuilder:default:={consolidateAfter: "0s"}`); `Never` is a
///    `NillableDuration` without a duration.
/// 2. `karpenter.sh/v1beta1` (`pkg/apis/v1/nodepool_conversion.go`, `Disruption.convertFrom`):
///    a `WhenUnderutilized` pool (the v1beta1 default policy) becomes `0s` whatever it says;
///    any other keeps its value, and none or `Never` is disabled.
/// 3. A value the CRD's pattern refuses is an error, as the API server words it.
pub fn consolidate_after(v: &Value) -> Result<Option<String>, String> {
    const FIELD: &str = "spec.disruption.consolidateAfter";
    let disruption = &v["spec"]["disruption"];
    let written = match &disruption["consolidateAfter"] {
        Value::Null => None,
        Value::String(s) => Some(s.as_str()),
        other => {
            let t = json_type(other);
            return Err(format!(
                "{FIELD}: Invalid value: {t:?}: {FIELD} in body must be of type string: {t:?}"
            ));
        }
    };
    if let Some(s) = written
        && !consolidate_after_matches(s)
    {
        return Err(format!(
            "{FIELD}: Invalid value: {s:?}: {FIELD} in body should match '{CONSOLIDATE_AFTER_PATTERN}'"
        ));
    }
    let v1beta1 = v["apiVersion"].as_str() == Some("karpenter.sh/v1beta1");
    if v1beta1 {
        let policy = disruption["consolidationPolicy"]
            .as_str()
            .unwrap_or("WhenUnderutilized");
        if policy == "WhenUnderutilized" {
            return Ok(Some("0s".to_string()));
        }
        return Ok(written.filter(|s| *s != NEVER).map(str::to_string));
    }
    Ok(match written {
        None => Some("0s".to_string()),
        Some(NEVER) => None,
        Some(s) => Some(s.to_string()),
    })
}

/// The JSON type of a value, as the API server names it in a type error.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The digest of a NodePool template for drift (see [`Pool::template_hash`]): the template
/// without `spec.requirements`, every list sorted, nulls and empty values dropped, hashed.
pub fn template_hash(template: &Value) -> String {
    fn canon(v: &Value) -> Option<Value> {
        match v {
            Value::Null => None,
            Value::String(s) if s.is_empty() => None,
            Value::Array(a) => {
                let mut items: Vec<String> =
                    a.iter().filter_map(canon).map(|x| x.to_string()).collect();
                if items.is_empty() {
                    return None;
                }
                items.sort();
                Some(Value::Array(items.into_iter().map(Value::String).collect()))
            }
            Value::Object(m) => {
                let out: serde_json::Map<String, Value> = m
                    .iter()
                    .filter_map(|(k, x)| canon(x).map(|c| (k.clone(), c)))
                    .collect();
                (!out.is_empty()).then_some(Value::Object(out))
            }
            other => Some(other.clone()),
        }
    }
    let mut t = template.clone();
    if let Some(spec) = t.get_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("requirements");
    }
    let text = canon(&t).map(|c| c.to_string()).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn name_of(v: &Value) -> String {
    v["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// eksctl's taints field of a node group: the list form `[{key, value, effect}]`, or the map
/// form `{key: "value:Effect"}` (or `":Effect"`), parsed as eksctl's `parseTaint` does
/// (split on `:`; one part is the effect, two are value and effect, more leave both empty —
/// `Validate` then refuses the effect). eksctl reads the map in Go's random order; repel in
/// key order.
fn eksctl_taints(v: &Value, field: &str) -> Result<Vec<Taint>, String> {
    let wrong = |e: String| {
        format!("{field}: taints must be a {{string: string}} or a [{{key, value, effect}}]: {e}")
    };
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(_) => serde_json::from_value(v.clone()).map_err(|e| wrong(e.to_string())),
        Value::Object(m) => m
            .iter()
            .map(|(key, ve)| {
                let ve = ve
                    .as_str()
                    .ok_or_else(|| wrong(format!("the value of {key:?} is not a string")))?;
                let parts: Vec<&str> = ve.split(':').collect();
                let (value, effect) = match parts.as_slice() {
                    [effect] => ("", *effect),
                    [value, effect] => (*value, *effect),
                    _ => ("", ""),
                };
                Ok(Taint {
                    key: key.clone(),
                    value: (!value.is_empty()).then(|| value.to_string()),
                    effect: effect.to_string(),
                    time_added: None,
                })
            })
            .collect(),
        other => Err(wrong(format!("found {other}"))),
    }
}

/// The node groups of an eksctl ClusterConfig (`nodeGroups`, then `managedNodeGroups`), each a
/// pool: its name, taints and labels, plus the label its nodes get (eksctl's
/// `alpha.eksctl.io/nodegroup-name` on a self-managed group's nodes, EKS's
/// `eks.amazonaws.com/nodegroup` on a managed group's). `Err`: the field and what is wrong.
pub fn eksctl_pools(v: &Value) -> Result<Vec<Pool>, String> {
    let mut out = Vec::new();
    for (field, provider, label) in [
        ("nodeGroups", "eksctl", EKSCTL_NODEGROUP_LABEL),
        ("managedNodeGroups", "eks", EKS_NODEGROUP_LABEL),
    ] {
        let groups = match &v[field] {
            Value::Null => continue,
            Value::Array(a) => a,
            _ => return Err(format!("{field}: must be a list of node groups")),
        };
        for (i, g) in groups.iter().enumerate() {
            let name = g["name"]
                .as_str()
                .filter(|n| !n.is_empty())
                .ok_or_else(|| format!("{field}[{i}].name: Required value"))?
                .to_string();
            let mut labels: BTreeMap<String, String> = match &g["labels"] {
                Value::Null => BTreeMap::new(),
                other => serde_json::from_value(other.clone())
                    .map_err(|e| format!("{field}[{i}].labels: {e}"))?,
            };
            labels.insert(label.to_string(), name.clone());
            out.push(Pool {
                taints: eksctl_taints(&g["taints"], &format!("{field}[{i}].taints"))?,
                name: name.clone(),
                provider,
                api_version: v["apiVersion"].as_str().unwrap_or_default().to_string(),
                weight: None,
                startup_taints: Vec::new(),
                labels,
                consolidation_policy: None,
                consolidate_after: None,
                node_label: (label, name),
                system: false,
                instance_types: eksctl_instance_types(g),
                max_pods: g["maxPodsPerNode"].as_i64(),
                count: Some(
                    g["desiredCapacity"]
                        .as_i64()
                        .or_else(|| g["minSize"].as_i64())
                        .unwrap_or(EKSCTL_DEFAULT_CAPACITY),
                ),
                zones: match &g["availabilityZones"] {
                    Value::Null => strings(&v["availabilityZones"]),
                    z => strings(z),
                },
                region: v["metadata"]["region"].as_str().map(str::to_string),
                spot: g["spot"].as_bool() == Some(true),
                cloud: "aws",
                ..Pool::default()
            });
        }
    }
    Ok(out)
}

/// eksctl's `DefaultNodeType` (`pkg/apis/eksctl.io/v1alpha5`), the instance type of a node
/// group that names none.
pub const EKSCTL_DEFAULT_NODE_TYPE: &str = "m5.large";

/// A node group's instance types as eksctl reads them: `instanceType`, `instanceTypes`,
/// `instancesDistribution.instanceTypes`; none of them and no `launchTemplate` is eksctl's
/// [`EKSCTL_DEFAULT_NODE_TYPE`] (`SetNodeGroupDefaults`, `SetManagedNodeGroupDefaults`: "if
/// ng.LaunchTemplate == nil && ng.InstanceType == "" && len(ng.InstanceTypes) == 0").
fn eksctl_instance_types(g: &Value) -> Vec<String> {
    let types = [
        strings(&g["instanceType"]),
        strings(&g["instanceTypes"]),
        strings(&g["instancesDistribution"]["instanceTypes"]),
    ]
    .concat();
    if types.is_empty() && g["launchTemplate"].is_null() {
        vec![EKSCTL_DEFAULT_NODE_TYPE.to_string()]
    } else {
        types
    }
}

/// eksctl's `desiredCapacity` when a node group gives neither it nor `minSize`
/// (`DefaultNodeCount` in eksctl's `pkg/apis/eksctl.io/v1alpha5/defaults.go`).
pub const EKSCTL_DEFAULT_CAPACITY: i64 = 2;

/// eksctl's `taints.Validate`, which its ClusterConfig validation runs on every taint of a node
/// group and stops at the first error: a key, a qualified name; a value, when given, a valid
/// label value; one of the three effects.
fn eksctl_validate(t: &Taint) -> Result<(), String> {
    if t.key.is_empty() {
        return Err("taint key must be non-empty".to_string());
    }
    let errs = crate::names::is_qualified_name(&t.key);
    if !errs.is_empty() {
        return Err(format!("invalid taint key: {}, {}", t.key, errs.join("; ")));
    }
    if let Some(v) = t.value.as_deref().filter(|v| !v.is_empty()) {
        let errs = crate::names::is_valid_label_value(v);
        if !errs.is_empty() {
            return Err(format!("invalid taint value: {v}, {}", errs.join("; ")));
        }
    }
    match t.effect.as_str() {
        "NoSchedule" | "PreferNoSchedule" | "NoExecute" => Ok(()),
        other => Err(format!(
            "invalid taint effect: {other}, unsupported taint effect. Valid taint effects are: NoSchedule, NoExecute and PreferNoSchedule"
        )),
    }
}

/// Karpenter's runtime validation of a pool's taints (`validateTaintsField`): a key, and a
/// value when given, must be qualified names (`invalid value: KEY in taints`), the effect one
/// of the three (`invalid value: "X" in startupTaints`), and a key/effect pair appear once
/// across taints and startup taints together (`duplicate taint Key/Effect pair k=NoSchedule`).
///
/// A node group of a ClusterConfig gets eksctl's validation instead (its first error), an AKS
/// agent pool azure-cli's and AKS's, a managed node group read from `aws eks
/// describe-nodegroup` the EKS API's limits.
pub fn validate_taints(pool: &Pool) -> Vec<String> {
    if pool.provider == "aks" {
        return aks_validate(pool);
    }
    if pool.provider == "eks" && !pool.api_version.starts_with("eksctl.io/") {
        return eks_validate(pool);
    }
    if pool.provider != "karpenter" {
        return pool
            .taints
            .iter()
            .find_map(|t| eksctl_validate(t).err())
            .into_iter()
            .collect();
    }
    let mut out = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for (field, list) in [
        ("taints", &pool.taints),
        ("startupTaints", &pool.startup_taints),
    ] {
        for t in list.iter() {
            if !crate::names::is_qualified_name(&t.key).is_empty() {
                out.push(format!("invalid value: {} in {field}", t.key));
            }
            if let Some(v) = t.value.as_deref().filter(|v| !v.is_empty())
                && !crate::names::is_qualified_name(v).is_empty()
            {
                out.push(format!("invalid value: {v} in {field}"));
            }
            if !matches!(
                t.effect.as_str(),
                "" | "NoSchedule" | "PreferNoSchedule" | "NoExecute"
            ) {
                out.push(format!("invalid value: {:?} in {field}", t.effect));
            }
            let pair = (t.key.clone(), t.effect.clone());
            if seen.contains(&pair) {
                out.push(format!(
                    "duplicate taint Key/Effect pair {}={}",
                    t.key, t.effect
                ));
            }
            seen.push(pair);
        }
    }
    out
}

/// The first of the pool's taints `tolerations` do not tolerate, as Karpenter's scheduler
/// decides (every effect hard; `Gt`/`Lt` on; startup taints not checked); `None` when it
/// tolerates them all.
///
/// A node group's or agent pool's nodes are scheduled by kube-scheduler: only its NoSchedule
/// and NoExecute taints keep a pod off (`gates`: the cluster's feature gates).
pub fn untolerated<'a>(
    pool: &'a Pool,
    tolerations: &[Toleration],
    gates: &FeatureGates,
) -> Option<&'a Taint> {
    // Karpenter's ToleratesTaint(…, true): the comparison operators always on.
    let karpenter = FeatureGates {
        taint_toleration_comparison_operators: true,
    };
    let (gates, hard) = if pool.provider == "karpenter" {
        (&karpenter, None)
    } else {
        (gates, Some(["NoSchedule", "NoExecute"]))
    };
    pool.taints
        .iter()
        .filter(|t| hard.is_none_or(|h| h.contains(&t.effect.as_str())))
        .find(|t| {
            !tolerations
                .iter()
                .any(|tol| crate::toleration::tolerates(tol, t, gates))
        })
}

#[cfg(test)]
mod tests;
