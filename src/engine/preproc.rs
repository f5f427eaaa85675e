//! The C preprocessor steps Soufflé runs (through mcpp) before parsing, on
//! tokens: `#include` (spliced through a callback, so included files share
//! the macros), `#define` (object-like and function-like macros), `#undef`,
//! and the conditionals `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`,
//! `#endif`, `#line` and `#pragma` (ignored); `#` and `##` in macro bodies;
//! `__LINE__` and `__FILE__`.
//! Expanded tokens take the position of the macro's use.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use anyhow::Result;

use super::ast::{Loc, err_at};
use super::lexer::{Tok, Token, lex};

/// A token and whether a blank comes before it (what `#x` keeps of spacing).
type PTok = (Tok, bool);

/// Marks an empty argument next to `##` (C's placemarker); never in a body.
const PLACEMARKER: Tok = Tok::EndDir;

struct Macro {
    /// Parameter names of a function-like macro.
    params: Option<Vec<String>>,
    body: Vec<PTok>,
}

/// The macros defined so far (shared by a file and those it includes).
pub struct Macros(HashMap<String, Macro>);

impl Default for Macros {
    /// Soufflé runs mcpp with `-DRAM_DOMAIN_SIZE=32` (this engine's numbers are 32-bit).
    fn default() -> Self {
        let body = vec![(Tok::Int("32".into(), false), true)];
        let m = Macro { params: None, body };
        Macros(HashMap::from([("RAM_DOMAIN_SIZE".to_string(), m)]))
    }
}

/// Gives the tokens of an included file: (path as written, position of the `#include`).
pub type IncludeFn<'a> = dyn FnMut(&str, &Loc, &mut Macros) -> Result<Vec<Token>> + 'a;

/// One open conditional: whether its enclosing text is active, whether a
/// branch was taken already, whether the current branch is active.
struct Cond {
    outer: bool,
    taken: bool,
    on: bool,
}

/// Preprocess the tokens of one file (ending with `Eof`, which is kept; an
/// included file's is dropped).
pub fn run(toks: Vec<Token>, macros: &mut Macros, include: &mut IncludeFn) -> Result<Vec<Token>> {
    let mut out = Vec::with_capacity(toks.len());
    let mut conds: Vec<Cond> = Vec::new();
    let mut lines = LineMap::default();
    let mut it = toks.into_iter().peekable();
    while let Some(mut t) = it.next() {
        t.loc = lines.map(t.loc);
        let active = conds.last().is_none_or(|c| c.on);
        match t.tok {
            Tok::Eof => {
                if !conds.is_empty() {
                    return Err(err_at(&t.loc, "unterminated #if"));
                }
                out.push(t);
                break;
            }
            Tok::Hash(d) => {
                let mut line = Vec::new();
                for mut x in it.by_ref() {
                    if x.tok == Tok::EndDir {
                        break;
                    }
                    x.loc = lines.map(x.loc);
                    line.push(x);
                }
                if d == "line" && active {
                    lines.set(&t.loc, &line)?;
                    continue;
                }
                directive(&d, &t.loc, line, active, &mut conds, macros)?;
            }
            Tok::Include(p) if active => {
                let toks = include(&p, &t.loc, macros)?;
                out.extend(toks.into_iter().filter(|x| x.tok != Tok::Eof));
            }
            _ if !active => {}
            Tok::Ident(ref name) if macros.0.contains_key(name) => {
                let mut rest: Vec<Token> = Vec::new();
                // a function-like macro takes its arguments from what follows
                if macros.0[name].params.is_some() {
                    if !matches!(it.peek(), Some(x) if x.tok == Tok::P("(")) {
                        out.push(t);
                        continue;
                    }
                    let mut depth = 0;
                    for x in it.by_ref() {
                        depth += match x.tok {
                            Tok::P("(") => 1,
                            Tok::P(")") => -1,
                            _ => 0,
                        };
                        let end = depth == 0;
                        rest.push(x);
                        if end {
                            break;
                        }
                    }
                    if depth != 0 {
                        return Err(err_at(&t.loc, format!("unterminated call of macro {name}")));
                    }
                }
                let mut toks = vec![(t.tok.clone(), t.space)];
                toks.extend(rest.into_iter().map(|x| (x.tok, x.space)));
                let mut hide = HashSet::new();
                for (tok, space) in expand(&toks, macros, &mut hide, &t.loc)? {
                    out.push(Token {
                        tok: builtin(tok, &t.loc),
                        loc: t.loc.clone(),
                        space,
                    });
                }
            }
            _ => {
                t.tok = builtin(t.tok, &t.loc);
                out.push(t);
            }
        }
    }
    Ok(out)
}

