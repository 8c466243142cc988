//! Decoding a protobuf body into the object's JSON: the envelope, then each field by the
//! schema's message table, Go's time and duration forms (after apimachinery's
//! `pkg/runtime/serializer/protobuf/protobuf.go` and the generated `generated.pb.go` unmarshalers).

use super::*;

pub(super) struct Reader<'a> {
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
pub(super) fn envelope(buf: &[u8]) -> Result<(String, String, &[u8]), Error> {
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

pub(super) fn utf8(b: &[u8]) -> Result<String, Error> {
    String::from_utf8(b.to_vec()).map_err(|_| Error("a string that is not UTF-8".into()))
}

/// Messages nest at most this deep (a body cannot make the decoder recurse without bound).
pub(super) const MAX_DEPTH: usize = 64;

pub(super) fn decode_into(
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

pub(super) fn scalar(ty: Ty, v: u64) -> Value {
    match ty {
        Ty::Bool => Value::Bool(v != 0),
        // Go's int32 is sign-extended to ten bytes on the wire.
        Ty::I32 => Value::from(v as i64 as i32),
        _ => Value::from(v as i64),
    }
}

pub(super) fn is_zero(v: &Value) -> bool {
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
pub(super) fn value(
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
pub(super) fn message_value(idx: u16, buf: &[u8], depth: usize) -> Result<Option<Value>, Error> {
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

pub(super) fn map_entry(ty: Ty, buf: &[u8], depth: usize) -> Result<(String, Value), Error> {
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

pub(super) fn format_time(secs: i64, nanos: i32, micro: bool) -> Result<String, Error> {
    let ts = k8s_openapi::jiff::Timestamp::new(secs, if micro { nanos } else { 0 })
        .map_err(|e| Error(format!("a time out of range: {e}")))?;
    Ok(if micro {
        ts.strftime("%Y-%m-%dT%H:%M:%S.%6fZ").to_string()
    } else {
        ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
    })
}

/// Go's `time.Duration.String()` (`1h2m3s`, `1.5s`, `300ms`, `0s`).
pub(super) fn go_duration(nanos: i64) -> String {
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
pub(super) fn frac(v: u64, div: u64) -> String {
    let (whole, part) = (v / div, v % div);
    if part == 0 {
        return whole.to_string();
    }
    let width = div.to_string().len() - 1;
    let p = format!("{part:0width$}");
    format!("{whole}.{}", p.trim_end_matches('0'))
}

/// Parses Go's duration string back into nanoseconds.
pub(super) fn parse_go_duration(s: &str) -> Option<i64> {
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
