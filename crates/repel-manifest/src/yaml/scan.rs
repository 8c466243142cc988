//! The first layer of the YAML read: a hand-written scanner for the block style manifests are
//! written in (`kubectl get -o yaml`, Helm output, generated clusters). It reads one piece (one
//! document and its `---` marker) line by line into `serde_json::Value`s, with no event parser
//! under it, and declines (`None`) anything outside a small subset, which then goes to the
//! layers below exactly as before. It never reports an error: errors are the lower layers'.
//!
//! # The subset
//! - block mappings (`key: value`, plain or quoted keys on one line) and block sequences
//!   (`- item`, `- key: value` compact mappings, sequences at their key's indentation);
//! - plain scalars on one line, typed by the fast read's own [`resolve_plain`] and
//!   [`plain_string`]; single- and double-quoted scalars on one line, with their escapes;
//! - `{}` and `[]`, comments, blank lines, an empty value (a null), CRLF line ends.
//!
//! Declined: flow collections with content, block scalars (`|`, `>`), scalars over several
//! lines, anchors, aliases, tags, complex keys (`? `), a key repeated in a mapping, `<<`,
//! tabs, directives, document end markers, a byte-order mark, non-printable characters,
//! nesting deeper than [`MAX_FAST_DEPTH`], long runs of comments, and any indentation or line
//! that does not fit exactly.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{Counts, MAX_FAST_DEPTH, Plain, plain_scalar, plain_string, template};

/// Most comments in a row the scanner takes: granit-parser buffers consecutive comments while
/// it resolves an entry and refuses more than serde-saphyr's budget allows (32).
const MAX_COMMENT_RUN: usize = 16;

/// Longest key the scanner takes: YAML's implicit keys end within 1,024 characters.
const MAX_KEY_BYTES: usize = 512;

/// A line with content: its indentation, and its text from there, trailing spaces removed.
#[derive(Clone, Copy)]
struct Line<'t> {
    indent: usize,
    text: &'t str,
}

/// Reads one piece of a stream (see `split_documents`) when it lies inside the subset: its
/// document (none when it holds only a marker, comments or blank lines) and what it used of
/// the budget, over-estimated; `None` for anything else.
pub(super) fn scan(piece: &str) -> Option<(Vec<Value>, Counts)> {
    template::found(None);
    let read = scan_piece(piece);
    if read.is_none() {
        template::found(None);
    }
    read
}

/// [`scan`], what it finds of a pod's spec recorded ([`template::found`]).
fn scan_piece(piece: &str) -> Option<(Vec<Value>, Counts)> {
    let (lines, mut counts) = lines(piece)?;
    // Stream start and end, document start and end, and the null of an empty document.
    counts.events += 5;
    counts.nodes += 1;
    counts.scalar_bytes += 1;
    counts.documents += 1;
    if lines.is_empty() {
        return Some((Vec::new(), counts));
    }
    let mut s = Scanner {
        lines,
        pos: 0,
        counts,
        piece,
    };
    let value = s.collection(0)?;
    (s.pos == s.lines.len()).then(|| (vec![value], s.counts))
}

/// The piece's lines with content, and the comments' share of the budget; `None` when a line
/// holds what the scanner declines whatever its place (a tab, a control character, a BOM, a
/// marker other than the opening `---`, a long run of comments).
fn lines(piece: &str) -> Option<(Vec<Line<'_>>, Counts)> {
    let mut out = Vec::with_capacity(piece.len() / 24 + 1);
    let mut counts = Counts::default();
    let mut run = 0usize;
    for (i, raw) in piece.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if !printable(raw) {
            return None;
        }
        let text = raw.trim_end_matches(' ');
        let body = text.trim_start_matches(' ');
        let indent = text.len() - body.len();
        if i == 0
            && let Some(rest) = text.strip_prefix("---")
        {
            let after = rest.trim_start_matches(' ');
            if after.is_empty() {
                continue;
            }
            if after.starts_with('#') && after.len() < rest.len() {
                comment(&mut counts, &mut run, raw.len())?;
                continue;
            }
            return None;
        }
        if indent == 0 && (body.starts_with("---") || body.starts_with("...")) {
            return None;
        }
        if body.is_empty() {
            continue;
        }
        if body.starts_with('#') {
            comment(&mut counts, &mut run, raw.len())?;
            continue;
        }
        // A `#` may end the line in a comment (or sit in a scalar: counted all the same).
        run = 0;
        if body.contains('#') {
            comment(&mut counts, &mut run, raw.len())?;
        }
        out.push(Line { indent, text: body });
    }
    Some((out, counts))
}

