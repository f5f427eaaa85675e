use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Turn LLVM bitcode into Datalog facts, and evaluate Soufflé rules over them.
#[derive(Parser)]
#[command(name = "llfacts", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the Soufflé declarations of every fact relation.
    Schema,
    // ENGINE: `Run` variant goes here.
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Schema => Ok::<(), anyhow::Error>(()),
        // ENGINE: `Run` dispatch goes here.
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("llfacts: {err:#}");
            ExitCode::from(1)
        }
    }
}
