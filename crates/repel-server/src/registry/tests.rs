//! The shared kinds table ([`repel_core::kinds`]) held against this server's discovery: every
//! row is served under its group and version with its names, scope and short names, and every
//! built-in resource discovery lists is a row, so the two cannot drift.

use repel_core::kinds::KINDS;
use serde_json::{Value, json};

use super::{GROUPS, Registry};
use crate::discovery::resource_list;

/// The top-level entries (no subresources) of `GET /api/v1` and `GET /apis/<group>/<version>`
/// for every built-in group, with their group and version.
fn discovered() -> Vec<(String, String, Value)> {
    let reg = Registry::default();
    let mut out = Vec::new();
    for (group, version) in std::iter::once(&("", "v1")).chain(GROUPS) {
        let list = resource_list(&reg, group, version).unwrap_or_else(|| panic!("{group}"));
        for r in list["resources"].as_array().into_iter().flatten() {
            if !r["name"].as_str().unwrap_or("/").contains('/') {
                out.push((group.to_string(), version.to_string(), r.clone()));
            }
        }
    }
    out
}

#[test]
fn every_kinds_row_is_what_discovery_serves() {
    let served = discovered();
    for k in KINDS {
        let Some((_, version, r)) = served
            .iter()
            .find(|(g, _, r)| g == k.group && r["name"] == k.plural)
        else {
            panic!("{} ({}) is not served", k.kind, k.qualified());
        };
        assert_eq!(version, k.version, "{}", k.kind);
        assert_eq!(r["kind"], k.kind, "{}", k.kind);
        assert_eq!(r["singularName"], k.singular, "{}", k.kind);
        assert_eq!(r["namespaced"], k.namespaced, "{}", k.kind);
        let short = if k.short_names.is_empty() {
            Value::Null
        } else {
            json!(k.short_names)
        };
        assert_eq!(r["shortNames"], short, "{}", k.kind);
    }
}

#[test]
fn every_built_in_resource_discovery_serves_is_a_kinds_row() {
    for (group, _, r) in discovered() {
        assert!(
            KINDS
                .iter()
                .any(|k| k.group == group && r["name"] == k.plural),
            "{group}/{} is served but not in repel_core::kinds",
            r["name"]
        );
    }
    assert_eq!(discovered().len(), KINDS.len());
}