/// A comment on a line of `len` bytes (its trailing spaces count), the `run`-th in a row;
/// `None` past [`MAX_COMMENT_RUN`].
fn comment(counts: &mut Counts, run: &mut usize, len: usize) -> Option<()> {
    counts.events += 1;
    counts.comment_bytes += len;
    *run += 1;
    (*run <= MAX_COMMENT_RUN).then_some(())
}

/// Whether every character of a line is one YAML allows in the subset: printable ASCII, or
/// printable beyond it except the BOM, NEL and the line and paragraph separators.
fn printable(line: &str) -> bool {
    if line.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return true;
    }
    line.chars().all(|c| {
        matches!(c as u32, 0x20..=0x7e | 0xa0..=0xd7ff | 0xe000..=0xfffd | 0x10000..)
            && !matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}')
    })
}

/// Whether a line is a block sequence entry (`-` alone or followed by a space).
fn is_entry(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// Whether a byte may not start a plain scalar in the subset (YAML's indicators, `-` included).
fn indicator(b: u8) -> bool {
    matches!(
        b,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// Whether what follows a scalar on its line is nothing or a comment.
fn line_ends(after: &str) -> bool {
    let rest = after.trim_start_matches(' ');
    rest.is_empty() || (rest.starts_with('#') && rest.len() < after.len())
}

/// A mapping key at the start of `text` and what follows its `:` (a space or nothing first);
/// `None` when the line is not a key the subset takes.
fn split_key(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let first = *text.as_bytes().first()?;
    let (key, after) = match first {
        b'"' => double_quoted(text)?,
        b'\'' => single_quoted(text)?,
        b if indicator(b) => return None,
        _ => {
            let b = text.as_bytes();
            let colon =
                (0..b.len()).find(|&i| b[i] == b':' && b.get(i + 1).is_none_or(|&n| n == b' '))?;
            let key = text.get(..colon)?.trim_end_matches(' ');
            if key.contains(" #") || !plain_string(key) {
                return None;
            }
            (Cow::Borrowed(key), text.get(colon..)?)
        }
    };
    if text.len() - after.len() > MAX_KEY_BYTES || key == "<<" {
        return None;
    }
    let rest = after.trim_start_matches(' ').strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with(' ')).then_some((key, rest))
}

/// A double-quoted scalar at the start of `text`, closed on its line, with its escapes
/// resolved as granit-parser resolves them (borrowed when it holds none); and the text after its
/// closing quote.
fn double_quoted(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let b = text.as_bytes();
    let mut out = String::new();
    let (mut i, mut start) = (1, 1);
    loop {
        match *b.get(i)? {
            b'"' => {
                let after = text.get(i + 1..)?;
                if start == 1 {
                    return Some((Cow::Borrowed(text.get(1..i)?), after));
                }
                out.push_str(text.get(start..i)?);
                return Some((Cow::Owned(out), after));
            }
            b'\\' => {
                out.push_str(text.get(start..i)?);
                let escape = *b.get(i + 1)?;
                i += 2;
                let len = match escape {
                    b'x' => 2,
                    b'u' => 4,
                    b'U' => 8,
                    _ => 0,
                };
                let c = if len == 0 {
                    match escape {
                        b'0' => '\0',
                        b'a' => '\x07',
                        b'b' => '\x08',
                        b't' => '\t',
                        b'n' => '\n',
                        b'v' => '\x0b',
                        b'f' => '\x0c',
                        b'r' => '\r',
                        b'e' => '\x1b',
                        b' ' => ' ',
                        b'"' => '"',
                        b'/' => '/',
                        b'\\' => '\\',
                        b'N' => '\u{85}',
                        b'_' => '\u{a0}',
                        b'L' => '\u{2028}',
                        b'P' => '\u{2029}',
                        _ => return None,
                    }
                } else {
                    let hex = text.get(i..i + len)?;
                    if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                        return None;
                    }
                    i += len;
                    // A surrogate (granit-parser pairs them) declines here.
                    char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
                };
                out.push(c);
                start = i;
            }
            _ => i += 1,
        }
    }
}

/// A single-quoted scalar at the start of `text`, closed on its line (`''` is a quote); and
/// the text after its closing quote (the scalar borrowed when it holds no `''`).
fn single_quoted(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let b = text.as_bytes();
    let mut out = String::new();
    let (mut i, mut start) = (1, 1);
    loop {
        if *b.get(i)? == b'\'' {
            if b.get(i + 1) == Some(&b'\'') {
                out.push_str(text.get(start..i)?);
                out.push('\'');
                i += 2;
                start = i;
            } else {
                let after = text.get(i + 1..)?;
                if start == 1 {
                    return Some((Cow::Borrowed(text.get(1..i)?), after));
                }
                out.push_str(text.get(start..i)?);
                return Some((Cow::Owned(out), after));
            }
        } else {
            i += 1;
        }
    }
}

/// The line-by-line reader of one piece.
struct Scanner<'t> {
    lines: Vec<Line<'t>>,
    /// The next line to read.
    pos: usize,
    counts: Counts,
    /// The piece the lines are of.
    piece: &'t str,
}

