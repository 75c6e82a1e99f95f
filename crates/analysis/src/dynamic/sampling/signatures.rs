//! What the controller knows of the code each unit ran: its signature (its most
//! executed static instruction, [`code_mix::signature`]), and the
//! spread of unit cycles left once each signature's mean is taken out.
//!
//! The run's total is estimated from its exact instruction mix
//! ([`super::code_mix`]), whose error comes from how cycles per execution vary
//! within a class of code, not from how many units landed in each phase. The
//! controller, choosing how densely to sample, must judge by the same spread:
//! judged by the raw spread of unit cycles, a program whose phases differ in
//! CPI 100x would be sampled as densely as allowed for the whole run.

use super::code_mix::{self, MIN_CLASS_UNITS};
use super::estimator::Running;
use bottlenose_simulate::engine::Records;
use bottlenose_timing::BatchPart;
use std::collections::{HashMap, VecDeque};

/// The exact prefix's batches get a signature one in this many (each costs a
/// pass over the batch's records; the prefix has tens of thousands of batches).
const PREFIX_EVERY: u64 = 8;

/// Units' and prefix batches' signatures paired with their cycles.
#[derive(Debug, Clone, Default)]
pub struct SignatureLog {
    /// Signatures of the batches handed over whose cycles have not come back yet
    /// (`None`: a prefix batch without one).
    pending: VecDeque<Option<u32>>,
    prefix_batches: u64,
    /// (signature, cycles) of every unit, in unit order.
    units: Vec<(u32, f64)>,
    /// (signature, cycles) of the prefix batches that got one.
    prefix: Vec<(u32, f64)>,
    /// Executions by static index of the batch being signed (zero between batches).
    counts: Vec<u32>,
}

impl SignatureLog {
    /// A batch of `part` is handed to the engine: sign it if its cycles will be fed back.
    pub fn note(&mut self, part: BatchPart, records: &Records) {
        match part {
            BatchPart::WarmUp => {}
            BatchPart::Whole => {
                self.prefix_batches += 1;
                let sign = self.prefix_batches % PREFIX_EVERY == 1;
                let sig = sign.then(|| self.sign(records));
                self.pending.push_back(sig);
            }
            BatchPart::Unit { .. } => {
                let sig = self.sign(records);
                self.pending.push_back(Some(sig));
            }
        }
    }

    /// The baseline's cycles of the oldest batch noted (feedback comes in order).
    pub fn on_cycles(&mut self, part: BatchPart, cycles: f64) {
        if part == BatchPart::WarmUp {
            return;
        }
        let Some(sig) = self.pending.pop_front() else { return };
        match (part, sig) {
            (BatchPart::Unit { .. }, Some(s)) => self.units.push((s, cycles)),
            (BatchPart::Whole, Some(s)) => self.prefix.push((s, cycles)),
            _ => {}
        }
    }

    /// The signature of `records` ([`code_mix::signature`]).
    fn sign(&mut self, records: &Records) -> u32 {
        for id in records.ids() {
            let i = id as usize;
            if i >= self.counts.len() {
                self.counts.resize((i + 1).next_power_of_two(), 0);
            }
            self.counts[i] += 1;
        }
        let counts = &self.counts;
        let sig = code_mix::signature(records.ids().map(|id| (id, counts[id as usize]))).unwrap_or(0);
        for id in records.ids() {
            self.counts[id as usize] = 0;
        }
        sig
    }

    pub fn units(&self) -> &[(u32, f64)] {
        &self.units
    }

    /// The spread the controller plans with: the units' if there are two, else the prefix batches'.
    pub fn planning_spread(&self) -> Option<Running> {
        let log = if self.units.len() >= 2 { &self.units } else { &self.prefix };
        (log.len() >= 2).then(|| within(log).0)
    }
}

