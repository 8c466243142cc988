//! Label and field selectors: each line of the input is tried as a `labelSelector` and as a
//! `fieldSelector` (for every kind's supported fields), and matched against a pod and a node.
//!
//! Besides ending in a result or an error: a selector that parses prints (`Display`) as one
//! that parses back to the same selector, and an escaped value reads back as itself.

use repel_api::selector::{
    FieldSelector, LabelQuery, escape_value, field_value, parse_field_selector,
};
use serde_json::{Value, json};

/// Kinds whose field selectors differ.
const KINDS: [&str; 4] = ["Pod", "Node", "Event", "Namespace"];

/// The target body.
pub fn run(data: &[u8]) {
    let Some(text) = crate::text(data) else {
        return;
    };
    let objects = [pod(), node()];
    for line in text.split('\n').take(16) {
        match LabelQuery::parse(line) {
            Ok(sel) => {
                let printed = sel.inner().to_string();
                assert_eq!(
                    LabelQuery::parse(&printed).as_ref(),
                    Ok(&sel),
                    "label selector {line:?} prints as {printed:?}"
                );
                for o in &objects {
                    let _ = sel.matches(o);
                }
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
        match FieldSelector::parse(line) {
            Ok(sel) => {
                // Terms are sorted by their text, and `==` prints as `=`: the reparsed terms
                // may come in another order (as upstream's), so they compare as a set.
                let printed = sel.to_string();
                assert_eq!(
                    FieldSelector::parse(&printed).map(|s| term_set(&s)),
                    Ok(term_set(&sel)),
                    "field selector {line:?} prints as {printed:?}"
                );
                for o in &objects {
                    let _ = sel.matches(o);
                }
                for t in sel.terms() {
                    let _ = sel.exact(&t.field);
                    let _ = field_value(&objects[0], &t.field);
                }
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
        for kind in KINDS {
            if let Err(e) = parse_field_selector(kind, line) {
                let _ = e.to_string();
            }
        }
        let escaped = format!("metadata.name={}", escape_value(line));
        let parsed = FieldSelector::parse(&escaped);
        assert_eq!(
            parsed.as_ref().map(|s| s.exact("metadata.name")),
            Ok(Some(line)),
            "{line:?} escaped as {escaped:?}"
        );
    }
}

/// A selector's terms, in a canonical order.
fn term_set(sel: &FieldSelector) -> Vec<(String, bool, String)> {
    let mut terms: Vec<(String, bool, String)> = sel
        .terms()
        .iter()
        .map(|t| (t.field.clone(), t.negated, t.value.clone()))
        .collect();
    terms.sort();
    terms
}

fn pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web", "tier": "1"}},
        "spec": {"nodeName": "node1", "restartPolicy": "Always", "schedulerName": "default-scheduler"},
        "status": {"phase": "Running", "podIP": "10.1.0.1"}
    })
}

fn node() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node1", "labels": {"kubernetes.io/hostname": "node1", "zone": "a"}},
        "spec": {"unschedulable": true}
    })
}
