//! The call graph and control-flow reachability of `rules/callgraph.dl`: direct calls across
//! modules, external callees, recursion, and blocks no path from their function's entry
//! reaches (reported as notes).

use super::finding::Severity;
use super::rows;
use super::unit::{FindingRule, RuleAnalysis};

pub static CALLGRAPH: RuleAnalysis = RuleAnalysis {
    name: "callgraph",
    summary: "direct call graph across modules, recursion and unreachable blocks (rules/callgraph.dl)",
    program: "rules/callgraph.dl",
    outputs: rows::callgraph::OUTPUTS,
    findings: &[FindingRule {
        relation: "unreachable_block",
        rule: "unreachable-block",
        severity: Severity::Note,
        entity: "block",
        message: "no path from the function's entry reaches this block",
    }],
};
