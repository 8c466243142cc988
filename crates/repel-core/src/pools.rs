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

/// The ARM resource type of an AKS agent pool, which `az aks nodepool show` prints in `type`.
pub const AKS_AGENT_POOL_ARM_TYPE: &str = "Microsoft.ContainerService/managedClusters/agentPools";

/// The agent pool types of the ARM API (`AgentPoolType`: the REST API's `properties.type`).
const AKS_AGENT_POOL_TYPES: [&str; 3] = [
    "VirtualMachineScaleSets",
    "AvailabilitySet",
    "VirtualMachines",
];

/// Whether a JSON object is an AKS agent pool: no `kind`, a `name`, and either
///
/// 1. `az aks nodepool show` output (and each item of `az aks nodepool list`'s array), as
///    Microsoft's pages print it: the ARM resource type `Microsoft.ContainerService/
///    managedClusters/agentPools` in `type` (ARM compares resource types without regard to
///    case) and the pool's own type in `typePropertiesType` (azure-cli renames the flattened
///    `properties.type`, which would clash with the resource's `type`); or
/// 2. an agent pool written by hand with the pool's type in `type` (`VirtualMachineScaleSets`,
///    `AvailabilitySet`, `VirtualMachines`: the values of ARM's `AgentPoolType`), the form the
///    scenario examples used before az's own output was read.
///
/// No Kubernetes object has a `type` at its root.
pub fn is_aks_pool(v: &Value) -> bool {
    if v.get("kind").is_some() || v.get("name").and_then(Value::as_str).is_none() {
        return false;
    }
    match v.get("type").and_then(Value::as_str) {
        Some(t) if t.eq_ignore_ascii_case(AKS_AGENT_POOL_ARM_TYPE) => true,
        Some(t) => AKS_AGENT_POOL_TYPES.contains(&t),
        None => false,
    }
}

/// One of `nodeTaints`' `key=value:Effect` strings as a taint, split as written (the effect
/// after the last `:`, the value after the first `=`), so that [`aks_taint_string`] gives the
/// string back for azure-cli's validation.
pub fn aks_taint(s: &str) -> Taint {
    let (kv, effect) = s.rsplit_once(':').unwrap_or((s, ""));
    let (key, value) = match kv.split_once('=') {
        Some((k, v)) => (k, Some(v.to_string())),
        None => (kv, None),
    };
    Taint {
        key: key.to_string(),
        value,
        effect: effect.to_string(),
        time_added: None,
    }
}

/// The `nodeTaints` string of a taint (see [`aks_taint`]).
pub fn aks_taint_string(t: &Taint) -> String {
    let mut s = t.key.clone();
    if let Some(v) = &t.value {
        s.push('=');
        s.push_str(v);
    }
    if !t.effect.is_empty() {
        s.push(':');
        s.push_str(&t.effect);
    }
    s
}

/// An AKS agent pool, from `az aks nodepool show` output (`az aks nodepool list` prints a list
/// of them): `nodeTaints`, `nodeLabels`, `mode` (nodes labelled `kubernetes.azure.com/mode`),
/// and for a Spot pool (`scaleSetPriority: Spot`) the `kubernetes.azure.com/scalesetpriority=
/// spot:NoSchedule` taint and `…=spot` label AKS gives its nodes (added when the output lacks
/// them); its nodes are labelled `kubernetes.azure.com/agentpool=NAME`.
pub fn aks_pool(v: &Value) -> Result<Pool, String> {
    let name = v["name"]
        .as_str()
        .ok_or("name: Required value")?
        .to_string();
    let raw: Vec<String> = match &v["nodeTaints"] {
        Value::Null => Vec::new(),
        other => serde_json::from_value(other.clone()).map_err(|e| format!("nodeTaints: {e}"))?,
    };
    let mut taints: Vec<Taint> = raw.iter().map(|s| aks_taint(s)).collect();
    let mut labels: BTreeMap<String, String> = match &v["nodeLabels"] {
        Value::Null => BTreeMap::new(),
        other => serde_json::from_value(other.clone()).map_err(|e| format!("nodeLabels: {e}"))?,
    };
    let system = v["mode"].as_str() == Some("System");
    labels.insert(AKS_AGENTPOOL_LABEL.to_string(), name.clone());
    labels.insert(
        AKS_MODE_LABEL.to_string(),
        if system { "system" } else { "user" }.to_string(),
    );
    if v["scaleSetPriority"].as_str() == Some("Spot") {
        labels.insert(AKS_SPOT_KEY.to_string(), "spot".to_string());
        if !taints.iter().any(|t| t.key == AKS_SPOT_KEY) {
            taints.push(aks_taint(&format!("{AKS_SPOT_KEY}=spot:NoSchedule")));
        }
    }
    Ok(Pool {
        name: name.clone(),
        provider: "aks",
        api_version: String::new(),
        weight: None,
        taints,
        startup_taints: Vec::new(),
        labels,
        consolidation_policy: None,
        consolidate_after: None,
        node_label: (AKS_AGENTPOOL_LABEL, name),
        system,
        instance_types: strings(&v["vmSize"]),
        max_pods: v["maxPods"].as_i64(),
        count: Some(v["count"].as_i64().unwrap_or(0)),
        zones: strings(&v["availabilityZones"]),
        region: None,
        spot: v["scaleSetPriority"].as_str() == Some("Spot"),
        cloud: "azure",
        ..Pool::default()
    })
}

