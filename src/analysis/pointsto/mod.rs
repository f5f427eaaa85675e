//! The points-to analysis (`rules/andersen.dl`) and what is read off its solution: a
//! summary, the call graph as Graphviz DOT, and may-alias answers for values named as in
//! the `.ll` text.

pub mod andersen;
pub mod client;
mod locset;
mod provenance;
pub mod solution;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use anyhow::{Result, anyhow, bail};

use super::programs::RuleSource;
use super::rows::andersen_native;
use super::session::Session;
use super::finding::Finding;
use super::unit::{Analysis, Context, Options, OutOfBounds, Results};
use super::locate::display;
use crate::facts::{FactSet, rows};
use solution::Builder;
pub use client::{DEFUSE, OnPointsTo};
pub use solution::Solution;

/// The points-to program, its specification.
pub const PROGRAM: &str = "rules/andersen.dl";

/// What the native solver runs on the rule engine first: the fixpoint-independent part of
/// rules/andersen.dl, whose outputs are the relations the solver reads.
const PREP: &str = "rules/andersen_native.dl";

/// The output relations every points-to program provides: rules/andersen.dl's.
pub const OUTPUTS: &[&str] = super::rows::andersen::OUTPUTS;

/// Andersen's analysis, as `analyze` runs it.
pub struct Andersen;

pub static ANDERSEN: Andersen = Andersen;

impl Analysis for Andersen {
    fn name(&self) -> &'static str {
        "andersen"
    }

    fn summary(&self) -> &'static str {
        "Andersen's inclusion-based points-to analysis, with the call graph (rules/andersen.dl)"
    }

    fn outputs(&self) -> &'static [&'static str] {
        OUTPUTS
    }

    fn run(&self, session: &Session, options: &Options) -> Result<Box<dyn Results>> {
        Ok(Box::new(solve(session, options)?))
    }
}

impl Analysis for OnPointsTo {
    fn name(&self) -> &'static str {
        self.rules.name
    }

    fn summary(&self) -> &'static str {
        self.rules.summary
    }

    fn outputs(&self) -> &'static [&'static str] {
        self.rules.outputs
    }

    /// `options` go to the solver (`--rules` models, `--solver rules`), and the `--rules`
    /// files are included after the program too, which includes rules/lib/models.dl as the
    /// solver does: a user's models reach both.
    fn run(&self, session: &Session, options: &Options) -> Result<Box<dyn Results>> {
        let bounds = options.out_of_bounds.unwrap_or(self.out_of_bounds);
        let inputs = self.inputs(session.facts(), &solve_with(session, options, bounds)?)?;
        self.rules.run_with(session, options, &inputs)
    }
}

impl Results for Solution {
    fn summary(&self, session: &Session) -> Result<String> {
        Ok(Summary::of(self, session.facts())?.to_string())
    }

    fn summary_json(&self, session: &Session) -> Result<serde_json::Value> {
        Ok(Summary::of(self, session.facts())?.to_json())
    }

    fn findings(&self, _: &Session) -> Result<Vec<Finding>> {
        Ok(vec![])
    }

