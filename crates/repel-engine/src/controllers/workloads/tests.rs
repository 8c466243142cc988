//! Upstream's table tests of the Deployment controller (v1.35,
//! `pkg/controller/deployment/rolling_test.go` and `util/deployment_util_test.go`), ported:
//! each upstream case keeps its numbers, and a case name says what it shows.
#![allow(clippy::unwrap_used)]

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::deployment::*;
use crate::events::Event;

fn int(i: i32) -> Option<IntOrString> {
    Some(IntOrString::Int(i))
}

fn pct(s: &str) -> Option<IntOrString> {
    Some(IntOrString::String(s.to_string()))
}

/// Runs `f` on a sync of a Deployment `foo` with `strategy`; returns its result and events.
fn with_sync<R>(strategy: Strategy, f: impl FnOnce(&mut Sync<'_>) -> R) -> (R, Vec<Event>) {
    let mut events = Vec::new();
    let mut writes = Some(Vec::new());
    let mut sync = Sync {
        strategy,
        namespace: "default".into(),
        name: "foo".into(),
        now: 0,
        events: &mut events,
        writes: &mut writes,
    };
    let r = f(&mut sync);
    (r, events)
}

#[test]
fn reconcile_new_replica_set() {
    // (name, deploymentReplicas, maxSurge, oldReplicas, newReplicas, scaleExpected,
    // expectedNewReplicas)
    let cases = [
        (
            "no surge: the new ReplicaSet cannot grow",
            10,
            0,
            10,
            0,
            false,
            0,
        ),
        (
            "a surge of 2 over 10 old pods: 2 new",
            10,
            2,
            10,
            0,
            true,
            2,
        ),
        ("5 old pods leave room for 7 new", 10, 2, 5, 0, true, 7),
        ("the surge is used up already", 10, 2, 10, 2, false, 2),
        (
            "a new ReplicaSet above replicas scales down to them",
            10,
            2,
            2,
            11,
            true,
            10,
        ),
    ];
    for (name, replicas, surge, old, new, scale, expected) in cases {
        let strategy = Strategy::rolling(replicas, int(surge), int(0));
        let mut rss = vec![
            ReplicaSetState::with_counts("foo-v2", new, new),
            ReplicaSetState::with_counts("foo-v1", old, old),
        ];
        let (scaled, events) = with_sync(strategy, |s| s.reconcile_new_replica_set(&mut rss, 0));
        assert_eq!(scaled, scale, "{name}");
        assert_eq!(
            rss[0].replicas,
            if scale { expected } else { new },
            "{name}"
        );
        assert_eq!(events.len(), usize::from(scale), "{name}");
    }
}

#[test]
fn reconcile_old_replica_sets() {
    // (name, deploymentReplicas, maxUnavailable, oldReplicas, newReplicas, readyPodsFromOldRS,
    // readyPodsFromNewRS, scaleExpected, expectedOldReplicas)
    let cases = [
        (
            "no unavailability allowed: fenceposts make it 1",
            10,
            0,
            10,
            0,
            10,
            0,
            true,
            9,
        ),
        (
            "2 may be unavailable: 2 old pods go",
            10,
            2,
            10,
            0,
            10,
            0,
            true,
            8,
        ),
        (
            "unhealthy old replicas are cleaned up",
            10,
            2,
            10,
            0,
            8,
            0,
            true,
            8,
        ),
        (
            "1 unhealthy cleaned up and 1 ready scaled down",
            10,
            2,
            10,
            0,
            9,
            0,
            true,
            8,
        ),
        (
            "the new ReplicaSet's unavailable pods hold the old back",
            10,
            2,
            8,
            2,
            8,
            0,
            false,
            8,
        ),
    ];
    for (name, replicas, mu, old, new, ready_old, ready_new, scale, expected) in cases {
        let strategy = Strategy::rolling(replicas, int(0), int(mu));
        let mut rss = vec![
            ReplicaSetState::with_counts("foo-old", old, ready_old),
            ReplicaSetState::with_counts("foo-new", new, ready_new),
        ];
        rss[1].created = 1;
        let (scaled, _) = with_sync(strategy, |s| {
            s.reconcile_old_replica_sets(&mut rss, &[0], 1)
        });
        assert_eq!(scaled, scale, "{name}");
        assert_eq!(rss[0].replicas, expected, "{name}");
    }
}

#[test]
fn cleanup_unhealthy_replicas() {
    // (name, oldReplicas, readyPods, unHealthyPods, maxCleanupCount, cleanupCountExpected)
    let cases = [
        ("at most maxCleanupCount of 2 unhealthy", 10, 8, 2, 1, 1),
        ("no more than the unhealthy ones", 10, 8, 2, 3, 2),
        ("nothing when nothing may go", 10, 8, 2, 0, 0),
        ("nothing when all are healthy", 10, 10, 0, 3, 0),
    ];
    for (name, old, ready, unhealthy, max, expected) in cases {
        let strategy = Strategy::rolling(10, int(2), int(2));
        let mut rss = vec![ReplicaSetState::with_counts("foo-v2", old, ready)];
        let (count, _) = with_sync(strategy, |s| {
            s.cleanup_unhealthy_replicas(&mut rss, &mut [0], max)
        });
        assert_eq!(count, expected, "{name}");
        assert_eq!(rss[0].replicas, old - expected, "{name}");
        assert!(expected <= unhealthy, "{name}");
    }
}

#[test]
fn scale_down_old_replica_sets_for_rolling_update() {
    // (name, deploymentReplicas, maxUnavailable, readyPods, oldReplicas, scaleExpected,
    // expectedOldReplicas)
    let cases = [
        (
            "no unavailability allowed: fenceposts make it 1",
            10,
            0,
            10,
            10,
            true,
            9,
        ),
        ("2 may be unavailable", 10, 2, 10, 10, true, 8),
        ("too few ready pods to lose any", 10, 2, 8, 10, false, 10),
        ("nothing left to scale down", 10, 2, 10, 0, false, 0),
        ("far too few ready pods", 10, 2, 1, 10, false, 10),
    ];
    for (name, replicas, mu, ready, old, scale, expected) in cases {
        let strategy = Strategy::rolling(replicas, int(0), int(mu));
        let mut rss = vec![ReplicaSetState::with_counts("foo-v2", old, ready)];
        let (scaled, _) = with_sync(strategy, |s| {
            s.scale_down_old_replica_sets_for_rolling_update(&mut rss, &[0], &[0])
        });
        assert_eq!(scaled > 0, scale, "{name}");
        assert_eq!(rss[0].replicas, expected, "{name}");
    }
}

#[test]
fn new_rs_new_replicas_follows_upstream() {
    // Upstream TestNewRSNewReplicas: the other ReplicaSet has 5 replicas; maxUnavailable 1.
    // (name, recreate, depReplicas, newRSReplicas, maxSurge, expected)
    let cases = [
        ("can not scale up - to newRSReplicas", false, 1, 5, 1, 5),
        ("scale up - to depReplicas", false, 6, 2, 10, 6),
        ("recreate - to depReplicas", true, 3, 1, 1, 3),
    ];
    for (name, recreate, replicas, new, surge, expected) in cases {
        let mut s = Strategy::rolling(replicas, int(surge), int(1));
        s.recreate = recreate;
        assert_eq!(new_rs_new_replicas(&s, 5, new), Ok(expected), "{name}");
    }
}

#[test]
fn resolve_fenceposts_follows_upstream() {
    // Upstream TestResolveFenceposts.
    type Case = (
        &'static str,
        Option<IntOrString>,
        Option<IntOrString>,
        i32,
        Option<(i32, i32)>,
    );
    let cases: [Case; 7] = [
        (
            "0% and 0% of 0: unavailable 1",
            pct("0%"),
            pct("0%"),
            0,
            Some((0, 1)),
        ),
        (
            "39% of 10: surge up, unavailable down",
            pct("39%"),
            pct("39%"),
            10,
            Some((4, 3)),
        ),
        (
            "a surge that is no percentage",
            pct("oops"),
            pct("39%"),
            10,
            None,
        ),
        (
            "an unavailable that is no percentage",
            pct("55%"),
            pct("urg"),
            10,
            None,
        ),
        ("no surge", None, pct("39%"), 10, Some((0, 3))),
        ("no unavailable", pct("39%"), None, 10, Some((4, 0))),
        ("neither: unavailable 1", None, None, 10, Some((0, 1))),
    ];
    for (name, surge, unavailable, desired, expected) in cases {
        let got = resolve_fenceposts(surge.as_ref(), unavailable.as_ref(), desired);
        assert_eq!(got.ok(), expected, "{name}");
    }
    assert_eq!(
        scaled_value(&IntOrString::String("oops".into()), 10, true),
        Err("invalid value for IntOrString: invalid type: string is not a percentage".into())
    );
}

#[test]
fn max_unavailable_follows_upstream() {
    // Upstream TestMaxUnavailable: maxSurge 1.
    let cases = [
        ("maxUnavailable less than replicas", 10, int(5), 5),
        ("maxUnavailable equal replicas", 10, int(10), 10),
        ("maxUnavailable greater than replicas", 5, int(10), 5),
        ("maxUnavailable with replicas is 0", 0, int(10), 0),
        (
            "maxUnavailable less than replicas with percents",
            10,
            pct("50%"),
            5,
        ),
        (
            "maxUnavailable equal replicas with percents",
            10,
            pct("100%"),
            10,
        ),
        (
            "maxUnavailable greater than replicas with percents",
            5,
            pct("100%"),
            5,
        ),
    ];
    for (name, replicas, mu, expected) in cases {
        let s = Strategy::rolling(replicas, int(1), mu);
        assert_eq!(max_unavailable(&s), expected, "{name}");
    }
    let mut recreate = Strategy::rolling(10, int(1), int(5));
    recreate.recreate = true;
    assert_eq!(max_unavailable(&recreate), 0, "Recreate allows none");
    assert_eq!(max_surge(&recreate), 0, "Recreate surges none");
}

#[test]
fn max_surge_rounds_up_and_defaults_to_a_quarter() {
    let cases = [
        ("25% of 10 rounds up to 3", 10, pct("25%"), 3),
        ("25% of 1 rounds up to 1", 1, pct("25%"), 1),
        ("an absolute surge", 10, int(4), 4),
        ("0% surges none", 10, pct("0%"), 0),
    ];
    for (name, replicas, surge, expected) in cases {
        let s = Strategy::rolling(replicas, surge, int(0));
        assert_eq!(max_surge(&s), expected, "{name}");
    }
    let d: k8s_openapi::api::apps::v1::Deployment = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "web"},
        "spec": {"replicas": 10, "selector": {}, "template": {}}
    }))
    .unwrap();
    let s = Strategy::of(&d);
    assert_eq!(
        (max_surge(&s), max_unavailable(&s)),
        (3, 2),
        "defaults 25%/25%"
    );
    assert_eq!(s.revision_history_limit, 10);
}

