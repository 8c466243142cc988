//! One module per rule, each with its [`Rule`](super::Rule), its check and its table test.
//!
//! # Layout
//! - [`never_matches`] — `toleration-never-matches`.
//! - [`legacy_master`] — `legacy-master-only`.
//! - [`wildcard`] — `wildcard-toleration`.
//! - [`without_targeting`] — `toleration-without-targeting`.
//! - [`targeting_without_toleration`] — `targeting-without-toleration`.

pub mod legacy_master;
pub mod never_matches;
pub mod targeting_without_toleration;
pub mod wildcard;
pub mod without_targeting;

use super::{Context, Finding, Rule};

/// A rule and its check.
#[derive(Clone, Copy)]
pub struct RuleImpl {
    /// Its identity and documentation.
    pub info: Rule,
    /// Its check: pushes the findings on the input.
    pub check: fn(&Context<'_>, &mut Vec<Finding>),
}

/// Every rule, in the order they run.
pub const RULES: &[RuleImpl] = &[
    never_matches::RULE,
    legacy_master::RULE,
    wildcard::RULE,
    without_targeting::RULE,
    targeting_without_toleration::RULE,
];

/// The rule `id`.
pub fn find(id: &str) -> Option<&'static RuleImpl> {
    RULES.iter().find(|r| r.info.id == id)
}
