//! What the test modules share: running the built `repel` and reading its output.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

use serde_json::Value;

/// The built `repel` binary, ready for arguments.
pub fn repel() -> Command {
    Command::cargo_bin("repel").unwrap()
}

/// Runs `repel args…`: exit code (-1 when killed by a signal), stdout and stderr.
pub fn run<S: AsRef<OsStr>>(args: &[S]) -> (i32, String, String) {
    text(&repel().args(args).output().unwrap())
}

/// An output's exit code (-1 when killed by a signal), stdout and stderr as text.
pub fn text(out: &Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `repel args…` whose stdout must be JSON: exit code and the document.
pub fn json_out(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = run(args);
    let v = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}\n{err}"));
    (code, v)
}

/// The string at `pointer` (a JSON pointer, `/metadata/name`) of each item of the JSON list
/// `list`; a missing one panics, naming it.
pub fn strs<'a>(list: &'a Value, pointer: &str) -> Vec<&'a str> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|item| {
            item.pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("no {pointer} in {item}"))
        })
        .collect()
}

/// The shared corpus of real manifests (`../shared/corpus/real` beside the repository), or
/// `None` when it is absent and `REPEL_SKIP_CORPUS_TESTS=1` says to skip the corpus tests
/// (absent without it, the test fails, saying so).
pub fn real_corpus() -> Option<PathBuf> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/real");
    if corpus.is_dir() {
        return Some(corpus);
    }
    assert!(
        std::env::var("REPEL_SKIP_CORPUS_TESTS").as_deref() == Ok("1"),
        "{} is absent: set REPEL_SKIP_CORPUS_TESTS=1 to skip the corpus tests",
        corpus.display()
    );
    eprintln!("note: {} is absent; skipped", corpus.display());
    None
}
