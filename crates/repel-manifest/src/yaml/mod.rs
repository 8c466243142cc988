//! Reading a YAML stream fast. serde-saphyr's deserializer spends most of its time on layers a
//! manifest does not need, so a stream is split at its `---` markers into pieces parsed on
//! several threads, and each piece goes down these layers until one takes it:
//!
//! 1. `scan`: a hand-written line scanner for the block style manifests are written in
//!    (mappings, sequences, one-line plain and quoted scalars, comments), building
//!    `serde_json::Value`s straight from the text; it declines anything else, and never errs.
//! 2. `build`: the event parser under serde-saphyr (granit-parser, same version and the same
//!    parser options) building the values for the plain subset manifests use, flow
//!    collections, block scalars and multi-line scalars included.
//! 3. serde-saphyr on the piece alone (tags, floats, octal or YAML 1.1 spellings, …).
//! 4. serde-saphyr on the whole stream, when a piece needs it (anchors, aliases, merge keys,
//!    directives, errors, stream-wide budgets near their limits).
//!
//! Each layer gives what the layers below it would (the tests hold each against the next), so
//! values, errors and budgets are the same as a plain serde-saphyr read.
//!
//! A key repeated in a mapping is kept with its last value, as upstream's decoders do, and its
//! path is reported (`duplicate field "metadata.name"` under strict field validation): the
//! scanner leaves such a piece to the event parser, which lists them as it builds, and
//! `scan_duplicates` lists those of a text serde-saphyr reads.
//!
//! A reader may hand each document to a [`Hook`] on the thread that read it
//! ([`parse_stream_with`]): `-f` reading decodes a clean object there and keeps only the few
//! fields it reads afterwards, so a big file's values are never all held at once.
//!
//! Splitting is textual: a `---` at the start of a line followed by a space, a tab, a line break
//! or the end cannot occur inside any node (YAML 1.2 `c-forbidden`), so each piece between two
//! such markers is a stream of its own.

pub mod emit;
mod scan;
pub(crate) mod template;

use std::sync::atomic::{AtomicBool, Ordering};

use granit_parser::{Event, Parser, ScalarStyle};
use serde_json::{Map, Number, Value};

/// serde-saphyr's default budget (1,024 documents, 250,000 nodes) refuses the manifests of a
/// large cluster (`repel generate --nodes 5000 -o -` writes one document per node); these
/// limits scale to upstream's largest cluster and keep the protection against alias bombs and
/// runaway nesting.
fn budget() -> serde_saphyr::Budget {
    let budget = serde_saphyr::budget! {
        max_documents: 10_000_000,
        max_nodes: 500_000_000,
        max_events: 1_000_000_000,
        max_total_scalar_bytes: 4 << 30,
    };
    budget.unwrap_or_default()
}

/// The options every serde-saphyr read uses: a repeated key keeps its last value, as upstream's
/// decoders keep it (the fast read and [`scan_duplicates`] list them).
fn options() -> serde_saphyr::Options {
    let mut o = serde_saphyr::options! { budget: Some(budget()) };
    o.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    o
}

/// Nesting deeper than this goes to serde-saphyr, which enforces its `max_depth` (64).
const MAX_FAST_DEPTH: usize = 48;

/// Below this size a file is parsed on one thread.
const PARALLEL_MIN_BYTES: usize = 256 << 10;

/// A document's repeated keys: its index among the stream's documents and the key's path.
pub type Duplicates = Vec<(usize, String)>;

/// Parses a multi-document YAML stream into its non-empty documents, as
/// `serde_saphyr::from_multiple_with_options` does with [`options`]: same values, same errors;
/// but a repeated key keeps its last value and is listed with its document's index.
pub fn parse_stream(text: &str) -> Result<(Vec<Value>, Duplicates), serde_saphyr::Error> {
    parse_stream_with::<()>(text, &|_| None)
        .map(|(docs, duplicates)| (docs.into_iter().map(|(v, _)| v).collect(), duplicates))
}

/// Work done on each document by the thread that read it, right after reading it
/// ([`parse_stream_with`]): its answer, and the document as it is to be kept (the hook may
/// replace it, e.g. by the few fields still read once its typed form is made, so that a big
/// stream's values are not all held at once).
pub type Hook<'a, T> = &'a (dyn Fn(&mut Value) -> Option<T> + Sync);

