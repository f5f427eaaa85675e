//! `llfacts dtrans`: the DTrans safety analysis and what it leaves legal, per struct type.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use llfacts::analysis::dtrans::{DTRANS, render, report_of};
use llfacts::analysis::{Analysis, Options};

use super::options::{FormatArg, Input, Quiet, Usage};

/// DTrans safety analysis: per struct type, the safety conditions found in the whole
/// program (each with a witness), field access, single-value and single-allocator
/// summaries, and which layout changes are legal: reordering fields (with the padding it
/// saves per instance), deleting fields never read, splitting. Types that are good for
/// something come first. Meant for `clang -O2 -Xclang -disable-llvm-passes` or -O0 output
/// (see docs/dtrans.md).
#[derive(Args)]
pub struct DtransArgs {
    #[command(flatten)]
    input: Input,
    /// Write the output relations (rules/dtrans.dl's) into DIR (created or replaced).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Output format: text for people, json for scripts.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    #[command(flatten)]
    quiet: Quiet,
}

pub fn run(args: DtransArgs) -> anyhow::Result<ExitCode> {
    if args.format == FormatArg::Sarif {
        return Err(Usage("dtrans reports types, not findings: --format text or json".into()).into());
    }
    let input = &args.input;
    let (text, skipped) = input.frame.run(&input.inputs, args.quiet.quiet, |session| {
        let results = DTRANS.run(session, &Options::default())?;
        if let Some(dir) = &args.output {
            results.write(dir, DTRANS.outputs())?;
        }
        let report = report_of(results.as_ref()).expect("dtrans gives its own results");
        Ok(match args.format {
            FormatArg::Json => {
                serde_json::to_string_pretty(&render::json(report)).expect("JSON") + "\n"
            }
            _ => render::text(report, !args.quiet.quiet),
        })
    })?;
    print!("{text}");
    skipped.into_result()?;
    Ok(ExitCode::SUCCESS)
}