/// azure-cli's `validate_taint`: `^[a-zA-Z\d][\w\-\.\/]{0,252}=[a-zA-Z\d][\w\-\.]{0,62}:
/// (NoSchedule|PreferNoSchedule|NoExecute)$` (a value is required), where `\w` is a letter,
/// digit or `_` (Python's `re` on `str` also takes other Unicode letters and digits).
fn aks_taint_ok(t: &Taint) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let starts = |s: &str| s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
    let Some(value) = &t.value else {
        return false;
    };
    let key_len = t.key.chars().count();
    let value_len = value.chars().count();
    starts(&t.key)
        && (1..=253).contains(&key_len)
        && t.key
            .chars()
            .all(|c| word(c) || matches!(c, '-' | '.' | '/'))
        && starts(value)
        && (1..=63).contains(&value_len)
        && value.chars().all(|c| word(c) || matches!(c, '-' | '.'))
        && matches!(
            t.effect.as_str(),
            "NoSchedule" | "PreferNoSchedule" | "NoExecute"
        )
}

/// AKS's checks of an agent pool's taints: each as azure-cli validates it (`Invalid node taint:
/// S`), and on a system pool only `CriticalAddonsOnly` or PreferNoSchedule taints (the API's
/// `SystemPoolHasRestrictedTaint` error, as AKS writes it).
pub fn aks_validate(pool: &Pool) -> Vec<String> {
    let mut out: Vec<String> = pool
        .taints
        .iter()
        .filter(|t| !aks_taint_ok(t))
        .map(|t| format!("Invalid node taint: {}", aks_taint_string(t)))
        .collect();
    if out.is_empty()
        && pool.system
        && pool
            .taints
            .iter()
            .any(|t| t.key != "CriticalAddonsOnly" && t.effect != "PreferNoSchedule")
    {
        out.push("(SystemPoolHasRestrictedTaint) Placing custom taints on system pool is not supported(except 'CriticalAddonsOnly' taint or taint effect is 'PreferNoSchedule'). Please refer to https://aka.ms/aks/system-taints for detail".to_string());
    }
    out
}

/// Whether a JSON object is what `aws eks describe-nodegroup` prints: no `kind`, a
/// `nodegroup` holding a `nodegroupName`.
pub fn is_eks_nodegroup(v: &Value) -> bool {
    v.get("kind").is_none() && v["nodegroup"]["nodegroupName"].as_str().is_some()
}

/// The EKS API's spelling of a taint effect, as Kubernetes spells it (`None`: not one of the
/// three).
pub fn eks_effect(effect: &str) -> Option<&'static str> {
    match effect {
        "NO_SCHEDULE" => Some("NoSchedule"),
        "PREFER_NO_SCHEDULE" => Some("PreferNoSchedule"),
        "NO_EXECUTE" => Some("NoExecute"),
        _ => None,
    }
}

