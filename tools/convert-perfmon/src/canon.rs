//! Canonical spelling of names: events as in the events file, metrics as
//! `tma_<lower>` (Intel TMA) or lower-case, constants as `#name`.

use bottlenose_metrics::expr::{BinOp, Expr};
use bottlenose_metrics::table::EventDef;
use bottlenose_metrics::NameRef;
use std::collections::HashMap;

/// Event names of one uarch, by lower-case name.
pub struct Canon {
    by_lower: HashMap<String, String>,
}

impl Canon {
    pub fn new(events: &[EventDef]) -> Canon {
        Canon { by_lower: events.iter().map(|e| (e.name.to_ascii_lowercase(), e.name.clone())).collect() }
    }

    /// Whether the events file has this name.
    pub fn known(&self, name: &str) -> bool {
        self.by_lower.contains_key(&name.to_ascii_lowercase())
    }

    /// The reference with the events file's spelling; `hints` are other known
    /// spellings (lower → canonical); otherwise `upper` decides the case.
    /// A `_PS` (PEBS) suffix unknown to the events file is dropped.
    pub fn event(&self, n: &NameRef, hints: &HashMap<String, String>, upper: bool) -> NameRef {
        let lower = n.name.to_ascii_lowercase();
        if let Some(c) = self.by_lower.get(&lower).or_else(|| hints.get(&lower)) {
            return n.renamed(c);
        }
        if let Some(base) = lower.strip_suffix("_ps") {
            if let Some(c) = self.by_lower.get(base) {
                return n.renamed(c);
            }
        }
        n.renamed(&if upper { n.name.to_ascii_uppercase() } else { n.name.clone() })
    }
}

/// Intel metric name → our lookup name.
pub fn intel_metric_name(metric_name: &str, tma: bool) -> String {
    let base: String = metric_name
        .trim()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .collect();
    let base = base.trim_matches('_').to_string();
    if tma {
        format!("tma_{base}")
    } else {
        base
    }
}

/// Constants spelled as bare names or `Constants` entries in the sources.
pub fn constant(name: &str) -> Option<Expr> {
    let c = |n: &str| Some(Expr::Const(n.to_string()));
    match name.trim().to_ascii_lowercase().as_str() {
        "smt_on" | "hyperthreading_on" | "#smt_on" => c("smt_on"),
        "threads" | "threads_per_core" => c("threads"),
        "num_cpus" | "num_cpus_online" | "system.sockets[0].cpus.count * system.socket_count" => c("num_cpus"),
        "socket_count" => c("socket_count"),
        "system_tsc_freq" => c("system_tsc_freq"),
        "cores_per_socket" => c("cores_per_socket"),
        "chas_per_socket" => c("chas_per_socket"),
        "durationtimeinseconds" | "duration_time" => c("duration_time"),
        "durationtimeinmilliseconds" => Some(Expr::Binary(BinOp::Mul, Box::new(Expr::Const("duration_time".into())), Box::new(Expr::Num(1000.0)))),
        n => n.parse::<f64>().ok().map(Expr::Num),
    }
}
