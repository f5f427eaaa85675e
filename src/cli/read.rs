//! `llfacts __read` (hidden): the supervised child of `check`, `analyze` and `alias`; it
//! extracts its inputs and streams the facts to its parent on stdout as they are made.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;

use llfacts::isolate::{CommandLines, ReadLine};

use super::options::{Jobs, Quiet, Reading, flags};

/// The command name of this hidden command.
pub const READ: &str = "__read";

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
    llfacts::oom::set_subject(&args.inputs);
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

/// How the supervisor starts its readers: this command for the in-memory commands, and
/// `extract`'s own command line again, reading in-process.
pub const COMMAND_LINES: CommandLines = CommandLines {
    read: read_line,
    rerun: rerun_line,
};

fn long(flag: &str) -> OsString {
    format!("--{flag}").into()
}

fn skip_args(skip: &[usize]) -> impl Iterator<Item = OsString> + '_ {
    skip.iter()
        .flat_map(|i| [long(flags::SKIP_INPUT), i.to_string().into()])
}

fn read_line(line: &ReadLine) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![READ.into(), long(flags::JOBS), line.jobs.to_string().into()];
    if line.quiet {
        args.push(long(flags::QUIET));
    }
    if line.keep_going {
        args.push(long(flags::KEEP_GOING));
    }
    args.extend(skip_args(line.skip));
    args.push("--".into());
    args.extend(line.inputs.iter().map(|p| p.as_os_str().to_owned()));
    args
}

fn rerun_line(argv: &[OsString], skip: &[usize]) -> Vec<OsString> {
    // The flags go right after the command's name, before any `--`.
    let mut args = argv.to_vec();
    let at = 1.min(args.len());
    let extra: Vec<OsString> = [long(flags::NO_ISOLATE)].into_iter().chain(skip_args(skip)).collect();
    args.splice(at..at, extra);
    args
}
