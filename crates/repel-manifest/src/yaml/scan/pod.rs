//! A bound pod of a remembered template decoded straight from its text. The line scanner
//! reads a document into values, and the reader's hook decodes those into the typed pod; for a
//! pod whose `spec:` block is a remembered one but for its `nodeName:` line
//! ([`template::Scanned::Known`]: the bound pods of a ReplicaSet after its first), this reads
//! the same lines with the same rules straight into the typed [`Pod`] through serde, no value
//! made: a [`serde::Deserializer`] over the scanner's lines, driven by k8s-openapi's
//! `Deserialize`.
//!
//! It gives what the value path gives or nothing: each node is presented to the decoder as
//! `serde_json`'s deserializer of the value the scanner would make presents it (the same
//! visitor call with the same data; integers as JSON numbers, strings borrowed), the spec as
//! the null the value path decodes without it ([`crate::decode`]), and anything else — a line
//! outside the scanner's subset, a repeated key, a field the type does not declare (the value
//! path lists it), a type the value path would refuse, a request it would answer otherwise —
//! declines, and the piece goes down the value path, whose answers and messages are the ones
//! given. What it counts of the budget is what the scanner counts.

use std::borrow::Cow;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::{Counts, Line, MAX_FAST_DEPTH, Plain, Scanner, is_entry, lines, split_key, template};

/// A pod read straight from its text: typed without its spec, with the remembered spec it
/// has and its own `nodeName`.
#[derive(Debug)]
pub(crate) struct DirectPod {
    /// The pod as decoded with `spec: null` (its spec `None`).
    pub(crate) pod: Box<Pod>,
    /// The remembered spec.
    pub(crate) template: Arc<template::SpecText>,
    /// The document's `nodeName`.
    pub(crate) node_name: String,
}

/// Reads one piece holding a bound pod of a remembered template straight into its typed form,
/// and what the scanner would count of it; `None` for anything else (the value path reads it).
///
/// Taken only as the value path would take it whole: apiVersion and kind given (the decoder
/// holds them to `v1` and `Pod`), a name and a namespace given as strings, no unknown field.
pub(crate) fn direct(piece: &str) -> Option<(DirectPod, Counts)> {
    // Cheap refusals first: most pieces that are not such a pod go at once.
    if !piece.contains("\nkind: Pod") {
        return None;
    }
    let (lines, mut counts) = lines(piece)?;
    // As `scan_piece` counts.
    counts.events += 5;
    counts.nodes += 1;
    counts.scalar_bytes += 1;
    counts.documents += 1;
    let first = *lines.first()?;
    if first.indent != 0 || is_entry(first.text) {
        return None;
    }
    let mut s = Scanner {
        lines,
        pos: 0,
        counts,
        piece,
    };
    let spec = s.known_spec()?;
    let mut found = Found {
        spec,
        taken: None,
        api_version: false,
        kind: false,
    };
    let root = s.enter_map(0, 0)?;
    let pod = Pod::deserialize(Node {
        s: &mut s,
        found: &mut found,
        kind: root,
    })
    .ok()?;
    if s.pos != s.lines.len() || !found.api_version || !found.kind {
        return None;
    }
    let (template, node_name) = found.taken?;
    let named = pod.metadata.name.as_deref().is_some_and(|n| !n.is_empty());
    if !named || pod.metadata.namespace.is_none() || pod.spec.is_some() {
        return None;
    }
    Some((
        DirectPod {
            pod: Box::new(pod),
            template,
            node_name,
        },
        s.counts,
    ))
}

/// The root `spec:` line, and the remembered spec its block is, when there is one.
#[derive(Debug)]
struct KnownSpec {
    /// The index of the `spec:` line.
    line: usize,
    /// The remembered spec.
    template: Arc<template::SpecText>,
    /// The index of its `nodeName:` line and of the line after the block.
    node_line: usize,
    end: usize,
}

