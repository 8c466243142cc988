//! Karpenter's node requirements (`sigs.k8s.io/karpenter/pkg/scheduling`): a set of values per
//! label key, or its complement, with optional integer bounds — what a NodePool allows and
//! what a pod asks for — and the compatibility check the provisioner runs, with its texts
//! (`label "K" does not have known values`, `key K, INCOMING not in EXISTING`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{NodeSelectorRequirement, PodSpec};

/// Karpenter's `WellKnownLabels`, and the providers' instance labels (AWS
/// `karpenter.k8s.aws/…`, Azure `karpenter.azure.com/…`): a pod may ask for them though a
/// NodePool does not name them.
pub fn is_well_known(key: &str) -> bool {
    matches!(
        key,
        "karpenter.sh/nodepool"
            | "topology.kubernetes.io/zone"
            | "topology.kubernetes.io/region"
            | "node.kubernetes.io/instance-type"
            | "kubernetes.io/arch"
            | "kubernetes.io/os"
            | "karpenter.sh/capacity-type"
            | "node.kubernetes.io/windows-build"
    ) || key.starts_with("karpenter.k8s.aws/")
        || key.starts_with("karpenter.azure.com/")
}

/// One key's requirement (Karpenter's `Requirement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// The label key.
    pub key: String,
    /// `true`: every value but `values` (NotIn, Exists); `false`: only `values` (In,
    /// DoesNotExist).
    pub complement: bool,
    /// The values.
    pub values: BTreeSet<String>,
    /// `Gt`: the least value allowed.
    pub gte: Option<i64>,
    /// `Lt`: the greatest value allowed.
    pub lte: Option<i64>,
}

impl Requirement {
    /// A requirement from an operator and values (an unknown operator allows nothing).
    pub fn new(key: &str, operator: &str, values: &[String]) -> Self {
        let set: BTreeSet<String> = values.iter().cloned().collect();
        let mut r = Requirement {
            key: key.to_string(),
            complement: false,
            values: BTreeSet::new(),
            gte: None,
            lte: None,
        };
        match operator {
            "In" => r.values = set,
            "NotIn" => {
                r.complement = true;
                r.values = set;
            }
            "Exists" => r.complement = true,
            "Gt" => {
                r.complement = true;
                r.gte = values
                    .first()
                    .and_then(|v| v.parse::<i64>().ok())
                    .map(|v| v.saturating_add(1));
            }
            "Lt" => {
                r.complement = true;
                r.lte = values
                    .first()
                    .and_then(|v| v.parse::<i64>().ok())
                    .map(|v| v.saturating_sub(1));
            }
            _ => {}
        }
        r
    }

    /// Karpenter's `Operator()`.
    pub fn operator(&self) -> &'static str {
        match (self.complement, self.values.is_empty()) {
            (true, true) => "Exists",
            (true, false) => "NotIn",
            (false, true) => "DoesNotExist",
            (false, false) => "In",
        }
    }

    fn within(&self, v: &str, gte: Option<i64>, lte: Option<i64>) -> bool {
        if gte.is_none() && lte.is_none() {
            return true;
        }
        let Ok(n) = v.parse::<i64>() else {
            return false;
        };
        gte.is_none_or(|g| n >= g) && lte.is_none_or(|l| n <= l)
    }

    /// Karpenter's `HasIntersection`.
    pub fn intersects(&self, other: &Requirement) -> bool {
        let gte = match (self.gte, other.gte) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let lte = match (self.lte, other.lte) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let (Some(g), Some(l)) = (gte, lte)
            && g > l
        {
            return false;
        }
        match (self.complement, other.complement) {
            (true, true) => true,
            (true, false) => other
                .values
                .iter()
                .any(|v| !self.values.contains(v) && self.within(v, gte, lte)),
            (false, true) => self
                .values
                .iter()
                .any(|v| !other.values.contains(v) && self.within(v, gte, lte)),
            (false, false) => self
                .values
                .iter()
                .any(|v| other.values.contains(v) && self.within(v, gte, lte)),
        }
    }

    /// Narrows `self` by `other` (Karpenter's `Intersection`).
    fn narrow(&mut self, other: &Requirement) {
        match (self.complement, other.complement) {
            (true, true) => self.values.extend(other.values.iter().cloned()),
            (true, false) => {
                let values = other
                    .values
                    .iter()
                    .filter(|v| !self.values.contains(*v))
                    .cloned()
                    .collect();
                self.values = values;
                self.complement = false;
            }
            (false, true) => self.values.retain(|v| !other.values.contains(v)),
            (false, false) => self.values.retain(|v| other.values.contains(v)),
        }
        self.gte = match (self.gte, other.gte) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.lte = match (self.lte, other.lte) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

impl std::fmt::Display for Requirement {
    /// Karpenter's `Requirement.String()`: `key In [a b]`, at most five values then `and N
    /// others`; `key Exists`; bounds as ` >=N`, ` <=N`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.operator() {
            op @ ("Exists" | "DoesNotExist") => write!(f, "{} {op}", self.key)?,
            op => {
                let mut values: Vec<String> = self.values.iter().cloned().collect();
                if values.len() > 5 {
                    let more = values.len() - 5;
                    values.truncate(5);
                    values.push(format!("and {more} others"));
                }
                write!(f, "{} {op} [{}]", self.key, values.join(" "))?;
            }
        }
        if let Some(g) = self.gte {
            write!(f, " >={g}")?;
        }
        if let Some(l) = self.lte {
            write!(f, " <={l}")?;
        }
        Ok(())
    }
}

