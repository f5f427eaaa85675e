//! The DTrans report for people (text, useful types first) and for scripts (JSON).

use std::fmt::Write;

use serde_json::{Value, json};

use super::model::{Condition, Report, TypeReport};
use super::transform;
use crate::analysis::locate::Location;

/// `3 struct types: 1 free of conditions, 2 legal to reorder (saving 16 bytes per instance
/// of each in all), ...`.
pub fn summary_line(r: &Report) -> String {
    let s = Summary::of(r);
    let mut line = format!(
        "{} struct types: {} without conditions, {} legal to reorder ({} saving padding, {} bytes per instance in all), {} with deletable fields, {} legal to split, {} reaching ambiguous pointers",
        s.types, s.clean, s.reorderable, s.saving, s.saved_bytes, s.deletable, s.splittable, s.ambiguous
    );
    if s.recovered > 0 {
        let _ = write!(line, "; {} recovered from debug info", s.recovered);
    }
    if !r.unrecovered.is_empty() {
        let _ = write!(
            line,
            "; {} named by TBAA tags have no layout and are not analysed (build with -g)",
            r.unrecovered.len()
        );
    }
    if !r.whole_program.is_empty() {
        let _ = write!(
            line,
            "; whole-program preconditions fail ({}), without which {} would be legal to reorder",
            r.whole_program.len(),
            s.blocked_by_program_only
        );
    }
    line
}

struct Summary {
    types: usize,
    clean: usize,
    reorderable: usize,
    saving: usize,
    saved_bytes: i64,
    deletable: usize,
    splittable: usize,
    ambiguous: usize,
    /// Types whose layout comes from debug info (dropped from the module by the optimiser).
    recovered: usize,
    /// Types that nothing but the whole-program preconditions blocks.
    blocked_by_program_only: usize,
    /// Conditions by the number of types they hold for, most frequent first.
    frequent: Vec<(String, usize)>,
}

impl Summary {
    fn of(r: &Report) -> Summary {
        let v = || r.types.iter().map(|t| &t.verdict);
        Summary {
            types: r.types.len(),
            clean: r.types.iter().filter(|t| t.conditions.is_empty()).count(),
            reorderable: v().filter(|v| v.reorder_legal()).count(),
            saving: v().filter(|v| v.reorder_saves.unwrap_or(0) > 0).count(),
            saved_bytes: v().map(|v| i64::from(v.reorder_saves.unwrap_or(0))).sum(),
            deletable: v().filter(|v| !v.deletable.is_empty()).count(),
            splittable: v().filter(|v| v.split).count(),
            ambiguous: r.types.iter().filter(|t| t.ambiguous.is_some()).count(),
            recovered: r.types.iter().filter(|t| t.layout.as_ref().is_some_and(|l| l.recovered)).count(),
            blocked_by_program_only: v().filter(|v| v.blocked_by == [transform::WHOLE_PROGRAM]).count(),
            frequent: frequent(r),
        }
    }
}

fn frequent(r: &Report) -> Vec<(String, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for c in r.types.iter().flat_map(|t| &t.conditions) {
        *counts.entry(c.name.clone()).or_insert(0) += 1;
    }
    let mut counts: Vec<(String, usize)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    counts
}

/// A type without its modules (`m:%struct.node` → `%struct.node`, also inside an array
/// type: `[4 x m:%struct.node]` → `[4 x %struct.node]`).
fn short(ty: &str) -> String {
    let mut out = String::new();
    let mut rest = ty;
    while let Some(i) = rest.find(":%") {
        let module = rest[..i].rfind([' ', '[', '<', '{']).map_or(0, |j| j + 1);
        out.push_str(&rest[..module]);
        rest = &rest[i + 1..];
    }
    out + rest
}

/// A type as a person reads it: `%struct.node` (a recovered type by its LLVM name too).
fn display(t: &TypeReport) -> String {
    match &t.layout {
        Some(l) if l.recovered => format!("%{}", l.name),
        _ => short(&t.ty),
    }
}