    fn write(&self, dir: &std::path::Path, relations: &[&str]) -> Result<()> {
        Solution::write(self, dir, relations)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Runs the points-to analysis on the session's facts: the prep program on the rule engine,
/// then the native fixpoint (`andersen.rs`), or with `rules_only` the whole rule program on
/// the rule engine. `options.rules` (models) are included after the built-in program.
pub fn solve(session: &Session, options: &Options) -> Result<Solution> {
    solve_with(session, options, options.out_of_bounds.unwrap_or(OutOfBounds::Poison))
}

/// [`solve`] with offsets past an object's end treated as `bounds` says.
fn solve_with(session: &Session, options: &Options, bounds: OutOfBounds) -> Result<Solution> {
    let mut defines = bounds.defines();
    let extra = &options.rules;
    let context = options.context;
    let builder = match options.rules_only {
        true if options.explain.is_some() => {
            bail!("--explain: only the native solver records why (drop --solver rules)")
        }
        true => {
            // The mode reaches the rules as definitions (insensitive: the file's defaults).
            if context.depth > 0 {
                defines.extend(context.defines());
            }
            let source = RuleSource::builtin(PROGRAM).with(extra).defining(defines);
            Builder::from_outputs(session.run(&source, Builder::reads(context))?, context)?
        }
        false => {
            let source = RuleSource::builtin(PREP).with(extra).defining(defines);
            let prep = session.run(&source, andersen_native::OUTPUTS)?;
            andersen::solve(session.facts(), prep, context, options.explain.as_ref())?
        }
    };
    Ok(builder.finish())
}

/// Figures that tell precision and reach at a glance.
#[derive(Debug)]
pub struct Summary {
    /// Pointer nodes with a non-empty points-to set.
    pub pointers: usize,
    /// Distinct objects pointed to.
    pub objects: usize,
    pub avg_points_to: f64,
    /// The same, with constant data (`constant_data`) counted as one object, as SVF counts
    /// by default: the figure to compare with its averages.
    pub avg_points_to_constants_as_one: f64,
    pub max_points_to: usize,
    pub call_graph_edges: usize,
    pub indirect_calls: usize,
    pub indirect_calls_resolved: usize,
    /// Call-graph edges of indirect calls (their targets, summed over the calls).
    pub indirect_call_edges: usize,
    pub reachable_functions: usize,
    /// The context sensitivity, and the function instances: (function, context) pairs
    /// with contexts, else the defined functions.
    pub context: Context,
    pub function_instances: usize,
}

impl Summary {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "pointers": self.pointers,
            "objects": self.objects,
            "avg_points_to": self.avg_points_to,
            "avg_points_to_constants_as_one": self.avg_points_to_constants_as_one,
            "max_points_to": self.max_points_to,
            "call_graph_edges": self.call_graph_edges,
            "indirect_calls": self.indirect_calls,
            "indirect_calls_resolved": self.indirect_calls_resolved,
            "indirect_calls_unresolved": self.indirect_calls - self.indirect_calls_resolved,
            "indirect_call_edges": self.indirect_call_edges,
            "reachable_functions": self.reachable_functions,
            "context": self.context.to_string(),
            "function_instances": self.function_instances,
        })
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} pointers into {} objects (points-to set: average {:.2}, max {}; average {:.2} with constant data as one object); {} call-graph edges; {} of {} indirect calls resolved; {} reachable functions; context {}: {} function instances",
            self.pointers,
            self.objects,
            self.avg_points_to,
            self.max_points_to,
            self.avg_points_to_constants_as_one,
            self.call_graph_edges,
            self.indirect_calls_resolved,
            self.indirect_calls,
            self.reachable_functions,
            self.context,
            self.function_instances
        )
    }
}

impl Summary {
    pub fn of(solution: &Solution, facts: &FactSet) -> Result<Summary> {
        let constants = constant_data(facts)?;
        let sizes = solution.set_sizes(&|o| constants.contains(o));
        let average = |size: fn(&(usize, usize)) -> usize| match sizes.len() {
            0 => 0.0,
            n => sizes.iter().map(size).sum::<usize>() as f64 / n as f64,
        };
        let direct = direct_calls(facts)?;
        let mut indirect = BTreeSet::new();
        for r in facts.rows::<rows::pt_call>()? {
            let call = r?.instr;
            if !direct.contains(call) {
                indirect.insert(call);
            }
        }
        let indirect_edges: Vec<&str> = solution
            .call_edges()
            .map(|(c, _)| c)
            .filter(|c| indirect.contains(*c))
            .collect();
        let resolved: BTreeSet<&str> = indirect_edges.iter().copied().collect();
        Ok(Summary {
            pointers: sizes.len(),
            objects: solution.pointed_objects().len(),
            avg_points_to: average(|s| s.0),
            avg_points_to_constants_as_one: average(|s| s.1),
            max_points_to: sizes.iter().map(|s| s.0).max().unwrap_or(0),
            call_graph_edges: solution.call_edges().count(),
            indirect_calls: indirect.len(),
            indirect_calls_resolved: resolved.len(),
            indirect_call_edges: indirect_edges.len(),
            reachable_functions: solution.reachable_functions(),
            context: solution.context(),
            function_instances: match solution.context().depth {
                0 => facts.rows::<rows::function_definition>()?.count(),
                _ => solution.function_instances(),
            },
        })
    }
}

