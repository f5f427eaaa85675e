//! The rule IR: what semantic analysis produces and the planner, the
//! evaluator and I/O consume. Relations and variables are numbered; every
//! expression carries its base type; bodies are in source order (the planner
//! orders them).

use std::collections::HashMap;

use super::ast::{AggOp, BinOp, CmpOp, IoDirective, Loc, UnOp};
use super::storage::Symbols;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    Sym,
    Num,
    Uns,
    Flt,
    /// A record or ADT type: its number in `Checked::record_types`.
    Rec(u32),
}

impl Base {
    pub fn name(self) -> &'static str {
        match self {
            Base::Sym => "symbol",
            Base::Num => "number",
            Base::Uns => "unsigned",
            Base::Flt => "float",
            Base::Rec(_) => "record",
        }
    }
}

/// A record type (one branch, named `""`) or an ADT (its branches in
/// name order, as Soufflé numbers them). A record value is an id into the record table
/// (`storage::Symbols::pack`): a record's fields, or an ADT value's branch
/// number followed by its fields. Id 0 is `nil`.
#[derive(Clone, Debug)]
pub struct RecordType {
    pub name: String,
    pub adt: bool,
    pub branches: Vec<(String, Vec<Base>)>,
}

#[derive(Clone, Debug)]
pub struct RelInfo {
    pub name: String,
    pub attr_names: Vec<String>,
    pub types: Vec<Base>,
    pub loc: Loc,
    pub inputs: Vec<IoDirective>,
    pub outputs: Vec<IoDirective>,
    pub printsize: bool,
    /// `eqrel`: a binary equivalence relation (stored as a union-find).
    pub eqrel: bool,
    /// `inline`: Soufflé substitutes its rules; only restricts how it is used.
    pub inline: bool,
    /// `choice-domain` keys (column lists): at most one tuple per key value.
    pub choice: Vec<Vec<usize>>,
    /// `.limitsize R(n=N)`: stop deriving once `N` tuples exist.
    pub limit: Option<usize>,
}

/// An expression over variable slots. `A` is what an aggregate carries: its
/// rule-IR form (`AggIr`) here, its planned form in the planner's output.
#[derive(Clone, Debug)]
pub enum Expr<A = Box<AggIr>> {
    Var(usize),
    Const(u32),
    Bin(BinOp, Base, Box<Expr<A>>, Box<Expr<A>>),
    Un(UnOp, Base, Box<Expr<A>>),
    Cat(Vec<Expr<A>>),
    Strlen(Box<Expr<A>>),
    Substr(Box<Expr<A>>, Box<Expr<A>>, Box<Expr<A>>),
    /// Conversion between bases (`to_number`, `to_string`, `to_float`, `to_unsigned`).
    Conv(Base, Base, Box<Expr<A>>),
    /// `ord(x)`: the raw value.
    Ord(Box<Expr<A>>),
    /// n-ary `min`/`max` functor (`true` = max).
    MinMax(bool, Base, Vec<Expr<A>>),
    /// The record with these fields, interned (an ADT value: the branch number first).
    Rec(Vec<Expr<A>>),
    Agg(A),
    /// `autoinc()`: the next value of the program's counter (a `number`).
    AutoInc,
}

#[derive(Clone, Debug)]
pub struct AggIr {
    pub op: AggOp,
    /// Base of the target (Num for count).
    pub base: Base,
    pub target: Option<Expr>,
    pub body: Vec<Lit>,
    /// Aggregate over the tuples of its single atom (true) or over distinct
    /// bindings of `distinct` (false), as Soufflé does.
    pub single_atom: bool,
    /// Every variable bound only inside (nested aggregates' and record patterns' too).
    pub local_vars: Vec<usize>,
    /// The named variables local to this level.
    pub distinct: Vec<usize>,
}

#[derive(Clone, Debug)]
pub enum Arg {
    Var(usize),
    Anon,
    Expr(Expr),
}

