//! `repel bench` times `repel schedule`'s own pipeline: on the same input, the placements it
//! renders are the ones `repel schedule --percentage-of-nodes-to-score 100 -o json` prints.

use super::*;
use crate::output::write_machine;
use crate::schedule_pipeline::{self, NoObserver};

/// Two nodes, one tainted, and a Deployment whose pods' names are drawn from the seed.
const CLUSTER: &str = r#"
apiVersion: v1
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: b}
spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]}
"#;

fn parse(argv: &[&str]) -> crate::Command {
    match <crate::Cli as clap::Parser>::try_parse_from(argv) {
        Ok(cli) => cli.command,
        Err(e) => panic!("{argv:?}: {e}"),
    }
}

fn placements(json: &[u8]) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(json).unwrap_or_default();
    v["placements"].clone()
}

#[test]
fn bench_renders_the_placements_schedule_prints() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("cluster.yaml");
    std::fs::write(&file, CLUSTER).unwrap_or_else(|e| panic!("{e}"));
    let f = file.to_str().unwrap_or_default();
    for seed in ["1", "7"] {
        let crate::Command::Schedule(schedule) = parse(&[
            "repel",
            "schedule",
            "-f",
            f,
            "--percentage-of-nodes-to-score",
            "100",
            "--seed",
            seed,
            "-o",
            "json",
        ]) else {
            panic!("not schedule");
        };
        let mut printed = Vec::new();
        schedule_pipeline::run(
            &schedule.cluster,
            "schedule",
            schedule.reference,
            &mut NoObserver,
            |r| {
                // As `repel schedule -o json` prints it (print_machine), into a buffer.
                let _ = write_machine(&r, Format::Json, &mut printed);
                Ok(())
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let crate::Command::Bench(bench) = parse(&["repel", "bench", "-f", f, "--seed", seed])
        else {
            panic!("not bench");
        };
        let cluster = cluster_args(
            &bench.files,
            bench.recursive,
            bench.feature_gates,
            &bench,
            true,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let run =
            pipeline::run(&cluster, bench.reference, &|_| {}).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            placements(&run.json).as_array().map(Vec::len),
            Some(3),
            "seed {seed}"
        );
        assert_eq!(placements(&run.json), placements(&printed), "seed {seed}");
        assert_eq!(run.json, printed, "seed {seed}");
    }
}