/// Documents, each with its hook's answer ([`Hook`]).
pub type Hooked<T> = Vec<(Value, Option<T>)>;

/// Work done on a bound pod of a remembered template read straight into its typed form
/// ([`DirectPod`]) instead of [`Hook`] on its value: the document as it is to be kept, and the
/// answer the hook would give on the value.
pub(crate) type PodHook<'a, T> = &'a (dyn Fn(DirectPod) -> (Value, T) + Sync);

pub(crate) use scan::DirectPod;

/// [`parse_stream`], with `hook` run on each document of a piece that repeats no key, on the
/// thread that read it (documents read by serde-saphyr over the whole stream get `None`).
pub fn parse_stream_with<T: Send>(
    text: &str,
    hook: Hook<'_, T>,
) -> Result<(Hooked<T>, Duplicates), serde_saphyr::Error> {
    parse_stream_hooked(text, hook, None)
}

/// [`parse_stream_with`], with a bound pod of a remembered template read straight into its
/// typed form and given to `pod` when there is one, instead of read into a value for `hook`
/// ([`scan::direct`]: the same answer).
pub(crate) fn parse_stream_hooked<T: Send>(
    text: &str,
    hook: Hook<'_, T>,
    pod: Option<PodHook<'_, T>>,
) -> Result<(Hooked<T>, Duplicates), serde_saphyr::Error> {
    match parse_pieces(text, hook, pod) {
        Some(read) => Ok(read),
        None => serde_saphyr::from_multiple_with_options::<Value>(text, options()).map(|v| {
            (
                v.into_iter().map(|v| (v, None)).collect(),
                scan_duplicates(text),
            )
        }),
    }
}

/// What a stream used, summed over pieces to keep serde-saphyr's stream-wide budget.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    events: usize,
    nodes: usize,
    documents: usize,
    scalar_bytes: usize,
    comment_bytes: usize,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.events += o.events;
        self.nodes += o.nodes;
        self.documents += o.documents;
        self.scalar_bytes += o.scalar_bytes;
        self.comment_bytes += o.comment_bytes;
    }

    /// What `self` counts beyond `o`.
    fn minus(self, o: Counts) -> Counts {
        Counts {
            events: self.events.saturating_sub(o.events),
            nodes: self.nodes.saturating_sub(o.nodes),
            documents: self.documents.saturating_sub(o.documents),
            scalar_bytes: self.scalar_bytes.saturating_sub(o.scalar_bytes),
            comment_bytes: self.comment_bytes.saturating_sub(o.comment_bytes),
        }
    }

    /// Whether the whole stream stays well inside the budget (half of each limit), so that
    /// reading it in one piece could not have breached it.
    fn well_inside(&self) -> bool {
        let b = budget();
        self.events < b.max_events / 2
            && self.nodes < b.max_nodes / 2
            && self.documents < b.max_documents / 2
            && self.scalar_bytes < b.max_total_scalar_bytes / 2
            && self.comment_bytes < b.max_total_comment_bytes / 2
    }
}

/// Whether a line of `text` starts with `%` (a directive). One search for the rare `%`, not a
/// search of a 20 MB file for each line ending.
fn has_directive(text: &str) -> bool {
    let b = text.as_bytes();
    text.match_indices('%')
        .any(|(i, _)| i == 0 || matches!(b.get(i - 1), Some(b'\n' | b'\r')))
}

