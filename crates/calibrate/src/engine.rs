//! The measuring engine: times benches against a clock re-measured around them,
//! keeps the fastest of repeated attempts, and records values with their spread.
//! The steps (memory, core, instruction forms) are in `steps/`.

use crate::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// One timed bench: cycles per unit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sample {
    pub(crate) cycles: f64,
    pub(crate) spread_pct: f64,
    pub(crate) unstable: bool,
}

pub(crate) const REPS: usize = 7;
/// Quick clock measurements kept for [`Engine::recent_tpc`] (about the last 6 benches).
pub(crate) const RECENT: usize = 12;
/// Ticks per cycle before and after a bench may differ by this much (fraction).
pub(crate) const CLOCK_TOLERANCE: f64 = 0.02;
/// The add and imul chains' clocks are measured again, at most this many times, until
/// they agree within [`AGREE`].
const CLOCK_ATTEMPTS: usize = 3;
/// At most this many attempts per bench, fewer when the two fastest agree within `AGREE`
/// (from the third on, the timer pauses first: a busy neighbour may go quiet).
pub(crate) const ATTEMPTS: usize = 10;
pub(crate) const AGREE: f64 = 0.01;
/// The two fastest attempts further apart than this (fraction) make a value unstable.
pub(crate) const UNSTABLE: f64 = 0.03;
/// Repetitions of a clock chain whose median is this many percent above the fastest.
pub(crate) const SPREAD_LIMIT: f64 = 5.0;

pub(crate) struct Engine<'a> {
    pub(crate) timer: &'a mut dyn Timer,
    pub(crate) stop: &'a AtomicBool,
    pub(crate) progress: &'a mut dyn FnMut(&str, usize, usize),
    /// Latest ticks per cycle.
    pub(crate) tpc: f64,
    /// The last [`RECENT`] quick clock measurements.
    pub(crate) recent: Vec<f64>,
    /// The fastest sample of every bench timed so far (benches run again in later rounds).
    pub(crate) best: std::collections::HashMap<String, Sample>,
    pub(crate) cal: Calibration,
    pub(crate) base: &'a Machine,
}

pub(crate) fn fail(e: BenchError) -> CalibrateError {
    CalibrateError::Failed(e.to_string())
}

