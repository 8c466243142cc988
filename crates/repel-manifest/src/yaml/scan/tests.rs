//! The scanner against the layers below it: for every piece it reads, the same values (and
//! their key order) as the event parser or serde-saphyr give, no repeated key missed, and a
//! budget count at least theirs. Inputs: a table, random manifest-like text (seeded, with
//! garbage mixed in), and every manifest the repository and the shared corpus hold.

use super::super::{
    Built, Counts, Duplicates, build, options, parse_piece_saphyr, scan_duplicates,
};
use super::super::{parse_stream, split_documents};
use super::scan;
use serde_json::Value;

/// What the layers below the scanner give a piece: its values, budget and repeated keys, or
/// `None` when the whole stream must be read again (an error, an anchor, …).
fn below(piece: &str) -> Option<(Vec<Value>, Counts, Duplicates)> {
    match build(piece) {
        Built::Done(v, c, d) => Some((v, c, d)),
        Built::Unusual => parse_piece_saphyr(piece).map(|(v, c)| (v, c, scan_duplicates(piece))),
        Built::Error => None,
    }
}

/// Checks the scanner on one piece against the layers below; whether it read the piece.
fn agrees(name: &str, piece: &str) -> bool {
    let Some((values, counts)) = scan(piece) else {
        return false;
    };
    let Some((want, want_counts, duplicates)) = below(piece) else {
        panic!("case: {name}: the scanner read a piece the layers below refuse: {piece:?}");
    };
    // Compared as JSON text too: a mapping's key order counts.
    let text = |v: &[Value]| serde_json::to_string(v).unwrap_or_default();
    assert_eq!(values, want, "case: {name}: {piece:?}");
    assert_eq!(text(&values), text(&want), "case: {name}: {piece:?}");
    assert!(duplicates.is_empty(), "case: {name}: {piece:?}");
    let (c, w) = (counts, want_counts);
    assert!(
        c.events >= w.events
            && c.nodes >= w.nodes
            && c.documents >= w.documents
            && c.scalar_bytes >= w.scalar_bytes
            && c.comment_bytes >= w.comment_bytes,
        "case: {name}: counts {c:?} under {w:?}: {piece:?}"
    );
    true
}

/// Checks every piece of a text; how many the scanner read.
fn agrees_on_pieces(name: &str, text: &str) -> usize {
    split_documents(text)
        .into_iter()
        .filter(|piece| agrees(name, piece))
        .count()
}

