//! Turning readings into counts: per-event deltas summed over the group's
//! instances (threads, CPUs), scaled by `time_enabled / time_running`, with
//! the running fraction kept for the multiplexing warnings.

use crate::backend::{CounterBackend, Reading};
use crate::collect::Instance;
use crate::errors::CountersError;
use crate::plan::{constants, EventPlan};
use bottlenose_metrics::Counts;

/// One event's measured value.
#[derive(Clone, Debug, PartialEq)]
pub struct EventValue {
    /// Counts key.
    pub key: String,
    /// Display name.
    pub name: String,
    /// Scaled value; `None` when it never ran.
    pub value: Option<f64>,
    /// Fraction of the enabled time it ran (1.0: no multiplexing).
    pub running: f64,
    /// Group number (0-based).
    pub group: usize,
}

/// The counts of one interval (or the whole run).
#[derive(Clone, Debug)]
pub struct Sample {
    /// Seconds since the start at the end of the sample.
    pub time: f64,
    /// Length of the sample in seconds.
    pub seconds: f64,
    /// Per event.
    pub values: Vec<EventValue>,
    /// For the engine (constants included).
    pub counts: Counts,
}

pub(crate) fn read_all<B: CounterBackend + ?Sized>(backend: &mut B, inst: &[Instance]) -> Result<Vec<Vec<Reading>>, CountersError> {
    inst.iter()
        .map(|i| backend.read(i.handle).map_err(|errno| CountersError::Io(format!("reading counters: {}", crate::errors::errno_text(errno)))))
        .collect()
}

pub(crate) fn zero(r: &[Vec<Reading>]) -> Vec<Vec<Reading>> {
    r.iter().map(|v| vec![Reading::default(); v.len()]).collect()
}

/// Sums the deltas `now - prev` per plan event over all instances.
pub(crate) fn values(plan: &EventPlan, inst: &[Instance], now: &[Vec<Reading>], prev: &[Vec<Reading>]) -> Vec<EventValue> {
    let mut out = Vec::new();
    let groups: Vec<usize> = {
        let mut g: Vec<usize> = inst.iter().map(|i| i.group).collect();
        g.dedup();
        g.sort();
        g.dedup();
        g
    };
    for g in groups {
        for (k, &ei) in plan.groups[g].events.iter().enumerate() {
            let (mut sum, mut any, mut en, mut run) = (0.0, false, 0u64, 0u64);
            for (n, _) in inst.iter().enumerate().filter(|(_, i)| i.group == g) {
                let (Some(a), Some(b)) = (now[n].get(k), prev[n].get(k)) else { continue };
                let d = a.since(b);
                en += d.time_enabled;
                run += d.time_running;
                if let Some(v) = d.scaled() {
                    sum += v;
                    any = true;
                }
            }
            let e = &plan.events[ei];
            let running = if en == 0 { 1.0 } else { run as f64 / en as f64 };
            out.push(EventValue { key: e.key.clone(), name: e.name.clone(), value: any.then_some(sum), running, group: g });
        }
    }
    out
}

pub(crate) fn sample(plan: &EventPlan, vals: Vec<EventValue>, time: f64, seconds: f64, extra: &Counts) -> Sample {
    let mut counts = constants(plan.smt);
    for key in ["num_cpus", "num_cpus_online"] {
        if let Some(v) = extra.constant(key) {
            counts.set_const(key, v);
        }
    }
    counts.set_const("duration_time", seconds);
    for v in &vals {
        if let Some(x) = v.value {
            counts.set(&v.key, x);
        }
    }
    Sample { time, seconds, values: vals, counts }
}

/// Warnings about multiplexed and never-counted groups.
pub fn multiplex_warnings(vals: &[EventValue]) -> Vec<String> {
    let mut out = Vec::new();
    let mut groups: Vec<usize> = vals.iter().map(|v| v.group).collect();
    groups.sort();
    groups.dedup();
    for g in groups {
        let in_g: Vec<&EventValue> = vals.iter().filter(|v| v.group == g).collect();
        let names: Vec<&str> = in_g.iter().map(|v| v.name.as_str()).collect();
        let run = in_g.iter().map(|v| v.running).fold(1.0, f64::min);
        if in_g.iter().all(|v| v.value.is_none()) {
            out.push(format!("group {} was never counted ({}): too many groups for the counters, or the NMI watchdog holds one", g + 1, names.join(", ")));
        } else if run < 0.9995 {
            out.push(format!("multiplexed: group {} ran {:.1}% of the time ({}); its counts are scaled estimates (--repeat avoids this for a command)", g + 1, run * 100.0, names.join(", ")));
        }
    }
    out
}

