//! Soufflé-compatible fact reading and output writing.
//!
//! `.input R` reads `FACT_DIR/R.facts`, `.output R` writes `OUT_DIR/R.csv`:
//! tab-separated, no header, no quoting. `filename=` (relative names resolve
//! against the fact/output directory, absolute ones are kept), `delimiter=`,
//! `IO=file` (`IO=stdout` for outputs), `headers=true`, `rfc4180=true`
//! (quoted fields, `,` by default) and `compress=true` (gzip output) are
//! honoured; gzipped fact files are read whatever their name, as Soufflé
//! (built with zlib) does.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};

use super::ast::{IoDirective, IoKind, err_at};
use super::functors;
use super::ir::{Base, RecordType, RelInfo};
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
            "headers" | "rfc4180" | "compress" => {
                if v != "true" && v != "false" {
                    return Err(err_at(
                        &io.loc,
                        format!("{k} must be true or false, not {v}"),
                    ));
                }
            }
            _ => return Err(err_at(&io.loc, format!("unsupported IO parameter `{k}`"))),
        }
    }
    if flag(io, "rfc4180") {
        let d = delimiter(io);
        if d.contains('"') {
            return Err(err_at(
                &io.loc,
                "CSV delimiter cannot contain '\"' character when rfc4180 is enabled.",
            ));
        }
        if d.len() != 1 && io.kind == IoKind::Input {
            return Err(err_at(&io.loc, "rfc4180 input needs a one-byte delimiter"));
        }
    }
    Ok(())
}

/// A `true`/`false` parameter.
fn flag(io: &IoDirective, key: &str) -> bool {
    param(io, key) == Some("true")
}

/// The delimiter: tab, or `,` with `rfc4180=true` (Soufflé's defaults).
fn delimiter(io: &IoDirective) -> String {
    let default = if flag(io, "rfc4180") { "," } else { "\t" };
    param(io, "delimiter").unwrap_or(default).to_string()
}

pub fn input_path(rel: &RelInfo, io: &IoDirective, fact_dir: &Path) -> PathBuf {
    let name = param(io, "filename")
        .map(str::to_string)
        .unwrap_or_else(|| format!("{}.facts", rel.name));
    let p = PathBuf::from(&name);
    if p.is_absolute() { p } else { fact_dir.join(p) }
}

pub fn output_path(rel: &RelInfo, io: &IoDirective, out_dir: &Path) -> PathBuf {
    let ext = if flag(io, "compress") {
        "csv.gz"
    } else {
        "csv"
    };
    let name = param(io, "filename")
        .map(str::to_string)
        .unwrap_or_else(|| format!("{}.{ext}", rel.name));
    let p = PathBuf::from(&name);
    if p.is_absolute() { p } else { out_dir.join(p) }
}

/// Parse one textual field into the column's representation.
pub fn parse_field(base: Base, s: &str, syms: &mut Symbols, recs: &[RecordType]) -> Option<u32> {
    match base {
        Base::Sym => Some(syms.intern(s)),
        Base::Rec(_) => {
            let mut rd = RecordText {
                s: s.as_bytes(),
                pos: 0,
                syms,
                recs,
            };
            let v = rd.value(base, b"")?;
            rd.skip_blanks();
            (rd.pos == s.len()).then_some(v)
        }
        b => functors::parse_value(b, s),
    }
}

/// A record in its text form, as Soufflé reads it: `[f1, f2]`, `nil`,
/// `$Branch(f1, f2)`, `$Branch`; blanks may surround the punctuation; a
/// symbol field runs up to the next `,` or closing bracket.
struct RecordText<'a> {
    s: &'a [u8],
    pos: usize,
    syms: &'a mut Symbols,
    recs: &'a [RecordType],
}

impl RecordText<'_> {
    fn skip_blanks(&mut self) {
        while self.s.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.skip_blanks();
        (self.s.get(self.pos) == Some(&c)).then(|| self.pos += 1)
    }

    /// The text up to (not including) a byte of `stops`, or a blank too when `word`.
    fn token(&mut self, stops: &[u8], word: bool) -> Option<&str> {
        let start = self.pos;
        while let Some(c) = self.s.get(self.pos) {
            if stops.contains(c) || (word && c.is_ascii_whitespace()) {
                break;
            }
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos]).ok()
    }

    /// A value of base `base` ending before a byte of `stops`.
    fn value(&mut self, base: Base, stops: &[u8]) -> Option<u32> {
        self.skip_blanks();
        let Base::Rec(k) = base else {
            if base == Base::Sym {
                let t = self.token(stops, false)?.to_string();
                return Some(self.syms.intern(&t));
            }
            let t = self.token(stops, true)?;
            return functors::parse_value(base, t);
        };
        let rt = &self.recs[k as usize];
        let (mut row, b, close) = if rt.adt {
            self.eat(b'$')?;
            let name = self.token(b"(),]", true)?;
            let b = rt.branches.iter().position(|(n, _)| n == name)?;
            if rt.branches[b].1.is_empty() {
                return Some(self.syms.pack(&[b as u32]));
            }
            self.eat(b'(')?;
            (vec![b as u32], b, b')')
        } else {
            if self.s[self.pos..].starts_with(b"nil") {
                self.pos += 3;
                return Some(0);
            }
            self.eat(b'[')?;
            (vec![], 0, b']')
        };
        for (i, fb) in rt.branches[b].1.clone().into_iter().enumerate() {
            if i > 0 {
                self.eat(b',')?;
            }
            row.push(self.value(fb, &[b',', close])?);
        }
        self.eat(close)?;
        Some(self.syms.pack(&row))
    }
}

