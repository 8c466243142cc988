//! NodeResourcesBalancedAllocation (upstream v1.35). (Being written.)

use crate::scheduler::framework::Plugin;

/// The plugin's name.
pub const NAME: &str = "NodeResourcesBalancedAllocation";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 1;

/// The NodeResourcesBalancedAllocation plugin.
#[derive(Debug, Default)]
pub struct BalancedAllocation;

impl Plugin for BalancedAllocation {
    fn name(&self) -> &'static str {
        NAME
    }
}
