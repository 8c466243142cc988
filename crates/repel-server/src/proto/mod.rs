//! Protobuf bodies (`application/vnd.kubernetes.protobuf`), as kube-apiserver reads and writes
//! them: the `k8s\0` magic, then a `runtime.Unknown` envelope holding the object's apiVersion
//! and kind and the object's own message.
//!
//! The codec is table-driven: [`schema::MESSAGES`] lists, for every message of the served group
//! versions, each field's protobuf tag and type (from the kube-rs project's `k8s-pb` crate,
//! whose prost types the tests use as the reference encoder and decoder) and its JSON name,
//! whether Go writes its zero value in JSON (a pointer, or no `omitempty`) and whether it is
//! inlined (from the Go types of k8s.io/api). `scripts/gen-proto-schema.py` writes the table.
//! Decoding gives the JSON object the same request would have carried as JSON — a non-pointer
//! `omitempty` field Go's protobuf always writes is left out when zero, as Go's JSON would —
//! so everything after the decode (admission, validation, storage) is the JSON path's.
//!
//! Types with their own JSON form are converted as upstream's `MarshalJSON` does: IntOrString
//! (a number or a string), Quantity (its string), Time (RFC 3339 seconds; the zero time is
//! left out), MicroTime (six fractional digits), Duration (Go's duration string), RawExtension
//! and FieldsV1 (their raw JSON). Fields the table lacks (newer than the k8s-pb release) are
//! skipped on decode and not written on encode.

#[allow(clippy::all, missing_docs)]
#[rustfmt::skip]
mod schema;

#[cfg(test)]
mod tests;

use std::sync::LazyLock;

use base64::Engine;
use serde_json::{Map, Value};

/// The media type of Kubernetes protobuf.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The four bytes every Kubernetes protobuf body starts with.
const MAGIC: &[u8; 4] = b"k8s\0";

/// A message of the table.
pub(crate) struct Message {
    name: &'static str,
    fields: &'static [Field],
}

/// A field of a message.
pub(crate) struct Field {
    tag: u32,
    json: &'static str,
    ty: Ty,
    repeated: bool,
    /// Go writes the zero value into JSON (a pointer field, or one without `omitempty`).
    emit_zero: bool,
    /// An embedded Go struct: its fields are the parent's in JSON.
    inline: bool,
}

/// A field's protobuf type. Map keys are always strings.
#[derive(Clone, Copy)]
pub(crate) enum Ty {
    Str,
    Bool,
    I32,
    I64,
    /// No message of the served group versions has one today; kept for the table's next release.
    #[allow(dead_code)]
    F64,
    Bytes,
    Msg(u16),
    MapStr,
    MapBytes,
    MapMsg(u16),
}

/// A message whose JSON form is not its fields'.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Special {
    None,
    IntOrString,
    Quantity,
    Time,
    MicroTime,
    Duration,
    Raw,
}

static SPECIAL: LazyLock<Vec<Special>> = LazyLock::new(|| {
    schema::MESSAGES
        .iter()
        .map(|m| match m.name {
            "apimachinery.pkg.util.intstr.IntOrString" => Special::IntOrString,
            "apimachinery.pkg.api.resource.Quantity" => Special::Quantity,
            "apimachinery.pkg.apis.meta.v1.Time" => Special::Time,
            "apimachinery.pkg.apis.meta.v1.MicroTime" => Special::MicroTime,
            "apimachinery.pkg.apis.meta.v1.Duration" => Special::Duration,
            "apimachinery.pkg.runtime.RawExtension" | "apimachinery.pkg.apis.meta.v1.FieldsV1" => {
                Special::Raw
            }
            _ => Special::None,
        })
        .collect()
});

/// Why a body could not be read or an object not written as protobuf.
#[derive(Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error(msg.into()))
}

/// Whether `accept` (an Accept header) asks for protobuf before JSON, as client-go's typed
/// clients do (`application/vnd.kubernetes.protobuf,application/json`).
pub fn preferred(accept: &str) -> bool {
    accept
        .split(',')
        .next()
        .and_then(|m| m.split(';').next())
        .is_some_and(|m| m.trim() == MEDIA_TYPE)
}