/// Write a value of base `base` as output files show it (records in
/// Soufflé's form: `[1, nil]`, `$A(1, "x")` without quotes, `$C`).
pub fn show_value(out: &mut String, base: Base, v: u32, syms: &Symbols, recs: &[RecordType]) {
    let Base::Rec(k) = base else {
        match base {
            Base::Sym => out.push_str(syms.resolve(v)),
            b => out.push_str(&functors::show(b, v)),
        }
        return;
    };
    let rt = &recs[k as usize];
    let Some(row) = syms.record(v) else {
        out.push_str("nil");
        return;
    };
    let (fields, types, close) = if rt.adt {
        let (name, types) = &rt.branches[row[0] as usize];
        out.push('$');
        out.push_str(name);
        if types.is_empty() {
            return;
        }
        out.push('(');
        (&row[1..], types, ')')
    } else {
        out.push('[');
        (row, &rt.branches[0].1, ']')
    };
    for (i, (f, t)) in fields.iter().zip(types).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        show_value(out, *t, *f, syms, recs);
    }
    out.push(close);
}

/// Load one `.input` directive.
pub fn read_input(
    rel: &RelInfo,
    io: &IoDirective,
    fact_dir: &Path,
    store: &mut Relation,
    syms: &mut Symbols,
    recs: &[RecordType],
) -> Result<()> {
    let path = input_path(rel, io, fact_dir);
    let load_err = |what: String| anyhow!("Error loading {} data: {what}", rel.name);
    let open_err = |_| load_err(format!("Cannot open fact file {}", path.display()));
    // read a line at a time: a whole file in memory would add to the peak
    let mut file = BufReader::with_capacity(1 << 16, std::fs::File::open(&path).map_err(open_err)?);
    let gzip = file
        .fill_buf()
        .map_err(open_err)?
        .starts_with(&[0x1f, 0x8b]);
    let (mut reader, read_err): (Box<dyn BufRead>, &str) = if gzip {
        let plain = flate2::bufread::MultiGzDecoder::new(file);
        (Box::new(BufReader::new(plain)), "cannot decompress")
    } else {
        (Box::new(file), "cannot read")
    };
    let read_err = |e: std::io::Error| load_err(format!("{}: {read_err}: {e}", path.display()));
    let mut rows = RowReader {
        rel,
        path: &path,
        row: Vec::with_capacity(rel.types.len()),
        store,
        syms,
        recs,
    };
    let delim = delimiter(io);
    let headers = flag(io, "headers");
    if flag(io, "rfc4180") {
        let mut rd = csv::ReaderBuilder::new()
            .delimiter(delim.as_bytes()[0])
            .has_headers(headers)
            .flexible(true)
            .from_reader(reader);
        let mut rec = csv::ByteRecord::new();
        loop {
            let line = rd.position().line() as usize;
            match rd.read_byte_record(&mut rec) {
                Ok(false) => return Ok(()),
                Ok(true) => {
                    let fields: Vec<Cow<str>> = rec.iter().map(String::from_utf8_lossy).collect();
                    let fields: Vec<&str> = fields.iter().map(|f| f.as_ref()).collect();
                    rows.add(line, &fields)?;
                }
                Err(e) => {
                    return Err(load_err(format!("{}:{line}: {e}", path.display())));
                }
            }
        }
    }
    if !gzip {
        rows.store
            .reserve(count_lines(&path).map_err(read_err)? + 1);
    }
    let mut buf = Vec::new();
    for n in 0.. {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(read_err)? == 0 {
            break;
        }
        if headers && n == 0 {
            continue;
        }
        let text = String::from_utf8_lossy(&buf);
        let line = text.strip_suffix('\n').unwrap_or(&text);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut fields = Vec::with_capacity(rel.types.len());
        split_fields(line, &delim, &mut fields);
        rows.add(n + 1, &fields)?;
    }
    Ok(())
}

