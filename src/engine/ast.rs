//! Syntax tree of the supported Soufflé subset, as produced by the parser.
//!
//! Bodies are already in disjunctive normal form: the parser splits `a ; b`
//! into one clause per alternative, as Soufflé does.

use std::fmt;
use std::sync::Arc;

/// A source position: file name (as given), 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    pub file: Arc<str>,
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Build the canonical one-line error `FILE:LINE:COL: message`.
pub fn err_at(loc: &Loc, msg: impl fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("{loc}: {msg}")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    Band,
    Bor,
    Bxor,
    Bshl,
    Bshr,
    Land,
    Lor,
    Lxor,
    /// `bshru`: logical shift right, on any integer type.
    Bshru,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Bnot,
    Lnot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggOp {
    Count,
    Sum,
    Min,
    Max,
    /// Average of float targets (a float; no value over an empty set).
    Mean,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug)]
pub enum Term {
    Var(String, Loc),
    Anon(Loc),
    /// Integer literal (decimal, `0x`, `0b`); range-checked against the
    /// column type when lowered (number: i32, unsigned: u32).
    Number(i64, Loc),
    /// Unsigned literal `123u`.
    Unsigned(u32, Loc),
    Float(f32, Loc),
    Str(String, Loc),
    Bin(BinOp, Box<Term>, Box<Term>, Loc),
    Un(UnOp, Box<Term>, Loc),
    /// Intrinsic functor call: `cat`, `strlen`, `substr`, `to_number`, `to_string`, `ord`, ...
    Call(String, Vec<Term>, Loc),
    /// `as(term, Type)`.
    As(Box<Term>, String, Loc),
    Agg(Box<Aggregate>),
    /// Record constructor `[a, b]`.
    Record(Vec<Term>, Loc),
    /// The empty record `nil`.
    Nil(Loc),
    /// ADT branch constructor `$C(a, b)` (no arguments: `$C`).
    Branch(String, Vec<Term>, Loc),
}

impl Term {
    pub fn loc(&self) -> &Loc {
        match self {
            Term::Var(_, l)
            | Term::Anon(l)
            | Term::Number(_, l)
            | Term::Unsigned(_, l)
            | Term::Float(_, l)
            | Term::Str(_, l)
            | Term::Bin(_, _, _, l)
            | Term::Un(_, _, l)
            | Term::Call(_, _, l)
            | Term::As(_, _, l)
            | Term::Record(_, l)
            | Term::Nil(l)
            | Term::Branch(_, _, l) => l,
            Term::Agg(a) => &a.loc,
        }
    }
}

/// Whether two terms are written the same, positions aside.
pub fn same_term(a: &Term, b: &Term) -> bool {
    let all = |xs: &[Term], ys: &[Term]| {
        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_term(x, y))
    };
    match (a, b) {
        (Term::Var(x, _), Term::Var(y, _)) | (Term::Str(x, _), Term::Str(y, _)) => x == y,
        (Term::Anon(_), Term::Anon(_)) | (Term::Nil(_), Term::Nil(_)) => true,
        (Term::Number(x, _), Term::Number(y, _)) => x == y,
        (Term::Unsigned(x, _), Term::Unsigned(y, _)) => x == y,
        (Term::Float(x, _), Term::Float(y, _)) => x.to_bits() == y.to_bits(),
        (Term::Bin(o, x1, x2, _), Term::Bin(p, y1, y2, _)) => {
            o == p && same_term(x1, y1) && same_term(x2, y2)
        }
        (Term::Un(o, x, _), Term::Un(p, y, _)) => o == p && same_term(x, y),
        (Term::Call(f, xs, _), Term::Call(g, ys, _))
        | (Term::Branch(f, xs, _), Term::Branch(g, ys, _)) => f == g && all(xs, ys),
        (Term::As(x, t, _), Term::As(y, u, _)) => t == u && same_term(x, y),
        (Term::Record(xs, _), Term::Record(ys, _)) => all(xs, ys),
        (Term::Agg(x), Term::Agg(y)) => {
            x.op == y.op
                && match (&x.target, &y.target) {
                    (Some(s), Some(t)) => same_term(s, t),
                    (None, None) => true,
                    _ => false,
                }
                && x.body.len() == y.body.len()
                && x.body.iter().zip(&y.body).all(|(k, l)| same_literal(k, l))
        }
        _ => false,
    }
}

/// Whether two literals are written the same, positions aside.
pub fn same_literal(a: &Literal, b: &Literal) -> bool {
    let atoms = |x: &Atom, y: &Atom| {
        x.name == y.name
            && x.args.len() == y.args.len()
            && x.args.iter().zip(&y.args).all(|(s, t)| same_term(s, t))
    };
    match (a, b) {
        (Literal::Pos(x), Literal::Pos(y)) | (Literal::Neg(x), Literal::Neg(y)) => atoms(x, y),
        (Literal::Cmp(o, x1, x2, _), Literal::Cmp(p, y1, y2, _)) => {
            o == p && same_term(x1, y1) && same_term(x2, y2)
        }
        (Literal::Contains(m, x1, x2, _), Literal::Contains(n, y1, y2, _))
        | (Literal::Match(m, x1, x2, _), Literal::Match(n, y1, y2, _)) => {
            m == n && same_term(x1, y1) && same_term(x2, y2)
        }
        _ => false,
    }
}