/// The stream split at its document markers and parsed piece by piece on several threads;
/// `None` when it must be read in one piece by serde-saphyr (a directive, an error, an anchor,
/// an alias or a merge key anywhere, or a budget approached).
fn parse_pieces<T: Send>(
    text: &str,
    hook: Hook<'_, T>,
    pod: Option<PodHook<'_, T>>,
) -> Option<(Hooked<T>, Duplicates)> {
    if has_directive(text) {
        return None;
    }
    let pieces = split_documents(text);
    let threads = if text.len() < PARALLEL_MIN_BYTES {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, 8)
            .min(pieces.len())
    };
    let stop = AtomicBool::new(false);
    type Part<T> = Option<(Hooked<T>, Counts, Duplicates)>;
    let parts: Vec<Part<T>> = if threads <= 1 {
        vec![parse_run(&pieces, &stop, hook, pod)]
    } else {
        let runs = balance(&pieces, threads);
        std::thread::scope(|s| {
            let stop = &stop;
            let handles: Vec<_> = runs[1..]
                .iter()
                .map(|run| s.spawn(move || parse_run(run, stop, hook, pod)))
                .collect();
            let mut parts = vec![parse_run(runs[0], stop, hook, pod)];
            for h in handles {
                parts.push(h.join().unwrap_or(None));
            }
            parts
        })
    };
    // One allocation for every document (growing by doubling copied the first thread's
    // documents again as each later thread's were appended).
    let total = parts.iter().flatten().map(|(v, _, _)| v.len()).sum();
    let mut values = Vec::with_capacity(total);
    let mut counts = Counts::default();
    let mut duplicates = Vec::new();
    for part in parts {
        let (v, c, d) = part?;
        let base = values.len();
        duplicates.extend(d.into_iter().map(|(i, p)| (base + i, p)));
        values.extend(v);
        counts.add(c);
    }
    counts.well_inside().then_some((values, duplicates))
}

/// Consecutive runs of pieces of about equal size, one per thread.
fn balance<'a, 't>(pieces: &'a [&'t str], threads: usize) -> Vec<&'a [&'t str]> {
    let total: usize = pieces.iter().map(|p| p.len()).sum();
    let mut runs = Vec::with_capacity(threads);
    let mut start = 0;
    let mut acc = 0;
    for (i, p) in pieces.iter().enumerate() {
        acc += p.len();
        if runs.len() + 1 < threads && acc * threads >= total * (runs.len() + 1) {
            runs.push(&pieces[start..=i]);
            start = i + 1;
        }
    }
    runs.push(&pieces[start..]);
    runs
}

/// Parses consecutive pieces, running `hook` on the documents of those that repeat no key;
/// `None` if one of them needs the whole stream.
fn parse_run<T: Send>(
    pieces: &[&str],
    stop: &AtomicBool,
    hook: Hook<'_, T>,
    pod: Option<PodHook<'_, T>>,
) -> Option<(Hooked<T>, Counts, Duplicates)> {
    let mut values = Vec::new();
    let mut counts = Counts::default();
    let mut duplicates = Vec::new();
    for piece in pieces {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        if let Some(pod) = pod
            && let Some((direct, c)) = scan::direct(piece)
        {
            let (v, t) = pod(direct);
            values.push((v, Some(t)));
            counts.add(c);
            continue;
        }
        let done = match scan::scan(piece) {
            Some((v, c)) => Some((v, c, Duplicates::new())),
            None => match build(piece) {
                Built::Done(v, c, d) => Some((v, c, d)),
                Built::Unusual => {
                    parse_piece_saphyr(piece).map(|(v, c)| (v, c, scan_duplicates(piece)))
                }
                Built::Error => None,
            },
        };
        let Some((v, c, d)) = done else {
            stop.store(true, Ordering::Relaxed);
            return None;
        };
        let base = values.len();
        // A spec read as a stub ([`template`]) and not taken by the hook is put back whole.
        if d.is_empty() {
            values.extend(v.into_iter().map(|mut v| {
                let t = hook(&mut v);
                template::settle(&mut v);
                (v, t)
            }));
        } else {
            values.extend(v.into_iter().map(|mut v| {
                template::settle(&mut v);
                (v, None)
            }));
        }
        duplicates.extend(d.into_iter().map(|(i, p)| (base + i, p)));
        counts.add(c);
    }
    Some((values, counts, duplicates))
}

