//! `llfacts schema`: the Soufflé declarations of every relation.

use std::path::PathBuf;

use anyhow::anyhow;
use clap::Args;

use llfacts::facts::schema;
use llfacts::facts::writer::cause;

/// Print the Soufflé declarations of every fact relation, or write them as schema files.
#[derive(Args)]
pub struct SchemaArgs {
    /// Write one file per relation group plus llfacts.dl into DIR instead of printing.
    #[arg(long, value_name = "DIR")]
    write: Option<PathBuf>,
}

pub fn run(args: SchemaArgs) -> anyhow::Result<()> {
    let Some(dir) = args.write else {
        print!("{}", schema::full_text());
        return Ok(());
    };
    std::fs::create_dir_all(&dir).map_err(|e| anyhow!("{}: {}", dir.display(), cause(&e)))?;
    for (name, text) in schema::files() {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    Ok(())
}
