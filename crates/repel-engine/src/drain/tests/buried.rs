//! Nodes buried in a what-if ([`super::sim::Sim::bury`]) answer as the cluster without them.

use super::sim::Sim;
use super::*;

/// The name of node `n` of `c`, when found.
fn name_of(c: &Cluster, n: Option<NodeId>) -> Option<String> {
    n.map(|n| c.nodes[n].name.clone())
}

/// Nodes taken from a what-if are buried in one cluster (their pods deleted, the nodes left in
/// it) and removed from a copy: every node keeps its position (its id in the copy), and
/// every pod taken off a node the buried nodes do not concern finds, from every start, the
/// node it finds in the copy. A buried node is empty, so the first fit would land on it if it
/// were still offered; a stale position would start elsewhere.
#[test]
fn a_buried_node_is_neither_offered_nor_counted_as_a_cluster_without_it_has_it() {
    use crate::generate::ClusterShape;
    let gates = repel_core::FeatureGates::default();
    for (shape, nodes, pods, seed) in [
        (ClusterShape::Default, 30, 500, 3),
        (ClusterShape::LargeWorkloads, 30, 400, 4),
    ] {
        let (c, _) = super::compiled::placed(shape, nodes, pods, seed);
        let mut work = c.clone();
        let mut sim = Sim::new(&work, gates, seed);
        sim.prepare(&work);
        for at in [0, 3, 4, 11, nodes - 1] {
            for id in sim.pods_on(&work, at) {
                work.unbind(id);
                sim.moved(&work, id, at, -1);
                work.force_delete_pod(id);
            }
            sim.bury(&work, at);
        }
        let mut fresh = work.clone();
        fresh.delete_nodes(sim.buried());
        let mut fresh_sim = Sim::new(&fresh, gates, seed);
        assert_eq!(sim.live(&work), fresh.nodes.len(), "{shape:?}");
        for (id, n) in work.nodes.iter().enumerate() {
            if sim.buried().contains(&id) {
                assert_eq!(fresh.node_id(&n.name), None, "{shape:?}");
                continue;
            }
            let pos = sim.position(id);
            assert_eq!(fresh.node_id(&n.name), Some(pos), "{shape:?} {}", n.name);
            assert_eq!(sim.node_at(&work, pos), id, "{shape:?} {}", n.name);
        }
        let removed = (
            work.node_id(&c.nodes[1].name),
            fresh.node_id(&c.nodes[1].name),
        );
        let (Some(removed_w), Some(removed_f)) = removed else {
            panic!("{shape:?}: node 1 is not buried");
        };
        let (mut checked, mut unseen) = (0, 0);
        for from in [2, 5, 7, 9] {
            let name = &c.nodes[from].name;
            let (Some(w), Some(f)) = (work.node_id(name), fresh.node_id(name)) else {
                continue;
            };
            for id in sim.pods_on(&work, w) {
                checked += 1;
                if !sim.buried_unseen_by(&work, id) {
                    continue;
                }
                unseen += 1;
                unschedule(&mut work, id);
                sim.moved(&work, id, w, -1);
                unschedule(&mut fresh, id);
                fresh_sim.moved(&fresh, id, f, -1);
                for pos in 0..fresh.nodes.len() {
                    let start = sim.node_at(&work, pos);
                    let got = sim.first_fit(&mut work, id, start, removed_w, &|c| {
                        c.nodes[removed_w].clone()
                    });
                    let want = fresh_sim.first_fit(&mut fresh, id, pos, removed_f, &|c| {
                        c.nodes[removed_f].clone()
                    });
                    assert_eq!(
                        name_of(&work, got),
                        name_of(&fresh, want),
                        "{shape:?} {} from position {pos}",
                        work.pods[id].key()
                    );
                }
            }
        }
        assert!(unseen > 0 && checked > 0, "{shape:?}: no pod checked");
    }
}

/// Node `name` in zone `zone`.
fn zoned(name: &str, zone: &str) -> Node {
    let mut n = node(name, "10");
    if let Some(l) = n.metadata.labels.as_mut() {
        l.insert("topology.kubernetes.io/zone".into(), zone.into());
    }
    n
}

/// Whether the buried nodes must go before a pod is placed: a hard spread constraint on the
/// hostname would count a buried node's domain; one on the zone only when a buried node was
/// the last of its node class (its zone might go with it); a soft one filters nothing.
#[test]
fn hard_spread_constraints_see_a_buried_node_whose_domain_may_go_with_it() {
    let mut c = Cluster::new();
    for (n, zone) in [("a", "z1"), ("b", "z1"), ("c", "z2")] {
        c.add_node(zoned(n, zone));
    }
    let constrained = |key: &'static str, when: &'static str| {
        move |v: &mut Value| {
            replicated(v);
            v["spec"]["topologySpreadConstraints"] = json!([{"maxSkew": 1,
                "topologyKey": key, "whenUnsatisfiable": when,
                "labelSelector": {"matchLabels": {"app": "web"}}}]);
        }
    };
    let host = c.add_pod(pod(
        "default",
        "host",
        "b",
        constrained("kubernetes.io/hostname", "DoNotSchedule"),
    ));
    let zone = c.add_pod(pod(
        "default",
        "zone",
        "b",
        constrained("topology.kubernetes.io/zone", "DoNotSchedule"),
    ));
    let soft = c.add_pod(pod(
        "default",
        "soft",
        "b",
        constrained("kubernetes.io/hostname", "ScheduleAnyway"),
    ));
    let mut sim = Sim::new(&c, repel_core::FeatureGates::default(), 1);
    sim.prepare(&c);
    for id in [host, zone, soft] {
        assert!(sim.buried_unseen_by(&c, id), "nothing buried yet");
    }
    // a: z1 keeps b.
    sim.bury(&c, 0);
    assert!(!sim.buried_unseen_by(&c, host), "hostname");
    assert!(sim.buried_unseen_by(&c, zone), "z1 keeps b");
    assert!(sim.buried_unseen_by(&c, soft), "soft");
    // c: the last node of z2.
    sim.bury(&c, 2);
    assert!(!sim.buried_unseen_by(&c, zone), "z2 may go");
    assert!(sim.buried_unseen_by(&c, soft), "soft");
}
