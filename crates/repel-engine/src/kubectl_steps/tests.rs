//! kubectl steps: tokenising, flags, and each command's effect and exact output. The drain
//! cases port upstream's `TestDrain` table (kubectl `pkg/cmd/drain/drain_test.go`) and
//! `pkg/drain` filter rules.

#![allow(clippy::type_complexity)] // case tables are tuples, as upstream's are structs

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use serde_json::{Value, json};

use super::*;
use crate::cluster::PodPhase;

fn node(name: &str, labels: Value) -> Node {
    serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).expect("node")
}

/// A pod on `node` in `default`, running; `extra` is merged into its JSON (metadata/spec keys).
fn pod(name: &str, node: &str, extra: Value) -> Pod {
    let mut v = json!({
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]}
    });
    if let Value::Object(extra) = extra {
        for (section, fields) in extra {
            if let (Some(target), Value::Object(fields)) = (v.get_mut(&section), fields.clone()) {
                for (k, f) in fields {
                    target[k] = f;
                }
            } else {
                v[section] = fields;
            }
        }
    }
    serde_json::from_value(v).expect("pod")
}

fn owner(kind: &str) -> Value {
    json!({"metadata": {"ownerReferences": [
        {"apiVersion": "apps/v1", "kind": kind, "name": "owner", "uid": "u1", "controller": true}
    ]}})
}

fn merge(a: Value, b: Value) -> Value {
    let mut out = a;
    if let (Value::Object(o), Value::Object(b)) = (&mut out, b) {
        for (k, v) in b {
            match (o.get_mut(&k), v) {
                (Some(Value::Object(x)), Value::Object(y)) => x.extend(y),
                (_, v) => {
                    o.insert(k, v);
                }
            }
        }
    }
    out
}

const EMPTY_DIR: fn() -> Value =
    || json!({"spec": {"volumes": [{"name": "scratch", "emptyDir": {}}]}});

fn cluster_with(pods: Vec<Pod>) -> Cluster {
    let mut c = Cluster::new();
    c.add_node(node("node", json!({"zone": "a"})));
    c.add_node(node("other", json!({"zone": "b"})));
    for p in pods {
        let id = c.add_pod(p);
        c.pods[id].phase = PodPhase::Running;
    }
    c
}

fn run(line: &str, c: &mut Cluster) -> KubectlResult {
    run_kubectl(line, c, &FeatureGates::default())
}

fn live(c: &Cluster, name: &str) -> bool {
    c.pod_id("default", name).is_some()
}