/// The message of `kind` at `api_version`, when the table has it.
fn message_of(api_version: &str, kind: &str) -> Option<u16> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let module = match group {
        "" => "api.core".to_string(),
        "meta.k8s.io" => "apimachinery.pkg.apis.meta".to_string(),
        "apiextensions.k8s.io" => return None,
        g => {
            let g = g.strip_suffix(".k8s.io").unwrap_or(g);
            format!("api.{}", g.split('.').next().unwrap_or(g))
        }
    };
    let find = |name: &str| {
        schema::MESSAGES
            .binary_search_by(|m| m.name.cmp(name))
            .ok()
            .and_then(|i| u16::try_from(i).ok())
    };
    find(&format!("{module}.{version}.{kind}")).or_else(|| {
        // `Status` and the other meta kinds are served at `v1` too.
        (group.is_empty() || group == "meta.k8s.io")
            .then(|| find(&format!("apimachinery.pkg.apis.meta.{version}.{kind}")))
            .flatten()
    })
}

/// Whether an object of `kind` at `api_version` can be written as protobuf.
pub fn has_kind(api_version: &str, kind: &str) -> bool {
    message_of(api_version, kind).is_some()
}

// ---- decoding ----

struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, Error> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let Some((&b, rest)) = self.buf.split_first() else {
                return err("unexpected end of a varint");
            };
            self.buf = rest;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        err("a varint longer than ten bytes")
    }

    fn bytes(&mut self) -> Result<&'a [u8], Error> {
        let n = usize::try_from(self.varint()?).map_err(|_| Error("length too large".into()))?;
        if n > self.buf.len() {
            return err("a length past the end of the body");
        }
        let (b, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(b)
    }

    fn fixed(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if n > self.buf.len() {
            return err("unexpected end of a fixed-size value");
        }
        let (b, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(b)
    }

    fn skip(&mut self, wire: u8) -> Result<(), Error> {
        match wire {
            0 => self.varint().map(|_| ()),
            1 => self.fixed(8).map(|_| ()),
            2 => self.bytes().map(|_| ()),
            5 => self.fixed(4).map(|_| ()),
            w => err(format!("unsupported wire type {w}")),
        }
    }
}

/// The JSON of a protobuf body: the magic, the envelope and the object.
pub fn decode(body: &[u8]) -> Result<Value, Error> {
    let Some(rest) = body.strip_prefix(MAGIC) else {
        return err(
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
        );
    };
    let (api_version, kind, raw) = envelope(rest)?;
    let Some(idx) = message_of(&api_version, &kind) else {
        return err(format!(
            "no kind \"{kind}\" is registered for version \"{api_version}\""
        ));
    };
    let mut out = Map::new();
    out.insert("kind".into(), Value::String(kind));
    out.insert("apiVersion".into(), Value::String(api_version));
    decode_into(idx, raw, &mut out, 0)?;
    Ok(Value::Object(out))
}

/// `runtime.Unknown`: (apiVersion, kind, raw).
fn envelope(buf: &[u8]) -> Result<(String, String, &[u8]), Error> {
    let mut r = Reader { buf };
    let (mut api_version, mut kind, mut raw) = (String::new(), String::new(), &[][..]);
    while !r.buf.is_empty() {
        let key = r.varint()?;
        let (tag, wire) = (key >> 3, (key & 7) as u8);
        match (tag, wire) {
            (1, 2) => {
                let mut t = Reader { buf: r.bytes()? };
                while !t.buf.is_empty() {
                    let key = t.varint()?;
                    match (key >> 3, key & 7) {
                        (1, 2) => api_version = utf8(t.bytes()?)?,
                        (2, 2) => kind = utf8(t.bytes()?)?,
                        (_, w) => t.skip(w as u8)?,
                    }
                }
            }
            (2, 2) => raw = r.bytes()?,
            _ => r.skip(wire)?,
        }
    }
    Ok((api_version, kind, raw))
}

fn utf8(b: &[u8]) -> Result<String, Error> {
    String::from_utf8(b.to_vec()).map_err(|_| Error("a string that is not UTF-8".into()))
}

/// Messages nest at most this deep (a body cannot make the decoder recurse without bound).
const MAX_DEPTH: usize = 64;

