//! An object as the store holds it: its compact JSON text, shared.
//!
//! A pod decoded as a `serde_json::Value` (with `preserve_order`) takes about ten times its
//! JSON text in memory (a 1.9 kB pod is 19 kB decoded), so 150,000 pods held decoded were
//! 2.8 GB. The store keeps the text instead, exactly as it is written to the data file: a
//! restart copies it from the file without decoding it, a list or watch of built-in objects
//! writes it to the wire as it is, and whoever needs the object's fields decodes it
//! ([`Stored::decode`]) — decoding costs about what copying a decoded object did.

use std::sync::Arc;

use serde_json::Value;

use super::{StoreError, storage_err};

/// One stored object's JSON text (compact, as `serde_json` writes it). Cloning shares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored(Arc<str>);

impl Stored {
    /// The object's text.
    pub fn encode(v: &Value) -> Stored {
        // Serialising a JSON value cannot fail (its keys are strings).
        Stored(Arc::from(serde_json::to_string(v).unwrap_or_default()))
    }

    /// Text read back from the data file (written by [`Stored::encode`]).
    pub(super) fn from_bytes(b: &[u8]) -> Result<Stored, StoreError> {
        std::str::from_utf8(b)
            .map(|s| Stored(Arc::from(s)))
            .map_err(storage_err)
    }

    /// The JSON text, to write to the wire or the file as it is.
    pub fn json(&self) -> &str {
        &self.0
    }

    /// The object, decoded. The store only holds text it encoded itself, so this is never
    /// `Null` unless the data file was damaged outside repel.
    pub fn decode(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }
}

/// Whether two objects are equal but for `metadata.resourceVersion` (a write that changes
/// nothing else is no write), compared in place.
pub(super) fn same_but_rv(a: &Value, b: &Value) -> bool {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return a == b;
    };
    match (a.get("metadata"), b.get("metadata")) {
        (Some(Value::Object(ma)), Some(Value::Object(mb))) => {
            equal_but(a, b, "metadata") && equal_but(ma, mb, "resourceVersion")
        }
        (ma, mb) => ma == mb && equal_but(a, b, "metadata"),
    }
}

/// Whether two maps hold the same entries, `skip` aside (in any order, as maps compare).
fn equal_but(
    a: &serde_json::Map<String, Value>,
    b: &serde_json::Map<String, Value>,
    skip: &str,
) -> bool {
    let n = |m: &serde_json::Map<String, Value>| m.keys().filter(|k| *k != skip).count();
    n(a) == n(b)
        && a.iter()
            .filter(|(k, _)| *k != skip)
            .all(|(k, v)| b.get(k) == Some(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_differing_only_in_their_version_are_the_same() {
        let a = json!({"kind": "Pod", "metadata": {"name": "p", "resourceVersion": "1"}, "spec": {"x": 1}});
        let b = json!({"kind": "Pod", "metadata": {"resourceVersion": "2", "name": "p"}, "spec": {"x": 1}});
        assert!(same_but_rv(&a, &b));
        let c = json!({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": 1}});
        assert!(same_but_rv(&a, &c));
        let d = json!({"kind": "Pod", "metadata": {"name": "q", "resourceVersion": "1"}, "spec": {"x": 1}});
        assert!(!same_but_rv(&a, &d));
        let e = json!({"kind": "Pod", "metadata": {"name": "p", "resourceVersion": "1"}, "spec": {"x": 2}});
        assert!(!same_but_rv(&a, &e));
        let f = json!({"kind": "Pod", "metadata": {"name": "p", "resourceVersion": "1"}, "spec": {"x": 1}, "status": {}});
        assert!(!same_but_rv(&a, &f));
        let g = json!({"kind": "Pod", "metadata": {"name": "p", "uid": "u"}, "spec": {"x": 1}});
        assert!(!same_but_rv(&a, &g));
        let h = json!({"kind": "Pod", "spec": {"x": 1}});
        assert!(!same_but_rv(
            &h,
            &json!({"kind": "Pod", "metadata": {}, "spec": {"x": 1}})
        ));
        assert!(same_but_rv(&h, &json!({"spec": {"x": 1}, "kind": "Pod"})));
    }

    #[test]
    fn the_text_decodes_to_the_object() {
        let v = json!({"b": 1, "a": [true, null, "x"]});
        let s = Stored::encode(&v);
        assert_eq!(s.json(), r#"{"b":1,"a":[true,null,"x"]}"#);
        assert_eq!(s.decode(), v);
        assert_eq!(Stored::from_bytes(s.json().as_bytes()).unwrap(), s);
    }
}
