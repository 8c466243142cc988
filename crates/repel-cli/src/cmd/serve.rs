//! `repel serve`: a kubectl-compatible API server with simulated nodes (repel-server).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use repel_core::FeatureGates;
use repel_engine::generate::{GenerateOptions, generate};
use serde_json::Value;

use crate::ValidateFlag;
use crate::scenario_file::DEMO_CLUSTER;
use crate::{AdmissionFlags, CliError};
use repel_manifest::{
    Source, answer_strict, expand_paths, for_each_object, item_duplicates, parse_documents,
    read_text, strict_report,
};

/// Flags of `repel serve`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel serve --nodes 3 --kubeconfig-out kubeconfig
  repel serve -f examples/demo/cluster.yaml --data-dir state/ --time-scale 60")]
pub struct ServeArgs {
    /// Address to listen on, HOST:PORT (port 0 picks a free port; `localhost` is 127.0.0.1).
    /// Any address other than loopback needs --token and is served over TLS.
    #[arg(long, default_value = "127.0.0.1:6443", value_name = "HOST:PORT")]
    pub listen: String,
    /// The starting cluster: manifest file, directory or `-`; repeatable (default: the demo cluster).
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    pub files: Vec<PathBuf>,
    /// Read directories given with -f recursively.
    #[arg(short = 'R', long)]
    pub recursive: bool,
    #[command(flatten)]
    pub fields: ValidateFlag,
    /// Keep the cluster in DIR (redb); without it the cluster lives in memory.
    #[arg(long = "data-dir", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Start with N generated nodes instead of manifests.
    #[arg(long, value_name = "N")]
    pub nodes: Option<usize>,
    /// Play a scenario (as `repel simulate` reads it) live: its cluster, then its timed steps on
    /// the clock scaled by --time-scale, with the scenario's events; at its end the cluster
    /// goes on under the server's own controllers.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["files", "nodes", "data_dir"])]
    pub scenario: Option<PathBuf>,
    /// Cluster seconds per wall-clock second for the controllers (60 = a minute per second).
    #[arg(long = "time-scale", default_value_t = 1.0)]
    pub time_scale: f64,
    /// Require `Authorization: Bearer TOKEN` on every request; served over HTTPS (a generated
    /// certificate, its CA in --kubeconfig-out, unless --tls-cert-file is given), as kubectl
    /// sends a token only over HTTPS.
    #[arg(long)]
    pub token: Option<String>,
    /// Serve HTTPS with this PEM certificate (chain); needs --tls-private-key-file.
    #[arg(long = "tls-cert-file", value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert-file.
    #[arg(
        long = "tls-private-key-file",
        value_name = "FILE",
        requires = "tls_cert"
    )]
    pub tls_key: Option<PathBuf>,
    /// Serve HTTPS with a generated CA and certificate (always, without --tls-cert-file, on a
    /// non-loopback address); the CA goes into --kubeconfig-out, which this needs.
    #[arg(long)]
    pub tls: bool,
    /// More names for the generated certificate (DNS names or IPs; beyond localhost, the
    /// loopback addresses and the listen address). Repeatable.
    #[arg(long = "tls-san", value_name = "NAME|IP")]
    pub tls_san: Vec<String>,
    /// How long a request may take before its 504 (kube-apiserver's --request-timeout).
    #[arg(long = "request-timeout", value_name = "DURATION", default_value = "1m0s", value_parser = parse_duration)]
    pub request_timeout: std::time::Duration,
    /// How long an Event is kept after its last write, in cluster time (kube-apiserver's
    /// --event-ttl; scaled by --time-scale to the wall clock).
    #[arg(long = "event-ttl", value_name = "DURATION", default_value = "1h0m0s", value_parser = parse_duration)]
    pub event_ttl: std::time::Duration,
    /// Write a kubeconfig for this server to FILE.
    #[arg(long = "kubeconfig-out", value_name = "FILE")]
    pub kubeconfig_out: Option<PathBuf>,
    /// Feature gates in kube's syntax (default: upstream v1.35's).
    #[arg(
        long = "feature-gates",
        value_name = "GATE=BOOL,...",
        default_value = ""
    )]
    pub feature_gates: FeatureGates,
    #[command(flatten)]
    pub admission: AdmissionFlags,
}

