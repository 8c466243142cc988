//! Test support: a server on 127.0.0.1:0 in a background runtime, a kubeconfig for it, and
//! `kubectl` with a fresh cache dir.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use repel_server::{Admission, App, Config};
use serde_json::{Value, json};

pub struct Server {
    pub addr: std::net::SocketAddr,
    pub app: Arc<App>,
    pub dir: tempfile::TempDir,
    pub kubeconfig: PathBuf,
    _rt: tokio::runtime::Runtime,
}

/// The variable that lets the kubectl tests skip where no kubectl 1.27 or newer can be had.
pub const SKIP_KUBECTL: &str = "REPEL_SKIP_KUBECTL_TESTS";

/// Whether a kubectl whose outputs these tests assert is installed: the machine image's
/// dispatcher (which runs its bundled v1.32 for this server) or a kubectl 1.27 or newer.
/// Without one the test fails, saying why, unless [`SKIP_KUBECTL`] is set to `1`: then it is
/// skipped (Debian's `kubernetes-client` is v1.20, too old for these outputs).
pub fn have_kubectl() -> bool {
    let out = Command::new("kubectl")
        .args(["version", "--client", "-o", "json"])
        .output();
    let problem = match out.ok().filter(|o| o.status.success()) {
        None => "kubectl is not installed".to_string(),
        Some(out) => {
            let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
            let git = v["clientVersion"]["gitVersion"].as_str().unwrap_or("");
            let minor: u32 = v["clientVersion"]["minor"]
                .as_str()
                .and_then(|m| m.trim_end_matches('+').parse().ok())
                .unwrap_or(0);
            if git.contains("dispatcher") || minor >= 27 {
                return true;
            }
            format!("kubectl {git} is older than the 1.27 these tests need")
        }
    };
    assert!(
        std::env::var(SKIP_KUBECTL).as_deref() == Ok("1"),
        "{problem}: install kubectl 1.27 or newer, or set {SKIP_KUBECTL}=1 to skip the kubectl tests"
    );
    eprintln!("{problem}: test skipped ({SKIP_KUBECTL}=1)");
    false
}

/// A server of two untainted nodes, `node1` and `node2`.
pub fn two_nodes() -> Server {
    start(vec![node("node1", json!(null)), node("node2", json!(null))])
}

pub fn start(seed: Vec<Value>) -> Server {
    start_with(seed, 600.0)
}

pub fn start_with(seed: Vec<Value>, time_scale: f64) -> Server {
    start_config(config(seed, time_scale), runtime())
}

/// A two-worker runtime for a test server.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A plain-HTTP, in-memory server's configuration with the defaults, for a test to change.
pub fn config(seed: Vec<Value>, time_scale: f64) -> Config {
    Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        data_dir: None,
        token: None,
        time_scale,
        seed,
        admission: Admission::default(),
        tls: repel_server::net::TlsSource::None,
        request_timeout: repel_server::net::DEFAULT_REQUEST_TIMEOUT,
        scenario: None,
        event_ttl: repel_server::event_ttl::DEFAULT_EVENT_TTL,
    }
}

/// Starts a server with `cfg` on `rt`; its kubeconfig carries the token and the generated CA.
pub fn start_config(cfg: Config, rt: tokio::runtime::Runtime) -> Server {
    let token = cfg.token.clone();
    let running = rt.block_on(repel_server::start(cfg)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        repel_server::kubeconfig(&running.url(), token.as_deref(), running.ca_pem.as_deref()),
    )
    .unwrap();
    Server {
        addr: running.addr,
        app: running.app,
        dir,
        kubeconfig,
        _rt: rt,
    }
}

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Server {
    /// Runs kubectl against this server with a fresh `--cache-dir`.
    pub fn kubectl(&self, args: &[&str]) -> Out {
        let cache = tempfile::tempdir().unwrap();
        let o = Command::new("kubectl")
            .env("KUBECONFIG", &self.kubeconfig)
            .arg(format!("--cache-dir={}", cache.path().display()))
            .args(args)
            .output()
            .unwrap();
        Out {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }

    /// [`Server::kubectl`] that must succeed: its standard output.
    pub fn kubectl_ok(&self, args: &[&str]) -> String {
        let o = self.kubectl(args);
        assert_eq!(o.code, 0, "kubectl {args:?}: {}{}", o.stdout, o.stderr);
        o.stdout
    }

    /// A file in the test's temp dir.
    pub fn write(&self, name: &str, text: &str) -> String {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }

    pub fn get(&self, resource: &str, ns: &str, name: &str) -> Option<Value> {
        self.app.store.get(resource, ns, name)
    }
}

/// Lines of a kubectl table with runs of spaces collapsed and the AGE column (given by its
/// index) replaced by `AGE`, so rows compare without timing.
pub fn table_rows(out: &str, age_col: usize) -> Vec<String> {
    out.lines()
        .map(|l| {
            let mut cells: Vec<&str> = l.split_whitespace().collect();
            if cells.len() > age_col && !l.starts_with("NAME") && !l.starts_with("NAMESPACE") {
                cells[age_col] = "AGE";
            }
            cells.join(" ")
        })
        .collect()
}

pub fn node(name: &str, taints: Value) -> Value {
    serde_json::json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {"taints": taints}
    })
}

pub fn pod(ns: &str, name: &str, node: Option<&str>) -> Value {
    let mut p = serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]}
    });
    if let Some(n) = node {
        p["spec"]["nodeName"] = serde_json::json!(n);
    }
    p
}

pub fn taints_of(v: &Value) -> Vec<String> {
    v["spec"]["taints"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .map(|t| {
                    format!(
                        "{}={}:{}",
                        t["key"].as_str().unwrap_or(""),
                        t["value"].as_str().unwrap_or(""),
                        t["effect"].as_str().unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One raw HTTP/1.1 request (`Connection: close`) with `headers` and `body`: the status code
/// and the body as JSON (`null` when it is not).
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    let code = reply.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = reply.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (code, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// A configuration of one node `node1`, on the wall clock (time scale 1), listening on
/// `listen`, with `token` if any.
pub fn plain_config(listen: &str, token: Option<&str>) -> Config {
    Config {
        listen: listen.parse().unwrap(),
        token: token.map(str::to_string),
        ..config(
            vec![json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"}})],
            1.0,
        )
    }
}
