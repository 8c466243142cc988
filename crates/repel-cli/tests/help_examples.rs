//! Every command's `--help` ends with examples; each one that reads only files runs, from a
//! copy of the repository's `examples/`, and gives an answer (exit 0 or 1), so an example
//! cannot rot. Not run: those that read a live cluster (`--kubeconfig`), start a server, write
//! through a shell redirection, or generate the 150,000-pod cluster (too slow for a debug
//! build; `repel bench` measures it).

use crate::util::{repel, run, text};

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
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

#[test]
fn every_commands_help_has_examples_and_the_file_examples_run() {
    let (code, help, _) = run(&["--help"]);
    assert_eq!(code, 0);
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 18, "{commands:?}");
    let dir = tempfile::tempdir().unwrap();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    copy_dir(&examples, &dir.path().join("examples"));
    let mut ran = 0;
    for c in &commands {
        let (code, help, err) = run(&[c.as_str(), "--help"]);
        assert_eq!(code, 0, "{c}: {err}");
        let lines: Vec<&str> = help
            .lines()
            .skip_while(|l| *l != "Examples:")
            .skip(1)
            .map(str::trim)
            .collect();
        assert!(!lines.is_empty(), "`repel {c} --help` has no examples");
        for line in lines {
            assert!(line.starts_with(&format!("repel {c}")), "{c}: {line}");
            let skip = ["--kubeconfig", " > ", " | ", "150000"];
            if skip.iter().any(|s| line.contains(s)) || c == "serve" || c == "completions" {
                continue;
            }
            let args: Vec<&str> = line.split_whitespace().skip(1).collect();
            let out = repel()
                .current_dir(dir.path())
                .args(&args)
                .output()
                .unwrap();
            let (code, _, err) = text(&out);
            assert!(code == 0 || code == 1, "`{line}` exited {code}: {err}");
            ran += 1;
        }
    }
    assert!(ran >= 25, "only {ran} examples ran");
}
