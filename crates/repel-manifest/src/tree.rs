//! A JSON document read for passing through: an API server's list page, decoded without
//! hashing a key and borrowing every string that holds no escape from the bytes it was read
//! from. `serde_json::Value` (with `preserve_order`) hashes each key into an `IndexMap` and
//! copies every string: a page of 500 pods cost that 150,000 times over in `repel snapshot`.
//! A mapping keeps its keys in order; a key given twice keeps its first place and its last
//! value, as `serde_json::Value` keeps it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

/// A JSON value (see the module's docs).
#[derive(Debug, Clone, PartialEq)]
pub enum Tree<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json reads it.
    Number(Number),
    /// A string, borrowed when it held no escape.
    Str(Cow<'a, str>),
    /// An array.
    Seq(Vec<Tree<'a>>),
    /// An object's entries in order, each key once.
    Map(Vec<(Cow<'a, str>, Tree<'a>)>),
}

impl<'a> Tree<'a> {
    /// A mapping's entries.
    pub fn entries_mut(&mut self) -> Option<&mut Vec<(Cow<'a, str>, Tree<'a>)>> {
        match self {
            Tree::Map(m) => Some(m),
            _ => None,
        }
    }

    /// A mapping's value for `key`.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Tree<'a>> {
        self.entries_mut()?
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Takes `key` out of a mapping, keeping the other keys' order.
    pub fn remove(&mut self, key: &str) -> Option<Tree<'a>> {
        let m = self.entries_mut()?;
        let at = m.iter().position(|(k, _)| k == key)?;
        Some(m.remove(at).1)
    }

    /// The same value as a `serde_json::Value`.
    pub fn into_value(self) -> Value {
        match self {
            Tree::Null => Value::Null,
            Tree::Bool(b) => Value::Bool(b),
            Tree::Number(n) => Value::Number(n),
            Tree::Str(s) => Value::String(s.into_owned()),
            Tree::Seq(a) => Value::Array(a.into_iter().map(Tree::into_value).collect()),
            Tree::Map(m) => {
                let mut out = serde_json::Map::with_capacity(m.len());
                for (k, v) in m {
                    out.insert(k.into_owned(), v.into_value());
                }
                Value::Object(out)
            }
        }
    }

    /// `v` as a tree borrowing its strings.
    pub fn from_value(v: &'a Value) -> Tree<'a> {
        match v {
            Value::Null => Tree::Null,
            Value::Bool(b) => Tree::Bool(*b),
            Value::Number(n) => Tree::Number(n.clone()),
            Value::String(s) => Tree::Str(Cow::Borrowed(s)),
            Value::Array(a) => Tree::Seq(a.iter().map(Tree::from_value).collect()),
            Value::Object(m) => Tree::Map(
                m.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Tree::from_value(v)))
                    .collect(),
            ),
        }
    }
}

/// Written as the JSON it was read from (keys in their order).
impl serde::Serialize for Tree<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Tree::Null => s.serialize_unit(),
            Tree::Bool(b) => s.serialize_bool(*b),
            Tree::Number(n) => n.serialize(s),
            Tree::Str(x) => s.serialize_str(x),
            Tree::Seq(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            Tree::Map(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k.as_ref(), v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Tree<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TreeVisitor(PhantomData))
    }
}

/// A mapping key as read: borrowed when it holds no escape.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(TreeVisitor(PhantomData))
            .and_then(|t| match t {
                Tree::Str(s) => Ok(Key(s)),
                _ => Err(serde::de::Error::custom("a mapping key is not a string")),
            })
    }
}

/// Past this many keys a mapping finds repeated keys through a hash map, not a scan.
const SCANNED_KEYS: usize = 16;

struct TreeVisitor<'a>(PhantomData<Tree<'a>>);

