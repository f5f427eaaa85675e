//! `llfacts alias`: may-alias queries answered from one points-to solution.

use std::io::BufRead;
use std::path::PathBuf;

use anyhow::{Context, anyhow, bail};
use clap::Args;

use llfacts::analysis::Runner;
use llfacts::analysis::pointsto::Names;

use super::{Engine, Jobs, PointsTo, Reading, skipped_error};

/// May two values of a function alias? Prints `may-alias` or `no-alias` and exits 0.
///
/// Values are named as in the `.ll` text: `%p`, `%5`, `@global`. With --queries, each line
/// of FILE is `FUNCTION VALUE1 VALUE2` and the answers are printed in order, one per line,
/// from one solution of the whole program.
#[derive(Args)]
#[command(
    override_usage = "llfacts alias INPUT... FUNCTION VALUE1 VALUE2\n       llfacts alias INPUT... --queries FILE"
)]
pub struct AliasArgs {
    /// Input modules, then (without --queries) FUNCTION VALUE1 VALUE2.
    #[arg(required = true, value_name = "ARG")]
    args: Vec<String>,
    /// Answer every `FUNCTION VALUE1 VALUE2` line of FILE (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    queries: Option<PathBuf>,
    #[command(flatten)]
    points_to: PointsTo,
    #[command(flatten)]
    jobs: Jobs,
    #[command(flatten)]
    engine: Engine,
    #[command(flatten)]
    reading: Reading,
}

type Query = (String, String, String);

pub fn run(args: AliasArgs) -> anyhow::Result<()> {
    let (inputs, queries): (Vec<PathBuf>, Vec<Query>) = match &args.queries {
        Some(file) => (
            args.args.iter().map(PathBuf::from).collect(),
            read_queries(file)?,
        ),
        None => {
            if args.args.len() < 4 {
                bail!("usage: llfacts alias INPUT... FUNCTION VALUE1 VALUE2 (or --queries FILE)");
            }
            let (inputs, q) = args.args.split_at(args.args.len() - 3);
            (
                inputs.iter().map(PathBuf::from).collect(),
                vec![(q[0].clone(), q[1].clone(), q[2].clone())],
            )
        }
    };
    let backend = args.engine.backend()?;
    let pool = args.jobs.pool()?;
    let (answers, skipped) = pool.install(|| -> anyhow::Result<(Vec<&str>, _)> {
        let (facts, skipped) = args.reading.to_memory(&inputs, false)?;
        let mut runner = Runner::new(&facts, backend, pool.current_num_threads());
        let solution = args.points_to.solve(&mut runner)?;
        let names = Names::new(&facts, &solution)?;
        let answers = queries
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
            .collect::<anyhow::Result<_>>()?;
        Ok((answers, skipped))
    })?;
    for a in answers {
        println!("{a}");
    }
    skipped_error(&inputs, &skipped)
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