/// What the decoding found at the root.
struct Found {
    spec: KnownSpec,
    /// The spec taken, and the document's `nodeName`.
    taken: Option<(Arc<template::SpecText>, String)>,
    /// Whether the root gave `apiVersion` and `kind`.
    api_version: bool,
    kind: bool,
}

impl<'t> Scanner<'t> {
    /// The root mapping's `spec:` line (alone on its line, at column 0) when its block is a
    /// remembered spec but for its `nodeName:` line ([`Scanner::spec`]).
    fn known_spec(&self) -> Option<KnownSpec> {
        let line = self.lines.iter().position(|l| {
            l.indent == 0
                && split_key(l.text)
                    .is_some_and(|(k, rest)| k == "spec" && rest.trim_start_matches(' ').is_empty())
        })?;
        let (before, after, node_line, end) = self.spec_block(line)?;
        let template = template::known(before, after)?;
        Some(KnownSpec {
            line,
            template,
            node_line,
            end,
        })
    }

    /// A block mapping at column `n` entered at `depth`, as [`Scanner::mapping`] enters it.
    fn enter_map(&mut self, n: usize, depth: usize) -> Option<Kind<'t>> {
        if depth >= MAX_FAST_DEPTH {
            return None;
        }
        self.count_collection();
        Some(Kind::Map { n, depth })
    }

    /// A block sequence at column `n` entered at `depth`, as [`Scanner::sequence`] enters it.
    fn enter_seq(&mut self, n: usize, depth: usize) -> Option<Kind<'t>> {
        if depth >= MAX_FAST_DEPTH {
            return None;
        }
        self.count_collection();
        Some(Kind::Seq { n, depth })
    }

    /// The block collection starting at the next line ([`Scanner::collection`]).
    fn enter_collection(&mut self, depth: usize) -> Option<Kind<'t>> {
        let line = *self.lines.get(self.pos)?;
        if is_entry(line.text) {
            self.enter_seq(line.indent, depth)
        } else {
            self.enter_map(line.indent, depth)
        }
    }

    /// The node of an entry ([`Scanner::value`], same arguments): moves past its line, and
    /// past the whole node when it is a scalar.
    fn node(&mut self, n: usize, rest: &'t str, depth: usize, in_map: bool) -> Option<Kind<'t>> {
        self.pos += 1;
        let rest = rest.trim_start_matches(' ');
        if rest.is_empty() || rest.starts_with('#') {
            return match self.lines.get(self.pos) {
                Some(next) if next.indent > n => self.enter_collection(depth),
                Some(next) if in_map && next.indent == n && is_entry(next.text) => {
                    self.enter_seq(n, depth)
                }
                _ => {
                    self.count_scalar(0);
                    Some(Kind::Null)
                }
            };
        }
        let kind = match self.inline_scalar(rest, depth)? {
            super::Inline::Quoted(Cow::Borrowed(s)) => Kind::Str(s),
            // An escape: the value path hands the decoder a borrowed string, this one could
            // not; left to it.
            super::Inline::Quoted(Cow::Owned(_)) => return None,
            super::Inline::Plain(Plain::Null) => Kind::Null,
            super::Inline::Plain(Plain::Bool(b)) => Kind::Bool(b),
            super::Inline::Plain(Plain::Int(i)) => Kind::Int(i),
            super::Inline::Plain(Plain::Str(s)) => Kind::Str(s),
            super::Inline::EmptyMap => Kind::EmptyMap,
            super::Inline::EmptySeq => Kind::EmptySeq,
        };
        match self.lines.get(self.pos) {
            Some(next) if next.indent > n => None,
            _ => Some(kind),
        }
    }
}