/// Lines in a file (fact loading sizes the relation once).
fn count_lines(path: &Path) -> std::io::Result<usize> {
    let mut r = BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    let mut n = 0;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(n);
        }
        n += buf.iter().filter(|b| **b == b'\n').count();
        let len = buf.len();
        r.consume(len);
    }
}

/// Turns the fields of fact-file lines into rows of one relation.
struct RowReader<'a> {
    rel: &'a RelInfo,
    path: &'a Path,
    row: Vec<u32>,
    store: &'a mut Relation,
    syms: &'a mut Symbols,
    recs: &'a [RecordType],
}

impl RowReader<'_> {
    /// Insert the row of line `lineno`, whose fields are `fields`.
    fn add(&mut self, lineno: usize, fields: &[&str]) -> Result<()> {
        let (rel, arity) = (self.rel, self.rel.types.len());
        if arity == 0 {
            self.store.insert(&[]);
            return Ok(());
        }
        let at = || {
            format!(
                "Error loading {} data: {}:{lineno}",
                rel.name,
                self.path.display()
            )
        };
        if fields.len() != arity {
            bail!(
                "{}: wrong number of columns: expected {arity}, found {}",
                at(),
                fields.len()
            );
        }
        self.row.clear();
        for (c, f) in fields.iter().enumerate() {
            let base = rel.types[c];
            match parse_field(base, f, self.syms, self.recs) {
                Some(v) => self.row.push(v),
                None => bail!(
                    "{}: cannot convert \"{f}\" to {} in column {}",
                    at(),
                    base.name(),
                    c + 1
                ),
            }
        }
        self.store.insert(&self.row);
        Ok(())
    }
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

/// The order rows are written in: column by column, numbers numerically,
/// symbols as strings, records field by field (an order that does not depend
/// on ids or on evaluation order). A large relation compares symbols by their
/// rank in the whole symbol table, sorted once: comparing texts cost most of
/// the time of writing points-to sets.
pub struct RowOrder<'a> {
    syms: &'a Symbols,
    recs: &'a [RecordType],
    ranks: std::sync::OnceLock<Vec<u32>>,
}

impl<'a> RowOrder<'a> {
    pub fn new(syms: &'a Symbols, recs: &'a [RecordType]) -> Self {
        RowOrder {
            syms,
            recs,
            ranks: std::sync::OnceLock::new(),
        }
    }

    fn ranks(&self) -> &[u32] {
        self.ranks.get_or_init(|| {
            let syms = self.syms;
            let mut ids: Vec<u32> = (0..syms.count() as u32).collect();
            ids.sort_unstable_by(|a, b| syms.resolve(*a).cmp(syms.resolve(*b)));
            let mut ranks = vec![0; ids.len()];
            for (rank, id) in ids.into_iter().enumerate() {
                ranks[id as usize] = rank as u32;
            }
            ranks
        })
    }

    fn cmp_rows(&self, types: &[Base], a: &[u32], b: &[u32], ranks: Option<&[u32]>) -> Ordering {
        for (c, t) in types.iter().enumerate() {
            let o = self.cmp_value(*t, a[c], b[c], ranks);
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    fn cmp_value(&self, t: Base, a: u32, b: u32, ranks: Option<&[u32]>) -> Ordering {
        if a == b {
            return Ordering::Equal;
        }
        match t {
            Base::Sym => match ranks {
                Some(r) => r[a as usize].cmp(&r[b as usize]),
                None => self.syms.resolve(a).cmp(self.syms.resolve(b)),
            },
            Base::Flt => f32::from_bits(a).total_cmp(&f32::from_bits(b)),
            Base::Rec(k) => match (self.syms.record(a), self.syms.record(b)) {
                (None, _) => Ordering::Less,
                (_, None) => Ordering::Greater,
                (Some(x), Some(y)) => {
                    let rt = &self.recs[k as usize];
                    // an ADT value: branch number, then the branch's fields
                    let (skip, types) = if rt.adt {
                        if x[0] != y[0] {
                            return x[0].cmp(&y[0]);
                        }
                        (1, &rt.branches[x[0] as usize].1)
                    } else {
                        (0, &rt.branches[0].1)
                    };
                    self.cmp_rows(types, &x[skip..], &y[skip..], ranks)
                }
            },
            _ => functors::cmp_num(t, a, b),
        }
    }

    /// The rows of `flat` (a relation's rows flattened, `Relation::flat`), sorted.
    pub fn sorted_rows<'r>(&self, rel: &RelInfo, flat: &'r [u32]) -> Vec<&'r [u32]> {
        let a = rel.types.len().max(1);
        self.sorted_order(rel, flat)
            .into_iter()
            .map(|i| &flat[i as usize * a..i as usize * a + a])
            .collect()
    }

