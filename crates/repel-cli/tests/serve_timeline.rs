//! `repel serve --scenario`'s `/ui/`: the scenario's timeline grows as it plays, and when it has
//! played it is `repel report --scenario`'s timeline of the same file (two paths, one answer),
//! its eviction marks drawn in the page a browser shows.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::report_browser::{assert_ready, chromium, dump_dom, eviction_at};
use crate::util::json_out;

const SCENARIO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/noexecute-toleration-seconds.yaml"
);

/// The server's line saying the scenario has played to its end.
const ENDED: &str = "the scenario ended";

/// `repel serve --scenario SCENARIO` on a free port, 600 cluster seconds a wall second (the
/// eviction after `tolerationSeconds: 3600` comes about 6 s after the first); it, its address,
/// and a flag set when it printed [`ENDED`].
struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve() -> (Serve, SocketAddr, Arc<AtomicBool>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_repel"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--scenario",
            SCENARIO,
            "--time-scale",
            "600",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let ended = Arc::new(AtomicBool::new(false));
    let stderr = child.stderr.take().unwrap();
    let flag = ended.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { return };
            if line.contains(ENDED) {
                flag.store(true, Ordering::SeqCst);
            }
        }
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    // Keep reading stdout so the server never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .parse()
        .unwrap();
    (Serve(child), addr, ended)
}

/// `GET /ui/model.json`.
fn model(addr: SocketAddr) -> Value {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "GET /ui/model.json HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let body = reply.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// The timeline's entries of a model.
fn timeline(m: &Value) -> Vec<Value> {
    m["timeline"].as_array().cloned().unwrap_or_default()
}

/// The eviction marks of a timeline: `(pod, at, countdown)`.
fn evictions(t: &[Value]) -> Vec<(String, f64, Option<f64>)> {
    t.iter()
        .filter(|e| e["event"] == "TaintManagerEviction")
        .map(|e| {
            (
                e["pod"].as_str().unwrap_or("").to_string(),
                e["at"].as_f64().unwrap_or(-1.0),
                e["countdown"].as_f64(),
            )
        })
        .collect()
}

#[test]
fn a_served_scenarios_timeline_grows_to_the_reports_timeline() {
    let (code, report) = json_out(&["report", "--scenario", SCENARIO, "-o", "json"]);
    assert_eq!(code, 0);
    let want = timeline(&report);
    let want_evictions = evictions(&want);
    // The scenario's own expectations: at once at 1m, after tolerationSeconds 3600 at 61m.
    assert_eq!(
        want_evictions
            .iter()
            .map(|(p, at, _)| (p.as_str(), *at))
            .collect::<Vec<_>>(),
        [
            ("default/intolerant", 60.0),
            ("default/for-an-hour", 3660.0)
        ]
    );

    let (_server, addr, ended) = serve();
    let mut reads = Vec::new();
    // Read the model until a read made after the scenario ended (the server ends it on its own;
    // a run that never ends fails here rather than hanging).
    for _ in 0..2400 {
        let was_ended = ended.load(Ordering::SeqCst);
        reads.push(model(addr));
        if was_ended {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(ended.load(Ordering::SeqCst), "the scenario never ended");
    let last = reads.last().unwrap();
    let got = timeline(last);

    // Two paths, one answer: the played scenario's timeline is the report's.
    assert_eq!(evictions(&got), want_evictions);
    assert_eq!(got, want);
    assert_eq!(last["timelineEnd"], report["timelineEnd"]);

    // It grew: every read is a beginning of the final timeline, and some read before the end
    // held the first eviction and not yet the one after tolerationSeconds.
    for r in &reads {
        let t = timeline(r);
        assert_eq!(
            t[..],
            got[..t.len()],
            "a read is a beginning of the timeline"
        );
    }
    assert!(
        reads.iter().any(|r| evictions(&timeline(r)).len() == 1),
        "no read saw the first eviction before the second: {:?}",
        reads.iter().map(|r| timeline(r).len()).collect::<Vec<_>>()
    );

    // The page /ui/ serves draws the marks.
    let Some(bin) = chromium() else { return };
    let dom = dump_dom(&bin, &format!("http://{addr}/ui/"));
    assert_ready(&dom);
    let at = |pod: &str| eviction_at(&dom, pod);
    assert_eq!(at("default/intolerant").as_deref(), Some("60"));
    assert_eq!(at("default/for-an-hour").as_deref(), Some("3660"));
    assert_eq!(at("default/forever"), None);
}
