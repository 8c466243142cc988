//! The commands whose typed clients speak protobuf (`kubectl create deployment|job|cronjob|
//! namespace|priorityclass|poddisruptionbudget|service|configmap|secret`, `kubectl expose`,
//! `kubectl scale`, `kubectl set image`), through the real kubectl, as on a real cluster.

use crate::util::{have_kubectl, node, start};
use serde_json::json;

#[test]
fn kubectls_typed_create_commands_work_in_protobuf() {
    if !have_kubectl() {
        return;
    }
    let s = start(vec![node("node1", json!(null))]);
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "create",
                "deployment",
                "web",
                "--image=nginx",
                "--replicas=2",
                "--port=80",
            ],
            "deployment.apps/web created",
        ),
        (
            &["create", "namespace", "team-a"],
            "namespace/team-a created",
        ),
        (
            &["create", "configmap", "c1", "--from-literal=a=b"],
            "configmap/c1 created",
        ),
        (
            &["create", "secret", "generic", "s1", "--from-literal=k=v"],
            "secret/s1 created",
        ),
        (
            &["create", "job", "j1", "--image=busybox"],
            "job.batch/j1 created",
        ),
        (
            &[
                "create",
                "cronjob",
                "cj",
                "--image=busybox",
                "--schedule=*/5 * * * *",
            ],
            "cronjob.batch/cj created",
        ),
        (
            &["create", "priorityclass", "high", "--value=1000"],
            "priorityclass.scheduling.k8s.io/high created",
        ),
        (
            &[
                "create",
                "poddisruptionbudget",
                "pdb1",
                "--selector=app=web",
                "--min-available=50%",
            ],
            "poddisruptionbudget.policy/pdb1 created",
        ),
        (
            &["create", "service", "clusterip", "svc1", "--tcp=80:8080"],
            "service/svc1 created",
        ),
        (
            &[
                "expose",
                "deployment",
                "web",
                "--port=8080",
                "--target-port=80",
                "--name=web-svc",
            ],
            "service/web-svc exposed",
        ),
        (
            &["scale", "deployment", "web", "--replicas=0"],
            "deployment.apps/web scaled",
        ),
        (
            &["set", "image", "deployment/web", "nginx=nginx:1.27"],
            "deployment.apps/web image updated",
        ),
        (&["run", "p1", "--image=nginx"], "pod/p1 created"),
    ];
    for (args, want) in cases {
        let o = s.kubectl(args);
        assert_eq!(o.code, 0, "kubectl {args:?}: {}", o.stderr);
        assert_eq!(o.stdout.trim(), *want, "kubectl {args:?}");
    }

    // What each body said arrived, in upstream's JSON.
    let d = s.get("deployments", "default", "web").unwrap();
    assert_eq!(d["spec"]["replicas"], 0, "{d}");
    assert_eq!(
        d["spec"]["selector"],
        json!({"matchLabels": {"app": "web"}})
    );
    let c = &d["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["image"], "nginx:1.27");
    assert_eq!(c["ports"][0]["containerPort"], 80);
    // No zero value of an omitempty field came in from Go's protobuf.
    assert!(d["metadata"].get("generateName").is_none(), "{d}");
    assert!(d["spec"].get("paused").is_none(), "{d}");
    let secret = s.get("secrets", "default", "s1").unwrap();
    assert_eq!(secret["data"], json!({"k": "dg=="}));
    let pdb = s.get("poddisruptionbudgets", "default", "pdb1").unwrap();
    assert_eq!(pdb["spec"]["minAvailable"], "50%");
    let pc = s.get("priorityclasses", "", "high").unwrap();
    assert_eq!(pc["value"], 1000);
    let svc = s.get("services", "default", "web-svc").unwrap();
    assert_eq!(svc["spec"]["ports"][0]["port"], 8080);
    assert_eq!(svc["spec"]["ports"][0]["targetPort"], 80);
    assert_eq!(svc["spec"]["selector"], json!({"app": "web"}));
    let cj = s.get("cronjobs", "default", "cj").unwrap();
    assert_eq!(cj["spec"]["schedule"], "*/5 * * * *");
    assert!(s.get("namespaces", "", "team-a").is_some());

    // The request went as protobuf and the reply came back as protobuf.
    let o = s.kubectl(&["create", "configmap", "c2", "--from-literal=x=y", "-v=8"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("Content-Type: application/vnd.kubernetes.protobuf"),
        "{}",
        o.stderr
    );
    let protobuf_lines = o
        .stderr
        .lines()
        .filter(|l| l.contains("Content-Type: application/vnd.kubernetes.protobuf"))
        .count();
    assert!(protobuf_lines >= 2, "request and response: {}", o.stderr);

    // Typed reads decode our protobuf replies: describe, drain's pod list.
    let o = s.kubectl(&["describe", "deployment", "web"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("Image:         nginx:1.27"),
        "{}",
        o.stdout
    );
    let o = s.kubectl(&["describe", "node", "node1"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.starts_with("Name:               node1"),
        "{}",
        o.stdout
    );
    let o = s.kubectl(&["cordon", "node1"]);
    assert_eq!(o.stdout.trim(), "node/node1 cordoned", "{}", o.stderr);
}

#[test]
fn a_malformed_protobuf_body_is_a_400_and_a_custom_resource_refuses_protobuf() {
    use std::io::{Read, Write};
    let s = start(vec![node("node1", json!(null))]);
    let post = |path: &str, body: &[u8]| {
        let mut c = std::net::TcpStream::connect(s.addr).unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/vnd.kubernetes.protobuf\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        c.write_all(head.as_bytes()).unwrap();
        c.write_all(body).unwrap();
        let mut reply = String::new();
        c.read_to_string(&mut reply).unwrap();
        reply
    };
    let reply = post("/api/v1/namespaces/default/configmaps", b"k8s\0\x0a\xff");
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    assert!(reply.contains("error decoding request body"), "{reply}");
    let reply = post("/api/v1/namespaces/default/configmaps", b"{}");
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    assert!(
        reply.contains("does not appear to be a protobuf message"),
        "{reply}"
    );
}
