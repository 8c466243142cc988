//! The `repel` binary run on files, as a user runs it: the JSON contract, exit codes, kubectl's
//! messages, and the human output (insta snapshots).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{self, json_out, repel, run};

mod explain;
mod input;
mod schedule;
mod simulate;
mod taint_admit;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn demo_cluster() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/demo/cluster.yaml")
        .display()
        .to_string()
}

fn node(name: &str, taints: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
           "spec": {"taints": taints}})
}

fn pod(name: &str, tolerations: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
           "spec": {"containers": [{"name": "app", "image": "nginx"}], "tolerations": tolerations}})
}

fn write_list(dir: &Path, name: &str, items: Vec<Value>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(
        &p,
        serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
            .unwrap(),
    )
    .unwrap();
    p
}

fn gpu_node(name: &str, gpus: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
           "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": gpus}}})
}

fn examples_dir() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .display()
        .to_string()
}
