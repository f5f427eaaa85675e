//! Reports of findings, for any analysis: text for people, JSON for scripts, SARIF 2.1.0 for
//! code-scanning services.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use super::finding::{Finding, Severity};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

/// Who reports, and the words its JSON uses.
#[derive(Clone, Copy, Debug)]
pub struct Reporter {
    /// The command (`check`, `analyze constprop`): SARIF's rule descriptions name it.
    pub tool: &'static str,
    /// The JSON key of the list (`violations`, `findings`) and of each item's rule id
    /// (`check`, `rule`).
    pub items: &'static str,
    pub rule: &'static str,
}

/// Renders the report.
pub fn render(findings: &[Finding], by: Reporter, format: Format) -> String {
    match format {
        Format::Text => findings
            .iter()
            .map(|v| {
                let at = match (&v.location, &v.module) {
                    (Some(l), _) if l.column > 0 => format!("{}:{}:{}", l.file, l.line, l.column),
                    (Some(l), _) => format!("{}:{}", l.file, l.line),
                    (None, Some(m)) => m.clone(),
                    (None, None) => "<facts>".to_string(),
                };
                let level = match v.severity {
                    Severity::Error => String::new(),
                    other => format!("{}: ", other.name()),
                };
                format!("{at}: {level}{}: {} [{}]\n", v.rule, v.message, v.entity)
            })
            .collect(),
        Format::Json => {
            let doc = json!({ "count": findings.len(), by.items: json_items(findings, by) });
            serde_json::to_string_pretty(&doc).expect("JSON") + "\n"
        }
        Format::Sarif => sarif(findings, by.tool),
    }
}

/// The findings as JSON objects, for a document of the caller's.
pub fn json_items(findings: &[Finding], by: Reporter) -> Vec<serde_json::Value> {
    findings
        .iter()
        .map(|v| {
            json!({
                by.rule: v.rule,
                "severity": v.severity.name(),
                "entity": v.entity,
                "message": v.message,
                "module": v.module,
                "location": v.location.as_ref().map(|l| json!({"file": l.file, "line": l.line, "column": l.column})),
            })
        })
        .collect()
}

/// A SARIF 2.1.0 log with one run: a rule per rule id, a result per finding.
fn sarif(findings: &[Finding], tool: &str) -> String {
    let rule_index: BTreeMap<&str, usize> = {
        let ids: BTreeSet<&str> = findings.iter().map(|v| v.rule.as_str()).collect();
        ids.into_iter().enumerate().map(|(i, c)| (c, i)).collect()
    };
    let rules: Vec<serde_json::Value> = rule_index
        .keys()
        .map(|id| json!({ "id": id, "name": id, "shortDescription": { "text": format!("llfacts {tool} {id}") } }))
        .collect();
    let results: Vec<serde_json::Value> = findings
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
                "ruleId": v.rule,
                "ruleIndex": rule_index[v.rule.as_str()],
                "level": v.severity.name(),
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
