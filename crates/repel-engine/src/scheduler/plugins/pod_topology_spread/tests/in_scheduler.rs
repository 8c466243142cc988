//! The plugin inside the default profile: `nodeTaintsPolicy` decides whether a tainted node's
//! empty zone holds the global minimum down.

use k8s_openapi::api::core::v1::{Node, NodeStatus};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use repel_core::FeatureGates;

use super::fixtures::{Info, Tsc, cluster, exists, mk_node, mk_pod, sc};
use super::*;
use crate::scheduler::Scheduler;

fn sized(mut n: Node) -> Node {
    n.status = Some(NodeStatus {
        allocatable: Some(
            [("cpu", "4"), ("memory", "8Gi"), ("pods", "110")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
                .collect(),
        ),
        ..Default::default()
    });
    n
}

#[test]
fn node_taints_policy_decides_whether_a_tainted_zone_counts() {
    let nodes = || {
        vec![
            sized(mk_node("n1", &[("zone", "a")], vec![])),
            sized(mk_node("n2", &[("zone", "b")], vec![])),
            sized(mk_node(
                "n3",
                &[("zone", "c")],
                vec![repel_core::taint::new_taint("dedicated", "x", "NoSchedule")],
            )),
        ]
    };
    let web = |name: &str, node: &str| mk_pod(name).label("app", "web").node(node).obj();
    let pod = |policy: Option<&str>| {
        let c = sc(1, "zone", "DoNotSchedule", exists("app"));
        let c = match policy {
            Some(p) => c.taints_policy(p),
            None => c,
        };
        mk_pod("p")
            .label("app", "web")
            .add_spread_constraint(c)
            .info()
    };
    let c = cluster(nodes(), vec![web("w1", "n1"), web("w2", "n2")]);

    let mut s = Scheduler::new(FeatureGates::default(), Some(100), 1);
    let ev = s.evaluate(&c, &pod(None));
    assert!(
        ev.feasible.is_empty(),
        "Ignore (the default): zone c's 0 is the minimum"
    );
    let reasons: Vec<(String, &str)> = ev
        .diagnosis
        .rejected()
        .map(|(id, st)| (c.nodes[id].name.clone(), st.plugin))
        .collect();
    assert_eq!(
        reasons,
        vec![
            ("n1".to_string(), NAME),
            ("n2".to_string(), NAME),
            ("n3".to_string(), "TaintToleration")
        ]
    );
    assert!(
        ev.message.starts_with(
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), \
             2 node(s) didn't match pod topology spread constraints."
        ),
        "{}",
        ev.message
    );

    let ev = s.evaluate(&c, &pod(Some("Honor")));
    let feasible: Vec<&str> = ev
        .feasible
        .iter()
        .map(|i| c.nodes[*i].name.as_str())
        .collect();
    assert_eq!(
        feasible,
        vec!["n1", "n2"],
        "Honor: the node whose taint the pod does not tolerate is no domain"
    );
}
