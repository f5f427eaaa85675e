//! `llfacts extract`: modules to one directory of fact files.

use std::path::PathBuf;

use clap::Args;

use super::options::{Jobs, Quiet, Reading, Skipped};
use llfacts::extract::ReadOptions;

/// Extract facts from LLVM modules (.bc or .ll) into one directory of <relation>.facts files.
///
/// Several inputs give one fact set: ids are unique across modules, and functions and
/// globals carry their names so they link across modules. The output directory is
/// written beside the destination and moved into place only on success.
#[derive(Args)]
pub struct ExtractArgs {
    /// Input modules: LLVM bitcode (.bc) or assembly (.ll), from LLVM 22 or earlier.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Output directory (created or replaced).
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    #[command(flatten)]
    jobs: Jobs,
    #[command(flatten)]
    quiet: Quiet,
    #[command(flatten)]
    reading: Reading,
}

pub fn run(args: ExtractArgs) -> anyhow::Result<()> {
    llfacts::oom::set_subject(&args.inputs);
    if !args.reading.no_isolate {
        // The child runs this command line again, in-process; it prints everything.
        let argv: Vec<_> = std::env::args_os().skip(1).collect();
        let keep_going = args.reading.keep_going;
        let code = llfacts::isolate::extract(&argv, &args.inputs, &args.output, keep_going)?;
        if code != 0 {
            return Err(llfacts::isolate::Reported(code).into());
        }
        return Ok(());
    }
    let quiet = args.quiet.quiet;
    let opts = ReadOptions {
        // The process ends with the command.
        leak_last_module: true,
        ..args.reading.options(quiet)
    };
    let summary = args
        .jobs
        .pool()?
        .install(|| llfacts::extract::to_dir(&args.inputs, &args.output, &opts))?;
    if !quiet {
        eprintln!("llfacts: {summary}");
    }
    Skipped::of(&args.inputs, &summary.skipped).into_result()
}