fn decode_into(
    idx: u16,
    buf: &[u8],
    out: &mut Map<String, Value>,
    depth: usize,
) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return err("messages nested too deep");
    }
    let msg = &schema::MESSAGES[usize::from(idx)];
    let mut r = Reader { buf };
    while !r.buf.is_empty() {
        let key = r.varint()?;
        let (tag, wire) = (key >> 3, (key & 7) as u8);
        let Some(f) = msg.fields.iter().find(|f| u64::from(f.tag) == tag) else {
            r.skip(wire)?;
            continue;
        };
        if f.inline {
            let Ty::Msg(child) = f.ty else {
                return err("an inlined field that is not a message");
            };
            if wire != 2 {
                return err(format!(
                    "field {} of {} has wire type {wire}",
                    f.tag, msg.name
                ));
            }
            decode_into(child, r.bytes()?, out, depth + 1)?;
            continue;
        }
        match f.ty {
            Ty::MapStr | Ty::MapBytes | Ty::MapMsg(_) => {
                let (k, v) = map_entry(f.ty, r.bytes()?, depth)?;
                let entry = out
                    .entry(f.json)
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(m) = entry {
                    m.insert(k, v);
                }
            }
            _ if f.repeated => {
                let entry = out
                    .entry(f.json)
                    .or_insert_with(|| Value::Array(Vec::new()));
                let Value::Array(items) = entry else {
                    continue;
                };
                if wire == 2 && matches!(f.ty, Ty::I32 | Ty::I64 | Ty::Bool) {
                    // Packed scalars.
                    let mut p = Reader { buf: r.bytes()? };
                    while !p.buf.is_empty() {
                        let v = p.varint()?;
                        items.push(scalar(f.ty, v));
                    }
                } else if let Some(v) = value(f, msg, wire, &mut r, depth)? {
                    items.push(v);
                } else {
                    items.push(Value::Null);
                }
            }
            _ => {
                let v = value(f, msg, wire, &mut r, depth)?;
                match v {
                    Some(v) if f.emit_zero || !is_zero(&v) => {
                        out.insert(f.json.to_string(), v);
                    }
                    _ => {
                        out.remove(f.json);
                    }
                }
            }
        }
    }
    Ok(())
}

fn scalar(ty: Ty, v: u64) -> Value {
    match ty {
        Ty::Bool => Value::Bool(v != 0),
        // Go's int32 is sign-extended to ten bytes on the wire.
        Ty::I32 => Value::from(v as i64 as i32),
        _ => Value::from(v as i64),
    }
}

fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(_) => false,
    }
}

/// One value of field `f`; `None` for a special message whose JSON is null (the zero Time).
fn value(
    f: &Field,
    msg: &Message,
    wire: u8,
    r: &mut Reader<'_>,
    depth: usize,
) -> Result<Option<Value>, Error> {
    let expect = match f.ty {
        Ty::Bool | Ty::I32 | Ty::I64 => 0,
        Ty::F64 => 1,
        _ => 2,
    };
    if wire != expect {
        return err(format!(
            "field {} of {} has wire type {wire}, not {expect}",
            f.tag, msg.name
        ));
    }
    Ok(Some(match f.ty {
        Ty::Bool | Ty::I32 | Ty::I64 => scalar(f.ty, r.varint()?),
        Ty::F64 => {
            let b = r.fixed(8)?;
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            serde_json::Number::from_f64(f64::from_le_bytes(a))
                .map(Value::Number)
                .unwrap_or(Value::Null)
        }
        Ty::Str => Value::String(utf8(r.bytes()?)?),
        Ty::Bytes => Value::String(base64::engine::general_purpose::STANDARD.encode(r.bytes()?)),
        Ty::Msg(child) => return message_value(child, r.bytes()?, depth + 1),
        Ty::MapStr | Ty::MapBytes | Ty::MapMsg(_) => return err("a map inside a list"),
    }))
}