/// mcpp's `__LINE__` and `__FILE__` where they are used (this engine's name
/// of the file; Soufflé's mcpp gives its absolute path).
fn builtin(tok: Tok, loc: &Loc) -> Tok {
    match &tok {
        Tok::Ident(n) if n == "__LINE__" => Tok::Int(loc.line.to_string(), false),
        Tok::Ident(n) if n == "__FILE__" => Tok::Str(loc.file.to_string()),
        _ => tok,
    }
}

/// The numbering `#line N "file"` sets: the line after the directive is `N`
/// (of `file`, when given), and the following lines count on from there.
#[derive(Default)]
struct LineMap(Option<(u32, u32, Option<Arc<str>>)>);

impl LineMap {
    fn map(&self, mut loc: Loc) -> Loc {
        if let Some((from, to, file)) = &self.0 {
            loc.line = loc.line.wrapping_sub(*from).wrapping_add(*to);
            if let Some(f) = file {
                loc.file = f.clone();
            }
        }
        loc
    }

    /// `#line N` or `#line N "file"` at `loc` (already mapped).
    fn set(&mut self, loc: &Loc, line: &[Token]) -> Result<()> {
        let toks: Vec<&Tok> = line.iter().map(|t| &t.tok).collect();
        let (n, file) = match toks[..] {
            [Tok::Int(n, false)] => (n, None),
            [Tok::Int(n, false), Tok::Str(f)] => (n, Some(Arc::from(f.as_str()))),
            _ => {
                return Err(err_at(
                    loc,
                    "#line needs a line number and an optional file name",
                ));
            }
        };
        let n: u32 = n
            .parse()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| err_at(loc, format!("#line: bad line number {n}")))?;
        // the raw line after the directive: undo this map's shift for the directive's line
        let raw = match &self.0 {
            Some((from, to, _)) => loc.line.wrapping_sub(*to).wrapping_add(*from),
            None => loc.line,
        };
        let file = file.or_else(|| self.0.as_ref().and_then(|m| m.2.clone()));
        self.0 = Some((raw + 1, n, file));
        Ok(())
    }
}

fn directive(
    d: &str,
    loc: &Loc,
    line: Vec<Token>,
    active: bool,
    conds: &mut Vec<Cond>,
    macros: &mut Macros,
) -> Result<()> {
    let name = |line: &[Token]| match line.first().map(|t| &t.tok) {
        Some(Tok::Ident(n)) => Ok(n.clone()),
        _ => Err(err_at(loc, format!("#{d} needs a macro name"))),
    };
    match d {
        "if" | "ifdef" | "ifndef" => {
            let on = active
                && match d {
                    "if" => condition(&line, macros, loc)?,
                    "ifdef" => macros.0.contains_key(&name(&line)?),
                    _ => !macros.0.contains_key(&name(&line)?),
                };
            conds.push(Cond {
                outer: active,
                taken: on,
                on,
            });
        }
        "elif" | "else" => {
            let c = conds
                .last_mut()
                .ok_or_else(|| err_at(loc, format!("#{d} without #if")))?;
            let on = c.outer && !c.taken && (d == "else" || condition(&line, macros, loc)?);
            c.taken |= on;
            c.on = on;
        }
        "endif" => {
            conds
                .pop()
                .ok_or_else(|| err_at(loc, "#endif without #if"))?;
        }
        _ if !active => {}
        "define" => define(line, loc, macros)?,
        "undef" => {
            macros.0.remove(&name(&line)?);
        }
        "error" => return Err(err_at(loc, "#error")),
        // mcpp hands pragmas on and Soufflé's scanner drops them
        "pragma" => {}
        _ => {
            return Err(err_at(
                loc,
                format!("unsupported preprocessor directive `#{d}`"),
            ));
        }
    }
    Ok(())
}

