//! Unit tests of `crate::event_correlator`.
#![allow(clippy::unwrap_used)]
use super::*;

fn created(rs: &str, pod: &str) -> (String, String) {
    (rs.to_string(), format!("Created pod: {pod}"))
}

/// Records `events` (object name, message) at `at`, writing creates as `<object>.<n>`;
/// returns the outcomes.
fn run(c: &mut Correlator, events: &[(String, String)], at: Millis) -> Vec<Correlation> {
    let mut out = Vec::new();
    for (i, (name, message)) in events.iter().enumerate() {
        let o = c.record(
            &Recording {
                component: "replicaset-controller",
                kind: "ReplicaSet",
                namespace: "default",
                name,
                uid: "u1",
                api_version: "apps/v1",
                type_: "Normal",
                reason: "SuccessfulCreate",
                message,
            },
            at,
        );
        if let Correlation::Create { key, .. } = &o {
            c.created(key.clone(), format!("{name}.{at}.{i}"));
        }
        out.push(o);
    }
    out
}

#[test]
fn a_replica_set_creating_many_pods_records_nine_then_one_combined_then_nothing() {
    let mut c = Correlator::new();
    let events: Vec<_> = (0..40)
        .map(|i| created("web-1", &format!("p{i}")))
        .collect();
    let out = run(&mut c, &events, 0);
    // Nine distinct messages are recorded as they are.
    for (i, o) in out.iter().take(9).enumerate() {
        assert_eq!(
            o,
            &Correlation::Create {
                message: format!("Created pod: p{i}"),
                key: format!(
                    "replicaset-controller\0ReplicaSet\0default\0web-1\0u1\0apps/v1\0Normal\0SuccessfulCreate\0Created pod: p{i}"
                ),
            }
        );
    }
    // The tenth starts one combined event...
    assert!(matches!(&out[9], Correlation::Create { message, .. }
        if message == "(combined from similar events): Created pod: p9"));
    // ...which the next ones count, up to the spam filter's burst of 25 in all...
    for (i, o) in out.iter().enumerate().take(25).skip(10) {
        assert_eq!(
            o,
            &Correlation::Update {
                name: "web-1.0.9".into(),
                count: (i - 8) as u32,
                message: format!("(combined from similar events): Created pod: p{i}"),
            }
        );
    }
    // ...and the rest are dropped until the bucket refills (one per 300 s).
    assert!(out[25..].iter().all(|o| *o == Correlation::Skip));
    let later = run(&mut c, &[created("web-1", "p40")], 300_000);
    assert!(matches!(&later[0], Correlation::Update { count: 17, .. }));
    assert_eq!(
        run(&mut c, &[created("web-1", "p41")], 300_000)[0],
        Correlation::Skip
    );
}

#[test]
fn the_same_event_again_is_counted_and_other_objects_have_their_own_budget() {
    let mut c = Correlator::new();
    let same = vec![created("web-1", "p0"); 3];
    let out = run(&mut c, &same, 0);
    assert!(matches!(&out[0], Correlation::Create { .. }));
    assert_eq!(
        out[2],
        Correlation::Update {
            name: "web-1.0.0".into(),
            count: 3,
            message: "Created pod: p0".into()
        }
    );
    let other: Vec<_> = (0..9).map(|i| created("web-2", &format!("p{i}"))).collect();
    assert!(
        run(&mut c, &other, 0)
            .iter()
            .all(|o| matches!(o, Correlation::Create { .. }))
    );
}

#[test]
fn similar_events_more_than_ten_minutes_apart_start_again() {
    let mut c = Correlator::new();
    let first: Vec<_> = (0..9).map(|i| created("web-1", &format!("p{i}"))).collect();
    run(&mut c, &first, 0);
    // 600 s later is still within the interval: the tenth message combines.
    let tenth = run(&mut c, &[created("web-1", "p9")], 600_000);
    assert!(
        matches!(&tenth[0], Correlation::Create { message, .. } if message.starts_with(COMBINED_PREFIX))
    );
    // More than 600 s after the last one, the count of messages starts again.
    let fresh = run(&mut c, &[created("web-1", "p10")], 1_200_001);
    assert_eq!(
        fresh[0],
        Correlation::Create {
            message: "Created pod: p10".into(),
            key: "replicaset-controller\0ReplicaSet\0default\0web-1\0u1\0apps/v1\0Normal\0SuccessfulCreate\0Created pod: p10".into(),
        }
    );
}
