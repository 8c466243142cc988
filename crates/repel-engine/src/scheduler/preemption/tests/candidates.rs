//! The dry run, victims and the choice among candidates.

use super::*;

/// Expected candidates: node, victims, PDB violations.
type Want<'a> = Vec<(&'a str, Vec<&'a str>, usize)>;
type WindowCase = (&'static str, Cluster, usize, Vec<(&'static str, usize)>);
type SplitCase = (
    &'static str,
    Vec<PodDisruptionBudget>,
    Vec<Pod>,
    Vec<&'static str>,
);

type DryRunCase<'a> = (
    &'a str,
    Vec<&'a str>,
    Pod,
    Vec<(Pod, usize)>,
    Vec<PodDisruptionBudget>,
);

/// Upstream `TestDryRunPreemption` (nodes of `veryLargeRes`): the candidates, each with its
/// victims most important first and its PDB violations.
#[test]
fn dry_run_cases() {
    let n = |name: &str, prio: i32, res: (i64, i64), on: &str| pod(name, prio, res, Some(on), &[]);
    let foo = [("app", "foo")];
    let nf = |name: &str, on: &str| pod(name, MID, MEDIUM, Some(on), &foo);
    #[rustfmt::skip]
    let cases: Vec<(DryRunCase, Want)> = vec![
        (("a pod that fits on both nodes when lower priority pods are preempted", vec!["node1", "node2"],
          pod("p", HIGH, LARGE, None, &[]),
          vec![(n("p1", MID, LARGE, "node1"), 0), (n("p2", MID, LARGE, "node2"), 0)], vec![]),
         vec![("node1", vec!["p1"], 0), ("node2", vec!["p2"], 0)]),
        (("a pod that would fit if the pods were not of higher priority gets no candidate", vec!["node1", "node2"],
          pod("p", LOW, LARGE, None, &[]),
          vec![(n("p1", MID, LARGE, "node1"), 0), (n("p2", MID, LARGE, "node2"), 0)], vec![]),
         vec![]),
        (("a medium priority pod is preempted, but a lower priority one stays as it is small", vec!["node1", "node2"],
          pod("p", HIGH, LARGE, None, &[]),
          vec![(n("p1.1", LOW, SMALL, "node1"), 0), (n("p1.2", MID, LARGE, "node1"), 1),
               (n("p2", MID, LARGE, "node2"), 2)], vec![]),
         vec![("node1", vec!["p1.2"], 0), ("node2", vec!["p2"], 0)]),
        (("mixed priority pods are preempted", vec!["node1", "node2"],
          pod("p", HIGH, LARGE, None, &[]),
          vec![(n("p1.1", MID, SMALL, "node1"), 0), (n("p1.2", LOW, SMALL, "node1"), 1),
               (n("p1.3", MID, MEDIUM, "node1"), 2), (n("p1.4", HIGH, SMALL, "node1"), 3),
               (n("p2", HIGH, LARGE, "node2"), 4)], vec![]),
         vec![("node1", vec!["p1.3", "p1.2"], 0)]),
        (("mixed priority pods are preempted, the later started one when priorities are equal", vec!["node1", "node2"],
          pod("p", HIGH, LARGE, None, &[]),
          vec![(n("p1.1", LOW, SMALL, "node1"), 5), (n("p1.2", LOW, SMALL, "node1"), 4),
               (n("p1.3", MID, MEDIUM, "node1"), 3), (n("p1.4", HIGH, SMALL, "node1"), 2),
               (n("p2", HIGH, LARGE, "node2"), 1)], vec![]),
         vec![("node1", vec!["p1.3", "p1.1"], 0)]),
        (("preemption violating the same pdb counts it once", vec!["node1"],
          pod("p", HIGH, VERY_LARGE, None, &[]),
          vec![(nf("p1.1", "node1"), 0), (nf("p1.2", "node1"), 1)], vec![pdb("app", "foo", 1, &[])]),
         vec![("node1", vec!["p1.1", "p1.2"], 1)]),
        (("a victim not among the pdb's disrupted pods still violates it", vec!["node1"],
          pod("p", HIGH, VERY_LARGE, None, &[]),
          vec![(nf("p1.1", "node1"), 0), (nf("p1.2", "node1"), 1)], vec![pdb("app", "foo", 1, &["p2"])]),
         vec![("node1", vec!["p1.1", "p1.2"], 1)]),
        (("a victim among the pdb's disrupted pods does not count against it", vec!["node1"],
          pod("p", HIGH, VERY_LARGE, None, &[]),
          vec![(nf("p1.1", "node1"), 0), (nf("p1.2", "node1"), 1)], vec![pdb("app", "foo", 1, &["p1.2"])]),
         vec![("node1", vec!["p1.1", "p1.2"], 0)]),
        (("a disrupted pod is non-violating while the others still use up the budget", vec!["node1"],
          pod("p", HIGH, VERY_LARGE, None, &[]),
          vec![(nf("p1.1", "node1"), 0), (nf("p1.2", "node1"), 1), (nf("p1.3", "node1"), 2)],
          vec![pdb("app", "foo", 1, &["p1.3"])]),
         vec![("node1", vec!["p1.1", "p1.2", "p1.3"], 1)]),
    ];
    for ((name, node_names, preemptor, pods, pdbs), want) in cases {
        let c = cluster(
            node_names
                .iter()
                .map(|n| node(n, VERY_LARGE, 32, &[]))
                .collect(),
            pods,
            pdbs,
        );
        let sched = scheduler(vec![Box::new(TestFit)]);
        let p = PodInfo::new(preemptor, 1000);
        let state = pre_filter(&sched, &p, &c);
        let all: Vec<NodeId> = (0..c.nodes.len()).collect();
        let num = calculate_num_candidates(all.len());
        let run = dry_run_preemption(&sched, &c, &state, &p, &all, &c.pdbs, 0, num);
        let got: Vec<(String, Vec<String>, usize)> = run
            .candidates
            .iter()
            .map(|x| {
                let node = c.nodes[x.node].name.clone();
                (node, names(&c, &x.victims), x.num_pdb_violations)
            })
            .collect();
        let want: Vec<(String, Vec<String>, usize)> = want
            .into_iter()
            .map(|(n, v, k)| (n.to_string(), v.into_iter().map(String::from).collect(), k))
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// Upstream `TestDryRunPreemption`'s candidate-window cases (40 %, at least 1 or 2, offset 4).
#[test]
fn dry_run_window() {
    let foo = [("app", "foo")];
    let mk = |names: &[(&str, i32, bool)]| {
        cluster(
            (1..=5)
                .map(|i| node(&format!("node{i}"), VERY_LARGE, 32, &[]))
                .collect(),
            names
                .iter()
                .enumerate()
                .map(|(i, (n, prio, pdb))| {
                    let labels: &[(&str, &str)] = if *pdb { &foo } else { &[] };
                    let on = format!("node{}", i + 1);
                    (pod(n, *prio, LARGE, Some(&on), labels), 0)
                })
                .collect(),
            vec![pdb("app", "foo", 0, &[])],
        )
    };
    #[rustfmt::skip]
    let cases: Vec<WindowCase> = vec![
        ("every node is a candidate, but the window stops at 2",
         mk(&[("p1", MID, false), ("p2", MID, false), ("p3", MID, false), ("p4", MID, false), ("p5", MID, false)]),
         2, vec![("node5", 0), ("node1", 0)]),
        ("some nodes are not candidates; the window still finds 2",
         mk(&[("p1", MID, false), ("p2", VERY_HIGH, false), ("p3", MID, false), ("p4", MID, false), ("p5", VERY_HIGH, false)]),
         2, vec![("node1", 0), ("node3", 0)]),
        ("the search looks past the window until a candidate violates no PDB",
         mk(&[("p1", MID, true), ("p2", MID, true), ("p3", MID, false), ("p4", MID, false), ("p5", MID, true)]),
         2, vec![("node3", 0), ("node5", 1), ("node1", 1)]),
    ];
    for (name, c, num, want) in cases {
        let sched = scheduler(vec![Box::new(TestFit)]);
        let p = PodInfo::new(pod("p", HIGH, LARGE, None, &[]), 1000);
        let state = pre_filter(&sched, &p, &c);
        let all: Vec<NodeId> = (0..c.nodes.len()).collect();
        let run = dry_run_preemption(&sched, &c, &state, &p, &all, &c.pdbs, 4, num);
        let got: Vec<(&str, usize)> = run
            .candidates
            .iter()
            .map(|x| (c.nodes[x.node].name.as_str(), x.num_pdb_violations))
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// Upstream `TestSelectBestCandidate` (nodes of `veryLargeRes`); pods given as
/// `(name, priority, requests, node, start)`.
#[test]
fn select_best_candidate() {
    type P<'a> = (&'a str, i32, (i64, i64), &'a str, usize);
    #[rustfmt::skip]
    let cases: Vec<(&str, usize, i32, Vec<P>, &str)> = vec![
        ("among equal nodes the first is picked", 2, HIGH, vec![
            ("p1", MID, LARGE, "node1", 0), ("p2", MID, LARGE, "node2", 0)], "node1"),
        ("the node with the lowest highest-priority victim is picked", 3, HIGH, vec![
            ("p1.1", MID, MEDIUM, "node1", 0), ("p1.2", MID, LARGE, "node1", 0),
            ("p2.1", MID, MEDIUM, "node2", 0), ("p2.2", LOW, MEDIUM, "node2", 0),
            ("p3.1", LOW, MEDIUM, "node3", 0), ("p3.2", LOW, MEDIUM, "node3", 0)], "node3"),
        ("when highest priorities are the same, the smallest sum of priorities is picked", 3, HIGH, vec![
            ("p1.1", MID, MEDIUM, "node1", 0), ("p1.2", MID, LARGE, "node1", 0),
            ("p2.1", MID, LARGE, "node2", 0), ("p2.2", LOW, MEDIUM, "node2", 0),
            ("p3.1", MID, MEDIUM, "node3", 0), ("p3.2", MID, MEDIUM, "node3", 0)], "node2"),
        ("when highest priority and sum are the same, the fewest victims are picked", 3, HIGH, vec![
            ("p1.1", MID, SMALL, "node1", 0), ("p1.2", NEG, SMALL, "node1", 0),
            ("p1.3", MID, SMALL, "node1", 0), ("p1.4", NEG, SMALL, "node1", 0),
            ("p2.1", MID, LARGE, "node2", 0), ("p2.2", NEG, MEDIUM, "node2", 0),
            ("p3.1", MID, MEDIUM, "node3", 0), ("p3.2", NEG, SMALL, "node3", 0),
            ("p3.3", LOW, SMALL, "node3", 0)], "node2"),
        ("the sum uses priorities offset by MaxInt32+1", 3, HIGH, vec![
            ("p1.1", MID, SMALL, "node1", 0), ("p1.2", NEG, SMALL, "node1", 0),
            ("p1.3", NEG, SMALL, "node1", 0), ("p2.1", MID, LARGE, "node2", 0),
            ("p2.2", NEG, MEDIUM, "node2", 0), ("p3.1", MID, MEDIUM, "node3", 0),
            ("p3.2", NEG, SMALL, "node3", 0), ("p3.3", LOW, SMALL, "node3", 0)], "node2"),
        ("non-overlapping lowest high priority, sum of priorities and number of pods", 4, VERY_HIGH, vec![
            ("p1.1", MID, SMALL, "node1", 0), ("p1.2", LOW, SMALL, "node1", 0),
            ("p1.3", LOW, SMALL, "node1", 0), ("p2.1", HIGH, LARGE, "node2", 0),
            ("p3.1", MID, MEDIUM, "node3", 0), ("p3.2", LOW, SMALL, "node3", 0),
            ("p3.3", LOW, SMALL, "node3", 0), ("p3.4", LOW, MEDIUM, "node3", 0),
            ("p4.1", MID, MEDIUM, "node4", 0), ("p4.2", MID, SMALL, "node4", 0),
            ("p4.3", MID, SMALL, "node4", 0), ("p4.4", NEG, SMALL, "node4", 0)], "node1"),
        ("same priority and number of victims: the node whose victims started last", 3, HIGH, vec![
            ("p1.1", MID, MEDIUM, "node1", 2), ("p1.2", MID, MEDIUM, "node1", 2),
            ("p2.1", MID, MEDIUM, "node2", 3), ("p2.2", MID, MEDIUM, "node2", 3),
            ("p3.1", MID, MEDIUM, "node3", 1), ("p3.2", MID, MEDIUM, "node3", 1)], "node2"),
        ("same priority and number of victims, every pod started at another time", 3, HIGH, vec![
            ("p1.1", MID, MEDIUM, "node1", 4), ("p1.2", MID, MEDIUM, "node1", 2),
            ("p2.1", MID, MEDIUM, "node2", 5), ("p2.2", MID, MEDIUM, "node2", 1),
            ("p3.1", MID, MEDIUM, "node3", 3), ("p3.2", MID, MEDIUM, "node3", 6)], "node3"),
        ("different priorities: the start of the highest-priority victims decides", 3, HIGH, vec![
            ("p1.1", LOW, MEDIUM, "node1", 4), ("p1.2", MID, MEDIUM, "node1", 2),
            ("p2.1", MID, MEDIUM, "node2", 6), ("p2.2", LOW, MEDIUM, "node2", 1),
            ("p3.1", LOW, MEDIUM, "node3", 3), ("p3.2", MID, MEDIUM, "node3", 5)], "node2"),
    ];
    for (name, num_nodes, prio, pods, want) in cases {
        let c = cluster(
            (1..=num_nodes)
                .map(|i| node(&format!("node{i}"), VERY_LARGE, 32, &[]))
                .collect(),
            pods.into_iter()
                .map(|(n, pr, res, on, start)| (pod(n, pr, res, Some(on), &[]), start))
                .collect(),
            vec![],
        );
        let sched = scheduler(vec![Box::new(TestFit)]);
        let p = PodInfo::new(pod("p", prio, VERY_LARGE, None, &[]), 1000);
        let state = pre_filter(&sched, &p, &c);
        let all: Vec<NodeId> = (0..c.nodes.len()).collect();
        let num = calculate_num_candidates(all.len());
        let run = dry_run_preemption(&sched, &c, &state, &p, &all, &[], 0, num);
        let best = pick_one_node_for_preemption(&c, &run.candidates)
            .map(|i| c.nodes[run.candidates[i].node].name.as_str());
        assert_eq!(best, Some(want), "{name}");
    }
}

/// `pickOneNodeForPreemption` on hand-made candidates: the PDB criterion comes first.
#[test]
fn pick_one_node_prefers_fewer_pdb_violations() {
    let c = cluster(
        vec![node("node1", NONE, 9, &[]), node("node2", NONE, 9, &[])],
        vec![
            (pod("low", LOW, NONE, Some("node1"), &[]), 0),
            (pod("high", HIGH, NONE, Some("node2"), &[]), 0),
        ],
        vec![],
    );
    let cand = |node, victim, num_pdb_violations| Candidate {
        node,
        victims: vec![victim],
        num_pdb_violations,
    };
    let got = pick_one_node_for_preemption(&c, &[cand(0, 0, 1), cand(1, 1, 0)]);
    assert_eq!(got, Some(1), "a violation outweighs a lower priority");
    assert_eq!(pick_one_node_for_preemption(&c, &[]), None, "no candidates");
}

/// `filterPodsWithPDBViolation`: namespaces, empty selectors, unlabelled pods.
#[test]
fn pdb_violation_split() {
    let mut other_ns = pdb("app", "foo", 0, &[]);
    other_ns.metadata.namespace = Some("other".into());
    let mut empty_selector = pdb("app", "foo", 0, &[]);
    if let Some(s) = empty_selector.spec.as_mut() {
        s.selector = Some(ApiSelector::default());
    }
    let foo = [("app", "foo")];
    #[rustfmt::skip]
    let cases: Vec<SplitCase> = vec![
        ("a budget of 1 lets the first pod go and holds the second",
         vec![pdb("app", "foo", 1, &[])],
         vec![pod("a", LOW, NONE, None, &foo), pod("b", LOW, NONE, None, &foo)], vec!["b"]),
        ("a budget in another namespace does not apply",
         vec![other_ns], vec![pod("a", LOW, NONE, None, &foo)], vec![]),
        ("an empty selector matches nothing",
         vec![empty_selector], vec![pod("a", LOW, NONE, None, &foo)], vec![]),
        ("a pod without labels matches no budget",
         vec![pdb("app", "foo", 0, &[])], vec![pod("a", LOW, NONE, None, &[])], vec![]),
    ];
    for (name, pdbs, pods, want) in cases {
        let c = cluster(vec![], pods.into_iter().map(|p| (p, 0)).collect(), pdbs);
        let ids: Vec<PodId> = (0..c.pods.len()).collect();
        let (violating, non_violating) = filter_pods_with_pdb_violation(&c, &ids, &c.pdbs);
        assert_eq!(names(&c, &violating), want, "{name}");
        assert_eq!(violating.len() + non_violating.len(), ids.len(), "{name}");
    }
}

/// Plugins' `remove_pod`/`add_pod` extensions run on the copied state: a node rejected only by
/// a PreFilter-state count becomes a candidate once its counted pods are victims.
#[test]
fn prefilter_extensions_update_the_copied_state() {
    let blocker = [("block", "true")];
    let c = cluster(
        vec![node("node1", VERY_LARGE, 32, &[])],
        vec![
            (pod("keep", LOW, SMALL, Some("node1"), &[]), 0),
            (pod("blocker", LOW, SMALL, Some("node1"), &blocker), 1),
        ],
        vec![],
    );
    let sched = scheduler(vec![Box::new(Blockers), Box::new(TestFit)]);
    let p = PodInfo::new(pod("p", HIGH, SMALL, None, &[]), 1000);
    let state = pre_filter(&sched, &p, &c);
    let got = select_victims_on_node(&sched, &c, &state, &p, 0, &[]);
    assert_eq!(
        got.map(|(v, n)| (names(&c, &v), n)),
        Ok((vec!["blocker".to_string()], 0)),
        "only the counted pod is a victim"
    );
    let counts = state.read::<BlockerCounts>("Blockers").map(|c| c.0.clone());
    assert_eq!(
        counts,
        Some(BTreeMap::from([("node1".to_string(), 1)])),
        "the cycle's own state is untouched"
    );
}
