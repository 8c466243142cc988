//! Go `encoding/json` `Unmarshal` into `[]v1.Toleration`, with Go's exact error messages.
//!
//! PodTolerationRestriction returns `json.Unmarshal`'s error unchanged when a namespace
//! annotation is malformed, so the text users see is Go's. Like Go, the whole input is first
//! checked for syntax (`checkValid`, Go's scanner state machine and messages), then decoded:
//! keys match case-insensitively, unknown keys are ignored, `null` leaves a string field alone,
//! and the first type mismatch is reported.

use k8s_openapi::api::core::v1::Toleration;

const MAX_DEPTH: usize = 10_000;
const SLICE_TYPE: &str = "[]v1.Toleration";
const ELEM_TYPE: &str = "v1.Toleration";

/// Decodes a JSON list of tolerations as Go would; `Err` carries Go's message.
pub(crate) fn decode_tolerations(src: &str) -> Result<Vec<Toleration>, String> {
    check_valid(src.as_bytes())?;
    Decoder {
        b: src.as_bytes(),
        i: 0,
    }
    .top()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Parse {
    ObjKey,
    ObjValue,
    ArrValue,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum St {
    BeginValueOrEmpty,
    BeginValue,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    InStringEscU(u8),
    Neg,
    Num1,
    Num0,
    Dot,
    Dot0,
    Exp,
    ExpSign,
    Exp0,
    /// Inside a literal: the literal's name and how many bytes of it were read.
    Lit(&'static str, usize),
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// Go's `quoteChar`: the byte as a Go-quoted rune in single quotes.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".to_string(),
        b'"' => "'\"'".to_string(),
        b'\\' => "'\\\\'".to_string(),
        0x07 => "'\\a'".to_string(),
        0x08 => "'\\b'".to_string(),
        0x0c => "'\\f'".to_string(),
        b'\n' => "'\\n'".to_string(),
        b'\r' => "'\\r'".to_string(),
        b'\t' => "'\\t'".to_string(),
        0x0b => "'\\v'".to_string(),
        0x20..=0x7e => format!("'{}'", c as char),
        0x00..=0x1f | 0x7f => format!("'\\x{c:02x}'"),
        0x80..=0xa0 | 0xad => format!("'\\u{c:04x}'"),
        _ => format!("'{}'", char::from(c)),
    }
}

fn syntax(c: u8, context: &str) -> String {
    format!("invalid character {} {context}", quote_char(c))
}

struct Scanner {
    st: St,
    stack: Vec<Parse>,
    end_top: bool,
}

impl Scanner {
    fn push(&mut self, c: u8, p: Parse, next: St) -> Result<(), String> {
        self.stack.push(p);
        self.st = next;
        if self.stack.len() > MAX_DEPTH {
            return Err(syntax(c, "exceeded max depth"));
        }
        Ok(())
    }

    fn pop(&mut self) {
        self.stack.pop();
        if self.stack.is_empty() {
            self.st = St::EndTop;
            self.end_top = true;
        } else {
            self.st = St::EndValue;
        }
    }

    fn begin_value(&mut self, c: u8) -> Result<(), String> {
        self.st = match c {
            _ if is_space(c) => return Ok(()),
            b'{' => return self.push(c, Parse::ObjKey, St::BeginStringOrEmpty),
            b'[' => return self.push(c, Parse::ArrValue, St::BeginValueOrEmpty),
            b'"' => St::InString,
            b'-' => St::Neg,
            b'0' => St::Num0,
            b'1'..=b'9' => St::Num1,
            b't' => St::Lit("true", 1),
            b'f' => St::Lit("false", 1),
            b'n' => St::Lit("null", 1),
            _ => return Err(syntax(c, "looking for beginning of value")),
        };
        Ok(())
    }

    fn end_value(&mut self, c: u8) -> Result<(), String> {
        let Some(top) = self.stack.last_mut() else {
            self.st = St::EndTop;
            self.end_top = true;
            return self.step(c);
        };
        if is_space(c) {
            self.st = St::EndValue;
            return Ok(());
        }
        match (*top, c) {
            (Parse::ObjKey, b':') => {
                *top = Parse::ObjValue;
                self.st = St::BeginValue;
            }
            (Parse::ObjKey, _) => return Err(syntax(c, "after object key")),
            (Parse::ObjValue, b',') => {
                *top = Parse::ObjKey;
                self.st = St::BeginString;
            }
            (Parse::ObjValue, b'}') | (Parse::ArrValue, b']') => self.pop(),
            (Parse::ObjValue, _) => return Err(syntax(c, "after object key:value pair")),
            (Parse::ArrValue, b',') => self.st = St::BeginValue,
            (Parse::ArrValue, _) => return Err(syntax(c, "after array element")),
        }
        Ok(())
    }

    fn step(&mut self, c: u8) -> Result<(), String> {
        match self.st {
            St::BeginValueOrEmpty if c == b']' => self.end_value(c),
            St::BeginValueOrEmpty | St::BeginValue => self.begin_value(c),
            St::BeginStringOrEmpty if c == b'}' => {
                if let Some(top) = self.stack.last_mut() {
                    *top = Parse::ObjValue;
                }
                self.end_value(c)
            }
            St::BeginStringOrEmpty | St::BeginString => match c {
                _ if is_space(c) => Ok(()),
                b'"' => {
                    self.st = St::InString;
                    Ok(())
                }
                _ => Err(syntax(c, "looking for beginning of object key string")),
            },
            St::EndValue => self.end_value(c),
            St::EndTop if is_space(c) => Ok(()),
            St::EndTop => Err(syntax(c, "after top-level value")),
            St::InString => {
                match c {
                    b'"' => self.st = St::EndValue,
                    b'\\' => self.st = St::InStringEsc,
                    0x00..=0x1f => return Err(syntax(c, "in string literal")),
                    _ => {}
                }
                Ok(())
            }
            St::InStringEsc => {
                self.st = match c {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => St::InString,
                    b'u' => St::InStringEscU(4),
                    _ => return Err(syntax(c, "in string escape code")),
                };
                Ok(())
            }
            St::InStringEscU(left) => {
                if !c.is_ascii_hexdigit() {
                    return Err(syntax(c, "in \\u hexadecimal character escape"));
                }
                self.st = if left == 1 {
                    St::InString
                } else {
                    St::InStringEscU(left - 1)
                };
                Ok(())
            }
            St::Neg => {
                self.st = match c {
                    b'0' => St::Num0,
                    b'1'..=b'9' => St::Num1,
                    _ => return Err(syntax(c, "in numeric literal")),
                };
                Ok(())
            }
            St::Num1 if c.is_ascii_digit() => Ok(()),
            St::Num1 | St::Num0 => match c {
                b'.' => {
                    self.st = St::Dot;
                    Ok(())
                }
                b'e' | b'E' => {
                    self.st = St::Exp;
                    Ok(())
                }
                _ => self.end_value(c),
            },
            St::Dot if c.is_ascii_digit() => {
                self.st = St::Dot0;
                Ok(())
            }
            St::Dot => Err(syntax(c, "after decimal point in numeric literal")),
            St::Dot0 | St::Exp0 if c.is_ascii_digit() => Ok(()),
            St::Dot0 if c == b'e' || c == b'E' => {
                self.st = St::Exp;
                Ok(())
            }
            St::Dot0 | St::Exp0 => self.end_value(c),
            St::Exp if c == b'+' || c == b'-' => {
                self.st = St::ExpSign;
                Ok(())
            }
            St::Exp | St::ExpSign if c.is_ascii_digit() => {
                self.st = St::Exp0;
                Ok(())
            }
            St::Exp | St::ExpSign => Err(syntax(c, "in exponent of numeric literal")),
            St::Lit(word, read) => {
                let want = word.as_bytes()[read];
                if c != want {
                    let context = format!("in literal {word} (expecting {})", quote_char(want));
                    return Err(syntax(c, &context));
                }
                self.st = if read + 1 == word.len() {
                    St::EndValue
                } else {
                    St::Lit(word, read + 1)
                };
                Ok(())
            }
        }
    }
}

/// Go's `checkValid`, including what it reports at the end of input.
fn check_valid(src: &[u8]) -> Result<(), String> {
    let mut sc = Scanner {
        st: St::BeginValue,
        stack: Vec::new(),
        end_top: false,
    };
    for &c in src {
        sc.step(c)?;
    }
    if sc.end_top {
        return Ok(());
    }
    sc.step(b' ')?;
    if sc.end_top {
        return Ok(());
    }
    Err("unexpected end of JSON input".to_string())
}

/// Decodes input already checked by [`check_valid`].
struct Decoder<'a> {
    b: &'a [u8],
    i: usize,
}

fn type_error(kind: &str, ty: &str, field: Option<&str>) -> String {
    match field {
        Some(f) => format!(
            "json: cannot unmarshal {kind} into Go struct field Toleration.{f} of type {ty}"
        ),
        None => format!("json: cannot unmarshal {kind} into Go value of type {ty}"),
    }
}

/// Go's case folding for field names: ASCII case plus the two non-ASCII folds it knows.
fn fold(key: &str) -> String {
    key.chars()
        .map(|c| match c {
            '\u{017f}' => 's',
            '\u{212a}' => 'k',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

impl Decoder<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && is_space(self.b[self.i]) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> u8 {
        self.ws();
        self.b.get(self.i).copied().unwrap_or(b' ')
    }

    fn kind(&mut self) -> &'static str {
        match self.peek() {
            b'{' => "object",
            b'[' => "array",
            b'"' => "string",
            b't' | b'f' => "bool",
            b'n' => "null",
            _ => "number",
        }
    }

    /// Skips one (valid) value without recursion.
    fn skip(&mut self) {
        let mut depth = 0usize;
        loop {
            if self.peek() == b' ' {
                return; // end of input; cannot happen after check_valid
            }
            match self.peek() {
                b'"' => {
                    self.string();
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.i += 1;
                }
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    self.i += 1;
                }
                b',' | b':' => self.i += 1,
                _ => {
                    while self.i < self.b.len() && !b",:]} \t\r\n".contains(&self.b[self.i]) {
                        self.i += 1;
                    }
                }
            }
            if depth == 0 {
                return;
            }
        }
    }

    /// Reads a string token, decoding escapes (lone surrogates become U+FFFD, as in Go).
    fn string(&mut self) -> String {
        self.i += 1; // opening quote
        let mut out: Vec<u16> = Vec::new();
        let mut text = String::new();
        let flush = |out: &mut Vec<u16>, text: &mut String| {
            text.extend(char::decode_utf16(out.drain(..)).map(|r| r.unwrap_or('\u{fffd}')));
        };
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'"' => {
                    self.i += 1;
                    break;
                }
                b'\\' => {
                    let e = self.b.get(self.i + 1).copied().unwrap_or(b'"');
                    self.i += 2;
                    let unit = match e {
                        b'b' => 0x08,
                        b'f' => 0x0c,
                        b'n' => 0x0a,
                        b'r' => 0x0d,
                        b't' => 0x09,
                        b'u' => {
                            let hex = self.b.get(self.i..self.i + 4).unwrap_or_default();
                            self.i += 4;
                            std::str::from_utf8(hex)
                                .ok()
                                .and_then(|h| u16::from_str_radix(h, 16).ok())
                                .unwrap_or(0xfffd)
                        }
                        other => u16::from(other),
                    };
                    out.push(unit);
                }
                _ => {
                    flush(&mut out, &mut text);
                    let start = self.i;
                    while self.i < self.b.len() && !matches!(self.b[self.i], b'"' | b'\\') {
                        self.i += 1;
                    }
                    text.push_str(&String::from_utf8_lossy(&self.b[start..self.i]));
                }
            }
        }
        flush(&mut out, &mut text);
        text
    }

    fn scalar_text(&mut self) -> &str {
        self.ws();
        let start = self.i;
        while self.i < self.b.len() && !b",:]} \t\r\n".contains(&self.b[self.i]) {
            self.i += 1;
        }
        std::str::from_utf8(&self.b[start..self.i]).unwrap_or_default()
    }

    fn top(mut self) -> Result<Vec<Toleration>, String> {
        match self.kind() {
            "null" => Ok(Vec::new()),
            "array" => {
                self.i += 1;
                let mut out = Vec::new();
                let mut first_err: Option<String> = None;
                while self.i < self.b.len() && self.peek() != b']' {
                    let mut t = Toleration::default();
                    match self.kind() {
                        "object" => {
                            if let Err(e) = self.object(&mut t) {
                                first_err.get_or_insert(e);
                            }
                        }
                        "null" => self.skip(),
                        kind => {
                            first_err.get_or_insert(type_error(kind, ELEM_TYPE, None));
                            self.skip();
                        }
                    }
                    out.push(t);
                    if self.peek() == b',' {
                        self.i += 1;
                    }
                }
                first_err.map_or(Ok(out), Err)
            }
            kind => Err(type_error(kind, SLICE_TYPE, None)),
        }
    }

    fn object(&mut self, t: &mut Toleration) -> Result<(), String> {
        self.i += 1; // '{'
        let mut first_err: Option<String> = None;
        while self.i < self.b.len() && self.peek() != b'}' {
            let key = self.string();
            self.peek(); // ':'
            self.i += 1;
            if let Err(e) = self.field(t, &fold(&key)) {
                first_err.get_or_insert(e);
            }
            if self.peek() == b',' {
                self.i += 1;
            }
        }
        self.i += 1;
        first_err.map_or(Ok(()), Err)
    }

    fn field(&mut self, t: &mut Toleration, folded: &str) -> Result<(), String> {
        let (slot, name, ty) = match folded {
            "key" => (&mut t.key, "key", "string"),
            "operator" => (&mut t.operator, "operator", "v1.TolerationOperator"),
            "value" => (&mut t.value, "value", "string"),
            "effect" => (&mut t.effect, "effect", "v1.TaintEffect"),
            "tolerationseconds" => return self.seconds(t),
            _ => {
                self.skip();
                return Ok(());
            }
        };
        match self.kind() {
            "string" => {
                *slot = Some(self.string());
                Ok(())
            }
            "null" => {
                self.skip();
                Ok(())
            }
            kind => {
                self.skip();
                Err(type_error(kind, ty, Some(name)))
            }
        }
    }

    fn seconds(&mut self, t: &mut Toleration) -> Result<(), String> {
        let field = Some("tolerationSeconds");
        match self.kind() {
            "null" => {
                self.skip();
                t.toleration_seconds = None;
                Ok(())
            }
            "number" => {
                let text = self.scalar_text();
                match text.parse::<i64>() {
                    Ok(n) => {
                        t.toleration_seconds = Some(n);
                        Ok(())
                    }
                    Err(_) => Err(type_error(&format!("number {text}"), "int64", field)),
                }
            }
            kind => {
                self.skip();
                Err(type_error(kind, "int64", field))
            }
        }
    }
}

#[cfg(test)]
mod tests;
