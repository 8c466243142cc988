//! A fresh chain's resource-score entries per node and their summaries per node class
//! (upstream `plugins/noderesources` Filter and Score, v1.35, as the repeat path reads them).
//!
//! [`FreshSlots`] keeps per node its slot in a fresh chain's groups (or that it does not fit)
//! and per node class the best nodes ([`ClassTop`]), brought up to date from the nodes changed
//! since, so that a chain starting with its first pod reads each node class's summary instead
//! of every node ([`fresh_tops`]).

use super::*;

/// Per node, for pods needing `need` ([`PodClass::need`]) and no extended resource: its list
/// in a fresh chain's groups (`node class * WIDTH + score`, see [`Buckets`]), [`NO_FIT`] when
/// it does not fit, [`UNKNOWN_SLOT`] when not known yet; and per node class a summary of its
/// nodes' entries ([`ClassTop`]: how many fit, the best score, the nodes that have it), brought
/// up to date from the nodes changed since, when next read. A fresh chain then reads each
/// allowed node class's summary instead of every allowed node's entry: tens of thousands of
/// chains on thousands of nodes.
#[derive(Default)]
pub(in crate::scheduler::fast) struct FreshSlots {
    need: Option<[i64; 3]>,
    pub(in crate::scheduler::fast) slots: Vec<u32>,
    classes: Vec<ClassTop>,
    /// Per node: its place in its class's `top` (`NOT_TOP`: not there).
    top_at: Vec<u32>,
}

/// Not in a [`ClassTop::top`].
const NOT_TOP: u32 = u32::MAX;

/// The summary of a node class's entries in [`FreshSlots::slots`]. When `known`, every node of
/// the class has its entry but those in `changed`, and `fit`, `best` and `top` are theirs with
/// the entries of those as `changed` holds them; else nothing here is read.
#[derive(Default, Clone)]
struct ClassTop {
    known: bool,
    /// How many of its nodes fit.
    fit: u32,
    /// The best score among them (-1: none fits).
    best: i64,
    /// The nodes that fit with score `best`, in no order.
    top: Vec<NodeId>,
    /// Nodes changed since the summary was brought up to date, with their entries then (their
    /// entries now are unknown).
    changed: Vec<(NodeId, u32)>,
}

/// A node's entry in [`FreshSlots::slots`] for a pod needing `need` (no extended resource),
/// with its resource score for `key` from `score` (computed there when unknown).
fn slot_of(
    need: [i64; 3],
    free: &Free,
    res: &NodeRes,
    class: u32,
    key: &ScoreKey,
    score: &mut i64,
) -> u32 {
    let [cpu, mem, eph] = need;
    if !(free.pods >= 1 && cpu <= free.cpu && mem <= free.mem && eph <= free.eph) {
        return NO_FIT;
    }
    if *score == UNKNOWN {
        *score = resource_scores(res, key);
    }
    (class as usize * WIDTH + (*score).clamp(0, RESOURCE_MAX) as usize) as u32
}

impl ClassTop {
    /// Counts `node` with entry `slot` (nothing when it does not fit): it joins `top` when its
    /// score is the best, alone when above it.
    pub(super) fn add(&mut self, top_at: &mut [u32], node: NodeId, slot: u32) {
        if slot == NO_FIT {
            return;
        }
        self.fit += 1;
        let s = (slot as usize % WIDTH) as i64;
        if s > self.best {
            self.clear_top(top_at);
            self.best = s;
        }
        if s == self.best {
            top_at[node] = self.top.len() as u32;
            self.top.push(node);
        }
    }

    /// Empties `top`.
    fn clear_top(&mut self, top_at: &mut [u32]) {
        for &n in &self.top {
            top_at[n] = NOT_TOP;
        }
        self.top.clear();
    }

