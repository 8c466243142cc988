//! `repel snapshot`: a live cluster written out as manifests, to share, reproduce and put
//! under `repel test`. What is read and what is stripped: [`repel_manifest::live`].

use std::path::{Path, PathBuf};

use clap::Args;
use repel_manifest::live::{self, KINDS, Target};

use crate::CliError;

/// Arguments of `repel snapshot`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel snapshot --kubeconfig ~/.kube/config -o snapshot/
  repel snapshot --kubeconfig ~/.kube/config --context prod -o -")]
pub struct SnapshotArgs {
    /// The kubeconfig (default: $KUBECONFIG, else ~/.kube/config, as kubectl).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context (default: its current context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Read the cluster this pod runs in, as its service account (see `repel schedule --help`).
    #[arg(long, conflicts_with_all = ["kubeconfig", "context"])]
    pub in_cluster: bool,
    /// A directory to write one file per kind into (`01-namespaces.yaml` … `12-pods.yaml`,
    /// in the order repel reads them; a kind of more than 10,000 objects in parts,
    /// `12-pods-0001.yaml` …), or `-` for one multi-document YAML stream on stdout.
    #[arg(short = 'o', long = "output", value_name = "DIR|-")]
    pub output: PathBuf,
}

/// Runs `repel snapshot`.
pub fn run(args: SnapshotArgs) -> Result<u8, CliError> {
    let target = Target {
        kubeconfig: args.kubeconfig,
        context: args.context,
        in_cluster: args.in_cluster,
    };
    let listing = live::read_yaml(&target)?;
    for w in &listing.warnings {
        eprintln!("warning: {w}");
    }
    if args.output == Path::new("-") {
        for pages in &listing.kinds {
            for page in pages {
                out!("{}", page.text);
            }
        }
        return Ok(0);
    }
    let written = live::write_snapshot(&listing, &args.output).map_err(CliError::Output)?;
    let counts: Vec<(usize, String)> = KINDS
        .iter()
        .zip(&listing.kinds)
        .map(|(k, pages)| (pages.iter().map(|p| p.starts.len()).sum(), k.resource()))
        .filter(|(n, _)| *n > 0)
        .collect();
    let total: usize = counts.iter().map(|(n, _)| n).sum();
    eprintln!(
        "cluster {} ({}): {} objects written to {} in {} files ({})",
        listing.context,
        listing.server,
        total,
        args.output.display(),
        written.len(),
        if counts.is_empty() {
            "nothing repel uses".to_string()
        } else {
            counts
                .iter()
                .map(|(n, r)| format!("{n} {r}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    Ok(0)
}