/// A whole message as JSON, special messages in their own form.
fn message_value(idx: u16, buf: &[u8], depth: usize) -> Result<Option<Value>, Error> {
    let special = SPECIAL[usize::from(idx)];
    if special == Special::None {
        let mut m = Map::new();
        decode_into(idx, buf, &mut m, depth)?;
        return Ok(Some(Value::Object(m)));
    }
    // Every special message is a few scalar fields: read them by tag.
    let mut r = Reader { buf };
    let (mut ints, mut strs, mut raw): ([i64; 3], [Option<String>; 4], Option<&[u8]>) =
        ([0; 3], Default::default(), None);
    while !r.buf.is_empty() {
        let key = r.varint()?;
        let (tag, wire) = (key >> 3, (key & 7) as u8);
        match wire {
            0 => {
                let v = r.varint()? as i64;
                if let Some(slot) = usize::try_from(tag)
                    .ok()
                    .and_then(|t| ints.get_mut(t.wrapping_sub(1)))
                {
                    *slot = v;
                }
            }
            2 => {
                let b = r.bytes()?;
                if special == Special::Raw && tag == 1 {
                    raw = Some(b);
                } else if let Some(slot) = usize::try_from(tag).ok().and_then(|t| strs.get_mut(t)) {
                    *slot = Some(utf8(b)?);
                }
            }
            w => r.skip(w)?,
        }
    }
    Ok(match special {
        Special::IntOrString => Some(if ints[0] == 1 {
            Value::String(strs[3].take().unwrap_or_default())
        } else {
            Value::from(ints[1] as i32)
        }),
        Special::Quantity => Some(Value::String(strs[1].take().unwrap_or_default())),
        Special::Time | Special::MicroTime => {
            let (secs, nanos) = (ints[0], ints[1] as i32);
            if secs == 0 && nanos == 0 {
                None
            } else {
                Some(Value::String(format_time(
                    secs,
                    nanos,
                    special == Special::MicroTime,
                )?))
            }
        }
        Special::Duration => Some(Value::String(go_duration(ints[0]))),
        Special::Raw => match raw {
            None | Some([]) => None,
            Some(b) => Some(
                serde_json::from_slice(b)
                    .map_err(|e| Error(format!("raw JSON in a protobuf body: {e}")))?,
            ),
        },
        Special::None => None,
    })
}

fn map_entry(ty: Ty, buf: &[u8], depth: usize) -> Result<(String, Value), Error> {
    let mut r = Reader { buf };
    let (mut k, mut v) = (String::new(), None);
    while !r.buf.is_empty() {
        let key = r.varint()?;
        match (key >> 3, (key & 7) as u8) {
            (1, 2) => k = utf8(r.bytes()?)?,
            (2, 2) => {
                let b = r.bytes()?;
                v = match ty {
                    Ty::MapStr => Some(Value::String(utf8(b)?)),
                    Ty::MapBytes => Some(Value::String(
                        base64::engine::general_purpose::STANDARD.encode(b),
                    )),
                    Ty::MapMsg(child) => message_value(child, b, depth + 1)?,
                    _ => None,
                };
            }
            (_, w) => r.skip(w)?,
        }
    }
    let zero = match ty {
        Ty::MapMsg(child) if SPECIAL[usize::from(child)] == Special::None => {
            Value::Object(Map::new())
        }
        Ty::MapMsg(_) => Value::Null,
        _ => Value::String(String::new()),
    };
    Ok((k, v.unwrap_or(zero)))
}

fn format_time(secs: i64, nanos: i32, micro: bool) -> Result<String, Error> {
    let ts = k8s_openapi::jiff::Timestamp::new(secs, if micro { nanos } else { 0 })
        .map_err(|e| Error(format!("a time out of range: {e}")))?;
    Ok(if micro {
        ts.strftime("%Y-%m-%dT%H:%M:%S.%6fZ").to_string()
    } else {
        ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
    })
}

/// Go's `time.Duration.String()` (`1h2m3s`, `1.5s`, `300ms`, `0s`).
fn go_duration(nanos: i64) -> String {
    if nanos == 0 {
        return "0s".into();
    }
    let neg = nanos < 0;
    let u = nanos.unsigned_abs();
    let mut s = String::new();
    if u < 1_000_000_000 {
        let (unit, div) = if u < 1_000 {
            ("ns", 1)
        } else if u < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        s.push_str(&frac(u, div));
        s.push_str(unit);
    } else {
        let h = u / 3_600_000_000_000;
        let m = (u / 60_000_000_000) % 60;
        let rest = u % 60_000_000_000;
        if h > 0 {
            s.push_str(&format!("{h}h"));
        }
        if h > 0 || m > 0 {
            s.push_str(&format!("{m}m"));
        }
        s.push_str(&frac(rest, 1_000_000_000));
        s.push('s');
    }
    if neg { format!("-{s}") } else { s }
}

/// `v / div` with its fraction's trailing zeros dropped.
fn frac(v: u64, div: u64) -> String {
    let (whole, part) = (v / div, v % div);
    if part == 0 {
        return whole.to_string();
    }
    let width = div.to_string().len() - 1;
    let p = format!("{part:0width$}");
    format!("{whole}.{}", p.trim_end_matches('0'))
}

/// Parses Go's duration string back into nanoseconds.
fn parse_go_duration(s: &str) -> Option<i64> {
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(0);
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num: f64 = rest[..n].parse().ok()?;
        rest = &rest[n..];
        let u = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let mult = match &rest[..u] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[u..];
        total += num * mult;
    }
    let v = total.round() as i64;
    Some(if neg { -v } else { v })
}

