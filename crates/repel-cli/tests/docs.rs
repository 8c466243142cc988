//! The manual cannot rot: every `repel …` command shown in README.md and docs/src/**/*.md runs
//! here, and its shown output is compared with what it prints.
//!
//! A ```` ```console ```` block holds commands (`$ repel …`, one line each, run by `sh` so a
//! pipe or a redirection works as shown), each followed by an optional `? N` line (the exit
//! status; 0 when absent) and the output: stdout and stderr as a terminal shows them, compared
//! by snapbox, where a line `...` stands for any lines and `[..]` for part of a line. Every
//! file's blocks run in order in one sandbox: a temporary directory holding a copy of the
//! repository's `examples/` and `docs/examples/`, with `HOME` there and no `KUBECONFIG`, so a
//! block may use what an earlier one wrote. A ```` ```console,ignore ```` block is shown and
//! not run: only for commands that need a running server or a live cluster. A `repel` command
//! in any other block (`sh`, `bash`, …) fails the test: a command shown must be tested.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One command of a console block.
struct Case {
    file: String,
    line: usize,
    command: String,
    status: i32,
    expected: String,
}

/// What a Markdown file shows: the commands to run, how many are shown but not run, and the
/// `repel` commands outside console blocks (each `file:line: text`).
#[derive(Default)]
struct Shown {
    cases: Vec<Case>,
    ignored: usize,
    untested: Vec<String>,
}

fn is_repel_command(line: &str) -> bool {
    let l = line.trim_start();
    let l = l.strip_prefix("$ ").unwrap_or(l);
    l.starts_with("repel ")
}

/// Reads the console blocks of one Markdown text.
fn parse(file: &str, text: &str) -> Shown {
    let mut shown = Shown::default();
    let mut fence: Option<String> = None;
    let mut current: Option<Case> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            match fence.take() {
                Some(_) => {
                    if let Some(c) = current.take() {
                        shown.cases.push(c);
                    }
                }
                None => fence = Some(info.trim().to_string()),
            }
            continue;
        }
        let Some(info) = fence.as_deref() else {
            continue;
        };
        match info {
            "console" => {
                if let Some(cmd) = line.strip_prefix("$ ") {
                    if let Some(c) = current.take() {
                        shown.cases.push(c);
                    }
                    current = Some(Case {
                        file: file.to_string(),
                        line: i + 1,
                        command: cmd.to_string(),
                        status: 0,
                        expected: String::new(),
                    });
                } else if let Some(c) = current.as_mut() {
                    match line.strip_prefix("? ") {
                        Some(n) if c.expected.is_empty() => {
                            c.status = n.trim().parse().unwrap_or(-1);
                        }
                        _ => {
                            c.expected.push_str(line);
                            c.expected.push('\n');
                        }
                    }
                }
            }
            "console,ignore" => {
                if line.starts_with("$ repel ") {
                    shown.ignored += 1;
                }
            }
            "text" => {}
            _ => {
                if is_repel_command(line) {
                    shown.untested.push(format!("{file}:{}: {line}", i + 1));
                }
            }
        }
    }
    shown
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "md") {
            out.push(p);
        }
    }
}

/// Runs one file's cases in a fresh sandbox; returns the failures.
fn run_cases(root: &Path, bin_dir: &Path, cases: &[Case]) -> Vec<String> {
    let sandbox = tempfile::tempdir().unwrap();
    copy_dir(&root.join("examples"), &sandbox.path().join("examples"));
    copy_dir(
        &root.join("docs/examples"),
        &sandbox.path().join("docs/examples"),
    );
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for c in cases {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{{ {}\n}} 2>&1", c.command))
            .current_dir(sandbox.path())
            .env("PATH", &path)
            .env("HOME", sandbox.path())
            .env_remove("KUBECONFIG")
            .env_remove("REPEL_SERVICEACCOUNT_DIR")
            .env_remove("KUBERNETES_SERVICE_HOST")
            .env_remove("KUBERNETES_SERVICE_PORT")
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let actual = String::from_utf8_lossy(&out.stdout).into_owned();
        let status = out.status.code().unwrap_or(-1);
        let expected = c.expected.trim_end_matches('\n').to_string() + "\n";
        let actual_trimmed = actual.trim_end_matches('\n').to_string() + "\n";
        let at = format!("{}:{}: $ {}", c.file, c.line, c.command);
        if status != c.status {
            failures.push(format!(
                "{at}\n  exit status {status}, the docs show {}\n{actual}",
                c.status
            ));
            continue;
        }
        if let Err(e) = snapbox::Assert::new()
            .action(snapbox::assert::Action::Verify)
            .palette(snapbox::report::Palette::plain())
            .normalize_paths(false)
            .try_eq(Some(&at), actual_trimmed.into(), expected.into())
        {
            failures.push(format!("{at}\n{e}"));
        }
    }
    failures
}

