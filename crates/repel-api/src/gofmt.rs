//! How Go's `fmt` prints values decoded from JSON into `interface{}` (`%v`), which upstream's
//! messages embed: `map[a:1 b:[x y]]` with sorted keys, strings bare, `<nil>` for null.
//!
//! Integers print as integers (the API server decodes with ints preserved); other numbers as
//! Go's `%v` of a `float64`: `strconv.FormatFloat(f, 'g', -1, 64)`, shortest digits, exponent
//! form when the exponent is below -4 or at least 6 (`1e+06`, `1e-05`).
//!
//! [`go_s`] is `%s` of the same values (what `mergepatch.ErrBadPatchType` prints a `$patch`
//! value with) and [`go_type`] is `%s` of their `reflect.TypeOf` (`mergepatch.ErrBadArgType`).

use serde_json::Value;

/// Go's `fmt.Sprintf("%v", v)` of a JSON-decoded value.
pub fn go_value(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v);
    out
}

fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else if let Some(f) = n.as_f64() {
                out.push_str(&go_float(f));
            }
        }
        Value::String(s) => out.push_str(s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push_str("map[");
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                if let Some(v) = map.get(k.as_str()) {
                    write_value(out, v);
                }
            }
            out.push(']');
        }
    }
}

/// Go's `fmt.Sprintf("%s", v)` of a JSON-decoded value: strings print bare; any other scalar
/// is a bad verb, `%!s(TYPE=VALUE)` (`%!s(int64=1)`, `%!s(bool=true)`, `%!s(float64=1.5)`);
/// lists and maps print as with `%v`, each element with `%s`; a top-level `null` is
/// `%!s(<nil>)`, a nested one `<nil>` (fmt's `printValue` of a nil interface).
pub fn go_s(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Null => out.push_str("%!s(<nil>)"),
        other => write_s(&mut out, other),
    }
    out
}

fn write_s(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::String(s) => out.push_str(s),
        Value::Bool(b) => {
            out.push_str("%!s(bool=");
            out.push_str(if *b { "true" } else { "false" });
            out.push(')');
        }
        Value::Number(n) => {
            out.push_str("%!s(");
            out.push_str(go_type(v));
            out.push('=');
            match n.as_i64() {
                Some(i) => out.push_str(&i.to_string()),
                None => out.push_str(&n.as_f64().map(go_float).unwrap_or_default()),
            }
            out.push(')');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_s(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push_str("map[");
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                if let Some(v) = map.get(k.as_str()) {
                    write_s(out, v);
                }
            }
            out.push(']');
        }
    }
}

/// `%s` of `reflect.TypeOf(v)` for a value the API server decoded from JSON with integers
/// preserved (`int64`, else `float64`): `string`, `bool`, `int64`, `float64`,
/// `[]interface {}`, `map[string]interface {}`, and for `null` (a nil `reflect.Type`)
/// `%!s(<nil>)`.
pub fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "%!s(<nil>)",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%v` of a `float64`: `strconv.FormatFloat(f, 'g', -1, 64)`, e.g. `0.5`, `1e+06`, `1e-05`.
pub fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Shortest round-trip digits via Rust's `{:e}` (also shortest).
    let e = format!("{f:e}");
    let (mantissa, exp) = match e.split_once('e') {
        Some((m, x)) => (m.to_string(), x.parse::<i32>().unwrap_or(0)),
        None => (e.clone(), 0),
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        let abs = exp.unsigned_abs();
        if abs < 10 {
            format!("{mantissa}e{sign}0{abs}")
        } else {
            format!("{mantissa}e{sign}{abs}")
        }
    } else {
        // Plain decimal, shortest digits.
        format!("{f}")
    }
}

#[cfg(test)]
mod tests;
