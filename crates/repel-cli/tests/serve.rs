//! The built `repel serve`: every acknowledged write to `--data-dir` survives kill -9, and the
//! resourceVersion sequence continues after the restart; the flags, what it prints, the token.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// Starts `repel serve` on a free port with `dir` as its data dir; returns it and its address.
fn serve(dir: &Path) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_repel"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--nodes",
            "3",
            "--data-dir",
        ])
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .parse()
        .unwrap();
    (child, addr)
}

/// One HTTP/1.1 request; `(status, body)`.
fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> std::io::Result<(u16, Value)> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut reply = String::new();
    s.read_to_string(&mut reply)?;
    let code = reply
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status line"))?;
    let body = reply.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    Ok((code, serde_json::from_str(body).unwrap_or(Value::Null)))
}

fn pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
           "spec": {"containers": [{"name": "app", "image": "nginx"}]}})
}

/// `writers` threads create pods as fast as the server acknowledges them; after at least
/// `min_acked` acknowledgements the server is killed (SIGKILL) mid-stream and restarted on the
/// same data dir, `cycles` times. Every acknowledged pod must be there after each restart,
/// and the resourceVersion must continue past every acknowledged one.
fn kill_9_cycles(cycles: usize, writers: usize, min_acked: usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut all_acked: Vec<(String, u64)> = Vec::new();
    let (mut child, mut addr) = serve(dir.path());
    for cycle in 0..cycles {
        let acked: Arc<Mutex<Vec<(String, u64)>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let threads: Vec<_> = (0..writers)
            .map(|w| {
                let (acked, stop) = (acked.clone(), stop.clone());
                std::thread::spawn(move || {
                    for i in 0.. {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        let name = format!("c{cycle}-w{w}-p{i}");
                        match request(
                            addr,
                            "POST",
                            "/api/v1/namespaces/default/pods",
                            Some(&pod(&name)),
                        ) {
                            Ok((201, obj)) => {
                                let rv = obj["metadata"]["resourceVersion"]
                                    .as_str()
                                    .unwrap()
                                    .parse()
                                    .unwrap();
                                acked.lock().unwrap().push((name, rv));
                            }
                            _ => break,
                        }
                    }
                })
            })
            .collect();
        while acked.lock().unwrap().len() < min_acked {
            std::thread::sleep(Duration::from_millis(2));
        }
        // kill -9 while the writers are still writing.
        child.kill().unwrap();
        child.wait().unwrap();
        stop.store(true, Ordering::SeqCst);
        for t in threads {
            t.join().unwrap();
        }
        all_acked.extend(acked.lock().unwrap().iter().cloned());
        (child, addr) = serve(dir.path());
        let (code, list) = request(addr, "GET", "/api/v1/namespaces/default/pods", None).unwrap();
        assert_eq!(code, 200);
        let present: std::collections::HashSet<&str> = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["metadata"]["name"].as_str())
            .collect();
        for (name, _) in &all_acked {
            assert!(
                present.contains(name.as_str()),
                "cycle {cycle}: acknowledged pod {name} lost"
            );
        }
    }
    let max_rv = all_acked.iter().map(|(_, rv)| *rv).max().unwrap();
    let (code, obj) = request(
        addr,
        "POST",
        "/api/v1/namespaces/default/pods",
        Some(&pod("after")),
    )
    .unwrap();
    assert_eq!(code, 201, "{obj}");
    let rv: u64 = obj["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        rv > max_rv,
        "the resourceVersion continues: {rv} after {max_rv}"
    );
    let (code, nodes) = request(addr, "GET", "/api/v1/nodes", None).unwrap();
    assert_eq!(code, 200);
    assert_eq!(
        nodes["items"].as_array().unwrap().len(),
        3,
        "the store is not seeded twice"
    );
    eprintln!(
        "kill -9: {cycles} cycles, {writers} writers, {} acknowledged creates, all present",
        all_acked.len()
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn acknowledged_writes_survive_kill_9_and_the_resource_version_continues() {
    kill_9_cycles(3, 4, 40);
}

/// The benchmark of the same proof: `scripts/kill9-bench.sh` runs it with
/// `REPEL_KILL9_CYCLES` (default 100) on the release build.
#[test]
#[ignore = "a benchmark: run by scripts/kill9-bench.sh"]
fn kill_9_benchmark() {
    let cycles = std::env::var("REPEL_KILL9_CYCLES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100);
    kill_9_cycles(cycles, 8, 60);
}

fn event(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
           "metadata": {"name": name, "namespace": "default"},
           "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
           "reason": "Scheduled", "message": "m", "type": "Normal"})
}