#[test]
fn scaling_events_are_upstreams_words() {
    let strategy = Strategy::rolling(10, int(2), int(0));
    let mut rss = vec![
        ReplicaSetState::with_counts("foo-v2", 0, 0),
        ReplicaSetState::with_counts("foo-v1", 10, 10),
    ];
    let (_, events) = with_sync(strategy.clone(), |s| {
        s.reconcile_new_replica_set(&mut rss, 0)
    });
    assert_eq!(events[0].reason, SCALING_REPLICA_SET);
    assert_eq!(events[0].object, "Deployment/default/foo");
    assert_eq!(
        events[0].message,
        "Scaled up replica set foo-v2 from 0 to 2"
    );
    let (_, events) = with_sync(strategy, |s| s.scale_and_record(&mut rss[1], 8));
    assert_eq!(
        events[0].message,
        "Scaled down replica set foo-v1 from 10 to 8"
    );
    assert_eq!(
        rss[1]
            .annotations
            .get(DESIRED_REPLICAS_ANNOTATION)
            .map(String::as_str),
        Some("10")
    );
    assert_eq!(
        rss[1]
            .annotations
            .get(MAX_REPLICAS_ANNOTATION)
            .map(String::as_str),
        Some("12")
    );
}

#[test]
fn a_scaling_event_mid_rollout_is_spread_in_proportion() {
    // 13 pods (8 old, 5 new) of a rollout of 10 with maxSurge 3; scaled to 20 (maxSurge 5):
    // 25 allowed, 12 more, 8·25/13 → 15 and 5·25/13 → 10.
    let strategy = Strategy::rolling(20, pct("25%"), pct("25%"));
    let mut rss = vec![
        ReplicaSetState::with_counts("foo-old", 8, 8),
        ReplicaSetState::with_counts("foo-new", 5, 5),
    ];
    rss[1].created = 1;
    for rs in &mut rss {
        rs.annotations
            .insert(MAX_REPLICAS_ANNOTATION.into(), "13".into());
        rs.annotations
            .insert(DESIRED_REPLICAS_ANNOTATION.into(), "10".into());
    }
    let (_, events) = with_sync(strategy, |s| s.scale(&mut rss, Some(1), 13));
    assert_eq!((rss[0].replicas, rss[1].replicas), (15, 10));
    let messages: Vec<&str> = events.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "Scaled up replica set foo-old from 8 to 15",
            "Scaled up replica set foo-new from 5 to 10"
        ]
    );
}

