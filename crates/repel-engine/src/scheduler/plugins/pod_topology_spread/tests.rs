//! PodTopologySpread's tests: upstream `filtering_test.go` and `scoring_test.go` (v1.35), ported
//! one upstream test function per file, and the plugin inside the default profile.

use super::*;

mod filter;
mod fixtures;
mod in_scheduler;
mod pre_filter;
mod score;
