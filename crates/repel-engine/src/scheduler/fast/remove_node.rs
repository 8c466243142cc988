//! A node removed from the cluster under a compiled state: the state follows in
//! place instead of being built again.
//!
//! [`Cluster::delete_node`] removes a node and moves the ids of the nodes after it down by
//! one. Building the compiled state again would count every bound pod again
//! (`Selectors::of_bound_pods`: a label class and every selector per pod). Instead
//! [`Run::remove_node`]:
//!
//! 1. takes the node out of every spread selector's counts (its matching pods with it) and
//!    out of every label class's nodes, the ids after it moved down by one;
//! 2. numbers the node classes as a build does (by their first node, in node order; a class
//!    whose only node went is gone, and a cordoned representative gives way as
//!    [`super::first_fit::FirstFit::cordon`] has it), each selector's counts per class
//!    following, and each topology key's values likewise (by first node);
//! 3. reads every node's resource figures again (a few numbers per node), and starts afresh
//!    what is cheap to derive again on first use and refers to node ids or node classes: the
//!    compiled pod classes and their per-class tables, the resource-score caches and their
//!    change log, the repeat path's chain and buckets, a what-if's entries and saved figures.
//!
//! What stays is what a build would compute the same from the same cluster: the selectors'
//! and label classes' counts (the cluster's binds and unbinds were all told to
//! [`Selectors::moved`]), the node classes (a node's class does not change when another
//! node goes), the topology keys' values, the pods' label and class keys, the specs' memos.
//! A test compares the state after each of a sequence of removals with one built anew.

use super::{Domains, LabelClass, Run, Sel, Selectors};
use crate::cluster::{Cluster, NodeId};

/// A node class, or a topology value, that no node has any more.
const GONE: u32 = u32::MAX;

impl Run {
    /// Node `node` was removed from the cluster (`cluster`, as [`Cluster::delete_node`] left
    /// it): the state follows (see the module documentation). A state that was not of the
    /// cluster with that node is built again.
    pub(super) fn remove_node(&mut self, cluster: &Cluster, node: NodeId) {
        let before = self.node_class.len();
        if node >= before || cluster.nodes.len() + 1 != before {
            let keys = std::mem::take(&mut self.sel.lc_keys);
            let class_keys = std::mem::take(&mut self.class_keys);
            *self = Run::with_label_keys(cluster, keys);
            self.class_keys = class_keys;
            return;
        }
        let old_class = self.node_class.remove(node);
        if !self.cordoned.is_empty() && node < self.cordoned.len() {
            self.cordoned.remove(node);
        }
        let (map, reps) = renumber(&mut self.node_class, self.reps.len(), &self.cordoned);
        let mut sel = std::mem::take(&mut self.sel);
        sel.remove_node(node, old_class, &map, &self.node_class);
        for d in &mut self.domains {
            d.remove_node(node);
        }
        let fresh = Run::from_parts(cluster, std::mem::take(&mut self.node_class), reps, sel);
        let kept = std::mem::replace(self, fresh);
        self.domains = kept.domains;
        self.domain_index = kept.domain_index;
        self.specs = kept.specs;
        self.class_keys = kept.class_keys;
        self.cordoned = kept.cordoned;
    }
}

/// Numbers the node classes of `node_class` (of `classes` classes before) by first node, as
/// a build does, in place: the old class to the new ([`GONE`]: no node left) and each new
/// class's representative (its first node, else — when that one is `cordoned` — its first
/// node that is not, as [`super::first_fit::FirstFit::cordon`] chooses).
fn renumber(node_class: &mut [u32], classes: usize, cordoned: &[bool]) -> (Vec<u32>, Vec<NodeId>) {
    let mut map = vec![GONE; classes];
    let mut reps = Vec::new();
    for (n, c) in node_class.iter_mut().enumerate() {
        let Some(m) = map.get_mut(*c as usize) else {
            continue;
        };
        if *m == GONE {
            *m = reps.len() as u32;
            reps.push(n);
        }
        *c = *m;
    }
    if cordoned.iter().any(|c| *c) {
        for (c, rep) in reps.iter_mut().enumerate() {
            if cordoned.get(*rep) == Some(&true)
                && let Some(other) = (*rep + 1..node_class.len())
                    .find(|&m| node_class[m] as usize == c && cordoned.get(m) != Some(&true))
            {
                *rep = other;
            }
        }
    }
    (map, reps)
}

