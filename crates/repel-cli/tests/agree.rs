//! Two paths to one answer: `repel schedule` and `repel explain`, run as the built binary over
//! the documentation's clusters (`examples/`, `examples/demo/cluster.yaml`), a generated
//! cluster, and the files of the shared corpus (`../shared/corpus/real`, outside the repo)
//! that hold nodes or pods.
//!
//! For each pod or workload (sampled when there are many): when `schedule` places a pod on node
//! X, `explain` of it says X is feasible; when `schedule` leaves it unschedulable, `explain`'s
//! `message` is `schedule`'s. `explain` judges a pod after the pods the queue puts before it
//! are placed, so the two see the same cluster. A DaemonSet's pods are compared node by node:
//! each node's row names the controller's pod for that node. Every row of every explanation
//! carries scores only when the node is feasible.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{self, run};

/// How many explanations a cluster gets at most, per kind of target.
const SAMPLE: usize = 6;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The objects of a manifest file, `kind: List` flattened; `None` when it does not parse.
fn objects(path: &Path) -> Option<Vec<Value>> {
    let text = std::fs::read_to_string(path).ok()?;
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).ok()?;
    let mut out = Vec::new();
    for d in docs {
        match (d["kind"].as_str(), d["items"].as_array()) {
            (Some(k), Some(items)) if k.ends_with("List") => out.extend(items.iter().cloned()),
            _ if d.is_object() => out.push(d),
            _ => {}
        }
    }
    Some(out)
}

/// A cluster to run both commands on: its `-f` files and the objects they hold.
struct Case {
    name: String,
    files: Vec<PathBuf>,
    objects: Vec<Value>,
}

impl Case {
    fn from_files(name: &str, files: Vec<PathBuf>) -> Option<Case> {
        let mut objects = Vec::new();
        for f in &files {
            if f.is_dir() {
                for e in std::fs::read_dir(f).ok()? {
                    objects.extend(objects_of(&e.ok()?.path())?);
                }
            } else {
                objects.extend(objects_of(f)?);
            }
        }
        Some(Case {
            name: name.to_string(),
            files,
            objects,
        })
    }

    fn args(&self, cmd: &[&str]) -> Vec<String> {
        let mut a: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
        for f in &self.files {
            a.push("-f".to_string());
            a.push(f.display().to_string());
        }
        a
    }
}

fn objects_of(path: &Path) -> Option<Vec<Value>> {
    objects(path)
}

/// A scenario file's cluster: its `manifests` (relative to it) and its inline `objects`,
/// written as a List into `dir`.
fn scenario_case(path: &Path, dir: &Path) -> Option<Case> {
    let docs = objects(path)?;
    let top = docs.first()?;
    let name = path
        .strip_prefix(repo_root())
        .unwrap_or(path)
        .display()
        .to_string();
    if top["kind"] != "Scenario" {
        return Case::from_files(&name, vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for m in top["manifests"].as_array().into_iter().flatten() {
        files.push(path.parent()?.join(m.as_str()?));
    }
    if let Some(items) = top["objects"].as_array() {
        let stem = path.file_stem()?.to_string_lossy().to_string();
        let list = dir.join(format!("{stem}.json"));
        let v = json!({"apiVersion": "v1", "kind": "List", "items": items});
        std::fs::write(&list, serde_json::to_string(&v).ok()?).ok()?;
        files.push(list);
    }
    Case::from_files(&name, files)
}

fn key(o: &Value) -> String {
    let ns = o["metadata"]["namespace"]
        .as_str()
        .filter(|s| !s.is_empty())
        .unwrap_or("default");
    format!(
        "{ns}/{}",
        o["metadata"]["name"].as_str().unwrap_or_default()
    )
}

/// Every `step`-th element, at most `n` of them, the front first.
fn sample<T: Clone>(items: &[T], n: usize) -> Vec<T> {
    let step = items.len().div_ceil(n.max(1)).max(1);
    items.iter().step_by(step).take(n).cloned().collect()
}

/// What `schedule` did with each pod.
struct Schedule {
    placed: HashMap<String, String>,
    unschedulable: HashMap<String, String>,
}

/// What one explanation was compared with.
#[derive(Default)]
struct Tally {
    explained: usize,
    compared: usize,
}

/// Whether `pod` (`ns/name`) is named as a DaemonSet `ns/ds` names its pods: `ds-` and five
/// characters of upstream's alphabet.
fn daemon_pod_of(pod: &str, ds: &str) -> bool {
    pod.strip_prefix(ds)
        .and_then(|rest| rest.strip_prefix('-'))
        .is_some_and(|suffix| {
            suffix.len() == 5
                && suffix
                    .bytes()
                    .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b))
        })
}