/// An EKS managed node group from `aws eks describe-nodegroup` output: `nodegroup.taints`
/// (effects spelled `NO_SCHEDULE`, `PREFER_NO_SCHEDULE`, `NO_EXECUTE`, read as Kubernetes
/// spells them; another is kept as written and refused by [`validate_taints`]),
/// `nodegroup.labels`, and the labels EKS gives its nodes (`eks.amazonaws.com/nodegroup=NAME`,
/// `eks.amazonaws.com/capacityType` from `capacityType`).
pub fn eks_nodegroup(v: &Value) -> Result<Pool, String> {
    let g = &v["nodegroup"];
    let name = g["nodegroupName"]
        .as_str()
        .ok_or("nodegroup.nodegroupName: Required value")?
        .to_string();
    let mut taints = Vec::new();
    for (i, t) in g["taints"].as_array().into_iter().flatten().enumerate() {
        let key = t["key"]
            .as_str()
            .ok_or_else(|| format!("nodegroup.taints[{i}].key: Required value"))?;
        let effect = t["effect"].as_str().unwrap_or_default();
        taints.push(Taint {
            key: key.to_string(),
            value: t["value"].as_str().map(str::to_string),
            effect: eks_effect(effect).unwrap_or(effect).to_string(),
            time_added: None,
        });
    }
    let mut labels: BTreeMap<String, String> = match &g["labels"] {
        Value::Null => BTreeMap::new(),
        other => {
            serde_json::from_value(other.clone()).map_err(|e| format!("nodegroup.labels: {e}"))?
        }
    };
    labels.insert(EKS_NODEGROUP_LABEL.to_string(), name.clone());
    if let Some(c) = g["capacityType"].as_str() {
        labels.insert("eks.amazonaws.com/capacityType".to_string(), c.to_string());
    }
    Ok(Pool {
        name: name.clone(),
        provider: "eks",
        api_version: String::new(),
        weight: None,
        taints,
        startup_taints: Vec::new(),
        labels,
        consolidation_policy: None,
        consolidate_after: None,
        node_label: (EKS_NODEGROUP_LABEL, name),
        system: false,
        instance_types: strings(&g["instanceTypes"]),
        max_pods: None,
        count: Some(g["scalingConfig"]["desiredSize"].as_i64().unwrap_or(0)),
        zones: Vec::new(),
        region: None,
        spot: g["capacityType"].as_str() == Some("SPOT"),
        cloud: "aws",
        ..Pool::default()
    })
}

/// The EKS API's limits on a managed node group's taints (`API_Taint`: a key of 1 to 63
/// characters, a value of at most 63, one of the three effects; at most 50 taints a group).
/// AWS's own error texts were not found: these are repel's, naming the limit.
pub fn eks_validate(pool: &Pool) -> Vec<String> {
    let mut out = Vec::new();
    if pool.taints.len() > 50 {
        out.push(format!(
            "taints: a managed node group holds at most 50 taints, not {}",
            pool.taints.len()
        ));
    }
    for (i, t) in pool.taints.iter().enumerate() {
        let key_len = t.key.chars().count();
        if !(1..=63).contains(&key_len) {
            out.push(format!(
                "taints[{i}].key: {:?} must be 1 to 63 characters long",
                t.key
            ));
        }
        if let Some(v) = &t.value
            && v.chars().count() > 63
        {
            out.push(format!(
                "taints[{i}].value: {v:?} must be at most 63 characters long"
            ));
        }
        if !matches!(
            t.effect.as_str(),
            "NoSchedule" | "PreferNoSchedule" | "NoExecute"
        ) {
            out.push(format!(
                "taints[{i}].effect: {:?} is not one of NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE",
                t.effect
            ));
        }
    }
    out
}

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
mod tests {
    use serde_json::json;

    use super::*;

