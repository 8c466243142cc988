//! What the writer writes is read back as the value written, by serde-saphyr and by the fast
//! read, and the line scanner takes every manifest-like document it writes. Inputs: a table of
//! awkward scalars, every manifest the repository and the shared corpus hold, and random trees.

use serde_json::{Map, Value, json};

use super::super::scan::tests::Rng;
use super::super::{options, parse_stream, scan::scan};
use super::document;
use crate::tree::Tree;

fn text_of(v: &Value) -> String {
    let mut out = String::from("---\n");
    document(&Tree::from_value(v), &mut out);
    out
}

/// Whether a value holds what the writer writes outside the scanner's subset (read by the
/// layers below it): a sequence directly in a sequence (`- - x`), a float, an integer of more
/// than 18 digits, a `<<` key, a key too long to be implicit (`? key`).
fn beyond_scanner(v: &Value) -> bool {
    match v {
        Value::Array(a) => a
            .iter()
            .any(|i| matches!(i, Value::Array(x) if !x.is_empty()) || beyond_scanner(i)),
        // The scanner takes no `<<` key, quoted or not.
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| k == "<<" || k.len() > 256 || beyond_scanner(v)),
        Value::Number(n) => n.is_f64() || n.to_string().trim_start_matches('-').len() > 18,
        _ => false,
    }
}

/// Writes `v`, reads it back three ways and checks each gives `v`, key order included.
fn round_trip(name: &str, v: &Value) {
    let text = text_of(v);
    let order = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    let saphyr = serde_saphyr::from_multiple_with_options::<Value>(&text, options());
    assert_eq!(
        saphyr.as_ref().ok(),
        Some(&vec![v.clone()]),
        "{name}: {text}"
    );
    let fast = parse_stream(&text).map(|(v, _)| v).ok();
    assert_eq!(
        fast.as_deref(),
        Some(std::slice::from_ref(v)),
        "{name}: {text}"
    );
    assert_eq!(fast.map(|f| order(&f[0])), Some(order(v)), "{name}: {text}");
    if v.as_object().is_some_and(|m| !m.is_empty()) && !beyond_scanner(v) {
        let scanned = scan(&text).map(|(values, _)| values);
        assert_eq!(
            scanned.as_deref(),
            Some(std::slice::from_ref(v)),
            "{name}: the scanner declines {text}"
        );
    }
}

const AWKWARD: &[&str] = &[
    "",
    " ",
    "true",
    "True",
    "FALSE",
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "null",
    "Null",
    "~",
    "0",
    "1",
    "-1",
    "+1",
    "007",
    "0x1f",
    "0o17",
    "0b101",
    "1e5",
    "1.5",
    ".5",
    ".inf",
    "-.inf",
    ".nan",
    "inf",
    "NaN",
    "1_000",
    "12:30",
    "2026-12-03",
    "2026-12-03T10:35:26Z",
    "6fcb5dd885",
    "100m",
    "128Mi",
    "-a",
    "- a",
    "a: b",
    "a:b",
    "a #b",
    "a#b",
    "# x",
    "x:",
    " lead",
    "trail ",
    "multi\nline",
    "trailing newline\n",
    "tab\tinside",
    "quote\"inside",
    "'single'",
    "\"double\"",
    "back\\slash",
    "é日本😀",
    "\u{7}bell",
    "\u{0}nul",
    "\u{1b}esc",
    "\u{7f}del",
    "\u{85}next line",
    "\u{a0}nbsp",
    "\u{feff}bom",
    "\u{2028}ls",
    "\u{fffe}",
    "---",
    "--- x",
    "...",
    "[a]",
    "{a}",
    "a,b",
    "a[0]",
    "*a",
    "&a",
    "!tag",
    "|",
    ">",
    "%x",
    "@x",
    "`x",
    "?x",
    "? x",
    "<<",
    "=",
    "a  b",
    "registry.example/app@sha256:0123456789abcdef",
    "node-role.kubernetes.io/control-plane",
    "kubectl.kubernetes.io/last-applied-configuration",
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}",
];

