//! `llfacts __read` (hidden): the supervised child of `check`, `analyze` and `alias`; it
//! extracts its inputs and streams the facts to its parent on stdout as they are made.

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
    let mut out = llfacts::isolate::FactSender::new();
    let skipped = args.jobs.pool()?.install(|| {
        llfacts::extract::to_sink(&args.inputs, &opts, &mut |facts| {
            out.send(&facts)?;
            facts.recycle();
            Ok(())
        })
    })?;
    out.finish(&skipped)
}
