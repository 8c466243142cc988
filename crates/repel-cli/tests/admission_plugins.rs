//! `--enable-admission-plugins ExtendedResourceToleration`: the binary on temp files. A GPU pod
//! stays Pending on a GPU node tainted `nvidia.com/gpu:NoSchedule` without the plugin (off by
//! default, as upstream) and is placed with it, through `admit`, `schedule`, `explain`, and a
//! scenario's `enableAdmissionPlugins` through `test`. PodTolerationRestriction is off by
//! default too, as in stock kube-apiserver; pods a cluster already stored are not admitted again.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{json_out, run};

const FLAG: &str = "--enable-admission-plugins";
const ERT: &str = "ExtendedResourceToleration";

fn gpu_node() -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": "gpu-node", "labels": {"kubernetes.io/hostname": "gpu-node"}},
           "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]},
           "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "1"}}})
}

fn gpu_pod() -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trainer", "namespace": "default"},
           "spec": {"containers": [{"name": "cuda", "image": "cuda",
                    "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}})
}

fn cluster(dir: &Path) -> PathBuf {
    let p = dir.join("cluster.json");
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [gpu_node(), gpu_pod()]});
    std::fs::write(&p, list.to_string()).unwrap();
    p
}

fn gpu_toleration() -> Value {
    json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"})
}

