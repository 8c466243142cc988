//! A YAML writer for JSON documents ([`Tree`]s) in the block style `kubectl get -o yaml` prints
//! (sequences at their key's indentation), for the manifests repel writes in bulk (`repel
//! snapshot`: 150,000 pods). It writes only what the fast read's line scanner ([`super::scan`])
//! takes back, so what it writes is read back at the scanner's speed, and what serde-saphyr
//! reads from it is the value written (tests below):
//! - a string is plain when the fast read types it as that string ([`super::plain_string`])
//!   and nothing in it could mean anything else in YAML (an indicator first, `: `, ` #`,
//!   flow characters, anything but printable ASCII); otherwise double-quoted with JSON's
//!   escapes plus `\xNN` for other control characters;
//! - numbers as serde_json prints them, `true`, `false`, `null`, `{}` and `[]`.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::tree::Tree;

use super::plain_string;

/// `value` as one YAML document (no `---` marker), ending in a line break.
pub fn document(value: &Tree, out: &mut String) {
    match value {
        Tree::Map(m) if !m.is_empty() => mapping(m, 0, out),
        Tree::Seq(a) if !a.is_empty() => sequence(a, 0, out),
        scalar => {
            self::scalar(scalar, out);
            out.push('\n');
        }
    }
}

fn indent(n: usize, out: &mut String) {
    for _ in 0..n {
        out.push(' ');
    }
}

/// A non-empty mapping whose first key goes where the text ends now and whose other keys are
/// written at `at` spaces.
fn mapping(m: &[(Cow<'_, str>, Tree)], at: usize, out: &mut String) {
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            indent(at, out);
        }
        if k.len() > MAX_IMPLICIT_KEY {
            explicit_entry(k, v, at, out);
            continue;
        }
        string(k, out);
        out.push(':');
        value_after_key(v, at, out);
    }
}

/// Longest key written as `key: value`: YAML ends an implicit key within 1,024 characters.
const MAX_IMPLICIT_KEY: usize = 256;

/// An entry whose key is too long to be implicit: `? "key"` and `: value` on the next line.
fn explicit_entry(k: &str, v: &Tree, at: usize, out: &mut String) {
    out.push_str("? ");
    quoted(k, out);
    out.push('\n');
    indent(at, out);
    out.push(':');
    block_value(v, at, at + 2, out);
}

/// A non-empty sequence whose first `-` goes where the text ends now and whose other items are
/// written at `at` spaces.
fn sequence(a: &[Tree], at: usize, out: &mut String) {
    for (i, v) in a.iter().enumerate() {
        if i > 0 {
            indent(at, out);
        }
        out.push_str("- ");
        match v {
            Tree::Map(m) if !m.is_empty() => mapping(m, at + 2, out),
            Tree::Seq(inner) if !inner.is_empty() => sequence(inner, at + 2, out),
            s => {
                scalar(s, out);
                out.push('\n');
            }
        }
    }
}

/// What follows `key:` for a key written at `at` spaces.
fn value_after_key(v: &Tree, at: usize, out: &mut String) {
    block_value(v, at, at, out);
}

/// A value after the `:` of an entry at `at` spaces: a mapping on the next lines at `at + 2`,
/// a sequence at `seq_at` (a key's own indentation, or deeper after an explicit `? key`), a
/// scalar on the same line.
fn block_value(v: &Tree, at: usize, seq_at: usize, out: &mut String) {
    match v {
        Tree::Map(m) if !m.is_empty() => {
            out.push('\n');
            indent(at + 2, out);
            mapping(m, at + 2, out);
        }
        Tree::Seq(a) if !a.is_empty() => {
            out.push('\n');
            indent(seq_at, out);
            sequence(a, seq_at, out);
        }
        s => {
            out.push(' ');
            scalar(s, out);
            out.push('\n');
        }
    }
}

fn scalar(v: &Tree, out: &mut String) {
    match v {
        Tree::Null => out.push_str("null"),
        Tree::Bool(true) => out.push_str("true"),
        Tree::Bool(false) => out.push_str("false"),
        Tree::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Tree::Str(s) => string(s, out),
        Tree::Map(_) => out.push_str("{}"),
        Tree::Seq(_) => out.push_str("[]"),
    }
}

fn string(s: &str, out: &mut String) {
    if plain_ok(s) {
        out.push_str(s);
    } else {
        quoted(s, out);
    }
}

/// Whether `s` may be written plain: read back as this very string by the fast read and by
/// any YAML reader.
fn plain_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return false;
    };
    if b.len() > 1024
        || b"-?:,[]{}#&*!|>'\"%@`.~ ".contains(&first)
        || last == b' '
        || last == b':'
        || s == "<<"
    {
        return false;
    }
    let mut prev = 0u8;
    for &c in b {
        if !(b' '..=b'~').contains(&c)
            || matches!(c, b',' | b'[' | b']' | b'{' | b'}')
            || (prev == b':' && c == b' ')
            || (prev == b' ' && c == b'#')
        {
            return false;
        }
        prev = c;
    }
    plain_string(s)
}

fn quoted(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            '\u{feff}' | '\u{fffe}' | '\u{ffff}' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests;