impl Engine<'_> {
    pub(crate) fn check_stop(&self) -> Result<(), CalibrateError> {
        if self.stop.load(Ordering::Relaxed) {
            Err(CalibrateError::Stopped)
        } else {
            Ok(())
        }
    }

    /// The base machine's value of a key (`None` for `info.*` and unknown keys).
    pub(crate) fn base_value(&self, key: &str) -> Option<f64> {
        self.base.param(key)
    }

    pub(crate) fn push(&mut self, key: &str, value: f64, method: String, s: &[Sample]) {
        let base = self.base_value(key);
        let spread = s.iter().map(|x| x.spread_pct).fold(0.0, f64::max);
        let unstable = s.iter().any(|x| x.unstable);
        self.cal.entries.push(Measured { key: key.to_string(), value, base, method, spread_pct: spread, unstable, depends_on: vec![] });
    }

    /// Ticks per unit of a bench (no clock checks): the fastest of `reps` runs of one length,
    /// long enough (`target` ticks) that the call and the loop's ramp-up cost nothing, and
    /// the spread of the runs. One length, not the difference of two: a disturbed short run
    /// would make a difference read low as well as high, and the minimum of many would then
    /// pick the low ones (a neighbour or an interrupt only ever make a single run slower).
    pub(crate) fn raw(&mut self, b: &Bench, target: f64, reps: usize) -> Result<(f64, f64), BenchError> {
        // size the runs (and warm up: code, data, predictors) from one long enough that the
        // call overhead does not dominate
        let mut n = 1u64;
        let per_iter = loop {
            let t = self.timer.ticks(b, n)?;
            if t >= target / 8.0 || n >= 1 << 24 {
                break t / n as f64;
            }
            n *= 4;
        };
        let n = ((target / per_iter.max(1e-3)) as u64).max(1);
        let mut t = Vec::with_capacity(reps);
        for _ in 0..reps {
            t.push(self.timer.ticks(b, n)?);
        }
        Ok((an::min(&t) / (n as f64 * b.units_per_iteration()), an::spread_pct(&t)))
    }

    /// Ticks per cycle of a clock chain.
    pub(crate) fn chain_tpc(&mut self, op: ChainOp, target: f64, reps: usize) -> Result<(f64, f64), BenchError> {
        let (t, spread) = self.raw(&Bench::Chain { op }, target, reps)?;
        Ok((t / op.cycles(), spread))
    }

    /// Ticks per cycle now: a short add chain (also kept in the recent window).
    pub(crate) fn quick_tpc(&mut self) -> Result<f64, BenchError> {
        let t = self.chain_tpc(ChainOp::Add, 1.0e5, 5)?.0;
        if self.recent.len() == RECENT {
            self.recent.remove(0);
        }
        self.recent.push(t);
        Ok(t)
    }

    /// The fastest clock of the recent window: a dependent add chain cannot run faster than
    /// one add per cycle, so the smallest ticks per cycle is the clock at its top speed, and
    /// a window follows a lasting change.
    pub(crate) fn recent_tpc(&self) -> f64 {
        an::min(&self.recent)
    }

    /// Cycles per unit of a bench, with the clock measured before and after. Attempts
    /// (each: clock, repetitions at two lengths, clock) repeat until the two fastest agree
    /// within [`AGREE`] (at most [`ATTEMPTS`]); attempts whose clock moved are dropped. The
    /// result is the fastest attempt (nothing makes a loop faster than the core runs it;
    /// a busy neighbour on the same physical core, other processes or a clock change only
    /// slow it down); its spread is how far the second fastest is above it.
    pub(crate) fn measure(&mut self, b: &Bench) -> Result<Sample, BenchError> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(BenchError::Failed("stopped".into()));
        }
        self.timer.prepare(b)?;
        let reps = if b.target_ticks() >= 1.0e6 { 4 } else { REPS };
        let mut good: Vec<f64> = Vec::new();
        let mut least_moved: Option<(f64, f64)> = None;
        let mut single_spread = 0.0;
        for attempt in 0..ATTEMPTS {
            if attempt >= 2 {
                self.timer.pause();
            }
            let before = self.quick_tpc()?;
            let (t, spread) = self.raw(b, b.target_ticks(), reps)?;
            let after = self.quick_tpc()?;
            // the clock must be at its recent top speed before and after (on a shared host
            // it drops for milliseconds when a neighbour is busy); the bench is converted at
            // that speed: its fastest runs are the ones that ran at it
            let top = self.recent_tpc();
            let moved = before.max(after) / top - 1.0;
            let cycles = t / top;
            self.tpc = after;
            if moved <= CLOCK_TOLERANCE {
                good.push(cycles);
                good.sort_by(|a, b| a.total_cmp(b));
                single_spread = spread;
                if good.len() >= 2 && good[1] <= good[0] * (1.0 + AGREE) {
                    break;
                }
            } else if least_moved.is_none_or(|(m, _)| moved < m) {
                least_moved = Some((moved, cycles));
            }
        }
        let s = match good.len() {
            0 => Sample { cycles: least_moved.map_or(f64::NAN, |l| l.1), spread_pct: least_moved.map_or(100.0, |l| 100.0 * l.0), unstable: true },
            // one attempt with a steady clock: its repetitions' spread
            1 => Sample { cycles: good[0], spread_pct: single_spread, unstable: true },
            _ => {
                let spread = (good[1] - good[0]) / good[0] * 100.0;
                Sample { cycles: good[0], spread_pct: spread, unstable: spread > 100.0 * UNSTABLE }
            }
        };
        if matches!(b, Bench::Wong { .. }) {
            return Ok(s); // a Wong point is a ratio to a reference timed beside it: no reuse
        }
        let key = format!("{b:?}");
        let keep = match self.best.get(&key) {
            Some(old) if s.cycles.is_nan() || s.cycles >= old.cycles => *old,
            _ => s,
        };
        self.best.insert(key, keep);
        Ok(keep)
    }

    /// `measure` that turns a stop into `Stopped` and anything else into `None` plus a note.
    pub(crate) fn try_measure(&mut self, b: &Bench) -> Result<Option<Sample>, CalibrateError> {
        self.check_stop()?;
        match self.measure(b) {
            Ok(s) => Ok(Some(s)),
            Err(e) => {
                self.check_stop()?;
                self.cal.notes.push(format!("{}: skipped: {e}", b.label()));
                Ok(None)
            }
        }
    }

    /// The add chain's and then the imul chain's ticks per cycle, each with its spread.
    fn clock_chains(&mut self) -> Result<((f64, f64), (f64, f64)), CalibrateError> {
        Ok((self.chain_tpc(ChainOp::Add, 3.0e5, 15).map_err(fail)?, self.chain_tpc(ChainOp::Imul, 3.0e5, 15).map_err(fail)?))
    }

    pub(crate) fn clock(&mut self) -> Result<(), CalibrateError> {
        (self.progress)("clock", 0, 3);
        let hz = self.timer.tsc_hz();
        // The two chains measure the same clock: when they disagree, the clock moved
        // between them (a shared host's neighbours), so both are measured again, and the
        // pair that agrees best is kept.
        let disagreement = |((add, _), (imul, _)): ((f64, f64), (f64, f64))| (imul / add - 1.0).abs();
        let mut best = self.clock_chains()?;
        for _ in 1..CLOCK_ATTEMPTS {
            if disagreement(best) <= AGREE {
                break;
            }
            self.check_stop()?;
            let again = self.clock_chains()?;
            if disagreement(again) < disagreement(best) {
                best = again;
            }
        }
        let ((add, s_add), (imul, s_imul)) = best;
        (self.progress)("clock", 1, 3);
        let add2 = self.quick_tpc().map_err(fail)?;
        (self.progress)("clock", 2, 3);
        let (tpc, tpc_imul) = (add, imul);
        self.tpc = tpc;
        self.cal.clock = ClockInfo { tsc_ghz: hz / 1e9, core_ghz: hz / 1e9 / tpc, ticks_per_cycle_add: tpc, ticks_per_cycle_imul: tpc_imul, drift_pct: 0.0 };
        let ratio = tpc_imul / tpc;
        if (ratio - 1.0).abs() > UNSTABLE {
            self.cal.notes.push(format!(
                "clock: the imul chain gives {tpc_imul:.4} ticks per cycle, the add chain {tpc:.4} ({:+.1} %): the clock moved or one chain does not run at its nominal latency",
                (ratio - 1.0) * 100.0
            ));
        }
        if (add2 - tpc).abs() / tpc > CLOCK_TOLERANCE || s_add > SPREAD_LIMIT || s_imul > SPREAD_LIMIT {
            self.cal.notes.push(format!("clock: unsteady while measured (add chain {tpc:.4} then {add2:.4} ticks per cycle, spreads {s_add:.1} % / {s_imul:.1} %)"));
        }
        (self.progress)("clock", 3, 3);
        Ok(())
    }

    pub(crate) fn clock_end(&mut self) -> Result<(), CalibrateError> {
        let (end, _) = self.chain_tpc(ChainOp::Add, 3.0e5, 15).map_err(fail)?;
        let start = self.cal.clock.ticks_per_cycle_add;
        self.cal.clock.drift_pct = (end - start) / start * 100.0;
        if self.cal.clock.drift_pct.abs() > 100.0 * CLOCK_TOLERANCE {
            self.cal.notes.push(format!(
                "clock: ticks per cycle moved {:+.1} % during the calibration (every bench re-measures it before and after itself)",
                self.cal.clock.drift_pct
            ));
        }
        Ok(())
    }

    pub(crate) fn geometry(&self, plan: &Plan) -> (Option<u64>, Option<u64>, Option<u64>) {
        let from_base = |level: u8| {
            self.base
                .params
                .caches
                .iter()
                .find(|c| c.level == level && c.kind != bottlenose_machine::CacheKind::Instruction)
                .map(|c| c.size_kib as u64 * 1024)
        };
        let g = &plan.geometry;
        (g.l1d_bytes.or(from_base(1)), g.l2_bytes.or(from_base(2)), g.l3_bytes.or(from_base(3)))
    }

    /// Names of the data caches of the base machine by level (`L1D`, `L2`, `L3`).
    pub(crate) fn cache_name(&self, level: u8) -> String {
        self.base
            .params
            .caches
            .iter()
            .find(|c| c.level == level && c.kind != bottlenose_machine::CacheKind::Instruction)
            .map(|c| c.name.clone())
            .unwrap_or_else(|| if level == 1 { "L1D".into() } else { format!("L{level}") })
    }
}