// ---- encoding ----

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn put_key(out: &mut Vec<u8>, tag: u32, wire: u8) {
    put_varint(out, (u64::from(tag) << 3) | u64::from(wire));
}

pub(crate) fn put_bytes(out: &mut Vec<u8>, tag: u32, b: &[u8]) {
    put_key(out, tag, 2);
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// `obj` (with its `apiVersion` and `kind`) as a protobuf body.
pub fn encode(obj: &Value) -> Result<Vec<u8>, Error> {
    let api_version = obj["apiVersion"].as_str().unwrap_or("");
    let kind = obj["kind"].as_str().unwrap_or("");
    let Some(idx) = message_of(api_version, kind) else {
        return err(format!("no protobuf message for {api_version} {kind}"));
    };
    let Value::Object(m) = obj else {
        return err("not an object");
    };
    let mut raw = Vec::new();
    encode_msg(idx, m, &mut raw, 0)?;
    Ok(wrap(api_version, kind, &raw))
}

/// A list (`kind` `…List`) of `items` as a protobuf body, written from the shared items
/// without building a JSON list.
pub fn encode_list(
    api_version: &str,
    list_kind: &str,
    metadata: &Value,
    items: &[&Value],
) -> Result<Vec<u8>, Error> {
    let Some(idx) = message_of(api_version, list_kind) else {
        return err(format!("no protobuf message for {api_version} {list_kind}"));
    };
    let msg = &schema::MESSAGES[usize::from(idx)];
    let mut raw = Vec::new();
    for f in msg.fields {
        match (f.json, f.ty) {
            ("metadata", Ty::Msg(child)) => {
                if let Value::Object(m) = metadata {
                    let mut b = Vec::new();
                    encode_msg(child, m, &mut b, 1)?;
                    put_bytes(&mut raw, f.tag, &b);
                }
            }
            ("items", Ty::Msg(child)) => {
                for item in items {
                    let Value::Object(m) = item else {
                        return err("a list item that is not an object");
                    };
                    let mut b = Vec::new();
                    encode_msg(child, m, &mut b, 1)?;
                    put_bytes(&mut raw, f.tag, &b);
                }
            }
            _ => {}
        }
    }
    Ok(wrap(api_version, list_kind, &raw))
}

fn wrap(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut type_meta = Vec::new();
    put_bytes(&mut type_meta, 1, api_version.as_bytes());
    put_bytes(&mut type_meta, 2, kind.as_bytes());
    let mut out = Vec::with_capacity(raw.len() + type_meta.len() + 16);
    out.extend_from_slice(MAGIC);
    put_bytes(&mut out, 1, &type_meta);
    put_bytes(&mut out, 2, raw);
    // contentEncoding and contentType: empty, as upstream writes them.
    put_bytes(&mut out, 3, b"");
    put_bytes(&mut out, 4, b"");
    out
}

fn encode_msg(
    idx: u16,
    obj: &Map<String, Value>,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return err("objects nested too deep");
    }
    let msg = &schema::MESSAGES[usize::from(idx)];
    for f in msg.fields {
        if f.inline {
            if let Ty::Msg(child) = f.ty {
                let mut b = Vec::new();
                encode_msg(child, obj, &mut b, depth + 1)?;
                put_bytes(out, f.tag, &b);
            }
            continue;
        }
        let Some(v) = obj.get(f.json) else { continue };
        if v.is_null() {
            continue;
        }
        let what = || format!("{}.{}", msg.name, f.json);
        match f.ty {
            Ty::MapStr | Ty::MapBytes | Ty::MapMsg(_) => {
                let Value::Object(m) = v else {
                    return err(format!("{} is not an object", what()));
                };
                for (k, v) in m {
                    let mut e = Vec::new();
                    put_bytes(&mut e, 1, k.as_bytes());
                    match f.ty {
                        Ty::MapMsg(child) => {
                            let b = message_bytes(child, v, depth + 1)?;
                            put_bytes(&mut e, 2, &b);
                        }
                        Ty::MapBytes => put_bytes(&mut e, 2, &base64_of(v, &what)?),
                        _ => put_bytes(&mut e, 2, str_of(v, &what)?.as_bytes()),
                    }
                    put_bytes(out, f.tag, &e);
                }
            }
            _ if f.repeated => {
                let Value::Array(items) = v else {
                    return err(format!("{} is not a list", what()));
                };
                for item in items {
                    put_value(out, f, item, depth, &what)?;
                }
            }
            _ => put_value(out, f, v, depth, &what)?,
        }
    }
    Ok(())
}

