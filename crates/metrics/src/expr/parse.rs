//! Recursive-descent parser. Precedence, lowest first:
//! `a if c else b` (right-assoc) < `|` `||` `or` < `&` `&&` `and` <
//! comparisons < `+ -` < `* / %` < unary `- + ! not` < primary.

use super::lex::{Lexer, Tok};
use super::{BinOp, Expr, Func, ParseError, UnOp};
use crate::event::NameRef;

/// Limits that keep the recursive parser, printer, evaluator and drop of a
/// hostile formula (an event name in an imported file is parsed too) on the
/// stack: the longest converted formula has a few hundred tokens and nests
/// about ten levels.
const MAX_TOKENS: usize = 8192;
/// Parentheses, function calls, chained `if`/`else` and prefix operators
/// (each parenthesis takes two levels).
const MAX_NESTING: usize = 200;
/// Depth of the finished tree (long operator chains count too).
const MAX_DEPTH: usize = 256;

pub(crate) struct Parser<'a> {
    src: &'a str,
    toks: Vec<(Tok, usize)>,
    i: usize,
    /// Current recursion depth of `ternary` and `unary`.
    nesting: usize,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str) -> Result<Self, ParseError> {
        let toks = Lexer::new(src).tokens()?;
        if toks.len() > MAX_TOKENS {
            return Err(ParseError { pos: toks[MAX_TOKENS].1, msg: format!("formula too long (more than {MAX_TOKENS} tokens)") });
        }
        Ok(Parser { src, toks, i: 0, nesting: 0 })
    }

    /// Runs `f` one nesting level deeper, or fails past [`MAX_NESTING`].
    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Result<Expr, ParseError>) -> Result<Expr, ParseError> {
        if self.nesting >= MAX_NESTING {
            return Err(ParseError { pos: self.pos(), msg: format!("formula nested too deeply (more than {MAX_NESTING} levels)") });
        }
        self.nesting += 1;
        let r = f(self);
        self.nesting -= 1;
        r
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }

    fn pos(&self) -> usize {
        self.toks[self.i].1
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.i].0.clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }

    fn describe(&self) -> String {
        match self.peek() {
            Tok::End => "end of input".into(),
            _ => {
                let start = self.pos();
                let end = self.toks.get(self.i + 1).map(|t| t.1).unwrap_or(self.src.len());
                format!("'{}'", self.src[start..end].trim())
            }
        }
    }

    fn err<T>(&self, msg: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError { pos: self.pos(), msg: format!("{}, found {}", msg.into(), self.describe()) })
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident { pmu: None, name, mods } if mods.is_empty() && name == w)
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    pub(crate) fn parse_all(&mut self) -> Result<Expr, ParseError> {
        let e = self.ternary()?;
        if *self.peek() != Tok::End {
            return self.err("expected an operator or end of input");
        }
        if tree_depth(&e) > MAX_DEPTH {
            return Err(ParseError { pos: 0, msg: format!("formula nested too deeply (a tree deeper than {MAX_DEPTH} levels)") });
        }
        Ok(e)
    }

    fn ternary(&mut self) -> Result<Expr, ParseError> {
        self.nested(Self::ternary_inner)
    }

    fn ternary_inner(&mut self) -> Result<Expr, ParseError> {
        let then = self.or()?;
        if self.is_word("if") {
            self.bump();
            let cond = self.or()?;
            if !self.is_word("else") {
                return self.err("expected 'else'");
            }
            self.bump();
            let els = self.ternary()?;
            return Ok(Expr::If(Box::new(then), Box::new(cond), Box::new(els)));
        }
        Ok(then)
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        let mut l = self.and()?;
        while self.is_op("|") || self.is_op("||") || self.is_word("or") {
            self.bump();
            let r = self.and()?;
            l = Expr::Binary(BinOp::Or, Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut l = self.cmp()?;
        while self.is_op("&") || self.is_op("&&") || self.is_word("and") {
            self.bump();
            let r = self.cmp()?;
            l = Expr::Binary(BinOp::And, Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn cmp(&mut self) -> Result<Expr, ParseError> {
        let mut l = self.add()?;
        loop {
            let op = match self.peek() {
                Tok::Op("<") => BinOp::Lt,
                Tok::Op(">") => BinOp::Gt,
                Tok::Op("<=") => BinOp::Le,
                Tok::Op(">=") => BinOp::Ge,
                Tok::Op("==") => BinOp::Eq,
                Tok::Op("!=") => BinOp::Ne,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.add()?;
            l = Expr::Binary(op, Box::new(l), Box::new(r));
        }
    }

    fn add(&mut self) -> Result<Expr, ParseError> {
        let mut l = self.mul()?;
        loop {
            let op = match self.peek() {
                Tok::Op("+") => BinOp::Add,
                Tok::Op("-") => BinOp::Sub,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.mul()?;
            l = Expr::Binary(op, Box::new(l), Box::new(r));
        }
    }

    fn mul(&mut self) -> Result<Expr, ParseError> {
        let mut l = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Op("*") => BinOp::Mul,
                Tok::Op("/") => BinOp::Div,
                Tok::Op("%") => BinOp::Rem,
                _ => return Ok(l),
            };
            self.bump();
            let r = self.unary()?;
            l = Expr::Binary(op, Box::new(l), Box::new(r));
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        self.nested(Self::unary_inner)
    }

    fn unary_inner(&mut self) -> Result<Expr, ParseError> {
        let op = match self.peek() {
            Tok::Op("-") => Some(UnOp::Neg),
            Tok::Op("!") => Some(UnOp::Not),
            Tok::Op("+") => {
                self.bump();
                return self.unary();
            }
            _ if self.is_word("not") => Some(UnOp::Not),
            _ => None,
        };
        match op {
            Some(op) => {
                self.bump();
                let e = self.unary()?;
                // Fold negative literals so that `-1` prints and compares as a number.
                Ok(match (op, e) {
                    (UnOp::Neg, Expr::Num(v)) => Expr::Num(-v),
                    (op, e) => Expr::Unary(op, Box::new(e)),
                })
            }
            None => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        match self.peek().clone() {
            Tok::Num(v) => {
                self.bump();
                Ok(Expr::Num(v))
            }
            Tok::Hash(c) => {
                self.bump();
                Ok(Expr::Const(c))
            }
            Tok::LParen => {
                self.bump();
                let e = self.ternary()?;
                if *self.peek() != Tok::RParen {
                    return self.err("expected ')'");
                }
                self.bump();
                Ok(e)
            }
            Tok::Ident { pmu, name, mods } => {
                if pmu.is_none() && mods.is_empty() && matches!(self.toks.get(self.i + 1), Some((Tok::LParen, _))) {
                    if let Some(f) = Func::from_name(&name) {
                        return self.call(f);
                    }
                    return self.err(format!("unknown function '{name}'"));
                }
                if pmu.is_none() && mods.is_empty() {
                    match name.as_str() {
                        "if" | "else" | "and" | "or" | "not" => return self.err("expected an operand"),
                        "duration_time" => {
                            self.bump();
                            return Ok(Expr::Const("duration_time".into()));
                        }
                        _ => {}
                    }
                }
                self.bump();
                Ok(Expr::Name(NameRef::new(pmu.as_deref(), &name, &mods)))
            }
            _ => self.err("expected an operand"),
        }
    }

    fn call(&mut self, f: Func) -> Result<Expr, ParseError> {
        self.bump(); // name
        let open = self.pos();
        self.bump(); // (
        if f == Func::StrcmpCpuidStr {
            // The argument is raw text up to the matching ')'.
            let mut depth = 0usize;
            while !(depth == 0 && *self.peek() == Tok::RParen) {
                match self.peek() {
                    Tok::End => return self.err("expected ')'"),
                    Tok::LParen => depth += 1,
                    Tok::RParen => depth -= 1,
                    _ => {}
                }
                self.bump();
            }
            // One quoted token gives its contents; anything else is taken as written.
            let raw = self.src[open + 1..self.pos()].trim();
            let text = match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
                Some(inner) if !inner.contains('"') => inner,
                _ => raw,
            }
            .to_string();
            self.bump();
            return Ok(Expr::Call(f, vec![Expr::Str(text)]));
        }
        let mut args = Vec::new();
        if *self.peek() != Tok::RParen {
            loop {
                args.push(self.ternary()?);
                match self.peek() {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::RParen => break,
                    _ => return self.err("expected ',' or ')'"),
                }
            }
        }
        self.bump();
        let ok = match f {
            Func::Min | Func::Max => !args.is_empty(),
            Func::DRatio => args.len() == 2,
            Func::Abs => args.len() == 1,
            Func::SourceCount | Func::HasEvent => args.len() == 1 && matches!(args[0], Expr::Name(_)),
            Func::StrcmpCpuidStr => true,
        };
        if !ok {
            return Err(ParseError { pos: open, msg: format!("wrong arguments for {}()", f.name()) });
        }
        Ok(Expr::Call(f, args))
    }
}

/// Depth of a tree (a leaf is 1), without recursion.
fn tree_depth(e: &Expr) -> usize {
    let mut max = 0;
    let mut stack = vec![(e, 1usize)];
    while let Some((e, d)) = stack.pop() {
        max = max.max(d);
        match e {
            Expr::Num(_) | Expr::Name(_) | Expr::Const(_) | Expr::Str(_) => {}
            Expr::Unary(_, a) => stack.push((a, d + 1)),
            Expr::Binary(_, a, b) => stack.extend([(&**a, d + 1), (&**b, d + 1)]),
            Expr::If(a, b, c) => stack.extend([(&**a, d + 1), (&**b, d + 1), (&**c, d + 1)]),
            Expr::Call(_, args) => stack.extend(args.iter().map(|a| (a, d + 1))),
        }
    }
    max
}
