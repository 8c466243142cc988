//! `--in-cluster`: a live read as a pod's service account, against `repel serve --tls
//! --token`: the token and the server's CA written into a directory that
//! `REPEL_SERVICEACCOUNT_DIR` names, the server's address in `KUBERNETES_SERVICE_HOST` and
//! `_PORT`, as the kubelet mounts and sets them in a pod.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// A running `repel serve --tls --token s3cret` on the demo cluster, killed when dropped.
struct Serve {
    child: Child,
    /// The kubeconfig serve wrote.
    kubeconfig: std::path::PathBuf,
    port: String,
    ca_pem: String,
    _dir: tempfile::TempDir,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64 (the kubeconfig's `certificate-authority-data`).
fn base64_decode(s: &str) -> Vec<u8> {
    let table = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|c| *c != b'=' && !c.is_ascii_whitespace()) {
        let v = table.iter().position(|t| *t == c).unwrap() as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

fn serve() -> Serve {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let mut child = Command::new(env!("CARGO_BIN_EXE_repel"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--tls",
            "--token",
            "s3cret",
        ])
        .arg("--kubeconfig-out")
        .arg(&kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // serve prints where it listens, writes the kubeconfig, then says to export it.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.starts_with("repel serve: listening on "), "{line}");
    let mut export = String::new();
    stdout.read_line(&mut export).unwrap();
    assert!(export.starts_with("  export KUBECONFIG="), "{export}");
    let text = std::fs::read_to_string(&kubeconfig).unwrap();
    let server = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("server: "))
        .unwrap();
    let port = server.rsplit(':').next().unwrap().to_string();
    let data = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("certificate-authority-data: "))
        .unwrap();
    let ca_pem = String::from_utf8(base64_decode(data)).unwrap();
    assert!(ca_pem.contains("-----BEGIN CERTIFICATE-----"), "{ca_pem}");
    Serve {
        child,
        kubeconfig,
        port,
        ca_pem,
        _dir: dir,
    }
}

/// `repel ARGS --in-cluster` in a pod's environment: the service-account directory `sa`, the
/// API server at 127.0.0.1:`port` (or no variables at all).
fn in_pod(args: &[&str], sa: &Path, port: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_repel"));
    cmd.args(args)
        .arg("--in-cluster")
        .env("REPEL_SERVICEACCOUNT_DIR", sa)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    if let Some(p) = port {
        cmd.env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
            .env("KUBERNETES_SERVICE_PORT", p);
    }
    cmd.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_pod_reads_its_cluster_with_the_service_accounts_token_and_ca() {
    let s = serve();
    let sa = tempfile::tempdir().unwrap();
    std::fs::write(sa.path().join("token"), "s3cret").unwrap();
    std::fs::write(sa.path().join("ca.crt"), &s.ca_pem).unwrap();
    std::fs::write(sa.path().join("namespace"), "repel").unwrap();
    // The same answer as through the kubeconfig serve wrote.
    let want = Command::new(env!("CARGO_BIN_EXE_repel"))
        .args(["schedule", "-o", "json", "--kubeconfig"])
        .arg(&s.kubeconfig)
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    assert!(
        matches!(want.status.code(), Some(0 | 1)),
        "{}",
        text(&want.stderr)
    );
    let got = in_pod(&["schedule", "-o", "json"], sa.path(), Some(&s.port));
    assert_eq!(
        got.status.code(),
        want.status.code(),
        "{}",
        text(&got.stderr)
    );
    assert_eq!(text(&got.stdout), text(&want.stdout));
    assert!(text(&got.stdout).contains("\"placements\""));
    // repel snapshot too.
    let snap = in_pod(&["snapshot", "-o", "-"], sa.path(), Some(&s.port));
    assert_eq!(snap.status.code(), Some(0), "{}", text(&snap.stderr));
    assert!(text(&snap.stdout).contains("kind: Node\n"));
    // repel bench measures the same cluster.
    let bench = in_pod(&["bench", "-q", "-o", "json"], sa.path(), Some(&s.port));
    assert_eq!(bench.status.code(), Some(0), "{}", text(&bench.stderr));
    let v: serde_json::Value = serde_json::from_slice(&bench.stdout).unwrap();
    assert_eq!(v["source"], "cluster", "{v}");
    let nodes = text(&snap.stdout).matches("kind: Node\n").count();
    assert!(nodes > 0);
    assert_eq!(v["nodes"].as_u64(), Some(nodes as u64), "{v}");

    // A token the server refuses: kubectl's words.
    std::fs::write(sa.path().join("token"), "nope").unwrap();
    let out = in_pod(&["schedule"], sa.path(), Some(&s.port));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: You must be logged in to the server (Unauthorized)\n"
    );

    // Without the CA, client-go's warning, and the server's certificate is not trusted.
    std::fs::write(sa.path().join("token"), "s3cret").unwrap();
    std::fs::remove_file(sa.path().join("ca.crt")).unwrap();
    let out = in_pod(&["schedule"], sa.path(), Some(&s.port));
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    let ca = sa.path().join("ca.crt");
    assert!(
        err.starts_with(&format!(
            "warning: Expected to load root CA config from {}, but got err: open {}: no such file or directory\n",
            ca.display(),
            ca.display()
        )),
        "{err}"
    );
}

#[test]
fn kubeconfig_is_found_as_client_go_finds_it() {
    let s = serve();
    let home = tempfile::tempdir().unwrap();
    let run = |kubeconfig_env: Option<&std::ffi::OsStr>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_repel"));
        cmd.args(["schedule", "-o", "json", "--context", "repel"])
            .env("HOME", home.path())
            .env_remove("KUBECONFIG");
        if let Some(k) = kubeconfig_env {
            cmd.env("KUBECONFIG", k);
        }
        cmd.output().unwrap()
    };
    // KUBECONFIG lists a file that does not exist before serve's: client-go skips it.
    let missing = home.path().join("missing");
    let list = std::env::join_paths([missing.as_path(), s.kubeconfig.as_path()]).unwrap();
    let out = run(Some(&list));
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("\"placements\""));
    // Without KUBECONFIG, ~/.kube/config.
    std::fs::create_dir(home.path().join(".kube")).unwrap();
    std::fs::copy(&s.kubeconfig, home.path().join(".kube/config")).unwrap();
    let out = run(None);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        text(&out.stderr)
    );
    // Neither: the context is found nowhere, in kubectl's words.
    std::fs::remove_file(home.path().join(".kube/config")).unwrap();
    let out = run(None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "Error in configuration: context was not found for specified context: repel\n"
    );
}

