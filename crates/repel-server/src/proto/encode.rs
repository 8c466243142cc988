//! Encoding an object's JSON as a protobuf body: the `k8s\0` magic, the `runtime.Unknown`
//! envelope and each field by the schema's message table (after apimachinery's
//! `pkg/runtime/serializer/protobuf/protobuf.go` and the generated `generated.pb.go` marshalers).

use super::*;

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

pub(super) fn wrap(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
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

pub(super) fn encode_msg(
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

pub(super) fn str_of<'a>(v: &'a Value, what: &dyn Fn() -> String) -> Result<&'a str, Error> {
    v.as_str()
        .ok_or_else(|| Error(format!("{} is not a string", what())))
}

pub(super) fn base64_of(v: &Value, what: &dyn Fn() -> String) -> Result<Vec<u8>, Error> {
    base64::engine::general_purpose::STANDARD
        .decode(str_of(v, what)?)
        .map_err(|_| Error(format!("{} is not base64", what())))
}

pub(super) fn put_value(
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
pub(super) fn message_bytes(idx: u16, v: &Value, depth: usize) -> Result<Vec<u8>, Error> {
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
