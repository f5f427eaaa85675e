//! Soufflé-compatible fact reading and output writing.
//!
//! `.input R` reads `FACT_DIR/R.facts`, `.output R` writes `OUT_DIR/R.csv`:
//! tab-separated, no header, no quoting. `filename=` (relative names resolve
//! against the fact/output directory, absolute ones are kept), `delimiter=`
//! and `IO=file` (`IO=stdout` for outputs) are honoured.

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};

use super::ast::{IoDirective, IoKind, err_at};
use super::functors;
use super::ir::{Base, RelInfo};
use super::storage::{Relation, Symbols};

fn param<'a>(io: &'a IoDirective, key: &str) -> Option<&'a str> {
    io.params
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Reject IO parameters outside the supported subset (checked at load time).
pub fn validate_params(io: &IoDirective) -> Result<()> {
    for (k, v) in &io.params {
        match k.as_str() {
            "IO" => {
                let ok = match io.kind {
                    IoKind::Input => v == "file",
                    _ => v == "file" || v == "stdout",
                };
                if !ok {
                    return Err(err_at(
                        &io.loc,
                        format!(
                            "unsupported IO={v} (supported: file{})",
                            if io.kind == IoKind::Input {
                                ""
                            } else {
                                ", stdout"
                            }
                        ),
                    ));
                }
            }
            "filename" | "delimiter" => {
                if v.is_empty() {
                    return Err(err_at(&io.loc, format!("empty {k}")));
                }
            }
            _ => return Err(err_at(&io.loc, format!("unsupported IO parameter `{k}`"))),
        }
    }
    Ok(())
}

fn delimiter(io: Option<&IoDirective>) -> String {
    io.and_then(|io| param(io, "delimiter"))
        .unwrap_or("\t")
        .to_string()
}

pub fn input_path(rel: &RelInfo, io: &IoDirective, fact_dir: &Path) -> PathBuf {
    let name = param(io, "filename")
        .map(str::to_string)
        .unwrap_or_else(|| format!("{}.facts", rel.name));
    let p = PathBuf::from(&name);
    if p.is_absolute() { p } else { fact_dir.join(p) }
}

pub fn output_path(rel: &RelInfo, io: &IoDirective, out_dir: &Path) -> PathBuf {
    let name = param(io, "filename")
        .map(str::to_string)
        .unwrap_or_else(|| format!("{}.csv", rel.name));
    let p = PathBuf::from(&name);
    if p.is_absolute() { p } else { out_dir.join(p) }
}

/// Parse one textual field into the column's representation.
pub fn parse_field(base: Base, s: &str, syms: &mut Symbols) -> Option<u32> {
    match base {
        Base::Sym => Some(syms.intern(s)),
        b => functors::parse_value(b, s),
    }
}