/// Events are kept in the data directory only (not held in memory): an acknowledged one
/// survives kill -9 and is listed, read and updated after the restart, and one deleted before
/// the kill stays deleted.
#[test]
fn events_survive_kill_9_and_are_served_from_the_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, addr) = serve(dir.path());
    let path = "/api/v1/namespaces/default/events";
    for name in ["kept", "gone"] {
        let (code, body) = request(addr, "POST", path, Some(&event(name))).unwrap();
        assert_eq!(code, 201, "{body}");
    }
    let (code, _) = request(addr, "DELETE", &format!("{path}/gone"), None).unwrap();
    assert_eq!(code, 200);
    child.kill().unwrap();
    child.wait().unwrap();
    let (mut child, addr) = serve(dir.path());
    let (code, list) = request(addr, "GET", path, None).unwrap();
    assert_eq!(code, 200);
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["metadata"]["name"].as_str())
        .filter(|n| ["kept", "gone"].contains(n))
        .collect();
    assert_eq!(names, ["kept"]);
    let (code, _) = request(addr, "GET", &format!("{path}/gone"), None).unwrap();
    assert_eq!(code, 404);
    let (code, got) = request(addr, "GET", &format!("{path}/kept"), None).unwrap();
    assert_eq!(code, 200);
    let mut update = got.clone();
    update["count"] = json!(7);
    let (code, put) = request(addr, "PUT", &format!("{path}/kept"), Some(&update)).unwrap();
    assert_eq!((code, &put["count"]), (200, &json!(7)), "{put}");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_non_loopback_address_without_a_token_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_repel"))
        .args(["serve", "--listen", "0.0.0.0:0", "--nodes", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: refusing to listen on 0.0.0.0:0 without --token: only loopback addresses may be served without authentication\n"
    );
}

#[test]
fn serve_prints_how_to_reach_it_and_writes_a_kubeconfig_with_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("kubeconfig");
    let mut child = Command::new(env!("CARGO_BIN_EXE_repel"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--nodes",
            "2",
            "--token",
            "t0k3n",
            "--kubeconfig-out",
        ])
        .arg(&kc)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    // A token means HTTPS: kubectl sends a bearer token only over TLS.
    assert!(
        first.starts_with("repel serve: listening on https://127.0.0.1:"),
        "{first}"
    );
    assert!(first.ends_with(" (2 nodes, 0 pods)"), "{first}");
    assert_eq!(
        lines.next().unwrap().unwrap(),
        format!("  export KUBECONFIG={}", kc.display())
    );
    assert_eq!(lines.next().unwrap().unwrap(), "  kubectl get nodes");
    let text = std::fs::read_to_string(&kc).unwrap();
    assert!(text.contains("  user: {token: \"t0k3n\"}\n"), "{text}");
    assert!(text.contains("certificate-authority-data: "), "{text}");
    // The real kubectl reaches it with that kubeconfig (it must be installed, unless the kubectl
    // tests are skipped explicitly).
    let cache = tempfile::tempdir().unwrap();
    let kubectl = Command::new("kubectl")
        .arg(format!("--kubeconfig={}", kc.display()))
        .arg(format!("--cache-dir={}", cache.path().display()))
        .args(["get", "nodes", "-o", "name"])
        .output();
    match kubectl {
        Ok(out) => assert_eq!(
            String::from_utf8_lossy(&out.stdout).lines().count(),
            2,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => assert!(
            std::env::var("REPEL_SKIP_KUBECTL_TESTS").as_deref() == Ok("1"),
            "kubectl: {e}: install kubectl 1.27 or newer, or set REPEL_SKIP_KUBECTL_TESTS=1"
        ),
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn listen_takes_a_host_name_and_refuses_an_empty_token() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_repel"))
        .args(["serve", "--listen", "localhost:0", "--nodes", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.starts_with("repel serve: listening on http://127.0.0.1:"),
        "{line}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    for (args, err) in [
        (
            &["--listen", "127.0.0.1:0", "--token", ""][..],
            "error: --token must not be empty\n",
        ),
        (
            &["--listen", "0.0.0.0:0", "--token", ""][..],
            "error: --token must not be empty\n",
        ),
        (
            &["--listen", "127.0.0.1:0", "--token", "t"][..],
            "error: --token needs TLS, as kubectl sends a bearer token only over HTTPS: give --kubeconfig-out FILE (the server then generates a certificate and writes its CA there) or --tls-cert-file and --tls-private-key-file\n",
        ),
        (
            &["--listen", "127.0.0.1:0", "--tls"][..],
            "error: a generated certificate needs --kubeconfig-out FILE to hand its CA to clients (or give --tls-cert-file and --tls-private-key-file)\n",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_repel"))
            .arg("serve")
            .args(args)
            .args(["--nodes", "1"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), err, "{args:?}");
    }
}

#[test]
fn a_non_loopback_address_is_served_over_tls_with_the_ca_in_the_kubeconfig() {
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("kubeconfig");
    let mut child = Command::new(env!("CARGO_BIN_EXE_repel"))
        .args([
            "serve",
            "--listen",
            "0.0.0.0:0",
            "--nodes",
            "1",
            "--token",
            "t0k3n",
            "--kubeconfig-out",
        ])
        .arg(&kc)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    assert!(
        line.starts_with("repel serve: listening on https://0.0.0.0:"),
        "{line}"
    );
    // The kubeconfig is written before the line that names it.
    let _ = lines.next();
    let text = std::fs::read_to_string(&kc).unwrap();
    assert!(text.contains("certificate-authority-data: "), "{text}");
    child.kill().unwrap();
    child.wait().unwrap();
}