#[test]
fn the_scanner_reads_the_block_subset_and_declines_the_rest() {
    let deep = |n: usize| {
        (0..n)
            .map(|i| format!("{}k{i}:\n", "  ".repeat(i)))
            .collect::<String>()
            + &"  ".repeat(n)
            + "x: 1\n"
    };
    let cases: &[(&str, &str, bool)] = &[
        (
            "a plain manifest",
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels:\n    app: web\nspec:\n  containers:\n  - name: c\n    image: nginx:1.25\n    resources:\n      requests:\n        cpu: 100m\n        memory: 128Mi\n  tolerations:\n  - key: k\n    operator: Exists\n    effect: NoSchedule\n",
            true,
        ),
        (
            "indented sequences, empty collections, nulls and comments",
            "# head\n--- # marker\nspec: {}\nlist: []\nempty:\nnested:\n    - a # tail\n    -\n    - b: 1\n      c: 'q'\n# between\nlast: ~\n",
            true,
        ),
        (
            "quoted keys and values with escapes",
            "\"a b\": 'it''s'\n'c': \"tab\\there \\u00e9 \\x41 \\\\ \\\" \\/ \\N \\_ \\L \\P \\U0001F600\"\nd: \"\"\ne: ''\n",
            true,
        ),
        (
            "the words and numbers the fast read types",
            "a: true\nb: false\nc: null\nd: ~\ne: -5\nf: 0\ng: 123456789012345678\nh: 100m\n",
            true,
        ),
        ("a YAML 1.1 boolean declines", "a: yes\n", false),
        ("an octal-looking number declines", "a: 017\n", false),
        (
            "a number beyond the fast read declines",
            "a: 12345678901234567890\n",
            false,
        ),
        ("a float declines", "a: 1.5\n", false),
        ("a hexadecimal number declines", "a: 0x1F\n", false),
        ("a plain key that is not a string declines", "1: a\n", false),
        ("a merge key declines", "<<: {}\n", false),
        ("a quoted merge key declines", "'<<': 1\n", false),
        ("a repeated key declines", "a: 1\nb: 2\na: 3\n", false),
        ("a block scalar declines", "a: |\n  text\n", false),
        ("a folded scalar declines", "a: >-\n  text\n", false),
        (
            "a plain scalar over two lines declines",
            "a: b\n  c\n",
            false,
        ),
        (
            "a quoted scalar over two lines declines",
            "a: \"b\n  c\"\n",
            false,
        ),
        ("a flow mapping with content declines", "a: {b: 1}\n", false),
        (
            "a flow sequence with content declines",
            "a: [1, 2]\n",
            false,
        ),
        ("an anchor declines", "a: &x 1\n", false),
        ("an alias declines", "a: *x\n", false),
        ("a tag declines", "a: !!str 1\n", false),
        ("a complex key declines", "? a\n: b\n", false),
        ("a tab declines", "a:\n\tb: 1\n", false),
        ("a tab after a value declines", "a: b\t\n", false),
        ("a byte-order mark declines", "\u{feff}a: 1\n", false),
        ("a control character declines", "a: b\u{7}\n", false),
        ("a lone carriage return declines", "a: 1\rb: 2\n", false),
        ("a document end marker declines", "a: 1\n...\n", false),
        ("a marker with content declines", "--- a\n", false),
        ("a top-level scalar declines", "text\n", false),
        (
            "a sequence in a sequence on one line declines",
            "- - a\n",
            false,
        ),
        (
            "a value that looks like a mapping declines",
            "a: b: c\n",
            false,
        ),
        (
            "a scalar after a sequence's last entry declines",
            "a:\n- b\n  c\n",
            false,
        ),
        (
            "a deeper line after a value declines",
            "a: 1\n  b: 2\n",
            false,
        ),
        ("an unknown escape declines", "a: \"\\q\"\n", false),
        (
            "a surrogate escape declines",
            "a: \"\\ud83d\\ude00\"\n",
            false,
        ),
        ("CRLF line ends", "---\r\na: 1\r\nb:\r\n- x\r\n", true),
        ("unicode text", "a: é日本😀\n\"ü\": x y\n", true),
        ("nesting the fast read takes", &deep(46), true),
        ("nesting the fast read declines", &deep(48), false),
        (
            "a long run of comments declines",
            &format!("a:\n{}  b: 1\n", "# c\n".repeat(20)),
            false,
        ),
        ("only a marker and comments", "---\n# c\n\n", true),
    ];
    for (name, text, read) in cases {
        let pieces = split_documents(text);
        let got = agrees_on_pieces(name, text);
        assert_eq!(
            got == pieces.len(),
            *read,
            "case: {name}: {got} of {} read",
            pieces.len()
        );
    }
}

/// A seeded xorshift generator: the same cases on every run (the writer's tests use it too).
pub(in crate::yaml) struct Rng(pub(in crate::yaml) u64);

