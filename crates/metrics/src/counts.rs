//! Measured (or simulated) event counts and run constants.

use crate::event::{event_key, NameRef};
use std::collections::HashMap;

/// Event counts keyed by normalized event key (case-insensitive names,
/// canonical modifiers), plus constants such as `smt_on` and `threads`.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    events: HashMap<String, f64>,
    constants: HashMap<String, f64>,
    source_counts: HashMap<String, f64>,
    cpuid: Option<String>,
}

impl Counts {
    /// No counts; constants default to SMT off (`smt_on = 0`, `threads = 1`).
    pub fn new() -> Counts {
        Counts::default()
    }

    /// Sets an event count. `event` may be written in any accepted spelling
    /// (`UOPS_EXECUTED.CORE:c1`, `cpu@uops_executed.core\,cmask\=1@`).
    /// A constant written as an event (`duration_time`, `#smt_on`) goes to the constants.
    pub fn set(&mut self, event: &str, value: f64) -> &mut Counts {
        match crate::expr::parse(event) {
            Ok(crate::expr::Expr::Name(n)) => {
                self.events.insert(n.key, value);
            }
            Ok(crate::expr::Expr::Const(c)) => {
                self.constants.insert(c, value);
            }
            _ => {
                self.events.insert(event.trim().to_ascii_lowercase(), value);
            }
        }
        self
    }

    /// Builder form of [`Counts::set`].
    pub fn with(mut self, event: &str, value: f64) -> Counts {
        self.set(event, value);
        self
    }

    /// Sets a constant (`smt_on`, `threads`, `num_cpus`, `duration_time`, a penalty ...);
    /// a leading `#` is ignored.
    pub fn set_const(&mut self, name: &str, value: f64) -> &mut Counts {
        self.constants.insert(name.trim_start_matches('#').to_ascii_lowercase(), value);
        self
    }

    /// Builder form of [`Counts::set_const`].
    pub fn with_const(mut self, name: &str, value: f64) -> Counts {
        self.set_const(name, value);
        self
    }

    /// SMT on/off (`#smt_on`) and threads per core (`#threads`).
    pub fn with_smt(self, on: bool) -> Counts {
        self.with_const("smt_on", if on { 1.0 } else { 0.0 }).with_const("threads", if on { 2.0 } else { 1.0 })
    }

    /// Elapsed seconds (`duration_time`).
    pub fn with_duration(self, seconds: f64) -> Counts {
        self.with_const("duration_time", seconds)
    }

    /// How many counters were summed into `event` (for `source_count`).
    pub fn set_source_count(&mut self, event: &str, n: f64) {
        let key = event_key(event).unwrap_or_else(|| event.to_ascii_lowercase());
        self.source_counts.insert(key, n);
    }

    /// The CPU identifier (`GenuineIntel-6-55-4`) for `strcmp_cpuid_str`.
    pub fn set_cpuid(&mut self, id: &str) {
        self.cpuid = Some(id.to_string());
    }

    /// The count of an event reference.
    pub fn get(&self, r: &NameRef) -> Option<f64> {
        self.events.get(&r.key).copied()
    }

    /// The count of an event written as text.
    pub fn get_str(&self, event: &str) -> Option<f64> {
        self.events.get(&event_key(event)?).copied()
    }

    /// A constant value set by the caller.
    pub fn constant(&self, name: &str) -> Option<f64> {
        self.constants.get(&name.trim_start_matches('#').to_ascii_lowercase()).copied()
    }

    pub(crate) fn source_count(&self, r: &NameRef) -> Option<f64> {
        self.source_counts.get(&r.key).copied()
    }

    pub(crate) fn cpuid(&self) -> Option<&str> {
        self.cpuid.as_deref()
    }

    /// All event keys with counts.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.events.keys().map(String::as_str)
    }

    /// Number of events with counts.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when no event has a count.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

/// Built-in defaults for constants that neither the counts nor the table set.
pub(crate) fn builtin_constant(name: &str) -> Option<f64> {
    Some(match name {
        "smt_on" | "core_wide" => 0.0,
        "threads" => 1.0,
        _ => return None,
    })
}