fn flatten(v: Value, out: &mut Vec<Value>) {
    if v["kind"] == "List" {
        if let Some(items) = v["items"].as_array() {
            for i in items {
                flatten(i.clone(), out);
            }
        }
    } else if v.is_object() {
        out.push(v);
    }
}

fn seed_objects(args: &ServeArgs) -> Result<Vec<Value>, CliError> {
    let mut out = Vec::new();
    let mut strict = Vec::new();
    if let Some(n) = args.nodes {
        let g = generate(&GenerateOptions {
            nodes: n,
            pods: 0,
            ..Default::default()
        });
        for node in &g.nodes {
            let v = serde_json::to_value(node).map_err(|e| CliError::Usage(e.to_string()))?;
            out.push(v);
        }
    }
    if !args.files.is_empty() {
        for path in expand_paths(&args.files, args.recursive)? {
            let file = path.display().to_string();
            let text = read_text(&path)?;
            for doc in parse_documents(&file, &text)? {
                if doc.value.is_object() {
                    // Only the fields are looked at here; what is not an object is flattened
                    // away below, as before.
                    let _ = for_each_object(&file, &doc, |source: Source, v: &Value| {
                        if let Some(kind) = v.get("kind").and_then(Value::as_str) {
                            let api = v.get("apiVersion").and_then(Value::as_str).unwrap_or("v1");
                            let unknown = repel_api::strict::unknown_fields(kind, v);
                            let duplicates = item_duplicates(&doc, source.item);
                            strict
                                .extend(strict_report(&source, kind, api, v, unknown, duplicates));
                        }
                        Ok(())
                    });
                }
                flatten(doc.value, &mut out);
            }
        }
    }
    answer_strict(&strict, args.fields.validate).map_err(CliError::Usage)?;
    if args.nodes.is_none() && args.files.is_empty() {
        for doc in parse_documents("demo cluster", DEMO_CLUSTER)? {
            flatten(doc.value, &mut out);
        }
    }
    Ok(out)
}

/// A Go duration as kube-apiserver's flags take it (`60s`, `1m0s`, `1m30s`, `500ms`).
fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let bad = || format!("invalid duration {s:?} (e.g. 60s, 1m0s, 500ms)");
    let mut rest = s.trim();
    let mut total = 0f64;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let n: f64 = rest[..num_end].parse().map_err(|_| bad())?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            _ => return Err(bad()),
        };
        total += n * scale;
        rest = &rest[unit_end..];
    }
    if !(total > 0.0 && total < 1e9) {
        return Err(format!("{s:?}: the request timeout must be positive"));
    }
    Ok(std::time::Duration::from_secs_f64(total))
}

/// Resolves `--listen` (`HOST:PORT`, `localhost:6443`, `[::1]:0`): the first address, an
/// IPv4 one when the host has both (as `localhost` usually does).
fn resolve_listen(listen: &str) -> Result<SocketAddr, CliError> {
    use std::net::ToSocketAddrs;
    if let Ok(a) = listen.parse::<SocketAddr>() {
        return Ok(a);
    }
    let addrs: Vec<SocketAddr> = listen
        .to_socket_addrs()
        .map_err(|e| CliError::Usage(format!("--listen {listen}: {e} (want HOST:PORT)")))?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or_else(|| addrs.first())
        .copied()
        .ok_or_else(|| CliError::Usage(format!("--listen {listen}: no address")))
}

/// Why `--token` alone is refused: kubectl would send the token over plain HTTP never.
pub const MSG_TOKEN_NEEDS_TLS: &str = "--token needs TLS, as kubectl sends a bearer token only over HTTPS: give --kubeconfig-out FILE (the server then generates a certificate and writes its CA there) or --tls-cert-file and --tls-private-key-file";

/// Why a generated certificate needs `--kubeconfig-out`.
pub const MSG_GENERATED_CERT_NEEDS_KUBECONFIG: &str = "a generated certificate needs --kubeconfig-out FILE to hand its CA to clients (or give --tls-cert-file and --tls-private-key-file)";

