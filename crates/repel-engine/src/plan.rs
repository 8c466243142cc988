//! What-if plans computed straight from the cluster, without running the clock.

use k8s_openapi::api::core::v1::Taint;
use repel_core::FeatureGates;
use repel_core::taint::{NoExecuteOutcome, no_execute_outcome};

use crate::cluster::{Cluster, NodeId, PodId};

/// The eviction plan of adding a NoExecute `taint` to `nodes`: for every live pod bound there,
/// what the taint-eviction controller would do (upstream `processPodOnNode` over the node's
/// taints with the new one appended), in node order then pod order.
pub fn eviction_plan(
    cluster: &Cluster,
    nodes: &[NodeId],
    taint: &Taint,
    gates: &FeatureGates,
) -> Vec<(PodId, NoExecuteOutcome)> {
    let mut out = Vec::new();
    let mut taints: Vec<Taint> = Vec::new();
    for &n in nodes {
        let Some(node) = cluster.nodes.get(n) else {
            continue;
        };
        taints.clear();
        taints.extend(node.taints.iter().cloned());
        taints.push(taint.clone());
        for &p in &node.pods {
            let pod = &cluster.pods[p];
            if pod.deleted {
                continue;
            }
            out.push((p, no_execute_outcome(&taints, pod.tolerations(), gates)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{Node, Pod};

    #[test]
    fn plan_over_tainted_nodes() {
        let mut c = Cluster::new();
        let node: Node = serde_json::from_value(serde_json::json!({"metadata": {"name": "n1"}, "status": {"allocatable": {"pods": "10"}}})).unwrap_or_default();
        let n = c.add_node(node);
        let pod = |name: &str, tols: serde_json::Value| -> Pod {
            serde_json::from_value(serde_json::json!({"metadata": {"name": name}, "spec": {"nodeName": "n1", "containers": [{"name": "c"}], "tolerations": tols}})).unwrap_or_default()
        };
        c.add_pod(pod("gone", serde_json::json!([])));
        c.add_pod(pod(
            "stays",
            serde_json::json!([{"key": "k", "operator": "Exists", "effect": "NoExecute"}]),
        ));
        c.add_pod(pod("later", serde_json::json!([{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}])));
        let plan = eviction_plan(
            &c,
            &[n],
            &repel_core::taint::new_taint("k", "v", "NoExecute"),
            &FeatureGates::default(),
        );
        let got: Vec<NoExecuteOutcome> = plan.into_iter().map(|(_, o)| o).collect();
        assert_eq!(
            got,
            vec![
                NoExecuteOutcome::Immediately,
                NoExecuteOutcome::Never,
                NoExecuteOutcome::After(60)
            ]
        );
    }
}