/// Checks one `explain -o json` against `schedule`'s outcome; returns what disagreed. For a
/// DaemonSet (`Some(ns/name)`), every pod of it that `schedule` placed or left unschedulable
/// must be named by a row.
fn compare(
    what: &str,
    v: &Value,
    s: &Schedule,
    daemonset: Option<&str>,
    tally: &mut Tally,
) -> Vec<String> {
    let mut bad = Vec::new();
    let nodes = v["nodes"].as_array().cloned().unwrap_or_default();
    for n in &nodes {
        if n["feasible"] != json!(true) && (n.get("scores").is_some() || n.get("score").is_some()) {
            bad.push(format!(
                "{what}: node {} is infeasible but has scores: {n}",
                n["name"]
            ));
        }
    }
    // (pod, the rows that judge it, the message that goes with them)
    let mut judged: Vec<(String, Vec<&Value>, String)> = Vec::new();
    if let Some(ds) = daemonset {
        for pod in s.placed.keys().chain(s.unschedulable.keys()) {
            if daemon_pod_of(pod, ds) && !nodes.iter().any(|n| n["pod"] == json!(pod)) {
                bad.push(format!(
                    "{what}: schedule has {pod} of the DaemonSet, no row of explain names it"
                ));
            }
        }
        for n in nodes.iter().filter(|n| n["pod"].is_string()) {
            let pod = n["pod"].as_str().unwrap_or_default().to_string();
            let message = n["message"].as_str().unwrap_or_default().to_string();
            judged.push((pod, vec![n], message));
        }
    } else {
        let pod = v["pod"].as_str().unwrap_or_default().to_string();
        let message = v["message"].as_str().unwrap_or_default().to_string();
        judged.push((pod, nodes.iter().collect(), message));
    }
    for (pod, rows, message) in judged {
        if let Some(node) = s.placed.get(&pod) {
            tally.compared += 1;
            match rows.iter().find(|n| n["name"] == json!(node)) {
                Some(n) if n["feasible"] == json!(true) => {}
                Some(n) => bad.push(format!(
                    "{what}: schedule places {pod} on {node}, explain says it is infeasible: {n}"
                )),
                None => bad.push(format!(
                    "{what}: schedule places {pod} on {node}, explain has no row for that node{}",
                    if daemonset.is_some() {
                        " naming the pod"
                    } else {
                        ""
                    }
                )),
            }
        } else if let Some(m) = s.unschedulable.get(&pod) {
            tally.compared += 1;
            if &message != m {
                bad.push(format!(
                    "{what}: {pod} is unschedulable;\n  schedule: {m}\n  explain:  {message}"
                ));
            }
        }
    }
    bad
}

const WORKLOADS: [(&str, &str); 6] = [
    ("Deployment", "deploy"),
    ("ReplicaSet", "rs"),
    ("StatefulSet", "sts"),
    ("DaemonSet", "ds"),
    ("Job", "job"),
    ("CronJob", "cronjob"),
];

/// Runs both commands on a case; returns the disagreements, or `Err` when `schedule` could not
/// use the input.
fn check(case: &Case, sample_size: usize) -> Result<(Vec<String>, Tally), String> {
    let (code, out, err) = run(&case.args(&["schedule", "-o", "json"]));
    if code == 2 {
        return Err(err.trim().to_string());
    }
    assert!(
        code == 0 || code == 1,
        "{}: schedule exited {code}: {err}",
        case.name
    );
    let report: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("{}: schedule -o json is not JSON ({e}): {out}", case.name));
    let pairs = |field: &str, value: &str| -> HashMap<String, String> {
        report[field]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                let pod = p["pod"].as_str().unwrap_or_default().to_string();
                (pod, p[value].as_str().unwrap_or_default().to_string())
            })
            .collect()
    };
    let s = Schedule {
        placed: pairs("placements", "node"),
        unschedulable: pairs("unschedulable", "message"),
    };
    let outcome_known = |k: &String| s.placed.contains_key(k) || s.unschedulable.contains_key(k);
    // Targets: the input's pods (the unschedulable first), its workloads (DaemonSets first), and
    // pods the workloads' controllers create, named as `schedule` names them.
    let plain: Vec<String> = case
        .objects
        .iter()
        .filter(|o| o["kind"] == "Pod")
        .map(key)
        .collect();
    let mut pods: Vec<String> = plain.iter().filter(|k| outcome_known(k)).cloned().collect();
    pods.sort_by_key(|k| !s.unschedulable.contains_key(k));
    let mut generated: Vec<String> = s
        .placed
        .keys()
        .chain(s.unschedulable.keys())
        .filter(|k| !plain.contains(k))
        .cloned()
        .collect();
    generated.sort();
    let mut workloads: Vec<(String, String, String, bool)> = case
        .objects
        .iter()
        .filter_map(|o| {
            let (kind, short) = WORKLOADS.iter().find(|(k, _)| o["kind"] == *k)?;
            let ns = o["metadata"]["namespace"]
                .as_str()
                .filter(|s| !s.is_empty())
                .unwrap_or("default")
                .to_string();
            let name = o["metadata"]["name"].as_str()?.to_string();
            Some((format!("{short}/{name}"), ns, name, *kind == "DaemonSet"))
        })
        .collect();
    workloads.sort_by_key(|w| !w.3);
    let mut targets: Vec<(Vec<String>, Option<String>)> = Vec::new();
    for p in sample(&pods, sample_size)
        .into_iter()
        .chain(sample(&generated, sample_size))
    {
        targets.push((vec![p], None));
    }
    for (arg, ns, name, ds) in sample(&workloads, sample_size) {
        let ds = ds.then(|| format!("{ns}/{name}"));
        targets.push((vec![arg, "-n".to_string(), ns], ds));
    }
    let mut bad = Vec::new();
    let mut tally = Tally::default();
    for (target, ds) in targets {
        let mut args = case.args(&["explain"]);
        args.extend(target.iter().cloned());
        args.extend(["-o".to_string(), "json".to_string()]);
        let what = format!("{}: explain {}", case.name, target.join(" "));
        let (code, out, err) = run(&args);
        if code != 0 {
            bad.push(format!("{what}: exit {code}: {}", err.trim()));
            continue;
        }
        let v: Value = match serde_json::from_str(&out) {
            Ok(v) => v,
            Err(e) => {
                bad.push(format!("{what}: not JSON ({e})"));
                continue;
            }
        };
        tally.explained += 1;
        bad.extend(compare(&what, &v, &s, ds.as_deref(), &mut tally));
    }
    Ok((bad, tally))
}