#[test]
fn schedule_places_the_gpu_pod_only_with_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let f = cluster(dir.path());
    let f = f.to_str().unwrap();
    let (code, off) = json_out(&["schedule", "-f", f, "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(off["placements"], json!([]), "off by default: {off}");
    let message = off["unschedulable"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("1 node(s) had untolerated taint(s)"),
        "Pending for the taint: {message}"
    );
    let (code, on) = json_out(&["schedule", "-f", f, "-o", "json", FLAG, ERT]);
    assert_eq!(code, 0);
    assert_eq!(
        on["placements"],
        json!([{"pod": "default/trainer", "node": "gpu-node"}]),
        "placed with the plugin: {on}"
    );
    // EKS (since 1.19) and GKE run the plugin; AKS and kubeadm run stock kube-apiserver's set.
    for (preset, placed) in [
        ("eks", true),
        ("gke", true),
        ("aks", false),
        ("kubeadm", false),
    ] {
        let (code, v) = json_out(&[
            "schedule",
            "-f",
            f,
            "-o",
            "json",
            "--admission-preset",
            preset,
        ]);
        assert_eq!(code, 0, "{preset}");
        assert_eq!(
            v["placements"].as_array().unwrap().len(),
            usize::from(placed),
            "{preset}: {v}"
        );
    }
    // A preset's plugin can still be turned off by the flag.
    let (_, v) = json_out(&[
        "schedule",
        "-f",
        f,
        "-o",
        "json",
        "--admission-preset",
        "eks",
        "--disable-admission-plugins",
        ERT,
    ]);
    assert_eq!(v["placements"], json!([]), "{v}");
    let (code, _, err) = run(&["schedule", "-f", f, "--admission-preset", "openshift"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn admit_prints_the_added_toleration() {
    let dir = tempfile::tempdir().unwrap();
    let f = cluster(dir.path());
    let f = f.to_str().unwrap();
    let tolerations = |v: &Value| v["items"][0]["spec"]["tolerations"].clone();
    let (code, off) = json_out(&["admit", "-f", f, "-o", "json"]);
    assert_eq!(code, 0);
    assert!(
        !tolerations(&off)
            .as_array()
            .unwrap()
            .contains(&gpu_toleration()),
        "off by default: {off}"
    );
    let (code, on) = json_out(&["admit", "-f", f, "-o", "json", FLAG, ERT]);
    assert_eq!(code, 0);
    assert_eq!(
        tolerations(&on).as_array().unwrap().last(),
        Some(&gpu_toleration()),
        "added last, after DefaultTolerationSeconds' two: {on}"
    );
    let (code, yaml, _) = run(&["admit", "-f", f, &format!("{FLAG}={ERT}")]);
    assert_eq!(code, 0);
    assert!(
        yaml.contains("key: nvidia.com/gpu"),
        "the YAML output shows it: {yaml}"
    );
}

#[test]
fn explain_judges_the_admitted_pod() {
    let dir = tempfile::tempdir().unwrap();
    let f = cluster(dir.path());
    let f = f.to_str().unwrap();
    let (_, on) = json_out(&["explain", "trainer", "-f", f, "-o", "json", FLAG, ERT]);
    assert!(
        on["tolerations"]
            .as_array()
            .unwrap()
            .contains(&gpu_toleration()),
        "explain evaluates the toleration the plugin added: {on}"
    );
    let (_, off) = json_out(&["explain", "trainer", "-f", f, "-o", "json"]);
    assert!(
        !off["tolerations"]
            .as_array()
            .unwrap()
            .contains(&gpu_toleration()),
        "and not without it: {off}"
    );
}

#[test]
fn unknown_plugins_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = cluster(dir.path());
    let f = f.to_str().unwrap();
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<&str>, &str)> = vec![
        ("a misspelt plugin, with kube-apiserver's message",
            vec!["schedule", "-f", f, FLAG, "ExtendedResourceTolerations"],
            "error: enable-admission-plugins plugin \"ExtendedResourceTolerations\" is unknown\n"),
        ("a plugin both enabled and disabled",
            vec!["admit", "-f", f, FLAG, ERT, "--disable-admission-plugins", ERT],
            "error: [ExtendedResourceToleration] in enable-admission-plugins and disable-admission-plugins overlapped\n"),
        ("an unknown disabled plugin",
            vec!["explain", "trainer", "-f", f, "--disable-admission-plugins", "Nope"],
            "error: disable-admission-plugins plugin \"Nope\" is unknown\n"),
    ];
    for (name, args, want) in cases {
        let (code, _, err) = run(&args);
        assert_eq!((code, err.as_str()), (2, want), "{name}");
    }
}

#[test]
fn an_upstream_plugin_repel_does_not_model_is_accepted_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let f = cluster(dir.path());
    let (code, _, err) = run(&[
        "schedule",
        "-f",
        f.to_str().unwrap(),
        FLAG,
        "NodeRestriction,ExtendedResourceToleration",
    ]);
    assert_eq!(code, 0);
    assert!(
        err.contains("warning: admission plugin NodeRestriction is not modelled by repel"),
        "{err}"
    );
}

#[test]
fn scenarios_enable_the_plugin_and_the_command_line_overrides_them() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = |enable: bool| {
        let mut s = json!({"kind": "Scenario", "objects": [gpu_node(), gpu_pod()], "until": "1m",
            "expect": [{"pod": "default/trainer", "phase": "Running", "node": "gpu-node"}]});
        if enable {
            s["enableAdmissionPlugins"] = json!([ERT]);
        }
        s
    };
    let on = dir.path().join("on.json");
    std::fs::write(&on, scenario(true).to_string()).unwrap();
    let off = dir.path().join("off.json");
    std::fs::write(&off, scenario(false).to_string()).unwrap();
    let (on, off) = (on.to_str().unwrap(), off.to_str().unwrap());

    let (code, out, err) = run(&["test", on]);
    assert_eq!(code, 0, "the scenario's enableAdmissionPlugins: {out}{err}");
    let (code, out, _) = run(&["test", off]);
    assert_eq!(code, 1, "without it the pod stays Pending: {out}");
    assert!(out.contains("FAIL"), "{out}");
    let (code, out, err) = run(&["test", off, FLAG, ERT]);
    assert_eq!(code, 0, "the flag turns it on: {out}{err}");
    let (code, _, _) = run(&["test", on, "--disable-admission-plugins", ERT]);
    assert_eq!(code, 1, "the flag overrides the scenario");
    let (code, v) = json_out(&["simulate", off, "-o", "json", FLAG, ERT]);
    assert_eq!(code, 0);
    assert_eq!(
        v["final"]["pods"][0]["node"], "gpu-node",
        "simulate takes the flag too: {v}"
    );
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// A Burstable pod (a memory request) on an untainted node.
fn burstable_cluster(dir: &Path) -> PathBuf {
    let p = dir.join("burstable.json");
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"},
                      "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
                     "spec": {"containers": [{"name": "c", "image": "nginx",
                              "resources": {"requests": {"memory": "64Mi"}}}]}});
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [node, pod]});
    std::fs::write(&p, list.to_string()).unwrap();
    p
}

