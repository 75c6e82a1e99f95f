//! Tokenizer for the formula language (our normalized syntax, which is also a
//! superset of the perf JSON `MetricExpr` and Intel TMA spreadsheet syntaxes).

use super::ParseError;

/// One token with its byte offset in the source.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Num(f64),
    /// Identifier / event name: (pmu, name, raw modifiers).
    Ident { pmu: Option<String>, name: String, mods: Vec<String> },
    /// `#name` constant (stored lower-case, without `#`).
    Hash(String),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
    End,
}

pub(crate) struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

const OPS: [&str; 17] = ["&&", "||", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "<", ">", "&", "|", "!", "^"];

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        Lexer { src, bytes: src.as_bytes(), pos: 0 }
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> ParseError {
        ParseError { pos: at, msg: msg.into() }
    }

    /// All tokens with their start offsets, ending with `End`.
    pub(crate) fn tokens(mut self) -> Result<Vec<(Tok, usize)>, ParseError> {
        let mut out = Vec::new();
        loop {
            while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            let start = self.pos;
            let Some(&c) = self.bytes.get(self.pos) else {
                out.push((Tok::End, start));
                return Ok(out);
            };
            let tok = match c {
                b'(' => {
                    self.pos += 1;
                    Tok::LParen
                }
                b')' => {
                    self.pos += 1;
                    Tok::RParen
                }
                b',' => {
                    self.pos += 1;
                    Tok::Comma
                }
                b'0'..=b'9' => self.number()?,
                b'.' if self.bytes.get(self.pos + 1).is_some_and(|d| d.is_ascii_digit()) => self.number()?,
                b'#' => {
                    self.pos += 1;
                    let name = self.raw_name();
                    if name.is_empty() {
                        return Err(self.err(start, "expected a constant name after '#'"));
                    }
                    Tok::Hash(name.to_ascii_lowercase())
                }
                b'"' => {
                    let end = self.src[self.pos + 1..]
                        .find('"')
                        .ok_or_else(|| self.err(start, "unterminated quoted name"))?;
                    let s = self.src[self.pos + 1..self.pos + 1 + end].to_string();
                    self.pos += end + 2;
                    let mods = self.modifiers();
                    Tok::Ident { pmu: None, name: s, mods }
                }
                b'@' => self.at_form(None, start)?,
                b'\\' if self.pos + 1 == self.bytes.len() => {
                    // Nothing to escape: `raw_name` would read nothing and
                    // this loop would never move on.
                    return Err(self.err(start, "'\\' at the end of the formula escapes nothing"));
                }
                c if is_ident_start(c) || c == b'\\' => {
                    let name = self.raw_name();
                    if self.bytes.get(self.pos) == Some(&b'@') && !name.contains('.') {
                        self.at_form(Some(name), start)?
                    } else {
                        let mods = self.modifiers();
                        Tok::Ident { pmu: None, name, mods }
                    }
                }
                _ => {
                    let rest = &self.src[self.pos..];
                    match OPS.iter().find(|op| rest.starts_with(**op)) {
                        Some(op) => {
                            self.pos += op.len();
                            Tok::Op(op)
                        }
                        None => {
                            let ch = rest.chars().next().unwrap_or('?');
                            return Err(self.err(start, format!("unexpected character '{ch}'")));
                        }
                    }
                }
            };
            out.push((tok, start));
        }
    }

    fn number(&mut self) -> Result<Tok, ParseError> {
        let start = self.pos;
        let b = self.bytes;
        if b[start] == b'0' && matches!(b.get(start + 1), Some(b'x' | b'X')) {
            let mut end = start + 2;
            while end < b.len() && b[end].is_ascii_hexdigit() {
                end += 1;
            }
            self.pos = end;
            return u64::from_str_radix(&self.src[start + 2..end], 16)
                .map(|v| Tok::Num(v as f64))
                .map_err(|_| self.err(start, "bad hexadecimal number"));
        }
        let mut end = start;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        if end < b.len() && b[end] == b'.' {
            end += 1;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
        }
        if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
            let mut e = end + 1;
            if e < b.len() && (b[e] == b'+' || b[e] == b'-') {
                e += 1;
            }
            if e < b.len() && b[e].is_ascii_digit() {
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                end = e;
            }
        }
        if end < b.len() && is_ident_start(b[end]) {
            return Err(self.err(start, "a name cannot start with a digit"));
        }
        self.pos = end;
        self.src[start..end].parse().map(Tok::Num).map_err(|_| self.err(start, "bad number"))
    }

    /// Identifier characters, honouring `\x` escapes (the escaped char is kept).
    fn raw_name(&mut self) -> String {
        let mut s = String::new();
        while self.pos < self.bytes.len() {
            let c = self.bytes[self.pos];
            if c == b'\\' && self.pos + 1 < self.bytes.len() {
                let ch = self.src[self.pos + 1..].chars().next().unwrap();
                s.push(ch);
                self.pos += 1 + ch.len_utf8();
            } else if is_ident_char(c) {
                s.push(c as char);
                self.pos += 1;
            } else {
                break;
            }
        }
        s
    }

    /// `:mod` segments after a name (`:c1`, `:ocr_msr_val=0x10`).
    fn modifiers(&mut self) -> Vec<String> {
        let mut mods = Vec::new();
        while self.bytes.get(self.pos) == Some(&b':')
            && self.bytes.get(self.pos + 1).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.pos += 1;
            let start = self.pos;
            while self.pos < self.bytes.len() && (self.bytes[self.pos].is_ascii_alphanumeric() || self.bytes[self.pos] == b'_') {
                self.pos += 1;
            }
            if self.bytes.get(self.pos) == Some(&b'=') && self.bytes.get(self.pos + 1) != Some(&b'=') {
                self.pos += 1;
                while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_alphanumeric() {
                    self.pos += 1;
                }
            }
            mods.push(self.src[start..self.pos].to_string());
        }
        mods
    }

    /// `pmu@event\,key\=val@` or `@event@` (perf syntax); `self.pos` is at '@'.
    fn at_form(&mut self, pmu: Option<String>, start: usize) -> Result<Tok, ParseError> {
        self.pos += 1;
        // the terms between separators (`,` and `/`, escaped or not), collected as
        // such: a sentinel character standing for a separator would also be one
        // wherever the input holds it
        let mut terms: Vec<String> = vec![String::new()];
        loop {
            let ch = match self.bytes.get(self.pos) {
                None => return Err(self.err(start, "unterminated '@' event")),
                Some(b'@') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') if self.pos + 1 < self.bytes.len() => {
                    self.pos += 1;
                    self.src[self.pos..].chars().next().unwrap()
                }
                Some(_) => self.src[self.pos..].chars().next().unwrap(),
            };
            self.pos += ch.len_utf8();
            match ch {
                ',' | '/' => terms.push(String::new()),
                _ => terms.last_mut().expect("one term at least").push(ch),
            }
        }
        let mut parts = terms.iter().filter(|p| !p.is_empty());
        let head = parts.next().ok_or_else(|| self.err(start, "empty '@' event"))?;
        let mut segs = head.split(':');
        let name = segs.next().unwrap_or_default().to_string();
        if name.is_empty() {
            // (`@:mod@` would print as `@mod@`, another event)
            return Err(self.err(start, "'@' event without a name"));
        }
        let mut mods: Vec<String> = segs.map(str::to_string).collect();
        mods.extend(parts.cloned());
        let mut more = self.modifiers();
        mods.append(&mut more);
        Ok(Tok::Ident { pmu, name, mods })
    }
}
