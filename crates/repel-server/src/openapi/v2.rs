//! OpenAPI v2 (`GET /openapi/v2`): one Swagger 2.0 document holding the definitions of every
//! served kind, as JSON or — what kubectl asks for — as gnostic's `openapi.v2.Document`
//! protobuf (`application/com.github.proto-openapi.spec.v2.v1.0+protobuf`).
//!
//! The definitions are the v3 documents' schemas ([`super::schemas`], and each custom
//! resource's from its CRD) in v2's shape, as kube-apiserver's v2 has them: `$ref`s into
//! `#/definitions/`, a described reference as `{"$ref", "description"}` (v3 wraps it in
//! `allOf`), `IntOrString` as `type: string, format: int-or-string`, `Quantity` as `type:
//! string`, and no v3-only keywords (`nullable`, `oneOf`, `anyOf`, `not`). What kubectl reads
//! them with (kube-openapi's `proto.NewOpenAPIData`) refuses a reference with a type or
//! properties, an array without exactly one `items`, and a schema with several types, so the
//! conversion never makes one.
//!
//! The document has no paths, a decision: kubectl 1.27–1.33 reads v2's paths only for the
//! patch types a kind's `PATCH` consumes (client-side apply, when v3 gives it no strategic
//! merge metadata), and found none it computes the patch from its compiled-in types, as it
//! did when v2 was empty. Serving the paths would make kubectl take the patch metadata from
//! these definitions, whose `x-kubernetes-patch-*` extensions cover the scheduling fields
//! only ([`super::extensions`]). What v2 is read for is `kubectl explain
//! --output=plaintext-openapiv2` and tools that read the Swagger document.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use super::{builtin_group_versions, custom_schema, custom_schema_name, schemas};
use crate::proto::{put_bytes, put_key, put_varint};
use crate::registry::Registry;

const V3_REF: &str = "#/components/schemas/";
const V2_REF: &str = "#/definitions/";

/// The document's `info`, as the v3 documents have it.
const TITLE: &str = "Kubernetes";
const VERSION: &str = "v1.32.0";

/// The definitions of the built-in kinds (every group version's), v2-shaped, sorted by name.
fn builtin_definitions() -> Map<String, Value> {
    let mut defs = Map::new();
    for (g, v) in builtin_group_versions() {
        for (name, s) in schemas::builtin(g, v) {
            defs.entry(name.clone())
                .or_insert_with(|| definition(&name, &s));
        }
    }
    defs.sort_keys();
    defs
}

/// The definitions of the custom resources `reg` serves (with ObjectMeta's, which they name),
/// v2-shaped. Empty when there are none.
fn custom_definitions(reg: &Registry) -> Map<String, Value> {
    let mut defs = Map::new();
    for r in reg.served() {
        let Some(c) = r.custom.as_ref().filter(|c| c.schema.is_object()) else {
            continue;
        };
        let name = custom_schema_name(&r);
        let s = custom_schema(&r, &c.schema);
        defs.insert(name.clone(), definition(&name, &s));
    }
    defs.sort_keys();
    defs
}

/// The whole document as JSON.
pub fn document(reg: &Registry) -> Value {
    let mut defs = builtin_definitions();
    for (name, s) in custom_definitions(reg) {
        defs.entry(name).or_insert(s);
    }
    defs.sort_keys();
    json!({
        "swagger": "2.0",
        "info": {"title": TITLE, "version": VERSION},
        "paths": {},
        "definitions": defs
    })
}

/// The whole document as gnostic's `openapi.v2.Document` protobuf. The built-in kinds'
/// definitions are encoded once and kept (a repeated field's entries concatenate); a custom
/// resource's are encoded per request, as its CRD may change.
pub fn document_protobuf(reg: &Registry) -> Vec<u8> {
    static BUILTIN: OnceLock<(Vec<u8>, Vec<String>)> = OnceLock::new();
    let (builtin, names) = BUILTIN.get_or_init(|| {
        let defs = builtin_definitions();
        let mut out = Vec::new();
        for (name, s) in &defs {
            put_bytes(&mut out, 1, &named_schema(name, s));
        }
        (out, defs.keys().cloned().collect())
    });
    let mut definitions = builtin.clone();
    for (name, s) in custom_definitions(reg) {
        if names.binary_search(&name).is_err() {
            put_bytes(&mut definitions, 1, &named_schema(&name, &s));
        }
    }
    let mut info = Vec::new();
    put_str(&mut info, 1, TITLE);
    put_str(&mut info, 2, VERSION);
    let mut doc = Vec::new();
    put_str(&mut doc, 1, "2.0");
    put_bytes(&mut doc, 2, &info);
    put_bytes(&mut doc, 8, &[]);
    put_bytes(&mut doc, 9, &definitions);
    doc
}

