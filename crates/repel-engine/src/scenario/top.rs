//! Top-level fields: inline objects, feature gates, controller flags.

use repel_core::FeatureGates;
use repel_core::admission::{AdmissionConfig, PluginFlagError};
use serde_json::{Map, Value};

use super::read::{self, Reader, join};
use super::{CONTROLLER_FLAGS, ControllerFlags, ScenarioErrorKind};

/// Objects: a list of maps (or one map) each with a `kind`; `kind: List` is flattened.
pub(super) fn read_objects(r: &mut Reader, v: &Value, field: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for (path, item) in r.list(v, field) {
        let Some(m) = item.as_object() else {
            r.push(
                path,
                ScenarioErrorKind::WrongType {
                    expected: "a map (a Kubernetes object)",
                    got: read::type_name(item),
                },
            );
            continue;
        };
        match m.get("kind") {
            // `az aks nodepool show` and `aws eks describe-nodegroup` output has no kind.
            None if repel_core::pools::is_aks_pool(item)
                || repel_core::pools::is_eks_nodegroup(item) =>
            {
                out.push(item.clone());
            }
            None => r.push(join(&path, "kind"), ScenarioErrorKind::Required),
            Some(Value::String(k)) if k == "List" => {
                let items = m.get("items").cloned().unwrap_or(Value::Array(Vec::new()));
                out.extend(read_objects(r, &items, &join(&path, "items")));
            }
            Some(k) => {
                if r.string(k, &join(&path, "kind")).is_some() {
                    out.push(item.clone());
                }
            }
        }
    }
    out
}

/// `featureGates`: a map `{Name: bool}` or kube's `Name=bool,…` string, checked by
/// [`FeatureGates`]'s parser (unknown gates are refused with upstream's message).
pub(super) fn read_gates(r: &mut Reader, v: &Value) -> FeatureGates {
    let mut pairs = Vec::new();
    match v {
        Value::String(s) => {
            return s.parse().unwrap_or_else(|e| {
                r.push("featureGates", ScenarioErrorKind::Invalid(format!("{e}")));
                FeatureGates::default()
            });
        }
        Value::Object(m) => {
            for (name, value) in m {
                let field = join("featureGates", name);
                if let Some(b) = r.boolean(value, &field) {
                    match format!("{name}={b}").parse::<FeatureGates>() {
                        Ok(_) => pairs.push(format!("{name}={b}")),
                        Err(e) => r.push(field, ScenarioErrorKind::Invalid(format!("{e}"))),
                    }
                }
            }
        }
        other => r.push(
            "featureGates",
            ScenarioErrorKind::WrongType {
                expected: "a map of gate names to booleans",
                got: read::type_name(other),
            },
        ),
    }
    pairs.join(",").parse().unwrap_or_default()
}

/// The top-level controller flags.
pub(super) fn read_flags(r: &mut Reader, top: &Map<String, Value>) -> ControllerFlags {
    let mut f = ControllerFlags::default();
    let positive_rate = |r: &mut Reader, v: &Value, name: &str| {
        let n = r.number(v, name)?;
        if n < 0.0 {
            r.push(
                name,
                ScenarioErrorKind::Invalid("must not be negative".to_string()),
            );
            return None;
        }
        Some(n)
    };
    for name in CONTROLLER_FLAGS {
        let Some(v) = top.get(name) else { continue };
        match name {
            "defaultNotReadyTolerationSeconds" => {
                if let Some(n) = r.integer(v, name) {
                    f.default_not_ready_toleration_seconds = n;
                }
            }
            "defaultUnreachableTolerationSeconds" => {
                if let Some(n) = r.integer(v, name) {
                    f.default_unreachable_toleration_seconds = n;
                }
            }
            "nodeMonitorGracePeriod" => f.node_monitor_grace_period = r.time(v, name),
            "nodeEvictionRate" => f.node_eviction_rate = positive_rate(r, v, name),
            "secondaryNodeEvictionRate" => {
                f.secondary_node_eviction_rate = positive_rate(r, v, name)
            }
            "unhealthyZoneThreshold" => f.unhealthy_zone_threshold = positive_rate(r, v, name),
            "largeClusterSizeThreshold" => {
                f.large_cluster_size_threshold = r.count(v, name).map(|n| n as usize)
            }
            "enableAdmissionPlugins" => f.enable_admission_plugins = read_plugins(r, v, name),
            "disableAdmissionPlugins" => f.disable_admission_plugins = read_plugins(r, v, name),
            _ => {
                if let Some(n) = r.integer(v, name) {
                    if (0..=100).contains(&n) {
                        f.percentage_of_nodes_to_score = Some(n);
                    } else {
                        r.push(
                            name,
                            ScenarioErrorKind::Invalid("must be between 0 and 100".to_string()),
                        );
                    }
                }
            }
        }
    }
    check_plugins(r, &f);
    f
}

/// A list of admission plugin names, or kube-apiserver's comma-separated string.
fn read_plugins(r: &mut Reader, v: &Value, field: &str) -> Vec<String> {
    if let Value::String(s) = v {
        return s
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect();
    }
    let mut out = Vec::new();
    if let Value::Array(_) = v {
        for (path, item) in r.list(v, field) {
            if let Some(s) = r.string(item, &path) {
                out.push(s);
            }
        }
    } else {
        r.push(
            field,
            ScenarioErrorKind::WrongType {
                expected: "a list of admission plugin names",
                got: read::type_name(v),
            },
        );
    }
    out
}

/// The two plugin lists, checked as kube-apiserver checks its flags (repel-core's
/// [`AdmissionConfig::apply_plugin_flags`]).
fn check_plugins(r: &mut Reader, f: &ControllerFlags) {
    let result = AdmissionConfig::default()
        .apply_plugin_flags(&f.enable_admission_plugins, &f.disable_admission_plugins);
    if let Err(errors) = result {
        for e in errors.0 {
            let field = match e {
                PluginFlagError::UnknownDisabled(_) | PluginFlagError::AlwaysOn(_) => {
                    "disableAdmissionPlugins"
                }
                _ => "enableAdmissionPlugins",
            };
            r.push(field, ScenarioErrorKind::Invalid(e.to_string()));
        }
    }
}