fn str_of<'a>(v: &'a Value, what: &dyn Fn() -> String) -> Result<&'a str, Error> {
    v.as_str()
        .ok_or_else(|| Error(format!("{} is not a string", what())))
}

fn base64_of(v: &Value, what: &dyn Fn() -> String) -> Result<Vec<u8>, Error> {
    base64::engine::general_purpose::STANDARD
        .decode(str_of(v, what)?)
        .map_err(|_| Error(format!("{} is not base64", what())))
}

fn put_value(
    out: &mut Vec<u8>,
    f: &Field,
    v: &Value,
    depth: usize,
    what: &dyn Fn() -> String,
) -> Result<(), Error> {
    match f.ty {
        Ty::Str => put_bytes(out, f.tag, str_of(v, what)?.as_bytes()),
        Ty::Bytes => put_bytes(out, f.tag, &base64_of(v, what)?),
        Ty::Bool => {
            let b = v
                .as_bool()
                .ok_or_else(|| Error(format!("{} is not a boolean", what())))?;
            put_key(out, f.tag, 0);
            put_varint(out, u64::from(b));
        }
        Ty::I32 | Ty::I64 => {
            let n = v
                .as_i64()
                .or_else(|| v.as_f64().filter(|x| x.fract() == 0.0).map(|x| x as i64))
                .ok_or_else(|| Error(format!("{} is not an integer", what())))?;
            put_key(out, f.tag, 0);
            put_varint(out, n as u64);
        }
        Ty::F64 => {
            let n = v
                .as_f64()
                .ok_or_else(|| Error(format!("{} is not a number", what())))?;
            put_key(out, f.tag, 1);
            out.extend_from_slice(&n.to_le_bytes());
        }
        Ty::Msg(child) => {
            let b = message_bytes(child, v, depth + 1)?;
            put_bytes(out, f.tag, &b);
        }
        Ty::MapStr | Ty::MapBytes | Ty::MapMsg(_) => return err("a map inside a list"),
    }
    Ok(())
}

/// One message's bytes from its JSON, special messages from their own form.
fn message_bytes(idx: u16, v: &Value, depth: usize) -> Result<Vec<u8>, Error> {
    let mut b = Vec::new();
    let name = schema::MESSAGES[usize::from(idx)].name;
    let bad = || Error(format!("a {name} that is not of its JSON form: {v}"));
    match SPECIAL[usize::from(idx)] {
        Special::None => {
            let Value::Object(m) = v else {
                return Err(bad());
            };
            encode_msg(idx, m, &mut b, depth)?;
        }
        Special::IntOrString => match v {
            Value::String(s) => {
                put_key(&mut b, 1, 0);
                put_varint(&mut b, 1);
                put_key(&mut b, 2, 0);
                put_varint(&mut b, 0);
                put_bytes(&mut b, 3, s.as_bytes());
            }
            Value::Number(n) => {
                let n = n.as_i64().ok_or_else(bad)?;
                put_key(&mut b, 1, 0);
                put_varint(&mut b, 0);
                put_key(&mut b, 2, 0);
                put_varint(&mut b, n as u64);
                put_bytes(&mut b, 3, b"");
            }
            _ => return Err(bad()),
        },
        Special::Quantity => {
            let s = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => return Err(bad()),
            };
            put_bytes(&mut b, 1, s.as_bytes());
        }
        Special::Time | Special::MicroTime => {
            let s = v.as_str().ok_or_else(bad)?;
            let ts: k8s_openapi::jiff::Timestamp = s.parse().map_err(|_| bad())?;
            put_key(&mut b, 1, 0);
            put_varint(&mut b, ts.as_second() as u64);
            put_key(&mut b, 2, 0);
            put_varint(&mut b, u64::from(ts.subsec_nanosecond().unsigned_abs()));
        }
        Special::Duration => {
            let n = parse_go_duration(v.as_str().ok_or_else(bad)?).ok_or_else(bad)?;
            put_key(&mut b, 1, 0);
            put_varint(&mut b, n as u64);
        }
        Special::Raw => put_bytes(&mut b, 1, v.to_string().as_bytes()),
    }
    Ok(b)
}
