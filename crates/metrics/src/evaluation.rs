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