impl Rng {
    pub(in crate::yaml) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(in crate::yaml) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Scalars the scanner may read, some of them tricky.
const SCALARS: &[&str] = &[
    "a",
    "web",
    "nginx:1.25",
    "100m",
    "128Mi",
    "true",
    "false",
    "null",
    "~",
    "0",
    "-5",
    "42",
    "a#x",
    "x:y",
    "http://h:80/p?q=1#f",
    "-a",
    "--",
    "a,b",
    "a[1]",
    "a]",
    "a}",
    "[]",
    "{}",
    "'q'",
    "'it''s'",
    "''",
    "\"d\"",
    "\"\"",
    "\"esc\\t\\u00e9\\x41\\\\\\\"\"",
    "\"\\N\\_\\L\\P\\0\\e\\/\"",
    "\"\\U0001F600\"",
    "'a # b'",
    "\"a: b\"",
    "é",
    "日本",
    "😀 ok",
    "a b",
    "a  b",
    "\u{a0}x",
    "a'b",
    "a\"b",
    "a\\b",
    "x!",
    "x&",
    "x*",
    "x|",
    "x>",
    "a?",
    "Yes-ish",
    "0a",
    "1a",
    "-1a",
    ".a",
    "_a",
    "+a",
    "a.b.c",
];

/// Scalars (and things in a scalar's place) that YAML reads in surprising ways.
const ODD_SCALARS: &[&str] = &[
    "yes",
    "no",
    "on",
    "off",
    "y",
    "N",
    "False",
    "Null",
    "0x1F",
    "0o17",
    "017",
    "-0",
    "+1",
    "1_000",
    "1e3",
    ".5",
    "3.0",
    ".inf",
    "-.nan",
    "nan",
    "Infinity",
    "12345678901234567890",
    "-",
    ":",
    "a: b",
    "#x",
    "a #x",
    "a:",
    "?",
    "? a",
    ",a",
    "[a]",
    "{a: 1}",
    "{ }",
    "[ ]",
    "{}x",
    "*x",
    "&x y",
    "!t x",
    "|",
    ">-",
    "%x",
    "@x",
    "`x",
    "<<",
    "'a' b",
    "'a'#c",
    "\"\\ud83d\\ude00\"",
    "\"\\q\"",
    "\"\\x4\"",
    "'open",
    "\"open",
    "a\tb",
    "\u{feff}x",
    "\u{85}",
    "\u{2028}",
    "x\u{7f}",
    "x\u{1}",
];

/// Keys the scanner may read.
const KEYS: &[&str] = &[
    "a",
    "b",
    "c",
    "name",
    "kind",
    "app.kubernetes.io/name",
    "key with space",
    "'q'",
    "\"d\"",
    "\"a b\"",
    "'a''b'",
    "\"k\\n\"",
    "a:b",
    "é",
    "k#x",
    "''",
    "\"\"",
    "x-y",
    "k ",
    "\"k\" ",
];

/// Keys that are not what they seem.
const ODD_KEYS: &[&str] = &[
    "yes", "no", "on", "null", "~", "1", "0x1F", "true", "<<", "'<<'", "-k", "? k", "k #x", "[k]",
    "{k}", "*k", "&k", "!k", "|", "'x': y", "a: b",
];

/// A node of a generated document.
enum Node {
    Scalar(&'static str),
    Map(Vec<(&'static str, Node)>),
    Seq(Vec<Node>),
}

fn tree(rng: &mut Rng, depth: usize) -> Node {
    let leaf = depth >= 4 || rng.chance(45);
    if leaf {
        return Node::Scalar(if rng.chance(10) {
            ""
        } else if rng.chance(3) {
            rng.pick(ODD_SCALARS)
        } else {
            rng.pick(SCALARS)
        });
    }
    let len = rng.below(4) + usize::from(!rng.chance(10));
    if rng.chance(60) {
        let mut entries: Vec<(&str, Node)> = Vec::new();
        for _ in 0..len {
            let key = if rng.chance(2) {
                rng.pick(ODD_KEYS)
            } else {
                rng.pick(KEYS)
            };
            // Mostly distinct keys: a repeated one declines the whole piece.
            if rng.chance(95) && entries.iter().any(|(k, _)| k.trim() == key.trim()) {
                continue;
            }
            entries.push((key, tree(rng, depth + 1)));
        }
        Node::Map(entries)
    } else {
        Node::Seq((0..len).map(|_| tree(rng, depth + 1)).collect())
    }
}

/// Writes generated documents as a person or a tool might: varied indentation, compact and
/// indentless sequences, comments, blank lines, trailing spaces, CRLF.
struct Writer<'r> {
    rng: &'r mut Rng,
    out: String,
    eol: &'static str,
}

impl Writer<'_> {
    fn end_line(&mut self) {
        if self.rng.chance(5) {
            self.out.push_str("  ");
        }
        if self.rng.chance(8) {
            self.out.push_str(" # note: x");
        }
        self.out
            .push_str(if self.rng.chance(3) { "\r\n" } else { self.eol });
        if self.rng.chance(4) {
            let n = if self.rng.chance(10) { 20 } else { 1 };
            for _ in 0..n {
                let indent = " ".repeat(self.rng.below(6));
                self.out.push_str(&format!("{indent}# comment{}", self.eol));
            }
        }
        if self.rng.chance(4) {
            self.out.push_str(self.eol);
        }
    }

    fn step(&mut self) -> usize {
        if self.rng.chance(90) {
            2
        } else {
            1 + self.rng.below(4)
        }
    }

    /// After `key:` or `-`: the node's value, inline or on the next lines.
    fn after(&mut self, node: &Node, indent: usize, in_map: bool) {
        match node {
            Node::Scalar(s) => {
                if !s.is_empty() {
                    self.out.push(' ');
                    self.out.push_str(s);
                }
                self.end_line();
            }
            Node::Map(m) if m.is_empty() => {
                self.out.push_str(" {}");
                self.end_line();
            }
            Node::Seq(s) if s.is_empty() => {
                self.out.push_str(" []");
                self.end_line();
            }
            Node::Map(m) if !in_map && self.rng.chance(70) => {
                let gap = 1 + usize::from(self.rng.chance(10));
                self.out.push_str(&" ".repeat(gap));
                self.map(m, indent + 1 + gap, true);
            }
            Node::Seq(s) if !in_map && self.rng.chance(2) => {
                self.out.push(' ');
                self.seq(s, indent + 2, true);
            }
            Node::Seq(s) if in_map && self.rng.chance(50) => {
                self.end_line();
                self.seq(s, indent, false);
            }
            Node::Map(m) => {
                self.end_line();
                let step = self.step();
                self.map(m, indent + step, false);
            }
            Node::Seq(s) => {
                self.end_line();
                let step = self.step();
                self.seq(s, indent + step, false);
            }
        }
    }

    fn map(&mut self, entries: &[(&str, Node)], indent: usize, inline_first: bool) {
        for (i, (key, value)) in entries.iter().enumerate() {
            if i > 0 || !inline_first {
                self.out.push_str(&" ".repeat(indent));
            }
            self.out.push_str(key);
            self.out.push(':');
            self.after(value, indent, true);
        }
    }

    fn seq(&mut self, items: &[Node], indent: usize, inline_first: bool) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 || !inline_first {
                self.out.push_str(&" ".repeat(indent));
            }
            self.out.push('-');
            self.after(item, indent, false);
        }
    }
}

