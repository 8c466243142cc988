//! ExtendedResourceToleration over real HTTP: off by default, as upstream; when the server is
//! started with it enabled (`repel serve --enable-admission-plugins ExtendedResourceToleration`),
//! a pod asking for an extended resource is stored with the matching toleration.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use repel_core::admission::AdmissionConfig;
use repel_server::{Admission, Config};
use serde_json::{Value, json};

fn post(addr: SocketAddr, path: &str, body: &Value) -> (u16, Value) {
    let body = body.to_string();
    let mut s = TcpStream::connect(addr).unwrap();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    let code = reply.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = reply.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (code, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn gpu_pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "cuda", "image": "cuda",
                    "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}})
}

fn tolerations_of(admission: AdmissionConfig) -> Vec<Value> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let running = rt
        .block_on(repel_server::start(Config {
            listen: "127.0.0.1:0".parse().unwrap(),
            data_dir: None,
            token: None,
            time_scale: 1.0,
            seed: vec![json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"}})],
            admission: Admission {
                config: admission,
                ..Default::default()
            },
            tls: repel_server::net::TlsSource::None,
            request_timeout: repel_server::net::DEFAULT_REQUEST_TIMEOUT,
            scenario: None,
            event_ttl: repel_server::event_ttl::DEFAULT_EVENT_TTL,
        }))
        .unwrap();
    let (code, body) = post(
        running.addr,
        "/api/v1/namespaces/default/pods",
        &gpu_pod("trainer"),
    );
    assert_eq!(code, 201, "{body}");
    body["spec"]["tolerations"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn extended_resource_toleration_over_http() {
    let gpu = json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"});
    let off = tolerations_of(AdmissionConfig::default());
    assert!(!off.contains(&gpu), "off by default, as upstream: {off:?}");
    let on = tolerations_of(AdmissionConfig {
        extended_resource_toleration: true,
        ..Default::default()
    });
    assert_eq!(
        on.last(),
        Some(&gpu),
        "enabled: the GPU toleration is stored, after DefaultTolerationSeconds' and PodTolerationRestriction's: {on:?}"
    );
}