    /// A node's entry went from `old` to `new`. False when the summary cannot follow (the
    /// nodes with the best score are gone, and the next best is not known).
    fn moved(&mut self, top_at: &mut [u32], node: NodeId, old: u32, new: u32) -> bool {
        if old != NO_FIT && old != UNKNOWN_SLOT {
            self.fit -= 1;
            let at = top_at[node];
            if at != NOT_TOP {
                self.top.swap_remove(at as usize);
                if let Some(&other) = self.top.get(at as usize) {
                    top_at[other] = at;
                }
                top_at[node] = NOT_TOP;
            }
        }
        // (With the best nodes gone, the best stays theirs: a score equal to it is still the
        // best, a lower one cannot be told from the others' and the class is read again below.)
        self.add(top_at, node, new);
        if self.top.is_empty() {
            if self.fit > 0 {
                return false;
            }
            self.best = -1;
        }
        true
    }
}

impl FreshSlots {
    /// Forgets every entry.
    pub(in crate::scheduler::fast) fn forget_all(&mut self) {
        self.need = None;
        self.slots.clear();
        self.classes.clear();
        self.top_at.clear();
    }

    /// Entries for pods needing `need`, on `nodes` nodes in `classes` node classes: kept when
    /// they are for these, else all unknown.
    fn prepare(&mut self, need: [i64; 3], nodes: usize, classes: usize) {
        if self.need == Some(need) && self.slots.len() == nodes && self.classes.len() == classes {
            return;
        }
        self.need = Some(need);
        self.slots.clear();
        self.slots.resize(nodes, UNKNOWN_SLOT);
        self.top_at.clear();
        self.top_at.resize(nodes, NOT_TOP);
        self.classes.clear();
        self.classes.resize(classes, ClassTop::default());
    }

    /// Node class `class`'s summary is no longer kept.
    fn drop_class(&mut self, class: usize) {
        if let Some(t) = self.classes.get_mut(class) {
            t.clear_top(&mut self.top_at);
            t.changed.clear();
            t.known = false;
        }
    }

    /// Node `node` (of node class `class`) changed: its entry is unknown; where its class's
    /// summary is kept, the node is read again when the summary is next read.
    pub(in crate::scheduler::fast) fn changed(&mut self, node: NodeId, class: u32) {
        let Some(slot) = self.slots.get_mut(node) else {
            return;
        };
        let old = std::mem::replace(slot, UNKNOWN_SLOT);
        if old != UNKNOWN_SLOT
            && let Some(t) = self.classes.get_mut(class as usize)
            && t.known
        {
            t.changed.push((node, old));
        }
    }

    /// Node `node` (of node class `class`) changed back to what it was before entries were
    /// last brought up to date: its entry is unknown, and so is its class's summary.
    pub(in crate::scheduler::fast) fn forget(&mut self, node: NodeId, class: u32) {
        if let Some(s) = self.slots.get_mut(node) {
            *s = UNKNOWN_SLOT;
            self.drop_class(class as usize);
        }
    }

    /// Node class `class`'s summary, brought up to date from its changed nodes, or read from
    /// its nodes `nodes` if not kept (`slot`: a node's entry now, for those not known).
    fn ensure(
        &mut self,
        class: usize,
        nodes: &[NodeId],
        mut slot: impl FnMut(NodeId) -> u32,
    ) -> Option<&ClassTop> {
        let t = self.classes.get_mut(class)?;
        if t.known {
            let mut changed = std::mem::take(&mut t.changed);
            for &(n, old) in &changed {
                let new = slot(n);
                self.slots[n] = new;
                if !self.classes[class].moved(&mut self.top_at, n, old, new) {
                    self.drop_class(class);
                    break;
                }
            }
            changed.clear();
            // (Kept for its buffer unless the class was dropped, which left it empty.)
            let t = &mut self.classes[class];
            if t.known {
                t.changed = changed;
            }
        }
        if !self.classes[class].known {
            let mut t = std::mem::take(&mut self.classes[class]);
            t.fit = 0;
            t.best = -1;
            t.top.clear();
            t.changed.clear();
            for &n in nodes {
                let mut l = *self.slots.get(n)?;
                if l == UNKNOWN_SLOT {
                    l = slot(n);
                    self.slots[n] = l;
                }
                t.add(&mut self.top_at, n, l);
            }
            t.known = true;
            self.classes[class] = t;
        }
        self.classes.get(class)
    }
}