/// A stream of one to three generated documents.
fn stream(rng: &mut Rng) -> String {
    let eol = if rng.chance(15) { "\r\n" } else { "\n" };
    let mut w = Writer {
        rng,
        out: String::new(),
        eol,
    };
    let docs = 1 + w.rng.below(3);
    for d in 0..docs {
        if d > 0 || w.rng.chance(50) {
            let marker = w
                .rng
                .pick(&["---", "---", "---", "--- # doc", "---  ", "--- x"]);
            w.out.push_str(marker);
            w.out.push_str(eol);
        }
        let root = if w.rng.chance(5) {
            Node::Scalar(w.rng.pick(SCALARS))
        } else {
            let mut t = tree(w.rng, 0);
            while matches!(t, Node::Scalar(_)) {
                t = tree(w.rng, 0);
            }
            t
        };
        let indent = if w.rng.chance(5) { 2 } else { 0 };
        match &root {
            Node::Map(m) => w.map(m, indent, false),
            Node::Seq(s) => w.seq(s, indent, false),
            Node::Scalar(s) => {
                w.out.push_str(s);
                w.out.push_str(eol);
            }
        }
    }
    w.out
}

/// Damages a text: characters inserted, removed or replaced, some of them YAML's indicators.
pub(in crate::yaml) fn mutate(rng: &mut Rng, text: &str) -> String {
    const BITS: &[&str] = &[
        ":", " ", "-", "- ", "#", "\"", "'", "\n", "\r", "\t", "{", "}", "[", "]", "|", ">", "&a ",
        "*a", "!", "?", "%", "...", "---", "\\", "é", "\u{feff}", "\0", "  ", "\n  ", ": ",
    ];
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let mut at = rng.below(s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        match rng.below(3) {
            0 => s.insert_str(at, rng.pick(BITS)),
            1 => {
                let mut end = (at + 1 + rng.below(3)).min(s.len());
                while !s.is_char_boundary(end) {
                    end += 1;
                }
                s.replace_range(at..end, "");
            }
            _ => {
                let mut end = (at + 1).min(s.len());
                while !s.is_char_boundary(end) {
                    end += 1;
                }
                s.replace_range(at..end, rng.pick(BITS));
            }
        }
    }
    s
}

