//! A file's text split into documents: the reader's errors name the file and the limit.

use super::*;

#[test]
fn a_yaml_reading_limit_is_named_in_words_with_the_file() {
    let deep = format!(
        "a:\n{}",
        (1..80)
            .map(|i| format!("{}b:\n", "  ".repeat(i)))
            .collect::<String>()
    );
    let err = parse_documents("deep.yaml", &deep)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("deep.yaml: invalid YAML: line ")
            && err.contains("mappings and lists nested more than 64 deep, the most repel reads"),
        "{err}"
    );
    assert!(
        !err.contains("Depth {") && !err.contains("<input>"),
        "{err}"
    );
    let bad = "a: [1, 2\n";
    let err = parse_documents("bad.yaml", bad)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(!err.contains("<input>"), "{err}");
}