#[test]
fn tokenizing_like_a_shell() {
    #[rustfmt::skip]
    let cases: &[(&str, &str, Result<&[&str], TokenizeError>)] = &[
        ("blanks separate words", "taint  nodes\tn1", Ok(&["taint", "nodes", "n1"])),
        ("single quotes keep blanks", "label nodes n1 'a=b c'", Ok(&["label", "nodes", "n1", "a=b c"])),
        ("double quotes keep blanks and escapes", r#"x "a \"b\" c""#, Ok(&["x", "a \"b\" c"])),
        ("quotes join adjacent text", "a'b c'd", Ok(&["ab cd"])),
        ("an empty quoted word stays", "a ''", Ok(&["a", ""])),
        ("a backslash escapes a blank", r"a\ b", Ok(&["a b"])),
        ("an unterminated quote is refused", "a 'b", Err(TokenizeError::UnterminatedQuote('\''))),
        ("a trailing backslash is refused", "a \\", Err(TokenizeError::TrailingBackslash)),
    ];
    for (name, line, want) in cases {
        let got = tokenize(line);
        let want = want
            .clone()
            .map(|w| w.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn go_duration_strings() {
    let cases = [
        (0, "0s"),
        (500, "500ms"),
        (5_000, "5s"),
        (60_000, "1m0s"),
        (90_000, "1m30s"),
        (3_600_000, "1h0m0s"),
        (1_500, "1.5s"),
    ];
    for (ms, want) in cases {
        assert_eq!(go_duration(ms), want, "{ms}");
    }
}

#[test]
fn commands_kubectl_does_not_know_or_repel_does_not_simulate() {
    let mut c = cluster_with(vec![]);
    #[rustfmt::skip]
    let cases: &[(&str, &str, &[&str])] = &[
        ("an unknown command is kubectl's error", "frobnicate nodes",
         &["error: unknown command \"frobnicate\" for \"kubectl\""]),
        ("a leading kubectl is optional", "kubectl frobnicate",
         &["error: unknown command \"frobnicate\" for \"kubectl\""]),
        ("a real command repel does not simulate names what it does", "get pods",
         &["error: repel: kubectl get is not simulated in scenario steps (supported: taint, cordon, uncordon, drain, label, delete, scale)"]),
        ("an unknown flag is pflag's error with kubectl's hint", "cordon node --frob",
         &["error: unknown flag: --frob", "See 'kubectl cordon --help' for usage."]),
        ("dry runs are refused", "drain node --dry-run=client",
         &["error: repel: --dry-run is not supported in scenario steps"]),
        ("an unterminated quote is refused", "label nodes node 'a=b",
         &["error: repel: cannot split the command line: unterminated ' quote"]),
    ];
    for (name, line, stderr) in cases {
        let r = run(line, &mut c);
        assert!(!r.ok, "{name}");
        assert_eq!(r.stderr, *stderr, "{name}");
        assert!(r.stdout.is_empty(), "{name}");
    }
}

#[test]
fn apply_lines_give_their_files() {
    assert_eq!(
        apply_files("kubectl apply -f a.yaml --filename=b.yaml -fc.yaml"),
        Some(vec![
            "a.yaml".to_string(),
            "b.yaml".to_string(),
            "c.yaml".to_string()
        ])
    );
    assert_eq!(apply_files("taint nodes n k=v:NoSchedule"), None);
    let mut c = cluster_with(vec![]);
    assert!(!run("apply -f x.yaml", &mut c).ok);
}

#[test]
fn cordon_and_uncordon() {
    #[rustfmt::skip]
    let cases: &[(&str, &[&str], bool, &[&str], &[&str], bool)] = &[
        // (name, lines run first, ok, stdout, stderr, node's unschedulable after)
        ("cordon marks the node unschedulable", &["cordon node"], true, &["node/node cordoned"], &[], true),
        ("cordon twice says already cordoned", &["cordon node", "cordon node"], true, &["node/node already cordoned"], &[], true),
        ("uncordon clears it", &["cordon node", "uncordon node"], true, &["node/node uncordoned"], &[], false),
        ("uncordon of a schedulable node says already uncordoned", &["uncordon node"], true, &["node/node already uncordoned"], &[], false),
        ("TYPE/NAME names a node", &["cordon nodes/node"], true, &["node/node cordoned"], &[], true),
        ("a selector picks nodes by label", &["cordon -l zone=a"], true, &["node/node cordoned"], &[], true),
        ("a missing node is NotFound and nothing changes", &["cordon node ghost"], false, &[],
         &["Error from server (NotFound): nodes \"ghost\" not found"], false),
        ("no node is a usage error", &["cordon"], false, &[],
         &["error: USAGE: cordon NODE [flags]", "See 'kubectl cordon -h' for help and examples"], false),
        ("a name and a selector is a usage error", &["cordon node -l zone=a"], false, &[],
         &["error: cannot specify both a node name and a --selector option", "See 'kubectl cordon -h' for help and examples"], false),
    ];
    for (name, lines, ok, stdout, stderr, after) in cases {
        let mut c = cluster_with(vec![]);
        let mut r = KubectlResult::default();
        for l in *lines {
            r = run(l, &mut c);
        }
        assert_eq!(r.ok, *ok, "{name}");
        assert_eq!(r.stdout, *stdout, "{name}");
        assert_eq!(r.stderr, *stderr, "{name}");
        assert_eq!(c.nodes[0].unschedulable, *after, "{name}");
        assert_eq!(
            c.nodes[0].node.spec.as_ref().and_then(|s| s.unschedulable),
            after.then_some(true),
            "{name}"
        );
    }
}

#[test]
fn taint_through_repel_core() {
    let mut c = cluster_with(vec![]);
    let r = run("taint nodes node key1=value1:NoExecute", &mut c);
    assert_eq!(
        (r.ok, r.stdout.clone()),
        (true, vec!["node/node tainted".to_string()])
    );
    assert_eq!(c.nodes[0].taints.len(), 1);
    assert_eq!(
        c.nodes[0].taints[0].time_added, None,
        "kubectl does not set timeAdded"
    );
    let r = run("taint nodes node key1=value2:NoExecute", &mut c);
    assert!(!r.ok);
    assert_eq!(
        r.stderr,
        ["error: node node already has key1 taint(s) with same effect(s) and --overwrite is false"]
    );
    let r = run("taint nodes node key1:NoExecute- ghost-node", &mut c);
    assert!(!r.ok);
    let r = run("taint nodes node ghost key1:NoExecute-", &mut c);
    assert_eq!(r.stdout, ["node/node untainted"]);
    assert_eq!(
        r.stderr,
        ["Error from server (NotFound): nodes \"ghost\" not found"]
    );
    assert!(c.nodes[0].taints.is_empty());
    let r = run("taint nodes node key1=:Bogus", &mut c);
    assert_eq!(
        r.stderr,
        [
            "error: invalid taint effect: Bogus, unsupported taint effect",
            "See 'kubectl taint -h' for help and examples"
        ]
    );
    let r = run("taint nodes --all dedicated=gpu:NoSchedule", &mut c);
    assert_eq!(r.stdout, ["node/node tainted", "node/other tainted"]);
}

#[test]
fn label_nodes_and_pods() {
    #[rustfmt::skip]
    let cases: &[(&str, &str, bool, &[&str], &[&str])] = &[
        ("adding a label", "label nodes node gpu=true", true, &["node/node labeled"], &[]),
        ("TYPE/NAME works", "label node/node gpu=true", true, &["node/node labeled"], &[]),
        ("the same value again is not labeled", "label nodes node zone=a", true, &["node/node not labeled"], &[]),
        ("a different value needs --overwrite", "label nodes node zone=b", false, &[],
         &["error: 'zone' already has a value (a), and --overwrite is false"]),
        ("--overwrite replaces it", "label nodes node zone=b --overwrite", true, &["node/node labeled"], &[]),
        ("removing a label", "label nodes node zone-", true, &["node/node unlabeled"], &[]),
        ("removing an absent label says so", "label nodes node nope-", true,
         &["label \"nope\" not found.", "node/node not labeled"], &[]),
        ("adding and removing", "label nodes node zone- gpu=true", true, &["node/node label(s) changed"], &[]),
        ("a pod in a namespace", "label pods web -n default tier=front", true, &["pod/web labeled"], &[]),
        ("a missing pod", "label pods ghost x=y", false, &[], &["Error from server (NotFound): pods \"ghost\" not found"]),
        ("a bad value", "label nodes node x=a!", false, &[],
         &["error: invalid label value: \"x=a!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]),
        ("a bad key is the API server's refusal, printed without error:", "label nodes node 'bad key!=a'", false, &[],
         &["The Node \"node\" is invalid: metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]),
        ("a flag-like pair is pflag's", "label nodes node -x=a", false, &[],
         &["error: unknown shorthand flag: 'x' in -x=a", "See 'kubectl label --help' for usage."]),
        ("a resource after a pair", "label nodes node a=b other", false, &[],
         &["error: all resources must be specified before label changes: other"]),
        ("setting and removing one key", "label nodes node a=b a-", false, &[],
         &["error: can not both modify and remove a label in the same command"]),
        ("no change", "label nodes node", false, &[], &["error: at least one label update is required"]),
        ("no resource", "label a=b", false, &[],
         &["error: one or more resources must be specified as <resource> <name> or <resource>/<name>"]),
        ("an unknown resource type", "label widgets w a=b", false, &[],
         &["error: the server doesn't have a resource type \"widgets\""]),
    ];
    for (name, line, ok, stdout, stderr) in cases {
        let mut c = cluster_with(vec![pod("web", "node", json!({}))]);
        let r = run(line, &mut c);
        assert_eq!(r.ok, *ok, "{name}: {r:?}");
        assert_eq!(r.stdout, *stdout, "{name}");
        assert_eq!(r.stderr, *stderr, "{name}");
    }
}

#[test]
fn labelling_a_node_keeps_the_label_index_current() {
    let mut c = cluster_with(vec![pod("web", "node", json!({}))]);
    assert!(run("label nodes other gpu=true", &mut c).ok);
    assert_eq!(c.nodes_with_label("gpu", "true"), &[1]);
    assert_eq!(
        c.nodes[1].labels.get("gpu").map(String::as_str),
        Some("true")
    );
    assert_eq!(c.nodes[0].pods, vec![0], "pods stay on their node");
    assert!(run("label nodes other gpu-", &mut c).ok);
    assert!(c.nodes_with_label("gpu", "true").is_empty());
    assert!(run("label pods web tier=front", &mut c).ok);
    assert_eq!(
        c.pods[0].labels().get("tier").map(String::as_str),
        Some("front")
    );
}

#[test]
fn delete_pods_and_nodes() {
    let mut c = cluster_with(vec![
        pod("a", "node", json!({})),
        pod("b", "other", json!({})),
    ]);
    let r = run("delete pod a", &mut c);
    assert_eq!(
        (r.ok, r.stdout.clone(), r.deleted.clone()),
        (true, vec!["pod \"a\" deleted".to_string()], vec![0])
    );
    assert!(!live(&c, "a"));
    let r = run("delete pod a", &mut c);
    assert_eq!(
        r.stderr,
        ["Error from server (NotFound): pods \"a\" not found"]
    );
    assert!(run("delete pod a --ignore-not-found", &mut c).ok);
    let r = run("delete node node", &mut c);
    assert_eq!(
        (r.stdout.clone(), r.deleted_nodes.clone()),
        (
            vec!["node \"node\" deleted".to_string()],
            vec!["node".to_string()]
        )
    );
    assert_eq!(r.deleted_node_ids, vec![0]);
    assert_eq!(c.nodes.len(), 1);
    assert_eq!(c.node_id("other"), Some(0));
    assert_eq!(c.pods[1].node, Some(0), "b follows its node's new id");
    assert_eq!(c.nodes[0].pods, vec![1]);
    let r = run("delete pod b --force", &mut c);
    assert_eq!(r.stderr, [simple::FORCE_DELETE_WARNING]);
    assert_eq!(r.stdout, ["pod \"b\" force deleted"]);
    let r = run("delete", &mut c);
    assert_eq!(
        r.stderr[0],
        "error: You must provide one or more resources by argument or filename."
    );
}

#[test]
fn deleting_a_node_leaves_its_pods_to_the_pod_garbage_collector() {
    let mut c = cluster_with(vec![pod("a", "node", json!({}))]);
    let r = run("delete nodes/node", &mut c);
    assert!(r.deleted.is_empty(), "{r:?}");
    assert_eq!(r.deleted_node_ids, vec![0]);
    assert!(live(&c, "a"), "upstream's PodGC deletes it after 40 s");
    assert_eq!(c.pods[0].node, None);
    assert_eq!(c.orphans(), vec![0]);
}

mod drain;

/// Budget `name` over `app=web`, with `status.disruptionsAllowed` when given.
fn pdb(name: &str, allowed: Option<i32>, spec: Value) -> PodDisruptionBudget {
    let mut v = json!({
        "metadata": {"name": name, "namespace": "default"},
        "spec": merge(json!({"selector": {"matchLabels": {"app": "web"}}}), spec),
    });
    if let Some(a) = allowed {
        v["status"] = json!({"disruptionsAllowed": a, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0});
    }
    serde_json::from_value(v).expect("pdb")
}
