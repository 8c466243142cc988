//! What preemption does over time: the victims deleted gracefully (upstream
//! `TestPrepareCandidate`), the room held for the nominated pod in other pods' filters
//! (`TestFilterPluginsWithNominatedPods`), and the nominated node tried first
//! (`TestPreferNominatedNode`).

use super::*;
use crate::events::Event;

/// A pod as upstream's `st.MakePod().Name(n).UID(n)…SchedulerName("default-scheduler")`.
fn with_uid(mut p: Pod) -> Pod {
    p.metadata.uid = p.metadata.name.clone();
    if let Some(s) = p.spec.as_mut() {
        s.scheduler_name = Some("default-scheduler".into());
    }
    p
}

fn preempting_condition() -> PodCondition {
    PodCondition {
        type_: "DisruptionTarget".into(),
        status: "True".into(),
        reason: Some("PreemptionByScheduler".into()),
        message: Some("default-scheduler: preempting to accommodate a higher priority pod".into()),
        ..Default::default()
    }
}

type PrepareCase = (&'static str, Vec<Pod>, Vec<&'static str>, Vec<&'static str>);

/// Upstream `TestPrepareCandidate` (v1.35), the cases that apply (no API errors, no pod
/// groups, no async variant): which victims are deleted, and the events. Here a deletion is
/// graceful: the victim is marked (`deletionTimestamp`, `deletionGracePeriodSeconds`) and
/// stays bound, Terminating, with the `DisruptionTarget` condition.
#[test]
fn test_prepare_candidate() {
    let victim1 = || with_uid(pod("victim1", MID, NONE, Some("node1"), &[]));
    let with_condition = || {
        let mut p = victim1();
        p.status = Some(PodStatus {
            conditions: Some(vec![preempting_condition()]),
            ..Default::default()
        });
        p
    };
    let being_deleted = || {
        let mut p = victim1();
        p.metadata.name = Some("victim1-with-deletion-timestamp".into());
        p.metadata.uid = p.metadata.name.clone();
        p.metadata.deletion_timestamp = Some(Time(Default::default()));
        p
    };
    #[rustfmt::skip]
    let cases: Vec<PrepareCase> = vec![
        ("no victims", vec![victim1()], vec![], vec![]),
        ("one victim without condition", vec![victim1()], vec!["victim1"], vec!["victim1"]),
        ("one victim, but victim is already being deleted",
         vec![being_deleted()], vec!["victim1-with-deletion-timestamp"], vec![]),
        ("one victim with same condition", vec![with_condition()], vec!["victim1"], vec!["victim1"]),
    ];
    for (name, pods, victims, want_deleted) in cases {
        let mut c = cluster(
            vec![node("node1", VERY_LARGE, 32, &[])],
            pods.into_iter().map(|p| (p, 0)).collect(),
            vec![],
        );
        let preemptor = c.add_pod(with_uid(pod("preemptor", HIGH, NONE, None, &[])));
        let ids: Vec<PodId> = victims
            .iter()
            .filter_map(|v| c.pod_id("default", v))
            .collect();
        let mut events: Vec<Event> = Vec::new();
        c.record(true);
        prepare_candidate(&mut c, 10_000, preemptor, 0, &ids, &mut events);
        let deleted: Vec<String> = events.iter().map(|e| e.object.clone()).collect();
        let want: Vec<String> = want_deleted
            .iter()
            .map(|v| format!("Pod/default/{v}"))
            .collect();
        assert_eq!(deleted, want, "{name}: the Preempted events");
        for e in &events {
            assert_eq!(
                (e.reason.as_str(), e.message.as_str(), e.node.as_deref()),
                (
                    "Preempted",
                    "Preempted by pod preemptor on node node1",
                    Some("node1")
                ),
                "{name}"
            );
        }
        for v in &want_deleted {
            let p = &c.pods[c.pod_id("default", v).unwrap()];
            assert!(p.terminating && !p.deleted, "{name}: {v} is Terminating");
            assert_eq!(p.node, Some(0), "{name}: {v} still holds its room");
            assert_eq!(p.meta.deletion_grace_period_seconds, Some(30), "{name}");
            assert!(p.meta.deletion_timestamp.is_some(), "{name}");
            let conditions = p.status.as_ref().and_then(|s| s.conditions.clone());
            assert_eq!(conditions, Some(vec![preempting_condition()]), "{name}");
            assert!(terminating_by_preemption(p), "{name}");
        }
    }
}

/// Upstream `TestPrepareCandidate` "one victim, but victim is already deleted": nothing to do.
#[test]
fn test_prepare_candidate_victim_already_deleted() {
    let mut c = cluster(
        vec![node("node1", VERY_LARGE, 32, &[])],
        vec![(with_uid(pod("victim1", MID, NONE, Some("node1"), &[])), 0)],
        vec![],
    );
    c.force_delete_pod(0);
    let preemptor = c.add_pod(with_uid(pod("preemptor", HIGH, NONE, None, &[])));
    let mut events = Vec::new();
    prepare_candidate(&mut c, 0, preemptor, 0, &[0], &mut events);
    assert!(
        events.is_empty(),
        "one victim, but victim is already deleted"
    );
}

/// The victim's own grace period, and a grace period of 0 (deleted at once, as the API
/// server does); lower-priority pods nominated for the node lose their nomination.
#[test]
fn prepare_candidate_uses_the_victims_grace_period_and_clears_lower_nominations() {
    let mut quick = with_uid(pod("quick", LOW, NONE, Some("node1"), &[]));
    let mut now = with_uid(pod("now", LOW, NONE, Some("node1"), &[]));
    if let (Some(q), Some(n)) = (quick.spec.as_mut(), now.spec.as_mut()) {
        q.termination_grace_period_seconds = Some(5);
        n.termination_grace_period_seconds = Some(0);
    }
    let mut c = cluster(
        vec![node("node1", VERY_LARGE, 32, &[])],
        vec![(quick, 0), (now, 1)],
        vec![],
    );
    let lower = c.add_pod(pod("lower", MID, NONE, None, &[]));
    let higher = c.add_pod(pod("higher", VERY_HIGH, NONE, None, &[]));
    c.set_nominated(lower, Some(0));
    c.set_nominated(higher, Some(0));
    let preemptor = c.add_pod(pod("p", HIGH, NONE, None, &[]));
    let mut events = Vec::new();
    prepare_candidate(&mut c, 0, preemptor, 0, &[0, 1], &mut events);
    assert_eq!(c.pods[0].meta.deletion_grace_period_seconds, Some(5));
    assert!(c.pods[0].terminating);
    assert!(c.pods[1].deleted, "a grace period of 0 deletes at once");
    assert_eq!(
        events
            .iter()
            .map(|e| e.message.as_str())
            .collect::<Vec<_>>(),
        ["Preempted by pod default/p on node node1"; 2],
        "a pod without a uid is named by namespace/name"
    );
    assert_eq!(
        c.pods[lower].nominated, None,
        "a lower-priority nomination is cleared"
    );
    assert_eq!(
        c.pods[lower]
            .status
            .as_ref()
            .and_then(|s| s.nominated_node_name.clone()),
        None
    );
    assert_eq!(c.pods[higher].nominated, Some(0), "a higher one stays");
    assert_eq!(c.nominated_pods(0), vec![higher]);
}

type NominatedCase = (
    &'static str,
    Pod,
    Option<Pod>,
    Result<(), Vec<&'static str>>,
);

/// Upstream `TestFilterPluginsWithNominatedPods` (v1.35, `runtime/framework_test.go`), the
/// cases that apply (repel's PreFilter extensions cannot fail), with NodeResourcesFit's
/// stand-in as the filter, and the cases that show what the nominated pods are for: a pod
/// does not take room held for a nominated pod of equal or higher priority.
#[test]
fn test_filter_plugins_with_nominated_pods() {
    let low = |name: &str, req| pod(name, LOW, req, None, &[]);
    let high = |name: &str, req| pod(name, HIGH, req, None, &[]);
    #[rustfmt::skip]
    let cases: Vec<NominatedCase> = vec![
        ("node has no nominated pod", low("p", SMALL), None, Ok(())),
        ("node has a high-priority nominated pod and all filters succeed",
         low("p", SMALL), Some(high("n", SMALL)), Ok(())),
        ("node has a low-priority nominated pod and pre filters return unschedulable",
         high("p", LARGE), Some(low("n", LARGE)), Ok(())),
        ("a high-priority nominated pod holds its room from a lower-priority pod",
         low("p", LARGE), Some(high("n", LARGE)),
         Err(vec!["Insufficient cpu", "Insufficient memory"])),
        ("a nominated pod of equal priority holds its room too",
         high("p", LARGE), Some(high("n", LARGE)),
         Err(vec!["Insufficient cpu", "Insufficient memory"])),
    ];
    for (name, p, nominated, want) in cases {
        // node1 has 500 of each; a pod on it uses 100.
        let mut c = cluster(
            vec![node("node1", VERY_LARGE, 32, &[])],
            vec![(pod("existing", NEG, SMALL, Some("node1"), &[]), 0)],
            vec![],
        );
        if let Some(n) = nominated {
            let id = c.add_pod(n);
            c.set_nominated(id, Some(0));
        }
        let id = c.add_pod(p);
        let sched = scheduler(vec![Box::new(TestFit)]);
        let info = c.pods[id].clone();
        let state = pre_filter(&sched, &info, &c);
        let st = sched.run_filters_with_nominated(&state, &info, &c.nodes[0], &c);
        let got = if st.is_success() {
            Ok(())
        } else {
            Err(st.reasons.clone())
        };
        let want = want.map_err(|r| r.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(got, want, "{name}");
    }
}

/// A nominated pod is not its own ghost: the preemptor itself fits the room it holds.
#[test]
fn a_nominated_pod_is_not_counted_against_itself() {
    let mut c = cluster(vec![node("node1", VERY_LARGE, 32, &[])], vec![], vec![]);
    let id = c.add_pod(pod("p", HIGH, VERY_LARGE, None, &[]));
    c.set_nominated(id, Some(0));
    let sched = scheduler(vec![Box::new(TestFit)]);
    let info = c.pods[id].clone();
    let state = pre_filter(&sched, &info, &c);
    assert!(
        sched
            .run_filters_with_nominated(&state, &info, &c.nodes[0], &c)
            .is_success()
    );
}

/// A case name, the pods already bound (name, node, requests), the preemptor's requests, the
/// node it must land on.
type PreferCase = (
    &'static str,
    Vec<(&'static str, &'static str, (i64, i64))>,
    (i64, i64),
    &'static str,
);

/// Upstream `TestPreferNominatedNode` (v1.35, `test/integration/scheduler/preemption`): a
/// pod nominated for a node that passes every filter goes there; one whose nominated node
/// no longer fits it goes elsewhere. And a case that shows the nominated node is tried first:
/// it is taken even where another node would score higher.
#[test]
fn test_prefer_nominated_node() {
    let default_res = (100, 100);
    #[rustfmt::skip]
    let cases: Vec<PreferCase> = vec![
        ("nominated node released all resource, preemptor is scheduled to the nominated node",
         vec![("low-pod1", "node-2", default_res)], (500, 200), "node-1"),
        ("nominated node cannot pass all the filters, preemptor should find a different node",
         vec![("low-pod", "node-1", default_res)], (500, 200), "node-2"),
        ("the nominated node is taken though another node would score higher",
         vec![("low-pod", "node-1", (300, 300))], (100, 100), "node-1"),
    ];
    for (name, existing, req, want) in cases {
        let mut c = cluster(
            vec![
                node("node-1", VERY_LARGE, 32, &[]),
                node("node-2", VERY_LARGE, 32, &[]),
            ],
            existing
                .into_iter()
                .map(|(n, on, r)| (pod(n, LOW, r, Some(on), &[]), 0))
                .collect(),
            vec![],
        );
        let mut p = pod("preemptor-pod", HIGH, req, None, &[]);
        p.status = Some(PodStatus {
            nominated_node_name: Some("node-1".into()),
            ..Default::default()
        });
        let id = c.add_pod(p);
        let mut sched = Scheduler::new(FeatureGates::default(), None, 1);
        match sched.schedule_one(&mut c, id) {
            crate::Outcome::Scheduled { node, .. } => {
                assert_eq!(c.nodes[node].name, want, "{name}")
            }
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(
            c.pods[id]
                .status
                .as_ref()
                .and_then(|s| s.nominated_node_name.clone()),
            None,
            "{name}: the binding clears nominatedNodeName"
        );
    }
}