/// A node as the value path would hold it, its scalars borrowed from the text.
#[derive(Debug, Clone, Copy)]
enum Kind<'t> {
    Null,
    Bool(bool),
    Int(i64),
    Str(&'t str),
    EmptyMap,
    EmptySeq,
    /// A block mapping with keys at column `n`, entered at `depth`, its first line next.
    Map {
        n: usize,
        depth: usize,
    },
    /// A block sequence with entries at column `n`, entered at `depth`, its first line next.
    Seq {
        n: usize,
        depth: usize,
    },
}

/// Not read here: the value path reads the piece.
#[derive(Debug)]
pub(crate) struct Decline;

impl std::fmt::Display for Decline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("left to the value path")
    }
}

impl std::error::Error for Decline {}

impl de::Error for Decline {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Decline
    }
}

/// A node being decoded.
struct Node<'a, 't> {
    s: &'a mut Scanner<'t>,
    found: &'a mut Found,
    kind: Kind<'t>,
}

impl<'t> Node<'_, 't> {
    /// The node's mapping given to `visitor`, which must read it to its end (serde_json's
    /// `invalid_length` otherwise).
    fn visit_map<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.kind {
            Kind::EmptyMap => visitor.visit_map(Empty),
            Kind::Map { n, depth } => {
                let mut access = Entries {
                    s: self.s,
                    found: self.found,
                    n,
                    depth,
                    started: false,
                    done: false,
                    keys: Vec::new(),
                    rest: "",
                };
                let value = visitor.visit_map(&mut access)?;
                if access.done { Ok(value) } else { Err(Decline) }
            }
            _ => Err(Decline),
        }
    }

    /// The node's sequence given to `visitor`, which must read it to its end.
    fn visit_seq<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.kind {
            Kind::EmptySeq => visitor.visit_seq(Empty),
            Kind::Seq { n, depth } => {
                let mut access = Items {
                    s: self.s,
                    found: self.found,
                    n,
                    depth,
                    started: false,
                    done: false,
                };
                let value = visitor.visit_seq(&mut access)?;
                if access.done { Ok(value) } else { Err(Decline) }
            }
            _ => Err(Decline),
        }
    }

    /// An integer as serde_json's number gives it: unsigned when not negative.
    fn visit_int<V: Visitor<'t>>(i: i64, visitor: V) -> Result<V::Value, Decline> {
        match u64::try_from(i) {
            Ok(u) => visitor.visit_u64(u),
            Err(_) => visitor.visit_i64(i),
        }
    }

    /// A number request: only an integer answers it.
    fn number<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.kind {
            Kind::Int(i) => Self::visit_int(i, visitor),
            _ => Err(Decline),
        }
    }
}

/// Mirrors `impl Deserializer for &serde_json::Value` for the value the node stands for; a
/// request serde_json would refuse, or answer in a way not mirrored here, declines.
impl<'t> Deserializer<'t> for Node<'_, 't> {
    type Error = Decline;

