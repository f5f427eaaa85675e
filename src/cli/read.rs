//! `llfacts __read` (hidden): the supervised child of `check`, `analyze` and `alias`; it
//! extracts its inputs in memory and sends the facts to its parent on stdout.

use std::path::PathBuf;

use clap::Args;

use super::{Jobs, Quiet, Reading};

#[derive(Args)]
pub struct ReadArgs {
    #[arg(value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    #[command(flatten)]
    jobs: Jobs,
    #[command(flatten)]
    quiet: Quiet,
    #[command(flatten)]
    reading: Reading,
}

pub fn run(args: ReadArgs) -> anyhow::Result<()> {
    let opts = args.reading.options(args.quiet.quiet);
    let (facts, skipped) = args
        .jobs
        .pool()?
        .install(|| llfacts::extract::to_memory(&args.inputs, &opts))?;
    llfacts::isolate::send_facts(&facts, &skipped)
}