fn assert_agree(cases: &[Case], sample_size: usize, must_read: bool) -> usize {
    let mut bad = Vec::new();
    let mut compared = 0;
    for case in cases {
        match check(case, sample_size) {
            Ok((b, t)) => {
                compared += 1;
                println!(
                    "{}: {} explanation(s), {} outcome(s) compared, {} disagreement(s)",
                    case.name,
                    t.explained,
                    t.compared,
                    b.len()
                );
                bad.extend(b);
            }
            Err(e) if must_read => bad.push(format!("{}: schedule exited 2: {e}", case.name)),
            Err(e) => println!("{}: skipped, schedule cannot use it: {e}", case.name),
        }
    }
    assert!(
        bad.is_empty(),
        "explain and schedule disagree:\n{}",
        bad.join("\n")
    );
    compared
}

/// Every scenario under `examples/` (its manifests and inline objects) and the demo cluster.
#[test]
fn explain_agrees_with_schedule_on_the_documentation_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let root = repo_root().join("examples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .chain(std::fs::read_dir(root.join("demo")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    let cases: Vec<Case> = paths
        .iter()
        .map(|p| {
            scenario_case(p, dir.path()).unwrap_or_else(|| panic!("{}: unreadable", p.display()))
        })
        .collect();
    assert!(cases.len() > 10, "the examples are found");
    assert_agree(&cases, SAMPLE, true);
}

/// `repel generate --nodes 30 --pods 200`: pools, taints, priorities, workloads of every kind.
#[test]
fn explain_agrees_with_schedule_on_a_generated_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    for seed in ["1", "7"] {
        let out = dir.path().join(format!("seed-{seed}"));
        let args: Vec<String> = [
            "generate", "--nodes", "30", "--pods", "200", "--seed", seed, "-o",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.display().to_string()])
        .collect();
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "generate: {err}");
        cases.push(Case::from_files(&format!("generated seed {seed}"), vec![out]).unwrap());
    }
    assert_agree(&cases, 2 * SAMPLE, true);
}

/// The corpus files that hold nodes or pods. An absent corpus fails the test unless
/// `REPEL_SKIP_CORPUS_TESTS=1` says to skip it.
#[test]
fn explain_agrees_with_schedule_on_the_corpus() {
    let Some(corpus) = util::real_corpus() else {
        return;
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        })
        .collect();
    paths.sort();
    let cases: Vec<Case> = paths
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().to_string();
            let case = Case::from_files(&name, vec![p.clone()]);
            if case.is_none() {
                println!("{name}: skipped, not YAML this test can read");
            }
            case
        })
        .filter(|c| {
            c.objects
                .iter()
                .any(|o| o["kind"] == "Node" || o["kind"] == "Pod")
        })
        .collect();
    let compared = assert_agree(&cases, SAMPLE, false);
    // The corpus's files with nodes or pods that schedule can use (a floor, so a reader that
    // starts refusing them cannot pass by comparing nothing).
    assert!(compared >= 8, "only {compared} corpus files compared");
}
