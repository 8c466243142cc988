//! PostFilter end to end: messages, nominations, eligibility.

use super::*;

type PostFilterCase = (
    &'static str,
    Pod,
    Cluster,
    Vec<(&'static str, Code)>,
    Option<&'static str>,
    String,
);
type EligibilityCase = (&'static str, Pod, Vec<Pod>, Code, Result<(), &'static str>);

/// Upstream `TestPostFilter`.
#[test]
fn post_filter_cases() {
    use Code::{Unschedulable as U, UnschedulableAndUnresolvable as UU};
    let one_pod = |n: &str| node(n, NONE, 1, &[]);
    let cpu_200 = |n: &str| node(n, (200, 400), 32, &[]);
    let viol = [("test.kubernetes.io/is-violating-pdb", "violating")];
    let non_viol = [("test.kubernetes.io/is-violating-pdb", "non-violating")];
    let msg = |s: &str| format!("no new claims to deallocate, preemption: {s}");
    #[rustfmt::skip]
    let cases: Vec<PostFilterCase> = vec![
        ("a pod with higher priority can be made schedulable",
         pod("p", HIGH, NONE, None, &[]),
         cluster(vec![one_pod("node1")], vec![(pod("p1", LOW, NONE, Some("node1"), &[]), 0)], vec![]),
         vec![("node1", U)], Some("node1"), String::new()),
        ("a pod with tied priority is still unschedulable",
         pod("p", LOW, NONE, None, &[]),
         cluster(vec![one_pod("node1")], vec![(pod("p1", LOW, NONE, Some("node1"), &[]), 0)], vec![]),
         vec![("node1", U)], None,
         msg("0/1 nodes are available: 1 No preemption victims found for incoming pod.")),
        ("preemption respects the nodes' statuses",
         pod("p", HIGH, NONE, None, &[]),
         cluster(vec![one_pod("node1")], vec![(pod("p1", LOW, NONE, Some("node1"), &[]), 0)], vec![]),
         vec![("node1", UU)], None,
         msg("0/1 nodes are available: 1 Preemption is not helpful for scheduling.")),
        ("an absent node counts as UnschedulableAndUnresolvable",
         pod("p", HIGH, NONE, None, &[]),
         cluster(vec![one_pod("node1")], vec![(pod("p1", LOW, NONE, Some("node1"), &[]), 0)], vec![]),
         vec![], None,
         msg("0/1 nodes are available: 1 Preemption is not helpful for scheduling.")),
        ("a pod can be made schedulable on one node",
         pod("p", MID, NONE, None, &[]),
         cluster(vec![one_pod("node1"), one_pod("node2")], vec![
             (pod("p1", HIGH, NONE, Some("node1"), &[]), 0),
             (pod("p2", LOW, NONE, Some("node2"), &[]), 0)], vec![]),
         vec![("node1", U), ("node2", U)], Some("node2"), String::new()),
        ("a pod is made schedulable on the node with the lowest highest-priority victim",
         pod("p", VERY_HIGH, NONE, None, &[]),
         cluster(vec![one_pod("node1"), one_pod("node2")], vec![
             (pod("p1", HIGH, NONE, Some("node1"), &non_viol), 0),
             (pod("p2", LOW, NONE, Some("node1"), &viol), 0),
             (pod("p3", MID, NONE, Some("node2"), &viol), 0)],
             vec![pdb(viol[0].0, viol[0].1, 0, &[]), pdb(non_viol[0].0, non_viol[0].1, i32::MAX, &[])]),
         vec![("node1", U), ("node2", U)], Some("node2"), String::new()),
        ("no candidate when removing lower-priority pods does not free enough cpu",
         pod("p", HIGH, LARGE, None, &[]),
         cluster(vec![cpu_200("node1"), cpu_200("node2")], vec![
             (pod("p1", LOW, NONE, Some("node1"), &[]), 0),
             (pod("p2", LOW, NONE, Some("node2"), &[]), 0)], vec![]),
         vec![("node1", U), ("node2", U)], None,
         msg("0/2 nodes are available: 2 Insufficient cpu.")),
        ("no candidate, with no lower-priority pod on two nodes and too little cpu on one",
         pod("p", HIGH, LARGE, None, &[]),
         cluster(vec![one_pod("node1"), cpu_200("node2"), one_pod("node3")], vec![
             (pod("p1", HIGH, NONE, Some("node1"), &[]), 0),
             (pod("p2", LOW, NONE, Some("node2"), &[]), 0),
             (pod("p3", HIGH, NONE, Some("node3"), &[]), 0)], vec![]),
         vec![("node1", U), ("node2", U), ("node3", U)], None,
         msg("0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod.")),
        ("no candidate, with two unresolvable nodes and two short of cpu",
         pod("p", HIGH, LARGE, None, &[]),
         cluster(vec![cpu_200("node1"), cpu_200("node2"), cpu_200("node3"), cpu_200("node4")], vec![
             (pod("p1", LOW, NONE, Some("node1"), &[]), 0),
             (pod("p2", LOW, NONE, Some("node2"), &[]), 0)], vec![]),
         vec![("node1", U), ("node2", U), ("node4", UU)], None,
         msg("0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling.")),
    ];
    for (name, preemptor, c, codes, want_node, want_msg) in cases {
        let sched = scheduler(vec![Box::new(TestFit)]);
        let p = PodInfo::new(preemptor, 1000);
        let state = pre_filter(&sched, &p, &c);
        let got = post_filter(&sched, &c, &state, &p, &diagnosis(&c, &codes));
        assert_eq!(got.message, want_msg, "{name}");
        // The message alone, from a dry run that stops at the first node with victims.
        let alone = post_filter_message(&sched, &c, &state, &p, &diagnosis(&c, &codes));
        assert_eq!(alone, want_msg, "{name}");
        let got_node = got.nominated.map(|n| c.nodes[n].name.as_str());
        assert_eq!(got_node, want_node, "{name}");
        assert_eq!(got.victims.is_empty(), want_node.is_none(), "{name}");
    }
}

#[test]
fn post_filter_messages_beyond_the_candidate_search() {
    let c = cluster(
        vec![node("node1", NONE, 1, &[])],
        vec![(pod("p1", LOW, NONE, Some("node1"), &[]), 0)],
        vec![],
    );
    let sched = scheduler(vec![Box::new(TestFit)]);
    let d = diagnosis(&c, &[("node1", Code::Unschedulable)]);

    let mut never = pod("p", HIGH, NONE, None, &[]);
    if let Some(s) = never.spec.as_mut() {
        s.preemption_policy = Some("Never".into());
    }
    let p = PodInfo::new(never, 1000);
    let got = post_filter(&sched, &c, &CycleState::default(), &p, &d);
    assert_eq!(
        got.message,
        "no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.",
        "preemptionPolicy Never"
    );
    assert_eq!(got.nominated, None, "preemptionPolicy Never");

    // A node the filters rejected but that fits once it is dry-run: upstream's
    // "expected at least one victim pod" error, reported alone (an Error stops the PostFilters).
    let p = PodInfo::new(pod("p", HIGH, NONE, None, &[]), 1000);
    let lenient = scheduler(vec![]);
    let got = post_filter(&lenient, &c, &CycleState::default(), &p, &d);
    assert_eq!(
        got.message, "preemption: expected at least one victim pod on node \"node1\"",
        "a node that fits with no victims"
    );
    let alone = post_filter_message(&lenient, &c, &CycleState::default(), &p, &d);
    assert_eq!(alone, got.message);
}

/// Upstream `TestPodEligibleToPreemptOthers`, the cases that apply.
#[test]
fn pod_eligibility() {
    let terminating = |name: &str, prio: i32| {
        let mut p = pod(name, prio, NONE, Some("node1"), &[]);
        p.metadata.deletion_timestamp = Some(Time(Default::default()));
        p.status = Some(PodStatus {
            conditions: Some(vec![PodCondition {
                type_: "DisruptionTarget".into(),
                status: "True".into(),
                reason: Some("PreemptionByScheduler".into()),
                ..Default::default()
            }]),
            ..Default::default()
        });
        p
    };
    let nominated = |mut p: Pod| {
        p.status = Some(PodStatus {
            nominated_node_name: Some("node1".into()),
            ..Default::default()
        });
        p
    };
    let mut never = pod("p", HIGH, NONE, None, &[]);
    if let Some(s) = never.spec.as_mut() {
        s.preemption_policy = Some("Never".into());
    }
    let u = Code::Unschedulable;
    #[rustfmt::skip]
    let cases: Vec<EligibilityCase> = vec![
        ("a pod with preemptionPolicy Never is not eligible",
         never, vec![], u, Err(PREEMPTION_POLICY_NEVER)),
        ("a pod without a nominated node is eligible",
         pod("p", HIGH, NONE, None, &[]), vec![terminating("v", LOW)], u, Ok(())),
        ("a lower-priority pod terminating on the nominated node makes it not eligible",
         nominated(pod("p", HIGH, NONE, None, &[])), vec![terminating("v", LOW)], u,
         Err(NOT_ELIGIBLE_TERMINATING)),
        ("a higher-priority terminating pod does not count",
         nominated(pod("p", HIGH, NONE, None, &[])), vec![terminating("v", VERY_HIGH)], u, Ok(())),
        ("a pod deleted for another reason does not count",
         nominated(pod("p", HIGH, NONE, None, &[])),
         vec![{ let mut v = terminating("v", LOW); v.status = None; v }], u, Ok(())),
        ("a nominated node now unresolvable lets the pod preempt again",
         nominated(pod("p", HIGH, NONE, None, &[])), vec![terminating("v", LOW)],
         Code::UnschedulableAndUnresolvable, Ok(())),
    ];
    for (name, preemptor, pods, code, want) in cases {
        let c = cluster(
            vec![node("node1", NONE, 10, &[])],
            pods.into_iter().map(|p| (p, 0)).collect(),
            vec![],
        );
        let p = PodInfo::new(preemptor, 1000);
        let d = diagnosis(&c, &[("node1", code)]);
        assert_eq!(pod_eligible_to_preempt_others(&c, &p, &d), want, "{name}");
    }
}

/// Through the scheduler: the victim is removed, the pod nominated, and the cycle's message has
/// no PostFilter part (DefaultPreemption returned Success).
#[test]
fn schedule_one_nominates_and_removes_victims() {
    let mut c = cluster(
        vec![node("node1", (500, 500), 32, &[])],
        vec![(pod("victim", LOW, LARGE, Some("node1"), &[]), 0)],
        vec![],
    );
    let preemptor = c.add_pod(pod("p", HIGH, LARGE, None, &[]));
    let mut sched = scheduler(vec![Box::new(TestFit)]);
    match sched.schedule_one(&mut c, preemptor) {
        crate::Outcome::Unschedulable { message, nominated } => {
            assert_eq!(
                message,
                "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."
            );
            assert_eq!(nominated, Some((0, vec![0])));
        }
        other => panic!("expected a nomination, got {other:?}"),
    }
    assert_eq!(c.pods[0].node, None, "the victim is gone");
    assert!(matches!(
        sched.schedule_one(&mut c, preemptor),
        crate::Outcome::Scheduled { node: 0, .. }
    ));
}
