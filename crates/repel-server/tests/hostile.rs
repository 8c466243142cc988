//! What careless and hostile clients send, over raw HTTP (issue: reliability and security):
//! invalid names, malformed query parameters, oversized and never-sent bodies, odd
//! Authorization headers, and TLS — each answered as kube-apiserver answers it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use repel_server::net::TlsSource;
use repel_server::{Config, ServerError};
use serde_json::{Value, json};

use crate::util;

struct Reply {
    code: u16,
    head: String,
    body: Value,
    raw_body: String,
}

fn send(addr: SocketAddr, raw: &[u8]) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(raw).unwrap();
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let code = reply
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    Reply {
        code,
        head: head.to_string(),
        body: serde_json::from_str(body).unwrap_or(Value::Null),
        raw_body: body.to_string(),
    }
}

fn request(addr: SocketAddr, method: &str, path: &str, auth: Option<&str>, body: &str) -> Reply {
    let auth = auth
        .map(|a| format!("Authorization: {a}\r\n"))
        .unwrap_or_default();
    let raw = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    send(addr, raw.as_bytes())
}

fn config(listen: &str, token: Option<&str>, tls: TlsSource) -> Config {
    Config {
        tls,
        request_timeout: Duration::from_secs(1),
        ..util::plain_config(listen, token)
    }
}

fn pod(name: &str) -> String {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "c", "image": "i"}]}})
    .to_string()
}

const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

#[test]
fn invalid_names_are_refused_with_upstreams_422_and_nothing_is_stored() {
    let rt = util::runtime();
    let running = rt
        .block_on(repel_server::start(config(
            "127.0.0.1:0",
            None,
            TlsSource::None,
        )))
        .unwrap();
    let addr = running.addr;
    let pods = "/api/v1/namespaces/default/pods";
    let long = "a".repeat(300);
    let cases = [
        ("UPPER", SUBDOMAIN.to_string()),
        (
            long.as_str(),
            "must be no more than 253 characters".to_string(),
        ),
        ("a/b", SUBDOMAIN.to_string()),
        ("..", SUBDOMAIN.to_string()),
        ("-a", SUBDOMAIN.to_string()),
    ];
    for (name, why) in &cases {
        let r = request(addr, "POST", pods, None, &pod(name));
        assert_eq!(r.code, 422, "{name}: {}", r.body);
        assert_eq!(
            r.body["message"],
            format!("Pod \"{name}\" is invalid: metadata.name: Invalid value: \"{name}\": {why}")
        );
        assert_eq!(r.body["details"]["causes"][0]["field"], "metadata.name");
    }
    let (items, _) = running.app.store.list("pods", None);
    assert!(items.is_empty(), "nothing stored: {items:?}");

    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "UPPER"}});
    let r = request(addr, "POST", "/api/v1/nodes", None, &node.to_string());
    assert_eq!(r.code, 422, "{}", r.body);
    assert_eq!(
        r.body["message"],
        format!("Node \"UPPER\" is invalid: metadata.name: Invalid value: \"UPPER\": {SUBDOMAIN}")
    );
    // A namespace name is a DNS label.
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a.b"}});
    let r = request(addr, "POST", "/api/v1/namespaces", None, &ns.to_string());
    assert_eq!(
        r.body["message"],
        "Namespace \"a.b\" is invalid: metadata.name: Invalid value: \"a.b\": must not contain dots"
    );
    // A PodDisruptionBudget's strategy checks no name: only the path-segment rule.
    let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "a/b"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"a": "b"}}}});
    let r = request(
        addr,
        "POST",
        "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
        None,
        &pdb.to_string(),
    );
    assert_eq!(r.code, 422, "{}", r.body);
    assert_eq!(
        r.body["message"],
        "PodDisruptionBudget.policy \"a/b\" is invalid: metadata.name: Invalid value: \"a/b\": may not contain '/'"
    );
    // generateName: the prefix, then the generated name, both invalid.
    let gen_pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "Web-"},
        "spec": {"containers": [{"name": "c", "image": "i"}]}});
    let r = request(addr, "POST", pods, None, &gen_pod.to_string());
    assert_eq!(r.code, 422, "{}", r.body);
    let causes = r.body["details"]["causes"].as_array().unwrap();
    assert_eq!(causes[0]["field"], "metadata.generateName");
    assert_eq!(causes[1]["field"], "metadata.name");
    assert!(
        r.body["details"]["name"]
            .as_str()
            .unwrap()
            .starts_with("Web-")
    );
    // Labels and annotations, on create and on update.
    let mut labelled: Value = serde_json::from_str(&pod("ok")).unwrap();
    labelled["metadata"]["labels"] = json!({"bad key!": "v"});
    let r = request(addr, "POST", pods, None, &labelled.to_string());
    assert_eq!(r.code, 422, "{}", r.body);
    assert!(
        r.body["message"]
            .as_str()
            .unwrap()
            .starts_with("Pod \"ok\" is invalid: metadata.labels: Invalid value: \"bad key!\": name part must consist of"),
        "{}",
        r.body
    );
    let r = request(addr, "POST", pods, None, &pod("ok"));
    assert_eq!(r.code, 201, "{}", r.body);
    let big = json!({"metadata": {"annotations": {"a": "x".repeat(300_000)}}});
    let raw = format!(
        "PATCH {pods}/ok HTTP/1.1\r\nHost: x\r\nContent-Type: application/merge-patch+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{big}",
        big.to_string().len()
    );
    let r = send(addr, raw.as_bytes());
    assert_eq!(r.code, 422, "{}", r.body);
    assert_eq!(
        r.body["message"],
        "Pod \"ok\" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes"
    );
}

