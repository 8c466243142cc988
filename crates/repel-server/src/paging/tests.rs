//! Paging as etcd3's `GetList` pages (its `TestListContinuation` and
//! `TestListPaginationRareObject` cases, on repel's store).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::*;
use crate::query::decode_continue;

fn store_with(names: &[(&str, &str, &str)]) -> Store {
    let s = Store::in_memory();
    for (ns, name, app) in names {
        s.create(
            "pods",
            json!({"metadata": {"name": name, "namespace": ns, "labels": {"app": app}}}),
        )
        .unwrap();
    }
    s
}

fn names(p: &Page) -> Vec<String> {
    p.items
        .iter()
        .map(|o| {
            o.decode()["metadata"]["name"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

fn token(p: &Page) -> ContinueToken {
    decode_continue(p.continue_token.as_deref().unwrap()).unwrap()
}

#[test]
fn pages_follow_key_order_at_the_first_page_resource_version() {
    // Key order is "namespace/name" as a string: "a-b/…" before "a/…".
    let s = store_with(&[
        ("a", "p1", "x"),
        ("a", "p2", "x"),
        ("a-b", "p3", "x"),
        ("b", "p4", "x"),
        ("b", "p5", "x"),
    ]);
    let pages = Pages::default();
    let list = |limit, t: Option<&ContinueToken>| {
        pages
            .list(&s, "pods", true, None, limit, t, false, |_| true)
            .unwrap()
    };
    let p1 = list(2, None);
    assert_eq!(names(&p1), ["p3", "p1"]);
    assert_eq!(p1.remaining, Some(3));
    let t1 = token(&p1);
    assert_eq!((t1.rv, t1.start.as_str()), (5, "a/p1\0"));
    // Writes after the first page do not show in later pages.
    s.create(
        "pods",
        json!({"metadata": {"name": "p0", "namespace": "b"}}),
    )
    .unwrap();
    s.delete("pods", "b", "p5").unwrap();
    let p2 = list(2, Some(&t1));
    assert_eq!((names(&p2), p2.rv), (vec!["p2".into(), "p4".into()], 5));
    assert_eq!(p2.remaining, Some(1));
    let p3 = list(2, Some(&token(&p2)));
    assert_eq!(names(&p3), ["p5"]);
    assert_eq!((p3.continue_token.as_deref(), p3.remaining), (None, None));
    // A list without limit is whole, with no token.
    let all = list(0, None);
    assert_eq!(all.items.len(), 5);
    assert!(all.continue_token.is_none());
}

#[test]
fn selectors_fill_the_page_and_hide_the_remaining_count() {
    let s = store_with(&[
        ("d", "a", "web"),
        ("d", "b", "db"),
        ("d", "c", "db"),
        ("d", "e", "web"),
        ("d", "f", "db"),
    ]);
    let pages = Pages::default();
    let web = |o: &Value| o["metadata"]["labels"]["app"] == "web";
    let p1 = pages
        .list(&s, "pods", true, Some("d"), 1, None, true, web)
        .unwrap();
    assert_eq!(names(&p1), ["a"]);
    assert_eq!(p1.remaining, None, "a selector hides the count");
    assert_eq!(
        token(&p1).start,
        "a\0",
        "relative to the namespace's prefix"
    );
    let p2 = pages
        .list(&s, "pods", true, Some("d"), 1, Some(&token(&p1)), true, web)
        .unwrap();
    assert_eq!(names(&p2), ["e"]);
    // "f" is read after the page filled: the token starts after "e" and the last page is empty.
    let t2 = token(&p2);
    assert_eq!(t2.start, "e\0");
    let p3 = pages
        .list(&s, "pods", true, Some("d"), 1, Some(&t2), true, web)
        .unwrap();
    assert!(p3.items.is_empty() && p3.continue_token.is_none());
}

#[test]
fn an_expired_snapshot_is_upstreams_410_with_a_token_at_the_latest() {
    let s = store_with(&[("n", "a", "x"), ("n", "b", "x"), ("n", "c", "x")]);
    let pages = Pages::default();
    let p1 = pages
        .list(&s, "pods", true, None, 1, None, false, |_| true)
        .unwrap();
    let t1 = token(&p1);
    s.create("pods", json!({"metadata": {"name": "d", "namespace": "n"}}))
        .unwrap();
    // Forget the snapshot, as compaction would.
    let forgotten = Pages::default();
    let err = forgotten
        .list(&s, "pods", true, None, 1, Some(&t1), false, |_| true)
        .unwrap_err();
    assert_eq!(err.0, 410);
    assert_eq!(err.1["reason"], "Expired");
    assert_eq!(err.1["message"], INCONSISTENT_CONTINUE);
    let again = decode_continue(err.1["metadata"]["continue"].as_str().unwrap()).unwrap();
    assert_eq!((again.rv, again.start.as_str()), (-1, "n/a\0"));
    // Continuing at the latest shows the object created meanwhile.
    let rest = forgotten
        .list(&s, "pods", true, None, 0, Some(&again), false, |_| true)
        .unwrap();
    assert_eq!(names(&rest), ["b", "c", "d"]);
    assert_eq!(rest.rv, 4);
    // Cluster-scoped keys are stored as "/name"; tokens hold the name.
    s.create("nodes", json!({"metadata": {"name": "n1"}}))
        .unwrap();
    s.create("nodes", json!({"metadata": {"name": "n2"}}))
        .unwrap();
    let p = pages
        .list(&s, "nodes", false, None, 1, None, false, |_| true)
        .unwrap();
    assert_eq!(token(&p).start, "n1\0");
    let p = pages
        .list(&s, "nodes", false, None, 1, Some(&token(&p)), false, |_| {
            true
        })
        .unwrap();
    assert_eq!(names(&p), ["n2"]);
}

#[test]
fn a_page_written_from_the_stored_text_is_what_serde_writes_for_the_decoded_list() {
    let s = store_with(&[("a", "p1", "x"), ("a", "p2", "y"), ("b", "p3", "x")]);
    let pages = Pages::default();
    let p = pages
        .list(&s, "pods", true, None, 2, None, false, |_| true)
        .unwrap();
    let decoded: Vec<Value> = p.items.iter().map(Stored::decode).collect();
    let expected = serde_json::to_vec(&json!({
        "kind": "PodList",
        "apiVersion": "v1",
        "metadata": p.metadata(),
        "items": decoded,
    }))
    .unwrap();
    assert_eq!(
        String::from_utf8(p.json("PodList", "v1")).unwrap(),
        String::from_utf8(expected).unwrap()
    );
    assert!(
        p.metadata().get("continue").is_some(),
        "two of three: a token"
    );
    let empty = pages
        .list(&s, "pods", true, Some("c"), 0, None, false, |_| true)
        .unwrap();
    assert_eq!(
        String::from_utf8(empty.json("PodList", "v1")).unwrap(),
        format!(
            r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{"resourceVersion":"{}"}},"items":[]}}"#,
            s.resource_version()
        )
    );
}