impl<'t> Scanner<'t> {
    /// Where line `i` starts in the piece, its indentation included.
    fn raw_start(&self, i: usize) -> Option<usize> {
        let l = self.lines.get(i)?;
        (l.text.as_ptr() as usize)
            .checked_sub(self.piece.as_ptr() as usize)?
            .checked_sub(l.indent)
    }

    /// A top-level `spec:` block on the lines after line `p`, when it holds a `nodeName:`
    /// line among its keys: its text before that line and after it, the line's index, and
    /// the index of the line after the block.
    fn spec_block(&self, p: usize) -> Option<(&'t str, &'t str, usize, usize)> {
        let c = self.lines.get(p + 1)?.indent;
        if c == 0 {
            return None;
        }
        let end = (p + 1..self.lines.len())
            .find(|&i| self.lines[i].indent == 0)
            .unwrap_or(self.lines.len());
        let k = (p + 1..end)
            .find(|&i| self.lines[i].indent == c && self.lines[i].text.starts_with("nodeName:"))?;
        let start = self.raw_start(p + 1)?;
        let stop = if end < self.lines.len() {
            self.raw_start(end)?
        } else {
            self.piece.len()
        };
        let line = self.raw_start(k)?;
        let line_end = self
            .piece
            .get(line..)?
            .find('\n')
            .map_or(self.piece.len(), |at| line + at + 1);
        if line_end > stop {
            return None;
        }
        Some((
            self.piece.get(start..line)?,
            self.piece.get(line_end..stop)?,
            k,
            end,
        ))
    }

    /// Line `k` (a `nodeName:` line) read alone: its mapping and what it counts.
    fn line_alone(&self, k: usize, depth: usize) -> Option<(Map<String, Value>, Counts)> {
        let line = *self.lines.get(k)?;
        let mut one = Scanner {
            lines: vec![line],
            pos: 0,
            counts: Counts::default(),
            piece: self.piece,
        };
        match one.mapping(line.indent, depth)? {
            Value::Object(m) if one.pos == 1 && m.len() == 1 => Some((m, one.counts)),
            _ => None,
        }
    }

