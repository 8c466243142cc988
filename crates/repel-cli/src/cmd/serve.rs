//! `repel serve`: a kubectl-compatible API server with simulated nodes (repel-server).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use repel_core::FeatureGates;
use repel_engine::generate::{GenerateOptions, generate};
use serde_json::Value;

use crate::cmd::demo::DEMO_CLUSTER;
use crate::input::{
    Source, ValidateFlag, answer_strict, expand_paths, for_each_object, item_duplicates,
    parse_documents, read_text, strict_report,
};
use crate::{AdmissionFlags, CliError};

/// Flags of `repel serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port). Non-loopback addresses need --token.
    #[arg(long, default_value = "127.0.0.1:6443")]
    pub listen: SocketAddr,
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
    /// Cluster seconds per wall-clock second for the controllers (60 = a minute per second).
    #[arg(long = "time-scale", default_value_t = 1.0)]
    pub time_scale: f64,
    /// Require `Authorization: Bearer TOKEN` on every request.
    #[arg(long)]
    pub token: Option<String>,
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

/// Runs the server until interrupted.
pub fn run(args: ServeArgs) -> Result<u8, CliError> {
    let admission = args.admission.config()?;
    let seed = seed_objects(&args)?;
    let cfg = repel_server::Config {
        listen: args.listen,
        data_dir: args.data_dir.clone(),
        token: args.token.clone(),
        time_scale: args.time_scale,
        seed,
        admission: repel_server::Admission {
            config: admission,
            gates: args.feature_gates,
        },
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Output(e.to_string()))?;
    rt.block_on(async {
        let running = repel_server::start(cfg)
            .await
            .map_err(|e| CliError::Usage(e.to_string()))?;
        let addr = running.addr;
        for w in &running.warnings {
            eprintln!("warning: not loaded: {w}");
        }
        let (nodes, _) = running.app.store.list("nodes", None);
        let (pods, _) = running.app.store.list("pods", None);
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "repel serve: listening on http://{addr} ({} nodes, {} pods)",
            nodes.len(),
            pods.len()
        );
        if let Some(path) = &args.kubeconfig_out {
            std::fs::write(path, repel_server::kubeconfig(addr, args.token.as_deref()))
                .map_err(|e| CliError::Output(format!("{}: {e}", path.display())))?;
            let _ = writeln!(out, "  export KUBECONFIG={}", path.display());
            let _ = writeln!(out, "  kubectl get nodes");
        } else {
            let token = args
                .token
                .as_deref()
                .map(|t| format!(" --token {t}"))
                .unwrap_or_default();
            let _ = writeln!(out, "  kubectl --server http://{addr}{token} get nodes");
        }
        let _ = out.flush();
        drop(out);
        tokio::select! {
            _ = running.task => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        Ok::<(), CliError>(())
    })?;
    Ok(0)
}
