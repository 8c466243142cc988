//! `repel snapshot`: a live cluster written out as manifests, to share, reproduce and put
//! under `repel test`. What is read and what is stripped: [`repel_cli::live`].

use std::path::{Path, PathBuf};

use clap::Args;
use repel_cli::live::{self, KINDS, Target};

use crate::CliError;

/// Arguments of `repel snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// The kubeconfig (default: $KUBECONFIG, else ~/.kube/config, as kubectl).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context (default: its current context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// A directory to write one file per kind into (`01-namespaces.yaml` … `11-pods.yaml`,
    /// in the order repel reads them), or `-` for one multi-document YAML stream on stdout.
    #[arg(short = 'o', long = "output", value_name = "DIR|-")]
    pub output: PathBuf,
}

/// Runs `repel snapshot`.
pub fn run(args: SnapshotArgs) -> Result<u8, CliError> {
    let target = Target {
        kubeconfig: args.kubeconfig,
        context: args.context,
    };
    let snapshot = live::read(&target)?;
    for w in &snapshot.warnings {
        eprintln!("warning: {w}");
    }
    if args.output == Path::new("-") {
        let mut text = String::new();
        for objects in &snapshot.objects {
            for v in objects {
                text.push_str("---\n");
                text.push_str(&crate::output::to_yaml(v)?);
            }
        }
        out!("{text}");
        return Ok(0);
    }
    let written = live::write_snapshot(&snapshot, &args.output).map_err(CliError::Output)?;
    let counts: Vec<String> = KINDS
        .iter()
        .zip(&snapshot.objects)
        .filter(|(_, o)| !o.is_empty())
        .map(|(k, o)| format!("{} {}", o.len(), k.resource))
        .collect();
    eprintln!(
        "cluster {} ({}): {} objects written to {} in {} files ({})",
        snapshot.context,
        snapshot.server,
        snapshot.len(),
        args.output.display(),
        written.len(),
        if counts.is_empty() {
            "nothing repel uses".to_string()
        } else {
            counts.join(", ")
        }
    );
    Ok(0)
}
