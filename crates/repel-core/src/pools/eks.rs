//! EKS managed node groups (`aws eks describe-nodegroup`): their taint effects in EKS's
//! spelling and EKS's taint limits (after the EKS API reference's `Taint` and `CreateNodegroup`).

use super::*;

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