/// A piece outside the fast subset, read by serde-saphyr; `None` if it errs or uses what is
/// budgeted over the whole stream (anchors, aliases, merge keys).
fn parse_piece_saphyr(piece: &str) -> Option<(Vec<Value>, Counts)> {
    let report = std::rc::Rc::new(std::cell::Cell::new(None));
    let sink = report.clone();
    let opts = options().with_budget_report(move |r: serde_saphyr::budget::BudgetReport| {
        sink.set(Some(r));
    });
    let values = serde_saphyr::from_multiple_with_options::<Value>(piece, opts).ok()?;
    let r = report.take()?;
    if r.breached.is_some() || r.anchors > 0 || r.aliases > 0 || r.merge_keys > 0 {
        return None;
    }
    let counts = Counts {
        events: r.events,
        nodes: r.nodes,
        documents: r.documents,
        scalar_bytes: r.total_scalar_bytes,
        comment_bytes: r.total_comment_bytes,
    };
    Some((values, counts))
}

/// The text split before each document start marker (`---` at the start of a line, followed
/// by a space, a tab, a line break or the end of the text).
pub fn split_documents(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    // A marker starts a line: the lines that begin with `---` are found by searching for
    // `\n---` (a substring search, not a look at every line of a 20 MB file).
    for (i, _) in text.match_indices("\n---") {
        let line = i + 1;
        if line > start && matches!(b.get(line + 3), None | Some(b' ' | b'\t' | b'\n' | b'\r')) {
            pieces.push(&text[start..line]);
            start = line;
        }
    }
    pieces.push(&text[start..]);
    pieces
}

/// The outcome of the fast read of one piece.
enum Built {
    /// The piece's non-empty documents, and their repeated keys.
    Done(Vec<Value>, Counts, Duplicates),
    /// Something outside the fast subset: read it with serde-saphyr.
    Unusual,
    /// A syntax error: read the whole stream with serde-saphyr for its message.
    Error,
}

/// A collection being built.
enum Frame {
    Map(Map<String, Value>, Option<String>),
    Seq(Vec<Value>),
}

/// The parser options serde-saphyr derives from [`budget`] (`Budget::parser_options`).
fn parser_options() -> granit_parser::Options {
    let b = budget();
    let mut o = granit_parser::Options::default();
    o.simple_key_max_lookahead = b.simple_key_max_lookahead;
    o.flow_nesting_limit = b.flow_nesting_limit;
    o.block_nesting_limit = o.block_nesting_limit.max(b.max_depth.saturating_add(1));
    o.emit_comments = true;
    o.max_buffered_comment_events = b.max_buffered_comment_events;
    o
}

/// Reads one piece into values when it stays inside the fast subset.
fn build(piece: &str) -> Built {
    let mut parser = Parser::new_from_str_with_options(piece, parser_options());
    let mut counts = Counts::default();
    let mut docs = Vec::new();
    let mut duplicates = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    loop {
        let event = match parser.next_event() {
            None => break,
            Some(Err(_)) => return Built::Error,
            Some(Ok((event, _))) => event,
        };
        counts.events += 1;
        let value = match event {
            Event::StreamStart | Event::DocumentEnd => continue,
            Event::StreamEnd => break,
            Event::DocumentStart(_, version) => {
                if version.is_some() {
                    return Built::Unusual;
                }
                counts.documents += 1;
                continue;
            }
            Event::Comment(text, _) => {
                counts.comment_bytes += text.len();
                continue;
            }
            Event::MappingStart(_, anchor, tag) | Event::SequenceStart(_, anchor, tag)
                if anchor != 0 || tag.is_some() =>
            {
                return Built::Unusual;
            }
            Event::MappingStart(..) | Event::SequenceStart(..)
                if stack.len() >= MAX_FAST_DEPTH
                    || matches!(stack.last(), Some(Frame::Map(_, None))) =>
            {
                // Too deep for the fast path, or a collection as a mapping key.
                return Built::Unusual;
            }
            Event::MappingStart(..) => {
                counts.nodes += 1;
                stack.push(Frame::Map(Map::new(), None));
                continue;
            }
            Event::SequenceStart(..) => {
                counts.nodes += 1;
                stack.push(Frame::Seq(Vec::new()));
                continue;
            }
            Event::MappingEnd | Event::SequenceEnd => match stack.pop() {
                Some(Frame::Map(m, None)) => Value::Object(m),
                Some(Frame::Seq(s)) => Value::Array(s),
                _ => return Built::Error,
            },
            Event::Scalar(text, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return Built::Unusual;
                }
                counts.nodes += 1;
                counts.scalar_bytes += text.len();
                if let Some(Frame::Map(m, None)) = stack.last() {
                    let plain = style == ScalarStyle::Plain;
                    if (plain && !plain_string(&text)) || text == "<<" {
                        return Built::Unusual;
                    }
                    if m.contains_key(text.as_ref()) {
                        duplicates.push((docs.len(), key_path(&stack, &text)));
                    }
                    if let Some(Frame::Map(_, key)) = stack.last_mut() {
                        *key = Some(text.into_owned());
                    }
                    continue;
                }
                if style != ScalarStyle::Plain {
                    Value::String(text.into_owned())
                } else if let Some(v) = resolve_plain(&text) {
                    v
                } else {
                    return Built::Unusual;
                }
            }
            // Anchors, aliases and anything newer go to serde-saphyr.
            _ => return Built::Unusual,
        };
        match stack.last_mut() {
            Some(Frame::Map(m, key)) => match key.take() {
                Some(k) => {
                    m.insert(k, value);
                }
                None => return Built::Error,
            },
            Some(Frame::Seq(s)) => s.push(value),
            // A document's root: empty and null documents are skipped, as serde-saphyr does.
            None if value.is_null() => {}
            None => docs.push(value),
        }
    }
    if !stack.is_empty() {
        return Built::Error;
    }
    Built::Done(docs, counts, duplicates)
}

