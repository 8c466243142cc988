//! Pod specs read once per template. The bound pods of one ReplicaSet, as a snapshot or
//! `kubectl get pods -o yaml` writes them, differ in their metadata, their status and their
//! `spec.nodeName`: their `spec:` blocks are the same text but for the `nodeName:` line. The
//! line scanner ([`super::scan`]) remembers, per reading thread, the text of the specs of the
//! last few pods that decoded cleanly ([`remember`]); a document whose `spec:` block is such a
//! text with another `nodeName:` line is not scanned again: its `spec` is read as a stub
//! holding only `nodeName` ([`Scanned::Known`]), and the reader's hook gives the pod the
//! remembered typed spec ([`crate::decode`]). A stub nobody took is put back whole before the
//! document leaves the thread ([`settle`]), so every reader still sees the value the text
//! spells.
//!
//! Equal text is equal value: a top-level `spec:` block's value is read from its own lines
//! alone in the scanner's subset (no anchors, aliases or tags, which it declines), and the
//! remembered text was read by the scanner whole.

use std::cell::RefCell;
use std::sync::Arc;

use k8s_openapi::api::core::v1::PodSpec;
use serde_json::{Map, Value};

use super::Counts;

/// How many spec texts each reading thread remembers: a ReplicaSet's pods come one after
/// another in a cluster's listing (sorted by name); a few interleave in a file written by hand.
const REMEMBERED: usize = 8;

/// A pod spec's text remembered with what it reads as.
#[derive(Debug)]
pub(crate) struct SpecText {
    /// The block's text before its `nodeName:` line, and after it.
    before: Box<str>,
    after: Box<str>,
    /// What scanning the block counts, its `nodeName:` line left out.
    counts: Counts,
    /// The spec's value without `nodeName`, and the place of `nodeName` among its keys.
    value: Map<String, Value>,
    at: usize,
    /// Its typed form, without `nodeName`.
    pub(crate) typed: Arc<PodSpec>,
}

/// What the scanner found of the `spec:` block of the document it read last.
#[derive(Debug)]
pub(crate) enum Scanned {
    /// A remembered spec with its own `nodeName`: the document's `spec` is a stub holding
    /// only `nodeName` until it is taken ([`Scanned::take_spec`]) or put back ([`settle`]).
    Known {
        /// The remembered spec.
        template: Arc<SpecText>,
        /// The document's `nodeName`.
        node_name: String,
    },
    /// A spec read whole, to remember if the document decodes cleanly as a pod.
    Read(Block),
}

/// A `spec:` block read whole: its text around its `nodeName:` line, and what it counted
/// without that line.
#[derive(Debug)]
pub(crate) struct Block {
    before: Box<str>,
    after: Box<str>,
    counts: Counts,
}

thread_local! {
    /// The spec texts this thread remembers, the latest first.
    static KNOWN: RefCell<Vec<Arc<SpecText>>> = const { RefCell::new(Vec::new()) };
    /// What the scanner found in the document it read last on this thread.
    static LAST: RefCell<Option<Scanned>> = const { RefCell::new(None) };
}

/// The remembered spec whose text is `before`, a `nodeName:` line, then `after`; moved first.
pub(super) fn known(before: &str, after: &str) -> Option<Arc<SpecText>> {
    KNOWN.with_borrow_mut(|known| {
        let at = known
            .iter()
            .position(|t| *t.before == *before && *t.after == *after)?;
        known[..=at].rotate_right(1);
        Some(Arc::clone(&known[0]))
    })
}

/// What a remembered spec counts without its `nodeName:` line.
pub(super) fn counts_of(t: &SpecText) -> Counts {
    t.counts
}

/// A block read whole ([`Scanned::Read`]): `counts` without its `nodeName:` line.
pub(super) fn block(before: &str, after: &str, counts: Counts) -> Block {
    Block {
        before: before.into(),
        after: after.into(),
        counts,
    }
}

/// Records what the scanner found in the document it is reading (`None`: nothing).
pub(super) fn found(scanned: Option<Scanned>) {
    LAST.with_borrow_mut(|last| *last = scanned);
}

/// Takes what the scanner found in the document it read last on this thread.
pub(crate) fn take() -> Option<Scanned> {
    LAST.with_borrow_mut(Option::take)
}

/// Puts back the spec of a document read with a stub ([`Scanned::Known`]) that its reader's
/// hook did not take: the document's value is then the one its text spells.
pub(super) fn settle(v: &mut Value) {
    if let Some(Scanned::Known {
        template,
        node_name,
    }) = take()
    {
        restore(v, &template, node_name);
    }
}

/// `v`'s stub spec replaced by the whole spec: the remembered value with `node_name` in its
/// place.
pub(crate) fn restore(v: &mut Value, template: &SpecText, node_name: String) {
    let mut spec = template.value.clone();
    spec.shift_insert(
        template.at,
        "nodeName".to_string(),
        Value::String(node_name),
    );
    if let Some(slot) = v.get_mut("spec") {
        *slot = Value::Object(spec);
    }
}

/// Remembers the spec of a pod that decoded cleanly (no unknown field, no error) from a
/// document whose `spec:` block was `block`: `value` is the document's spec value, `typed`
/// its typed form.
pub(crate) fn remember(block: Block, value: &Map<String, Value>, typed: &PodSpec) {
    let Some(at) = value.keys().position(|k| k == "nodeName") else {
        return;
    };
    let mut value = value.clone();
    value.shift_remove("nodeName");
    let mut typed = typed.clone();
    typed.node_name = None;
    let t = SpecText {
        before: block.before,
        after: block.after,
        counts: block.counts,
        value,
        at,
        typed: Arc::new(typed),
    };
    KNOWN.with_borrow_mut(|known| {
        known.truncate(REMEMBERED - 1);
        known.insert(0, Arc::new(t));
    });
}

/// How many spec texts this thread remembers (for the tests).
#[cfg(test)]
pub(crate) fn remembered() -> usize {
    KNOWN.with_borrow(Vec::len)
}
