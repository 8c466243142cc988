//! Decoding errors in a manifest's words.

use super::*;

#[test]
fn type_errors_in_a_manifests_words() {
    for (serde, want) in [
        (
            "invalid type: string \"30\", expected i64",
            "invalid type: got a string (\"30\"), expected an integer (write the number without quotes)",
        ),
        (
            "invalid type: integer `5`, expected a string",
            "invalid type: got an integer (5), expected a string",
        ),
        (
            "invalid type: sequence, expected a map",
            "invalid type: got a list, expected a mapping",
        ),
        (
            "invalid type: string \"x\", expected struct Toleration",
            "invalid type: got a string (\"x\"), expected a mapping",
        ),
        ("missing field `containers`", "missing field `containers`"),
    ] {
        assert_eq!(plain_type_error(serde), want, "{serde}");
    }
}
