//! `repel man`: the manual pages (clap_mangen), from the same definitions as `--help`: `repel.1`
//! on stdout, or with `--dir DIR` one page per command (`repel.1`, `repel-drain.1`, …) written
//! there.

use std::path::PathBuf;

use clap::{Args, CommandFactory};

use crate::{Cli, CliError};

/// `repel man` flags.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel man | man -l -
  repel man --dir man/man1")]
pub struct ManArgs {
    /// Write a page for repel and for each command into this directory (created if missing),
    /// instead of printing repel.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Prints `repel.1`, or writes every page into `--dir`.
pub fn run(args: ManArgs) -> Result<u8, CliError> {
    match args.dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut out)
                .map_err(|e| CliError::Output(e.to_string()))?;
            crate::output::write_stdout(&out)?;
        }
        Some(dir) => {
            let err = |e: std::io::Error| CliError::Output(format!("{}: {e}", dir.display()));
            std::fs::create_dir_all(&dir).map_err(err)?;
            clap_mangen::generate_to(Cli::command(), &dir).map_err(err)?;
            let mut pages: Vec<String> = std::fs::read_dir(&dir)
                .map_err(err)?
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.starts_with("repel") && n.ends_with(".1"))
                .collect();
            pages.sort();
            let list: String = pages
                .iter()
                .map(|p| format!("{}\n", dir.join(p).display()))
                .collect();
            crate::output::write_stdout(list.as_bytes())?;
        }
    }
    Ok(0)
}
