//! Unit tests of `crate::event_ttl`.

use super::*;
use serde_json::json;

fn at(s: &str) -> Timestamp {
    crate::time::parse(s).unwrap_or(Timestamp::UNIX_EPOCH)
}

#[test]
fn an_event_lives_ttl_after_its_last_write() {
    let ev = json!({"metadata": {"name": "e", "namespace": "default",
                                 "creationTimestamp": "2026-12-07T10:00:00Z"},
                    "lastTimestamp": "2026-12-07T10:30:00Z"});
    let last = last_write(&ev).unwrap_or(Timestamp::UNIX_EPOCH);
    assert_eq!(last, at("2026-12-07T10:30:00Z"), "the count's last write");
    assert!(!expired(
        last,
        at("2026-12-07T11:30:00Z"),
        DEFAULT_EVENT_TTL
    ));
    assert!(expired(last, at("2026-12-07T11:30:01Z"), DEFAULT_EVENT_TTL));
    // events.k8s.io/v1: the series' last observation.
    let series = json!({"eventTime": "2026-12-07T10:00:00.000000Z",
                        "series": {"count": 3, "lastObservedTime": "2026-12-07T10:45:00.000000Z"}});
    assert_eq!(last_write(&series), Some(at("2026-12-07T10:45:00Z")));
    assert_eq!(last_write(&json!({"metadata": {"name": "x"}})), None);
}

#[test]
fn the_ttl_is_cluster_time_scaled_to_the_wall_clock() {
    assert_eq!(wall_ttl(DEFAULT_EVENT_TTL, 1.0), DEFAULT_EVENT_TTL);
    assert_eq!(wall_ttl(DEFAULT_EVENT_TTL, 60.0), Duration::from_secs(60));
    assert_eq!(wall_ttl(DEFAULT_EVENT_TTL, 0.0), DEFAULT_EVENT_TTL);
}

#[test]
fn a_sweep_deletes_only_expired_events() {
    use k8s_openapi::jiff::SignedDuration;
    // The store stamps creationTimestamp with the wall clock: the sweep is two hours on.
    let real = crate::time::now();
    let shift = |h: i64| {
        crate::time::rfc3339(
            real.checked_add(SignedDuration::from_mins(h))
                .unwrap_or(real),
        )
    };
    let dir = tempfile::tempdir().unwrap();
    for store in [Store::in_memory(), Store::open(dir.path()).unwrap()] {
        for (name, last) in [("old", shift(-60)), ("new", shift(90))] {
            let ev = json!({"apiVersion": "v1", "kind": "Event",
                        "metadata": {"name": name, "namespace": "default"},
                        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
                        "reason": "Scheduled", "message": "m", "type": "Normal",
                        "lastTimestamp": last});
            assert!(store.create(EVENTS, ev).is_ok());
        }
        let later = real
            .checked_add(SignedDuration::from_mins(120))
            .unwrap_or(real);
        assert_eq!(sweep(&store, later, DEFAULT_EVENT_TTL), 1);
        let (left, _) = store.list(EVENTS, None);
        let names: Vec<&str> = left
            .iter()
            .filter_map(|e| e["metadata"]["name"].as_str())
            .collect();
        assert_eq!(names, ["new"]);
        assert_eq!(sweep(&store, later, DEFAULT_EVENT_TTL), 0);
    }
}
