//! Each layer of the fast read held against the next: values, errors and budgets are a plain
//! serde-saphyr read's.

use super::*;
use serde_json::json;

/// The reference: one serde-saphyr read of the whole stream.
fn reference(text: &str) -> Result<Vec<Value>, String> {
    serde_saphyr::from_multiple_with_options::<Value>(text, options()).map_err(|e| e.to_string())
}

fn values(text: &str) -> Result<Vec<Value>, String> {
    parse_stream(text)
        .map(|(v, _)| v)
        .map_err(|e| e.to_string())
}

/// A directive is a line starting with `%`, first or after any line ending; a `%` inside a
/// line is not one.
#[test]
fn directives_are_lines_starting_with_a_percent_sign() {
    for (text, want) in [
        ("%YAML 1.2\n---\na: 1\n", true),
        ("a: 1\n%TAG ! tag:x,2000:\n---\nb: 2\n", true),
        ("a: 1\r%YAML 1.2\n", true),
        ("a: 1\r\n%YAML 1.2\n", true),
        ("a: 50%\nb: '%x'\n", false),
        ("a: 1\n %b\n", false),
        ("", false),
    ] {
        assert_eq!(has_directive(text), want, "{text:?}");
    }
}

fn assert_same(name: &str, text: &str) {
    let fast = values(text);
    assert_eq!(fast, reference(text), "case: {name}");
    // Big enough to be parsed on several threads.
    let repeated = text.repeat(PARALLEL_MIN_BYTES / text.len().max(1) + 2);
    let fast = values(&repeated);
    assert_eq!(fast, reference(&repeated), "case (repeated): {name}");
}

#[test]
fn the_fast_read_gives_serde_saphyr_values_and_errors() {
    let cases: &[(&str, &str)] = &[
        (
            "a plain manifest",
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  containers:\n  - name: c\n    resources:\n      requests: {cpu: 1, memory: 10Mi}\n",
        ),
        (
            "documents without markers between ends",
            "a: 1\n...\nb: 2\n...\n",
        ),
        (
            "empty and null documents are skipped",
            "---\n---\n~\n---\nnull\n---\nkind: X\n---\n",
        ),
        (
            "comments before and inside documents",
            "# head\n---\n# c\nkind: X # tail\n---\n# only a comment\n",
        ),
        (
            "YAML 1.1 booleans and nulls",
            "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: ~\ng:\nh: Null\ni: TRUE\n",
        ),
        (
            "numbers of every shape",
            "a: 0\nb: -5\nc: 0755\nd: 0x1F\ne: 1e3\nf: .5\ng: +1\nh: 1_000\ni: .inf\nj: -.nan\nk: 12345678901234567890\nl: -0\nm: 3.0\n",
        ),
        (
            "words that read as floats",
            "a: inf\nb: NaN\nc: Infinity\nd: infinite\n",
        ),
        (
            "quoted and block scalars",
            "a: 'yes'\nb: \"1\"\nc: |\n  text\n  more\nd: >-\n  folded\n  line\ne: \"esc\\tape\\u00e9\"\n",
        ),
        ("plain keys that are not strings", "1: a\ntrue: b\n~: c\n"),
        (
            "anchors, aliases and merge keys",
            "base: &b {x: 1}\nuse: *b\nmerged:\n  <<: *b\n  y: 2\n",
        ),
        ("tags", "a: !!str 1\nb: !!int \"2\"\nc: !custom x\n"),
        ("a collection as a key", "? [a, b]\n: c\n"),
        (
            "a syntax error in a later document",
            "a: 1\n---\nb: [1, 2\n---\nc: 3\n",
        ),
        ("a tab indentation error", "a:\n\tb: 1\n"),
        ("a directive", "%YAML 1.2\n---\na: 1\n"),
        (
            "markers inside a block scalar and quotes",
            "a: |\n  --- not a marker\nb: \"x\n  --- y\"\n",
        ),
        (
            "a marker followed by content",
            "--- {a: 1}\n--- [1, 2]\n--- text\n",
        ),
        ("CRLF line ends", "---\r\na: 1\r\n---\r\nb: two\r\n"),
        (
            "deep nesting",
            &format!("{}1{}\n", "[".repeat(70), "]".repeat(70)),
        ),
        (
            "deep block nesting",
            &(0..70)
                .map(|i| format!("{}k{i}:\n", "  ".repeat(i)))
                .collect::<String>(),
        ),
        ("a top-level scalar and sequence", "--- text\n--- [1]\n"),
        ("a byte-order mark", "\u{feff}a: 1\n---\nb: 2\n"),
    ];
    for (name, text) in cases {
        assert_same(name, text);
    }
}

