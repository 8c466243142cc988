//! Top-level fields: inline objects, feature gates, controller flags.

use repel_core::FeatureGates;
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
    f
}