/// Runs the server until interrupted.
pub fn run(args: ServeArgs) -> Result<u8, CliError> {
    let admission = args.admission.config()?;
    let listen = resolve_listen(&args.listen)?;
    if args.token.as_deref() == Some("") {
        return Err(CliError::Usage("--token must not be empty".to_string()));
    }
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => repel_server::net::TlsSource::Files {
            cert: cert.clone(),
            key: key.clone(),
        },
        // kubectl sends a bearer token only over HTTPS (client-go reads a kubeconfig's
        // credentials only for a TLS transport), so a token means TLS.
        _ if args.tls || args.token.is_some() || !listen.ip().is_loopback() => {
            repel_server::net::TlsSource::Generate {
                extra_names: args.tls_san.clone(),
            }
        }
        _ => repel_server::net::TlsSource::None,
    };
    // (A non-loopback address without a token is refused by the server first, naming that.)
    if matches!(tls, repel_server::net::TlsSource::Generate { .. })
        && args.kubeconfig_out.is_none()
        && (args.token.is_some() || listen.ip().is_loopback())
    {
        let msg = if args.token.is_some() && !args.tls {
            MSG_TOKEN_NEEDS_TLS
        } else {
            MSG_GENERATED_CERT_NEEDS_KUBECONFIG
        };
        return Err(CliError::Usage(msg.to_string()));
    }
    // A scenario brings its cluster, its admission plugins (with the command line's over them,
    // as for `simulate`) and its feature gates.
    let (seed, scenario, admission, gates) = match &args.scenario {
        Some(path) => {
            let (scenario, input) =
                crate::scenario_file::load_scenario(path, args.fields.validate)?;
            let scenario = crate::scenario_file::with_admission_flags(scenario, &args.admission);
            let cfg = repel_engine::sim::SimConfig::from_scenario(&scenario);
            (
                Vec::new(),
                Some(repel_server::scenario::ScenarioSetup { scenario, input }),
                cfg.admission,
                cfg.gates,
            )
        }
        None => (seed_objects(&args)?, None, admission, args.feature_gates),
    };
    let cfg = repel_server::Config {
        listen,
        data_dir: args.data_dir.clone(),
        token: args.token.clone(),
        time_scale: args.time_scale,
        seed,
        admission: repel_server::Admission {
            config: admission,
            gates,
        },
        tls,
        request_timeout: args.request_timeout,
        scenario,
        event_ttl: args.event_ttl,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Output(e.to_string()))?;
    rt.block_on(async {
        let running = repel_server::start(cfg)
            .await
            .map_err(|e| CliError::Usage(e.to_string()))?;
        for w in &running.warnings {
            eprintln!("warning: not loaded: {w}");
        }
        let nodes = running.app.store.count("nodes");
        let pods = running.app.store.count("pods");
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "repel serve: listening on {} ({} nodes, {} pods)",
            running.url(),
            nodes,
            pods
        );
        if let Some(path) = &args.kubeconfig_out {
            let kc = repel_server::kubeconfig(
                &running.url(),
                args.token.as_deref(),
                running.ca_pem.as_deref(),
            );
            std::fs::write(path, kc)
                .map_err(|e| CliError::Output(format!("{}: {e}", path.display())))?;
            let _ = writeln!(out, "  export KUBECONFIG={}", path.display());
            let _ = writeln!(out, "  kubectl get nodes");
        } else {
            let token = args
                .token
                .as_deref()
                .map(|t| format!(" --token {t}"))
                .unwrap_or_default();
            let _ = writeln!(out, "  kubectl --server {}{token} get nodes", running.url());
        }
        let _ = writeln!(out, "  the report page: {}/ui/", running.url());
        let _ = out.flush();
        drop(out);
        tokio::select! {
            _ = running.task => {}
            _ = running.control => {
                return Err(CliError::Output("the control plane stopped".into()));
            }
            _ = tokio::signal::ctrl_c() => {}
        }
        Ok::<(), CliError>(())
    })?;
    Ok(0)
}
