//! The formula language shared by every table: parser, printer (our normalized
//! syntax) and evaluator.
//!
//! Constructs: numbers (`4`, `0.5`, `1e9`, `0x1f`), event references with
//! modifiers (`UOPS_EXECUTED.CORE:c1`, `:e1`, `:i1`, `:u0xfc`, `:sup`, perf's
//! `cpu@event\,cmask\=0x6@` and `cpu_core@EVENT@`, `\`-escapes, `"quoted/names"`),
//! metric references (a plain name that is a metric of the table), constants
//! (`#smt_on`, `#threads`, `#num_cpus`, `#core_wide`, `#slots`, ... and
//! `duration_time`), arithmetic `+ - * / %`, comparisons, `&`/`|`/`!` (also
//! `and`/`or`/`not`), Python-style `a if c else b`, and the functions `min`,
//! `max`, `abs`, `d_ratio(a, b)` (0 when b is 0), `source_count(ev)`,
//! `has_event(ev)` and `strcmp_cpuid_str(text)`.
//!
//! Errors are one line with a position: `col 7: expected ')', found 'else'`.

mod eval;
mod lex;
mod parse;
mod print;

pub use eval::{eval, Env, EvalError};

use crate::event::NameRef;

/// A parsed formula.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A literal number.
    Num(f64),
    /// An event or metric reference (resolved by the [`Env`]).
    Name(NameRef),
    /// A runtime constant (`#smt_on` → `"smt_on"`; `duration_time`).
    Const(String),
    /// Raw text argument (only for `strcmp_cpuid_str`).
    Str(String),
    /// Unary operation.
    Unary(UnOp, Box<Expr>),
    /// Binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `then if cond else els`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Function call.
    Call(Func, Vec<Expr>),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x` (`not x`)
    Not,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (error on division by zero)
    Div,
    /// `%`
    Rem,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&` (`&&`, `and`), short-circuit
    And,
    /// `|` (`||`, `or`), short-circuit
    Or,
}

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `min(a, ...)`
    Min,
    /// `max(a, ...)`
    Max,
    /// `abs(a)`
    Abs,
    /// `d_ratio(a, b)`: a / b, 0 when b is 0
    DRatio,
    /// `source_count(ev)`: counters summed into `ev` (1 unless told)
    SourceCount,
    /// `has_event(ev)`: 1 when `ev` was counted
    HasEvent,
    /// `strcmp_cpuid_str(id)`: 1 when the counts' CPU id matches
    StrcmpCpuidStr,
}

impl Func {
    fn from_name(name: &str) -> Option<Func> {
        Some(match name.to_ascii_lowercase().as_str() {
            "min" => Func::Min,
            "max" => Func::Max,
            "abs" => Func::Abs,
            "d_ratio" => Func::DRatio,
            "source_count" => Func::SourceCount,
            "has_event" => Func::HasEvent,
            "strcmp_cpuid_str" => Func::StrcmpCpuidStr,
            _ => return None,
        })
    }

    /// The function's name in formulas.
    pub fn name(self) -> &'static str {
        match self {
            Func::Min => "min",
            Func::Max => "max",
            Func::Abs => "abs",
            Func::DRatio => "d_ratio",
            Func::SourceCount => "source_count",
            Func::HasEvent => "has_event",
            Func::StrcmpCpuidStr => "strcmp_cpuid_str",
        }
    }
}

/// A syntax error: byte offset and message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("col {}: {msg}", pos + 1)]
pub struct ParseError {
    /// Byte offset of the offending token (0-based; printed 1-based).
    pub pos: usize,
    /// What went wrong.
    pub msg: String,
}

/// Parses a formula.
pub fn parse(src: &str) -> Result<Expr, ParseError> {
    parse::Parser::new(src)?.parse_all()
}

impl Expr {
    /// Calls `f` for every event/metric reference (including `has_event` and
    /// `source_count` arguments), in source order.
    pub fn visit_names<'a>(&'a self, f: &mut dyn FnMut(&'a NameRef)) {
        match self {
            Expr::Name(n) => f(n),
            Expr::Num(_) | Expr::Const(_) | Expr::Str(_) => {}
            Expr::Unary(_, e) => e.visit_names(f),
            Expr::Binary(_, a, b) => {
                a.visit_names(f);
                b.visit_names(f);
            }
            Expr::If(a, c, b) => {
                a.visit_names(f);
                c.visit_names(f);
                b.visit_names(f);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.visit_names(f)),
        }
    }

    /// Calls `f` for every constant used.
    pub fn visit_consts<'a>(&'a self, f: &mut dyn FnMut(&'a str)) {
        match self {
            Expr::Const(c) => f(c),
            Expr::Num(_) | Expr::Name(_) | Expr::Str(_) => {}
            Expr::Unary(_, e) => e.visit_consts(f),
            Expr::Binary(_, a, b) => {
                a.visit_consts(f);
                b.visit_consts(f);
            }
            Expr::If(a, c, b) => {
                a.visit_consts(f);
                c.visit_consts(f);
                b.visit_consts(f);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.visit_consts(f)),
        }
    }

    /// Rewrites every name bottom-up with `f` (which may return any expression).
    pub fn map_names(self, f: &mut dyn FnMut(NameRef) -> Expr) -> Expr {
        match self {
            Expr::Name(n) => f(n),
            Expr::Unary(op, e) => Expr::Unary(op, Box::new(e.map_names(f))),
            Expr::Binary(op, a, b) => Expr::Binary(op, Box::new(a.map_names(f)), Box::new(b.map_names(f))),
            Expr::If(a, c, b) => Expr::If(Box::new(a.map_names(f)), Box::new(c.map_names(f)), Box::new(b.map_names(f))),
            Expr::Call(func, args) => Expr::Call(func, args.into_iter().map(|a| a.map_names(f)).collect()),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests;