/// The mean of `log`'s cycles and their spread around each signature's mean
/// (signatures with fewer than [`MIN_CLASS_UNITS`] entries pooled into one),
/// with `n - groups` degrees of freedom; and each entry's residual.
pub fn within(log: &[(u32, f64)]) -> (Running, Vec<f64>) {
    let mut by: HashMap<u32, (usize, f64)> = HashMap::new();
    for &(s, y) in log {
        let e = by.entry(s).or_default();
        e.0 += 1;
        e.1 += y;
    }
    let (mut rest_n, mut rest_sum) = (0usize, 0.0);
    for &(n, sum) in by.values().filter(|(n, _)| *n < MIN_CLASS_UNITS) {
        rest_n += n;
        rest_sum += sum;
    }
    let groups = by.values().filter(|(n, _)| *n >= MIN_CLASS_UNITS).count() + (rest_n > 0) as usize;
    let rest_mean = if rest_n > 0 { rest_sum / rest_n as f64 } else { 0.0 };
    let residuals: Vec<f64> = log
        .iter()
        .map(|&(s, y)| {
            let (n, sum) = by[&s];
            y - if n >= MIN_CLASS_UNITS { sum / n as f64 } else { rest_mean }
        })
        .collect();
    let n = log.len();
    let mean = log.iter().map(|e| e.1).sum::<f64>() / n.max(1) as f64;
    let free = n.saturating_sub(groups).max(1);
    let variance = residuals.iter().map(|r| r * r).sum::<f64>() / free as f64;
    (Running::from_moments(n as u64, mean, variance), residuals)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two phases of 20 units each, 100 and 10 000 cycles with ±1 around
    /// them: the raw variance is dominated by the phases, the spread within
    /// them is 40 · 1 / (40 - 2).
    #[test]
    fn the_spread_within_signatures_leaves_the_phases_out() {
        let log: Vec<(u32, f64)> = (0..40).map(|k| if k < 20 { (3, 100.0 + if k % 2 == 0 { 1.0 } else { -1.0 }) } else { (9, 10_000.0 + if k % 2 == 0 { 1.0 } else { -1.0 }) }).collect();
        let (r, residuals) = within(&log);
        assert_eq!(r.n, 40);
        assert!((r.mean() - 5050.0).abs() < 1e-9);
        assert!((r.variance() - 40.0 / 38.0).abs() < 1e-9, "{}", r.variance());
        assert!(residuals.iter().all(|e| e.abs() == 1.0));
        // a signature seen fewer than MIN_CLASS_UNITS times is pooled with the other rare ones
        let rare: Vec<(u32, f64)> = (0..4).map(|k| (k % 2, if k % 2 == 0 { 10.0 } else { 30.0 })).collect();
        let (r, _) = within(&rare);
        // one group (the rest), mean 20, residuals ±10: 400 / (4 - 1)
        assert!((r.variance() - 400.0 / 3.0).abs() < 1e-9, "{}", r.variance());
    }

    #[test]
    fn a_batch_is_signed_by_its_most_executed_instruction_and_paired_with_its_cycles() {
        let rec = |id: u32| bottlenose_simulate::engine::DynRecord { id, info: Default::default() };
        let mut log = SignatureLog::default();
        // loop body 5, 6, 7 three times, then 2 once: 5 (the first of the most executed)
        let batch: Records = [5, 6, 7, 5, 6, 7, 5, 6, 7, 2].into_iter().map(rec).collect();
        log.note(BatchPart::Unit { weight: 4.0 }, &batch);
        log.note(BatchPart::WarmUp, &batch);
        log.note(BatchPart::Unit { weight: 4.0 }, &[8, 1, 8, 8].into_iter().map(rec).collect());
        log.on_cycles(BatchPart::Unit { weight: 4.0 }, 50.0);
        log.on_cycles(BatchPart::WarmUp, 9.0);
        log.on_cycles(BatchPart::Unit { weight: 4.0 }, 70.0);
        assert_eq!(log.units(), &[(5, 50.0), (8, 70.0)]);
        // the scratch counts are back at zero
        assert!(log.counts.iter().all(|&c| c == 0));
    }
}
