//! AKS agent pools (`Microsoft.ContainerService/managedClusters/agentPools`, as `az aks nodepool
//! show` prints one): their taints in Azure's `key=value:Effect` form and Azure's validation
//! (after `Azure/azure-cli` `acs/_validators.py` and AKS's system-pool rule).

use super::*;

/// The ARM resource type of an AKS agent pool, which `az aks nodepool show` prints in `type`.
pub const AKS_AGENT_POOL_ARM_TYPE: &str = "Microsoft.ContainerService/managedClusters/agentPools";

/// The agent pool types of the ARM API (`AgentPoolType`: the REST API's `properties.type`).
pub(super) const AKS_AGENT_POOL_TYPES: [&str; 3] = [
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
pub(super) fn aks_taint_ok(t: &Taint) -> bool {
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