/// Requirements by key (Karpenter's `Requirements`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requirements(pub BTreeMap<String, Requirement>);

impl Requirements {
    /// Adds `r`, narrowing the requirement already on its key.
    pub fn add(&mut self, r: Requirement) {
        match self.0.get_mut(&r.key) {
            Some(existing) => existing.narrow(&r),
            None => {
                self.0.insert(r.key.clone(), r);
            }
        }
    }

    /// From node selector requirements.
    pub fn from_node_selector(reqs: &[NodeSelectorRequirement]) -> Self {
        let mut out = Requirements::default();
        for r in reqs {
            out.add(Requirement::new(
                &r.key,
                &r.operator,
                r.values.as_deref().unwrap_or_default(),
            ));
        }
        out
    }

    /// From labels (`key In [value]` each).
    pub fn from_labels<'a>(labels: impl IntoIterator<Item = (&'a String, &'a String)>) -> Self {
        let mut out = Requirements::default();
        for (k, v) in labels {
            out.add(Requirement::new(k, "In", std::slice::from_ref(v)));
        }
        out
    }

    /// A pod's (`NewPodRequirements`): its node selector, its heaviest preferred node-affinity
    /// term (treated as required until relaxed), and its first required term.
    pub fn of_pod(spec: &PodSpec, with_preferences: bool) -> Self {
        let mut out = spec
            .node_selector
            .as_ref()
            .map(Requirements::from_labels)
            .unwrap_or_default();
        let Some(na) = spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
        else {
            return out;
        };
        if with_preferences
            && let Some(pref) = na
                .preferred_during_scheduling_ignored_during_execution
                .as_ref()
                .and_then(|p| p.iter().max_by_key(|t| t.weight))
        {
            for r in pref.preference.match_expressions.iter().flatten() {
                out.add(Requirement::new(
                    &r.key,
                    &r.operator,
                    r.values.as_deref().unwrap_or_default(),
                ));
            }
        }
        if let Some(term) = na
            .required_during_scheduling_ignored_during_execution
            .as_ref()
            .and_then(|r| r.node_selector_terms.first())
        {
            for r in term.match_expressions.iter().flatten() {
                out.add(Requirement::new(
                    &r.key,
                    &r.operator,
                    r.values.as_deref().unwrap_or_default(),
                ));
            }
        }
        out
    }

    /// Karpenter's `Compatible(incoming, AllowUndefinedWellKnownLabels)`: `Err` with its text.
    pub fn compatible(&self, incoming: &Requirements) -> Result<(), String> {
        for (key, r) in &incoming.0 {
            if is_well_known(key) {
                continue;
            }
            if self.0.contains_key(key) || matches!(r.operator(), "NotIn" | "DoesNotExist") {
                continue;
            }
            return Err(format!(
                "label {key:?} does not have known values{}",
                self.hint(key)
            ));
        }
        let mut errs = Vec::new();
        for (key, incoming_r) in &incoming.0 {
            let Some(existing) = self.0.get(key) else {
                continue;
            };
            if !existing.intersects(incoming_r) {
                if matches!(incoming_r.operator(), "NotIn" | "DoesNotExist")
                    && matches!(existing.operator(), "NotIn" | "DoesNotExist")
                {
                    continue;
                }
                errs.push(format!("key {key}, {incoming_r} not in {existing}"));
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("; "))
        }
    }

    /// Karpenter's `labelHint`: ` (typo of "K"?)` for a well-known or known key that contains
    /// `key` or ends with its name part.
    fn hint(&self, key: &str) -> String {
        const WELL_KNOWN: [&str; 8] = [
            "karpenter.sh/capacity-type",
            "karpenter.sh/nodepool",
            "kubernetes.io/arch",
            "kubernetes.io/os",
            "node.kubernetes.io/instance-type",
            "node.kubernetes.io/windows-build",
            "topology.kubernetes.io/region",
            "topology.kubernetes.io/zone",
        ];
        let suffix = key.split_once('/').map_or(key, |(_, n)| n);
        for k in WELL_KNOWN
            .iter()
            .copied()
            .chain(self.0.keys().map(String::as_str))
        {
            if k.contains(key) || k.ends_with(suffix) {
                return format!(" (typo of {k:?}?)");
            }
        }
        String::new()
    }

    /// Karpenter's `Requirements.String()`: each requirement but `kubernetes.io/hostname`,
    /// sorted, joined by `, `.
    pub fn to_karpenter_string(&self) -> String {
        let mut parts: Vec<String> = self
            .0
            .values()
            .filter(|r| r.key != "kubernetes.io/hostname")
            .map(|r| r.to_string())
            .collect();
        parts.sort();
        parts.join(", ")
    }

    /// Whether labels meet every requirement (a label a requirement does not name is free).
    pub fn allow_labels(&self, labels: &BTreeMap<String, String>) -> bool {
        self.0.values().all(|r| {
            let v = labels.get(&r.key).map(String::as_str);
            match v {
                None => matches!(r.operator(), "NotIn" | "DoesNotExist") && r.gte.is_none(),
                Some(v) => r.complement != r.values.contains(v) && r.within(v, r.gte, r.lte),
            }
        })
    }
}

#[cfg(test)]
mod tests;
