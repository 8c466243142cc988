//! `repel completions` and `repel man`: what bash completes from the script, and the manual
//! pages written for every command.

use std::process::Command;

use crate::util::run;

/// The commands `repel --help` lists.
fn commands() -> Vec<String> {
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    out.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

#[test]
fn bash_completes_commands_and_flags_from_the_script() {
    let (code, script, err) = run(&["completions", "bash"]);
    assert_eq!(code, 0, "{err}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("repel.bash");
    std::fs::write(&path, &script).unwrap();
    // What bash offers after `repel dr<TAB>` and `repel drain --ind<TAB>`.
    let complete = |words: &str, cword: usize| {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source {}; COMP_WORDS=({words}); COMP_CWORD={cword}; _repel repel \"${{COMP_WORDS[$COMP_CWORD]}}\" \"${{COMP_WORDS[$COMP_CWORD-1]}}\"; echo \"${{COMPREPLY[@]}}\"",
                path.display()
            ))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(complete("repel dr", 1), "drain");
    assert_eq!(complete("repel drain --ind", 2), "--independent");
    let all = complete("repel ''", 1);
    for c in commands() {
        assert!(
            all.split_whitespace().any(|w| w == c),
            "{c} not offered: {all}"
        );
    }
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let (code, out, err) = run(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.contains("independent"), "{shell}: no drain flags");
    }
    let (code, _, err) = run(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'tcsh'"), "{err}");
}

#[test]
fn man_prints_repel_1_and_writes_a_page_per_command() {
    let (code, page, err) = run(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(page.contains(".TH repel 1"), "{page}");
    for c in commands() {
        assert!(
            page.contains(&format!("repel\\-{c}(1)")),
            "repel.1 does not list {c}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = run(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut written: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    written.sort();
    let mut expected: Vec<String> = commands()
        .iter()
        .map(|c| format!("repel-{c}.1"))
        .chain(["repel.1".to_string()])
        .collect();
    expected.sort();
    assert_eq!(written, expected);
    assert_eq!(out.lines().count(), expected.len());
    let drain = std::fs::read_to_string(dir.path().join("repel-drain.1")).unwrap();
    assert!(drain.contains("\\-\\-independent"), "{drain}");
}
