//! Printing in the normalized syntax with the fewest parentheses that keep the
//! tree shape (so `parse(print(e)) == e`).

use super::{BinOp, Expr, UnOp};
use std::fmt;

const P_TERNARY: u8 = 0;
const P_OR: u8 = 1;
const P_AND: u8 = 2;
const P_CMP: u8 = 3;
const P_ADD: u8 = 4;
const P_MUL: u8 = 5;
const P_UNARY: u8 = 6;
const P_ATOM: u8 = 7;

impl BinOp {
    fn prec(self) -> u8 {
        match self {
            BinOp::Or => P_OR,
            BinOp::And => P_AND,
            BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne => P_CMP,
            BinOp::Add | BinOp::Sub => P_ADD,
            BinOp::Mul | BinOp::Div | BinOp::Rem => P_MUL,
        }
    }

    /// The operator as printed.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&",
            BinOp::Or => "|",
        }
    }
}

impl Expr {
    fn prec(&self) -> u8 {
        match self {
            Expr::If(..) => P_TERNARY,
            Expr::Binary(op, ..) => op.prec(),
            Expr::Unary(..) => P_UNARY,
            Expr::Num(v) if *v < 0.0 => P_UNARY,
            _ => P_ATOM,
        }
    }

    fn write_at(&self, f: &mut fmt::Formatter<'_>, min: u8) -> fmt::Result {
        if self.prec() < min {
            f.write_str("(")?;
            self.write_at(f, 0)?;
            return f.write_str(")");
        }
        match self {
            Expr::Num(v) => write_num(f, *v),
            Expr::Name(n) => write!(f, "{n}"),
            Expr::Const(c) if c == "duration_time" => f.write_str(c),
            Expr::Const(c) => {
                // the lexer reads `#` then name characters, `\` escaping any other
                f.write_str("#")?;
                for ch in c.chars() {
                    if !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '.') {
                        f.write_str("\\")?;
                    }
                    write!(f, "{ch}")?;
                }
                Ok(())
            }
            // Quoted, so that any text comes back whole; text with a quote
            // was raw tokens between the parentheses and is printed as such.
            Expr::Str(s) if s.contains('"') => f.write_str(s),
            Expr::Str(s) => write!(f, "\"{s}\""),
            Expr::Unary(op, e) => {
                f.write_str(match op {
                    UnOp::Neg => "-",
                    UnOp::Not => "!",
                })?;
                e.write_at(f, P_UNARY)
            }
            Expr::Binary(op, a, b) => {
                let p = op.prec();
                // Comparisons do not chain; other operators are left-associative.
                a.write_at(f, if p == P_CMP { p + 1 } else { p })?;
                write!(f, " {} ", op.symbol())?;
                b.write_at(f, p + 1)
            }
            Expr::If(then, cond, els) => {
                then.write_at(f, P_OR)?;
                f.write_str(" if ")?;
                cond.write_at(f, P_OR)?;
                f.write_str(" else ")?;
                els.write_at(f, P_TERNARY)
            }
            Expr::Call(func, args) => {
                write!(f, "{}(", func.name())?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    a.write_at(f, 0)?;
                }
                f.write_str(")")
            }
        }
    }
}

fn write_num(f: &mut fmt::Formatter<'_>, v: f64) -> fmt::Result {
    if v.is_infinite() {
        // A literal too large for f64 (`1e999`); `inf` would read as a name.
        return f.write_str(if v > 0.0 { "1e999" } else { "-1e999" });
    }
    if (v.fract() == 0.0 && v.abs() >= 1e15) || (v != 0.0 && v.abs() < 1e-6) {
        write!(f, "{v:e}")
    } else {
        write!(f, "{v}")
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_at(f, 0)
    }
}
