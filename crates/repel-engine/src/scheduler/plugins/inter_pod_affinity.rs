//! InterPodAffinity (upstream v1.35). (Being written.)

use crate::scheduler::framework::Plugin;

/// The plugin's name.
pub const NAME: &str = "InterPodAffinity";
/// Its weight in the default profile.
pub const WEIGHT: i64 = 2;

/// The InterPodAffinity plugin.
#[derive(Debug, Default)]
pub struct InterPodAffinity;

impl Plugin for InterPodAffinity {
    fn name(&self) -> &'static str {
        NAME
    }
}