/// `#define NAME body` or `#define NAME(a, b) body` (no blank before `(`).
fn define(line: Vec<Token>, loc: &Loc, macros: &mut Macros) -> Result<()> {
    let mut it = line.into_iter().peekable();
    let Some(Token {
        tok: Tok::Ident(name),
        loc: nl,
        ..
    }) = it.next()
    else {
        return Err(err_at(loc, "#define needs a macro name"));
    };
    let glued = it.peek().is_some_and(|t| t.tok == Tok::P("(") && !t.space);
    let mut params = None;
    if glued {
        it.next();
        let mut ps = Vec::new();
        loop {
            match it.next().map(|t| t.tok) {
                Some(Tok::P(")")) if ps.is_empty() => break,
                Some(Tok::Ident(p)) => ps.push(p),
                _ => return Err(err_at(loc, format!("malformed parameters of macro {name}"))),
            }
            match it.next().map(|t| t.tok) {
                Some(Tok::P(",")) => {}
                Some(Tok::P(")")) => break,
                _ => return Err(err_at(loc, format!("malformed parameters of macro {name}"))),
            }
        }
        params = Some(ps);
    }
    let body: Vec<PTok> = it.map(|t| (t.tok, t.space)).collect();
    let paste = Tok::P("##");
    if body.first().is_some_and(|t| t.0 == paste) || body.last().is_some_and(|t| t.0 == paste) {
        return Err(err_at(&nl, format!("`##` at either end of macro {name}")));
    }
    if let Some(ps) = &params {
        let is_param = |t: Option<&PTok>| matches!(t, Some((Tok::Ident(p), _)) if ps.contains(p));
        for (k, t) in body.iter().enumerate() {
            if t.0 == Tok::P("#") && !is_param(body.get(k + 1)) {
                return Err(err_at(
                    &nl,
                    format!("`#` not followed by a parameter in macro {name}"),
                ));
            }
        }
    }
    macros.0.insert(name, Macro { params, body });
    Ok(())
}

/// Expand the macros in `toks` (fully, rescanning), except those in `hide`
/// (being expanded already, which stops recursion as in C).
fn expand(
    toks: &[PTok],
    macros: &Macros,
    hide: &mut HashSet<String>,
    loc: &Loc,
) -> Result<Vec<PTok>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let (t, space) = &toks[i];
        i += 1;
        let Tok::Ident(name) = t else {
            out.push(toks[i - 1].clone());
            continue;
        };
        let Some(m) = macros.0.get(name).filter(|_| !hide.contains(name)) else {
            out.push(toks[i - 1].clone());
            continue;
        };
        let mut body = match &m.params {
            None => paste_all(m.body.clone(), loc)?,
            Some(params) => {
                if toks.get(i).map(|x| &x.0) != Some(&Tok::P("(")) {
                    out.push(toks[i - 1].clone());
                    continue;
                }
                let (args, next) = call_args(toks, i, loc, name)?;
                i = next;
                if args.len() != params.len() && !(params.is_empty() && args == [vec![]]) {
                    return Err(err_at(
                        loc,
                        format!(
                            "macro {name} takes {} arguments, given {}",
                            params.len(),
                            args.len()
                        ),
                    ));
                }
                let b = substitute(&m.body, params, &args, macros, hide, loc)?;
                paste_all(b, loc)?
            }
        };
        if let Some(first) = body.first_mut() {
            first.1 = *space;
        }
        hide.insert(name.clone());
        out.extend(expand(&body, macros, hide, loc)?);
        hide.remove(name);
    }
    Ok(out)
}