/// Load one `.input` directive.
pub fn read_input(
    rel: &RelInfo,
    io: &IoDirective,
    fact_dir: &Path,
    store: &mut Relation,
    syms: &mut Symbols,
) -> Result<()> {
    let path = input_path(rel, io, fact_dir);
    let bytes = std::fs::read(&path).map_err(|_| {
        anyhow!(
            "Error loading {} data: Cannot open fact file {}",
            rel.name,
            path.display()
        )
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let delim = delimiter(Some(io));
    let arity = rel.types.len();
    store.reserve(text.bytes().filter(|b| *b == b'\n').count() + 1);
    let mut row = Vec::with_capacity(arity);
    let mut fields: Vec<&str> = Vec::with_capacity(arity);
    for (n, line) in text.split_terminator('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let lineno = n + 1;
        row.clear();
        if arity == 0 {
            store.insert(&[]);
            continue;
        }
        split_fields(line, &delim, &mut fields);
        if fields.len() != arity {
            bail!(
                "Error loading {} data: {}:{lineno}: wrong number of columns: expected {arity}, found {}",
                rel.name,
                path.display(),
                fields.len()
            );
        }
        for (c, f) in fields.iter().enumerate() {
            let base = rel.types[c];
            match parse_field(base, f, syms) {
                Some(v) => row.push(v),
                None => bail!(
                    "Error loading {} data: {}:{lineno}: cannot convert \"{f}\" to {} in column {}",
                    rel.name,
                    path.display(),
                    base.name(),
                    c + 1
                ),
            }
        }
        store.insert(&row);
    }
    Ok(())
}

/// Split a fact line at `delim` into `out` (reused across lines); a one-byte
/// delimiter, the usual tab, takes the faster `char` search.
fn split_fields<'t>(line: &'t str, delim: &str, out: &mut Vec<&'t str>) {
    out.clear();
    match delim.as_bytes() {
        [b] if b.is_ascii() => out.extend(line.split(*b as char)),
        _ => out.extend(line.split(delim)),
    }
}

/// Compare two rows column by column (numbers numerically, symbols as strings).
pub fn cmp_rows(types: &[Base], a: &[u32], b: &[u32], syms: &Symbols) -> Ordering {
    for (c, t) in types.iter().enumerate() {
        let o = match t {
            Base::Sym => {
                if a[c] == b[c] {
                    Ordering::Equal
                } else {
                    syms.resolve(a[c]).cmp(syms.resolve(b[c]))
                }
            }
            Base::Flt => f32::from_bits(a[c]).total_cmp(&f32::from_bits(b[c])),
            _ => functors::cmp_num(*t, a[c], b[c]),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// The rows of `flat` (a relation's rows flattened, `Relation::flat`), sorted.
pub fn sorted_rows<'r>(rel: &RelInfo, flat: &'r [u32], syms: &Symbols) -> Vec<&'r [u32]> {
    let mut rows: Vec<&[u32]> = flat.chunks_exact(rel.types.len().max(1)).collect();
    rows.sort_unstable_by(|a, b| cmp_rows(&rel.types, a, b, syms));
    rows
}

fn render(rel: &RelInfo, store: &Relation, syms: &Symbols, delim: &str) -> String {
    let mut out = String::new();
    if rel.types.is_empty() {
        if !store.is_empty() {
            out.push_str("()\n");
        }
        return out;
    }
    let flat = store.flat();
    for row in sorted_rows(rel, &flat, syms) {
        for (c, v) in row.iter().enumerate() {
            if c > 0 {
                out.push_str(delim);
            }
            match rel.types[c] {
                Base::Sym => out.push_str(syms.resolve(*v)),
                b => {
                    let _ = write!(out, "{}", functors::show(b, *v));
                }
            }
        }
        out.push('\n');
    }
    out
}

/// Where outputs go: a directory, or stdout (`-D -`).
#[derive(Clone, Debug)]
pub enum OutTarget {
    Dir(PathBuf),
    Stdout,
}

pub fn write_output(
    rel: &RelInfo,
    io: Option<&IoDirective>,
    store: &Relation,
    syms: &Symbols,
    target: &OutTarget,
) -> Result<()> {
    let delim = delimiter(io);
    let to_stdout =
        matches!(target, OutTarget::Stdout) || io.and_then(|io| param(io, "IO")) == Some("stdout");
    let body = render(rel, store, syms, &delim);
    if to_stdout {
        // With `-D -`, Soufflé also sets `headers=true`: the attribute names,
        // joined by the delimiter, follow the relation's name.
        let header = match target {
            OutTarget::Stdout => format!("{}\n", rel.attr_names.join(&delim)),
            OutTarget::Dir(_) => String::new(),
        };
        let mut so = std::io::stdout().lock();
        write!(
            so,
            "---------------\n{}\n{header}===============\n{body}===============\n",
            rel.name
        )?;
        return Ok(());
    }
    let OutTarget::Dir(dir) = target else {
        unreachable!()
    };
    let path = match io {
        Some(io) => output_path(rel, io, dir),
        None => dir.join(format!("{}.csv", rel.name)),
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| anyhow!("cannot create output directory {}: {e}", parent.display()))?;
    }
    std::fs::write(&path, body).map_err(|e| anyhow!("cannot write {}: {e}", path.display()))
}

pub fn print_size(rel: &RelInfo, store: &Relation) -> Result<()> {
    let mut so = std::io::stdout().lock();
    writeln!(so, "{}\t{}", rel.name, store.len())?;
    Ok(())
}