    fn deserialize_any<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.kind {
            Kind::Null => visitor.visit_unit(),
            Kind::Bool(b) => visitor.visit_bool(b),
            Kind::Int(i) => Self::visit_int(i, visitor),
            Kind::Str(s) => visitor.visit_borrowed_str(s),
            Kind::EmptyMap | Kind::Map { .. } => self.visit_map(visitor),
            Kind::EmptySeq | Kind::Seq { .. } => self.visit_seq(visitor),
        }
    }

    fn deserialize_bool<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.kind {
            Kind::Bool(b) => visitor.visit_bool(b),
            _ => Err(Decline),
        }
    }

    fn deserialize_i8<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.number(visitor)
    }
    fn deserialize_i16<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.number(visitor)
    }
    fn deserialize_i32<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.number(visitor)
    }
    fn deserialize_i64<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.number(visitor)
    }
    fn deserialize_u8<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.number(visitor)
    }
    fn deserialize_u16<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.number(visitor)
    }
    fn deserialize_u32<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.number(visitor)
    }
    fn deserialize_u64<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.number(visitor)
    }
    fn deserialize_f32<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.number(visitor)
    }
    fn deserialize_f64<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.number(visitor)
    }

    fn deserialize_char<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.kind {
            Kind::Str(s) => visitor.visit_borrowed_str(s),
            _ => Err(Decline),
        }
    }

    fn deserialize_string<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'t>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }

    fn deserialize_byte_buf<V: Visitor<'t>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }

    fn deserialize_option<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.kind {
            Kind::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        match self.kind {
            Kind::Null => visitor.visit_unit(),
            _ => Err(Decline),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'t>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Decline> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'t>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Decline> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.visit_seq(visitor)
    }

    fn deserialize_tuple<V: Visitor<'t>>(self, _: usize, visitor: V) -> Result<V::Value, Decline> {
        self.visit_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'t>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, Decline> {
        self.visit_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.visit_map(visitor)
    }

    /// (serde_json also reads a struct from a sequence: declined here.)
    fn deserialize_struct<V: Visitor<'t>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Decline> {
        self.visit_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'t>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Decline> {
        Err(Decline)
    }

    fn deserialize_identifier<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Decline> {
        self.deserialize_str(visitor)
    }

    /// A field the type does not declare: the value path lists it.
    fn deserialize_ignored_any<V: Visitor<'t>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
}

/// A mapping's key, as serde_json's `MapKeyDeserializer` gives a borrowed key.
struct Key<'t>(&'t str);

impl<'de> Deserializer<'de> for Key<'de> {
    type Error = Decline;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Decline> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Decline> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Decline> {
        Err(Decline)
    }

    fn deserialize_i8<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any i128 u128
    }
}

/// A block mapping's entries, read as [`Scanner::mapping`] reads them.
struct Entries<'a, 't> {
    s: &'a mut Scanner<'t>,
    found: &'a mut Found,
    n: usize,
    depth: usize,
    /// Whether the first key was read, and whether the mapping ended.
    started: bool,
    done: bool,
    /// The keys read (a repeated one declines, as the scanner declines it).
    keys: Vec<&'t str>,
    /// What follows the `:` of the last key read.
    rest: &'t str,
}

impl<'t> MapAccess<'t> for Entries<'_, 't> {
    type Error = Decline;

    fn next_key_seed<K: DeserializeSeed<'t>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Decline> {
        if self.done {
            return Ok(None);
        }
        if self.started {
            match self.s.lines.get(self.s.pos) {
                None => self.done = true,
                Some(l) if l.indent < self.n => self.done = true,
                Some(l) if l.indent == self.n => {}
                Some(_) => return Err(Decline),
            }
            if self.done {
                return Ok(None);
            }
        }
        self.started = true;
        let line = *self.s.lines.get(self.s.pos).ok_or(Decline)?;
        let (key, rest) = split_key(line.text).ok_or(Decline)?;
        // A key with an escape: the value path's key is the same string, but owned.
        let Cow::Borrowed(key) = key else {
            return Err(Decline);
        };
        if self.keys.contains(&key) {
            return Err(Decline);
        }
        self.keys.push(key);
        self.s.count_scalar(key.len());
        self.rest = rest;
        seed.deserialize(Key(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'t>>(&mut self, seed: V) -> Result<V::Value, Decline> {
        let key = self.keys.last().copied().ok_or(Decline)?;
        let root = self.depth == 0 && self.n == 0;
        let kind = if root && key == "spec" && self.rest.trim_start_matches(' ').is_empty() {
            self.spec()?
        } else {
            if root {
                self.found.api_version |= key == "apiVersion";
                self.found.kind |= key == "kind";
            }
            self.s
                .node(self.n, self.rest, self.depth + 1, true)
                .ok_or(Decline)?
        };
        seed.deserialize(Node {
            s: self.s,
            found: self.found,
            kind,
        })
    }
}

impl Entries<'_, '_> {
    /// The root's `spec:` (the current line), found a remembered spec beforehand
    /// ([`Scanner::known_spec`]): counted as [`Scanner::spec`] counts it, skipped, and given to
    /// the decoder as the null the value path decodes the pod with.
    fn spec(&mut self) -> Result<Kind<'static>, Decline> {
        let known = &self.found.spec;
        if self.s.pos != known.line || self.found.taken.is_some() {
            return Err(Decline);
        }
        let (m, counts) = self
            .s
            .line_alone(known.node_line, self.depth + 1)
            .ok_or(Decline)?;
        let Some(serde_json::Value::String(name)) = m.get("nodeName") else {
            return Err(Decline);
        };
        self.s.counts.add(template::counts_of(&known.template));
        self.s.counts.add(counts);
        self.s.pos = known.end;
        self.found.taken = Some((Arc::clone(&known.template), name.clone()));
        Ok(Kind::Null)
    }
}