#[test]
fn cleanup_deployment_deletes_the_oldest_empty_revisions_beyond_the_limit() {
    let mut strategy = Strategy::rolling(1, int(1), int(0));
    strategy.revision_history_limit = 1;
    let mut rss: Vec<ReplicaSetState> = (1..=4)
        .map(|i| {
            let mut rs = ReplicaSetState::with_counts(&format!("foo-{i}"), 0, 0);
            rs.annotations
                .insert(REVISION_ANNOTATION.into(), i.to_string());
            rs.created = i as u64;
            rs
        })
        .collect();
    // Revision 1 still has a pod: it is kept, and not replaced by another.
    rss[0].replicas = 1;
    rss[0].status.replicas = 1;
    let (deleted, _) = with_sync(strategy, |s| s.cleanup_deployment(&rss, &[0, 1, 2, 3]));
    assert_eq!(deleted, [2, 1], "revisions 2 and 3 go, highest index first");
}

#[test]
fn a_rollback_raises_the_revision_and_keeps_the_old_one() {
    let strategy = Strategy::rolling(1, int(1), int(0));
    let mut rs = ReplicaSetState::with_counts("foo-1", 0, 0);
    rs.annotations
        .insert(REVISION_ANNOTATION.into(), "1".into());
    let deployment_annotations = [("team".to_string(), "a".to_string())].into();
    let (changed, _) = with_sync(strategy, |s| {
        s.set_new_replica_set_annotations(&deployment_annotations, &mut rs, 3, true)
    });
    assert_eq!(rs.revision(), 3);
    assert_eq!(
        rs.annotations
            .get(REVISION_HISTORY_ANNOTATION)
            .map(String::as_str),
        Some("1")
    );
    assert_eq!(
        changed.len(),
        3,
        "revision, history and the copied annotation"
    );
}

/// `kubectl rollout undo` patches the old ReplicaSet's template back as Go serialises it
/// (`resources: {}`): apimachinery's semantic equality takes empty maps and lists for absent
/// ones, so the old ReplicaSet is found, not a new one made.
#[test]
fn equal_ignore_hash_takes_empty_fields_for_absent_ones() {
    let t = |v: serde_json::Value| -> k8s_openapi::api::core::v1::PodTemplateSpec {
        serde_json::from_value(v).unwrap_or_default()
    };
    let stored = t(serde_json::json!({
        "metadata": {"labels": {"app": "web", "pod-template-hash": "5776d5bb59"}},
        "spec": {"containers": [{"name": "web", "image": "nginx"}]}
    }));
    let undone = t(serde_json::json!({
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {}}], "tolerations": []}
    }));
    assert!(equal_ignore_hash(&stored, &undone));
    let other = t(serde_json::json!({
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "resources": {}}]}
    }));
    assert!(!equal_ignore_hash(&stored, &other));
}
