//! Which layer takes which text: plain manifests the fast path, unusual ones the whole stream.

use super::*;

#[test]
fn plain_manifests_take_the_fast_path_and_unusual_ones_the_whole_stream() {
    let cases: &[(&str, &str, bool)] = &[
        (
            "plain documents are read piece by piece",
            "a: 1\n---\nb: [x, 'y']\n",
            true,
        ),
        (
            "a float goes through serde-saphyr for its piece only",
            "a: 1.5\n---\nb: 2\n",
            true,
        ),
        (
            "an alias makes the whole stream one read",
            "a: &x 1\nb: *x\n",
            false,
        ),
        (
            "a directive makes the whole stream one read",
            "%YAML 1.2\n---\na: 1\n",
            false,
        ),
        ("an error makes the whole stream one read", "a: [\n", false),
    ];
    for (name, text, fast) in cases {
        assert_eq!(
            parse_pieces::<()>(text, &|_| None, None).is_some(),
            *fast,
            "case: {name}"
        );
    }
}

/// Scalars led by a digit and holding letters: those [`digit_led_word`] calls strings are
/// strings to serde-saphyr too, and a pod-template-hash keeps the line scanner's path (a
/// snapshot's pods all carry one: read back through serde-saphyr, 150,000 took 68 s).
#[test]
fn digit_led_words_are_the_strings_serde_saphyr_reads() {
    let words = [
        "6fcb5dd885",
        "5d4c8b7f9",
        "7ff",
        "3f",
        "1d",
        "1st",
        "9e9e",
        "1.0f",
        "0abc",
        "1e5f",
        "2a",
        "10fz",
        "8b",
        "9o",
        "1x",
        "0x1f",
        "0o17",
        "0b101",
        "0X1F",
        "1e5",
        "1E5",
        "12e",
        "1e",
        "1.5e3",
        "1_000",
        "0e0",
        "4E-3",
        "7e+2",
        "1-2",
        "00a",
    ];
    for w in words {
        let text = format!("k: {w}\n");
        let reference =
            serde_saphyr::from_str_with_options::<Value>(&text, options()).unwrap_or(Value::Null);
        let is_string = reference["k"] == Value::String(w.to_string());
        if digit_led_word(w) {
            assert!(is_string, "{w}: serde-saphyr reads {reference}");
        }
        let fast = parse_stream(&text)
            .map(|(v, _)| v)
            .map_err(|e| e.to_string());
        assert_eq!(fast, Ok(vec![reference]), "{w}");
    }
    let pod = "metadata:\n  labels:\n    pod-template-hash: 6fcb5dd885\n  name: web-6fcb5dd885-x\n";
    assert!(matches!(build(pod), Built::Done(..)));
    assert!(scan::scan(pod).is_some());
}
