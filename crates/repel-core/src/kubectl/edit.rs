//! [`super::apply_taints`] as an edit of the node's list: which old taints stay and which
//! additions go first. A caller that owns the list (the simulation's cluster) applies it in
//! place, so a step on a node with thousands of taints copies only what it adds.

use k8s_openapi::api::core::v1::Taint;

use super::{ApplyTaintError, TaintOperation};
use crate::taint::{match_taint, taint_to_string};

/// What `kubectl taint` does to one node's taints: the result is [`TaintEdit::added`], then
/// the old taints [`TaintEdit::keep`] keeps, in their order.
#[derive(Debug, Clone, PartialEq)]
pub struct TaintEdit {
    /// The additions the result starts with (those no removal in the command dropped).
    pub added: Vec<Taint>,
    /// For each old taint, whether the result keeps it.
    pub keep: Vec<bool>,
    /// What kubectl reports for the node.
    pub operation: TaintOperation,
}

impl TaintEdit {
    /// The edited list, copied from `old` (the list the edit was planned on).
    pub fn applied_to(&self, old: &[Taint]) -> Vec<Taint> {
        self.added.iter().chain(self.kept(old)).cloned().collect()
    }

    /// Edits `list` (the list the edit was planned on) in place: the kept taints are moved, the
    /// additions copied in front of them.
    pub fn apply(&self, list: &mut Vec<Taint>) {
        let mut keep = self.keep.iter();
        list.retain(|_| keep.next().copied().unwrap_or(true));
        list.splice(0..0, self.added.iter().cloned());
    }

    /// Whether the edited list differs from `old` (an overwrite with the same values, or an
    /// empty command, leaves it as it was).
    pub fn changes(&self, old: &[Taint]) -> bool {
        let kept = self.keep.iter().filter(|k| **k).count();
        self.added.len() + kept != old.len() || !self.added.iter().chain(self.kept(old)).eq(old)
    }

    fn kept<'a>(&'a self, old: &'a [Taint]) -> impl Iterator<Item = &'a Taint> {
        old.iter()
            .zip(&self.keep)
            .filter_map(|(t, keep)| keep.then_some(t))
    }
}

/// [`super::apply_taints`]'s rules, planned on `old` without copying it.
pub fn plan_taints(
    node_name: &str,
    old: &[Taint],
    to_add: &[Taint],
    to_remove: &[Taint],
    overwrite: bool,
) -> Result<TaintEdit, ApplyTaintError> {
    if !overwrite {
        let keys: Vec<String> = to_add
            .iter()
            .flat_map(|a| {
                old.iter()
                    .filter(move |o| match_taint(a, o))
                    .map(|_| a.key.clone())
            })
            .collect();
        if !keys.is_empty() {
            return Err(ApplyTaintError::AlreadyExists {
                node: node_name.to_string(),
                keys,
            });
        }
    }
    // The list starts as the additions, then each old taint whose key and effect are not yet
    // in it. Upstream compares each old taint with the whole list built so far; a set of the
    // list's (key, effect) identities (what `match_taint` compares) gives the same list in one
    // pass.
    let mut in_list: std::collections::HashSet<(&str, &str), foldhash::fast::FixedState> =
        std::collections::HashSet::with_capacity_and_hasher(
            to_add.len() + old.len(),
            foldhash::fast::FixedState::default(),
        );
    in_list.extend(to_add.iter().map(|t| (t.key.as_str(), t.effect.as_str())));
    let mut add_kept = vec![true; to_add.len()];
    let mut keep: Vec<bool> = old
        .iter()
        .map(|o| in_list.insert((o.key.as_str(), o.effect.as_str())))
        .collect();
    let listed = to_add.len() + keep.iter().filter(|k| **k).count();
    let added = listed != old.len();
    // Each removal drops every listed taint of its key (and effect, when it names one).
    let mut not_found = Vec::new();
    let mut removed = false;
    for r in to_remove {
        removed = false;
        let listed = to_add
            .iter()
            .zip(add_kept.iter_mut())
            .chain(old.iter().zip(keep.iter_mut()));
        for (t, kept) in listed {
            if *kept && t.key == r.key && (r.effect.is_empty() || t.effect == r.effect) {
                *kept = false;
                removed = true;
            }
        }
        if !removed {
            not_found.push(taint_to_string(r));
        }
    }
    if !not_found.is_empty() {
        return Err(ApplyTaintError::NotFound { taints: not_found });
    }
    let operation = if overwrite || (added && removed) {
        TaintOperation::Modified
    } else if added {
        TaintOperation::Tainted
    } else {
        TaintOperation::Untainted
    };
    Ok(TaintEdit {
        added: to_add
            .iter()
            .zip(&add_kept)
            .filter(|(_, kept)| **kept)
            .map(|(t, _)| t.clone())
            .collect(),
        keep,
        operation,
    })
}
