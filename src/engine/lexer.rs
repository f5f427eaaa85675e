//! Lexer: program text to tokens, each with its position. `#include` lines
//! become `Include` tokens; other preprocessor lines become `Hash(name)`,
//! their tokens, then `EndDir` (`preproc` handles both).

use std::sync::Arc;

use anyhow::Result;

use super::ast::{Loc, err_at};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    Underscore,
    /// Integer literal text (decimal, 0x.., 0b..), with `u` suffix flag.
    Int(String, bool),
    Float(String),
    Str(String),
    /// `.decl`, `.type`, ... (name without the dot)
    Dir(String),
    Include(String),
    /// `#name` starting a preprocessor line (its tokens follow, then `EndDir`).
    Hash(String),
    EndDir,
    P(&'static str),
    Eof,
}

pub struct Token {
    pub tok: Tok,
    pub loc: Loc,
    /// Blank (or a comment) right before it: `#x` keeps such blanks as one space.
    pub space: bool,
}

const PUNCTS: [&str; 30] = [
    ":-", "<:", "!=", "<=", ">=", "&&", "||", "==", "(", ")", "{", "}", "[", "]", ",", ".", ":",
    ";", "!", "=", "<", ">", "+", "-", "*", "/", "%", "^", "|", "$",
];

/// Split `text` (the contents of `file`) into tokens, ending with `Eof`.
pub fn lex(file: &Arc<str>, text: &str) -> Result<Vec<Token>> {
    let mut lx = Lexer {
        file,
        text,
        bytes: text.as_bytes(),
        i: 0,
        line: 1,
        col: 1,
        toks: Vec::new(),
        in_dir: false,
        prev_end: usize::MAX,
    };
    lx.run()?;
    let eof = lx.loc(lx.line, lx.col);
    if lx.in_dir {
        lx.toks.push(Token {
            tok: Tok::EndDir,
            loc: eof.clone(),
            space: true,
        });
    }
    lx.toks.push(Token {
        tok: Tok::Eof,
        loc: eof,
        space: true,
    });
    Ok(lx.toks)
}

struct Lexer<'a> {
    file: &'a Arc<str>,
    text: &'a str,
    bytes: &'a [u8],
    /// Current byte offset, and its line and column (columns count characters).
    i: usize,
    line: u32,
    col: u32,
    toks: Vec<Token>,
    /// Inside a preprocessor line (ended by a newline not escaped by `\`).
    in_dir: bool,
    /// Where the last token ended.
    prev_end: usize,
}