    /// The numbers of the rows of `flat`, in sorted order (4 bytes a row: an
    /// output relation can hold tens of millions).
    fn sorted_order(&self, rel: &RelInfo, flat: &[u32]) -> Vec<u32> {
        let a = rel.types.len().max(1);
        let n = flat.len() / a;
        // ranking every symbol pays off only against a sort of many rows
        let ranks = (n >= 4096 && n * 16 >= self.syms.count()).then(|| self.ranks());
        let row = |i: u32| &flat[i as usize * a..i as usize * a + a];
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by(|x, y| self.cmp_rows(&rel.types, row(*x), row(*y), ranks));
        order
    }
}

/// Write the rows, sorted, as text; with `rfc4180`, symbols are quoted the
/// way Soufflé quotes them (a `"` inside becomes `\""`).
pub fn write_rows(
    w: &mut dyn Write,
    rel: &RelInfo,
    store: &Relation,
    order: &RowOrder,
    delim: &str,
    rfc4180: bool,
) -> std::io::Result<()> {
    let (syms, recs) = (order.syms, order.recs);
    if rel.types.is_empty() {
        if !store.is_empty() {
            w.write_all(b"()\n")?;
        }
        return Ok(());
    }
    let flat = store.flat();
    let a = rel.types.len();
    let mut line = String::new();
    for i in order.sorted_order(rel, &flat) {
        line.clear();
        for (c, v) in flat[i as usize * a..i as usize * a + a].iter().enumerate() {
            if c > 0 {
                line.push_str(delim);
            }
            match rel.types[c] {
                Base::Sym if rfc4180 => {
                    line.push('"');
                    for ch in syms.resolve(*v).chars() {
                        if ch == '"' {
                            line.push_str("\\\"");
                        }
                        line.push(ch);
                    }
                    line.push('"');
                }
                b => show_value(&mut line, b, *v, syms, recs),
            }
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Where outputs go: a directory, or stdout (`-D -`).
#[derive(Clone, Debug)]
pub enum OutTarget {
    Dir(PathBuf),
    Stdout,
}

/// Whether output `io` is printed on stdout (`-D -`, or `IO=stdout`).
pub fn goes_to_stdout(io: &IoDirective, target: &OutTarget) -> bool {
    matches!(target, OutTarget::Stdout) || param(io, "IO") == Some("stdout")
}

/// Write one output of a relation, streamed (never its whole text in memory).
pub fn write_output(
    rel: &RelInfo,
    io: &IoDirective,
    store: &Relation,
    order: &RowOrder,
    target: &OutTarget,
) -> Result<()> {
    let delim = delimiter(io);
    let to_stdout = goes_to_stdout(io, target);
    let rfc4180 = flag(io, "rfc4180");
    // With `-D -`, Soufflé also sets `headers=true`: the attribute names,
    // joined by the delimiter, come first.
    let headers = matches!(target, OutTarget::Stdout) || flag(io, "headers");
    let names = format!("{}\n", rel.attr_names.join(&delim));
    if to_stdout {
        let header = if headers { names.as_str() } else { "" };
        let mut so = std::io::BufWriter::new(std::io::stdout().lock());
        write!(
            so,
            "---------------\n{}\n{header}===============\n",
            rel.name
        )?;
        write_rows(&mut so, rel, store, order, &delim, rfc4180)?;
        so.write_all(b"===============\n")?;
        so.flush()?;
        return Ok(());
    }
    let OutTarget::Dir(dir) = target else {
        unreachable!()
    };
    let path = output_path(rel, io, dir);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            anyhow!(
                "cannot create output directory {}: {}",
                parent.display(),
                io_text(&e)
            )
        })?;
    }
    let body = |w: &mut dyn Write| -> std::io::Result<()> {
        if headers {
            w.write_all(names.as_bytes())?;
        }
        write_rows(w, rel, store, order, &delim, rfc4180)
    };
    let written = (|| -> std::io::Result<()> {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path)?);
        if flag(io, "compress") {
            let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
            body(&mut gz)?;
            file = gz.finish()?;
        } else {
            body(&mut file)?;
        }
        file.flush()
    })();
    written.map_err(|e| anyhow!("cannot write {}: {}", path.display(), io_text(&e)))
}

/// An I/O error as a user reads it: `No space left on device`, without `(os error 28)`.
fn io_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rsplit_once(" (os error ") {
        Some((message, _)) => message.to_string(),
        None => text,
    }
}

pub fn print_size(rel: &RelInfo, store: &Relation) -> Result<()> {
    let mut so = std::io::stdout().lock();
    writeln!(so, "{}\t{}", rel.name, store.len())?;
    Ok(())
}