impl<'de: 'a, 'a> Visitor<'de> for TreeVisitor<'a> {
    type Value = Tree<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Tree<'a>, E> {
        Ok(Tree::Null)
    }

    fn visit_none<E>(self) -> Result<Tree<'a>, E> {
        Ok(Tree::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Tree<'a>, E> {
        Ok(Tree::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Tree<'a>, E> {
        Ok(Tree::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Tree<'a>, E> {
        Ok(Tree::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Tree<'a>, E> {
        Ok(Number::from_f64(n).map_or(Tree::Null, Tree::Number))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Tree<'a>, E> {
        Ok(Tree::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Tree<'a>, E> {
        Ok(Tree::Str(Cow::Owned(s.to_string())))
    }

    fn visit_string<E>(self, s: String) -> Result<Tree<'a>, E> {
        Ok(Tree::Str(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree<'a>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Tree::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree<'a>, A::Error> {
        let mut entries: Vec<(Cow<'a, str>, Tree<'a>)> = Vec::new();
        let mut index: Option<HashMap<Cow<'a, str>, usize>> = None;
        while let Some(Key(k)) = map.next_key()? {
            let v: Tree<'a> = map.next_value()?;
            let seen = match &mut index {
                Some(ix) => ix.get(&k).copied(),
                None => entries.iter().position(|(e, _)| *e == k),
            };
            if let Some(at) = seen {
                entries[at].1 = v;
                continue;
            }
            if let Some(ix) = &mut index {
                ix.insert(k.clone(), entries.len());
            } else if entries.len() == SCANNED_KEYS {
                let mut ix: HashMap<Cow<'a, str>, usize> = entries
                    .iter()
                    .enumerate()
                    .map(|(i, (e, _))| (e.clone(), i))
                    .collect();
                ix.insert(k.clone(), entries.len());
                index = Some(ix);
            }
            entries.push((k, v));
        }
        Ok(Tree::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tree_writes_the_json_it_reads() {
        let cases = [
            r#"{"a":1,"b":[true,null,-2,1.5,"x\ny"],"c":{"d":"e\u00e9","":{}},"f":[]}"#,
            r#"{"k":1,"j":2,"k":3}"#,
            r#"[18446744073709551615,-9223372036854775808,1e300]"#,
            r#""just a string""#,
        ];
        for text in cases {
            let tree: Tree = serde_json::from_str(text).unwrap();
            let written = serde_json::to_string(&tree).unwrap();
            let again: Value = serde_json::from_str(&written).unwrap();
            assert_eq!(again, tree.into_value(), "{text} -> {written}");
        }
        let tree: Tree = serde_json::from_str(r#"{"z":1,"a":{"y":[2],"b":"c"}}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&tree).unwrap(),
            r#"{"z":1,"a":{"y":[2],"b":"c"}}"#
        );
    }

    #[test]
    fn a_tree_reads_what_serde_json_reads() {
        let cases = [
            r#"{"a":1,"b":[true,null,-2,1.5,"x\ny"],"c":{"d":"e\u00e9","":{}},"f":[]}"#,
            r#"{"k":1,"j":2,"k":3}"#,
            r#"[18446744073709551615,-9223372036854775808,1e300]"#,
            r#""just a string""#,
        ];
        for text in cases {
            let want: Value = serde_json::from_str(text).unwrap();
            let tree: Tree = serde_json::from_str(text).unwrap();
            let got = tree.clone().into_value();
            assert_eq!(got, want, "{text}");
            // Key order too.
            assert_eq!(
                serde_json::to_string(&got).unwrap(),
                serde_json::to_string(&want).unwrap()
            );
            assert_eq!(Tree::from_value(&want), tree.clone(), "{text}");
        }
        // Strings without escapes are borrowed.
        let text = r#"{"name":"web","note":"a\"b"}"#;
        let tree: Tree = serde_json::from_str(text).unwrap();
        let Tree::Map(m) = &tree else { panic!() };
        assert!(matches!(m[0].0, Cow::Borrowed(_)));
        assert!(matches!(m[0].1, Tree::Str(Cow::Borrowed("web"))));
        assert!(matches!(m[1].1, Tree::Str(Cow::Owned(_))));
    }

    #[test]
    fn repeated_keys_keep_their_first_place_and_last_value_in_any_size_of_mapping() {
        for n in [3, SCANNED_KEYS, SCANNED_KEYS + 1, 100] {
            let mut text = String::from("{");
            for i in 0..n {
                text.push_str(&format!("\"k{i}\":{i},"));
            }
            text.push_str("\"k0\":\"last\",\"k1\":\"last\"}");
            let want: Value = serde_json::from_str(&text).unwrap();
            let tree: Tree = serde_json::from_str(&text).unwrap();
            let got = tree.into_value();
            assert_eq!(
                serde_json::to_string(&got).unwrap(),
                serde_json::to_string(&want).unwrap(),
                "{n} keys"
            );
        }
        assert_eq!(
            serde_json::from_str::<Tree>(r#"{"a":1,"b":2,"a":3}"#).unwrap(),
            Tree::Map(vec![
                (Cow::Borrowed("a"), Tree::Number(3.into())),
                (Cow::Borrowed("b"), Tree::Number(2.into()))
            ])
        );
    }

    #[test]
    fn removing_and_getting_keep_the_order() {
        let v = json!({"a": 1, "b": {"c": 2}, "d": 3});
        let mut t = Tree::from_value(&v);
        assert_eq!(t.remove("a"), Some(Tree::Number(1.into())));
        assert_eq!(t.remove("zz"), None);
        *t.get_mut("b").unwrap().get_mut("c").unwrap() = Tree::Null;
        assert_eq!(
            serde_json::to_string(&t.into_value()).unwrap(),
            r#"{"b":{"c":null},"d":3}"#
        );
    }
}
