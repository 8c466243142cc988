//! Zones and their disruption states: upstream `GetZoneKey` (`k8s.io/component-helpers/node/topology`)
//! and `ComputeZoneState` (`node_lifecycle_controller.go`), v1.35.

use std::collections::BTreeMap;

/// Nodes with this label are left out of the zone states (`labelNodeDisruptionExclusion`).
pub const LABEL_NODE_DISRUPTION_EXCLUSION: &str = "node.kubernetes.io/exclude-disruption";
const ZONE_BETA: &str = "failure-domain.beta.kubernetes.io/zone";
const ZONE: &str = "topology.kubernetes.io/zone";
const REGION_BETA: &str = "failure-domain.beta.kubernetes.io/region";
const REGION: &str = "topology.kubernetes.io/region";

/// A zone's state (upstream `ZoneState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZoneState {
    /// Seen, not yet evaluated.
    Initial,
    /// Evictions at `--node-eviction-rate`.
    Normal,
    /// Too many nodes not Ready: evictions at the secondary rate (large zones) or none.
    PartialDisruption,
    /// No node Ready.
    FullDisruption,
}

impl ZoneState {
    /// Upstream's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ZoneState::Initial => "Initial",
            ZoneState::Normal => "Normal",
            ZoneState::PartialDisruption => "PartialDisruption",
            ZoneState::FullDisruption => "FullDisruption",
        }
    }
}

/// Upstream `GetZoneKey` (v1.35):
/// 1. the zone is `failure-domain.beta.kubernetes.io/zone` if present, else
///    `topology.kubernetes.io/zone`; the region likewise with the `region` labels;
/// 2. both empty: `""`;
/// 3. otherwise `region + ":\x00:" + zone`.
pub fn zone_key(labels: &BTreeMap<String, String>) -> String {
    let get = |beta: &str, ga: &str| {
        labels
            .get(beta)
            .or_else(|| labels.get(ga))
            .cloned()
            .unwrap_or_default()
    };
    let zone = get(ZONE_BETA, ZONE);
    let region = get(REGION_BETA, REGION);
    if region.is_empty() && zone.is_empty() {
        return String::new();
    }
    format!("{region}:\x00:{zone}")
}

/// Upstream `isNodeExcludedFromDisruptionChecks`: the exclusion label is present (any value).
pub fn is_excluded_from_disruption(labels: &BTreeMap<String, String>) -> bool {
    labels.contains_key(LABEL_NODE_DISRUPTION_EXCLUSION)
}

/// Upstream `ComputeZoneState` (v1.35) over a zone's `Ready` statuses (`None`: no condition),
/// returning the number of not-Ready nodes and the state:
/// 1. a node is Ready only with status `True`;
/// 2. no Ready node and at least one not Ready: FullDisruption;
/// 3. more than 2 not Ready and not-Ready / all `>= threshold` (in `float32`, as upstream):
///    PartialDisruption;
/// 4. otherwise Normal.
pub fn compute_zone_state(ready: &[Option<&str>], threshold: f64) -> (usize, ZoneState) {
    let ready_nodes = ready.iter().filter(|s| **s == Some("True")).count();
    let not_ready = ready.len() - ready_nodes;
    let state = if ready_nodes == 0 && not_ready > 0 {
        ZoneState::FullDisruption
    } else if not_ready > 2 && (not_ready as f32) / (ready.len() as f32) >= threshold as f32 {
        ZoneState::PartialDisruption
    } else {
        ZoneState::Normal
    };
    (not_ready, state)
}

#[cfg(test)]
mod tests;
