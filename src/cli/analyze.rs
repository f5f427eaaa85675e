//! `llfacts analyze`: whole-program analyses, chosen from the library's declarations.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser};

use llfacts::analysis::pointsto::Solution;
use llfacts::analysis::report::{self, Format, Reporter};
use llfacts::analysis::{ANALYSES, Explain, Results, Severity, find};

use super::options::{AnalysisOptions, FormatArg, Input, Quiet, Usage};

/// Analyse a whole program: extract the inputs in memory (or read --facts), run the
/// analysis, and report.
///
/// Prints a summary and the analysis' findings, if it has any (the exit code is 1 if one
/// is an error or a warning),
/// and with -o writes the analysis' output relations as Soufflé does, one `<relation>.csv`
/// file each. The default, andersen, runs rules/andersen.dl (inclusion-based,
/// field-sensitive, call graph on the fly) over the modules as one program.
#[derive(Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    input: Input,
    /// The analysis to run.
    #[arg(long, value_name = "NAME", default_value = ANALYSES[0].name(), value_parser = analyses())]
    analysis: String,
    /// Write the output relations into DIR (created or replaced).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// With -o, write only these relations (comma-separated): on a large program
    /// var_points_to and var_points_to_field hold most of the output (16 GB on SQLite).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',', requires = "output")]
    relations: Vec<String>,
    #[command(flatten)]
    options: AnalysisOptions,
    /// Output format: the summary and findings as text or JSON, or the findings as SARIF.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Write the resolved call graph as Graphviz DOT to FILE (indirect edges dashed; the
    /// andersen analysis).
    #[arg(long, value_name = "FILE")]
    callgraph_dot: Option<PathBuf>,
    /// Explain why POINTER may point to OBJECT (ids as in the facts and the outputs): the
    /// chain of nodes it came through, printed after the summary. Copy cycles are not
    /// merged while explaining, so the solve is slower (SQLite after mem2reg: about 35x).
    #[arg(long, num_args = 2, value_names = ["POINTER", "OBJECT"])]
    explain: Vec<String>,
    #[command(flatten)]
    quiet: Quiet,
}

fn analyses() -> PossibleValuesParser {
    PossibleValuesParser::new(
        ANALYSES
            .iter()
            .map(|a| PossibleValue::new(a.name()).help(a.summary())),
    )
}

pub fn run(args: AnalyzeArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let analysis = find(&args.analysis).expect("clap checked the name");
    let outputs = analysis.outputs();
    if let Some(r) = args.relations.iter().find(|r| !outputs.contains(&r.as_str())) {
        return Err(Usage(format!(
            "--relations: `{}` does not output `{r}` (it outputs {})",
            analysis.name(),
            outputs.join(", ")
        ))
        .into());
    }
    if let Some(path) = &args.callgraph_dot {
        if analysis.name() != ANALYSES[0].name() {
            let only = format!("--callgraph-dot: only the {} analysis", ANALYSES[0].name());
            return Err(Usage(only).into());
        }
        // Checked now: a failure after `-o` was written would leave half the outputs.
        llfacts::facts::writer::check_file_destination(path)?;
    }
    let mut options = args.options.options()?;
    if let [pointer, object] = &args.explain[..] {
        if analysis.name() != ANALYSES[0].name() {
            let only = format!("--explain: only the {} analysis", ANALYSES[0].name());
            return Err(Usage(only).into());
        }
        options.explain = Some(Explain {
            pointer: pointer.clone(),
            object: object.clone(),
        });
    }
    let quiet = args.quiet.quiet;
    let progress = !quiet && std::io::stderr().is_terminal();
    let stage = |what: &str| {
        if progress {
            eprint!("\r\x1b[2Kllfacts: {what}");
        }
    };
    let name = analysis.name();
    let input = &args.input;
    if input.frame.facts.is_none() {
        stage("extracting...");
    }
    let (failing, skipped) = input.frame.run(&input.inputs, quiet, |session| {
        stage(&format!("{name} ({})...", session.backend().name()));
        let results = analysis.run(session, &options)?;
        if progress {
            eprint!("\r\x1b[2K");
        }
        if let Some(dir) = &args.output {
            // In the analysis' order, each once.
            let chosen: Vec<&str> = (outputs.iter().copied())
                .filter(|r| args.relations.is_empty() || args.relations.iter().any(|c| c == r))
                .collect();
            results.write(dir, &chosen)?;
        }
        if let Some(path) = &args.callgraph_dot {
            let solution = (results.as_any().downcast_ref::<Solution>())
                .expect("the points-to analysis gives a solution");
            let dot = solution.call_graph_dot(session.facts())?;
            llfacts::facts::writer::write_file(path, dot.as_bytes())?;
        }
        let findings = results.findings(session)?;
        let secs = start.elapsed().as_secs_f64();
        let reporter = Reporter {
            tool: "analyze",
            items: "findings",
            rule: "rule",
        };
        match args.format {
            FormatArg::Text => {
                if !quiet {
                    println!("{name}: {}; {secs:.2}s", results.summary(session)?);
                }
                for line in explanation(&*results) {
                    println!("{line}");
                }
                print!("{}", report::render(&findings, reporter, Format::Text));
            }
            FormatArg::Json => {
                let mut doc = results.summary_json(session)?;
                doc["analysis"] = name.into();
                doc["seconds"] = secs.into();
                if !findings.is_empty() {
                    doc["findings"] = report::json_items(&findings, reporter).into();
                }
                if !args.explain.is_empty() {
                    doc["explanation"] = explanation(&*results).into();
                }
                println!("{}", serde_json::to_string_pretty(&doc).expect("JSON"));
            }
            FormatArg::Sarif => print!("{}", report::render(&findings, reporter, Format::Sarif)),
        }
        // Notes inform; errors and warnings are what a pipeline gates on.
        Ok(findings.iter().any(|f| f.severity != Severity::Note))
    })?;
    skipped.into_result()?;
    Ok(if failing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--explain`'s lines, if the results hold any.
fn explanation(results: &dyn Results) -> &[String] {
    match results.as_any().downcast_ref::<Solution>() {
        Some(solution) => solution.explanation(),
        None => &[],
    }
}