/// Constant globals with an initializer that holds no pointer: string literals and tables
/// of numbers. No program writes them, nor can they lead anywhere. SVF merges them into one
/// object by default (`-model-consts=false`), so its averages count them as one.
fn constant_data(facts: &FactSet) -> Result<BTreeSet<&str>> {
    let mut with_pointers = BTreeSet::new();
    for r in facts.rows::<rows::pt_initializer>()? {
        with_pointers.insert(r?.global);
    }
    let mut initialized = BTreeSet::new();
    for r in facts.rows::<rows::global_var_initializer>()? {
        initialized.insert(r?.global);
    }
    let mut out = BTreeSet::new();
    for r in facts.rows::<rows::global_var_constant>()? {
        let g = r?.global;
        if initialized.contains(g) && !with_pointers.contains(g) {
            out.insert(g);
        }
    }
    Ok(out)
}

/// What is read off a solution: the call graph and may-alias answers.
impl Solution {
    /// The resolved call graph between functions, as Graphviz DOT; indirect edges dashed.
    pub fn call_graph_dot(&self, facts: &FactSet) -> Result<String> {
        let names = function_names(facts)?;
        let mut caller_of: HashMap<&str, &str> = HashMap::new();
        for r in facts.rows::<rows::instr_function>()? {
            let r = r?;
            caller_of.insert(r.instr, r.func);
        }
        let direct = direct_calls(facts)?;
        // (caller, callee) → drawn dashed when no call between them is direct.
        let mut edges: BTreeMap<(&str, &str), bool> = BTreeMap::new();
        for (call, callee) in self.call_edges() {
            let Some(&caller) = caller_of.get(call) else {
                continue;
            };
            let indirect = edges.entry((caller, callee)).or_insert(true);
            *indirect &= !direct.contains(call);
        }
        let label = |f: &str| names.get(f).cloned().unwrap_or_else(|| display(f));
        let mut out = String::from("digraph callgraph {\n  node [shape=box];\n");
        for ((caller, callee), indirect) in &edges {
            let style = if *indirect { " [style=dashed]" } else { "" };
            let _ = writeln!(
                out,
                "  {} -> {}{style};",
                dot_quote(&label(caller)),
                dot_quote(&label(callee))
            );
        }
        out.push_str("}\n");
        Ok(out)
    }

    /// May the two nodes point to overlapping memory? Locations in the same object overlap
    /// when their offsets are equal or either is unknown.
    pub fn may_alias(&self, a: &str, b: &str) -> bool {
        let lb: Vec<(&str, i32)> = self.locations(b).collect();
        self.locations(a).any(|(oa, fa)| {
            lb.iter()
                .any(|&(ob, fb)| oa == ob && (fa == fb || fa == -1 || fb == -1))
        })
    }
}

/// The calls whose callee is a function, not a value.
fn direct_calls(facts: &FactSet) -> Result<BTreeSet<&str>> {
    facts
        .rows::<rows::call_direct>()?
        .map(|r| Ok(r?.instr))
        .collect()
}

/// A function id → its plain name, for people.
fn function_names(facts: &FactSet) -> Result<HashMap<&str, String>> {
    facts
        .rows::<rows::function_name>()?
        .map(|r| {
            let r = r?;
            Ok((r.func, display(r.name)))
        })
        .collect()
}


