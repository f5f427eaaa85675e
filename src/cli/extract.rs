//! `llfacts extract`: modules to one directory of fact files.

use std::path::PathBuf;

use clap::Args;

use super::{Jobs, Quiet};

/// Extract facts from LLVM modules (.bc or .ll) into one directory of <relation>.facts files.
///
/// Several inputs give one fact set: ids are unique across modules, and functions and
/// globals carry their names so they link across modules. The output directory is
/// written beside the destination and moved into place only on success.
#[derive(Args)]
pub struct ExtractArgs {
    /// Input modules: LLVM bitcode (.bc) or assembly (.ll), as produced by LLVM 19.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Output directory (created or replaced).
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    #[command(flatten)]
    jobs: Jobs,
    #[command(flatten)]
    quiet: Quiet,
}

pub fn run(args: ExtractArgs) -> anyhow::Result<()> {
    let quiet = args.quiet.quiet;
    let summary = args
        .jobs
        .pool()?
        .install(|| llfacts::extract::to_dir(&args.inputs, &args.output, quiet))?;
    if !quiet {
        eprintln!("llfacts: {summary}");
    }
    Ok(())
}