fn at(location: &Option<Location>) -> String {
    location
        .as_ref()
        .map(|l| format!(" at {}:{}", l.file, l.line))
        .unwrap_or_default()
}

/// The text report: the summary (unless `summary` is false: `-q`), the whole-program
/// preconditions, then one block per type.
pub fn text(r: &Report, summary: bool) -> String {
    let mut out = String::new();
    if summary {
        let _ = writeln!(out, "dtrans: {}", summary_line(r));
        let s = Summary::of(r);
        if !s.frequent.is_empty() {
            let top: Vec<String> =
                s.frequent.iter().take(5).map(|(c, n)| format!("{c} {n}")).collect();
            let _ = writeln!(out, "  most frequent conditions (types): {}", top.join(", "));
        }
    }
    if !r.unrecovered.is_empty() {
        // (Sorted, so equal names are neighbours: `(anonymous) x5`.)
        let mut names: Vec<(String, usize)> = vec![];
        for n in &r.unrecovered {
            let n = if n.is_empty() { "(anonymous)" } else { n };
            match names.last_mut() {
                Some((last, count)) if last == n => *count += 1,
                _ => names.push((n.to_string(), 1)),
            }
        }
        let names: Vec<String> =
            names.iter().map(|(n, k)| if *k > 1 { format!("{n} x{k}") } else { n.clone() }).collect();
        let _ = writeln!(out, "  no layout (not analysed): {}", names.join(", "));
    }
    for (reason, entity, location) in r.whole_program.iter().take(5) {
        let _ = writeln!(out, "  precondition fails: {reason}: {entity}{}", at(location));
    }
    if r.whole_program.len() > 5 {
        let _ = writeln!(out, "  ... and {} more", r.whole_program.len() - 5);
    }
    for t in &r.types {
        if !out.is_empty() {
            out.push('\n');
        }
        type_text(&mut out, t);
    }
    out
}

