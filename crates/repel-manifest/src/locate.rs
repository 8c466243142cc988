//! Where a field is in a manifest's text: the line and column of the node at a path such as
//! `spec.template.spec.tolerations[1]` in a file's Nth document. The fast reader builds values
//! without positions; the few fields a command reports (`repel lint`'s findings) are found
//! afterwards by reading their file's events again (granit-parser, the reader's own parser),
//! which costs nothing when nothing is reported.

use granit_parser::{Event, Parser};

/// A position: 1-based line and column.
pub type Position = (usize, usize);

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// `spec.tolerations[1]` as steps (`items[2].spec` too).
fn steps(path: &str) -> Vec<Step> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let mut rest = part;
        if let Some(open) = rest.find('[') {
            if open > 0 {
                out.push(Step::Key(rest[..open].to_string()));
            }
            rest = &rest[open..];
            while let Some(r) = rest.strip_prefix('[') {
                let Some(close) = r.find(']') else { break };
                if let Ok(i) = r[..close].parse() {
                    out.push(Step::Index(i));
                }
                rest = &r[close + 1..];
            }
        } else {
            out.push(Step::Key(rest.to_string()));
        }
    }
    out
}

/// A collection being walked.
enum Frame {
    /// A mapping, and the key whose value comes next (`None`: a key comes next).
    Map(Option<String>),
    /// A sequence, and the index of the next item.
    Seq(usize),
}

/// The position of the node at `path` in the `doc`th document (1-based, counting documents
/// that are not empty, as the reader numbers them) of `text`, inside `items[item]` of a
/// `kind: List`; the nearest ancestor present when the path is not (the object's own first
/// line at worst); `None` when the text cannot be read as YAML.
pub fn locate(text: &str, doc: usize, item: Option<usize>, path: &str) -> Option<Position> {
    let mut want = Vec::new();
    if let Some(i) = item {
        want.push(Step::Key("items".into()));
        want.push(Step::Index(i));
    }
    want.extend(steps(path));
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut cur: Vec<Step> = Vec::new();
    let mut docno = 0usize;
    let mut best: Option<(usize, Position)> = None;
    let pos = |m: &granit_parser::Marker| (m.line(), m.col() + 1);
    while let Some(ev) = parser.next_event() {
        let Ok((event, span)) = ev else {
            return best.map(|(_, p)| p);
        };
        // The path of the node this event starts (for a key scalar: the key's own).
        let starts_node = matches!(
            event,
            Event::MappingStart(..)
                | Event::SequenceStart(..)
                | Event::Scalar(..)
                | Event::Alias(_)
        );
        if starts_node && stack.is_empty() {
            let empty = matches!(&event, Event::Scalar(t, ..) if matches!(t.as_ref(), "" | "~" | "null" | "Null" | "NULL"));
            if !empty {
                docno += 1;
            }
        }
        if docno > doc {
            break;
        }
        let in_doc = docno == doc;
        match event {
            Event::Scalar(text, ..) if matches!(stack.last(), Some(Frame::Map(None))) => {
                // A key: the path of its value, positioned at the key.
                let key = text.to_string();
                if in_doc {
                    let mut p = cur.clone();
                    p.push(Step::Key(key.clone()));
                    consider(&want, &p, pos(&span.start), &mut best);
                }
                if let Some(Frame::Map(k)) = stack.last_mut() {
                    *k = Some(key);
                }
            }
            Event::MappingStart(..)
            | Event::SequenceStart(..)
            | Event::Scalar(..)
            | Event::Alias(_) => {
                let mut p = cur.clone();
                match stack.last() {
                    Some(Frame::Seq(i)) => p.push(Step::Index(*i)),
                    Some(Frame::Map(Some(k))) => p.push(Step::Key(k.clone())),
                    _ => {}
                }
                if in_doc && matches!(stack.last(), Some(Frame::Seq(_)) | None) {
                    consider(&want, &p, pos(&span.start), &mut best);
                }
                match event {
                    Event::MappingStart(..) => {
                        cur = p;
                        stack.push(Frame::Map(None));
                    }
                    Event::SequenceStart(..) => {
                        cur = p;
                        stack.push(Frame::Seq(0));
                    }
                    _ => advance(&mut stack),
                }
            }
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
                if !stack.is_empty() || !cur.is_empty() {
                    cur.pop();
                }
                advance(&mut stack);
            }
            _ => {}
        }
        if let Some((n, p)) = best
            && n == want.len()
        {
            return Some(p);
        }
    }
    best.map(|(_, p)| p)
}

/// After a node: the mapping waits for its next key, the sequence for its next item.
fn advance(stack: &mut [Frame]) {
    match stack.last_mut() {
        Some(Frame::Map(k)) => *k = None,
        Some(Frame::Seq(i)) => *i += 1,
        None => {}
    }
}

/// Keeps `at` when `path` is a longer prefix of `want` than the best so far.
fn consider(want: &[Step], path: &[Step], at: Position, best: &mut Option<(usize, Position)>) {
    if path.len() <= want.len()
        && want[..path.len()] == *path
        && best.is_none_or(|(n, _)| path.len() > n)
    {
        *best = Some((path.len(), at));
    }
}

#[cfg(test)]
mod tests {
    use super::locate;

    const TEXT: &str = "# a comment\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\napiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      tolerations:\n      - key: a\n        operator: Exists\n      -   {key: b, operator: Exists}\n      nodeSelector:\n        x: y\n";

    #[test]
    fn finds_the_toleration_itself_in_its_document() {
        let cases = [
            (
                "the first toleration",
                2,
                "spec.template.spec.tolerations[0]",
                (13, 9),
            ),
            (
                "a flow toleration",
                2,
                "spec.template.spec.tolerations[1]",
                (15, 11),
            ),
            (
                "a key's value is found at its key",
                2,
                "spec.template.spec.nodeSelector",
                (16, 7),
            ),
            (
                "a missing field: its nearest ancestor",
                2,
                "spec.template.spec.affinity",
                (11, 5),
            ),
            ("the object itself", 2, "", (7, 1)),
            ("the first document", 1, "metadata", (5, 1)),
        ];
        for (name, doc, path, want) in cases {
            assert_eq!(locate(TEXT, doc, None, path), Some(want), "{name}");
        }
    }

    #[test]
    fn finds_a_list_item_and_json() {
        let list = "kind: List\nitems:\n- kind: Pod\n  spec:\n    tolerations:\n    - {operator: Exists}\n";
        assert_eq!(
            locate(list, 1, Some(0), "spec.tolerations[0]"),
            Some((6, 7))
        );
        let json =
            "{\"kind\": \"Pod\",\n \"spec\": {\"tolerations\": [\n   {\"operator\": \"Exists\"}]}}";
        assert_eq!(locate(json, 1, None, "spec.tolerations[0]"), Some((3, 4)));
    }
}