/// A top-level definition, v2-shaped: the two string types kube-apiserver's v2 spells out.
fn definition(name: &str, s: &Value) -> Value {
    let described = |t: Value| {
        let mut t = t;
        if let (Some(o), Some(d)) = (t.as_object_mut(), s.get("description")) {
            o.insert("description".into(), d.clone());
        }
        t
    };
    match name {
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => {
            described(json!({"type": "string", "format": "int-or-string"}))
        }
        "io.k8s.apimachinery.pkg.api.resource.Quantity" => described(json!({"type": "string"})),
        _ => to_v2(s, 0),
    }
}

/// How deep a schema is followed; deeper ones (a CRD's, only) become arbitrary values.
const MAX_DEPTH: usize = 64;

/// A v3 schema in v2's shape.
fn to_v2(s: &Value, depth: usize) -> Value {
    let Value::Object(m) = s else {
        return json!({});
    };
    if depth > MAX_DEPTH {
        return json!({});
    }
    // A described reference: v3's `allOf: [{$ref}]`.
    if let Some(Value::Array(all)) = m.get("allOf")
        && let [one] = all.as_slice()
        && one.get("$ref").is_some()
    {
        let mut r = to_v2(one, depth + 1);
        if let (Some(o), Some(d)) = (r.as_object_mut(), m.get("description")) {
            o.insert("description".into(), d.clone());
        }
        return r;
    }
    let mut out = Map::new();
    if let Some(Value::String(r)) = m.get("$ref") {
        let name = r.strip_prefix(V3_REF).unwrap_or(r);
        out.insert("$ref".into(), json!(format!("{V2_REF}{name}")));
        if let Some(d) = m.get("description") {
            out.insert("description".into(), d.clone());
        }
        return Value::Object(out);
    }
    for (k, v) in m {
        match k.as_str() {
            "type" => {
                if let Some(t) = single_type(v) {
                    out.insert(k.clone(), json!(t));
                }
            }
            "properties" => {
                if let Value::Object(props) = v {
                    let p: Map<String, Value> = props
                        .iter()
                        .map(|(name, p)| (name.clone(), to_v2(p, depth + 1)))
                        .collect();
                    out.insert(k.clone(), Value::Object(p));
                }
            }
            "additionalProperties" => match v {
                Value::Bool(_) => {
                    out.insert(k.clone(), v.clone());
                }
                Value::Object(_) => {
                    out.insert(k.clone(), to_v2(v, depth + 1));
                }
                _ => {}
            },
            "items" if v.is_object() => {
                out.insert(k.clone(), to_v2(v, depth + 1));
            }
            "required" | "enum" if v.is_array() => {
                out.insert(k.clone(), v.clone());
            }
            "format" | "title" | "description" | "pattern" if v.is_string() => {
                out.insert(k.clone(), v.clone());
            }
            "multipleOf" | "maximum" | "minimum" | "maxLength" | "minLength" | "maxItems"
            | "minItems" | "maxProperties" | "minProperties"
                if v.is_number() =>
            {
                out.insert(k.clone(), v.clone());
            }
            "exclusiveMaximum" | "exclusiveMinimum" | "uniqueItems" | "readOnly"
                if v.is_boolean() =>
            {
                out.insert(k.clone(), v.clone());
            }
            "default" | "example" => {
                out.insert(k.clone(), v.clone());
            }
            // kube-apiserver's v2 spells an int-or-string as a formatted string.
            "x-kubernetes-int-or-string" if v == &Value::Bool(true) => {
                out.insert("type".into(), json!("string"));
                out.insert("format".into(), json!("int-or-string"));
            }
            _ if k.starts_with("x-") => {
                out.insert(k.clone(), v.clone());
            }
            _ => {}
        }
    }
    // An array needs exactly one `items` for kubectl; without, the value is arbitrary.
    if out.get("type").and_then(Value::as_str) == Some("array") && !out.contains_key("items") {
        out.remove("type");
    }
    Value::Object(out)
}

/// A v3 `type` as v2's single type: the one type besides `null`, or none.
fn single_type(v: &Value) -> Option<&str> {
    const TYPES: [&str; 6] = ["string", "number", "integer", "boolean", "object", "array"];
    let t = match v {
        Value::String(t) => t.as_str(),
        Value::Array(ts) => {
            let mut non_null = ts.iter().filter_map(Value::as_str).filter(|t| *t != "null");
            let t = non_null.next()?;
            if non_null.next().is_some() {
                return None;
            }
            t
        }
        _ => return None,
    };
    TYPES.contains(&t).then_some(t)
}

// ---- gnostic's openapi.v2 protobuf (OpenAPIv2.proto of google/gnostic-models) ----

fn put_str(out: &mut Vec<u8>, tag: u32, s: &str) {
    put_bytes(out, tag, s.as_bytes());
}

