//! The `llfacts` binary: the command-line definitions and dispatch (see `cli/`).

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use llfacts::isolate::Reported;

const EXAMPLES: &str = "Examples:
  llfacts extract foo.bc -o facts/             facts for one module
  llfacts extract a.bc b.ll c.bc -o facts/     one fact set for several modules
  llfacts schema > schema.dl                   declarations to include from Soufflé programs
  llfacts run rules/callgraph.dl -F facts/ -D -   evaluate rules, print the outputs
  llfacts analyze prog.bc --callgraph-dot cg.dot  points-to analysis and call graph
  llfacts alias prog.bc main %p %q             may-alias or no-alias
  llfacts dtrans prog.bc                       which struct layouts may change";

/// Turn LLVM bitcode into Datalog facts for Soufflé, and evaluate Soufflé rules over them.
#[derive(Parser)]
#[command(name = "llfacts", version, about, long_about = None, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Extract(cli::extract::ExtractArgs),
    Schema(cli::schema::SchemaArgs),
    Run(cli::run::RunArgs),
    Check(cli::check::CheckArgs),
    Analyze(cli::analyze::AnalyzeArgs),
    Alias(cli::alias::AliasArgs),
    Dtrans(cli::dtrans::DtransArgs),
    /// The supervised reader process of `check`, `analyze` and `alias` (see isolate.rs).
    #[command(name = cli::read::READ, hide = true)]
    Read(cli::read::ReadArgs),
}

/// Runs a command; its exit code when it ends without an error (1 when `check` or
/// `analyze` report findings).
fn run(command: Command) -> anyhow::Result<ExitCode> {
    let done = |r: anyhow::Result<()>| r.map(|()| ExitCode::SUCCESS);
    match command {
        Command::Extract(args) => done(cli::extract::run(args)),
        Command::Schema(args) => done(cli::schema::run(args)),
        Command::Run(args) => done(cli::run::run(args)),
        Command::Check(args) => cli::check::run(args),
        Command::Analyze(args) => cli::analyze::run(args),
        Command::Alias(args) => done(cli::alias::run(args)),
        Command::Dtrans(args) => cli::dtrans::run(args),
        Command::Read(args) => done(cli::read::run(args)),
    }
}

/// Running out of memory is a one-line error, not an abort (`oom.rs`).
#[global_allocator]
static ALLOCATOR: llfacts::oom::ExitOnOom = llfacts::oom::ExitOnOom;

fn main() -> ExitCode {
    // A bug must still end in one line and a non-zero exit, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        // A reader that stopped reading (`llfacts dtrans x.bc | head`) is no error.
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "llfacts: internal error{at}: {}",
            msg.lines().next().unwrap_or("")
        );
        std::process::exit(101);
    }));
    llfacts::facts::writer::reserve_descriptors();
    llfacts::isolate::handle_signals();
    llfacts::isolate::set_fork_entry(forked_reader);
    llfacts::isolate::set_command_lines(cli::read::COMMAND_LINES);
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(err) => match err.downcast_ref::<Reported>() {
            Some(Reported(code)) => ExitCode::from(*code as u8),
            None => {
                eprintln!("llfacts: {err:#}");
                ExitCode::from(if err.is::<cli::options::Usage>() { 2 } else { 1 })
            }
        },
    }
}

/// `extract`'s reader when it runs in a fork of this process (see `isolate.rs`): the same
/// as running the binary with `argv`.
fn forked_reader(argv: Vec<std::ffi::OsString>) -> i32 {
    let cli = Cli::parse_from(argv);
    match run(cli.command) {
        Ok(code) if code == ExitCode::SUCCESS => 0,
        Ok(_) => 1,
        Err(ref err) if let Some(Reported(code)) = err.downcast_ref() => *code,
        Err(err) => {
            eprintln!("llfacts: {err:#}");
            1
        }
    }
}