    /// The value of a document's top-level `spec:` key (the current line, `rest` what
    /// follows its `:`), at `depth`: a pod spec remembered ([`template`]) but for its
    /// `nodeName:` line is not read again but given as a stub holding only `nodeName`
    /// ([`template::Scanned::Known`]); another is read, and its text recorded to be
    /// remembered if the document decodes as a pod ([`template::Scanned::Read`]).
    fn spec(&mut self, rest: &str, depth: usize) -> Option<Value> {
        let p = self.pos;
        let Some((before, after, k, end)) = self.spec_block(p) else {
            return self.value(0, rest, depth, true);
        };
        if let Some(t) = template::known(before, after)
            && let Some((m, counts)) = self.line_alone(k, depth)
            && let Some(Value::String(name)) = m.get("nodeName")
        {
            let node_name = name.clone();
            self.counts.add(template::counts_of(&t));
            self.counts.add(counts);
            self.pos = end;
            template::found(Some(template::Scanned::Known {
                template: t,
                node_name,
            }));
            return Some(Value::Object(m));
        }
        let start = self.counts;
        let value = self.value(0, rest, depth, true)?;
        if let Some((m, line)) = self.line_alone(k, depth)
            && matches!(m.get("nodeName"), Some(Value::String(_)))
        {
            let counts = self.counts.minus(start).minus(line);
            template::found(Some(template::Scanned::Read(template::block(
                before, after, counts,
            ))));
        }
        Some(value)
    }
}

