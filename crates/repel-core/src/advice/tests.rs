//! Unit tests of `crate::advice`.

use super::*;
use crate::explain::explain;
use crate::gates::FeatureGates;
use crate::testing::{node_with_taints, pod_with_tolerations, taint, tol};
use k8s_openapi::api::core::v1::Toleration;

/// A Linux node with one more label.
fn labelled(
    name: &str,
    label: (&str, &str),
    taints: Vec<k8s_openapi::api::core::v1::Taint>,
) -> Node {
    let mut n = node_with_taints(name, taints);
    n.metadata.labels = Some(
        [
            (label.0.to_string(), label.1.to_string()),
            ("kubernetes.io/os".to_string(), "linux".to_string()),
        ]
        .into(),
    );
    n
}

fn advice_for(
    tols: Vec<Toleration>,
    selector: Option<(&str, &str)>,
    nodes: &[Node],
) -> Vec<Advice> {
    let mut spec = pod_with_tolerations("p", tols).spec.unwrap_or_default();
    if let Some((k, v)) = selector {
        spec.node_selector = Some([(k.to_string(), v.to_string())].into());
    }
    let e = explain(&spec, nodes, &FeatureGates::default());
    advise(&spec, nodes, &e)
}

#[test]
fn the_classic_mistakes() {
    let nodes = vec![
        labelled("plain", ("kubernetes.io/hostname", "plain"), vec![]),
        labelled(
            "gpu",
            ("accelerator", "nvidia"),
            vec![taint("sku", "gpu", "NoSchedule")],
        ),
        labelled(
            "cp",
            ("node-role.kubernetes.io/control-plane", ""),
            vec![taint(
                "node-role.kubernetes.io/control-plane",
                "",
                "NoSchedule",
            )],
        ),
    ];
    let gpu_tol = || tol("sku", "Equal", "gpu", "NoSchedule");
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Toleration>, Option<(&str, &str)>, Vec<Advice>)> = vec![
        ("no tolerations: nothing to say", vec![], None, vec![]),
        ("a toleration without affinity lands anywhere",
            vec![gpu_tol()], None,
            vec![Advice::ToleratesWithoutAffinity { tainted: vec!["gpu".into()], elsewhere: vec!["plain".into()] }]),
        ("a toleration with the pool's selector is the recipe: nothing to say",
            vec![gpu_tol()], Some(("accelerator", "nvidia")), vec![]),
        ("the wildcard toleration breaks isolation",
            vec![tol("", "Exists", "", "")], None,
            vec![Advice::ToleratesEverything { toleration: 0, tainted: vec!["gpu".into(), "cp".into()] }]),
        ("a selector for the GPU nodes without the GPU toleration keeps the pod off its own nodes",
            vec![], Some(("accelerator", "nvidia")),
            vec![Advice::KeptOffOwnNodes { nodes: vec![("gpu".into(), vec!["sku=gpu:NoSchedule".into()])] }]),
        ("a selector that also picks nodes the pod fits on does not single the tainted ones out",
            vec![], Some(("kubernetes.io/os", "linux")), vec![]),
    ];
    for (name, tols, selector, want) in cases {
        assert_eq!(advice_for(tols, selector, &nodes), want, "{name}");
    }
}
