//! NodeResourcesFit (upstream v1.35): requests against allocatable, LeastAllocated scoring.
//! (Being written.)

use crate::scheduler::framework::Plugin;

/// The plugin's name.
pub const NAME: &str = "NodeResourcesFit";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 1;

/// The NodeResourcesFit plugin.
#[derive(Debug, Default)]
pub struct NodeResourcesFit;

impl Plugin for NodeResourcesFit {
    fn name(&self) -> &'static str {
        NAME
    }
}
