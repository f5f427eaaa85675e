use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

const EXAMPLES: &str = "Examples:
  llfacts extract foo.bc -o facts/             facts for one module
  llfacts extract a.bc b.ll c.bc -o facts/     one fact set for several modules
  llfacts schema > schema.dl                   declarations to include from Soufflé programs
  llfacts run rules/callgraph.dl -F facts/ -D -   evaluate rules, print the outputs";

/// Turn LLVM bitcode into Datalog facts for Soufflé, and evaluate Soufflé rules over them.
#[derive(Parser)]
#[command(name = "llfacts", version, about, long_about = None, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Extract facts from LLVM modules (.bc or .ll) into one directory of <relation>.facts files.
    ///
    /// Several inputs give one fact set: ids are unique across modules, and functions and
    /// globals carry their names so they link across modules. The output directory is
    /// written beside the destination and moved into place only on success.
    Extract {
        /// Input modules: LLVM bitcode (.bc) or assembly (.ll), as produced by LLVM 19.
        #[arg(required = true, value_name = "INPUT")]
        inputs: Vec<PathBuf>,
        /// Output directory (created or replaced).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// Worker threads [default: all cores]. The output is byte-identical for every value.
        #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
        /// Print nothing but errors.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Print the Soufflé declarations of every fact relation, or write them as schema files.
    Schema {
        /// Write one file per relation group plus llfacts.dl into DIR instead of printing.
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
    },
    /// Evaluate a Datalog program (Soufflé flags: -F facts, -D output dir, -j threads).
    Run(llfacts::engine::cli::RunArgs),
    /// Check modules against LLVM's IR constraints; exit 1 if any is violated.
    ///
    /// Extracts the inputs in memory and runs the built-in rules (rules/checks.dl,
    /// rules/wellformed.dl) plus any --rules, each of which outputs
    /// `violation(check, entity, message)`. Each violation is reported with the source
    /// location of its entity when the module has debug info.
    Check {
        /// Input modules (.bc or .ll).
        #[arg(
            value_name = "INPUT",
            required_unless_present = "facts",
            conflicts_with = "facts"
        )]
        inputs: Vec<PathBuf>,
        /// Check an existing fact directory instead of extracting modules.
        #[arg(long, value_name = "DIR")]
        facts: Option<PathBuf>,
        /// More rule files to run; each must output `violation(check, entity, message)`.
        #[arg(long = "rules", value_name = "FILE")]
        rules: Vec<PathBuf>,
        /// Report format.
        #[arg(long, value_enum, default_value_t = llfacts::check::Format::Text)]
        format: llfacts::check::Format,
        /// Write the report to FILE instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Worker threads [default: all cores].
        #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
        /// Which evaluator runs the rules.
        #[arg(long, value_enum, default_value_t = llfacts::engine::EngineChoice::Auto)]
        engine: llfacts::engine::EngineChoice,
    },
}

fn thread_pool(jobs: Option<u16>) -> anyhow::Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = jobs {
        builder = builder.num_threads(n.into());
    }
    Ok(builder.build()?)
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Extract {
            inputs,
            output,
            jobs,
            quiet,
        } => {
            let summary = thread_pool(jobs)?
                .install(|| llfacts::pipeline::extract(&inputs, &output, quiet))?;
            if !quiet {
                eprintln!("llfacts: {summary}");
            }
            Ok(())
        }
        Command::Schema { write: None } => {
            print!("{}", llfacts::schema::full_text());
            Ok(())
        }
        Command::Schema { write: Some(dir) } => {
            std::fs::create_dir_all(&dir).map_err(|e| {
                anyhow::anyhow!("{}: {}", dir.display(), llfacts::writer::cause(&e))
            })?;
            for (name, text) in llfacts::schema::files() {
                let path = dir.join(name);
                std::fs::write(&path, text)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            }
            Ok(())
        }
        Command::Run(args) => llfacts::engine::cli::run(args),
        Command::Check {
            inputs,
            facts,
            rules,
            format,
            output,
            jobs,
            engine,
        } => {
            use llfacts::check;
            let backend = llfacts::engine::select_backend(engine)?;
            let source = match &facts {
                Some(dir) => check::Source::FactDir(dir),
                None => check::Source::Modules(&inputs),
            };
            let pool = thread_pool(jobs)?;
            let threads = pool.current_num_threads();
            let violations = pool.install(|| check::run(source, &rules, &backend, threads))?;
            let report = check::render(&violations, format);
            match output {
                Some(path) => std::fs::write(&path, report)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
                None => print!("{report}"),
            }
            if violations.is_empty() {
                return Ok(());
            }
            let checks: std::collections::BTreeSet<&str> =
                violations.iter().map(|v| v.check.as_str()).collect();
            eprintln!(
                "llfacts: {} violations of {} checks",
                violations.len(),
                checks.len()
            );
            std::process::exit(1);
        }
    }
}

fn main() -> ExitCode {
    // A bug must still end in one line and a non-zero exit, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "llfacts: internal error{at}: {}",
            msg.lines().next().unwrap_or("")
        );
        std::process::exit(101);
    }));
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("llfacts: {err:#}");
            ExitCode::from(1)
        }
    }
}