impl Scanner<'_> {
    /// A scalar node and its text, for the budget (a byte more: serde-saphyr's count of a
    /// piece it reads may exceed the text's length).
    fn count_scalar(&mut self, len: usize) {
        self.counts.events += 1;
        self.counts.nodes += 1;
        self.counts.scalar_bytes += len + 1;
    }

    /// A collection node (its start and end events).
    fn count_collection(&mut self) {
        self.counts.events += 2;
        self.counts.nodes += 1;
    }

    /// The block collection starting at the next line, inside `depth` others.
    fn collection(&mut self, depth: usize) -> Option<Value> {
        let line = *self.lines.get(self.pos)?;
        if is_entry(line.text) {
            self.sequence(line.indent, depth)
        } else {
            self.mapping(line.indent, depth)
        }
    }

    /// The block mapping whose keys are at column `n`, starting at the next line.
    fn mapping(&mut self, n: usize, depth: usize) -> Option<Value> {
        if depth >= MAX_FAST_DEPTH {
            return None;
        }
        self.count_collection();
        let mut map = Map::new();
        loop {
            let line = *self.lines.get(self.pos)?;
            let (key, rest) = split_key(line.text)?;
            if map.contains_key(key.as_ref()) {
                return None;
            }
            self.count_scalar(key.len());
            let value =
                if depth == 0 && n == 0 && key == "spec" && rest.trim_start_matches(' ').is_empty()
                {
                    self.spec(rest, depth + 1)?
                } else {
                    self.value(n, rest, depth + 1, true)?
                };
            map.insert(key.into_owned(), value);
            match self.lines.get(self.pos) {
                None => break,
                Some(l) if l.indent < n => break,
                Some(l) if l.indent == n => {}
                Some(_) => return None,
            }
        }
        Some(Value::Object(map))
    }

    /// The block sequence whose entries' `-` are at column `n`, starting at the next line.
    fn sequence(&mut self, n: usize, depth: usize) -> Option<Value> {
        if depth >= MAX_FAST_DEPTH {
            return None;
        }
        self.count_collection();
        let mut items = Vec::new();
        loop {
            let line = *self.lines.get(self.pos)?;
            let rest = line.text.get(1..)?;
            let body = rest.trim_start_matches(' ');
            let item = if is_entry(body) {
                // `- - a`: a sequence in a sequence on one line.
                return None;
            } else if !body.is_empty() && !body.starts_with('#') && split_key(body).is_some() {
                // `- key: value`: a mapping whose keys are at the column of `key`.
                let column = n + 1 + (rest.len() - body.len());
                if let Some(l) = self.lines.get_mut(self.pos) {
                    *l = Line {
                        indent: column,
                        text: body,
                    };
                }
                self.mapping(column, depth + 1)?
            } else {
                self.value(n, body, depth + 1, false)?
            };
            items.push(item);
            match self.lines.get(self.pos) {
                Some(l) if l.indent == n && is_entry(l.text) => {}
                Some(l) if l.indent > n => return None,
                _ => break,
            }
        }
        Some(Value::Array(items))
    }

    /// The value of the entry on the current line of a collection at column `n`, `rest` being
    /// what follows its `:` or `-`: inline, or on the next lines (more indented, or a sequence
    /// at the key's column for a mapping), or empty (a null). Moves past the entry.
    fn value(&mut self, n: usize, rest: &str, depth: usize, in_map: bool) -> Option<Value> {
        self.pos += 1;
        let rest = rest.trim_start_matches(' ');
        if rest.is_empty() || rest.starts_with('#') {
            return match self.lines.get(self.pos) {
                Some(next) if next.indent > n => self.collection(depth),
                Some(next) if in_map && next.indent == n && is_entry(next.text) => {
                    self.sequence(n, depth)
                }
                _ => {
                    self.count_scalar(0);
                    Some(Value::Null)
                }
            };
        }
        let value = self.inline(rest, depth)?;
        // A more indented line would continue the scalar over several lines.
        match self.lines.get(self.pos) {
            Some(next) if next.indent > n => None,
            _ => Some(value),
        }
    }

    /// A value on the rest of its line: quoted, `{}`, `[]` or plain.
    fn inline(&mut self, rest: &str, depth: usize) -> Option<Value> {
        Some(match self.inline_scalar(rest, depth)? {
            Inline::Quoted(text) => Value::String(text.into_owned()),
            Inline::Plain(Plain::Null) => Value::Null,
            Inline::Plain(Plain::Bool(b)) => Value::Bool(b),
            Inline::Plain(Plain::Int(n)) => Value::Number(n.into()),
            Inline::Plain(Plain::Str(s)) => Value::String(s.to_string()),
            Inline::EmptyMap => Value::Object(Map::new()),
            Inline::EmptySeq => Value::Array(Vec::new()),
        })
    }

    /// [`Scanner::inline`] before a value is made of it (what it counts counted).
    fn inline_scalar<'r>(&mut self, rest: &'r str, depth: usize) -> Option<Inline<'r>> {
        let first = *rest.as_bytes().first()?;
        let (text, after) = match first {
            b'"' => double_quoted(rest)?,
            b'\'' => single_quoted(rest)?,
            b'{' | b'[' => {
                let empty = rest.get(..2)?;
                if depth >= MAX_FAST_DEPTH || !line_ends(rest.get(2..)?) {
                    return None;
                }
                self.count_collection();
                return match empty {
                    "{}" => Some(Inline::EmptyMap),
                    "[]" => Some(Inline::EmptySeq),
                    _ => None,
                };
            }
            b'-' if rest.as_bytes().get(1).is_some_and(|&c| c != b' ') => {
                return self.plain(rest).map(Inline::Plain);
            }
            b if indicator(b) => return None,
            _ => return self.plain(rest).map(Inline::Plain),
        };
        if !line_ends(after) {
            return None;
        }
        self.count_scalar(text.len());
        Some(Inline::Quoted(text))
    }

    /// A plain scalar filling the rest of its line (up to a comment), typed as the fast read
    /// types it.
    fn plain<'r>(&mut self, rest: &'r str) -> Option<Plain<'r>> {
        let text = match rest.find(" #") {
            Some(at) => rest.get(..at)?,
            None => rest,
        }
        .trim_end_matches(' ');
        if text.contains(": ") || text.ends_with(':') {
            return None;
        }
        let value = plain_scalar(text)?;
        self.count_scalar(text.len());
        Some(value)
    }
}

/// A value on the rest of its line ([`Scanner::inline_scalar`]).
enum Inline<'r> {
    /// A quoted scalar: a string.
    Quoted(Cow<'r, str>),
    /// A plain scalar, typed.
    Plain(Plain<'r>),
    /// `{}`.
    EmptyMap,
    /// `[]`.
    EmptySeq,
}

mod pod;

pub(crate) use pod::{DirectPod, direct};

#[cfg(test)]
pub(super) mod tests;
