//! `llfacts analyze`: points-to analysis of whole programs.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};

use llfacts::analysis::Runner;
use llfacts::analysis::pointsto::{OUTPUTS, Summary};

use super::{Engine, Jobs, PointsTo, Quiet, Reading, skipped_error};

/// Points-to analysis: extract the inputs in memory, solve, and report.
///
/// Runs rules/andersen.dl (inclusion-based, field-sensitive, call graph on the fly) over
/// the modules as one program, prints a summary, and with -o writes the output relations
/// (var_points_to, var_points_to_field, obj_points_to, field_points_to, call_graph_edge,
/// reachable_function, object) as Soufflé does, one `<relation>.csv` file each.
#[derive(Args)]
pub struct AnalyzeArgs {
    /// Input modules (.bc or .ll), analysed together as one program.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// The analysis to run.
    #[arg(long, value_enum, default_value_t = Analysis::Andersen)]
    analysis: Analysis,
    /// Write the output relations into DIR (created or replaced).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// With -o, write only these relations (comma-separated): on a large program
    /// var_points_to and var_points_to_field hold most of the output (16 GB on SQLite).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',', requires = "output",
          value_parser = clap::builder::PossibleValuesParser::new(OUTPUTS))]
    relations: Vec<String>,
    #[command(flatten)]
    points_to: PointsTo,
    /// Summary format.
    #[arg(long, value_enum, default_value_t = SummaryFormat::Text)]
    format: SummaryFormat,
    /// Write the resolved call graph as Graphviz DOT to FILE (indirect edges dashed).
    #[arg(long, value_name = "FILE")]
    callgraph_dot: Option<PathBuf>,
    #[command(flatten)]
    jobs: Jobs,
    #[command(flatten)]
    engine: Engine,
    #[command(flatten)]
    quiet: Quiet,
    #[command(flatten)]
    reading: Reading,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Analysis {
    /// Andersen's inclusion-based points-to analysis.
    Andersen,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SummaryFormat {
    Text,
    Json,
}

pub fn run(args: AnalyzeArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let backend = args.engine.backend()?;
    let progress = !args.quiet.quiet && std::io::stderr().is_terminal();
    let stage = |what: &str| {
        if progress {
            eprint!("\r\x1b[2Kllfacts: {what}");
        }
    };
    let pool = args.jobs.pool()?;
    let name = match args.analysis {
        Analysis::Andersen => "andersen",
    };
    let (facts, solution, skipped) = pool.install(|| -> anyhow::Result<_> {
        stage("extracting...");
        let (facts, skipped) = args.reading.to_memory(&args.inputs, args.quiet.quiet)?;
        stage(&format!("solving ({})...", backend.name()));
        let mut runner = Runner::new(&facts, backend, pool.current_num_threads());
        let solution = args.points_to.solve(&mut runner)?;
        Ok((facts, solution, skipped))
    })?;
    if progress {
        eprint!("\r\x1b[2K");
    }
    if let Some(dir) = &args.output {
        let chosen: Vec<&str> = if args.relations.is_empty() {
            OUTPUTS.to_vec()
        } else {
            // In OUTPUTS' order, each once.
            (OUTPUTS.iter().copied())
                .filter(|r| args.relations.iter().any(|c| c == r))
                .collect()
        };
        solution.write(dir, &chosen)?;
    }
    if let Some(path) = &args.callgraph_dot {
        llfacts::facts::writer::write_file(path, solution.call_graph_dot(&facts)?.as_bytes())?;
    }
    let summary = Summary::of(&solution, &facts)?;
    let secs = start.elapsed().as_secs_f64();
    match args.format {
        SummaryFormat::Text => {
            if !args.quiet.quiet {
                println!("{name}: {summary}; {secs:.2}s");
            }
        }
        SummaryFormat::Json => {
            let mut doc = summary.to_json();
            doc["analysis"] = name.into();
            doc["seconds"] = secs.into();
            println!("{}", serde_json::to_string_pretty(&doc).expect("JSON"));
        }
    }
    skipped_error(&args.inputs, &skipped)
}
