//! The classic taint mistakes, found in an [`Explanation`]: a toleration taken to attract
//! pods, a toleration so broad it breaks isolation, and a DaemonSet kept off the very nodes its
//! selector picks (the GPU device-plugin case).

use k8s_openapi::api::core::v1::{Node, PodSpec};

use crate::affinity::RequiredNodeAffinity;
use crate::explain::{Explanation, NodeVerdict, TAINT_TOLERATION};
use crate::taint::{is_do_not_schedule, taint_to_string};
use crate::toleration::OP_EXISTS;

/// One finding about a pod's tolerations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advice {
    /// The pod tolerates the taints of some nodes but nothing sends it there: it may land on
    /// any of `elsewhere` as well. Tolerations allow; node affinity attracts.
    ToleratesWithoutAffinity {
        /// Feasible nodes whose NoSchedule/NoExecute taints the pod tolerates.
        tainted: Vec<String>,
        /// Feasible nodes without such taints.
        elsewhere: Vec<String>,
    },
    /// A toleration with an empty key and `Exists` (and no effect or the effect of the taints)
    /// tolerates every taint: the pod may go to every tainted node listed.
    ToleratesEverything {
        /// The toleration's index.
        toleration: usize,
        /// Feasible nodes with NoSchedule/NoExecute taints.
        tainted: Vec<String>,
    },
    /// Nodes the pod's own node selector or required affinity picks, kept off by taints the pod
    /// does not tolerate (a DaemonSet on its own nodes, a GPU pod without the GPU toleration).
    KeptOffOwnNodes {
        /// `(node, untolerated taints)`.
        nodes: Vec<(String, Vec<String>)>,
    },
}

/// Whether a node has NoSchedule/NoExecute taints of its own (a pool's taints): the
/// control plane's condition taints (`node.kubernetes.io/…`, tolerated by the defaults
/// admission adds) do not make a node special.
fn has_hard_taints(v: &NodeVerdict) -> bool {
    v.taints
        .iter()
        .any(|t| is_do_not_schedule(&t.taint) && !t.taint.key.starts_with("node.kubernetes.io/"))
}

/// The findings for a pod (`spec`, as admitted) given its explanation over `nodes`.
pub fn advise(spec: &PodSpec, nodes: &[Node], e: &Explanation) -> Vec<Advice> {
    let mut out = Vec::new();
    let tolerations = spec.tolerations.as_deref().unwrap_or_default();
    let feasible: Vec<&NodeVerdict> = e.nodes.iter().filter(|v| v.feasible()).collect();
    let tainted: Vec<String> = feasible
        .iter()
        .filter(|v| has_hard_taints(v))
        .map(|v| v.name.clone())
        .collect();
    let wildcard = tolerations.iter().position(|t| {
        t.key.as_deref().unwrap_or_default().is_empty()
            && t.operator.as_deref() == Some(OP_EXISTS)
            && t.effect.as_deref().unwrap_or_default().is_empty()
    });
    if let Some(i) = wildcard {
        if !tainted.is_empty() {
            out.push(Advice::ToleratesEverything {
                toleration: i,
                tainted: tainted.clone(),
            });
        }
    } else {
        let affinity = RequiredNodeAffinity::from_pod_spec(spec);
        let elsewhere: Vec<String> = feasible
            .iter()
            .filter(|v| !has_hard_taints(v))
            .map(|v| v.name.clone())
            .collect();
        if affinity.is_empty() && !tainted.is_empty() && !elsewhere.is_empty() {
            out.push(Advice::ToleratesWithoutAffinity { tainted, elsewhere });
        }
    }
    let affinity = RequiredNodeAffinity::from_pod_spec(spec);
    // Only when the selector singles the tainted nodes out: every node it picks is closed to the
    // pod. A selector that also picks nodes the pod fits on (`kubernetes.io/os: linux`) is not
    // aimed at the tainted ones, and tolerating them would send the pod where nobody meant it.
    let picked: Vec<(&NodeVerdict, &Node)> = e
        .nodes
        .iter()
        .zip(nodes)
        .filter(|(_, n)| affinity.matches(n).unwrap_or(false))
        .collect();
    if !affinity.is_empty() && !picked.iter().any(|(v, _)| v.feasible()) {
        let kept: Vec<(String, Vec<String>)> = picked
            .iter()
            .filter(|(v, _)| {
                v.rejection
                    .as_ref()
                    .is_some_and(|r| r.plugin == TAINT_TOLERATION)
            })
            .map(|(v, _)| {
                let taints = v
                    .taints
                    .iter()
                    .filter(|t| !t.tolerated && is_do_not_schedule(&t.taint))
                    .map(|t| taint_to_string(&t.taint))
                    .collect();
                (v.name.clone(), taints)
            })
            .collect();
        if !kept.is_empty() {
            out.push(Advice::KeptOffOwnNodes { nodes: kept });
        }
    }
    out
}

impl std::fmt::Display for Advice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Advice::ToleratesWithoutAffinity { tainted, elsewhere } => write!(
                f,
                "a toleration allows, it does not attract: the pod may go to {} but also to {}; \
                 add required node affinity on the pool's label to keep it there",
                tainted.join(", "),
                elsewhere.join(", ")
            ),
            Advice::ToleratesEverything {
                toleration,
                tainted,
            } => write!(
                f,
                "toleration #{toleration} (operator Exists, no key, no effect) tolerates every taint: \
                 the pod may go to {}; isolation is gone",
                tainted.join(", ")
            ),
            Advice::KeptOffOwnNodes { nodes } => {
                let list: Vec<String> = nodes
                    .iter()
                    .map(|(n, t)| format!("{n} ({})", t.join(", ")))
                    .collect();
                write!(
                    f,
                    "kept off the nodes its own selector picks by taints it does not tolerate: {}",
                    list.join("; ")
                )
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::type_complexity)]
mod tests;
