//! Recursive-descent parser for the supported Soufflé subset.
//!
//! `#include "path"` is resolved here (relative to the including file), so
//! every token keeps the position in the file it came from. Files come from
//! the disk or from an in-memory map of relative paths (`Files`).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, anyhow};

use super::ast::*;
use super::lexer::{Tok, Token, lex};
use super::preproc::{self, Macros};

/// Soufflé 2.5's keywords (its scanner's reserved identifiers).
const RESERVED: [&str; 47] = [
    "as",
    "autoinc",
    "band",
    "bnot",
    "bor",
    "brie",
    "bshl",
    "bshr",
    "bshru",
    "btree",
    "btree_delete",
    "bxor",
    "cat",
    "contains",
    "count",
    "debug_delta",
    "eqrel",
    "false",
    "inline",
    "input",
    "land",
    "lnot",
    "lor",
    "lxor",
    "magic",
    "match",
    "max",
    "mean",
    "min",
    "nil",
    "no_inline",
    "no_magic",
    "ord",
    "output",
    "overridable",
    "printsize",
    "range",
    "recursive_iteration_cnt",
    "stateful",
    "strlen",
    "substr",
    "sum",
    "to_float",
    "to_number",
    "to_string",
    "to_unsigned",
    "true",
];

/// Names that are functors, not relations, when followed by `(`.
const FUNCTORS: [&str; 15] = [
    "cat",
    "strlen",
    "substr",
    "to_number",
    "to_string",
    "to_unsigned",
    "to_float",
    "ord",
    "min",
    "max",
    "as",
    "contains",
    "match",
    "range",
    "autoinc",
];

/// Relation qualifiers: representations and hints that change no meaning
/// (`inline` and `eqrel` do, and are checked in `sema`).
const QUALIFIERS: [&str; 9] = [
    "eqrel",
    "inline",
    "no_inline",
    "magic",
    "no_magic",
    "brie",
    "btree",
    "btree_delete",
    "overridable",
];

/// Unary operators written as words; `bnot(x)` is an expression.
const UNARY_WORDS: [&str; 2] = ["bnot", "lnot"];

/// Where program files come from.
#[derive(Clone, Copy)]
enum Files<'a> {
    Disk,
    /// `/`-separated relative paths to file contents.
    Memory(&'a BTreeMap<String, String>),
}

struct Parser<'a> {
    toks: Vec<Token>,
    pos: usize,
    out: &'a mut Source,
}

/// Reads program files into preprocessed tokens, following `#include`s.
struct Loader<'a> {
    files: Files<'a>,
    /// Files being read, outermost first (to reject recursive includes).
    stack: Vec<PathBuf>,
    /// The text of every file read, by its shown name.
    texts: BTreeMap<String, String>,
}

/// Parse a program from a file, following `#include`s.
pub fn parse_file(path: &Path) -> Result<Source> {
    let mut ld = Loader {
        files: Files::Disk,
        stack: Vec::new(),
        texts: BTreeMap::new(),
    };
    let toks = ld.file(path, None, &mut Macros::default())?;
    parse_tokens(toks, ld.texts)
}

/// Parse a program held in memory; `#include` paths resolve against the current directory.
pub fn parse_source(name: &str, text: &str) -> Result<Source> {
    let mut ld = Loader {
        files: Files::Disk,
        stack: Vec::new(),
        texts: BTreeMap::new(),
    };
    let toks = ld.text(name, text, Path::new("."), &mut Macros::default())?;
    parse_tokens(toks, ld.texts)
}

/// Parse the program `entry` of `files`, a map from `/`-separated relative
/// paths to contents, which also serves its `#include`s.
pub fn parse_files(entry: &str, files: &BTreeMap<String, String>) -> Result<Source> {
    let mut ld = Loader {
        files: Files::Memory(files),
        stack: Vec::new(),
        texts: BTreeMap::new(),
    };
    let toks = ld.file(Path::new(entry), None, &mut Macros::default())?;
    parse_tokens(toks, ld.texts)
}

/// Parse preprocessed tokens (ending with `Eof`).
fn parse_tokens(toks: Vec<Token>, texts: BTreeMap<String, String>) -> Result<Source> {
    let mut out = Source {
        texts,
        ..Source::default()
    };
    let mut p = Parser {
        toks,
        pos: 0,
        out: &mut out,
    };
    p.program()?;
    Ok(out)
}

/// `path` without `.` components and with `dir/..` pairs removed (leading `..` stay).
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out.iter().collect()
}