fn put_bool(out: &mut Vec<u8>, tag: u32, b: bool) {
    if b {
        put_key(out, tag, 0);
        out.push(1);
    }
}

fn put_int(out: &mut Vec<u8>, tag: u32, v: &Value) {
    if let Some(i) = v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)) {
        put_key(out, tag, 0);
        put_varint(out, i as u64);
    }
}

fn put_double(out: &mut Vec<u8>, tag: u32, v: &Value) {
    if let Some(f) = v.as_f64() {
        put_key(out, tag, 1);
        out.extend_from_slice(&f.to_le_bytes());
    }
}

/// `Any`: the value as YAML text (JSON is YAML), which is how kube-openapi reads extensions,
/// defaults and enum values.
fn any(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    put_str(&mut out, 2, &v.to_string());
    out
}

/// `NamedSchema`.
fn named_schema(name: &str, s: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    put_str(&mut out, 1, name);
    put_bytes(&mut out, 2, &schema(s));
    out
}

/// `Schema`, from a v2-shaped schema.
fn schema(s: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    let Value::Object(m) = s else {
        return out;
    };
    let str_field = |out: &mut Vec<u8>, key: &str, tag: u32| {
        if let Some(Value::String(v)) = m.get(key) {
            put_str(out, tag, v);
        }
    };
    str_field(&mut out, "$ref", 1);
    str_field(&mut out, "format", 2);
    str_field(&mut out, "title", 3);
    str_field(&mut out, "description", 4);
    if let Some(d) = m.get("default") {
        put_bytes(&mut out, 5, &any(d));
    }
    for (key, tag) in [("multipleOf", 6), ("maximum", 7)] {
        if let Some(v) = m.get(key) {
            put_double(&mut out, tag, v);
        }
    }
    put_bool(
        &mut out,
        8,
        m.get("exclusiveMaximum") == Some(&Value::Bool(true)),
    );
    if let Some(v) = m.get("minimum") {
        put_double(&mut out, 9, v);
    }
    put_bool(
        &mut out,
        10,
        m.get("exclusiveMinimum") == Some(&Value::Bool(true)),
    );
    for (key, tag) in [("maxLength", 11), ("minLength", 12)] {
        if let Some(v) = m.get(key) {
            put_int(&mut out, tag, v);
        }
    }
    str_field(&mut out, "pattern", 13);
    for (key, tag) in [("maxItems", 14), ("minItems", 15)] {
        if let Some(v) = m.get(key) {
            put_int(&mut out, tag, v);
        }
    }
    put_bool(
        &mut out,
        16,
        m.get("uniqueItems") == Some(&Value::Bool(true)),
    );
    for (key, tag) in [("maxProperties", 17), ("minProperties", 18)] {
        if let Some(v) = m.get(key) {
            put_int(&mut out, tag, v);
        }
    }
    if let Some(Value::Array(req)) = m.get("required") {
        for r in req.iter().filter_map(Value::as_str) {
            put_str(&mut out, 19, r);
        }
    }
    if let Some(Value::Array(e)) = m.get("enum") {
        for v in e {
            put_bytes(&mut out, 20, &any(v));
        }
    }
    match m.get("additionalProperties") {
        Some(Value::Bool(b)) => {
            let mut item = Vec::new();
            put_key(&mut item, 2, 0);
            item.push(u8::from(*b));
            put_bytes(&mut out, 21, &item);
        }
        Some(s @ Value::Object(_)) => {
            let mut item = Vec::new();
            put_bytes(&mut item, 1, &schema(s));
            put_bytes(&mut out, 21, &item);
        }
        _ => {}
    }
    if let Some(Value::String(t)) = m.get("type") {
        let mut item = Vec::new();
        put_str(&mut item, 1, t);
        put_bytes(&mut out, 22, &item);
    }
    if let Some(items @ Value::Object(_)) = m.get("items") {
        let mut item = Vec::new();
        put_bytes(&mut item, 1, &schema(items));
        put_bytes(&mut out, 23, &item);
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        let mut p = Vec::new();
        for (name, s) in props {
            put_bytes(&mut p, 1, &named_schema(name, s));
        }
        put_bytes(&mut out, 25, &p);
    }
    put_bool(&mut out, 27, m.get("readOnly") == Some(&Value::Bool(true)));
    if let Some(e) = m.get("example") {
        put_bytes(&mut out, 30, &any(e));
    }
    for (k, v) in m.iter().filter(|(k, _)| k.starts_with("x-")) {
        let mut named = Vec::new();
        put_str(&mut named, 1, k);
        put_bytes(&mut named, 2, &any(v));
        put_bytes(&mut out, 31, &named);
    }
    out
}

#[cfg(test)]
mod tests;
