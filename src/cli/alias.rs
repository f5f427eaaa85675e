//! `llfacts alias`: may-alias queries answered from one points-to solution.

use std::io::BufRead;
use std::path::PathBuf;

use anyhow::{Context, anyhow};
use clap::Args;

use llfacts::analysis::pointsto::{self, Names};

use super::options::{AnalysisOptions, Frame, Usage};

/// May two values of a function alias? Prints `may-alias` or `no-alias` and exits 0.
///
/// Values are named as in the `.ll` text: `%p`, `%5`, `@global`. With --queries, each line
/// of FILE is `FUNCTION VALUE1 VALUE2` and the answers are printed in order, one per line,
/// from one solution of the whole program. With --facts DIR, the arguments are only the
/// query.
#[derive(Args)]
#[command(
    override_usage = "llfacts alias INPUT... FUNCTION VALUE1 VALUE2\n       llfacts alias INPUT... --queries FILE\n       llfacts alias --facts DIR FUNCTION VALUE1 VALUE2"
)]
pub struct AliasArgs {
    /// Input modules (none with --facts), then (without --queries) FUNCTION VALUE1 VALUE2.
    #[arg(value_name = "ARG")]
    args: Vec<String>,
    /// Answer every `FUNCTION VALUE1 VALUE2` line of FILE (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    queries: Option<PathBuf>,
    #[command(flatten)]
    options: AnalysisOptions,
    #[command(flatten)]
    frame: Frame,
}

type Query = (String, String, String);

pub fn run(args: AliasArgs) -> anyhow::Result<()> {
    let options = args.options.options()?;
    let (inputs, queries): (Vec<PathBuf>, Vec<Query>) = match &args.queries {
        Some(file) => (
            args.args.iter().map(PathBuf::from).collect(),
            read_queries(file)?,
        ),
        None => {
            let needed = if args.frame.facts.is_some() { 3 } else { 4 };
            if args.args.len() < needed {
                return Err(Usage(
                    "usage: llfacts alias INPUT... FUNCTION VALUE1 VALUE2 (or --queries FILE, or --facts DIR)".into(),
                )
                .into());
            }
            let (inputs, q) = args.args.split_at(args.args.len() - 3);
            (
                inputs.iter().map(PathBuf::from).collect(),
                vec![(q[0].clone(), q[1].clone(), q[2].clone())],
            )
        }
    };
    if inputs.is_empty() && args.frame.facts.is_none() {
        return Err(Usage(
            "usage: llfacts alias INPUT... --queries FILE (or --facts DIR --queries FILE)".into(),
        )
        .into());
    }
    let (answers, skipped) = args.frame.run(&inputs, false, |session| {
        let solution = pointsto::solve(session, &options)?;
        let names = Names::new(session.facts(), &solution)?;
        queries
            .iter()
            .map(|(f, a, b)| {
                let a = names.resolve(f, a)?;
                let b = names.resolve(f, b)?;
                Ok(if solution.may_alias_values(&a, &b) {
                    "may-alias"
                } else {
                    "no-alias"
                })
            })
            .collect::<anyhow::Result<Vec<&str>>>()
    })?;
    for a in answers {
        println!("{a}");
    }
    skipped.into_result()
}

fn read_queries(file: &PathBuf) -> anyhow::Result<Vec<Query>> {
    let reader: Box<dyn BufRead> = if file.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(file).with_context(|| format!("{}", file.display()))?;
        Box::new(std::io::BufReader::new(f))
    };
    let mut queries = Vec::new();
    for (n, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("{}", file.display()))?;
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            [] => {}
            [f, a, b] => queries.push((f.to_string(), a.to_string(), b.to_string())),
            _ => {
                return Err(anyhow!(
                    "{}:{}: expected `FUNCTION VALUE1 VALUE2`, got `{line}`",
                    file.display(),
                    n + 1
                ));
            }
        }
    }
    Ok(queries)
}