/// A function-like macro's body with its parameters replaced: `#p` by the
/// argument's text as a string, `p` next to `##` by the argument as written
/// (a placemarker when empty), any other `p` by the expanded argument.
fn substitute(
    body: &[PTok],
    params: &[String],
    args: &[Vec<PTok>],
    macros: &Macros,
    hide: &mut HashSet<String>,
    loc: &Loc,
) -> Result<Vec<PTok>> {
    let param = |t: &Tok| match t {
        Tok::Ident(p) => params.iter().position(|q| q == p),
        _ => None,
    };
    let paste = Tok::P("##");
    let mut b = Vec::new();
    let mut k = 0;
    while k < body.len() {
        let (t, space) = &body[k];
        if *t == Tok::P("#") {
            // `define` checked that a parameter follows
            let a = param(&body[k + 1].0).unwrap();
            b.push((Tok::Str(stringify(&args[a])), *space));
            k += 2;
            continue;
        }
        k += 1;
        let Some(a) = param(t) else {
            b.push((t.clone(), *space));
            continue;
        };
        let pasted =
            body.get(k).is_some_and(|x| x.0 == paste) || (k >= 2 && body[k - 2].0 == paste);
        let mut arg = if pasted {
            args[a].clone()
        } else {
            expand(&args[a], macros, hide, loc)?
        };
        if arg.is_empty() && pasted {
            arg.push((PLACEMARKER, *space));
        }
        if let Some(first) = arg.first_mut() {
            first.1 = *space;
        }
        b.extend(arg);
    }
    Ok(b)
}

/// Apply the `##` operators of a substituted body, left to right.
fn paste_all(toks: Vec<PTok>, loc: &Loc) -> Result<Vec<PTok>> {
    let mut out: Vec<PTok> = Vec::with_capacity(toks.len());
    let mut it = toks.into_iter();
    while let Some(t) = it.next() {
        if t.0 != Tok::P("##") {
            out.push(t);
            continue;
        }
        // `define` checked that `##` has an operand on each side
        let (Some(left), Some(right)) = (out.pop(), it.next()) else {
            return Err(err_at(loc, "`##` without an operand"));
        };
        out.push(match (&left.0, &right.0) {
            (&PLACEMARKER, _) => (right.0, left.1),
            (_, &PLACEMARKER) => left,
            _ => {
                let text = format!("{}{}", spelling(&left.0), spelling(&right.0));
                let mut lexed = lex(&loc.file, &text).ok().unwrap_or_default();
                lexed.retain(|x| x.tok != Tok::Eof);
                if lexed.len() != 1 {
                    return Err(err_at(
                        loc,
                        format!("pasting gives `{text}`, which is not one token"),
                    ));
                }
                (lexed.pop().unwrap().tok, left.1)
            }
        });
    }
    out.retain(|t| t.0 != PLACEMARKER);
    Ok(out)
}

/// `#x`: the argument's tokens as written, blanks between them made one space.
fn stringify(arg: &[PTok]) -> String {
    let mut s = String::new();
    for (k, (t, space)) in arg.iter().enumerate() {
        if k > 0 && *space {
            s.push(' ');
        }
        s.push_str(&spelling(t));
    }
    s
}

/// A token's text as it could be written in a program.
fn spelling(t: &Tok) -> String {
    match t {
        Tok::Ident(s) | Tok::Float(s) => s.clone(),
        Tok::Underscore => "_".into(),
        Tok::Int(s, unsigned) => format!("{s}{}", if *unsigned { "u" } else { "" }),
        Tok::Str(v) => {
            let mut s = String::from('"');
            for c in v.chars() {
                match c {
                    '"' => s.push_str("\\\""),
                    '\\' => s.push_str("\\\\"),
                    '\n' => s.push_str("\\n"),
                    '\t' => s.push_str("\\t"),
                    '\r' => s.push_str("\\r"),
                    '\x07' => s.push_str("\\a"),
                    '\x08' => s.push_str("\\b"),
                    '\x0b' => s.push_str("\\v"),
                    '\x0c' => s.push_str("\\f"),
                    c => s.push(c),
                }
            }
            s.push('"');
            s
        }
        Tok::Dir(d) => format!(".{d}"),
        Tok::P(p) => p.to_string(),
        Tok::Include(_) | Tok::Hash(_) | Tok::EndDir | Tok::Eof => String::new(),
    }
}

