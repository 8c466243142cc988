//! Every file of the shared corpus of real manifests (`../shared/corpus/real`, beside the
//! repository) through `kubectl apply -f` against a fresh server: a file that is a complete,
//! valid manifest applies; the others get the answer kube-apiserver and kubectl give them; and
//! the OpenAPI v2 document, with the file's CRDs in it, stays one kubectl can read.

use std::path::Path;

use crate::util::{have_kubectl, node, start};
use serde_json::json;

/// The files that do not apply, and why (a part of kubectl's message): each is what a real
/// cluster answers too.
const REFUSED: &[(&str, &str)] = &[
    // Placeholders where a namespace belongs: no such namespace can exist.
    (
        "cluster-autoscaler--clusterapi-deployment.yaml",
        "namespaces \"${AUTOSCALER_NS}\" not found",
    ),
    (
        "gpu-operator--state-device-plugin-0500_daemonset.yaml",
        "namespaces \"FILLED BY THE OPERATOR\" not found",
    ),
    // Kinds whose CRD the file does not install, or that are no Kubernetes API at all.
    (
        "container-engine-accelerators--tensorflow-notebook.yaml",
        "no matches for kind \"StatefulSet\" in version \"apps/v1beta1\"",
    ),
    (
        "eksctl--15-managed-nodes.yaml",
        "no matches for kind \"ClusterConfig\" in version \"eksctl.io/v1alpha5\"",
    ),
    (
        "eksctl--23-kubeflow-spot-instance.yaml",
        "no matches for kind \"ClusterConfig\" in version \"eksctl.io/v1alpha5\"",
    ),
    (
        "eksctl--34-taints.yaml",
        "no matches for kind \"ClusterConfig\" in version \"eksctl.io/v1alpha5\"",
    ),
    (
        "eksctl--taints-max-pods.yaml",
        "no matches for kind \"ClusterConfig\" in version \"eksctl.io/v1alpha5\"",
    ),
    (
        "karpenter-provider-azure--v1-general-purpose.yaml",
        // The NodePool applies (the server carries Karpenter's CRDs); its AKSNodeClass's
        // CRD is Azure's provider's.
        "no matches for kind \"AKSNodeClass\" in version \"karpenter.azure.com/v1beta1\"",
    ),
    (
        "karpenter-provider-azure--v1-system-surge.yaml",
        // The NodePool applies (the server carries Karpenter's CRDs); its AKSNodeClass's
        // CRD is Azure's provider's.
        "no matches for kind \"AKSNodeClass\" in version \"karpenter.azure.com/v1beta1\"",
    ),
    (
        "karpenter-provider-azure--v1beta1-system-surge.yaml",
        "no matches for kind \"NodePool\" in version \"karpenter.sh/v1beta1\"",
    ),
    (
        "kwok--node-readiness-case.yaml",
        "no matches for kind \"NodeReadinessRule\"",
    ),
    (
        "node-feature-discovery--cr-sample.yaml",
        "no matches for kind \"NodeFeatureRule\"",
    ),
    (
        "node-feature-discovery--nodefeaturerule-3.yaml",
        "no matches for kind \"NodeFeatureRule\"",
    ),
    (
        "rabbitmq-cluster-operator--tolerations-rabbitmq.yaml",
        "no matches for kind \"RabbitmqCluster\"",
    ),
    // Templates: kubectl apply refuses generateName.
    (
        "k8s-scheduler-perf--nodeadd-node-with-taint.yaml",
        "cannot use generate name with apply",
    ),
    (
        "k8s-scheduler-perf--nodeadd-pod-tainttoleration.yaml",
        "cannot use generate name with apply",
    ),
    // `Gt` needs the TaintTolerationComparisonOperators gate, off by default.
    (
        "k8s-website--pod-with-numeric-toleration.yaml",
        "spec.tolerations[0].operator: Unsupported value: \"Gt\"",
    ),
];

/// Namespaces a file uses without creating them: made first, as its README asks.
const NAMESPACES: &[(&str, &str)] = &[
    (
        "cluster-version-operator--TestRenderManifest_expected_cvo_deployment.yaml",
        "openshift-cluster-version",
    ),
    (
        "console-operator--downloads-deployment.yaml",
        "openshift-console",
    ),
    (
        "fluent-bit-kubernetes-logging--fluent-bit-ds.yaml",
        "logging",
    ),
    ("kube-prometheus--nodeExporter-daemonset.yaml", "monitoring"),
    ("nri-kubernetes--testdata-1_35-pods.yaml", "scraper"),
];

#[test]
fn every_corpus_file_applies_or_gets_upstreams_answer() {
    if !have_kubectl() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/real");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("the corpus is not there: test skipped");
        return;
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let s = start(vec![node("node1", json!(null))]);
        if let Some((_, ns)) = NAMESPACES.iter().find(|(f, _)| *f == name) {
            let f = s.write(
                "ns.yaml",
                &format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}}}\n"),
            );
            let o = s.kubectl(&["apply", "-f", &f]);
            assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        }
        let o = s.kubectl(&["apply", "-f", &path.display().to_string()]);
        match REFUSED.iter().find(|(f, _)| *f == name) {
            Some((_, why)) => {
                if o.code == 0 || !o.stderr.contains(why) {
                    failures.push(format!("{name}: expected {why:?}, got {}", o.stderr));
                }
            }
            None => {
                if o.code != 0 {
                    failures.push(format!("{name}: {}", o.stderr));
                }
            }
        }
        // OpenAPI v2 with whatever CRDs the file installed is still one kubectl parses
        // (kube-openapi refuses the whole document for one schema it cannot read).
        let o = s.kubectl(&["explain", "pod.spec", "--output=plaintext-openapiv2"]);
        if o.code != 0 || !o.stdout.contains("RESOURCE: spec <Object>") {
            failures.push(format!("{name}: explain over v2: {}", o.stderr));
        }
    }
    assert!(files.len() >= 60, "{} files", files.len());
    assert!(failures.is_empty(), "{failures:#?}");
}