#[test]
fn the_fast_read_agrees_with_serde_saphyr_on_the_shared_corpus() {
    let corpus =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/real");
    let Ok(dir) = std::fs::read_dir(&corpus) else {
        assert!(
            std::env::var("REPEL_SKIP_CORPUS_TESTS").as_deref() == Ok("1"),
            "{} is absent: set REPEL_SKIP_CORPUS_TESTS=1 to skip the corpus tests",
            corpus.display()
        );
        eprintln!("note: {} is absent; skipped", corpus.display());
        return;
    };
    let mut compared = 0;
    for entry in dir.flatten() {
        let path = entry.path();
        if let Ok(text) = std::fs::read_to_string(&path) {
            assert_same(&path.display().to_string(), &text);
            compared += 1;
        }
    }
    assert!(compared >= 60, "only {compared} corpus files compared");
}

#[test]
fn repeated_keys_keep_the_last_value_and_are_listed_with_their_path() {
    // Keys the fast read takes as they are.
    let text = "---\nkind: 1\nmeta:\n  list: [{name: 1, name: 2}]\n  key: x\n  key: z\nkind: 3\n---\nspec: 1\n---\nmy: 1\nmy: 2\n";
    let want = vec![
        json!({"kind": 3, "meta": {"list": [{"name": 2}], "key": "z"}}),
        json!({"spec": 1}),
        json!({"my": 2}),
    ];
    let dups = |d: &[(usize, &str)]| -> Duplicates {
        d.iter().map(|(i, p)| (*i, p.to_string())).collect()
    };
    let (v, d) = parse_stream(text).expect("parses");
    assert_eq!(v, want);
    assert_eq!(
        d,
        dups(&[
            (0, "meta.list[0].name"),
            (0, "meta.key"),
            (0, "kind"),
            (2, "my")
        ])
    );
    // Parsed on several threads, the document indexes run over the whole stream.
    let repeated = text.repeat(PARALLEL_MIN_BYTES / text.len() + 2);
    let (v, d) = parse_stream(&repeated).expect("parses");
    assert_eq!(v.len() % 3, 0);
    assert_eq!(d.len(), v.len() / 3 * 4);
    assert_eq!(d.last().map(|(i, _)| *i), Some(v.len() - 1));
    // A piece serde-saphyr reads (a float, an anchor, hex-like keys), and a whole stream
    // it reads (an alias across documents): the same values and the same list.
    for text in [
        "---\nx: 1.5\nb: {c: 1, c: 2}\n---\n~\n---\nd: [1, {e: 1, e: 2}]\n",
        "---\nx: &v 1\ny: *v\nb: {c: 1, c: 2}\n---\nd: [1, {e: 1, e: 2}]\n",
    ] {
        let (v, d) = parse_stream(text).expect("parses");
        assert_eq!(v.len(), 2, "{text}");
        assert_eq!(v[0]["b"], json!({"c": 2}), "{text}");
        assert_eq!(v[1], json!({"d": [1, {"e": 2}]}), "{text}");
        assert_eq!(d, dups(&[(0, "b.c"), (1, "d[1].e")]), "{text}");
    }
}

#[test]
fn documents_split_at_markers_only() {
    let text = "a: 1\n---\nb: 2\n----\n--- c\n---x\n  ---\n---";
    assert_eq!(
        split_documents(text),
        vec!["a: 1\n", "---\nb: 2\n----\n", "--- c\n---x\n  ---\n", "---"],
    );
    // A first marker, markers one after another, CRLF line ends.
    assert_eq!(
        split_documents("---\n---\na: 1\r\n---\r\nb: 2"),
        vec!["---\n", "---\na: 1\r\n", "---\r\nb: 2"],
    );
    assert_eq!(split_documents(""), vec![""]);
    assert_eq!(split_documents("\n---"), vec!["\n", "---"]);
}
