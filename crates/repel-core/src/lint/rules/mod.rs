//! One module per rule, each with its [`Rule`](super::Rule), its check and its table test.
//!
//! # Layout
//! - [`never_matches`] — `toleration-never-matches`.
//! - [`legacy_master`] — `legacy-master-only`.
//! - [`wildcard`] — `wildcard-toleration`.
//! - [`without_targeting`] — `toleration-without-targeting`.
//! - [`targeting_without_toleration`] — `targeting-without-toleration`.
//! - [`daemonset_misses`] — `daemonset-misses-nodes`.
//! - [`noexecute_agent`] — `noexecute-not-tolerated-by-agent`.
//! - [`evict_loop`] — `evict-reschedule-loop`.
//! - [`noexecute_forever`] — `noexecute-forever`.
//! - [`condition_outside_ds`] — `condition-toleration-outside-daemonset`.
//! - [`validation`] — `toleration-seconds-without-noexecute`, `exists-with-value`,
//!   `invalid-toleration`.
//! - [`annotation`] — `annotation-tolerations`.
//! - [`pools`] — `stranded-taint`, `startup-taint-without-remover`, `pool-nodeclass-missing`.

pub mod annotation;
pub mod condition_outside_ds;
pub mod daemonset_misses;
pub mod evict_loop;
pub mod legacy_master;
pub mod never_matches;
pub mod noexecute_agent;
pub mod noexecute_forever;
pub mod pools;
pub mod targeting_without_toleration;
pub mod validation;
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
    daemonset_misses::RULE,
    noexecute_agent::RULE,
    evict_loop::RULE,
    noexecute_forever::RULE,
    condition_outside_ds::RULE,
    validation::SECONDS,
    validation::EXISTS_VALUE,
    validation::INVALID,
    annotation::RULE,
    pools::STRANDED,
    pools::STARTUP,
    pools::NODECLASS,
];

/// The rule `id`.
pub fn find(id: &str) -> Option<&'static RuleImpl> {
    RULES.iter().find(|r| r.info.id == id)
}
