//! What the test modules share: running the built `repel` and reading its output.

use std::ffi::OsStr;
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
