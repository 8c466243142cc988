//! `repel generate --shape` and `repel bench` (generated clusters and `-f`), run as a user
//! runs them. Speed is never asserted: only that each phase is reported and agrees with the
//! commands it stands for.

use std::path::Path;

use serde_json::Value;

use crate::util::run;

/// Runs repel with `args`, returning (exit code, stdout, stderr).
fn json_out(args: &[&str]) -> Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}\n{err}"))
}

fn generate(dir: &Path, shape: &str, nodes: &str, pods: &str) {
    let (code, _, err) = run(&[
        "generate",
        "--shape",
        shape,
        "--nodes",
        nodes,
        "--pods",
        pods,
        "--seed",
        "4",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

fn secs(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not seconds: {v}"))
}

#[test]
fn generate_large_workloads_is_deterministic_and_schedulable() {
    let args = [
        "generate",
        "--shape",
        "large-workloads",
        "--nodes",
        "40",
        "--pods",
        "1200",
    ];
    let (code, a, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let (_, b, _) = run(&args);
    assert_eq!(a, b, "the same seed gives the same manifests");
    assert!(a.contains("kind: Deployment") && a.contains("kind: DaemonSet"));
    let (_, default, _) = run(&["generate", "--nodes", "40", "--pods", "1200"]);
    let (_, named, _) = run(&[
        "generate", "--shape", "default", "--nodes", "40", "--pods", "1200",
    ]);
    assert_eq!(default, named, "--shape default is the default");
    assert_ne!(default, a, "the shapes differ");

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gen");
    generate(&out, "large-workloads", "40", "1200");
    let v = json_out(&[
        "schedule",
        "-f",
        out.to_str().unwrap(),
        "-o",
        "json",
        "--percentage-of-nodes-to-score",
        "100",
    ]);
    let placed = v["placements"].as_array().unwrap().len();
    let pending = v["unschedulable"].as_array().unwrap();
    assert_eq!(
        placed + pending.len(),
        1200,
        "every pod placed or explained"
    );
    assert!(!pending.is_empty(), "the GPU pods beyond the GPUs wait");
    for p in pending {
        let pod = p["pod"].as_str().unwrap();
        let message = p["message"].as_str().unwrap();
        assert!(pod.starts_with("ml/"), "only GPU pods wait: {p}");
        assert!(message.contains("Insufficient nvidia.com/gpu"), "{p}");
    }
}

#[test]
fn generate_refuses_an_unknown_shape() {
    let (code, _, err) = run(&["generate", "--shape", "huge"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("default") && err.contains("large-workloads"),
        "{err}"
    );
}

/// Each phase's fields, and their sum.
fn assert_phases(v: &Value) {
    let p = &v["phases"];
    let parts = [
        "parse_seconds",
        "build_seconds",
        "schedule_seconds",
        "output_seconds",
    ];
    let sum: f64 = parts.iter().map(|f| secs(&p[*f])).sum();
    let total = secs(&p["end_to_end_seconds"]);
    assert!((sum - total).abs() < 1e-6, "end to end is the sum: {p}");
    assert!(n(&p["input_bytes"]) > 0 && n(&p["output_bytes"]) > 0, "{p}");
    assert!(n(&p["peak_rss_bytes"]) > 0, "{p}");
    assert_eq!(
        n(&p["placed"]) + n(&p["unschedulable"]),
        n(&v["pods"]),
        "every pod placed or explained: {v}"
    );
}

/// `bench -f` reads the files as `schedule -f` does, and its output phase renders the same
/// JSON as `repel schedule -o json` (the same bytes).
#[test]
fn bench_on_files_times_each_phase_of_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let cluster_dir = dir.path().join("cluster").join("gen");
    generate(&cluster_dir, "large-workloads", "30", "900");
    let cluster_dir = cluster_dir.to_str().unwrap();
    let v = json_out(&["bench", "-f", cluster_dir, "-q", "-o", "json"]);
    assert_eq!(v["source"], "files");
    assert_eq!(v["shape"], Value::Null);
    assert_eq!(n(&v["nodes"]), 30);
    assert_eq!(n(&v["pods"]), 900);
    assert_phases(&v);
    assert_eq!(v["phases"]["placed"], v["scheduled"], "{v}");
    assert_eq!(
        v["phases"]["schedule_seconds"], v["schedule_seconds"],
        "{v}"
    );
    assert_eq!(v["phases"]["build_seconds"], v["load_seconds"], "{v}");
    for field in [
        "adaptive_schedule_seconds",
        "eviction_plan_seconds",
        "explain_seconds",
    ] {
        assert!(v[field].as_f64().is_some(), "{field}: {v}");
    }
    let (code, schedule, err) = run(&[
        "schedule",
        "-f",
        cluster_dir,
        "-o",
        "json",
        "--seed",
        "1",
        "--percentage-of-nodes-to-score",
        "100",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        n(&v["phases"]["output_bytes"]),
        schedule.len() as u64,
        "the output phase renders what repel schedule prints"
    );

    // -R and several -f, as other commands take them.
    let parent = dir.path().join("cluster");
    let r = json_out(&[
        "bench",
        "-R",
        "-f",
        parent.to_str().unwrap(),
        "-q",
        "-o",
        "json",
    ]);
    assert_eq!(r["pods"], v["pods"], "-R reads the subdirectory");
    let files: Vec<String> = ["priorityclasses.yaml", "nodes.yaml", "workloads.yaml"]
        .iter()
        .map(|f| Path::new(cluster_dir).join(f).display().to_string())
        .collect();
    let mut args = vec!["bench", "-q", "-o", "json"];
    for f in &files {
        args.extend(["-f", f.as_str()]);
    }
    let m = json_out(&args);
    assert_eq!(m["scheduled"], v["scheduled"], "-f repeated");

    let (code, table, err) = run(&["bench", "-f", cluster_dir, "-q"]);
    assert_eq!(code, 0, "{err}");
    for row in [
        "pipeline: parse",
        "pipeline: build",
        "pipeline: schedule",
        "pipeline: output",
        "pipeline: end to end",
    ] {
        assert!(table.contains(row), "{row}: {table}");
    }
}

/// A live cluster's snapshot holds bound pods only: the schedule row says there was no pending
/// pod instead of a rate of 0 pods/s, and the rest is timed as for any files.
#[test]
fn bench_on_a_snapshot_of_bound_pods_says_no_pod_was_pending() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("snapshot.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n\
         status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n---\n\
         apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: default}\n\
         spec: {nodeName: n1, containers: [{name: c, image: nginx}]}\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let v = json_out(&["bench", "-f", f, "-q", "-o", "json"]);
    assert_eq!((n(&v["pods"]), n(&v["scheduled"])), (1, 0), "{v}");
    let (code, table, err) = run(&["bench", "-f", f, "-q"]);
    assert_eq!(code, 0, "{err}");
    let row = table
        .lines()
        .find(|l| l.starts_with("schedule, every node scored"))
        .unwrap_or_default();
    assert!(row.ends_with("s (no pending pod)"), "{table}");
    let generated = run(&["bench", "--nodes", "20", "--pods", "300", "-q"]).1;
    assert!(generated.contains("pods/s)"), "{generated}");
}

#[test]
fn bench_on_a_generated_cluster_times_the_pipeline_from_yaml() {
    for shape in ["default", "large-workloads"] {
        let v = json_out(&[
            "bench", "--nodes", "20", "--pods", "300", "--shape", shape, "-q", "-o", "json",
        ]);
        assert_eq!(v["source"], "generated", "{shape}");
        assert_eq!(v["shape"], shape);
        assert_eq!(n(&v["pods"]), 300, "{shape}");
        assert!(secs(&v["write_yaml_seconds"]) >= 0.0);
        assert_phases(&v);
        assert_eq!(
            v["phases"]["placed"], v["scheduled"],
            "{shape}: the cluster read back from YAML places what the objects did"
        );
    }
}

#[test]
fn bench_refuses_files_with_generator_options() {
    let (code, _, err) = run(&["bench", "-f", "x.yaml", "--nodes", "10"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot be used with"), "{err}");
    let (code, _, err) = run(&["bench", "-f", "/nonexistent/cluster.yaml", "-q"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/cluster.yaml"), "{err}");
}
