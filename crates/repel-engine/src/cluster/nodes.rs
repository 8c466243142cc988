//! [`Cluster`]'s node writes: readiness, taints, labels, cordoning and deletion (what
//! upstream's node lifecycle and `kubectl taint`/`cordon` change on a node).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Taint;

use super::{Cluster, NodeId, PodId};
use crate::actions::Action;

impl Cluster {
    /// Whether a node's kubelet runs: its Ready condition is True, or it reports none (a
    /// hand-written node).
    pub fn node_ready(&self, node: NodeId) -> bool {
        let Some(n) = self.nodes.get(node) else {
            return false;
        };
        n.node
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
            .is_none_or(|c| c.status == "True")
    }

    /// Replaces a node's taints (`spec.taints`, and the [`NodeInfo::taints`] the plugins read).
    pub fn set_node_taints(&mut self, node: NodeId, taints: Vec<Taint>) {
        let Some(n) = self.nodes.get_mut(node) else {
            return;
        };
        std::sync::Arc::make_mut(&mut n.node)
            .spec
            .get_or_insert_with(Default::default)
            .taints = (!taints.is_empty()).then(|| taints.clone());
        n.taints = taints;
        self.touch_node(node);
    }

    /// Edits a node's taints in place (`kubectl taint`): the kept taints are moved, only the
    /// additions copied, in [`NodeInfo::taints`] and in `spec.taints` alike.
    pub fn edit_node_taints(&mut self, node: NodeId, edit: &repel_core::kubectl::TaintEdit) {
        let Some(n) = self.nodes.get_mut(node) else {
            return;
        };
        let spec = &mut std::sync::Arc::make_mut(&mut n.node)
            .spec
            .get_or_insert_with(Default::default)
            .taints;
        let same = spec.as_deref().unwrap_or_default() == n.taints.as_slice();
        edit.apply(&mut n.taints);
        if n.taints.is_empty() {
            *spec = None;
        } else if same {
            edit.apply(spec.get_or_insert_with(Vec::new));
        } else {
            *spec = Some(n.taints.clone());
        }
        self.touch_node(node);
    }

    /// Replaces a node's labels, keeping the label index current.
    pub fn set_node_labels(&mut self, node: NodeId, labels: BTreeMap<String, String>) {
        let Some(n) = self.nodes.get_mut(node) else {
            return;
        };
        for (k, v) in &n.labels {
            if let Some(ids) = self.label_index.get_mut(&(k.clone(), v.clone())) {
                ids.retain(|i| *i != node);
            }
        }
        for (k, v) in &labels {
            self.label_index
                .entry((k.clone(), v.clone()))
                .or_default()
                .push(node);
        }
        std::sync::Arc::make_mut(&mut n.node).metadata.labels =
            (!labels.is_empty()).then(|| labels.clone());
        n.labels = labels;
        self.touch_node(node);
    }

    /// Sets a node's `spec.unschedulable` (cordon/uncordon).
    pub fn set_unschedulable(&mut self, node: NodeId, unschedulable: bool) {
        let Some(n) = self.nodes.get_mut(node) else {
            return;
        };
        n.unschedulable = unschedulable;
        std::sync::Arc::make_mut(&mut n.node)
            .spec
            .get_or_insert_with(Default::default)
            .unschedulable = unschedulable.then_some(true);
        self.touch_node(node);
    }

    /// Deletes node `node` (`kubectl delete node`). The nodes after it move down one id, and
    /// every pod and index follows. Its pods are not deleted: they stay, unbound but still
    /// naming the node in `spec.nodeName`, until the pod garbage collector removes them
    /// ([`crate::controllers::pod_gc`]), as upstream. Returns those pods. Controllers that keep
    /// node ids must be told ([`crate::controllers::Controller::node_removed`]).
    pub fn delete_node(&mut self, node: NodeId) -> Vec<PodId> {
        self.delete_nodes(&[node])
    }

    /// Deletes nodes `gone` (ids of now) together, leaving the cluster as
    /// [`Cluster::delete_node`] of each in turn, in the order given, leaves it (each node's id
    /// in the call then is its id now less the nodes before it gone already): one pass over
    /// the pods and the indexes for all of them. Returns their pods left unbound, ids
    /// ascending.
    pub fn delete_nodes(&mut self, gone: &[NodeId]) -> Vec<PodId> {
        let before = self.nodes.len();
        let mut new: Vec<Option<NodeId>> = (0..before).map(Some).collect();
        let mut order: Vec<NodeId> = gone.iter().copied().filter(|g| *g < before).collect();
        order.sort_unstable();
        order.dedup();
        if order.is_empty() {
            return Vec::new();
        }
        for &g in &order {
            new[g] = None;
        }
        for (next, m) in new.iter_mut().flatten().enumerate() {
            *m = next;
        }
        let names: Vec<String> = gone
            .iter()
            .filter_map(|g| self.nodes.get(*g).map(|n| n.name.clone()))
            .collect();
        let first = order[0];
        let map = |n: NodeId| {
            if n < first {
                Some(n)
            } else {
                new.get(n).copied().flatten()
            }
        };
        let mut removed: Vec<super::NodeInfo> = Vec::with_capacity(order.len());
        let mut kept = Vec::with_capacity(before - order.len());
        for (i, n) in std::mem::take(&mut self.nodes).into_iter().enumerate() {
            if new[i].is_some() {
                kept.push(n);
            } else {
                removed.push(n);
            }
        }
        self.nodes = kept;
        self.images = std::sync::OnceLock::new();
        let mut orphaned = Vec::new();
        for (id, p) in self.pods.iter_mut().enumerate() {
            if let Some(n) = p.nominated
                && n >= first
            {
                p.nominated = map(n);
            }
            if let Some(n) = p.node
                && n >= first
            {
                p.node = map(n);
                if p.node.is_none() && !p.deleted {
                    orphaned.push(id);
                }
            }
        }
        for info in &removed {
            self.node_index.remove(&info.name);
            for (k, v) in &info.labels {
                let key = (k.clone(), v.clone());
                if let Some(ids) = self.label_index.get_mut(&key) {
                    ids.retain(|i| new.get(*i).is_some_and(Option::is_some));
                    if ids.is_empty() {
                        self.label_index.remove(&key);
                    }
                }
            }
        }
        for id in self.node_index.values_mut() {
            if let Some(m) = map(*id) {
                *id = m;
            }
        }
        for ids in self.label_index.values_mut() {
            for i in ids.iter_mut() {
                if let Some(m) = map(*i) {
                    *i = m;
                }
            }
        }
        for name in names {
            self.note(move |_| Action::DeleteNode(name));
        }
        orphaned
    }
}
