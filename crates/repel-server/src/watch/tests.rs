//! Unit tests of `crate::watch`.

use super::*;

fn ev(kind: EventType, prev: Option<Value>, object: Value) -> WatchEvent {
    WatchEvent {
        kind,
        resource: "pods".into(),
        rv: 1,
        object: Stored::encode(&object),
        prev: prev.as_ref().map(Stored::encode),
    }
}

#[test]
fn a_line_from_the_stored_text_is_the_line_of_the_decoded_object() {
    let pod = json!({"kind": "Pod", "metadata": {"name": "p", "labels": {"z": "1", "a": "2"}}, "spec": {"nodeName": "n\"1"}});
    let stored = Stored::encode(&pod);
    for kind in ["ADDED", "MODIFIED", "DELETED"] {
        assert_eq!(raw_line(kind, &stored), line(kind, &pod));
    }
}

#[test]
fn changes_across_the_selection_are_added_or_deleted() {
    let on1 = |v: &Value| v["spec"]["nodeName"] == "node1";
    let unbound = json!({"spec": {}});
    let bound = json!({"spec": {"nodeName": "node1"}});
    let elsewhere = json!({"spec": {"nodeName": "node2"}});
    let on1 = Filter {
        on: true,
        matches: on1,
    };
    let kind = |e: WatchEvent| selected(&e, &on1).map(|(k, _)| k);
    assert_eq!(
        kind(ev(
            EventType::Modified,
            Some(unbound.clone()),
            bound.clone()
        )),
        Some(EventType::Added)
    );
    assert_eq!(
        kind(ev(EventType::Modified, Some(bound.clone()), bound.clone())),
        Some(EventType::Modified)
    );
    assert_eq!(
        kind(ev(
            EventType::Modified,
            Some(bound.clone()),
            elsewhere.clone()
        )),
        Some(EventType::Deleted)
    );
    assert_eq!(
        kind(ev(EventType::Modified, Some(unbound.clone()), elsewhere)),
        None
    );
    assert_eq!(kind(ev(EventType::Added, None, unbound)), None);
    assert_eq!(
        kind(ev(EventType::Deleted, None, bound)),
        Some(EventType::Deleted)
    );
}