fn dot_quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Resolves values named as in the `.ll` text (`%p`, `%5`, `@g`) within a function.
pub struct Names {
    /// Plain function name → function ids (one per module that defines it).
    functions: HashMap<String, Vec<String>>,
    /// (function id, IR name) → variable id.
    variables: HashMap<(String, String), String>,
    /// Plain global name → global ids.
    globals: HashMap<String, Vec<String>>,
}

/// What a name stands for: a node of the solution, or the address of a global object.
pub enum Value {
    Node(String),
    Address(String),
}

impl Names {
    pub fn new(facts: &FactSet, solution: &Solution) -> Result<Names> {
        let mut functions: HashMap<String, Vec<String>> = HashMap::new();
        let mut defined = BTreeSet::new();
        for r in facts.rows::<rows::function_definition>()? {
            defined.insert(r?.func);
        }
        for r in facts.rows::<rows::function_name>()? {
            let r = r?;
            if defined.contains(r.func) {
                functions
                    .entry(display(r.name))
                    .or_default()
                    .push(r.func.to_string());
            }
        }
        let mut func_of: HashMap<&str, &str> = HashMap::new();
        for r in facts.rows::<rows::variable>()? {
            let r = r?;
            func_of.insert(r.var, r.func);
        }
        let mut variables = HashMap::new();
        for r in facts.rows::<rows::variable_name>()? {
            let r = r?;
            if let Some(f) = func_of.get(r.var) {
                variables.insert((f.to_string(), display(r.name)), r.var.to_string());
            }
        }
        let mut globals: HashMap<String, Vec<String>> = HashMap::new();
        // A name may stand for a declaration in one module and the definition in another:
        // the solution's object (the definition) comes first.
        let objects = solution.pointed_objects();
        let mut named = Vec::new();
        for r in facts.rows::<rows::global_var_name>()? {
            let r = r?;
            named.push((r.global, r.name));
        }
        for r in facts.rows::<rows::function_name>()? {
            let r = r?;
            named.push((r.func, r.name));
        }
        for (id, name) in named {
            globals.entry(display(name)).or_default().push(id.to_string());
        }
        for ids in globals.values_mut() {
            ids.sort_by_key(|id| !objects.contains(id.as_str()));
        }
        Ok(Names {
            functions,
            variables,
            globals,
        })
    }

    /// The value called `name` in the function called `function`.
    pub fn resolve(&self, function: &str, name: &str) -> Result<Value> {
        let funcs = self
            .functions
            .get(function)
            .ok_or_else(|| anyhow!("no defined function `{function}`"))?;
        if let Some(global) = name.strip_prefix('@') {
            let ids = self
                .globals
                .get(unquote(global))
                .ok_or_else(|| anyhow!("no global `{name}`"))?;
            return Ok(Value::Address(ids[0].clone()));
        }
        if !name.starts_with('%') {
            bail!("`{name}` is not a value name (`%x`, `%5` or `@g`)");
        }
        funcs
            .iter()
            .find_map(|f| self.variables.get(&(f.clone(), name.to_string())))
            .map(|v| Value::Node(v.clone()))
            .ok_or_else(|| anyhow!("no value `{name}` in function `{function}`"))
    }
}

/// `@"a b"` names are written quoted in `.ll`; names in the facts are plain.
fn unquote(name: &str) -> &str {
    name.strip_prefix('"')
        .and_then(|n| n.strip_suffix('"'))
        .unwrap_or(name)
}

impl Solution {
    /// May-alias of two named values.
    pub fn may_alias_values(&self, a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Node(x), Value::Node(y)) => self.may_alias(x, y),
            (Value::Address(g), Value::Node(x)) | (Value::Node(x), Value::Address(g)) => self
                .locations(x)
                .any(|(o, f)| o == g && (f == 0 || f == -1)),
            (Value::Address(g), Value::Address(h)) => g == h,
        }
    }
}