#[derive(Clone, Debug)]
pub struct Aggregate {
    pub op: AggOp,
    pub target: Option<Term>,
    pub body: Vec<Literal>,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub struct Atom {
    pub name: String,
    pub args: Vec<Term>,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub enum Literal {
    Pos(Atom),
    Neg(Atom),
    Cmp(CmpOp, Term, Term, Loc),
    /// `contains(sub, s)`, possibly negated.
    Contains(bool, Term, Term, Loc),
    /// `match(regex, s)`, possibly negated.
    Match(bool, Term, Term, Loc),
}

#[derive(Clone, Debug)]
pub struct Clause {
    pub heads: Vec<Atom>,
    pub body: Vec<Literal>,
    pub loc: Loc,
    /// The `.plan` after the rule.
    pub plan: Vec<PlanOrder>,
}

/// `version: (atom numbers)` in a `.plan`: a join order for one version of a
/// recursive rule (Soufflé's hint; checked, then ignored).
#[derive(Clone, Debug)]
pub struct PlanOrder {
    pub version: usize,
    pub order: Vec<usize>,
    /// The position of its `(`.
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub enum TypeDef {
    /// `.type T <: base`
    Subset(String),
    /// `.type T = A | B` (one member: an alias)
    Union(Vec<String>),
    /// `.type R = [a: T, b: U]`
    Record(Vec<Attr>),
    /// `.type E = A {x: T} | B {}`: branches with their fields.
    Adt(Vec<(String, Vec<Attr>, Loc)>),
}

#[derive(Clone, Debug)]
pub struct TypeDecl {
    pub name: String,
    pub def: TypeDef,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub struct Attr {
    pub name: String,
    pub ty: String,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub struct RelDecl {
    pub name: String,
    pub attrs: Vec<Attr>,
    /// Qualifiers after the attributes (`eqrel`, `inline`, `btree`, ...).
    pub qualifiers: Vec<(String, Loc)>,
    /// `choice-domain` keys: each a list of attribute names.
    pub choice: Vec<(Vec<String>, Loc)>,
    pub loc: Loc,
    /// Where the relation's name is written (Soufflé's location of a relation).
    pub name_loc: Loc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoKind {
    Input,
    Output,
    PrintSize,
}

#[derive(Clone, Debug)]
pub struct IoDirective {
    pub kind: IoKind,
    pub rel: String,
    pub params: Vec<(String, String)>,
    pub loc: Loc,
}

/// `R(a) <= R(b) :- body.`: a tuple `a` of `R` is deleted when a distinct
/// tuple `b` of `R` exists and the body holds (one per body alternative).
#[derive(Clone, Debug)]
pub struct Subsumption {
    pub dominated: Atom,
    pub dominating: Atom,
    pub body: Vec<Literal>,
    pub loc: Loc,
    pub plan: Vec<PlanOrder>,
}

/// A component signature `Name<A, B>` (declaration, base or instantiation).
#[derive(Clone, Debug)]
pub struct CompType {
    pub name: String,
    pub args: Vec<String>,
    pub loc: Loc,
}

/// `.comp Name<T..> : Base<..>, .. { body }`.
#[derive(Clone, Debug)]
pub struct Component {
    pub ty: CompType,
    pub bases: Vec<CompType>,
    pub body: Source,
    pub loc: Loc,
}

/// `.init name = Comp<args>`.
#[derive(Clone, Debug)]
pub struct CompInit {
    pub name: String,
    pub ty: CompType,
    pub loc: Loc,
}

#[derive(Clone, Debug, Default)]
pub struct Source {
    pub types: Vec<TypeDecl>,
    pub decls: Vec<RelDecl>,
    pub ios: Vec<IoDirective>,
    pub clauses: Vec<Clause>,
    /// `.pragma "key" "value"` (value `""` when absent).
    pub pragmas: Vec<(String, String, Loc)>,
    /// `.limitsize R(n=N)`.
    pub limits: Vec<(String, usize, Loc)>,
    /// Deprecated syntax that was accepted, as Soufflé warns about it.
    pub deprecated: Vec<(Loc, String)>,
    pub subsumptions: Vec<Subsumption>,
    /// `.comp` declarations, `.init` instantiations and (inside a component
    /// body) `.override` directives; `sema::components` expands them away.
    pub comps: Vec<Component>,
    pub inits: Vec<CompInit>,
    pub overrides: Vec<(String, Loc)>,
    /// The text of every file read, by the name positions give it (for
    /// warnings, which quote the line).
    pub texts: std::collections::BTreeMap<String, String>,
}