#[test]
fn awkward_scalars_are_read_back_as_written() {
    for s in AWKWARD {
        let v = Value::String((*s).to_string());
        round_trip(&format!("value {s:?}"), &json!({ "k": v }));
        round_trip(&format!("key {s:?}"), &json!({ *s: "v" }));
        round_trip(&format!("item {s:?}"), &json!({ "k": [v] }));
    }
    let long = "x".repeat(2000);
    round_trip("a long value", &json!({ "k": long }));
    round_trip("a long key", &json!({ long.clone(): 1 }));
    round_trip(
        "long keys with every kind of value",
        &json!({ "a": 1, long.clone(): {"b": [1, {"c": 2}]}, "x".repeat(300): [[1], {"d": {}}], "y".repeat(999): null, "z": 2 }),
    );
    let numbers = json!({
        "zero": 0, "neg": -1, "max": u64::MAX, "min": i64::MIN, "half": 1.5,
        "big": 1e300, "small": -2.5e-8, "whole": 2.0, "negzero": -0.0,
    });
    round_trip("numbers", &numbers);
    round_trip(
        "scalars and empties",
        &json!({"t": true, "f": false, "n": null, "m": {}, "a": []}),
    );
}

#[test]
fn shapes_are_read_back_as_written() {
    let cases = [
        json!({"a": {"b": {"c": 1}}, "d": 2}),
        json!({"list": [{"a": 1, "b": [1, 2]}, {"c": {"d": [{"e": null}]}}], "after": 1}),
        json!({"list": [[1, 2], [], [[3]], {}]}),
        json!({"list": [{}, [], "x", {"k": {}}]}),
        json!([{"a": 1}, [2], 3]),
        json!("top-level"),
        json!(42),
        json!({}),
        json!([]),
    ];
    for (i, v) in cases.iter().enumerate() {
        round_trip(&format!("shape {i}"), v);
    }
}

#[test]
fn every_manifest_we_hold_is_read_back_as_written() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in ["../../../shared/corpus/real", "../../examples"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p
                    .extension()
                    .is_some_and(|x| x == "yaml" || x == "yml" || x == "json")
                {
                    paths.push(p);
                }
            }
        }
    }
    let mut documents = 0;
    for path in &paths {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok((values, _)) = parse_stream(&text) else {
            continue;
        };
        for v in &values {
            round_trip(&path.display().to_string(), v);
            documents += 1;
        }
    }
    assert!(documents > 200, "only {documents} documents read");
}

fn scalar(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => json!(rng.next() as i64 >> rng.below(64)),
        3 => json!((rng.below(1_000_000) as f64) / 64.0),
        4 => Value::String(AWKWARD[rng.below(AWKWARD.len())].to_string()),
        _ => {
            // Characters mixed from the awkward ones.
            let n = rng.below(8);
            let s: String = (0..n)
                .filter_map(|_| {
                    let w = AWKWARD[rng.below(AWKWARD.len())];
                    w.chars().nth(rng.below(w.chars().count().max(1)))
                })
                .collect();
            Value::String(s)
        }
    }
}

fn tree(rng: &mut Rng, depth: usize) -> Value {
    if depth >= 5 || rng.below(100) < 40 {
        return scalar(rng);
    }
    let len = rng.below(4);
    if rng.below(100) < 60 {
        let mut m = Map::new();
        for _ in 0..len {
            let Value::String(k) = scalar(&mut Rng(rng.next() | 1)) else {
                m.insert(format!("k{}", rng.below(100)), tree(rng, depth + 1));
                continue;
            };
            m.insert(k, tree(rng, depth + 1));
        }
        Value::Object(m)
    } else {
        Value::Array((0..len).map(|_| tree(rng, depth + 1)).collect())
    }
}

#[test]
fn random_trees_are_read_back_as_written() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..3000 {
        // A document is a mapping (a null document is none).
        let v = json!({ "root": tree(&mut rng, 0) });
        round_trip(&format!("tree {i}"), &v);
    }
}