#[test]
fn outside_a_pod_in_cluster_is_client_gos_error() {
    let sa = tempfile::tempdir().unwrap();
    let out = in_pod(&["schedule"], sa.path(), None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "error: {}\n",
            repel_manifest::kubeconfig::ERR_NOT_IN_CLUSTER
        )
    );
    // With the variables but no token mounted: Go's open error, naming the file.
    let out = in_pod(&["schedule"], sa.path(), Some("1"));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "error: open {}: no such file or directory\n",
            sa.path().join("token").display()
        )
    );
    // --in-cluster is a cluster of its own: not with --kubeconfig or --context.
    let out = Command::new(env!("CARGO_BIN_EXE_repel"))
        .args(["schedule", "--in-cluster", "--context", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot be used with"));
}

#[test]
fn the_in_cluster_cluster_role_grants_get_and_list_on_exactly_what_repel_reads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/in-cluster.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(&text).unwrap();
    let role = docs
        .iter()
        .find(|d| d["kind"] == "ClusterRole")
        .expect("a ClusterRole");
    let mut granted = Vec::new();
    for rule in role["rules"].as_array().unwrap() {
        let verbs: Vec<&str> = rule["verbs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(verbs, ["get", "list"], "{rule}");
        for group in rule["apiGroups"].as_array().unwrap() {
            for r in rule["resources"].as_array().unwrap() {
                let (g, r) = (group.as_str().unwrap(), r.as_str().unwrap());
                granted.push(if g.is_empty() {
                    r.to_string()
                } else {
                    format!("{r}.{g}")
                });
            }
        }
    }
    granted.sort();
    let mut read: Vec<String> = repel_manifest::live::KINDS
        .iter()
        .map(|k| k.resource())
        .collect();
    read.sort();
    assert_eq!(granted, read);
    // The binding gives it to the CronJob's ServiceAccount, and the Job reads in-cluster.
    let binding = docs
        .iter()
        .find(|d| d["kind"] == "ClusterRoleBinding")
        .unwrap();
    assert_eq!(binding["roleRef"]["name"], role["metadata"]["name"]);
    let cron = docs.iter().find(|d| d["kind"] == "CronJob").unwrap();
    let pod = &cron["spec"]["jobTemplate"]["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], binding["subjects"][0]["name"]);
    let script = pod["containers"][0]["args"][0].as_str().unwrap();
    assert!(script.contains("repel lint --in-cluster"), "{script}");
    assert!(
        script.contains("repel drain --all --in-cluster -o json"),
        "{script}"
    );
}