/// A block sequence's entries, read as [`Scanner::sequence`] reads them.
struct Items<'a, 't> {
    s: &'a mut Scanner<'t>,
    found: &'a mut Found,
    n: usize,
    depth: usize,
    started: bool,
    done: bool,
}

impl<'t> SeqAccess<'t> for Items<'_, 't> {
    type Error = Decline;

    fn next_element_seed<T: DeserializeSeed<'t>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Decline> {
        if self.done {
            return Ok(None);
        }
        if self.started {
            match self.s.lines.get(self.s.pos) {
                Some(l) if l.indent == self.n && is_entry(l.text) => {}
                Some(l) if l.indent > self.n => return Err(Decline),
                _ => self.done = true,
            }
            if self.done {
                return Ok(None);
            }
        }
        self.started = true;
        let line = *self.s.lines.get(self.s.pos).ok_or(Decline)?;
        let rest = line.text.get(1..).ok_or(Decline)?;
        let body = rest.trim_start_matches(' ');
        let kind = if is_entry(body) {
            return Err(Decline);
        } else if !body.is_empty() && !body.starts_with('#') && split_key(body).is_some() {
            let column = self.n + 1 + (rest.len() - body.len());
            if let Some(l) = self.s.lines.get_mut(self.s.pos) {
                *l = Line {
                    indent: column,
                    text: body,
                };
            }
            self.s.enter_map(column, self.depth + 1).ok_or(Decline)?
        } else {
            self.s
                .node(self.n, body, self.depth + 1, false)
                .ok_or(Decline)?
        };
        seed.deserialize(Node {
            s: self.s,
            found: self.found,
            kind,
        })
        .map(Some)
    }

    /// The entries left, as serde_json's sequence tells its length: a `Vec` is then made at
    /// its size, not grown by doubling (a pod's conditions and ownerReferences would hold
    /// room for up to three more each). Counted ahead from the lines: the entries at column
    /// `n` before the first line outside the sequence (exact for a sequence read to its end;
    /// any other is declined).
    fn size_hint(&self) -> Option<usize> {
        if self.done {
            return Some(0);
        }
        let mut count = 0;
        // From the next entry's line (the first one's, or the line after the last entry read).
        for l in self.s.lines.get(self.s.pos..)? {
            if l.indent < self.n || (l.indent == self.n && !is_entry(l.text)) {
                break;
            }
            if l.indent == self.n {
                count += 1;
            }
        }
        Some(count)
    }
}

/// `{}` or `[]`.
struct Empty;

impl<'t> MapAccess<'t> for Empty {
    type Error = Decline;

    fn next_key_seed<K: DeserializeSeed<'t>>(&mut self, _: K) -> Result<Option<K::Value>, Decline> {
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'t>>(&mut self, _: V) -> Result<V::Value, Decline> {
        Err(Decline)
    }
}

impl<'t> SeqAccess<'t> for Empty {
    type Error = Decline;

    fn next_element_seed<T: DeserializeSeed<'t>>(
        &mut self,
        _: T,
    ) -> Result<Option<T::Value>, Decline> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests;