#[test]
fn the_scanner_agrees_with_the_layers_below_on_random_manifests() {
    let mut rng = Rng(0x5eed_1e55_c0ff_ee01);
    let (mut pieces, mut read) = (0, 0);
    for case in 0..6000 {
        let text = stream(&mut rng);
        let name = format!("random {case}");
        pieces += split_documents(&text).len();
        read += agrees_on_pieces(&name, &text);
        let damaged = mutate(&mut rng, &text);
        agrees_on_pieces(&format!("damaged {case}"), &damaged);
    }
    // The generator must reach the subset often for the comparison to mean something.
    eprintln!("note: the scanner read {read} of {pieces} generated pieces");
    assert!(read * 4 > pieces, "only {read} of {pieces} pieces read");
}

#[test]
fn the_scanner_never_panics_on_garbage() {
    let mut rng = Rng(0xdead_beef_0bad_f00d);
    const BYTES: &[u8] = b" :-#'\"\n\r\t{}[]|>&*!?%.,~0123456789abcnxyz\\";
    for case in 0..20_000 {
        let len = rng.below(40);
        let bytes: Vec<u8> = (0..len).map(|_| BYTES[rng.below(BYTES.len())]).collect();
        let text = String::from_utf8_lossy(&bytes);
        agrees_on_pieces(&format!("garbage {case}"), &text);
    }
}

/// The reference: one serde-saphyr read of the whole stream.
fn reference(text: &str) -> Result<Vec<Value>, String> {
    serde_saphyr::from_multiple_with_options::<Value>(text, options()).map_err(|e| e.to_string())
}

/// Every file under `dir` (recursively) whose name ends in one of `exts` (any when empty).
fn files(dir: &std::path::Path, exts: &[&str], out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        assert!(
            std::env::var("REPEL_SKIP_CORPUS_TESTS").as_deref() == Ok("1"),
            "{} is absent: set REPEL_SKIP_CORPUS_TESTS=1 to skip the corpus tests",
            dir.display()
        );
        eprintln!("note: {} is absent; skipped", dir.display());
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, exts, out);
        } else if exts.is_empty()
            || path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| exts.contains(&e))
        {
            out.push(path);
        }
    }
}

#[test]
fn the_scanner_agrees_on_every_manifest_we_hold() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files(
        &root.join("../../../shared/corpus/real"),
        &["yaml", "yml"],
        &mut paths,
    );
    files(&root.join("../../../shared/seeds"), &[], &mut paths);
    files(&root.join("../../examples"), &["yaml", "yml"], &mut paths);
    let (mut pieces, mut read) = (0, 0);
    for path in &paths {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let name = path.display().to_string();
        pieces += split_documents(&text).len();
        read += agrees_on_pieces(&name, &text);
        // And the whole read, threads and all, is serde-saphyr's.
        let got = parse_stream(&text)
            .map(|(v, _)| v)
            .map_err(|e| e.to_string());
        assert_eq!(got, reference(&text), "file: {name}");
    }
    eprintln!(
        "note: the scanner read {read} of {pieces} pieces in {} files",
        paths.len()
    );
    // The corpus, the seeds and the examples: a floor, so that missing folders cannot pass.
    if std::env::var("REPEL_SKIP_CORPUS_TESTS").as_deref() != Ok("1") {
        assert!(paths.len() >= 85, "only {} files compared", paths.len());
    }
}
