//! What kube-apiserver's defaulting and the Job strategy store, seen through kubectl: a pod's
//! and a template's `SetDefaults_PodSpec`/`_Container` fields, a Job's generated
//! `controller-uid` selector and labels, and a finished Job's v1.32 conditions.

use crate::util::{have_kubectl, node, start};
use serde_json::{Value, json};

#[test]
fn pods_and_templates_carry_upstreams_defaults() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    s.kubectl_ok(&["run", "p", "--image=nginx", "--port=80"]);
    let p = s.get("pods", "default", "p").unwrap();
    let spec = &p["spec"];
    for (field, want) in [
        ("dnsPolicy", json!("ClusterFirst")),
        ("restartPolicy", json!("Always")),
        ("schedulerName", json!("default-scheduler")),
        ("terminationGracePeriodSeconds", json!(30)),
        ("securityContext", json!({})),
        ("enableServiceLinks", json!(true)),
    ] {
        assert_eq!(spec[field], want, "{field}: {p}");
    }
    let c = &spec["containers"][0];
    assert_eq!(c["imagePullPolicy"], "Always");
    assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
    assert_eq!(c["terminationMessagePolicy"], "File");
    assert_eq!(
        c["ports"],
        json!([{"containerPort": 80, "protocol": "TCP"}])
    );

    s.kubectl_ok(&["create", "deployment", "web", "--image=nginx:1.27"]);
    let out = s.kubectl_ok(
        &[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.spec.template.spec.dnsPolicy} {.spec.template.spec.containers[0].imagePullPolicy} {.spec.template.spec.enableServiceLinks}",
        ],
    );
    // A template gets no enableServiceLinks (SetDefaults_Pod is a Pod's).
    assert_eq!(out, "ClusterFirst IfNotPresent ");
    // Its pods carry the template's defaults and their own.
    let pods: Value =
        serde_json::from_str(&s.kubectl_ok(&["get", "pods", "-l", "app=web", "-o", "json"]))
            .unwrap();
    let pod = &pods["items"][0]["spec"];
    assert_eq!(pod["containers"][0]["imagePullPolicy"], "IfNotPresent");
    assert_eq!(pod["enableServiceLinks"], true);
}

#[test]
fn a_job_gets_its_generated_selector_and_completes_with_v1_32s_conditions() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    s.kubectl_ok(&["create", "job", "j", "--image=busybox"]);
    let j = s.get("jobs", "default", "j").unwrap();
    let uid = j["metadata"]["uid"].as_str().unwrap().to_string();
    assert!(!uid.is_empty());
    assert_eq!(
        j["spec"]["selector"],
        json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}})
    );
    let labels = json!({
        "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "j",
        "controller-uid": uid, "job-name": "j"
    });
    assert_eq!(j["spec"]["template"]["metadata"]["labels"], labels);
    assert_eq!(j["metadata"]["labels"], labels);
    // The pod is found by the labels users select a Job's pods with.
    let names = s.kubectl_ok(&["get", "pods", "-l", "job-name=j", "-o", "name"]);
    assert!(names.starts_with("pod/j-"), "{names}");
    let o = s.kubectl(&["describe", "job", "j"]);
    assert!(
        o.stdout.contains(&format!(
            "Selector:         batch.kubernetes.io/controller-uid={uid}"
        )),
        "{}",
        o.stdout
    );

    // Done (its pod runs a second): SuccessCriteriaMet, then Complete.
    let f = s.write(
        "once.yaml",
        "apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template:
    metadata: {annotations: {repel.dev/run-seconds: '1'}}
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
",
    );
    s.kubectl_ok(&["create", "-f", &f]);
    s.kubectl_ok(&[
        "wait",
        "--for=condition=complete",
        "job/once",
        "--timeout=30s",
    ]);
    let out = s.kubectl_ok(&[
        "get",
        "job",
        "once",
        "-o",
        "jsonpath={range .status.conditions[*]}{.type}/{.reason}/{.message};{end}",
    ]);
    assert_eq!(
        out,
        "SuccessCriteriaMet/CompletionsReached/Reached expected number of succeeded pods;\
         Complete/CompletionsReached/Reached expected number of succeeded pods;"
    );
}