#[test]
fn every_command_shown_in_the_docs_runs_and_prints_what_is_shown() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("README.md")];
    markdown_files(&root.join("docs/src"), &mut files);
    let bin = Path::new(env!("CARGO_BIN_EXE_repel"));
    let bin_dir = bin.parent().unwrap().to_path_buf();
    let mut per_file = Vec::new();
    let mut ignored = 0;
    let mut untested = Vec::new();
    for f in &files {
        let name = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        let shown = parse(&name, &std::fs::read_to_string(f).unwrap());
        ignored += shown.ignored;
        untested.extend(shown.untested);
        if !shown.cases.is_empty() {
            per_file.push(shown.cases);
        }
    }
    assert!(
        untested.is_empty(),
        "`repel` commands shown outside a console block (so never tested):\n{}",
        untested.join("\n")
    );
    let ran: usize = per_file.iter().map(Vec::len).sum();
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = per_file
            .iter()
            .map(|cases| s.spawn(|| run_cases(&root, &bin_dir, cases)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {ran} documented commands differ from the docs:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    eprintln!(
        "docs: {ran} commands run and compared, {ignored} shown but not run (console,ignore)"
    );
    assert!(ran >= 60, "only {ran} commands in the docs' console blocks");
    assert!(ignored <= 12, "{ignored} commands are not run: run them");
}

#[test]
fn console_blocks_are_read_as_commands_status_and_output() {
    let text = "x\n```console\n$ repel a -f x\nline 1\n...\n$ repel b\n? 2\nerror: b\n```\n```sh\nrepel c\n```\n```console,ignore\n$ repel serve\n```\n```text\nrepel simulate: a diagram\n```\n";
    let shown = parse("f.md", text);
    let cmds: Vec<(&str, i32, &str, usize)> = shown
        .cases
        .iter()
        .map(|c| (c.command.as_str(), c.status, c.expected.as_str(), c.line))
        .collect();
    assert_eq!(
        cmds,
        [
            ("repel a -f x", 0, "line 1\n...\n", 3),
            ("repel b", 2, "error: b\n", 6)
        ]
    );
    assert_eq!(shown.ignored, 1);
    assert_eq!(shown.untested, ["f.md:11: repel c"]);
}

#[test]
fn a_changed_output_is_a_failure() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let bin = Path::new(env!("CARGO_BIN_EXE_repel"));
    let case = |expected: &str, status| Case {
        file: "t.md".into(),
        line: 1,
        command: "repel taint nodes node1 k=v:NoSchedule -f examples/demo/cluster.yaml --dry-run"
            .into(),
        status,
        expected: expected.into(),
    };
    let dir = bin.parent().unwrap();
    assert!(run_cases(&root, dir, &[case("node/node1 tainted (dry run)\n", 0)]).is_empty());
    assert!(run_cases(&root, dir, &[case("node/[..] tainted [..]\n", 0)]).is_empty());
    // Another message, or another exit status, is a failure.
    assert_eq!(
        run_cases(&root, dir, &[case("node/node1 untainted (dry run)\n", 0)]).len(),
        1
    );
    assert_eq!(
        run_cases(&root, dir, &[case("node/node1 tainted (dry run)\n", 1)]).len(),
        1
    );
}
