//! Karpenter's kinds in `repel serve`: the `karpenter.sh/v1` NodePool and NodeClaim
//! CustomResourceDefinitions are installed in a fresh store, so `kubectl apply -f
//! nodepool.yaml` and `kubectl get nodepools,nodeclaims` work as on a cluster running
//! Karpenter; the driver hands the stored NodePools to the control plane's Karpenter
//! controller ([`pools`]) and writes its NodeClaims back ([`nodeclaim`]).
//!
//! The CRDs are minimal (their schema keeps every field, as Karpenter's own carries the full
//! OpenAPI schema and printer columns); a NodePool the engine cannot read is left out with a
//! warning on stderr, as Karpenter's webhook-less v1 refuses it at runtime.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::App;

/// Where stored NodePools live (the CRD's name).
pub const NODEPOOLS: &str = "nodepools.karpenter.sh";
/// Where stored NodeClaims live.
pub const NODECLAIMS: &str = "nodeclaims.karpenter.sh";

fn crd(kind: &str, plural: &str, columns: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.karpenter.sh")},
        "spec": {
            "group": "karpenter.sh",
            "names": {"kind": kind, "listKind": format!("{kind}List"), "plural": plural,
                      "singular": kind.to_ascii_lowercase(), "categories": ["karpenter"]},
            "scope": "Cluster",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"status": {}},
                "additionalPrinterColumns": columns
            }]
        }
    })
}

/// The NodePool's `karpenter.sh/v1` printer columns, as Karpenter's CRD declares them
/// (kubernetes-sigs/karpenter `pkg/apis/crds/karpenter.sh_nodepools.yaml`).
pub fn nodepool_columns() -> Value {
    json!([
        {"jsonPath": ".spec.template.spec.nodeClassRef.name", "name": "NodeClass", "type": "string"},
        {"jsonPath": ".status.nodes", "name": "Nodes", "type": "string"},
        {"jsonPath": ".status.conditions[?(@.type==\"Ready\")].status", "name": "Ready", "type": "string"},
        {"jsonPath": ".metadata.creationTimestamp", "name": "Age", "type": "date"},
        {"jsonPath": ".spec.weight", "name": "Weight", "priority": 1, "type": "integer"},
        {"jsonPath": ".status.resources.cpu", "name": "CPU", "priority": 1, "type": "string"},
        {"jsonPath": ".status.resources.memory", "name": "Memory", "priority": 1, "type": "string"}
    ])
}

/// The NodeClaim's `karpenter.sh/v1` printer columns, as Karpenter's CRD declares them
/// (kubernetes-sigs/karpenter `pkg/apis/crds/karpenter.sh_nodeclaims.yaml`).
pub fn nodeclaim_columns() -> Value {
    json!([
        {"jsonPath": ".metadata.labels.node\\.kubernetes\\.io/instance-type", "name": "Type", "type": "string"},
        {"jsonPath": ".metadata.labels.karpenter\\.sh/capacity-type", "name": "Capacity", "type": "string"},
        {"jsonPath": ".metadata.labels.topology\\.kubernetes\\.io/zone", "name": "Zone", "type": "string"},
        {"jsonPath": ".status.nodeName", "name": "Node", "type": "string"},
        {"jsonPath": ".status.conditions[?(@.type==\"Ready\")].status", "name": "Ready", "type": "string"},
        {"jsonPath": ".metadata.creationTimestamp", "name": "Age", "type": "date"},
        {"jsonPath": ".status.imageID", "name": "ImageID", "priority": 1, "type": "string"},
        {"jsonPath": ".status.providerID", "name": "ID", "priority": 1, "type": "string"},
        {"jsonPath": ".metadata.labels.karpenter\\.sh/nodepool", "name": "NodePool", "priority": 1, "type": "string"},
        {"jsonPath": ".spec.nodeClassRef.name", "name": "NodeClass", "priority": 1, "type": "string"},
        {"jsonPath": ".status.conditions[?(@.type==\"Drifted\")].status", "name": "Drifted", "priority": 1, "type": "string"}
    ])
}

/// Installs the NodePool and NodeClaim CRDs (a fresh store only).
pub fn install(app: &Arc<App>) {
    let none = std::collections::HashMap::new();
    let Some(r) = crate::registry::find("apiextensions.k8s.io", "customresourcedefinitions") else {
        return;
    };
    for obj in [
        crd("NodePool", "nodepools", nodepool_columns()),
        crd("NodeClaim", "nodeclaims", nodeclaim_columns()),
    ] {
        if let Ok(obj) = app.admission.create(&app.store, &r, None, obj, &none) {
            let _ = app.store.create("customresourcedefinitions", obj);
        }
    }
    app.sync_crds();
}

/// The stored NodePools as the engine reads them (one it cannot read is skipped, with a line on
/// stderr).
pub fn pools(app: &App) -> Vec<repel_core::pools::Pool> {
    let (items, _) = app.store.list(NODEPOOLS, None);
    items
        .iter()
        .filter_map(|v| match repel_core::pools::karpenter_pool(v) {
            Ok(p) => Some(p),
            Err(e) => {
                eprintln!(
                    "repel serve: NodePool {}: {e}",
                    v["metadata"]["name"].as_str().unwrap_or_default()
                );
                None
            }
        })
        .collect()
}

/// A NodeClaim object for a claim of the engine.
pub fn nodeclaim(c: &repel_engine::controllers::karpenter::Claim) -> Value {
    let mut labels = serde_json::Map::new();
    labels.insert("karpenter.sh/nodepool".into(), json!(c.pool));
    if let Some(t) = c.options.first() {
        labels.insert("node.kubernetes.io/instance-type".into(), json!(t.name));
    }
    let mut status = json!({});
    if let Some(n) = &c.node {
        status["nodeName"] = json!(n);
        // Registered and running: Karpenter's Ready condition (what the Ready column reads).
        status["conditions"] =
            json!([{"type": "Ready", "status": "True", "reason": "Ready", "message": ""}]);
    }
    json!({
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": {"name": c.name, "labels": labels},
        "spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": c.options.first().map(|t| json!([{
                "key": "node.kubernetes.io/instance-type", "operator": "In", "values": [t.name]
            }])).unwrap_or(json!([])),
        },
        "status": status
    })
}
