//! PodTopologySpread (upstream v1.35). (Being written.)

use repel_core::FeatureGates;

use crate::scheduler::framework::Plugin;

/// The plugin's name.
pub const NAME: &str = "PodTopologySpread";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 2;

/// The PodTopologySpread plugin.
#[derive(Debug, Default)]
pub struct PodTopologySpread {
    /// Feature gates (taint matching for `nodeTaintsPolicy: Honor`).
    pub gates: FeatureGates,
}

impl Plugin for PodTopologySpread {
    fn name(&self) -> &'static str {
        NAME
    }
}
