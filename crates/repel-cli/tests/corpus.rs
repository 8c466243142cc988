//! Real manifests never make `repel` panic: `check`, `admit` and `explain` over every file of
//! the shared corpus (`../shared/corpus/real`, outside the repo; skipped with a note when
//! absent). Each exits 0, 1 or 2 — never 101 (a panic) or by a signal — and an exit 2 names
//! the file it could not use (or, for `explain`, is kubectl's NotFound for the object named on
//! the command line). Which files exit 2, and why, is printed: it records how repel reads real
//! manifests today without fixing which files those are.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{self, repel};

/// How many pods or workloads of one file are explained at most.
const PER_FILE: usize = 8;

const WORKLOADS: [(&str, &str); 7] = [
    ("Pod", "pod"),
    ("Deployment", "deploy"),
    ("ReplicaSet", "rs"),
    ("StatefulSet", "sts"),
    ("DaemonSet", "ds"),
    ("Job", "job"),
    ("CronJob", "cronjob"),
];

fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = repel().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `kind/name` and namespace of every pod and workload in the file, as far as this test
/// can read it (`None`: it cannot).
fn targets(path: &Path) -> Option<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).ok()?;
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).ok()?;
    let mut objects = Vec::new();
    for d in docs {
        match d["items"].as_array() {
            Some(items) if d["kind"].as_str().is_some_and(|k| k.ends_with("List")) => {
                objects.extend(items.iter().cloned())
            }
            _ => objects.push(d),
        }
    }
    Some(
        objects
            .iter()
            .filter_map(|o| {
                let (_, short) = WORKLOADS.iter().find(|(k, _)| o["kind"] == *k)?;
                let name = o["metadata"]["name"].as_str()?;
                let ns = o["metadata"]["namespace"]
                    .as_str()
                    .filter(|s| !s.is_empty())
                    .unwrap_or("default");
                Some((format!("{short}/{name}"), ns.to_string()))
            })
            .collect(),
    )
}

/// Every `step`-th element, at most `n` of them.
fn sample<T: Clone>(items: &[T], n: usize) -> Vec<T> {
    let step = items.len().div_ceil(n.max(1)).max(1);
    items.iter().step_by(step).take(n).cloned().collect()
}

/// The first line of an error output, for the record.
fn first_line(s: &str) -> String {
    let line = s
        .lines()
        .find(|l| l.starts_with("error") || l.starts_with("Error"))
        .or_else(|| s.lines().next())
        .unwrap_or_default();
    line.chars().take(240).collect()
}

#[test]
fn no_corpus_file_makes_check_admit_or_explain_panic() {
    let Some(corpus) = util::real_corpus() else {
        return;
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    assert!(paths.len() >= 61, "the corpus has its 61 files");
    let mut bad = Vec::new();
    let mut exit2 = Vec::new();
    for path in &paths {
        let file = path.display().to_string();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut runs: Vec<Vec<String>> = vec![
            vec!["check".into(), "-f".into(), file.clone()],
            vec!["admit".into(), "-f".into(), file.clone()],
        ];
        // What the file holds; a file this test cannot read gets one explanation, whose error
        // must name the file too.
        let explained = match targets(path) {
            Some(t) => sample(&t, PER_FILE),
            None => vec![("pod/x".to_string(), "default".to_string())],
        };
        for (target, ns) in &explained {
            runs.push(vec![
                "explain".into(),
                target.clone(),
                "-n".into(),
                ns.clone(),
                "-f".into(),
                file.clone(),
            ]);
        }
        let mut codes = Vec::new();
        for args in &runs {
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let what = format!("repel {}", argv.join(" ").replace(&file, &name));
            let (code, err) = run(&argv);
            codes.push(code.map_or("signal".to_string(), |c| c.to_string()));
            match code {
                Some(0 | 1) => {}
                Some(2) => {
                    let not_found = argv[0] == "explain" && err.contains("(NotFound)");
                    if !err.contains(&name) && !not_found {
                        bad.push(format!("{what}: exit 2 without naming the file: {err}"));
                    }
                    exit2.push(format!("{what}: {}", first_line(&err)));
                }
                Some(c) => bad.push(format!("{what}: exit {c}: {err}")),
                None => bad.push(format!("{what}: killed by a signal: {err}")),
            }
        }
        println!(
            "{name}: check {}, admit {}, explain [{}]",
            codes[0],
            codes[1],
            codes[2..].join(" ")
        );
    }
    println!("\n{} run(s) exit 2:", exit2.len());
    for e in &exit2 {
        println!("  {e}");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