/// The repeated keys of a text serde-saphyr reads (the fast read lists its own as it builds):
/// a walk of its events, keys compared as written, documents counted as serde-saphyr keeps
/// them (empty and null ones skipped).
fn scan_duplicates(text: &str) -> Duplicates {
    /// A collection being walked: a mapping's keys and the key whose value comes next, or a
    /// sequence's next index.
    enum Walk {
        Map(std::collections::HashSet<String>, Option<String>),
        Seq(usize),
    }
    /// A node ended: the mapping's key or the sequence's index moves on.
    fn done(stack: &mut [Walk]) {
        match stack.last_mut() {
            Some(Walk::Map(_, key)) => *key = None,
            Some(Walk::Seq(i)) => *i += 1,
            None => {}
        }
    }
    fn path(stack: &[Walk], key: &str) -> String {
        join_path(
            stack.iter().map(|w| match w {
                Walk::Map(_, k) => Segment::Key(k.as_deref()),
                Walk::Seq(i) => Segment::Index(*i),
            }),
            key,
        )
    }
    let mut parser = Parser::new_from_str_with_options(text, parser_options());
    let mut stack: Vec<Walk> = Vec::new();
    let mut found = Vec::new();
    let (mut doc, mut kept) = (0usize, false);
    while let Some(Ok((event, _))) = parser.next_event() {
        match event {
            Event::DocumentEnd => {
                doc += usize::from(kept);
                kept = false;
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                kept |= stack.is_empty();
                stack.push(if matches!(event, Event::MappingStart(..)) {
                    Walk::Map(Default::default(), None)
                } else {
                    Walk::Seq(0)
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
                done(&mut stack);
            }
            Event::Scalar(text, style, ..) => {
                if let Some(Walk::Map(keys, key @ None)) = stack.last_mut() {
                    let repeated = !keys.insert(text.to_string());
                    *key = Some(text.to_string());
                    if repeated {
                        found.push((doc, path(&stack, &text)));
                    }
                    continue;
                }
                if stack.is_empty() {
                    kept |= style != ScalarStyle::Plain
                        || !matches!(text.as_ref(), "" | "~" | "null" | "Null" | "NULL");
                }
                done(&mut stack);
            }
            Event::Alias(_) => {
                kept |= stack.is_empty();
                done(&mut stack);
            }
            Event::StreamEnd => break,
            _ => {}
        }
    }
    found
}

/// The path of `key` in the innermost mapping of `stack`.
fn key_path(stack: &[Frame], key: &str) -> String {
    join_path(
        stack.iter().map(|f| match f {
            Frame::Map(_, k) => Segment::Key(k.as_deref()),
            Frame::Seq(items) => Segment::Index(items.len()),
        }),
        key,
    )
}

/// Where a collection being read stands: the key whose value comes next, or the next index.
enum Segment<'a> {
    Key(Option<&'a str>),
    Index(usize),
}

/// `spec.containers[0].name`: the enclosing collections' places (the innermost, the mapping
/// holding `key`, left out), then `key`.
fn join_path<'a>(stack: impl ExactSizeIterator<Item = Segment<'a>>, key: &str) -> String {
    let mut path = String::new();
    let outer = stack.len().saturating_sub(1);
    for segment in stack.take(outer) {
        match segment {
            Segment::Key(Some(k)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
            }
            Segment::Key(None) => {}
            Segment::Index(i) => path.push_str(&format!("[{i}]")),
        }
    }
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
    path
}

/// Whether serde-saphyr reads this plain scalar as the string it spells: it starts with a
/// letter and is none of the words YAML reads as a boolean, a null or a float (serde-saphyr
/// takes YAML 1.1's booleans, and Rust's float syntax takes `inf`, `infinity` and `nan`), or it
/// holds a character that no boolean, null, integer (any radix) or float can hold, as the unit
/// of a quantity (`100m`, `128Mi`) does.
fn plain_string(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "y", "yes", "n", "no", "true", "false", "on", "off", "null", "inf", "infinity", "nan",
    ];
    /// Every character of the spellings serde-saphyr reads as something else than a string.
    fn numeric_or_word(c: u8) -> bool {
        c.is_ascii_digit()
            || matches!(
                c.to_ascii_lowercase(),
                b'a'..=b'f' | b'i' | b'l' | b'n' | b'o' | b'r' | b's' | b't' | b'u' | b'x' | b'y'
            )
            || matches!(c, b'+' | b'-' | b'.' | b'_' | b'~')
    }
    (s.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && !WORDS.iter().any(|w| w.eq_ignore_ascii_case(s)))
        || !s.bytes().all(numeric_or_word)
        || digit_led_word(s)
}