    fn pool(taints: Value, startup: Value) -> Pool {
        karpenter_pool(&json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
            "metadata": {"name": "gpu"},
            "spec": {"template": {"metadata": {"labels": {"team": "ml"}},
                                  "spec": {"taints": taints, "startupTaints": startup}}}}))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn reads_the_template_and_validates_as_karpenter() {
        let p = pool(
            json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
            json!([{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}]),
        );
        assert_eq!(p.name, "gpu");
        assert_eq!(p.labels["team"], "ml");
        assert_eq!(p.taints.len(), 1);
        assert_eq!(p.startup_taints.len(), 1);
        assert!(validate_taints(&p).is_empty());
        let bad = pool(
            json!([{"key": "-bad", "effect": "NoSchedule"},
                   {"key": "a", "value": "example.com/ok", "effect": "Sometimes"},
                   {"key": "dup", "effect": "NoSchedule"}]),
            json!([{"key": "dup", "effect": "NoSchedule"}]),
        );
        assert_eq!(
            validate_taints(&bad),
            [
                "invalid value: -bad in taints",
                "invalid value: \"Sometimes\" in taints",
                "duplicate taint Key/Effect pair dup=NoSchedule",
            ]
        );
    }

    /// karpenter `pkg/apis/v1/nodepool_default_test.go` ("CEL/Default"),
    /// `nodepool_conversion_test.go` ("Disruption") and `duration.go` (`Never`): which
    /// `consolidateAfter` Karpenter v1 holds.
    #[test]
    fn consolidate_after_as_karpenter_v1_holds_it() {
        let np = |version: &str, disruption: Value| {
            json!({"apiVersion": format!("karpenter.sh/{version}"), "kind": "NodePool",
                   "metadata": {"name": "p"}, "spec": {"disruption": disruption}})
        };
        let cases: Vec<(&str, Value, Option<&str>)> = vec![
            (
                "should default the disruption stanza when undefined",
                np("v1", Value::Null),
                Some("0s"),
            ),
            (
                "a v1 pool without consolidateAfter has the CRD's default",
                np("v1", json!({"consolidationPolicy": "WhenEmpty"})),
                Some("0s"),
            ),
            (
                "Never disables consolidation",
                np("v1", json!({"consolidateAfter": "Never"})),
                None,
            ),
            (
                "a duration is kept as written",
                np("v1", json!({"consolidateAfter": "1h30m"})),
                Some("1h30m"),
            ),
            (
                "should convert v1beta1 nodepool consolidateAfter to 0 for WhenUnderutilized",
                np(
                    "v1beta1",
                    json!({"consolidationPolicy": "WhenUnderutilized"}),
                ),
                Some("0s"),
            ),
            (
                "a v1beta1 pool's default policy is WhenUnderutilized",
                np("v1beta1", Value::Null),
                Some("0s"),
            ),
            (
                "should convert v1beta1 nodepool consolidateAfter for WhenEmpty",
                np(
                    "v1beta1",
                    json!({"consolidationPolicy": "WhenEmpty", "consolidateAfter": "2121s"}),
                ),
                Some("2121s"),
            ),
            (
                "a v1beta1 WhenEmpty pool with Never stays disabled",
                np(
                    "v1beta1",
                    json!({"consolidationPolicy": "WhenEmpty", "consolidateAfter": "Never"}),
                ),
                None,
            ),
        ];
        for (name, v, want) in cases {
            let got = karpenter_pool(&v).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got.consolidate_after.as_deref(), want, "{name}");
        }
        for (bad, want) in [
            (
                json!("5x"),
                "spec.disruption.consolidateAfter: Invalid value: \"5x\": \
                 spec.disruption.consolidateAfter in body should match \
                 '^(([0-9]+(s|m|h))+|Never)$'",
            ),
            (
                json!(30),
                "spec.disruption.consolidateAfter: Invalid value: \"integer\": \
                 spec.disruption.consolidateAfter in body must be of type string: \"integer\"",
            ),
        ] {
            let got = karpenter_pool(&np("v1", json!({"consolidateAfter": bad})));
            assert_eq!(got.err().as_deref(), Some(want));
        }
        for ok in ["0s", "10m", "1h30m", "Never"] {
            assert!(consolidate_after_matches(ok), "{ok}");
        }
        for bad in ["", "s", "1", "1.5h", "1d", "never", "1h "] {
            assert!(!consolidate_after_matches(bad), "{bad:?}");
        }
    }

    #[test]
    fn every_taint_is_hard_and_startup_taints_are_ignored() {
        let p = pool(
            json!([{"key": "soft", "effect": "PreferNoSchedule"}]),
            json!([{"key": "startup", "effect": "NoSchedule"}]),
        );
        let gates = FeatureGates::default();
        assert_eq!(
            untolerated(&p, &[], &gates).map(|t| t.key.as_str()),
            Some("soft")
        );
        let tol: Toleration = serde_json::from_value(json!({"key": "soft", "operator": "Exists"}))
            .unwrap_or_default();
        assert_eq!(untolerated(&p, &[tol], &gates), None);
    }

    fn cluster_config(groups: Value) -> Vec<Pool> {
        let mut v = json!({"apiVersion": "eksctl.io/v1alpha5", "kind": "ClusterConfig",
                           "metadata": {"name": "c", "region": "us-west-1"}});
        if let (Some(o), Value::Object(g)) = (v.as_object_mut(), groups) {
            o.extend(g);
        }
        eksctl_pools(&v).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn eksctl_instance_types_in_each_of_its_fields() {
        let pools = cluster_config(json!({
            "nodeGroups": [
                {"name": "a", "instanceType": "m5.large", "maxPodsPerNode": 20},
                {"name": "b", "instancesDistribution": {"instanceTypes": ["g5.xlarge", "g4dn.xlarge"]}}],
            "managedNodeGroups": [{"name": "c", "instanceTypes": ["c5.large"]}, {"name": "d"},
                                  {"name": "e", "launchTemplate": {"id": "lt-1"}}]}));
        let got: Vec<(Vec<String>, Option<i64>)> = pools
            .iter()
            .map(|p| (p.instance_types.clone(), p.max_pods))
            .collect();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            got,
            vec![
                (s(&["m5.large"]), Some(20)),
                (s(&["g5.xlarge", "g4dn.xlarge"]), None),
                (s(&["c5.large"]), None),
                // None named: eksctl's DefaultNodeType.
                (s(&[EKSCTL_DEFAULT_NODE_TYPE]), None),
                // A launch template names its own instance type, which is not read.
                (Vec::new(), None),
            ]
        );
    }

    use crate::testing::taint;

    #[test]
    fn eksctl_reads_both_taint_forms_as_parse_taint_does() {
        // eksctl's pkg/utils/taints Parse table, and the map form of its examples.
        let pools = cluster_config(json!({
            "nodeGroups": [{"name": "ng-1", "taints": {"key1": "value1:NoSchedule",
                                                        "key2": ":NoExecute",
                                                        "key3": "NoSchedule",
                                                        "key4": "a:b:NoSchedule"}}],
            "managedNodeGroups": [{"name": "mng-1", "labels": {"role": "db"},
                                   "taints": [{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]}]
        }));
        assert_eq!(pools.len(), 2);
        assert_eq!(
            pools[0].taints,
            [
                taint("key1", "value1", "NoSchedule"),
                taint("key2", "", "NoExecute"),
                taint("key3", "", "NoSchedule"),
                taint("key4", "", ""),
            ]
        );
        assert_eq!(pools[0].provider, "eksctl");
        assert_eq!(
            pools[0].node_label,
            (EKSCTL_NODEGROUP_LABEL, "ng-1".to_string())
        );
        assert_eq!(pools[1].provider, "eks");
        assert_eq!(pools[1].labels["role"], "db");
        assert_eq!(pools[1].labels[EKS_NODEGROUP_LABEL], "mng-1");
        assert_eq!(pools[1].taints, [taint("k", "v", "PreferNoSchedule")]);
        let wrong = eksctl_pools(&json!({"nodeGroups": [{"name": "x", "taints": "k=v"}]}));
        assert!(wrong.is_err_and(|e| e.starts_with(
            "nodeGroups[0].taints: taints must be a {string: string} or a [{key, value, effect}]: "
        )));
        let unnamed = eksctl_pools(&json!({"managedNodeGroups": [{"taints": []}]}));
        assert_eq!(
            unnamed,
            Err("managedNodeGroups[0].name: Required value".to_string())
        );
    }

    #[test]
    fn eksctl_validates_as_its_validate_table() {
        // eksctl's pkg/utils/taints Validate table; the first error of a group only.
        let cases = [
            (taint("key1", "value1", "NoSchedule"), None),
            (taint("key2", "", "NoExecute"), None),
            (
                taint("key3", "", ""),
                Some(
                    "invalid taint effect: , unsupported taint effect. Valid taint effects are: NoSchedule, NoExecute and PreferNoSchedule",
                ),
            ),
            (
                taint("key1=", "value1", "NoSchedule"),
                Some(
                    "invalid taint key: key1=, name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                ),
            ),
            (
                taint("key1", "v&lue", "NoSchedule"),
                Some(
                    "invalid taint value: v&lue, a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                ),
            ),
            (
                taint("key1", "value1", "NoEffect"),
                Some(
                    "invalid taint effect: NoEffect, unsupported taint effect. Valid taint effects are: NoSchedule, NoExecute and PreferNoSchedule",
                ),
            ),
            (
                taint("", "v", "NoSchedule"),
                Some("taint key must be non-empty"),
            ),
        ];
        for (t, want) in cases {
            let mut pool = cluster_config(json!({"nodeGroups": [{"name": "ng"}]})).remove(0);
            pool.taints = vec![t.clone(), taint("-also-bad", "", "NoSchedule")];
            let got = validate_taints(&pool);
            match want {
                Some(w) => assert_eq!(got, [w], "{t:?}"),
                None => assert_eq!(got.len(), 1, "{t:?}: the second taint's error, {got:?}"),
            }
        }
    }

    #[test]
    fn a_node_groups_prefer_no_schedule_taint_keeps_no_pod_off() {
        let pools = cluster_config(json!({"nodeGroups": [{"name": "ng", "taints": [
            {"key": "soft", "effect": "PreferNoSchedule"},
            {"key": "hard", "value": "x", "effect": "NoSchedule"}]}]}));
        let gates = FeatureGates::default();
        assert_eq!(
            untolerated(&pools[0], &[], &gates).map(|t| t.key.as_str()),
            Some("hard")
        );
        let tol: Toleration = serde_json::from_value(json!({"key": "hard", "operator": "Exists"}))
            .unwrap_or_default();
        assert_eq!(untolerated(&pools[0], &[tol], &gates), None);
    }

    fn agent_pool(v: Value) -> Pool {
        aks_pool(&v).unwrap_or_else(|e| panic!("{e}"))
    }

    /// `az aks nodepool show` for a Spot pool, as Microsoft's Spot node pool page prints it
    /// (testdata/az/SOURCES.md).
    const AZ_NODEPOOL_SHOW_SPOT: &str = include_str!("../testdata/az/nodepool-show-spot.json");

    #[test]
    fn an_aks_agent_pool_as_az_prints_it() {
        let spot: Value = serde_json::from_str(AZ_NODEPOOL_SHOW_SPOT).unwrap_or_default();
        assert_eq!(spot["type"], AKS_AGENT_POOL_ARM_TYPE);
        assert_eq!(spot["typePropertiesType"], "VirtualMachineScaleSets");
        assert!(is_aks_pool(&spot));
        // ARM compares resource types without regard to case.
        let mut lower = spot.clone();
        lower["type"] = json!(AKS_AGENT_POOL_ARM_TYPE.to_lowercase());
        assert!(is_aks_pool(&lower));
        // A Kubernetes object, or an object with another ARM type, is not an agent pool.
        assert!(!is_aks_pool(
            &json!({"kind": "Node", "name": "x", "type": AKS_AGENT_POOL_ARM_TYPE})
        ));
        assert!(!is_aks_pool(
            &json!({"name": "x", "type": "Microsoft.ContainerService/managedClusters"})
        ));
        let p = agent_pool(spot);
        assert_eq!(p.provider, "aks");
        assert_eq!(p.name, "xxxxxxxxxxxx");
        assert_eq!(
            p.taints,
            [aks_taint(
                "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
            )]
        );
        assert_eq!(p.labels[AKS_AGENTPOOL_LABEL], "xxxxxxxxxxxx");
        assert_eq!(p.labels[AKS_MODE_LABEL], "user");
        assert_eq!(p.labels[AKS_SPOT_KEY], "spot");
        assert!(validate_taints(&p).is_empty());
        // A Spot pool whose output lacks the taint still gets it, as AKS gives it.
        let mut bare = serde_json::from_str::<Value>(AZ_NODEPOOL_SHOW_SPOT).unwrap_or_default();
        bare["nodeTaints"] = Value::Null;
        bare["nodeLabels"] = Value::Null;
        let bare = agent_pool(bare);
        assert_eq!(bare.taints.len(), 1);
        assert_eq!(bare.labels[AKS_SPOT_KEY], "spot");
        // The pool type in `type`, as the scenario examples write an agent pool by hand.
        assert!(is_aks_pool(
            &json!({"name": "s", "type": "VirtualMachineScaleSets", "scaleSetPriority": "Spot"})
        ));
    }

    #[test]
    fn aks_validates_taints_as_azure_cli_and_system_pools_as_aks() {
        let pool = |taints: Value, mode: &str| {
            agent_pool(
                json!({"name": "p", "type": "VirtualMachineScaleSets", "mode": mode,
                              "nodeTaints": taints}),
            )
        };
        for ok in [
            "sku=gpu:NoSchedule",
            "a/b.c_d-e=v_1.2-3:PreferNoSchedule",
            "k=v:NoExecute",
        ] {
            assert!(
                validate_taints(&pool(json!([ok]), "User")).is_empty(),
                "{ok}"
            );
        }
        for bad in [
            "sku:NoSchedule",
            "sku=gpu",
            "sku=gpu:Sometimes",
            "-sku=gpu:NoSchedule",
            "sku=-gpu:NoSchedule",
            "sku=g/pu:NoSchedule",
            "sku=a=b:NoSchedule",
        ] {
            assert_eq!(
                validate_taints(&pool(json!([bad]), "User")),
                [format!("Invalid node taint: {bad}")],
                "{bad}"
            );
        }
        let long_value = format!("k={}:NoSchedule", "v".repeat(64));
        assert_eq!(validate_taints(&pool(json!([long_value]), "User")).len(), 1);
        assert!(
            validate_taints(&pool(
                json!(["CriticalAddonsOnly=true:NoSchedule"]),
                "System"
            ))
            .is_empty()
        );
        assert!(validate_taints(&pool(json!(["any=thing:PreferNoSchedule"]), "System")).is_empty());
        assert_eq!(
            validate_taints(&pool(json!(["sku=gpu:NoSchedule"]), "System")),
            [
                "(SystemPoolHasRestrictedTaint) Placing custom taints on system pool is not supported(except 'CriticalAddonsOnly' taint or taint effect is 'PreferNoSchedule'). Please refer to https://aka.ms/aks/system-taints for detail"
            ]
        );
    }

    #[test]
    fn an_eks_managed_node_group_as_describe_nodegroup_prints_it() {
        let out = json!({"nodegroup": {"nodegroupName": "gpu", "clusterName": "c",
            "capacityType": "SPOT", "labels": {"team": "ml"},
            "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"},
                       {"key": "soft", "effect": "PREFER_NO_SCHEDULE"}]}});
        assert!(is_eks_nodegroup(&out));
        let p = eks_nodegroup(&out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            p.taints,
            [
                taint("nvidia.com/gpu", "true", "NoSchedule"),
                taint("soft", "", "PreferNoSchedule")
            ]
        );
        assert_eq!(p.labels[EKS_NODEGROUP_LABEL], "gpu");
        assert_eq!(p.labels["eks.amazonaws.com/capacityType"], "SPOT");
        assert!(validate_taints(&p).is_empty());
        let mut bad = p.clone();
        bad.taints = vec![
            taint(&"k".repeat(64), "", "NoSchedule"),
            taint("k", &"v".repeat(64), "NoExecute"),
            taint("k2", "", "NoSchedule"),
        ];
        bad.taints[2].effect = "SOMETIMES".to_string();
        assert_eq!(validate_taints(&bad).len(), 3);
        bad.taints = (0..51)
            .map(|i| taint(&format!("k{i}"), "", "NoSchedule"))
            .collect();
        assert_eq!(
            validate_taints(&bad),
            ["taints: a managed node group holds at most 50 taints, not 51"]
        );
    }
}