fn type_text(out: &mut String, t: &TypeReport) {
    let v = &t.verdict;
    let shape = t.layout.as_ref().map_or("unsized".to_string(), |l| {
        let from = if l.recovered { ", from debug info" } else { "" };
        format!("{} bytes, {} fields{from}", l.size, l.fields.len())
    });
    let _ = writeln!(out, "{} ({shape})  [{}]", display(t), t.ty);
    if v.reorder_legal() {
        let saves = v.reorder_saves.unwrap_or(0);
        if saves > 0 {
            let l = t.layout.as_ref().expect("a legal type has a layout");
            let order: Vec<String> = l.reordered().iter().map(|i| i.to_string()).collect();
            let _ = writeln!(
                out,
                "  reorder: legal, saves {saves} bytes per instance ({} -> {}; field order {})",
                l.size,
                l.reordered_size(),
                order.join(" ")
            );
        } else {
            let _ = writeln!(out, "  reorder: legal, no padding to save");
        }
        if v.deletable.is_empty() {
            let _ = writeln!(out, "  delete: legal, every field is read");
        } else {
            let fields: Vec<String> = v.deletable.iter().map(|i| i.to_string()).collect();
            let _ = writeln!(out, "  delete: legal for fields {} (never read)", fields.join(" "));
        }
        if v.split {
            let _ = writeln!(out, "  split: legal");
        } else {
            let _ = writeln!(out, "  split: blocked by {}", v.split_blocked_by.join(", "));
        }
    } else {
        let _ = writeln!(out, "  reorder, delete, split: blocked by {}", v.blocked_by.join(", "));
    }
    if let Some((entity, location)) = &t.ambiguous {
        let _ = writeln!(out, "  ambiguous: reaches pointers to more than 6 struct types: {entity}{}", at(location));
    }
    if t.conditions.is_empty() {
        let _ = writeln!(out, "  conditions: none");
    }
    for c in &t.conditions {
        let through = if c.ambiguous { " (an ambiguous pointer)" } else { "" };
        let _ = writeln!(out, "  {}: {}{}{through}", c.name, c.witness, at(&c.location));
    }
    for f in &t.fields {
        let access: Vec<&str> = f.access.iter().map(String::as_str).collect();
        let access = if access.is_empty() { "unused".to_string() } else { access.join(" ") };
        let value = match f.value.0.as_str() {
            "single" => format!("single value {}", f.value.1),
            other => format!("{other} value"),
        };
        let alloc = match &f.alloc {
            Some((state, func)) if state == "single" => format!("; allocated by {func} only"),
            Some((state, _)) => format!("; alloc {state}"),
            None => String::new(),
        };
        let name = f.name.as_ref().map(|n| format!(" {n}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "  field {}{name} {} @{}: {access}; {value}{alloc}",
            f.index,
            short(&f.text),
            f.offset
        );
    }
}

fn condition_json(c: &Condition) -> Value {
    let mut v = json!({ "condition": c.name, "witness": c.witness, "ambiguous": c.ambiguous });
    if let Some(l) = &c.location {
        v["location"] = location_json(l);
    }
    v
}

fn location_json(l: &Location) -> Value {
    json!({ "file": l.file, "line": l.line, "column": l.column })
}

/// The JSON report.
pub fn json(r: &Report) -> Value {
    let s = Summary::of(r);
    let types: Vec<Value> = (r.types.iter())
        .map(|t| {
            let v = &t.verdict;
            let fields: Vec<Value> = (t.fields.iter())
                .map(|f| {
                    let mut field = json!({
                        "index": f.index, "name": f.name, "type": f.ty, "type_text": short(&f.text),
                        "offset": f.offset, "size": f.size,
                        "access": f.access,
                        "value": { "state": f.value.0, "value": f.value.1 },
                    });
                    if let Some((state, func)) = &f.alloc {
                        field["alloc"] = json!({ "state": state, "function": func });
                    }
                    field
                })
                .collect();
            json!({
                "type": t.ty,
                "name": display(t),
                "recovered": t.layout.as_ref().is_some_and(|l| l.recovered),
                "size": t.layout.as_ref().map(|l| l.size),
                "ambiguous": t.ambiguous.is_some(),
                "ambiguous_entry": t.ambiguous.as_ref().map(|(entity, location)| {
                    json!({ "entity": entity, "location": location.as_ref().map(location_json) })
                }),
                "conditions": t.conditions.iter().map(condition_json).collect::<Vec<_>>(),
                "fields": fields,
                "reorder": {
                    "legal": v.reorder_legal(),
                    "saves_bytes": v.reorder_saves,
                    "order": v.reorder_saves.and(t.layout.as_ref().map(|l| l.reordered())),
                },
                "delete": { "legal": v.reorder_legal(), "fields": v.deletable },
                "split": { "legal": v.split, "blocked_by": v.split_blocked_by },
                "blocked_by": v.blocked_by,
            })
        })
        .collect();
    let whole: Vec<Value> = (r.whole_program.iter())
        .map(|(reason, entity, _)| json!({ "reason": reason, "entity": entity }))
        .collect();
    json!({
        "summary": {
            "types": s.types, "without_conditions": s.clean, "reorder_legal": s.reorderable,
            "reorder_saving": s.saving, "reorder_saved_bytes": s.saved_bytes,
            "with_deletable_fields": s.deletable, "split_legal": s.splittable,
            "ambiguous": s.ambiguous,
            "recovered": s.recovered,
            "blocked_only_by_whole_program": s.blocked_by_program_only,
            "conditions": s.frequent.iter().map(|(c, n)| json!({ "condition": c, "types": n })).collect::<Vec<_>>(),
        },
        "whole_program": whole,
        "unrecovered": r.unrecovered,
        "types": types,
    })
}
