//! Command-line definitions of both binaries, kept in the library so that the man pages and
//! shell completions are generated from the same definitions (and a test catches drift).

pub mod eval;
pub mod filter;

use std::io::Write;

/// What `--generate` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Generate {
    /// The roff man page.
    Man,
    /// bash completions.
    CompleteBash,
    /// zsh completions.
    CompleteZsh,
    /// fish completions.
    CompleteFish,
}

/// Writes the man page or a completion script for `command` to `out`.
pub fn generate(what: Generate, mut command: clap::Command, out: &mut dyn Write) -> std::io::Result<()> {
    use clap_complete::Shell;
    let name = command.get_name().to_string();
    let shell = match what {
        Generate::Man => return clap_mangen::Man::new(command).render(out),
        Generate::CompleteBash => Shell::Bash,
        Generate::CompleteZsh => Shell::Zsh,
        Generate::CompleteFish => Shell::Fish,
    };
    clap_complete::generate(shell, &mut command, name, out);
    Ok(())
}
