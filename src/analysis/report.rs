//! Reports of findings: text for people, JSON for scripts, SARIF 2.1.0 for code-scanning
//! services.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use super::check::Violation;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

/// Renders the report.
pub fn render(violations: &[Violation], format: Format) -> String {
    match format {
        Format::Text => violations
            .iter()
            .map(|v| {
                let at = match (&v.location, &v.module) {
                    (Some(l), _) if l.column > 0 => format!("{}:{}:{}", l.file, l.line, l.column),
                    (Some(l), _) => format!("{}:{}", l.file, l.line),
                    (None, Some(m)) => m.clone(),
                    (None, None) => "<facts>".to_string(),
                };
                format!("{at}: {}: {} [{}]\n", v.check, v.message, v.entity)
            })
            .collect(),
        Format::Json => {
            let items: Vec<serde_json::Value> = violations
                .iter()
                .map(|v| {
                    json!({
                        "check": v.check,
                        "entity": v.entity,
                        "message": v.message,
                        "module": v.module,
                        "location": v.location.as_ref().map(|l| json!({"file": l.file, "line": l.line, "column": l.column})),
                    })
                })
                .collect();
            let doc = json!({ "count": violations.len(), "violations": items });
            serde_json::to_string_pretty(&doc).expect("JSON") + "\n"
        }
        Format::Sarif => sarif(violations),
    }
}

/// A SARIF 2.1.0 log with one run: a rule per check id, a result per violation.
fn sarif(violations: &[Violation]) -> String {
    let checks: BTreeMap<&str, usize> = {
        let ids: BTreeSet<&str> = violations.iter().map(|v| v.check.as_str()).collect();
        ids.into_iter().enumerate().map(|(i, c)| (c, i)).collect()
    };
    let rules: Vec<serde_json::Value> = checks
        .keys()
        .map(|id| json!({ "id": id, "name": id, "shortDescription": { "text": format!("llfacts check {id}") } }))
        .collect();
    let results: Vec<serde_json::Value> = violations
        .iter()
        .map(|v| {
            let mut location = json!({ "logicalLocations": [{ "fullyQualifiedName": v.entity }] });
            let physical = match (&v.location, &v.module) {
                (Some(l), _) => {
                    let mut region = json!({ "startLine": l.line.max(1) });
                    if l.column > 0 {
                        region["startColumn"] = json!(l.column);
                    }
                    Some(json!({ "artifactLocation": { "uri": file_uri(&l.file) }, "region": region }))
                }
                (None, Some(m)) => Some(json!({ "artifactLocation": { "uri": file_uri(m) } })),
                (None, None) => None,
            };
            if let Some(p) = physical {
                location["physicalLocation"] = p;
            }
            json!({
                "ruleId": v.check,
                "ruleIndex": checks[v.check.as_str()],
                "level": "error",
                "message": { "text": v.message },
                "locations": [location],
            })
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "llfacts",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).expect("JSON") + "\n"
}

/// A URI reference for a path: `file://` for absolute paths, a relative reference otherwise,
/// percent-encoding what a URI cannot hold.
fn file_uri(path: &str) -> String {
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::file_uri;

    #[test]
    fn uris_are_escaped() {
        assert_eq!(file_uri("/tmp/a b.c"), "file:///tmp/a%20b.c");
        assert_eq!(file_uri("src/x#1.c"), "src/x%231.c");
    }
}