impl Loader<'_> {
    /// The tokens of the file at `path` (included from `from`, if it is an include).
    fn file(&mut self, path: &Path, from: Option<&Loc>, macros: &mut Macros) -> Result<Vec<Token>> {
        // The text, the name shown in positions, the identity of the file (for
        // recursion) and the directory its includes resolve against.
        let (text, shown, key, dir) = match self.files {
            Files::Disk => {
                let text = std::fs::read_to_string(path).map_err(|e| match from {
                    Some(l) => err_at(
                        l,
                        format!("cannot read included file {}: {e}", path.display()),
                    ),
                    None => anyhow!("cannot read program {}: {e}", path.display()),
                })?;
                let canon = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
                let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
                (text, path.display().to_string(), canon, dir)
            }
            Files::Memory(map) => {
                let key = normalize(path);
                let shown = key.to_string_lossy().replace('\\', "/");
                let text = map.get(&shown).cloned().ok_or_else(|| match from {
                    Some(l) => err_at(l, format!("cannot read included file {shown}: not found")),
                    None => anyhow!("cannot read program {shown}: not found"),
                })?;
                let dir = key.parent().map(Path::to_path_buf).unwrap_or_default();
                (text, shown, key, dir)
            }
        };
        if self.stack.contains(&key) {
            return Err(err_at(
                from.unwrap(),
                format!("recursive #include of {shown}"),
            ));
        }
        self.stack.push(key);
        let toks = self.text(&shown, &text, &dir, macros)?;
        self.stack.pop();
        Ok(toks)
    }

    /// The preprocessed tokens of `text` (named `name`; includes resolve against `dir`).
    fn text(
        &mut self,
        name: &str,
        text: &str,
        dir: &Path,
        macros: &mut Macros,
    ) -> Result<Vec<Token>> {
        let file: Arc<str> = Arc::from(name);
        self.texts.insert(name.to_string(), text.to_string());
        let toks = lex(&file, text)?;
        preproc::run(toks, macros, &mut |rel, loc, m| {
            self.file(&dir.join(rel), Some(loc), m)
        })
    }
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn peek2(&self) -> &Tok {
        &self.toks[(self.pos + 1).min(self.toks.len() - 1)].tok
    }
    fn loc(&self) -> Loc {
        self.toks[self.pos].loc.clone()
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::P(q) if *q == p)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn describe(t: &Tok) -> String {
        match t {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Underscore => "`_`".into(),
            Tok::Int(s, u) => format!("`{s}{}`", if *u { "u" } else { "" }),
            Tok::Float(s) => format!("`{s}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Dir(s) => format!("`.{s}`"),
            Tok::Include(_) => "`#include`".into(),
            Tok::Hash(d) => format!("`#{d}`"),
            Tok::EndDir => "end of line".into(),
            Tok::P(p) => format!("`{p}`"),
            Tok::Eof => "end of file".into(),
        }
    }
    fn unexpected<T>(&self, what: &str) -> Result<T> {
        Err(err_at(
            &self.loc(),
            format!(
                "syntax error: expected {what}, found {}",
                Self::describe(self.peek())
            ),
        ))
    }
    fn expect(&mut self, p: &str) -> Result<()> {
        if self.eat(p) {
            Ok(())
        } else {
            self.unexpected(&format!("`{p}`"))
        }
    }
    fn ident(&mut self) -> Result<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.not_reserved(&s)?;
                self.bump();
                Ok(s)
            }
            _ => self.unexpected("an identifier"),
        }
    }
    /// Soufflé's scanner makes its keywords tokens of their own, so they are
    /// never names (of relations, attributes, types, components or variables).
    fn not_reserved(&self, word: &str) -> Result<()> {
        if RESERVED.contains(&word) {
            return Err(err_at(
                &self.loc(),
                format!("`{word}` is a reserved word and cannot be a name"),
            ));
        }
        Ok(())
    }

    /// A (possibly dotted) type or relation name: `inst.rel`. The lexer reads
    /// `.rel` as a directive token; it is part of the name when it touches
    /// the identifier before it.
    fn name(&mut self) -> Result<String> {
        let mut name = self.ident()?;
        while let Some(part) = self.qualifier_at(self.pos) {
            name.push('.');
            name.push_str(&part);
            self.bump();
        }
        Ok(name)
    }

    /// The `.part` of a qualified name at token `i`: a directive token that
    /// starts right where the token before it ends.
    fn qualifier_at(&self, i: usize) -> Option<String> {
        let (Some(prev), Some(t)) = (i.checked_sub(1).map(|j| &self.toks[j]), self.toks.get(i))
        else {
            return None;
        };
        let Tok::Dir(part) = &t.tok else {
            return None;
        };
        let width = match &prev.tok {
            Tok::Ident(s) => s.chars().count(),
            Tok::Dir(s) => s.chars().count() + 1,
            _ => return None,
        };
        let touches = prev.loc.file == t.loc.file
            && prev.loc.line == t.loc.line
            && prev.loc.col as usize + width == t.loc.col as usize;
        touches.then(|| part.clone())
    }

    /// Whether the identifier at the current token starts a qualified name.
    fn qualified_here(&self) -> bool {
        matches!(self.peek(), Tok::Ident(_)) && self.qualifier_at(self.pos + 1).is_some()
    }

    fn program(&mut self) -> Result<()> {
        self.items(false)
    }

    /// Directives and clauses up to the end of the file, or up to the `}`
    /// closing a component body (`in_comp`).
    fn items(&mut self, in_comp: bool) -> Result<()> {
        // the clauses and subsumptions from these indexes on came from the rule
        // just read, which a `.plan` may follow
        let mut last_rule: Option<(usize, usize)> = None;
        loop {
            let loc = self.loc();
            let after_rule = last_rule.take();
            match self.peek().clone() {
                Tok::Eof if !in_comp => return Ok(()),
                Tok::P("}") if in_comp => return Ok(()),
                Tok::Dir(d) => {
                    self.bump();
                    match d.as_str() {
                        "type" => self.type_decl(loc)?,
                        "number_type" | "symbol_type" => {
                            let name = self.ident()?;
                            let base = if d == "number_type" {
                                "number"
                            } else {
                                "symbol"
                            };
                            self.deprecated_type(name, base, loc);
                        }
                        "decl" => self.rel_decl(loc)?,
                        "input" => self.io(IoKind::Input)?,
                        "output" => self.io(IoKind::Output)?,
                        "printsize" => self.io(IoKind::PrintSize)?,
                        "pragma" => self.pragma(loc)?,
                        "plan" => {
                            let Some((c, s)) = after_rule else {
                                return Err(err_at(&loc, "`.plan` must follow a rule"));
                            };
                            let plan = self.plan()?;
                            self.out.clauses[c..]
                                .iter_mut()
                                .for_each(|x| x.plan = plan.clone());
                            let subs = &mut self.out.subsumptions[s..];
                            subs.iter_mut().for_each(|x| x.plan = plan.clone());
                        }
                        "limitsize" => self.limitsize(loc)?,
                        "comp" => self.component(loc)?,
                        "init" => self.init(loc)?,
                        "override" if in_comp => {
                            let name = self.ident()?;
                            self.out.overrides.push((name, loc));
                        }
                        "override" => {
                            return Err(err_at(&loc, "`.override` outside a component"));
                        }
                        _ => return Err(err_at(&loc, format!("unsupported directive `.{d}`"))),
                    }
                }
                Tok::Ident(_) => {
                    let (c, s) = (self.out.clauses.len(), self.out.subsumptions.len());
                    self.clause()?;
                    let rule = self.out.subsumptions.len() > s
                        || self.out.clauses[c..].iter().any(|x| !x.body.is_empty());
                    last_rule = rule.then_some((c, s));
                }
                _ => return self.unexpected("a directive or a clause"),
            }
        }
    }

    /// `Name<A, B>`: a component name and its type arguments.
    fn comp_type(&mut self) -> Result<CompType> {
        let loc = self.loc();
        let name = self.ident()?;
        let mut args = Vec::new();
        if self.eat("<") {
            args.push(self.name()?);
            while self.eat(",") {
                args.push(self.name()?);
            }
            self.expect(">")?;
        }
        Ok(CompType { name, args, loc })
    }

    /// `.comp Name<T..> : Base<..>, Other { elements }`.
    fn component(&mut self, loc: Loc) -> Result<()> {
        let ty = self.comp_type()?;
        let mut bases = Vec::new();
        if self.eat(":") {
            bases.push(self.comp_type()?);
            while self.eat(",") {
                bases.push(self.comp_type()?);
            }
        }
        self.expect("{")?;
        let outer = std::mem::take(self.out);
        let res = self.items(true);
        let mut body = std::mem::replace(self.out, outer);
        res?;
        // warnings and pragmas hold once, whether or not the component is used
        self.out.deprecated.append(&mut body.deprecated);
        self.out.pragmas.append(&mut body.pragmas);
        self.expect("}")?;
        self.out.comps.push(super::ast::Component {
            ty,
            bases,
            body,
            loc,
        });
        Ok(())
    }

    /// `.init name = Comp<args>`.
    fn init(&mut self, loc: Loc) -> Result<()> {
        let name = self.ident()?;
        self.expect("=")?;
        let ty = self.comp_type()?;
        self.out.inits.push(CompInit { name, ty, loc });
        Ok(())
    }

    fn type_decl(&mut self, loc: Loc) -> Result<()> {
        let name = self.ident()?;
        let def = if self.eat("<:") {
            TypeDef::Subset(self.name()?)
        } else if self.eat("=") {
            if self.eat("[") {
                TypeDef::Record(self.attrs("]")?)
            } else if matches!(self.peek2(), Tok::P("{")) {
                let mut branches = Vec::new();
                loop {
                    let bloc = self.loc();
                    let b = self.ident()?;
                    self.expect("{")?;
                    branches.push((b, self.attrs("}")?, bloc));
                    if !self.eat("|") {
                        break;
                    }
                }
                TypeDef::Adt(branches)
            } else {
                let mut members = vec![self.name()?];
                while self.eat("|") {
                    members.push(self.name()?);
                }
                if self.is("{") {
                    return Err(err_at(
                        &self.loc(),
                        "a type mixes ADT branches and union members",
                    ));
                }
                TypeDef::Union(members)
            }
        } else {
            // `.type T` alone: Soufflé's deprecated form of `.type T <: symbol`
            self.deprecated_type(name, "symbol", loc);
            return Ok(());
        };
        self.out.types.push(TypeDecl { name, def, loc });
        Ok(())
    }

    /// `.number_type T`, `.symbol_type T`, `.type T`: a subset type, with
    /// Soufflé's deprecation warning.
    fn deprecated_type(&mut self, name: String, base: &str, loc: Loc) {
        self.out
            .deprecated
            .push((loc.clone(), "Deprecated type declaration used".into()));
        self.out.types.push(TypeDecl {
            name,
            def: TypeDef::Subset(base.into()),
            loc,
        });
    }

    /// `.decl A, B(attrs) qualifiers`: one declaration per name.
    fn rel_decl(&mut self, loc: Loc) -> Result<()> {
        let first = self.loc();
        let mut names = vec![(self.ident()?, first)];
        while self.eat(",") {
            let l = self.loc();
            names.push((self.ident()?, l));
        }
        self.expect("(")?;
        let attrs = self.attrs(")")?;
        let mut qualifiers = Vec::new();
        let mut choice = Vec::new();
        let mut io_tags = Vec::new();
        // a qualifier is a word not followed by `(` (which starts a clause)
        while let Tok::Ident(q) = self.peek().clone()
            && !matches!(self.peek2(), Tok::P("("))
            && !self.qualified_here()
        {
            let l = self.loc();
            self.bump();
            if q == "choice" && self.eat("-") {
                if !matches!(self.peek(), Tok::Ident(w) if w == "domain") {
                    return self.unexpected("`choice-domain`");
                }
                self.bump();
                self.choice_domains(&mut choice)?;
                continue;
            }
            if let Some(kind) = match q.as_str() {
                "input" => Some(IoKind::Input),
                "output" => Some(IoKind::Output),
                "printsize" => Some(IoKind::PrintSize),
                _ => None,
            } {
                // the deprecated form of `.input R` etc.
                let msg = format!("Deprecated {q} qualifier was used");
                self.out.deprecated.push((l.clone(), msg));
                io_tags.push(kind);
                continue;
            }
            if !QUALIFIERS.contains(&q.as_str()) {
                return Err(err_at(&l, format!("unsupported relation qualifier `{q}`")));
            }
            qualifiers.push((q, l));
        }
        for (i, (name, name_loc)) in names.into_iter().enumerate() {
            // the first name's declaration starts at `.decl`, the others at their name
            let loc = if i == 0 {
                loc.clone()
            } else {
                name_loc.clone()
            };
            for kind in &io_tags {
                self.out.ios.push(IoDirective {
                    kind: *kind,
                    rel: name.clone(),
                    params: vec![],
                    loc: loc.clone(),
                });
            }
            self.out.decls.push(RelDecl {
                name,
                attrs: attrs.clone(),
                qualifiers: qualifiers.clone(),
                choice: choice.clone(),
                loc,
                name_loc,
            });
        }
        Ok(())
    }

    /// `name: type, ...` up to and including `close` (the opening bracket is eaten).
    fn attrs(&mut self, close: &str) -> Result<Vec<Attr>> {
        let mut attrs = Vec::new();
        if !self.is(close) {
            loop {
                let aloc = self.loc();
                let an = self.ident()?;
                self.expect(":")?;
                let ty = self.name()?;
                attrs.push(Attr {
                    name: an,
                    ty,
                    loc: aloc,
                });
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(close)?;
        Ok(attrs)
    }

    /// `x, (y, z)` after `choice-domain`: each a key of attribute names.
    fn choice_domains(&mut self, out: &mut Vec<(Vec<String>, Loc)>) -> Result<()> {
        loop {
            let l = self.loc();
            let key = if self.eat("(") {
                let mut k = vec![self.ident()?];
                while self.eat(",") {
                    k.push(self.ident()?);
                }
                self.expect(")")?;
                k
            } else {
                vec![self.ident()?]
            };
            out.push((key, l));
            // a `,` continues the list only if a domain follows (not a clause)
            let more = self.is(",")
                && match &self.toks[(self.pos + 1).min(self.toks.len() - 1)].tok {
                    Tok::P("(") => true,
                    Tok::Ident(_) => !matches!(
                        self.toks[(self.pos + 2).min(self.toks.len() - 1)].tok,
                        Tok::P("(")
                    ),
                    _ => false,
                };
            if !more {
                return Ok(());
            }
            self.bump();
        }
    }

    /// `.pragma "key" "value"` or `.pragma "key"`.
    fn pragma(&mut self, loc: Loc) -> Result<()> {
        let Tok::Str(key) = self.peek().clone() else {
            return self.unexpected("a pragma key string");
        };
        self.bump();
        let value = match self.peek().clone() {
            Tok::Str(v) => {
                self.bump();
                v
            }
            _ => String::new(),
        };
        self.out.pragmas.push((key, value, loc));
        Ok(())
    }

    /// `.plan 0:(1,2), 1:(2,1)` after a rule: accepted and not used (the
    /// planner orders every version itself; a plan changes no tuple).
    /// `.plan 0:(1,2), 1:(2,1)`: its orders.
    fn plan(&mut self) -> Result<Vec<PlanOrder>> {
        let mut orders = Vec::new();
        loop {
            let version = self.plan_number("a rule version number")?;
            self.expect(":")?;
            let loc = self.loc();
            self.expect("(")?;
            let mut order = Vec::new();
            if !self.eat(")") {
                loop {
                    order.push(self.plan_number("an atom number")?);
                    if self.eat(")") {
                        break;
                    }
                    self.expect(",")?;
                }
            }
            orders.push(PlanOrder {
                version,
                order,
                loc,
            });
            if !self.eat(",") {
                return Ok(orders);
            }
        }
    }

    fn plan_number(&mut self, what: &str) -> Result<usize> {
        match self.peek().clone() {
            Tok::Int(n, false) if n.parse::<usize>().is_ok() => {
                self.bump();
                Ok(n.parse().unwrap())
            }
            _ => self.unexpected(what),
        }
    }

    /// `.limitsize R(n=N)`.
    fn limitsize(&mut self, loc: Loc) -> Result<()> {
        let rel = self.name()?;
        self.expect("(")?;
        if !matches!(self.peek(), Tok::Ident(n) if n == "n") {
            return self.unexpected("`n=`");
        }
        self.bump();
        self.expect("=")?;
        let n = match self.peek() {
            Tok::Int(s, false) => s.parse::<usize>().ok(),
            _ => None,
        };
        let Some(n) = n else {
            return self.unexpected("a size limit");
        };
        self.bump();
        self.expect(")")?;
        self.out.limits.push((rel, n, loc));
        Ok(())
    }

    fn io(&mut self, kind: IoKind) -> Result<()> {
        let mut rels = vec![(self.loc(), self.name()?)];
        while self.eat(",") {
            rels.push((self.loc(), self.name()?));
        }
        let mut params = Vec::new();
        if self.eat("(") {
            if !self.is(")") {
                loop {
                    let key = self.ident()?;
                    self.expect("=")?;
                    let val = match self.bump() {
                        Tok::Str(s) | Tok::Ident(s) => s,
                        Tok::Int(s, _) => s,
                        _ => {
                            self.pos -= 1;
                            return self.unexpected("a parameter value");
                        }
                    };
                    params.push((key, val));
                    if !self.eat(",") {
                        break;
                    }
                }
            }
            self.expect(")")?;
        }
        for (l, rel) in rels {
            self.out.ios.push(IoDirective {
                kind,
                rel,
                params: params.clone(),
                loc: l,
            });
        }
        Ok(())
    }

    fn clause(&mut self) -> Result<()> {
        let loc = self.loc();
        let mut heads = vec![self.atom()?];
        if self.eat("<=") {
            return self.subsumption(heads.pop().unwrap(), loc);
        }
        while self.eat(",") {
            heads.push(self.atom()?);
        }
        if self.eat(".") {
            self.out.clauses.push(Clause {
                heads,
                body: vec![],
                loc,
                plan: vec![],
            });
            return Ok(());
        }
        if !self.is(":-") {
            return self.unexpected("`.` or `:-`");
        }
        self.bump();
        let bodies = self.disjunction()?;
        self.expect(".")?;
        for body in bodies {
            self.out.clauses.push(Clause {
                heads: heads.clone(),
                body,
                loc: loc.clone(),
                plan: vec![],
            });
        }
        Ok(())
    }

    /// The rest of `dominated <= dominating :- body.`
    fn subsumption(&mut self, dominated: Atom, loc: Loc) -> Result<()> {
        let dominating = self.atom()?;
        self.expect(":-")?;
        let bodies = self.disjunction()?;
        self.expect(".")?;
        for body in bodies {
            self.out.subsumptions.push(Subsumption {
                dominated: dominated.clone(),
                dominating: dominating.clone(),
                body,
                loc: loc.clone(),
                plan: vec![],
            });
        }
        Ok(())
    }

    fn atom(&mut self) -> Result<Atom> {
        let loc = self.loc();
        let name = self.name()?;
        if FUNCTORS.contains(&name.as_str()) && !matches!(name.as_str(), "min" | "max") {
            // fallthrough: a relation may not use a functor name; report it plainly
            return Err(err_at(
                &loc,
                format!("syntax error: `{name}` is a functor, not a relation"),
            ));
        }
        self.expect("(")?;
        let args = self.term_list()?;
        Ok(Atom { name, args, loc })
    }

    /// Comma-separated terms up to and including the closing `)`; the `(` is already eaten.
    fn term_list(&mut self) -> Result<Vec<Term>> {
        self.terms_until(")")
    }

    /// Comma-separated terms up to and including `close`.
    fn terms_until(&mut self, close: &str) -> Result<Vec<Term>> {
        let mut args = Vec::new();
        if !self.is(close) {
            loop {
                args.push(self.term()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(close)?;
        Ok(args)
    }

    /// body := conj (';' conj)* ; returns the alternatives in DNF.
    fn disjunction(&mut self) -> Result<Vec<Vec<Literal>>> {
        let mut alts = self.conjunction()?;
        while self.eat(";") {
            alts.extend(self.conjunction()?);
        }
        Ok(alts)
    }

    fn conjunction(&mut self) -> Result<Vec<Vec<Literal>>> {
        let mut acc: Vec<Vec<Literal>> = vec![vec![]];
        loop {
            let unit = self.unit()?;
            acc = self.and(&acc, &unit)?;
            if !self.eat(",") {
                return Ok(acc);
            }
        }
    }

    /// The conjunction of two bodies in disjunctive form: every alternative of
    /// `a` with every alternative of `b`. A literal written twice is kept once,
    /// as Soufflé's parser does (an aggregate's count sees it).
    fn and(&self, a: &[Vec<Literal>], b: &[Vec<Literal>]) -> Result<Vec<Vec<Literal>>> {
        if a.len() * b.len() > 4096 {
            return Err(err_at(
                &self.loc(),
                "disjunction expands to too many clauses",
            ));
        }
        let mut out = Vec::with_capacity(a.len() * b.len());
        for x in a {
            for y in b {
                let mut v = x.clone();
                for l in y {
                    if !v.iter().any(|k| same_literal(k, l)) {
                        v.push(l.clone());
                    }
                }
                out.push(v);
            }
        }
        Ok(out)
    }

    fn is_paren_body(&self) -> bool {
        // `(` starts a nested disjunction unless it is an arithmetic parenthesis,
        // i.e. a term followed by a comparison. Scan to the matching `)`.
        let mut depth = 0;
        let mut i = self.pos;
        let mut saw_sep = false;
        while i < self.toks.len() {
            match &self.toks[i].tok {
                Tok::P("(") | Tok::P("{") => depth += 1,
                Tok::P(")") | Tok::P("}") => {
                    depth -= 1;
                    if depth == 0 {
                        let after = &self.toks[(i + 1).min(self.toks.len() - 1)].tok;
                        let cmp = matches!(
                            after,
                            Tok::P(
                                "=" | "!="
                                    | "<"
                                    | "<="
                                    | ">"
                                    | ">="
                                    | "+"
                                    | "-"
                                    | "*"
                                    | "/"
                                    | "%"
                                    | "^"
                            )
                        ) || matches!(after, Tok::Ident(w) if ["band","bor","bxor","bshl","bshr","bshru","land","lor","lxor"].contains(&w.as_str()));
                        return saw_sep || !cmp;
                    }
                }
                Tok::P(";") | Tok::P("!") if depth == 1 => saw_sep = true,
                Tok::P(",") if depth == 1 => saw_sep = true,
                Tok::Eof => return false,
                _ => {}
            }
            i += 1;
        }
        false
    }

    fn unit(&mut self) -> Result<Vec<Vec<Literal>>> {
        if self.eat("!") {
            // any body term may be negated (Soufflé's grammar): by De Morgan, the
            // negation of alternatives is the conjunction of their negations
            let mut acc: Vec<Vec<Literal>> = vec![vec![]];
            for alt in self.unit()? {
                let negs: Vec<Vec<Literal>> = alt.into_iter().map(|l| vec![negated(l)]).collect();
                acc = self.and(&acc, &negs)?;
            }
            return Ok(acc);
        }
        if self.is("(") && self.is_paren_body() {
            self.bump();
            let d = self.disjunction()?;
            self.expect(")")?;
            return Ok(d);
        }
        Ok(vec![vec![self.literal()?]])
    }

    fn literal(&mut self) -> Result<Literal> {
        let loc = self.loc();
        if self.qualified_here() {
            return Ok(Literal::Pos(self.atom()?));
        }
        if let Tok::Ident(n) = self.peek().clone()
            && (n == "true" || n == "false")
            && !matches!(self.peek2(), Tok::P("("))
        {
            // a literal that always / never holds
            self.bump();
            let one = || Term::Number(1, loc.clone());
            let op = if n == "true" { CmpOp::Eq } else { CmpOp::Ne };
            return Ok(Literal::Cmp(op, one(), one(), loc));
        }
        if let Tok::Ident(n) = self.peek().clone()
            && matches!(self.peek2(), Tok::P("("))
        {
            if n == "contains" || n == "match" {
                self.bump();
                self.bump();
                let a = self.term()?;
                self.expect(",")?;
                let b = self.term()?;
                self.expect(")")?;
                return Ok(if n == "contains" {
                    Literal::Contains(false, a, b, loc)
                } else {
                    Literal::Match(false, a, b, loc)
                });
            }
            // `bnot(x) > 0` and `lnot(x) = 0` are comparisons, not atoms
            if !FUNCTORS.contains(&n.as_str()) && !UNARY_WORDS.contains(&n.as_str()) {
                return Ok(Literal::Pos(self.atom()?));
            }
        }
        let lhs = self.term()?;
        let op = match self.peek() {
            Tok::P("=") => CmpOp::Eq,
            Tok::P("!=") => CmpOp::Ne,
            Tok::P("<") => CmpOp::Lt,
            Tok::P("<=") => CmpOp::Le,
            Tok::P(">") => CmpOp::Gt,
            Tok::P(">=") => CmpOp::Ge,
            _ => return self.unexpected("a comparison operator (`=`, `!=`, `<`, `<=`, `>`, `>=`)"),
        };
        self.bump();
        let rhs = self.term()?;
        Ok(Literal::Cmp(op, lhs, rhs, loc))
    }

    // ---- terms, with Soufflé's precedence (lowest first) ----
    fn term(&mut self) -> Result<Term> {
        self.binary(0)
    }

    fn binop_at(&self, level: usize) -> Option<BinOp> {
        let t = self.peek();
        let word = |w: &str| matches!(t, Tok::Ident(s) if s == w);
        match level {
            0 if word("lor") => Some(BinOp::Lor),
            1 if word("lxor") => Some(BinOp::Lxor),
            2 if word("land") => Some(BinOp::Land),
            3 if word("bor") => Some(BinOp::Bor),
            4 if word("bxor") => Some(BinOp::Bxor),
            5 if word("band") => Some(BinOp::Band),
            6 if word("bshl") => Some(BinOp::Bshl),
            6 if word("bshr") => Some(BinOp::Bshr),
            6 if word("bshru") => Some(BinOp::Bshru),
            7 if self.is("+") => Some(BinOp::Add),
            7 if self.is("-") => Some(BinOp::Sub),
            8 if self.is("*") => Some(BinOp::Mul),
            8 if self.is("/") => Some(BinOp::Div),
            8 if self.is("%") => Some(BinOp::Mod),
            _ => None,
        }
    }

    fn binary(&mut self, level: usize) -> Result<Term> {
        if level == 9 {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        while let Some(op) = self.binop_at(level) {
            let loc = self.loc();
            self.bump();
            let rhs = self.binary(level + 1)?;
            lhs = Term::Bin(op, Box::new(lhs), Box::new(rhs), loc);
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Term> {
        let loc = self.loc();
        let op = match self.peek() {
            Tok::P("-") => Some(UnOp::Neg),
            Tok::Ident(w) if w == "bnot" => Some(UnOp::Bnot),
            Tok::Ident(w) if w == "lnot" => Some(UnOp::Lnot),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let inner = self.unary()?;
            // Fold `-literal` so that i32::MIN is expressible.
            if op == UnOp::Neg {
                match &inner {
                    Term::Number(n, _) => return Ok(Term::Number(-n, loc)),
                    Term::Float(f, _) => return Ok(Term::Float(-f, loc)),
                    _ => {}
                }
            }
            return Ok(Term::Un(op, Box::new(inner), loc));
        }
        let base = self.primary()?;
        if self.is("^") {
            let loc = self.loc();
            self.bump();
            let rhs = self.unary()?;
            return Ok(Term::Bin(BinOp::Pow, Box::new(base), Box::new(rhs), loc));
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Term> {
        let loc = self.loc();
        match self.peek().clone() {
            Tok::Underscore => {
                self.bump();
                Ok(Term::Anon(loc))
            }
            Tok::Str(s) => {
                self.bump();
                Ok(Term::Str(s, loc))
            }
            Tok::Float(s) => {
                self.bump();
                s.parse::<f32>()
                    .map(|f| Term::Float(f, loc.clone()))
                    .map_err(|_| err_at(&loc, "invalid float"))
            }
            Tok::Int(s, uns) => {
                self.bump();
                let (digits, radix) = if let Some(h) = s.strip_prefix("0x") {
                    (h, 16)
                } else if let Some(b) = s.strip_prefix("0b") {
                    (b, 2)
                } else {
                    (s.as_str(), 10)
                };
                if uns {
                    u32::from_str_radix(digits, radix)
                        .map(|v| Term::Unsigned(v, loc.clone()))
                        .map_err(|_| {
                            err_at(
                                &loc,
                                format!("unsigned constant `{s}u` is out of range or malformed"),
                            )
                        })
                } else {
                    let v = i64::from_str_radix(digits, radix)
                        .ok()
                        .filter(|v| *v <= u32::MAX as i64)
                        .ok_or_else(|| {
                            err_at(
                                &loc,
                                format!("number constant `{s}` is out of range or malformed"),
                            )
                        })?;
                    Ok(Term::Number(v, loc))
                }
            }
            Tok::P("(") => {
                self.bump();
                let t = self.term()?;
                self.expect(")")?;
                Ok(t)
            }
            Tok::P("[") => {
                self.bump();
                Ok(Term::Record(self.terms_until("]")?, loc))
            }
            Tok::P("$") => {
                self.bump();
                if !matches!(self.peek(), Tok::Ident(_)) {
                    // `$` alone: Soufflé's deprecated spelling of `autoinc()`
                    self.out.deprecated.push((
                        loc.clone(),
                        "Deprecated $ symbol was used. Use functor 'autoinc()' instead.".into(),
                    ));
                    return Ok(Term::Call("autoinc".into(), vec![], loc));
                }
                // `$inst.C`: a branch declared in a component instance
                let name = self.name()?;
                // Soufflé's grammar has no bare `$B` in a program (only in fact files)
                if !self.eat("(") {
                    return Err(err_at(
                        &loc,
                        format!("branch `${name}` needs its argument list: `${name}()`"),
                    ));
                }
                Ok(Term::Branch(name, self.term_list()?, loc))
            }
            Tok::Ident(name) if name == "nil" => {
                self.bump();
                Ok(Term::Nil(loc))
            }
            Tok::Ident(name) => {
                self.bump();
                match name.as_str() {
                    "count" | "sum" | "min" | "max" | "mean"
                        if self.is(":")
                            || matches!(name.as_str(), "sum" | "count" | "mean")
                            || !self.is("(") =>
                    {
                        return self.aggregate(&name, loc);
                    }
                    _ => {}
                }
                if self.is("(") {
                    if !FUNCTORS.contains(&name.as_str()) {
                        return Err(err_at(
                            &loc,
                            format!(
                                "unknown functor `{name}` (user-defined functors are not supported)"
                            ),
                        ));
                    }
                    self.bump();
                    if name == "as" {
                        let t = self.term()?;
                        self.expect(",")?;
                        let ty = self.name()?;
                        self.expect(")")?;
                        return Ok(Term::As(Box::new(t), ty, loc));
                    }
                    let mut args = self.term_list()?;
                    if (name == "min" || name == "max") && self.is(":") {
                        // `min (expr) : body` — an aggregate whose target is parenthesized.
                        if args.len() != 1 {
                            return self.unexpected("a single aggregate target");
                        }
                        let target = args.pop();
                        return self.aggregate_rest(&name, target, loc);
                    }
                    if name == "contains" || name == "match" {
                        return Err(err_at(
                            &loc,
                            format!("`{name}` is a constraint, not a value"),
                        ));
                    }
                    return Ok(Term::Call(name, args, loc));
                }
                if RESERVED.contains(&name.as_str()) {
                    return Err(err_at(
                        &loc,
                        format!("`{name}` is a reserved word and cannot be a name"),
                    ));
                }
                Ok(Term::Var(name, loc))
            }
            _ => self.unexpected("a term"),
        }
    }

    fn aggregate(&mut self, name: &str, loc: Loc) -> Result<Term> {
        let target = if name == "count" {
            None
        } else {
            if self.is(":") {
                return self.unexpected(&format!("a target expression after `{name}`"));
            }
            Some(self.term()?)
        };
        self.aggregate_rest(name, target, loc)
    }

    fn aggregate_rest(&mut self, name: &str, target: Option<Term>, loc: Loc) -> Result<Term> {
        let op = match name {
            "count" => AggOp::Count,
            "sum" => AggOp::Sum,
            "min" => AggOp::Min,
            "mean" => AggOp::Mean,
            _ => AggOp::Max,
        };
        self.expect(":")?;
        let body = if self.eat("{") {
            let blloc = self.loc();
            let mut alts = self.disjunction()?;
            self.expect("}")?;
            if alts.len() != 1 {
                return Err(err_at(
                    &blloc,
                    "disjunction inside an aggregate body is not supported",
                ));
            }
            alts.pop().unwrap()
        } else {
            vec![Literal::Pos(self.atom()?)]
        };
        Ok(Term::Agg(Box::new(Aggregate {
            op,
            target,
            body,
            loc,
        })))
    }
}

/// The literal that holds exactly when `lit` does not.
fn negated(lit: Literal) -> Literal {
    match lit {
        Literal::Pos(a) => Literal::Neg(a),
        Literal::Neg(a) => Literal::Pos(a),
        Literal::Cmp(op, a, b, l) => {
            let op = match op {
                CmpOp::Eq => CmpOp::Ne,
                CmpOp::Ne => CmpOp::Eq,
                CmpOp::Lt => CmpOp::Ge,
                CmpOp::Le => CmpOp::Gt,
                CmpOp::Gt => CmpOp::Le,
                CmpOp::Ge => CmpOp::Lt,
            };
            Literal::Cmp(op, a, b, l)
        }
        Literal::Contains(n, a, b, l) => Literal::Contains(!n, a, b, l),
        Literal::Match(n, a, b, l) => Literal::Match(!n, a, b, l),
    }
}