impl Lexer<'_> {
    fn loc(&self, line: u32, col: u32) -> Loc {
        Loc {
            file: self.file.clone(),
            line,
            col,
        }
    }

    /// Advance to byte `j`, tracking line and column.
    fn advance(&mut self, j: usize) {
        while self.i < j {
            if self.bytes[self.i] == b'\n' {
                self.line += 1;
                self.col = 1;
            } else if self.bytes[self.i] & 0xC0 != 0x80 {
                self.col += 1;
            }
            self.i += 1;
        }
    }

    /// Byte offset of the end of the current line.
    fn line_end(&self) -> usize {
        self.text[self.i..]
            .find('\n')
            .map_or(self.bytes.len(), |k| self.i + k)
    }

    fn push(&mut self, tok: Tok, loc: Loc, end: usize) {
        let space = self.prev_end != self.i;
        self.toks.push(Token { tok, loc, space });
        self.advance(end);
        self.prev_end = end;
    }

    fn run(&mut self) -> Result<()> {
        let mut at_line_start = true;
        while self.i < self.bytes.len() {
            let c = self.bytes[self.i];
            if c == b'\n' {
                if self.in_dir {
                    let l = self.loc(self.line, self.col);
                    self.toks.push(Token {
                        tok: Tok::EndDir,
                        loc: l,
                        space: true,
                    });
                    self.in_dir = false;
                }
                self.advance(self.i + 1);
                at_line_start = true;
                continue;
            }
            if c == b'\\' && self.in_dir && self.bytes.get(self.i + 1) == Some(&b'\n') {
                self.advance(self.i + 2); // a continued preprocessor line
                continue;
            }
            if c.is_ascii_whitespace() {
                self.advance(self.i + 1);
                continue;
            }
            let l = self.loc(self.line, self.col);
            let next = self.bytes.get(self.i + 1).copied();
            if c == b'/' && next == Some(b'/') {
                self.advance(self.line_end());
            } else if c == b'/' && next == Some(b'*') {
                let Some(k) = self.text[self.i + 2..].find("*/") else {
                    return Err(err_at(&l, "unterminated block comment"));
                };
                self.advance(self.i + 2 + k + 2);
            } else if c == b'#' && self.in_dir {
                // in a directive: the stringizing `#` and pasting `##` operators
                let p = if next == Some(b'#') { "##" } else { "#" };
                self.push(Tok::P(p), l, self.i + p.len());
            } else if c == b'#' {
                if !at_line_start {
                    return Err(err_at(&l, "unexpected `#`"));
                }
                self.include(l)?;
            } else {
                at_line_start = false;
                self.token(c, l)?;
            }
        }
        Ok(())
    }

    /// One token starting with byte `c`, at `l`.
    fn token(&mut self, c: u8, l: Loc) -> Result<()> {
        if c == b'"' {
            self.string(l)
        } else if c.is_ascii_digit() {
            self.number(c, l)
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'?' {
            let j = self.scan(self.i + 1, |b| {
                b.is_ascii_alphanumeric() || b == b'_' || b == b'?'
            });
            let w = &self.text[self.i..j];
            let tok = if w == "_" {
                Tok::Underscore
            } else {
                Tok::Ident(w.to_string())
            };
            self.push(tok, l, j);
            Ok(())
        } else if c == b'.'
            && self
                .bytes
                .get(self.i + 1)
                .is_some_and(u8::is_ascii_alphabetic)
        {
            let j = self.scan(self.i + 1, |b| b.is_ascii_alphanumeric() || b == b'_');
            let tok = Tok::Dir(self.text[self.i + 1..j].to_string());
            self.push(tok, l, j);
            Ok(())
        } else {
            self.punct(l)
        }
    }

    /// The end of the run of bytes from `j` on that satisfy `f`.
    fn scan(&self, mut j: usize, f: impl Fn(u8) -> bool) -> usize {
        while j < self.bytes.len() && f(self.bytes[j]) {
            j += 1;
        }
        j
    }

    /// A preprocessor line at `l`: `#include "path"` becomes one token, any
    /// other `#name` a `Hash` token followed by the line's tokens.
    fn include(&mut self, l: Loc) -> Result<()> {
        let j = self.line_end();
        let directive = self.text[self.i..j].trim_end();
        let rest = directive.strip_prefix('#').unwrap().trim_start();
        let Some(arg) = rest.strip_prefix("include") else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let end = self.i + (directive.len() - rest.len()) + name.len();
            self.push(Tok::Hash(name), l, end);
            self.in_dir = true;
            return Ok(());
        };
        let arg = arg.trim();
        if arg.len() < 2 || !arg.starts_with('"') || !arg.ends_with('"') {
            return Err(err_at(&l, "expected `#include \"relative/path.dl\"`"));
        }
        let tok = Tok::Include(arg[1..arg.len() - 1].to_string());
        self.push(tok, l, j);
        Ok(())
    }

    /// A string literal, with its escapes, on one line.
    fn string(&mut self, l: Loc) -> Result<()> {
        let (bytes, text) = (self.bytes, self.text);
        let mut s = String::new();
        let mut j = self.i + 1;
        loop {
            let Some(&b) = bytes.get(j) else {
                return Err(err_at(&l, "unterminated string literal"));
            };
            match b {
                b'"' => break,
                b'\n' => return Err(err_at(&l, "unterminated string literal")),
                b'\\' => {
                    let e = *bytes
                        .get(j + 1)
                        .ok_or_else(|| err_at(&l, "unterminated string literal"))?;
                    s.push(match e {
                        b'"' => '"',
                        b'\'' => '\'',
                        b'\\' => '\\',
                        b'a' => '\x07',
                        b'b' => '\x08',
                        b'f' => '\x0c',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'v' => '\x0b',
                        _ => {
                            let ch = text[j + 1..].chars().next().unwrap();
                            return Err(err_at(&l, format!("Unknown escape sequence \\{ch}")));
                        }
                    });
                    j += 2;
                }
                _ => {
                    let ch = text[j..].chars().next().unwrap();
                    s.push(ch);
                    j += ch.len_utf8();
                }
            }
        }
        self.push(Tok::Str(s), l, j + 1);
        Ok(())
    }

    /// A number: `0x…`/`0b…`, decimal, `…u`, or a float `1.5`.
    fn number(&mut self, c: u8, l: Loc) -> Result<()> {
        let (bytes, text, i) = (self.bytes, self.text, self.i);
        let mut j = i;
        let tok;
        if let Some((end, ip)) = self.ipv4(l.clone())? {
            self.push(Tok::Int(ip.to_string(), false), l, end);
            return Ok(());
        }
        if c == b'0'
            && matches!(bytes.get(i + 1), Some(b'x') | Some(b'b'))
            && bytes.get(i + 2).is_some_and(|b| b.is_ascii_hexdigit())
        {
            j = self.scan(j + 2, |b| b.is_ascii_alphanumeric());
            let mut t = text[i..j].to_string();
            let uns = t.ends_with('u');
            if uns {
                t.pop();
            }
            tok = Tok::Int(t, uns);
        } else {
            j = self.scan(j, |b| b.is_ascii_digit());
            if bytes.get(j) == Some(&b'.') && bytes.get(j + 1).is_some_and(|b| b.is_ascii_digit()) {
                j = self.scan(j + 1, |b| b.is_ascii_digit());
                tok = Tok::Float(text[i..j].to_string());
            } else if bytes.get(j) == Some(&b'u') {
                tok = Tok::Int(text[i..j].to_string(), true);
                j += 1;
            } else {
                tok = Tok::Int(text[i..j].to_string(), false);
            }
        }
        if j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
            return Err(err_at(&l, format!("malformed number `{}`", &text[i..=j])));
        }
        self.push(tok, l, j);
        Ok(())
    }

    /// An IPv4 literal `a.b.c.d` at the current position: its end and its
    /// value, `(a<<24)+(b<<16)+(c<<8)+d` wrapped to a 32-bit `number`, as
    /// Soufflé's scanner computes it.
    fn ipv4(&self, l: Loc) -> Result<Option<(usize, i64)>> {
        let mut j = self.i;
        let mut parts = Vec::new();
        for k in 0..4 {
            let e = self.scan(j, |b| b.is_ascii_digit());
            if e == j {
                return Ok(None);
            }
            parts.push(&self.text[j..e]);
            j = e;
            if k < 3 {
                if self.bytes.get(j) != Some(&b'.') {
                    return Ok(None);
                }
                j += 1;
            }
        }
        let mut v: u32 = 0;
        for p in parts {
            match p.parse::<u32>() {
                Ok(x) if x <= 255 => v = (v << 8) | x,
                _ => return Err(err_at(&l, "IP out of range")),
            }
        }
        Ok(Some((j, v as i32 as i64)))
    }

    /// Punctuation; characters of unsupported syntax get their own message.
    fn punct(&mut self, l: Loc) -> Result<()> {
        let rest = &self.text[self.i..];
        let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) else {
            let ch = rest.chars().next().unwrap();
            return Err(err_at(
                &l,
                match ch {
                    '@' => "user-defined functors and annotations are not supported".to_string(),
                    _ => format!("unexpected character `{ch}`"),
                },
            ));
        };
        self.push(Tok::P(p), l, self.i + p.len());
        Ok(())
    }
}