impl Selectors {
    /// Node `node`, of node class `class`, was removed: see [`Run::remove_node`]; `map` takes
    /// the old node classes to the new, `node_class` is the new class of each node.
    fn remove_node(&mut self, node: NodeId, class: u32, map: &[u32], node_class: &[u32]) {
        // Usually every class keeps its number: the counts per class stay as they are.
        let same = map.iter().enumerate().all(|(c, &m)| m as usize == c);
        let map = (!same).then_some(map);
        for s in &mut self.sels {
            s.remove_node(node, class, map);
        }
        for lc in &mut self.lcs {
            lc.remove_node(node);
        }
        self.node_class.clear();
        self.node_class.extend_from_slice(node_class);
        self.journal = None;
    }
}

impl Sel {
    /// Node `node`, of node class `class`, was removed (with its matching pods); `map`
    /// takes the old node classes to the new (`None`: each keeps its number). The nodes'
    /// index is built again when next needed ([`Sel::fresh_slots`]): most selectors are not
    /// read by node before the next removal.
    fn remove_node(&mut self, node: NodeId, class: u32, map: Option<&[u32]>) {
        let mut gone = 0;
        let mut moved = false;
        self.nonzero.retain_mut(|(n, k)| {
            if *n == node {
                gone = *k;
                moved = true;
                return false;
            }
            if *n > node {
                *n -= 1;
                moved = true;
            }
            true
        });
        if gone > 0 {
            self.add_to_class(class, -i64::from(gone));
        }
        if moved {
            self.stale = true;
        }
        if node < self.dense.len() {
            self.dense.remove(node);
        }
        if let Some(map) = map {
            self.by_class = renumbered(&self.by_class, map);
        }
    }

    /// Builds the nodes' index again after node ids moved.
    pub(super) fn fresh_slots(&mut self) {
        self.slot.clear();
        for (i, (n, _)) in self.nonzero.iter().enumerate() {
            self.slot.insert(*n, i);
        }
        self.stale = false;
    }
}

/// Counts per node class `by_class` (of the old classes) by new class, `map` taking the old
/// to the new; a class gone had nothing left.
fn renumbered(by_class: &[i64], map: &[u32]) -> Vec<i64> {
    let len = by_class
        .iter()
        .zip(map)
        .filter(|(k, m)| **k != 0 && **m != GONE)
        .map(|(_, m)| *m as usize + 1)
        .max()
        .unwrap_or(0);
    let mut out = vec![0; len];
    for (&k, &m) in by_class.iter().zip(map) {
        if let Some(slot) = out.get_mut(m as usize)
            && k != 0
        {
            *slot = k;
        }
    }
    out
}

impl LabelClass {
    /// Node `node` was removed (its pods counted here with it). The nodes' index is built
    /// again when next needed ([`LabelClass::fresh_slots`]).
    fn remove_node(&mut self, node: NodeId) {
        let mut moved = false;
        self.nodes.retain_mut(|(n, _)| {
            if *n == node {
                moved = true;
                return false;
            }
            if *n > node {
                *n -= 1;
                moved = true;
            }
            true
        });
        if moved {
            self.stale = true;
        }
    }

    /// Builds the nodes' index again after node ids moved.
    pub(super) fn fresh_slots(&mut self) {
        self.slot.clear();
        for (i, (n, _)) in self.nodes.iter().enumerate() {
            self.slot.insert(*n, i);
        }
        self.stale = false;
    }
}