#[derive(Clone, Debug)]
pub enum Lit {
    Atom {
        rel: usize,
        args: Vec<Arg>,
        loc: Loc,
    },
    Neg {
        rel: usize,
        args: Vec<Arg>,
        loc: Loc,
    },
    Cmp {
        op: CmpOp,
        base: Base,
        lhs: Expr,
        rhs: Expr,
        loc: Loc,
    },
    Contains {
        neg: bool,
        sub: Expr,
        s: Expr,
        loc: Loc,
    },
    Match {
        neg: bool,
        re: Expr,
        s: Expr,
        loc: Loc,
    },
    /// `var = range(from, to[, step])`: binds `var` to each value (or tests it).
    Range {
        var: usize,
        base: Base,
        args: Vec<Expr>,
        loc: Loc,
    },
    /// `var = [fields]` (the record table's row of `var`): with `var` bound,
    /// binds or checks the fields; with every field bound, builds `var`.
    Unpack {
        var: usize,
        fields: Vec<Arg>,
        loc: Loc,
    },
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub head_rel: usize,
    pub head: Vec<Expr>,
    pub body: Vec<Lit>,
    pub var_names: Vec<String>,
    /// Location of each variable's first occurrence (for error messages).
    pub var_locs: Vec<Loc>,
    /// Variables that must be bound by the body (those used in the head).
    pub head_vars: Vec<usize>,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub struct Stratum {
    pub rels: Vec<usize>,
    pub rules: Vec<usize>,
    pub recursive: bool,
}

#[derive(Clone, Debug)]
pub struct Checked {
    pub rels: Vec<RelInfo>,
    pub rel_index: HashMap<String, usize>,
    pub rules: Vec<Rule>,
    /// Subsumptive rules (`R(a) <= R(b) :- body`), apart from `rules`: their
    /// head is `a` followed by `b`, and they delete rather than derive.
    pub subsumptions: Vec<Rule>,
    pub strata: Vec<Stratum>,
    pub symbols: Symbols,
    /// Record and ADT types, numbered as in `Base::Rec`.
    pub record_types: Vec<RecordType>,
    /// Per relation: whether an output depends on it (see `needed_relations`).
    pub needed: Vec<bool>,
    /// Soufflé's warnings, each rendered as Soufflé prints it (see `sema::warnings`).
    pub warnings: Vec<String>,
    /// Per relation: the last stratum that reads or derives it.
    pub last_use: Vec<usize>,
}

/// Free variables of an expression; aggregate-local ones excluded.
pub fn expr_vars(e: &Expr, out: &mut Vec<usize>) {
    match e {
        Expr::Var(v) => out.push(*v),
        Expr::Const(_) | Expr::AutoInc => {}
        Expr::Bin(_, _, a, b) => {
            expr_vars(a, out);
            expr_vars(b, out);
        }
        Expr::Un(_, _, a) | Expr::Strlen(a) | Expr::Conv(_, _, a) | Expr::Ord(a) => {
            expr_vars(a, out)
        }
        Expr::Substr(a, b, c) => {
            expr_vars(a, out);
            expr_vars(b, out);
            expr_vars(c, out);
        }
        Expr::Cat(xs) | Expr::MinMax(_, _, xs) | Expr::Rec(xs) => {
            xs.iter().for_each(|x| expr_vars(x, out))
        }
        Expr::Agg(agg) => {
            let mut inner = Vec::new();
            if let Some(t) = &agg.target {
                expr_vars(t, &mut inner);
            }
            for l in &agg.body {
                lit_vars(l, &mut inner);
            }
            out.extend(inner.into_iter().filter(|v| !agg.local_vars.contains(v)));
        }
    }
}

/// Variables of a literal, in argument order (aggregate-local ones excluded).
pub fn lit_vars(l: &Lit, out: &mut Vec<usize>) {
    let arg_vars = |args: &[Arg], out: &mut Vec<usize>| {
        for a in args {
            match a {
                Arg::Var(v) => out.push(*v),
                Arg::Anon => {}
                Arg::Expr(e) => expr_vars(e, out),
            }
        }
    };
    match l {
        Lit::Atom { args, .. } | Lit::Neg { args, .. } => arg_vars(args, out),
        Lit::Unpack { var, fields, .. } => {
            out.push(*var);
            arg_vars(fields, out);
        }
        Lit::Cmp { lhs, rhs, .. } => {
            expr_vars(lhs, out);
            expr_vars(rhs, out);
        }
        Lit::Contains { sub: a, s: b, .. } | Lit::Match { re: a, s: b, .. } => {
            expr_vars(a, out);
            expr_vars(b, out);
        }
        Lit::Range { var, args, .. } => {
            out.push(*var);
            args.iter().for_each(|a| expr_vars(a, out));
        }
    }
}

/// Whether a rule calls `autoinc()` anywhere (head, body, aggregates).
pub fn uses_autoinc(rule: &Rule) -> bool {
    rule.head.iter().any(expr_autoinc) || rule.body.iter().any(lit_autoinc)
}

fn lit_autoinc(l: &Lit) -> bool {
    match l {
        Lit::Atom { args, .. } | Lit::Neg { args, .. } | Lit::Unpack { fields: args, .. } => args
            .iter()
            .any(|a| matches!(a, Arg::Expr(e) if expr_autoinc(e))),
        Lit::Cmp { lhs: a, rhs: b, .. }
        | Lit::Contains { sub: a, s: b, .. }
        | Lit::Match { re: a, s: b, .. } => expr_autoinc(a) || expr_autoinc(b),
        Lit::Range { args, .. } => args.iter().any(expr_autoinc),
    }
}

/// Whether an expression calls `autoinc()` (aggregates included).
pub fn expr_autoinc(e: &Expr) -> bool {
    match e {
        Expr::AutoInc => true,
        Expr::Var(_) | Expr::Const(_) => false,
        Expr::Bin(_, _, a, b) => expr_autoinc(a) || expr_autoinc(b),
        Expr::Un(_, _, a) | Expr::Strlen(a) | Expr::Conv(_, _, a) | Expr::Ord(a) => expr_autoinc(a),
        Expr::Substr(a, b, c) => expr_autoinc(a) || expr_autoinc(b) || expr_autoinc(c),
        Expr::Cat(xs) | Expr::MinMax(_, _, xs) | Expr::Rec(xs) => xs.iter().any(expr_autoinc),
        Expr::Agg(agg) => {
            agg.target.as_ref().is_some_and(expr_autoinc) || agg.body.iter().any(lit_autoinc)
        }
    }
}

/// Whether every variable of `e` is bound.
pub fn ready(e: &Expr, bound: &[bool]) -> bool {
    let mut vs = Vec::new();
    expr_vars(e, &mut vs);
    vs.iter().all(|v| bound[*v])
}

/// Whether an atom can be read once the variables of `bound` are bound: the
/// variables of its expression arguments are bound already, or bound by plain
/// variable arguments of the atom itself (`R(x, x + 1)`).
pub fn atom_ready(args: &[Arg], bound: &[bool]) -> bool {
    let waiting = |b: &[bool]| {
        args.iter()
            .any(|a| matches!(a, Arg::Expr(e) if !ready(e, b)))
    };
    if !waiting(bound) {
        return true;
    }
    let mut after = bound.to_vec();
    for a in args {
        if let Arg::Var(v) = a {
            after[*v] = true;
        }
    }
    !waiting(&after)
}

pub fn lit_loc(l: &Lit) -> &Loc {
    match l {
        Lit::Atom { loc, .. }
        | Lit::Neg { loc, .. }
        | Lit::Cmp { loc, .. }
        | Lit::Contains { loc, .. }
        | Lit::Match { loc, .. }
        | Lit::Range { loc, .. }
        | Lit::Unpack { loc, .. } => loc,
    }
}

/// Aggregate-local variables carry an internal `@k` suffix; hide it.
pub fn display_var(name: &str) -> &str {
    name.split('@').next().unwrap_or(name)
}