/// Brings `run.caches[cache]`'s fresh-chain entries ([`FreshSlots`]) for `class`'s request up
/// to date on the node classes `class_ok` allows, calling `visit` with each node class, its
/// feasible nodes' count and best score, and the nodes that have it.
pub(super) fn fresh_tops(
    run: &mut Run,
    class: &PodClass,
    cache: usize,
    class_ok: &[bool],
    mut visit: impl FnMut(usize, u32, i64, &[NodeId]),
) {
    let (n_all, nc) = (run.node_class.len(), run.reps.len());
    let Run {
        caches,
        free,
        res,
        class_nodes,
        ..
    } = run;
    let ScoreCache { fresh, scores, .. } = &mut caches[cache];
    fresh.prepare(class.need, n_all, nc);
    let key = class.score_key;
    for (c, nodes) in class_nodes.iter().enumerate() {
        if class_ok.get(c) != Some(&true) {
            continue;
        }
        let top = fresh.ensure(c, nodes, |n| {
            slot_of(
                class.need,
                &free[n],
                &res[n],
                c as u32,
                &key,
                &mut scores[n],
            )
        });
        if let Some(t) = top {
            visit(c, t.fit, t.best, &t.top);
        }
    }
}

#[cfg(test)]
mod fresh_slots_tests {
    use super::*;
    use proptest::prelude::*;

    /// The summary of class `c` read afresh from `slots`: (fit, best, sorted top).
    fn read(slots: &[u32], nodes: &[NodeId]) -> (u32, i64, Vec<NodeId>) {
        let fitting: Vec<(NodeId, i64)> = nodes
            .iter()
            .filter(|&&n| slots[n] != NO_FIT)
            .map(|&n| (n, (slots[n] as usize % WIDTH) as i64))
            .collect();
        let best = fitting.iter().map(|f| f.1).max().unwrap_or(-1);
        let top = fitting
            .iter()
            .filter(|f| f.1 == best)
            .map(|f| f.0)
            .collect();
        (fitting.len() as u32, best, top)
    }

    proptest! {
        /// Whatever nodes change between reads (and whether a what-if's end forgets them),
        /// a class's summary brought up to date is the one read afresh from its nodes.
        #[test]
        fn summaries_kept_up_to_date_equal_summaries_read_afresh(
            classes_of in proptest::collection::vec(0u32..3, 1..24),
            steps in proptest::collection::vec(
                (0usize..24, proptest::option::of(0i64..6), any::<bool>(), 0usize..3),
                1..80,
            ),
        ) {
            let n = classes_of.len();
            let nc = 3;
            let mut class_nodes = vec![Vec::new(); nc];
            for (node, &c) in classes_of.iter().enumerate() {
                class_nodes[c as usize].push(node);
            }
            // Each node's entry now: its score, or None when it does not fit (few scores, so
            // that ties and emptied tops are common).
            let mut now: Vec<Option<i64>> = (0..n).map(|i| Some((i % 4) as i64)).collect();
            let entry = |now: &[Option<i64>], node: NodeId| match now[node] {
                Some(s) => classes_of[node] * WIDTH as u32 + s as u32,
                None => NO_FIT,
            };
            let mut f = FreshSlots::default();
            f.prepare([1, 1, 1], n, nc);
            for (node, score, forget, read_class) in steps {
                let node = node % n;
                now[node] = score;
                if forget {
                    f.forget(node, classes_of[node]);
                } else {
                    f.changed(node, classes_of[node]);
                }
                let got = f
                    .ensure(read_class, &class_nodes[read_class], |m| entry(&now, m))
                    .map(|t| {
                        let mut top = t.top.clone();
                        top.sort_unstable();
                        (t.fit, t.best, top)
                    });
                let truth: Vec<u32> = (0..n).map(|m| entry(&now, m)).collect();
                prop_assert_eq!(got, Some(read(&truth, &class_nodes[read_class])));
                for &m in &class_nodes[read_class] {
                    prop_assert_eq!(f.slots[m], truth[m]);
                    prop_assert_eq!(f.top_at[m] != NOT_TOP, f.classes[read_class].top.contains(&m));
                }
            }
        }
    }
}
