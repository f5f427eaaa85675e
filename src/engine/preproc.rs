//! The C preprocessor steps Soufflé runs (through mcpp) before parsing, on
//! tokens: `#include` (spliced through a callback, so included files share
//! the macros), `#define` (object-like and function-like macros), `#undef`,
//! and the conditionals `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`,
//! `#endif`. Expanded tokens take the position of the macro's use.

use std::collections::{HashMap, HashSet};

use anyhow::Result;

use super::ast::{Loc, err_at};
use super::lexer::{Tok, Token};

struct Macro {
    /// Parameter names of a function-like macro.
    params: Option<Vec<String>>,
    body: Vec<Tok>,
}

/// The macros defined so far (shared by a file and those it includes).
#[derive(Default)]
pub struct Macros(HashMap<String, Macro>);

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
    let mut it = toks.into_iter().peekable();
    while let Some(t) = it.next() {
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
                for x in it.by_ref() {
                    if x.tok == Tok::EndDir {
                        break;
                    }
                    line.push(x);
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
                let mut toks = vec![t.tok.clone()];
                toks.extend(rest.into_iter().map(|x| x.tok));
                let mut hide = HashSet::new();
                for tok in expand(&toks, macros, &mut hide, &t.loc)? {
                    out.push(Token {
                        tok,
                        loc: t.loc.clone(),
                    });
                }
            }
            _ => out.push(t),
        }
    }
    Ok(out)
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
    }) = it.next()
    else {
        return Err(err_at(loc, "#define needs a macro name"));
    };
    let glued = it.peek().is_some_and(|t| {
        t.tok == Tok::P("(")
            && t.loc.line == nl.line
            && t.loc.col as usize == nl.col as usize + name.chars().count()
    });
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
    let body = it.map(|t| t.tok).collect();
    macros.0.insert(name, Macro { params, body });
    Ok(())
}

/// Expand the macros in `toks` (fully, rescanning), except those in `hide`
/// (being expanded already, which stops recursion as in C).
fn expand(
    toks: &[Tok],
    macros: &Macros,
    hide: &mut HashSet<String>,
    loc: &Loc,
) -> Result<Vec<Tok>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        i += 1;
        let Tok::Ident(name) = t else {
            out.push(t.clone());
            continue;
        };
        let Some(m) = macros.0.get(name).filter(|_| !hide.contains(name)) else {
            out.push(t.clone());
            continue;
        };
        let body = match &m.params {
            None => m.body.clone(),
            Some(params) => {
                if toks.get(i) != Some(&Tok::P("(")) {
                    out.push(t.clone());
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
                let mut expanded = Vec::new();
                for a in &args {
                    expanded.push(expand(a, macros, hide, loc)?);
                }
                let mut b = Vec::new();
                for x in &m.body {
                    match x {
                        Tok::Ident(p) if params.contains(p) => {
                            let k = params.iter().position(|q| q == p).unwrap();
                            b.extend(expanded[k].iter().cloned());
                        }
                        _ => b.push(x.clone()),
                    }
                }
                b
            }
        };
        hide.insert(name.clone());
        out.extend(expand(&body, macros, hide, loc)?);
        hide.remove(name);
    }
    Ok(out)
}

/// The arguments of a call whose `(` is at `i`: split at top-level commas;
/// also the position after the `)`.
fn call_args(toks: &[Tok], i: usize, loc: &Loc, name: &str) -> Result<(Vec<Vec<Tok>>, usize)> {
    let mut args = vec![Vec::new()];
    let mut depth = 0;
    for (j, t) in toks.iter().enumerate().skip(i) {
        match t {
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
    let mut pre = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i] == Tok::Ident("defined".into()) {
            let (n, skip) = match (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)) {
                (Some(Tok::P("(")), Some(Tok::Ident(n)), Some(Tok::P(")"))) => (n, 4),
                (Some(Tok::Ident(n)), _, _) => (n, 2),
                _ => return Err(err_at(loc, "malformed `defined`")),
            };
            let v = macros.0.contains_key(n) as i64;
            pre.push(Tok::Int(v.to_string(), false));
            i += skip;
            continue;
        }
        pre.push(toks[i].clone());
        i += 1;
    }
    let toks = expand(&pre, macros, &mut HashSet::new(), loc)?;
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
