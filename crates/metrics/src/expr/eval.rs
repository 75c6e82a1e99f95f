//! Evaluation over an environment that supplies names and constants.
//! Ternaries are lazy (an unavailable event in the branch not taken does not
//! matter); `/` by zero is an error, `d_ratio(a, 0)` is 0.

use super::{BinOp, Expr, Func, UnOp};
use crate::event::NameRef;

/// Why a value could not be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EvalError {
    #[error("missing event {0}")]
    /// An event has no count.
    MissingEvent(String),
    #[error("missing constant #{0}")]
    /// A constant is set neither by the counts nor by the table.
    MissingConstant(String),
    #[error("division by zero in {0}")]
    /// A `/` or `%` divided by zero (the sub-formula).
    DivisionByZero(String),
    #[error("depends on {metric}: {reason}")]
    /// A referenced metric has no value.
    Dependency {
        /// The referenced metric.
        metric: String,
        /// Why it has no value.
        reason: Box<EvalError>,
    },
    #[error("reference cycle through {0}")]
    /// Metrics reference each other in a cycle.
    Cycle(String),
    #[error("{0} is not a finite number")]
    /// The result is infinite or NaN.
    NotFinite(String),
}

impl EvalError {
    /// The missing events at the root of this error (following dependencies).
    pub fn missing_event(&self) -> Option<&str> {
        match self {
            EvalError::MissingEvent(e) => Some(e),
            EvalError::Dependency { reason, .. } => reason.missing_event(),
            _ => None,
        }
    }
}

/// What the evaluator needs from its surroundings.
pub trait Env {
    /// The value of an event or metric reference.
    fn name(&mut self, name: &NameRef) -> Result<f64, EvalError>;
    /// The value of a constant (`smt_on`, `duration_time`, ...).
    fn constant(&mut self, name: &str) -> Result<f64, EvalError>;
    /// Whether the event has a count (for `has_event`).
    fn has_event(&mut self, name: &NameRef) -> bool {
        self.name(name).is_ok()
    }
    /// How many counters were summed into the event (for `source_count`).
    fn source_count(&mut self, _name: &NameRef) -> f64 {
        1.0
    }
    /// Whether the CPU identifier matches (for `strcmp_cpuid_str`).
    fn cpuid_matches(&mut self, _text: &str) -> bool {
        false
    }
}

fn truth(v: f64) -> bool {
    v != 0.0 && !v.is_nan()
}

fn b2f(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// Evaluates `e` in `env`.
pub fn eval(e: &Expr, env: &mut dyn Env) -> Result<f64, EvalError> {
    match e {
        Expr::Num(v) => Ok(*v),
        Expr::Name(n) => env.name(n),
        Expr::Const(c) => env.constant(c),
        Expr::Str(_) => Ok(0.0),
        Expr::Unary(UnOp::Neg, a) => Ok(-eval(a, env)?),
        Expr::Unary(UnOp::Not, a) => Ok(b2f(!truth(eval(a, env)?))),
        Expr::If(then, cond, els) => {
            if truth(eval(cond, env)?) {
                eval(then, env)
            } else {
                eval(els, env)
            }
        }
        Expr::Binary(BinOp::And, a, b) => {
            // Short-circuit like the threshold language expects.
            if !truth(eval(a, env)?) {
                return Ok(0.0);
            }
            Ok(b2f(truth(eval(b, env)?)))
        }
        Expr::Binary(BinOp::Or, a, b) => {
            if truth(eval(a, env)?) {
                return Ok(1.0);
            }
            Ok(b2f(truth(eval(b, env)?)))
        }
        Expr::Binary(op, a, b) => {
            let x = eval(a, env)?;
            let y = eval(b, env)?;
            Ok(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div | BinOp::Rem if y == 0.0 => return Err(EvalError::DivisionByZero(e.to_string())),
                BinOp::Div => x / y,
                BinOp::Rem => x % y,
                BinOp::Lt => b2f(x < y),
                BinOp::Gt => b2f(x > y),
                BinOp::Le => b2f(x <= y),
                BinOp::Ge => b2f(x >= y),
                BinOp::Eq => b2f(x == y),
                BinOp::Ne => b2f(x != y),
                BinOp::And | BinOp::Or => unreachable!(),
            })
        }
        Expr::Call(f, args) => match f {
            Func::Min | Func::Max => {
                let mut acc: Option<f64> = None;
                for a in args {
                    let v = eval(a, env)?;
                    acc = Some(match acc {
                        None => v,
                        Some(m) if *f == Func::Min => m.min(v),
                        Some(m) => m.max(v),
                    });
                }
                Ok(acc.unwrap_or(0.0))
            }
            Func::Abs => Ok(eval(&args[0], env)?.abs()),
            Func::DRatio => {
                let x = eval(&args[0], env)?;
                let y = eval(&args[1], env)?;
                Ok(if y == 0.0 { 0.0 } else { x / y })
            }
            Func::HasEvent => match &args[0] {
                Expr::Name(n) => Ok(b2f(env.has_event(n))),
                _ => Ok(0.0),
            },
            Func::SourceCount => match &args[0] {
                Expr::Name(n) => Ok(env.source_count(n)),
                _ => Ok(1.0),
            },
            Func::StrcmpCpuidStr => match &args[0] {
                Expr::Str(s) => Ok(b2f(env.cpuid_matches(s))),
                _ => Ok(0.0),
            },
        },
    }
}
