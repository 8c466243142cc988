//! Writes through the real kubectl: create/apply/delete, admission and validation (422 with
//! upstream's text), AlreadyExists, NotFound.

use crate::util;

use crate::util::{have_kubectl, node, start};
use serde_json::json;

const POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  containers:
  - name: nginx
    image: nginx:1.26
";

#[test]
fn create_with_an_invalid_toleration_prints_upstreams_422() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let bad = s.write(
        "bad.yaml",
        "apiVersion: v1
kind: Pod
metadata:
  name: bad
spec:
  containers:
  - name: app
    image: nginx
  tolerations:
  - key: dedicated
    operator: Exists
    value: gpu
    effect: NoSchedule
  - key: other
    operator: Equal
    value: x
    effect: NoRun
",
    );
    let o = s.kubectl(&["create", "-f", &bad]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert_eq!(
        o.stderr,
        "The Pod \"bad\" is invalid: \n\
         * spec.tolerations[0].operator: Invalid value: \"gpu\": value must be empty when `operator` is 'Exists'\n\
         * spec.tolerations[1].effect: Unsupported value: \"NoRun\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"\n"
    );
    assert!(s.get("pods", "default", "bad").is_none());

    let one = s.write(
        "one.yaml",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: node9\nspec:\n  taints:\n  - key: a\n    effect: NoRun\n",
    );
    let o = s.kubectl(&["create", "-f", &one]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        "The Node \"node9\" is invalid: metadata.taints[0].effect: Unsupported value: \"NoRun\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"\n"
    );
}

#[test]
fn create_twice_is_already_exists_and_admission_adds_tolerations() {
    if !have_kubectl() {
        return;
    }
    // PodTolerationRestriction is off in stock kube-apiserver: this server enables it, as
    // `repel serve --enable-admission-plugins PodTolerationRestriction` does.
    let mut cfg = util::config(vec![node("node1", json!(null))], 600.0);
    cfg.admission.config.pod_toleration_restriction =
        Some(repel_core::defaults::PodTolerationRestrictionConfig::default());
    let s = util::start_config(cfg, util::runtime());
    let f = s.write(
        "node.yaml",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: node3\n  labels:\n    kubernetes.io/hostname: node3\nspec:\n  taints:\n  - key: dedicated\n    value: gpu\n    effect: NoSchedule\n",
    );
    let o = s.kubectl(&["create", "-f", &f]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "node/node3 created\n"),
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["create", "-f", &f]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        format!(
            "Error from server (AlreadyExists): error when creating \"{f}\": nodes \"node3\" already exists\n"
        )
    );

    // PodTolerationRestriction: the namespace's default tolerations join the pod's;
    // DefaultTolerationSeconds adds the two 300 s NoExecute ones.
    let ns = s.write(
        "ns.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: gpu\n  annotations:\n    scheduler.alpha.kubernetes.io/defaultTolerations: '[{\"key\": \"dedicated\", \"operator\": \"Equal\", \"value\": \"gpu\", \"effect\": \"NoSchedule\"}]'\n",
    );
    let o = s.kubectl(&["create", "-f", &ns]);
    assert_eq!(o.stdout, "namespace/gpu created\n", "{}", o.stderr);
    let p = s.write("pod.yaml", POD);
    let o = s.kubectl(&["create", "-n", "gpu", "-f", &p]);
    assert_eq!(o.stdout, "pod/nginx created\n", "{}", o.stderr);
    let pod = s.get("pods", "gpu", "nginx").unwrap();
    let keys: Vec<String> = pod["spec"]["tolerations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            format!(
                "{}:{}:{}",
                t["key"].as_str().unwrap(),
                t["effect"].as_str().unwrap(),
                t["tolerationSeconds"]
            )
        })
        .collect();
    assert_eq!(
        keys,
        vec![
            "node.kubernetes.io/not-ready:NoExecute:300",
            "node.kubernetes.io/unreachable:NoExecute:300",
            "dedicated:NoSchedule:null",
        ]
    );
    let o = s.kubectl(&["create", "-n", "nope", "-f", &p]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        format!(
            "Error from server (NotFound): error when creating \"{p}\": namespaces \"nope\" not found\n"
        )
    );
}