#[test]
fn pod_toleration_restriction_is_off_as_in_stock_kube_apiserver() {
    let dir = tempfile::tempdir().unwrap();
    let f = burstable_cluster(dir.path());
    let f = f.to_str().unwrap();
    let keys = |v: &Value| -> Vec<String> {
        v["items"][0]["spec"]["tolerations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["key"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let (code, stock) = json_out(&["admit", "-f", f, "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(
        keys(&stock),
        [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable"
        ]
    );
    let (code, on) = json_out(&[
        "admit",
        "-f",
        f,
        "-o",
        "json",
        FLAG,
        "PodTolerationRestriction",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        keys(&on),
        [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
            "node.kubernetes.io/memory-pressure"
        ]
    );
    // explain names the plugin that added each toleration.
    let (code, r) = json_out(&[
        "explain",
        "default/web",
        "-f",
        f,
        "-o",
        "json",
        FLAG,
        "PodTolerationRestriction",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        r["addedBy"],
        json!([
            "DefaultTolerationSeconds",
            "DefaultTolerationSeconds",
            "PodTolerationRestriction"
        ])
    );
    let (_, out, _) = run(&[
        "explain",
        "default/web",
        "-f",
        f,
        FLAG,
        "PodTolerationRestriction",
    ]);
    assert!(
        out.contains("(added by PodTolerationRestriction)")
            && out.contains("(added by DefaultTolerationSeconds)")
            && !out.contains("added by admission"),
        "{out}"
    );
}

#[test]
fn pods_a_cluster_already_stored_are_not_admitted_again() {
    // kindnet has a keyless Exists beside the DaemonSet controller's seven tolerations; coredns
    // is Burstable with no memory-pressure toleration. Both are served back as they are stored,
    // whatever admission plugins are on.
    let f = fixture("kind-1.35-pods.yaml");
    let text = std::fs::read_to_string(&f).unwrap();
    let want: Value =
        serde_json::to_value(serde_saphyr::from_str::<Value>(&text).unwrap()["items"].clone())
            .unwrap();
    for flags in [
        vec![],
        vec![FLAG, "PodTolerationRestriction,ExtendedResourceToleration"],
    ] {
        let mut args = vec!["admit", "-f", &f, "-o", "json"];
        args.extend(flags.iter().copied());
        let (code, got) = json_out(&args);
        assert_eq!(code, 0, "{flags:?}");
        let items = got["items"].as_array().unwrap();
        assert_eq!(items.len(), 2);
        for (got, want) in items.iter().zip(want.as_array().unwrap()) {
            assert_eq!(
                got["spec"]["tolerations"], want["spec"]["tolerations"],
                "{}: {flags:?}",
                want["metadata"]["name"]
            );
        }
        assert_eq!(items[1]["spec"]["tolerations"].as_array().unwrap().len(), 8);
    }
    let (code, r) = json_out(&[
        "explain",
        "kube-system/kindnet-zkpn8",
        "-f",
        &f,
        "-o",
        "json",
        FLAG,
        "PodTolerationRestriction",
    ]);
    assert_eq!(code, 0);
    assert_eq!(r["tolerations"].as_array().unwrap().len(), 8);
    assert_eq!(
        r["addedBy"],
        json!([null, null, null, null, null, null, null, null])
    );
}