/// A scalar that starts with a digit, is no `0x`/`0o`/`0b` radix number, and holds a letter
/// other than an exponent's `e`: no integer or float is spelled so, whatever the radix (a
/// ReplicaSet's `pod-template-hash`, `6fcb5dd885`, or an image digest's hex).
fn digit_led_word(s: &str) -> bool {
    let b = s.as_bytes();
    b.first().is_some_and(u8::is_ascii_digit)
        && !b
            .get(1)
            .is_some_and(|c| matches!(c.to_ascii_lowercase(), b'x' | b'o' | b'b'))
        && b.iter()
            .any(|c| c.is_ascii_alphabetic() && !c.eq_ignore_ascii_case(&b'e'))
}

/// The value serde-saphyr gives a plain scalar in the fast subset: a string as
/// [`plain_string`] says, `true`, `false`, a null (`~`, `null`, empty) or a decimal integer
/// without a leading zero; `None` for anything else.
fn resolve_plain(s: &str) -> Option<Value> {
    Some(match plain_scalar(s)? {
        Plain::Null => Value::Null,
        Plain::Bool(b) => Value::Bool(b),
        Plain::Int(n) => Value::Number(Number::from(n)),
        Plain::Str(s) => Value::String(s.to_string()),
    })
}

/// A plain scalar of the fast subset as typed ([`resolve_plain`]), its text borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Plain<'t> {
    /// `~`, `null` or empty.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A decimal integer (a JSON number: non-negative ones are unsigned).
    Int(i64),
    /// A string.
    Str(&'t str),
}

/// What [`resolve_plain`] makes of `s`, without making it: the one typing of plain scalars
/// that the fast read's values and the scanner's typed decoding share.
pub(crate) fn plain_scalar(s: &str) -> Option<Plain<'_>> {
    match s {
        "" | "~" | "null" => return Some(Plain::Null),
        "true" => return Some(Plain::Bool(true)),
        "false" => return Some(Plain::Bool(false)),
        "0" => return Some(Plain::Int(0)),
        _ => {}
    }
    if plain_string(s) {
        return Some(Plain::Str(s));
    }
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    if digits.is_empty()
        || digits.len() > 18
        || digits.starts_with('0')
        || !digits.bytes().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let n: i64 = digits.parse().ok()?;
    Some(Plain::Int(if neg { -n } else { n }))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod path_tests;