#[test]
fn apply_creates_configures_and_leaves_unchanged_then_delete() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let p = s.write("pod.yaml", POD);
    let o = s.kubectl(&["apply", "-f", &p]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "pod/nginx created\n"),
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["apply", "-f", &p]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "pod/nginx unchanged\n"),
        "{}",
        o.stderr
    );
    s.write(
        "pod.yaml",
        &POD.replace("nginx:1.26", "nginx:1.27")
            .replace("    app: nginx\n", "    app: nginx\n    tier: web\n"),
    );
    let o = s.kubectl(&["apply", "-f", &p]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "pod/nginx configured\n"),
        "{}",
        o.stderr
    );
    let pod = s.get("pods", "default", "nginx").unwrap();
    assert_eq!(pod["spec"]["containers"][0]["image"], "nginx:1.27");
    assert_eq!(pod["metadata"]["labels"]["tier"], "web");
    assert_eq!(pod["spec"]["containers"].as_array().unwrap().len(), 1);
    assert!(
        !pod.to_string().contains("$setElementOrder"),
        "directives are never stored"
    );

    let o = s.kubectl(&["delete", "pod", "nginx"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "pod \"nginx\" deleted\n"),
        "{}",
        o.stderr
    );
    assert!(s.get("pods", "default", "nginx").is_none());
    let o = s.kubectl(&["delete", "pod", "nginx"]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        "Error from server (NotFound): pods \"nginx\" not found\n"
    );
}

#[test]
fn strict_field_validation_refuses_unknown_fields_and_selectors_filter() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![
        node("node1", json!(null)),
        node("node2", json!(null)),
        util::pod("default", "a", Some("node1")),
        util::pod("default", "b", Some("node2")),
    ]);
    let f = s.write("foo.yaml", &POD.replace("spec:\n", "spec:\n  foo: 1\n"));
    let o = s.kubectl(&["create", "-f", &f]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        format!(
            "Error from server (BadRequest): error when creating \"{f}\": Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.foo\"\n"
        )
    );
    let o = s.kubectl(&["create", "--validate=false", "-f", &f]);
    assert_eq!(o.stdout, "pod/nginx created\n", "{}", o.stderr);
    assert!(
        s.get("pods", "default", "nginx").unwrap()["spec"]
            .get("foo")
            .is_none(),
        "unknown fields are dropped"
    );

    let o = s.kubectl(&[
        "get",
        "pods",
        "--field-selector",
        "spec.nodeName=node1",
        "-o",
        "name",
    ]);
    let mut on1: Vec<String> = s
        .app
        .store
        .list("pods", None)
        .0
        .iter()
        .filter(|p| p["spec"]["nodeName"] == "node1")
        .map(|p| format!("pod/{}\n", p["metadata"]["name"].as_str().unwrap()))
        .collect();
    on1.sort();
    assert!(on1.contains(&"pod/a\n".to_string()) && !on1.contains(&"pod/b\n".to_string()));
    assert_eq!((o.code, o.stdout), (0, on1.concat()), "{}", o.stderr);
    let o = s.kubectl(&["get", "pods", "-l", "app=nginx", "-o", "name"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "pod/nginx\n"),
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["get", "pods", "-l", "app notin (nginx)", "-o", "name"]);
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (0, "pod/a\npod/b\n"),
        "{}",
        o.stderr
    );
    let o = s.kubectl(&["get", "pods", "--field-selector", "spec.foo=x"]);
    assert_eq!(o.code, 1);
    assert_eq!(
        o.stderr,
        "Error from server (BadRequest): Unable to find \"/v1, Resource=pods\" that match label selector \"\", field selector \"spec.foo=x\": field label not supported: spec.foo\n"
    );
}

#[test]
fn a_deployment_whose_selector_misses_its_template_gets_upstreams_422() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let f = s.write(
        "web.yaml",
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: other
    spec:
      containers:
      - name: nginx
        image: nginx
",
    );
    let o = s.kubectl(&["apply", "-f", &f]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert_eq!(
        o.stderr.trim_end(),
        format!(
            "The Deployment \"web\" is invalid: spec.template.metadata.labels: Invalid value: {{\"app\":\"other\"}}: `selector` does not match template `labels`"
        )
    );
    assert!(s.get("deployments", "default", "web").is_none());
    // A Job's template must not restart Always.
    let j = s.write(
        "job.yaml",
        "apiVersion: batch/v1
kind: Job
metadata:
  name: once
spec:
  template:
    spec:
      restartPolicy: Always
      containers:
      - name: c
        image: busybox
",
    );
    let o = s.kubectl(&["create", "-f", &j]);
    assert_eq!(o.code, 1, "{}", o.stdout);
    assert!(
        o.stderr.contains(
            "spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\""
        ),
        "{}",
        o.stderr
    );
}
