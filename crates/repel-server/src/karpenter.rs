//! Karpenter's kinds in `repel serve` (issue 16): the `karpenter.sh/v1` NodePool and NodeClaim
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

/// Installs the NodePool and NodeClaim CRDs (a fresh store only).
pub fn install(app: &Arc<App>) {
    let none = std::collections::HashMap::new();
    let Some(r) = crate::resources::find("apiextensions.k8s.io", "customresourcedefinitions")
    else {
        return;
    };
    for obj in [
        crd(
            "NodePool",
            "nodepools",
            json!([{"name": "Weight", "type": "integer", "jsonPath": ".spec.weight", "priority": 1}]),
        ),
        crd(
            "NodeClaim",
            "nodeclaims",
            json!([
                {"name": "Type", "type": "string", "jsonPath": ".metadata.labels.node\\.kubernetes\\.io/instance-type"},
                {"name": "Node", "type": "string", "jsonPath": ".status.nodeName"},
                {"name": "NodePool", "type": "string", "jsonPath": ".metadata.labels.karpenter\\.sh/nodepool", "priority": 1}
            ]),
        ),
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