impl Domains {
    /// Node `node` was removed: its value goes with it when no other node has it, and the
    /// values are numbered by first node again, as a build numbers them.
    fn remove_node(&mut self, node: NodeId) {
        if node >= self.of_node.len() {
            return;
        }
        self.of_node.remove(node);
        self.has.remove(node);
        let mut map = vec![GONE; self.count];
        let mut next = 0u32;
        for v in &mut self.of_node {
            if let Some(m) = map.get_mut(*v as usize) {
                if *m == GONE {
                    *m = next;
                    next += 1;
                }
                *v = *m;
            }
        }
        self.count = next as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::super::first_fit::FirstFit;
    use super::super::*;
    use crate::generate::{GenerateOptions, generate};
    use crate::load::build_cluster;
    use k8s_openapi::api::core::v1::Pod;
    use repel_core::admission::AdmissionConfig;
    use serde_json::{Value, json};

    const ZONE: &str = "topology.kubernetes.io/zone";

    /// A pending pod of app `app` (labels `app`, `team`, `tier`) requesting 100m / 128Mi,
    /// changed by `f` (its spec, as JSON).
    fn pod(name: &str, app: &str, f: impl FnOnce(&mut Value)) -> Pod {
        let mut spec = json!({
            "containers": [{"name": "c", "image": "i", "resources": {
                "requests": {"cpu": "100m", "memory": "128Mi"}}}],
            "tolerations": [{"operator": "Exists"}]
        });
        f(&mut spec);
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "default",
                         "labels": {"app": app, "team": format!("t-{app}"), "tier": "web"}},
            "spec": spec
        }))
        .unwrap_or_default()
    }

    fn spread(key: &str, when: &str, app: &str) -> Value {
        json!({"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when,
               "labelSelector": {"matchLabels": {"app": app}}})
    }

    /// A generated cluster with pods of every kind the compiled state counts added (hard and
    /// soft spread on the hostname and the zone, a selector on another label key, host ports,
    /// and with `anti` required pod anti-affinity), scheduled but for a few pending ones
    /// (returned, with a pod that fits nowhere).
    fn cluster(seed: u64, anti: bool) -> (Cluster, Vec<PodId>) {
        let g = generate(&GenerateOptions {
            nodes: 24,
            pods: 420,
            seed,
            taints_per_node: 0,
        });
        let gates = FeatureGates::default();
        let mut c = build_cluster(g.input(), &gates, &AdmissionConfig::default(), seed).cluster;
        for i in 0..10 {
            c.add_pod(pod(&format!("host-{i}"), "host", |s| {
                s["topologySpreadConstraints"] =
                    json!([spread(LABEL_HOSTNAME, DO_NOT_SCHEDULE, "host")]);
            }));
            c.add_pod(pod(&format!("zone-{i}"), "zone", |s| {
                s["topologySpreadConstraints"] = json!([
                    spread(ZONE, DO_NOT_SCHEDULE, "zone"),
                    spread(LABEL_HOSTNAME, SCHEDULE_ANYWAY, "zone"),
                ]);
            }));
            c.add_pod(pod(&format!("team-{i}"), "team", |s| {
                s["topologySpreadConstraints"] = json!([{"maxSkew": 2, "topologyKey": ZONE,
                    "whenUnsatisfiable": SCHEDULE_ANYWAY,
                    "labelSelector": {"matchExpressions": [
                        {"key": "team", "operator": "In", "values": ["t-team", "t-host"]}]}}]);
            }));
            c.add_pod(pod(&format!("ports-{i}"), "ports", |s| {
                s["containers"][0]["ports"] = json!([{"containerPort": 80, "hostPort": 8080}]);
            }));
            if anti {
                c.add_pod(pod(&format!("anti-{i}"), "anti", |s| {
                    s["affinity"] = json!({"podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [{
                            "topologyKey": LABEL_HOSTNAME,
                            "labelSelector": {"matchLabels": {"app": "anti"}}}]}});
                }));
            }
        }
        let mut queue = c.pending();
        Scheduler::queue_order(&c, &mut queue);
        // The last of each kind stays pending, to be asked about.
        let mut probes: Vec<PodId> = Vec::new();
        for id in queue.iter().rev() {
            let app = c.pods[*id].labels().get("app").cloned();
            if probes.len() < 12
                && !probes
                    .iter()
                    .any(|p| c.pods[*p].labels().get("app") == app.as_ref())
            {
                probes.push(*id);
            }
        }
        queue.retain(|p| !probes.contains(p));
        FastScheduler::new(gates, Some(100), seed).schedule_pods(&mut c, &queue);
        probes.push(c.add_pod(pod("huge", "huge", |s| {
            s["containers"][0]["resources"]["requests"]["cpu"] = json!("1000");
        })));
        (c, probes)
    }

    /// What compiled state `run` holds, in terms that do not depend on the order it learnt
    /// it in: node classes, figures and topology values per node, and each selector's and
    /// label class's counts — every topology key and selector of `run` or `other` (those
    /// `run` lacks counted now, as a build counts them).
    fn describe(run: &mut Run, other: &mut Run, cluster: &Cluster) -> String {
        use std::fmt::Write;
        let mut keys: Vec<String> = run.domain_index.keys().cloned().collect();
        keys.extend(other.domain_index.keys().cloned());
        keys.sort();
        keys.dedup();
        let sels: BTreeMap<String, (String, LabelSelector)> = run
            .sel
            .sel_defs
            .iter()
            .chain(&other.sel.sel_defs)
            .map(|d| (format!("{d:?}"), d.clone()))
            .collect();
        let mut out = String::new();
        let _ = writeln!(out, "classes {:?} reps {:?}", run.node_class, run.reps);
        for (n, (r, f)) in run.res.iter().zip(&run.free).enumerate() {
            let _ = writeln!(out, "node {n} {r:?} {f:?}");
        }
        for key in &keys {
            let d = run.domains(cluster, key);
            let d = &run.domains[d];
            let _ = writeln!(out, "{key} {:?} {:?} {}", d.of_node, d.has, d.count);
        }
        let name = |s: &Selectors, i: u32| format!("{:?}", s.sel_defs[i as usize]);
        for (ns, def) in sels.values() {
            let key = selector_key(ns, def);
            let s = run
                .sel
                .selector(cluster, ns, key, std::borrow::Cow::Borrowed(def))
                as usize;
            let sel = &run.sel.sels[s];
            let per_node: Vec<u32> = (0..run.node_class.len()).map(|n| sel.count(n)).collect();
            let per_class: Vec<i64> = (0..run.reps.len()).map(|c| sel.class_count(c)).collect();
            let _ = writeln!(out, "{ns} {def:?} {per_node:?} {per_class:?}");
        }
        let mut lcs: Vec<String> = run
            .sel
            .lc_index
            .iter()
            .filter_map(|(key, &lc)| {
                let c = &run.sel.lcs[lc as usize];
                let mut nodes: Vec<(NodeId, u32)> =
                    c.nodes.iter().copied().filter(|(_, k)| *k > 0).collect();
                nodes.sort_unstable();
                for &(n, k) in nodes.iter().filter(|_| !c.stale) {
                    if c.slot.get(&n).map(|&i| c.nodes[i]) != Some((n, k)) {
                        return Some(format!("{key} slot of {n} wrong"));
                    }
                }
                let mut sels: Vec<String> = c.sels.iter().map(|&s| name(&run.sel, s)).collect();
                sels.sort();
                (!nodes.is_empty()).then(|| format!("{key} {nodes:?} {sels:?}"))
            })
            .collect();
        lcs.sort();
        out.extend(lcs.into_iter().map(|l| l + "\n"));
        out
    }

    /// The answers the what-ifs ask for, of every probe from several starts.
    fn answers(ff: &mut FirstFit, c: &mut Cluster, probes: &[PodId]) -> Vec<String> {
        let mut out = Vec::new();
        let n = c.nodes.len();
        for &p in probes {
            for start in [0, n / 3, n - 1] {
                let skip = |m: NodeId| m == start;
                out.push(format!(
                    "first fit {p} {start} {:?}",
                    ff.first_fit(c, p, start, skip)
                ));
            }
            let ghost = c.nodes[n / 2].clone();
            out.push(format!(
                "fit error {p} {:?}",
                ff.fit_error(c, p, n / 2, &ghost)
            ));
            out.push(format!("place {p} {:?}", ff.place(c, p, 1)));
        }
        out
    }

    /// Nodes removed one by one (the first, the last, one in the middle, the second; some
    /// of their pods taken off first, the others still bound when it goes, and bound
    /// elsewhere after): the state followed in place holds what a state built anew on the
    /// cluster holds, and answers first fits, FitErrors and placements as it does.
    #[test]
    fn a_removed_node_leaves_the_state_a_build_would_make() {
        let gates = FeatureGates::default();
        for (seed, anti) in [(3, false), (4, true)] {
            let (mut c, probes) = cluster(seed, anti);
            let mut ff = FirstFit::new(gates, &c);
            let first = answers(&mut ff, &mut c, &probes);
            assert!(
                first.iter().filter(|a| a.contains("Some(Some(")).count() > 10 || anti,
                "seed {seed}: the compiled path answers: {first:?}"
            );
            let mut step = 0;
            while c.nodes.len() > 6 {
                step += 1;
                let n = c.nodes.len();
                let node = [0, n - 1, n / 2, 1][step % 4];
                // As a drain leaves it: some of its pods taken off first (and told), the
                // others still on it when it goes.
                let on: Vec<PodId> = c.nodes[node].pods.clone();
                for &p in on.iter().step_by(2) {
                    c.unbind(p);
                    ff.moved(&c, p, node, -1);
                }
                c.delete_node(node);
                ff.node_removed(gates, &c, node);
                // Pods taken off bound elsewhere, shifted ids read and written.
                for (i, &p) in on.iter().step_by(2).enumerate() {
                    let to = (node + i) % c.nodes.len();
                    c.bind(p, to);
                    ff.moved(&c, p, to, 1);
                }
                let mut built = FirstFit::new(gates, &c);
                let (a, b) = (ff.run_mut(), built.run_mut());
                let want = describe(b, a, &c);
                let got = describe(a, b, &c);
                assert_eq!(got, want, "seed {seed} step {step}: node {node} removed");
                let got = answers(&mut ff, &mut c, &probes);
                let want = answers(&mut built, &mut c, &probes);
                assert_eq!(got, want, "seed {seed} step {step}: node {node} removed");
            }
        }
    }
}