#[test]
fn query_parameters_are_validated_and_dry_run_stores_nothing() {
    let rt = util::runtime();
    let running = rt
        .block_on(repel_server::start(config(
            "127.0.0.1:0",
            None,
            TlsSource::None,
        )))
        .unwrap();
    let addr = running.addr;
    let pods = "/api/v1/namespaces/default/pods";
    let r = request(
        addr,
        "POST",
        &format!("{pods}?dryRun=bogus"),
        None,
        &pod("p1"),
    );
    assert_eq!(r.code, 422, "{}", r.body);
    assert_eq!(
        r.body["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"bogus\"]: supported values: \"All\""
    );
    let r = request(
        addr,
        "POST",
        &format!("{pods}?fieldValidation=bogus"),
        None,
        &pod("p1"),
    );
    assert_eq!(r.code, 422, "{}", r.body);
    assert_eq!(
        r.body["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"bogus\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""
    );
    let r = request(
        addr,
        "POST",
        &format!("{pods}?dryRun=All"),
        None,
        &pod("p1"),
    );
    assert_eq!(r.code, 201, "{}", r.body);
    assert_eq!(r.body["metadata"]["name"], "p1");
    assert!(
        running.app.store.get("pods", "default", "p1").is_none(),
        "dry run stored it"
    );
    // An invalid object is still refused under dryRun=All (admission and validation run).
    let r = request(
        addr,
        "POST",
        &format!("{pods}?dryRun=All"),
        None,
        &pod("UPPER"),
    );
    assert_eq!(r.code, 422);

    let r = request(addr, "POST", pods, None, &pod("p1"));
    assert_eq!(r.code, 201);
    let patch = r#"{"metadata":{"labels":{"x":"y"}}}"#;
    let raw = format!(
        "PATCH {pods}/p1?dryRun=All HTTP/1.1\r\nHost: x\r\nContent-Type: application/merge-patch+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{patch}",
        patch.len()
    );
    let r = send(addr, raw.as_bytes());
    assert_eq!(
        (r.code, &r.body["metadata"]["labels"]["x"]),
        (200, &json!("y"))
    );
    let stored = running.app.store.get("pods", "default", "p1").unwrap();
    assert!(
        stored["metadata"]["labels"]["x"].is_null(),
        "dry-run patch stored: {stored}"
    );
    // An update or a patch does not rename.
    let mut renamed = running.app.store.get("pods", "default", "p1").unwrap();
    renamed["metadata"]["name"] = json!("p2");
    let r = request(
        addr,
        "PUT",
        &format!("{pods}/p1"),
        None,
        &renamed.to_string(),
    );
    assert_eq!(
        (r.code, r.body["message"].as_str()),
        (
            400,
            Some("the name of the object (p2) does not match the name on the URL (p1)")
        )
    );
    let rename = r#"{"metadata":{"name":"p2"}}"#;
    let raw = format!(
        "PATCH {pods}/p1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/merge-patch+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{rename}",
        rename.len()
    );
    let r = send(addr, raw.as_bytes());
    assert_eq!(r.code, 400, "{}", r.body);
    let r = request(addr, "DELETE", &format!("{pods}/p1?dryRun=All"), None, "");
    assert_eq!(r.code, 200, "{}", r.body);
    assert!(
        running.app.store.get("pods", "default", "p1").is_some(),
        "dry-run delete deleted"
    );
    let r = request(
        addr,
        "DELETE",
        &format!("{pods}/p1?propagationPolicy=bogus"),
        None,
        "",
    );
    assert_eq!(r.code, 422, "{}", r.body);
    let r = request(
        addr,
        "DELETE",
        &format!("{pods}/p1?gracePeriodSeconds=abc"),
        None,
        "",
    );
    assert_eq!(
        (r.code, r.body["message"].as_str()),
        (
            400,
            Some("strconv.ParseInt: parsing \"abc\": invalid syntax")
        )
    );

    // Watches: a malformed timeout is a 400; a negative one has already expired.
    for (t, msg) in [
        ("abc", "strconv.ParseInt: parsing \"abc\": invalid syntax"),
        (
            "99999999999999999999",
            "strconv.ParseInt: parsing \"99999999999999999999\": value out of range",
        ),
    ] {
        let r = request(
            addr,
            "GET",
            &format!("{pods}?watch=true&timeoutSeconds={t}"),
            None,
            "",
        );
        assert_eq!(
            (r.code, r.body["message"].as_str()),
            (400, Some(msg)),
            "{t}"
        );
    }
    let started = Instant::now();
    let r = request(
        addr,
        "GET",
        "/api/v1/nodes?watch=true&timeoutSeconds=-1",
        None,
        "",
    );
    assert_eq!(r.code, 200);
    assert!(!r.raw_body.contains("ADDED"), "{}", r.raw_body);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the watch ended at once"
    );
    let r = request(addr, "GET", "/api/v1/nodes?limit=abc", None, "");
    assert_eq!(r.code, 400);
    let r = request(
        addr,
        "GET",
        "/api/v1/nodes?resourceVersion=abc&watch=1",
        None,
        "",
    );
    assert_eq!(r.code, 400, "{}", r.body);
    let r = request(addr, "GET", "/api/v1/nodes?continue=garbage", None, "");
    assert_eq!(r.code, 400, "{}", r.body);
    let r = request(
        addr,
        "GET",
        "/api/v1/nodes?resourceVersionMatch=Exact",
        None,
        "",
    );
    assert_eq!(r.code, 422, "{}", r.body);
}

#[test]
fn bodies_are_bounded_and_slow_clients_time_out() {
    let rt = util::runtime();
    let running = rt
        .block_on(repel_server::start(config(
            "127.0.0.1:0",
            None,
            TlsSource::None,
        )))
        .unwrap();
    let addr = running.addr;
    let too_large = "Request entity too large: limit is 3145728";
    // A declared 50 MB body is refused before any of it is sent.
    let r = send(
        addr,
        b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 52428800\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(
        (r.code, r.body["message"].as_str()),
        (413, Some(too_large)),
        "{}",
        r.head
    );
    assert_eq!(r.body["reason"], "RequestEntityTooLarge");
    // A chunked body that grows past the limit.
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n").unwrap();
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..4 {
        let _ = s.write_all(format!("{:x}\r\n", chunk.len()).as_bytes());
        let _ = s.write_all(&chunk);
        let _ = s.write_all(b"\r\n");
    }
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    // A body declared and never sent: the request timeout (1 s here) answers 504 and closes.
    let started = Instant::now();
    let r = send(
        addr,
        b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    );
    assert_eq!(r.code, 504, "{}", r.head);
    assert_eq!(
        r.raw_body,
        "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: request did not complete within the allotted timeout\",\"reason\":\"Timeout\",\"details\":{},\"code\":504}"
    );
    assert!(started.elapsed() < Duration::from_secs(15));
    // A body at the limit is read.
    let r = request(addr, "GET", "/api/v1/nodes", None, "");
    assert_eq!(r.code, 200);
}

#[test]
fn bearer_tokens_are_parsed_as_kube_apiserver_parses_them() {
    let rt = util::runtime();
    let running = rt
        .block_on(repel_server::start(config(
            "127.0.0.1:0",
            Some("s3cret"),
            TlsSource::None,
        )))
        .unwrap();
    let addr = running.addr;
    for (header, code) in [
        ("Bearer s3cret", 200),
        ("bearer s3cret", 200),
        ("BEARER s3cret", 200),
        ("Bearer s3cret trailing", 200),
        ("Bearer  s3cret", 401),
        ("Bearer ", 401),
        ("Bearer s3cre", 401),
        ("Bearer s3crett", 401),
        ("Basic s3cret", 401),
    ] {
        let r = request(addr, "GET", "/api/v1/nodes", Some(header), "");
        assert_eq!(r.code, code, "{header:?}");
        if code == 401 {
            assert_eq!(r.body["message"], "Unauthorized");
        }
    }
    let r = request(
        addr,
        "DELETE",
        "/api/v1/nodes/node1",
        Some("Bearer  s3cret"),
        "",
    );
    assert_eq!(r.code, 401);
    assert!(
        r.head.to_ascii_lowercase().contains(
            "warning: 299 - \"the provided authorization header contains extra space before the bearer token, and is ignored\""
        ),
        "{}",
        r.head
    );
    assert!(running.app.store.get("nodes", "", "node1").is_some());

    // An empty token, and a non-loopback address without TLS, are refused at start.
    let e = rt
        .block_on(repel_server::start(config(
            "127.0.0.1:0",
            Some(""),
            TlsSource::None,
        )))
        .err()
        .unwrap();
    assert_eq!(e.to_string(), "--token must not be empty");
    match rt.block_on(repel_server::start(config(
        "0.0.0.0:0",
        Some("t"),
        TlsSource::None,
    ))) {
        Err(e @ ServerError::NeedsTls(_)) => assert_eq!(
            e.to_string(),
            "refusing to listen on 0.0.0.0:0 without TLS: only loopback addresses may be served over plain HTTP"
        ),
        Err(e) => panic!("unexpected {e}"),
        Ok(_) => panic!("served 0.0.0.0 over plain HTTP"),
    }
}

#[test]
fn kubectl_reaches_a_tls_server_through_the_generated_ca() {
    if !util::have_kubectl() {
        return;
    }
    let cfg = config(
        "127.0.0.1:0",
        Some("t0k3n"),
        TlsSource::Generate {
            extra_names: vec![],
        },
    );
    let server = util::start_config(cfg, util::runtime());
    let text = std::fs::read_to_string(&server.kubeconfig).unwrap();
    assert!(text.contains("    certificate-authority-data: "), "{text}");
    assert!(text.contains("    server: https://127.0.0.1:"), "{text}");
    let out = server.kubectl(&["get", "nodes", "-o", "name"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "node/node1\n");
    // Plain HTTP to the TLS port is not served.
    let r = request(
        server.addr,
        "GET",
        "/api/v1/nodes",
        Some("Bearer t0k3n"),
        "",
    );
    assert_ne!(r.code, 200);
}
