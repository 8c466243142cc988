//! `repel completions SHELL`: the shell's completion script for every command and flag
//! (clap_complete), printed for the user to install — e.g.
//! `repel completions bash > ~/.local/share/bash-completion/completions/repel`.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::{Cli, CliError};

/// `repel completions` flags.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  repel completions bash > ~/.local/share/bash-completion/completions/repel
  repel completions zsh > \"${fpath[1]}/_repel\"
  repel completions fish > ~/.config/fish/completions/repel.fish
  repel completions powershell >> $PROFILE")]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Prints the completion script.
pub fn run(args: CompletionsArgs) -> Result<u8, CliError> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "repel", &mut out);
    crate::output::write_stdout(&out)?;
    Ok(0)
}
