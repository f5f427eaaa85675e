//! Dataflow analyses over SSA registers, each one rule program: constant propagation
//! (`rules/constprop.dl`), whose divisions by a constant zero are findings, intervals
//! (`rules/range.dl`), whose array indexes that miss their array are findings, and
//! available expressions (`rules/availexpr.dl`) and must-point-to (`rules/mustpoint.dl`). The
//! encodings and their limits are in docs/dataflow.md.

use super::finding::Severity;
use super::rows;
use super::unit::{FindingRule, RuleAnalysis};

pub static CONSTPROP: RuleAnalysis = RuleAnalysis {
    name: "constprop",
    summary: "SSA values that are always one constant, and divisions by a constant zero (rules/constprop.dl)",
    program: "rules/constprop.dl",
    outputs: rows::constprop::OUTPUTS,
    findings: &[FindingRule {
        relation: "division_by_zero",
        rule: "division-by-zero",
        severity: Severity::Warning,
        entity: "instr",
        message: "the divisor is always zero",
    }],
};

pub static RANGE: RuleAnalysis = RuleAnalysis {
    name: "range",
    summary: "value ranges of SSA integers, and array indexes outside their array (rules/range.dl)",
    program: "rules/range.dl",
    outputs: rows::range::OUTPUTS,
    findings: &[FindingRule {
        relation: "out_of_bounds",
        rule: "out-of-bounds",
        severity: Severity::Warning,
        entity: "gep",
        message: "index in [{lo}, {hi}] is outside an array of {len} elements",
    }],
};

pub static AVAILEXPR: RuleAnalysis = RuleAnalysis {
    name: "availexpr",
    summary: "expressions SSA values compute, and values a dominating one already computes (rules/availexpr.dl)",
    program: "rules/availexpr.dl",
    outputs: rows::availexpr::OUTPUTS,
    findings: &[],
};

pub static MUSTPOINT: RuleAnalysis = RuleAnalysis {
    name: "mustpoint",
    summary: "locations that must hold the address of other locations, per program point, on -O0 code (rules/mustpoint.dl)",
    program: "rules/mustpoint.dl",
    outputs: rows::mustpoint::OUTPUTS,
    findings: &[],
};
