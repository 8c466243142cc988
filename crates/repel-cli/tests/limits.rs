//! What repel reads is bounded: an endless or huge input stops at the input limit
//! with an error naming it, on every path input comes in by (`-f FILE`, `-f -`, a scenario, the
//! manifests a scenario names, a scenario's `kubectl apply -f`, `repel taint`'s file).
//!
//! The limit is 256 MiB; these tests set a small one through `REPEL_MAX_INPUT_BYTES`, so that
//! `/dev/zero` costs them a few KiB of memory and no time.

use std::path::Path;

use crate::util::{repel, text};

const LIMIT: usize = 4096;

/// The built `repel` with the tests' input limit.
fn limited() -> assert_cmd::Command {
    let mut c = repel();
    c.env("REPEL_MAX_INPUT_BYTES", LIMIT.to_string());
    c
}

/// Runs repel with `args` (and `stdin` when given), returning (exit code, stdout, stderr).
fn run_with(args: &[&str], stdin: Option<Vec<u8>>) -> (i32, String, String) {
    let mut c = limited();
    c.args(args);
    if let Some(s) = stdin {
        c.write_stdin(s);
    }
    text(&c.output().unwrap())
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_with(args, None)
}

/// The error for `path` over the tests' limit, as repel prints it.
fn too_large(path: &str) -> String {
    format!(
        "error: {path}: larger than {LIMIT} bytes (4 KiB), the most repel reads of one input; set REPEL_MAX_INPUT_BYTES to a number of bytes to read more\n"
    )
}

/// A valid Node manifest padded with a comment to exactly `len` bytes.
fn node_of_len(len: usize) -> String {
    let head = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n#";
    assert!(len > head.len() + 1);
    format!("{head}{}\n", "x".repeat(len - head.len() - 1))
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn dev_zero_stops_at_the_limit_with_an_error_naming_it() {
    for command in ["check", "schedule", "admit"] {
        let (code, out, err) = run(&[command, "-f", "/dev/zero"]);
        assert_eq!(code, 2, "{command}: {err}");
        assert_eq!(out, "", "{command}");
        assert_eq!(err, too_large("/dev/zero"), "{command}");
    }
}

#[test]
fn a_file_at_the_limit_is_read_and_one_byte_more_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let at = write(dir.path(), "at.yaml", &node_of_len(LIMIT));
    let over = write(dir.path(), "over.yaml", &node_of_len(LIMIT + 1));
    let (code, _, err) = run(&["check", "-f", &at]);
    assert_eq!(code, 0, "a file of exactly the limit is read: {err}");
    let (code, _, err) = run(&["check", "-f", &over]);
    assert_eq!(code, 2);
    assert_eq!(err, too_large(&over));
    // In a directory, the file is named as found there.
    let (code, _, err) = run(&["check", "-f", &dir.path().display().to_string()]);
    assert_eq!(code, 2);
    assert_eq!(err, too_large(&over));
}

#[test]
fn standard_input_is_bounded_too() {
    let (code, _, err) = run_with(&["check", "-f", "-"], Some(node_of_len(LIMIT).into_bytes()));
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run_with(
        &["check", "-f", "-"],
        Some(node_of_len(LIMIT * 4).into_bytes()),
    );
    assert_eq!(code, 2);
    assert_eq!(err, too_large("-"));
}

#[test]
fn a_scenario_its_manifests_and_its_applied_files_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = write(dir.path(), "cluster.yaml", &node_of_len(200));
    let cases = [
        (
            "the manifests a scenario names",
            "kind: Scenario\nmanifests: [/dev/zero]\nuntil: 1m\n".to_string(),
            "/dev/zero".to_string(),
        ),
        (
            "a file a kubectl apply step reads",
            format!(
                "kind: Scenario\nmanifests: [{cluster}]\nsteps:\n- at: 10s\n  kubectl: apply -f /dev/zero\nuntil: 1m\n"
            ),
            "/dev/zero".to_string(),
        ),
        (
            "the scenario itself",
            format!(
                "kind: Scenario\nmanifests: [{cluster}]\nuntil: 1m\n#{}\n",
                "x".repeat(LIMIT)
            ),
            dir.path().join("scenario.yaml").display().to_string(),
        ),
    ];
    for (name, text, culprit) in cases {
        let scenario = write(dir.path(), "scenario.yaml", &text);
        for command in ["simulate", "test"] {
            let (code, _, err) = run(&[command, &scenario]);
            assert_eq!(code, 2, "{name} ({command}): {err}");
            assert_eq!(err, too_large(&culprit), "{name} ({command})");
        }
    }
}

#[test]
fn taint_refuses_a_file_over_the_limit_and_leaves_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let text = node_of_len(LIMIT + 100);
    let path = write(dir.path(), "nodes.yaml", &text);
    let (code, _, err) = run(&["taint", "nodes", "n1", "k=v:NoSchedule", "-f", &path]);
    assert_eq!(code, 2);
    assert_eq!(err, too_large(&path));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_limit_that_is_not_a_number_is_refused() {
    let out = repel()
        .env("REPEL_MAX_INPUT_BYTES", "lots")
        .args(["check", "-f", "/dev/null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: REPEL_MAX_INPUT_BYTES: invalid value \"lots\": a number of bytes expected\n"
    );
}
