//! The outcome of evaluating a table on one set of counts.

use crate::expr::EvalError;
use std::collections::HashMap;
use std::sync::Arc;

/// One metric's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricResult {
    /// Metric name.
    pub name: String,
    /// The value, when every input was available.
    pub value: Option<f64>,
    /// Why there is no value.
    pub error: Option<EvalError>,
    /// The metric's own threshold condition, when it has one and it evaluates.
    pub above_threshold: Option<bool>,
}

impl MetricResult {
    /// The reason for a missing value, as text.
    pub fn reason(&self) -> Option<String> {
        self.error.as_ref().map(|e| e.to_string())
    }
}

/// Every metric of a table evaluated on one set of counts.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The table these results belong to.
    pub uarch: String,
    results: Vec<MetricResult>,
    index: Arc<HashMap<String, usize>>,
}

impl Evaluation {
    pub(crate) fn new(uarch: String, results: Vec<MetricResult>, index: Arc<HashMap<String, usize>>) -> Evaluation {
        Evaluation { uarch, results, index }
    }

    /// The value of a metric (by name or label), if it could be computed.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.result(name).and_then(|r| r.value)
    }

    /// The full result of a metric (by name or label).
    pub fn result(&self, name: &str) -> Option<&MetricResult> {
        self.index.get(&name.to_ascii_lowercase()).map(|&i| &self.results[i])
    }

    /// All results in table order.
    pub fn results(&self) -> &[MetricResult] {
        &self.results
    }

    /// How many metrics have a (finite) value.
    pub fn available(&self) -> usize {
        self.results.iter().filter(|r| r.value.is_some()).count()
    }
}

/// Why a Top-Down node has no value, as a reader needs it: an input the counts
/// lack (the event was not counted or is not in the file), or a formula that
/// divides by zero on these counts (which input was 0).
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// An event or constant the formula needs has no count.
    MissingInput(String),
    /// The formula, or the metric `within` it depends on, divides by `divisor`, which is 0.
    DivisionByZero {
        /// The divisor as written in the normalized syntax (`MEM_LOAD_RETIRED.L1_MISS`).
        divisor: String,
        /// The metric where the division is, when it is not the node itself.
        within: Option<String>,
    },
    /// A reference cycle, or a result that is not a finite number.
    Other(String),
}

impl Reason {
    /// From an evaluation error, following dependencies to the root cause.
    pub fn of(e: &EvalError) -> Reason {
        let mut within = None;
        let mut e = e;
        while let EvalError::Dependency { metric, reason } = e {
            within = Some(metric.clone());
            e = reason;
        }
        match e {
            EvalError::MissingEvent(_) | EvalError::MissingConstant(_) => Reason::MissingInput(e.to_string()),
            EvalError::DivisionByZero(text) => {
                // the error holds the whole division; the reader needs its divisor
                use crate::expr::{parse, BinOp, Expr};
                let divisor = match parse(text) {
                    Ok(Expr::Binary(BinOp::Div | BinOp::Rem, _, b)) if matches!(*b, Expr::Name(_) | Expr::Const(_)) => b.to_string(),
                    Ok(Expr::Binary(BinOp::Div | BinOp::Rem, _, b)) => format!("({b})"),
                    _ => text.clone(),
                };
                Reason::DivisionByZero { divisor, within }
            }
            other => Reason::Other(other.to_string()),
        }
    }

    /// The metric a division is in, by its display name (`Branch_Mispredicts`).
    pub fn labelled(self, engine: &crate::MetricEngine) -> Reason {
        match self {
            Reason::DivisionByZero { divisor, within: Some(m) } => {
                let label = engine.metric(&m).and_then(|d| d.label.clone()).unwrap_or(m);
                Reason::DivisionByZero { divisor, within: Some(label) }
            }
            other => other,
        }
    }

    /// True when the counts lack an input (as opposed to a formula undefined on them).
    pub fn is_missing_input(&self) -> bool {
        matches!(self, Reason::MissingInput(_))
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::MissingInput(s) | Reason::Other(s) => f.write_str(s),
            Reason::DivisionByZero { divisor, within: None } => write!(f, "division by zero: {divisor} is 0"),
            Reason::DivisionByZero { divisor, within: Some(m) } => write!(f, "division by zero in {m}: {divisor} is 0"),
        }
    }
}