/// The arguments of a call whose `(` is at `i`: split at top-level commas;
/// also the position after the `)`.
fn call_args(toks: &[PTok], i: usize, loc: &Loc, name: &str) -> Result<(Vec<Vec<PTok>>, usize)> {
    let mut args = vec![Vec::new()];
    let mut depth = 0;
    for (j, t) in toks.iter().enumerate().skip(i) {
        match t.0 {
            Tok::P("(") => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            Tok::P(")") => {
                depth -= 1;
                if depth == 0 {
                    return Ok((args, j + 1));
                }
            }
            Tok::P(",") if depth == 1 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        args.last_mut().unwrap().push(t.clone());
    }
    Err(err_at(loc, format!("unterminated call of macro {name}")))
}

/// The value of an `#if` condition: `defined X` / `defined(X)`, macros
/// expanded, other names 0; integers with C's operators.
fn condition(line: &[Token], macros: &Macros, loc: &Loc) -> Result<bool> {
    let toks: Vec<Tok> = line.iter().map(|t| t.tok.clone()).collect();
    let mut pre: Vec<PTok> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i] == Tok::Ident("defined".into()) {
            let (n, skip) = match (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)) {
                (Some(Tok::P("(")), Some(Tok::Ident(n)), Some(Tok::P(")"))) => (n, 4),
                (Some(Tok::Ident(n)), _, _) => (n, 2),
                _ => return Err(err_at(loc, "malformed `defined`")),
            };
            let v = macros.0.contains_key(n) as i64;
            pre.push((Tok::Int(v.to_string(), false), true));
            i += skip;
            continue;
        }
        pre.push((toks[i].clone(), true));
        i += 1;
    }
    let toks: Vec<Tok> = expand(&pre, macros, &mut HashSet::new(), loc)?
        .into_iter()
        .map(|t| t.0)
        .collect();
    let mut p = CondParser {
        toks: &toks,
        i: 0,
        loc,
    };
    let v = p.expr(0)?;
    if p.i != toks.len() {
        return Err(err_at(loc, "malformed #if condition"));
    }
    Ok(v != 0)
}

struct CondParser<'a> {
    toks: &'a [Tok],
    i: usize,
    loc: &'a Loc,
}

/// Binary operators of `#if`, loosest first.
const COND_OPS: [&[&str]; 6] = [
    &["||"],
    &["&&"],
    &["==", "!="],
    &["<", "<=", ">", ">="],
    &["+", "-"],
    &["*", "/", "%"],
];

impl CondParser<'_> {
    fn expr(&mut self, level: usize) -> Result<i64> {
        if level == COND_OPS.len() {
            return self.unary();
        }
        let mut v = self.expr(level + 1)?;
        while let Some(Tok::P(op)) = self.toks.get(self.i)
            && COND_OPS[level].contains(op)
        {
            let op = *op;
            self.i += 1;
            let w = self.expr(level + 1)?;
            v = match op {
                "||" => (v != 0 || w != 0) as i64,
                "&&" => (v != 0 && w != 0) as i64,
                "==" => (v == w) as i64,
                "!=" => (v != w) as i64,
                "<" => (v < w) as i64,
                "<=" => (v <= w) as i64,
                ">" => (v > w) as i64,
                ">=" => (v >= w) as i64,
                "+" => v.wrapping_add(w),
                "-" => v.wrapping_sub(w),
                "*" => v.wrapping_mul(w),
                _ if w == 0 => return Err(err_at(self.loc, "division by zero in #if")),
                "/" => v.wrapping_div(w),
                _ => v.wrapping_rem(w),
            };
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<i64> {
        let t = self.toks.get(self.i).cloned();
        self.i += 1;
        Ok(match t {
            Some(Tok::P("!")) => (self.unary()? == 0) as i64,
            Some(Tok::P("-")) => self.unary()?.wrapping_neg(),
            Some(Tok::P("(")) => {
                let v = self.expr(0)?;
                if self.toks.get(self.i) != Some(&Tok::P(")")) {
                    return Err(err_at(self.loc, "malformed #if condition"));
                }
                self.i += 1;
                v
            }
            Some(Tok::Int(s, _)) => {
                parse_int(&s).ok_or_else(|| err_at(self.loc, "malformed number in #if"))?
            }
            Some(Tok::Ident(_)) => 0,
            _ => return Err(err_at(self.loc, "malformed #if condition")),
        })
    }
}

fn parse_int(s: &str) -> Option<i64> {
    if let Some(h) = s.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else {
        s.parse().ok()
    }
}
