//! Native calibration of the host without a PMU: the measurement engine of
//! `bottlenose calibrate`.
//!
//! [`calibrate`] runs generated microbenchmarks on this CPU (see [`native`]), timed with
//! the TSC and converted to core cycles with the ticks per cycle of a dependent
//! `add %r,%r` chain (cross-checked with `imul %r,%r`, re-measured around every timed
//! region), and turns them into values for machine-file keys (`core.rob`,
//! `cache.L2.latency`, ...) next to the base machine's values. All arithmetic is behind
//! the [`Timer`] trait (a [`Bench`] description in, TSC ticks out), so
//! [`SyntheticTimer`] can check it against a machine with known parameters.
//!
//! Keys of [`Calibration::entries`] are dotted paths into the machine file
//! (`core.*`, `memory.*`, `cache.<name>.*`, `branch.*`), except `info.*` entries: raw
//! measurements that are no machine parameter (DRAM latency with 4 KiB pages, cycles per
//! mispredicted branch, the IPC of each dispatch mix...), which an overlay must skip.
//!
//! # What each value means
//!
//! - `cache.*.latency`, `memory.integer_load_latency`, `memory.dram_latency`: load-to-use
//!   of `mov rax, [rax]` chasing a random cycle of 64-byte nodes (L1D/2, L2/4, the better
//!   of 2 and 4 x L2 for the L3, max(256 MiB, 8 x L3) for DRAM), huge pages (MADV_HUGEPAGE,
//!   2 MiB aligned) so no TLB miss is included; `info.dram_latency_4k_pages` is the same
//!   with 4 KiB pages.
//! - `memory.load_latency` (vector/FP load-to-use): a `movq xmm0, [rax]; movq rax, xmm0`
//!   chase minus half a GPR->xmm->GPR round trip (the two moves are assumed equal).
//! - `*.bytes_per_cycle`: sequential 32-byte loads over 2 or 4 streams.
//! - `branch.mispredict_penalty`: cycles per mispredicted branch (random minus learnable
//!   pattern, over the 50 % mispredict rate) minus the resolution of the next branch on the
//!   correct path (its load + the fused test/jz), because the model adds that itself.
//! - `branch.taken_bubble`: cycles per back-to-back taken `jmp` minus the model's
//!   1 / `core.fetch_blocks_per_cycle`.
//! - `core.dispatch_width`: the best IPC of independent 1-cycle integer/vector/load mixes
//!   (nops excluded: Zen 4 runs 12 per cycle), snapped to an integer within 0.15.
//! - `core.rob` / `scheduler` / `load_buffer` / `store_buffer`: Henry Wong's two
//!   independent DRAM misses with N fillers between them (`mov rN, r12` or `nop` for the
//!   ROB, `add rN, rax` waiting on the first miss for the scheduler, L1 loads, stores);
//!   the time per iteration doubles when the structure cannot hold both misses.
//!
//! # On a shared host
//!
//! Without a PMU every number is TSC time, and the development host is a KVM guest whose
//! vCPUs share physical cores and the L3 with other work. So: the clock is the fastest
//! recent add chain (the core drops its clock for milliseconds when a neighbour is busy);
//! every bench repeats until its two fastest attempts agree (1 %), and the short ones run
//! in three rounds keeping their fastest; Wong points are ratios to N = 0 timed beside
//! them and swept twice. What stays noisy is marked `unstable`. Two effects no repetition
//! removes: while an SMT sibling is busy, Zen 4 gives each thread half the ROB and store
//! queue (a sweep then finds ~160 / ~32), and a thrashed shared L3 makes `cache.L3.latency`
//! read DRAM-like values (both show up as run-to-run differences, not as noise in a run).
//! On Zen 4 the scheduler fillers meet the integer register file (~190) before the
//! scheduler.

pub mod analysis;
mod asm;
pub mod bench;
pub mod forms;
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
pub mod native;
/// Elsewhere the native timer only says why it cannot run.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
pub mod native {
    use crate::{Bench, BenchError, Features, Timer};
    pub struct NativeTimer;
    impl NativeTimer {
        pub fn new() -> Result<NativeTimer, BenchError> {
            Err(BenchError::Unsupported("native calibration needs x86-64 Linux".into()))
        }
    }
    impl Timer for NativeTimer {
        fn tsc_hz(&mut self) -> f64 {
            0.0
        }
        fn ticks(&mut self, _: &Bench, _: u64) -> Result<f64, BenchError> {
            Err(BenchError::Unsupported("native calibration needs x86-64 Linux".into()))
        }
        fn features(&self) -> Features {
            Features::default()
        }
    }
}
mod synthetic;

pub use bench::{Bench, ChainOp, ChaseLoad, Mix, WongKind};
pub use forms::Features;
pub use native::NativeTimer;
pub use synthetic::{SyntheticTimer, TrueMachine};

use analysis as an;
use bottlenose_machine::Machine;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};

/// Cache sizes in bytes (from CPUID, passed in by the CLI); a missing one is taken from the
/// base machine's `[[cache]]` of the same level.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CacheGeometry {
    pub l1d_bytes: Option<u64>,
    pub l2_bytes: Option<u64>,
    pub l3_bytes: Option<u64>,
}

/// What to measure.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// The standard set: clock, cache/DRAM latency and bandwidth, branch costs, window sizes
    /// (Wong), dispatch width.
    pub standard: bool,
    /// The built-in representative instruction forms ([`forms::BUILTIN_FORMS`], those the host runs).
    pub builtin_forms: bool,
    /// Extra instruction-form keys (`vaddpd ymm, ymm, ymm`), e.g. those of a program (`--for`).
    pub forms: Vec<String>,
    pub geometry: CacheGeometry,
    /// Pairwise port-conflict tests among the measured forms (slow: quadratic).
    pub conflicts: bool,
    /// Size of the DRAM chase and stream buffers (at least 8 x L3 is used).
    pub dram_bytes: u64,
    /// Only these steps of the standard set (`latency`, `bandwidth`, `branches`,
    /// `dispatch`, `windows`); empty: all.
    pub only: Vec<String>,
}

impl Plan {
    fn runs(&self, step: &str) -> bool {
        self.standard && (self.only.is_empty() || self.only.iter().any(|s| s == step))
    }
}

impl Plan {
    /// The standard set plus the built-in forms.
    pub fn standard(geometry: CacheGeometry) -> Plan {
        Plan { standard: true, builtin_forms: true, forms: vec![], geometry, conflicts: false, dram_bytes: 256 << 20, only: vec![] }
    }
    /// Only these forms (and the clock and L1 load latencies they need).
    pub fn forms_only(forms: Vec<String>) -> Plan {
        Plan { standard: false, builtin_forms: false, forms, geometry: CacheGeometry::default(), conflicts: false, dram_bytes: 256 << 20, only: vec![] }
    }
}

/// The clock: TSC rate, core cycles per TSC tick from the two chains, and how much the
/// add-chain rate moved between the start and the end of the calibration.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClockInfo {
    pub tsc_ghz: f64,
    pub core_ghz: f64,
    pub ticks_per_cycle_add: f64,
    pub ticks_per_cycle_imul: f64,
    /// (end - start) / start of the add-chain ticks per cycle, in percent.
    pub drift_pct: f64,
}

/// One measured machine parameter.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    /// Dotted path into the machine file (`cache.L2.latency`), or `info.*` (not a parameter).
    pub key: String,
    pub value: f64,
    /// The base machine's value of the same key.
    pub base: Option<f64>,
    /// How it was measured (bench, sizes, derivation).
    pub method: String,
    /// How far the second fastest attempt is above the fastest, percent (the worst of the
    /// benches the value comes from).
    pub spread_pct: f64,
    /// The fastest attempts disagree (more than 3 %), the clock moved during every attempt,
    /// or (Wong) the step is not sharp.
    pub unstable: bool,
}

/// Latency and reciprocal throughput of one instruction form.
#[derive(Debug, Clone, Serialize)]
pub struct MeasuredForm {
    pub form: String,
    /// Cycles from the sources to the result, including the load for load forms (as the
    /// machine's form table counts it); `None` when not measured (see `method`).
    pub latency: Option<f64>,
    /// Cycles per instance with independent copies.
    pub rthroughput: Option<f64>,
    pub base_latency: Option<f64>,
    /// From the base machine's resource use (busiest group over its capacity).
    pub base_rthroughput: Option<f64>,
    pub method: String,
    pub unstable: bool,
}

/// The result of [`calibrate`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct Calibration {
    pub clock: ClockInfo,
    pub entries: Vec<Measured>,
    pub forms: Vec<MeasuredForm>,
    /// (form A, form B, conflict degree): 0 = disjoint resources (A+B mixed run in max(A, B)),
    /// 1 = one shared resource (A + B). Only with [`Plan::conflicts`], and only for pairs
    /// whose reciprocal throughputs are within 4x of each other.
    pub conflicts: Vec<(String, String, f64)>,
    /// Warnings and facts worth printing (clock disagreement, missing huge pages, skipped steps).
    pub notes: Vec<String>,
    /// Wall time of the calibration.
    pub seconds: f64,
}

impl Calibration {
    pub fn get(&self, key: &str) -> Option<&Measured> {
        self.entries.iter().find(|e| e.key == key)
    }
    pub fn value(&self, key: &str) -> Option<f64> {
        self.get(key).map(|e| e.value)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    #[error("calibration stopped")]
    Stopped,
    #[error("cannot calibrate this host: {0}")]
    Unsupported(String),
    #[error("calibration failed: {0}")]
    Failed(String),
}

/// Why one bench did not run.
#[derive(Debug, Clone, PartialEq)]
pub enum BenchError {
    /// The host or the generator cannot run it (skip, with this reason).
    Unsupported(String),
    /// Anything else.
    Failed(String),
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BenchError::Unsupported(s) | BenchError::Failed(s) => f.write_str(s),
        }
    }
}

/// Runs benches: a description in, TSC ticks out.
pub trait Timer {
    /// TSC ticks per second.
    fn tsc_hz(&mut self) -> f64;
    /// Ticks of one run of `iterations` iterations of the bench's loop.
    fn ticks(&mut self, bench: &Bench, iterations: u64) -> Result<f64, BenchError>;
    /// Builds and checks a bench before it is timed (`Unsupported`: skip it).
    fn prepare(&mut self, _bench: &Bench) -> Result<(), BenchError> {
        Ok(())
    }
    /// What the host runs (which built-in forms and kernels to use).
    fn features(&self) -> Features;
    /// A fact about how a bench ran (e.g. how much of its buffer got huge pages).
    fn note(&self, _bench: &Bench) -> Option<String> {
        None
    }
    /// The fraction of a bench's buffer backed by huge pages, where known.
    fn huge_pages(&self, _bench: &Bench) -> Option<f64> {
        None
    }
    /// Frees large buffers.
    fn release(&mut self) {}
    /// Waits a little before another attempt at a bench that did not repeat.
    fn pause(&mut self) {}
}

/// Measures the host natively (x86-64 Linux; needs `as` and `objcopy`).
pub fn calibrate(
    plan: &Plan,
    base: &Machine,
    progress: &mut dyn FnMut(&str, usize, usize),
    stop: &AtomicBool,
) -> Result<Calibration, CalibrateError> {
    let mut timer = NativeTimer::new().map_err(|e| CalibrateError::Unsupported(e.to_string()))?;
    calibrate_with(&mut timer, plan, base, progress, stop)
}

/// [`calibrate`] with any timer.
pub fn calibrate_with(
    timer: &mut dyn Timer,
    plan: &Plan,
    base: &Machine,
    progress: &mut dyn FnMut(&str, usize, usize),
    stop: &AtomicBool,
) -> Result<Calibration, CalibrateError> {
    let start = std::time::Instant::now();
    let mut e = Engine { timer, stop, progress, tpc: 1.0, recent: Vec::new(), best: Default::default(), cal: Calibration::default(), base };
    e.clock()?;
    // the short benches run in rounds (before the Wong sweeps, after them and after the
    // forms), each keeping its fastest: on a shared host a neighbour on the same physical
    // core (SMT) can slow the front end and the load pipes for seconds at a time
    let short = |e: &mut Engine| -> Result<(), CalibrateError> {
        e.cal.entries.retain(|m| m.key.starts_with("core.") && m.key != "core.dispatch_width");
        if plan.runs("latency") {
            e.latencies(plan)?;
        } else {
            e.l1_latencies(plan)?;
        }
        if plan.runs("bandwidth") {
            e.bandwidth(plan)?;
        }
        if plan.runs("branches") {
            e.branches()?;
        }
        if plan.runs("dispatch") {
            e.dispatch()?;
        }
        Ok(())
    };
    short(&mut e)?;
    if plan.runs("windows") {
        e.windows()?;
        short(&mut e)?;
    }
    let mut keys: Vec<String> = Vec::new();
    if plan.builtin_forms {
        let f = e.timer.features();
        keys.extend(forms::BUILTIN_FORMS.iter().filter(|(_, n)| f.has(*n)).map(|(k, _)| k.to_string()));
    }
    for k in &plan.forms {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    if !keys.is_empty() {
        e.forms(&keys)?;
    }
    if plan.conflicts {
        e.conflicts()?;
    }
    short(&mut e)?;
    e.timer.release();
    e.cal.notes.dedup();
    e.clock_end()?;
    e.cal.seconds = start.elapsed().as_secs_f64();
    Ok(e.cal)
}

/// Times one bench alone (clock measured before and after): core cycles per unit, the
/// spread of the repetitions in percent, and whether it was unstable. For exploring a curve
/// (chase sizes, Wong sweeps) outside the standard set.
pub fn time_bench(timer: &mut dyn Timer, bench: &Bench) -> Result<(f64, f64, bool), BenchError> {
    let stop = AtomicBool::new(false);
    let mut progress = |_: &str, _: usize, _: usize| {};
    let base = Machine::resolve("zen4").map_err(|e| BenchError::Failed(e.to_string()))?;
    let mut e = Engine { timer, stop: &stop, progress: &mut progress, tpc: 1.0, recent: Vec::new(), best: Default::default(), cal: Calibration::default(), base: &base };
    let s = e.measure(bench)?;
    Ok((s.cycles, s.spread_pct, s.unstable))
}

/// One timed bench: cycles per unit.
#[derive(Debug, Clone, Copy)]
struct Sample {
    cycles: f64,
    spread_pct: f64,
    unstable: bool,
}

const REPS: usize = 7;
/// Quick clock measurements kept for [`Engine::recent_tpc`] (about the last 6 benches).
const RECENT: usize = 12;
/// Ticks per cycle before and after a bench may differ by this much (fraction).
const CLOCK_TOLERANCE: f64 = 0.02;
/// At most this many attempts per bench, fewer when the two fastest agree within `AGREE`
/// (from the third on, the timer pauses first: a busy neighbour may go quiet).
const ATTEMPTS: usize = 10;
const AGREE: f64 = 0.01;
/// The two fastest attempts further apart than this (fraction) make a value unstable.
const UNSTABLE: f64 = 0.03;
/// Repetitions of a clock chain whose median is this many percent above the fastest.
const SPREAD_LIMIT: f64 = 5.0;

struct Engine<'a> {
    timer: &'a mut dyn Timer,
    stop: &'a AtomicBool,
    progress: &'a mut dyn FnMut(&str, usize, usize),
    /// Latest ticks per cycle.
    tpc: f64,
    /// The last [`RECENT`] quick clock measurements.
    recent: Vec<f64>,
    /// The fastest sample of every bench timed so far (benches run again in later rounds).
    best: std::collections::HashMap<String, Sample>,
    cal: Calibration,
    base: &'a Machine,
}

fn fail(e: BenchError) -> CalibrateError {
    CalibrateError::Failed(e.to_string())
}

impl Engine<'_> {
    fn check_stop(&self) -> Result<(), CalibrateError> {
        if self.stop.load(Ordering::Relaxed) {
            Err(CalibrateError::Stopped)
        } else {
            Ok(())
        }
    }

    fn base_value(&self, key: &str) -> Option<f64> {
        let p = &self.base.params;
        let cache = |name: &str, f: &dyn Fn(&bottlenose_machine::CacheParams) -> f64| p.caches.iter().find(|c| c.name == name).map(f);
        Some(match key {
            "core.rob" => p.core.rob as f64,
            "core.scheduler" => p.core.scheduler as f64,
            "core.load_buffer" => p.core.load_buffer as f64,
            "core.store_buffer" => p.core.store_buffer as f64,
            "core.dispatch_width" => p.core.dispatch_width,
            "memory.integer_load_latency" => return p.memory.integer_load_latency,
            "memory.load_latency" => p.memory.load_latency,
            "memory.dram_latency" => p.memory.dram_latency,
            "memory.dram_bytes_per_cycle" => p.memory.dram_bytes_per_cycle,
            "branch.mispredict_penalty" => p.branch.mispredict_penalty,
            "branch.taken_bubble" => p.branch.taken_bubble,
            k => {
                let mut parts = k.splitn(3, '.');
                match (parts.next(), parts.next(), parts.next()) {
                    (Some("cache"), Some(name), Some("latency")) => return cache(name, &|c| c.latency),
                    (Some("cache"), Some(name), Some("bytes_per_cycle")) => return cache(name, &|c| c.bytes_per_cycle),
                    _ => return None,
                }
            }
        })
    }

    fn push(&mut self, key: &str, value: f64, method: String, s: &[Sample]) {
        let base = self.base_value(key);
        let spread = s.iter().map(|x| x.spread_pct).fold(0.0, f64::max);
        let unstable = s.iter().any(|x| x.unstable);
        self.cal.entries.push(Measured { key: key.to_string(), value, base, method, spread_pct: spread, unstable });
    }

    /// Ticks per unit of a bench (no clock checks): the fastest of `reps` runs of one length,
    /// long enough (`target` ticks) that the call and the loop's ramp-up cost nothing, and
    /// the spread of the runs. One length, not the difference of two: a disturbed short run
    /// would make a difference read low as well as high, and the minimum of many would then
    /// pick the low ones (a neighbour or an interrupt only ever make a single run slower).
    fn raw(&mut self, b: &Bench, target: f64, reps: usize) -> Result<(f64, f64), BenchError> {
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
    fn chain_tpc(&mut self, op: ChainOp, target: f64, reps: usize) -> Result<(f64, f64), BenchError> {
        let (t, spread) = self.raw(&Bench::Chain { op }, target, reps)?;
        Ok((t / op.cycles(), spread))
    }

    /// Ticks per cycle now: a short add chain (also kept in the recent window).
    fn quick_tpc(&mut self) -> Result<f64, BenchError> {
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
    fn recent_tpc(&self) -> f64 {
        an::min(&self.recent)
    }

    /// Cycles per unit of a bench, with the clock measured before and after. Attempts
    /// (each: clock, repetitions at two lengths, clock) repeat until the two fastest agree
    /// within [`AGREE`] (at most [`ATTEMPTS`]); attempts whose clock moved are dropped. The
    /// result is the fastest attempt (nothing makes a loop faster than the core runs it;
    /// a busy neighbour on the same physical core, other processes or a clock change only
    /// slow it down); its spread is how far the second fastest is above it.
    fn measure(&mut self, b: &Bench) -> Result<Sample, BenchError> {
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
    fn try_measure(&mut self, b: &Bench) -> Result<Option<Sample>, CalibrateError> {
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

    fn clock(&mut self) -> Result<(), CalibrateError> {
        (self.progress)("clock", 0, 3);
        let hz = self.timer.tsc_hz();
        let (add, s_add) = self.chain_tpc(ChainOp::Add, 3.0e5, 15).map_err(fail)?;
        (self.progress)("clock", 1, 3);
        let (imul, s_imul) = self.chain_tpc(ChainOp::Imul, 3.0e5, 15).map_err(fail)?;
        let add2 = self.quick_tpc().map_err(fail)?;
        (self.progress)("clock", 2, 3);
        let (tpc, tpc_imul) = (add, imul);
        self.tpc = tpc;
        self.cal.clock = ClockInfo { tsc_ghz: hz / 1e9, core_ghz: hz / 1e9 / tpc, ticks_per_cycle_add: tpc, ticks_per_cycle_imul: tpc_imul, drift_pct: 0.0 };
        let ratio = tpc_imul / tpc;
        if (ratio - 1.0).abs() > 0.03 {
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

    fn clock_end(&mut self) -> Result<(), CalibrateError> {
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

    fn geometry(&self, plan: &Plan) -> (Option<u64>, Option<u64>, Option<u64>) {
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
    fn cache_name(&self, level: u8) -> String {
        self.base
            .params
            .caches
            .iter()
            .find(|c| c.level == level && c.kind != bottlenose_machine::CacheKind::Instruction)
            .map(|c| c.name.clone())
            .unwrap_or_else(|| if level == 1 { "L1D".into() } else { format!("L{level}") })
    }

    /// L1 integer and vector load-to-use (for forms-only plans, which need them).
    fn l1_latencies(&mut self, plan: &Plan) -> Result<(), CalibrateError> {
        let (l1, _, _) = self.geometry(plan);
        let size = round_size(l1.unwrap_or(32 << 10) / 2);
        let total = 3;
        (self.progress)("latency", 0, total);
        if let Some(s) = self.try_measure(&Bench::Chase { bytes: size, load: ChaseLoad::Int, huge: false })? {
            let m = format!("pointer chase `mov rax, [rax]` over a random cycle of 64-byte nodes in {}", bench::human_bytes(size));
            self.push("memory.integer_load_latency", s.cycles, m, &[s]);
        }
        (self.progress)("latency", 1, total);
        let vec = self.try_measure(&Bench::Chase { bytes: size, load: ChaseLoad::Vector, huge: false })?;
        (self.progress)("latency", 2, total);
        let rt = self.try_measure(&Bench::MovqRoundTrip)?;
        if let (Some(v), Some(r)) = (vec, rt) {
            let m = format!(
                "chase `movq xmm0, [rax]; movq rax, xmm0` over {} ({:.2} cycles) minus half a `movq xmm0, rax; movq rax, xmm0` round trip ({:.2})",
                bench::human_bytes(size),
                v.cycles,
                r.cycles
            );
            self.push("memory.load_latency", an::vector_load_latency(v.cycles, r.cycles), m, &[v, r]);
        }
        (self.progress)("latency", 3, total);
        Ok(())
    }

    /// Load-to-use per level. The chase is one cycle through every node of the buffer, so a
    /// node comes back only after all the others: an (LRU-like) inner level smaller than
    /// the buffer holds none of it any more, and the time per load is the level's own.
    fn latencies(&mut self, plan: &Plan) -> Result<(), CalibrateError> {
        let (_, l2, l3) = self.geometry(plan);
        self.l1_latencies(plan)?;
        let l1_name = self.cache_name(1);
        if let Some(v) = self.cal.get("memory.integer_load_latency").cloned() {
            let method = format!("= memory.integer_load_latency ({})", v.method);
            self.cal.entries.push(Measured { key: format!("cache.{l1_name}.latency"), base: self.base_value(&format!("cache.{l1_name}.latency")), method, ..v });
        }
        // (key, buffer, huge pages, what)
        let mut steps: Vec<(String, u64, bool, String)> = Vec::new();
        let l2_key = format!("cache.{}.latency", self.cache_name(2));
        let l3_key = format!("cache.{}.latency", self.cache_name(3));
        if let Some(l2) = l2 {
            // a quarter: an SMT sibling (another VM's, under KVM) shares the L2, and half the
            // L2 already misses on the development host then
            steps.push((l2_key.clone(), round_size(l2 / 4), true, "a quarter of the L2".into()));
        }
        if let Some(l3) = l3 {
            // 2 and 4 x L2 (at most half the L3), the smaller result wins: clear of the L2,
            // and small enough to stay in the part of a shared L3 that neighbours leave us
            // (on the KVM development host half the L3 is mostly DRAM)
            for k in [2, 4] {
                let size = round_size((l2.unwrap_or(l3 / 16) * k).min(l3 / 2));
                steps.push((format!("info.{l3_key}.{k}x_l2"), size, true, format!("{k} x L2")));
            }
        }
        let dram = dram_bytes(plan, l3);
        steps.push(("memory.dram_latency".into(), dram, true, "DRAM".into()));
        steps.push(("info.dram_latency_4k_pages".into(), dram, false, "DRAM, 4 KiB pages: includes DTLB/STLB misses and page walks".into()));
        let total = steps.len();
        for (i, (key, size, huge, what)) in steps.into_iter().enumerate() {
            (self.progress)("latency", i, total);
            if key == "memory.dram_latency" {
                // the L3 value (needed to correct the DRAM chase): the smaller of its chases
                let l3s: Vec<Measured> = self.cal.entries.iter().filter(|e| e.key.starts_with(&format!("info.{l3_key}."))).cloned().collect();
                if let Some(best) = l3s.iter().min_by(|a, b| a.value.total_cmp(&b.value)) {
                    let all: Vec<String> = l3s.iter().map(|e| format!("{:.1}", e.value)).collect();
                    let method = format!("smallest of the chases at 2 and 4 x L2 ({}): {}", all.join(", "), best.method);
                    self.cal.entries.push(Measured { key: l3_key.clone(), base: self.base_value(&l3_key), method, ..best.clone() });
                }
            }
            let b = Bench::Chase { bytes: size, load: ChaseLoad::Int, huge };
            let Some(s) = self.try_measure(&b)? else { continue };
            let mut m = format!(
                "pointer chase `mov rax, [rax]` over a random cycle of 64-byte nodes in {} ({what}), {}",
                bench::human_bytes(size),
                if huge { "MADV_HUGEPAGE" } else { "MADV_NOHUGEPAGE" }
            );
            if let Some(n) = self.timer.note(&b) {
                m += &format!(" ({n})");
            }
            if let Some(f) = self.timer.huge_pages(&b).filter(|&f| huge && f < 0.5 && size >= 4 << 20) {
                let note = format!(
                    "{key}: only {:.0} % of the buffer got huge pages (transparent huge pages off? see /sys/kernel/mm/transparent_hugepage/enabled): the value includes TLB misses",
                    f * 100.0
                );
                if !self.cal.notes.contains(&note) {
                    self.cal.notes.push(note);
                }
            }
            self.push(&key, s.cycles, m, &[s]);
        }
        if let (Some(h), Some(s)) = (self.cal.value("memory.dram_latency"), self.cal.value("info.dram_latency_4k_pages")) {
            self.push(
                "info.dram_tlb_miss_cycles",
                s - h,
                "DRAM chase with 4 KiB pages minus with huge pages: what translation adds per access (the model's DTLB + STLB miss latencies)".into(),
                &[],
            );
            // The model charges a 4 KiB access that misses both TLBs the DTLB's miss
            // latency (the STLB lookup) plus the STLB's (the walk): the walk is the rest.
            let tlbs = &self.base.params.tlbs;
            let dtlb = tlbs.iter().find(|t| t.kind == bottlenose_machine::CacheKind::Data);
            let stlb = tlbs.iter().find(|t| t.kind == bottlenose_machine::CacheKind::Unified);
            // the derived value is as shaky as the two chases it comes from
            let sources: Vec<(bool, f64)> = ["memory.dram_latency", "info.dram_latency_4k_pages"].iter().filter_map(|k| self.cal.get(k)).map(|e| (e.unstable, e.spread_pct)).collect();
            let shaky = sources.iter().any(|x| x.0);
            let spread = sources.iter().map(|x| x.1).fold(0.0, f64::max);
            if let (Some(d), Some(st)) = (dtlb, stlb) {
                let walk = (s - h - d.miss_latency).max(0.0);
                self.push(
                    &format!("tlb.{}.miss_latency", st.name),
                    walk,
                    format!(
                        "page walk of a random DRAM chase: {:.0} cycles per access with 4 KiB pages minus {:.0} with huge pages, minus the {}'s miss latency ({})",
                        s, h, d.name, d.miss_latency
                    ),
                    &[],
                );
                if let Some(e) = self.cal.entries.last_mut() {
                    e.unstable = shaky;
                    e.spread_pct = spread;
                }
            }
        }
        (self.progress)("latency", total, total);
        Ok(())
    }

    fn bandwidth(&mut self, plan: &Plan) -> Result<(), CalibrateError> {
        let (l1, l2, l3) = self.geometry(plan);
        let mut steps: Vec<(String, u64, u32)> = Vec::new();
        if let Some(l1) = l1 {
            steps.push((format!("cache.{}.bytes_per_cycle", self.cache_name(1)), round_size(l1 / 2), 2));
        }
        if let Some(l2) = l2 {
            steps.push((format!("cache.{}.bytes_per_cycle", self.cache_name(2)), round_size(l2 / 2), 2));
        }
        if let Some(l3) = l3 {
            steps.push((format!("cache.{}.bytes_per_cycle", self.cache_name(3)), round_size((l3 / 2).max(l2.unwrap_or(0) * 4)), 4));
        }
        steps.push(("memory.dram_bytes_per_cycle".into(), dram_bytes(plan, l3), 4));
        let total = steps.len();
        let width = if self.timer.features().avx { "32-byte vmovdqa" } else { "16-byte movdqa" };
        for (i, (key, size, streams)) in steps.into_iter().enumerate() {
            (self.progress)("bandwidth", i, total);
            let b = Bench::Stream { bytes: size, streams, huge: true };
            if let Some(s) = self.try_measure(&b)? {
                let m = format!("sequential read of {} with {width} loads over {streams} streams, huge pages", bench::human_bytes(size));
                self.push(&key, 1.0 / s.cycles, m, &[s]);
            }
        }
        (self.progress)("bandwidth", total, total);
        Ok(())
    }

    fn branches(&mut self) -> Result<(), CalibrateError> {
        (self.progress)("branches", 0, 3);
        let random = self.try_measure(&Bench::Branch { random: true })?;
        (self.progress)("branches", 1, 3);
        let periodic = self.try_measure(&Bench::Branch { random: false })?;
        (self.progress)("branches", 2, 3);
        let load = self.cal.value("memory.integer_load_latency").unwrap_or(4.0);
        if let (Some(r), Some(p)) = (random, periodic) {
            let resolution = load + 1.0;
            let (per_miss, penalty) = an::mispredict_penalty(r.cycles, p.cycles, 0.5, resolution);
            let m = format!(
                "`movzx eax, [p+k]; test; jz` over {} random bytes ({:.2} cycles/branch) vs a period-8 pattern with the same taken ratio ({:.2}): {per_miss:.1} cycles per mispredict (half of the random branches), minus the correct path's resolution of the next branch (load {load:.1} + test/jz 1)",
                bench::BRANCH_ARRAY,
                r.cycles,
                p.cycles
            );
            self.push("branch.mispredict_penalty", penalty, m, &[r, p]);
            self.push("info.mispredict_cycles", per_miss, "cycles per mispredicted branch, resolution included (see branch.mispredict_penalty)".into(), &[r, p]);
        }
        if let Some(t) = self.try_measure(&Bench::Taken)? {
            let fb = self.base.params.core.fetch_blocks_per_cycle;
            let floor = if fb > 0.0 { 1.0 / fb } else { 1.0 / self.base.params.core.dispatch_width.max(1.0) };
            let m = format!(
                "{} taken `jmp` in a row (the last the loop branch): {:.3} cycles per taken branch, minus the model's {floor:.2} per fetch block (core.fetch_blocks_per_cycle)",
                bench::TAKEN_BODY,
                t.cycles
            );
            self.push("branch.taken_bubble", (t.cycles - floor).max(0.0), m, &[t]);
            self.push("info.taken_branch_cycles", t.cycles, "cycles per taken jmp, back to back".into(), &[t]);
        }
        (self.progress)("branches", 3, 3);
        Ok(())
    }

    fn dispatch(&mut self) -> Result<(), CalibrateError> {
        let total = Mix::ALL.len();
        let mut best: Option<(f64, Mix, Sample)> = None;
        let mut all = Vec::new();
        for (i, mix) in Mix::ALL.into_iter().enumerate() {
            (self.progress)("dispatch", i, total);
            if let Some(s) = self.try_measure(&Bench::Dispatch { mix })? {
                let ipc = 1.0 / s.cycles;
                self.push(&format!("info.ipc.{}", mix.name()), ipc, format!("{} independent instructions + dec/jnz", bench::DISPATCH_BODY), &[s]);
                all.push(format!("{} {ipc:.2}", mix.name()));
                if mix.counts() && best.as_ref().is_none_or(|b| ipc > b.0) {
                    best = Some((ipc, mix, s));
                }
            }
        }
        if let Some((ipc, mix, s)) = best {
            let m = format!("peak IPC of independent 1-cycle instructions, best of the mixes ({}; nops not counted): {} at {ipc:.2}", all.join(", "), mix.name());
            self.push("core.dispatch_width", an::snap_width(ipc), m, &[s]);
        }
        (self.progress)("dispatch", total, total);
        Ok(())
    }

    /// Wong's tests: time per iteration against the number of fillers between two
    /// independent DRAM misses; a coarse sweep, then a fine one around the step. The ROB is
    /// swept with two fillers (nops, eliminated moves): one that meets another limit first
    /// (registers for moves that are not eliminated) steps earlier, so the larger step is
    /// the ROB, unless it is about twice the other (nops packed two per entry). On the Zen 4
    /// host nops show no step up to 2.7 x the ROB (they hold no entry of their own), so
    /// the moves give the ROB there.
    fn windows(&mut self) -> Result<(), CalibrateError> {
        let kinds = [WongKind::Rob, WongKind::RobMove, WongKind::Scheduler, WongKind::LoadBuffer, WongKind::StoreBuffer];
        let mut rob: Vec<Measured> = Vec::new();
        for (ki, kind) in kinds.into_iter().enumerate() {
            (self.progress)("window sizes", ki, kinds.len());
            match self.wong(kind)? {
                Some(m) if kind.key() == "core.rob" => rob.push(m),
                Some(m) => self.cal.entries.push(m),
                None => {}
            }
        }
        // Two steps: nops that pack two per entry would step at twice the ROB, so a step
        // about twice the other is that and the smaller is the ROB; otherwise the larger is
        // (the smaller met another limit first, e.g. registers for moves that are not eliminated)
        if !rob.is_empty() {
            rob.sort_by(|a, b| a.value.total_cmp(&b.value));
            let pick = if rob.len() == 2 && (1.8..=2.2).contains(&(rob[1].value / rob[0].value)) { 0 } else { rob.len() - 1 };
            let mut best = rob[pick].clone();
            if rob.len() == 2 {
                let other = &rob[1 - pick];
                best.method += &format!(" (the other filler stepped at {:.0}{})", other.value, if pick == 0 { ": nops pack two per entry" } else { "" });
            }
            self.cal.entries.push(best);
        }
        (self.progress)("window sizes", kinds.len(), kinds.len());
        Ok(())
    }

    /// One point of a Wong sweep: time at N fillers over time at none, timed beside it
    /// (DRAM latency on a shared host moves over seconds; the ratio does not).
    ///
    /// With both SMT threads of a physical core active (under KVM: our other vCPU or
    /// another guest's), Zen 4 splits the ROB and the store queue between them, and a sweep
    /// finds the halves while the sibling is busy; the two passes keep the smaller ratio
    /// per point, so a step seen with the core alone in either pass wins.
    /// The reference is timed before and after the point; when the two differ by more than
    /// 5 % the memory system changed under the point, which is timed again (three tries).
    fn wong_point(&mut self, kind: WongKind, n: u32) -> Result<Option<(f64, Sample)>, CalibrateError> {
        let reference = Bench::Wong { kind, fillers: 0 };
        let Some(mut r1) = self.try_measure(&reference)? else { return Ok(None) };
        let mut out = None;
        for _ in 0..3 {
            let Some(s) = self.try_measure(&Bench::Wong { kind, fillers: n })? else { return Ok(None) };
            let Some(r2) = self.try_measure(&reference)? else { return Ok(None) };
            let steady = (r1.cycles - r2.cycles).abs() <= 0.05 * r1.cycles.min(r2.cycles);
            let r = (r1.cycles + r2.cycles) / 2.0;
            let spread = r1.spread_pct.max(r2.spread_pct).max(s.spread_pct);
            out = Some((s.cycles / r, Sample { cycles: r, spread_pct: spread, unstable: r1.unstable || r2.unstable || s.unstable || !steady }));
            if steady {
                break;
            }
            r1 = r2;
        }
        Ok(out)
    }

    fn second_pass(&mut self, kind: WongKind, pts: &mut [(f64, f64)], samples: &mut Vec<Sample>) -> Result<(), CalibrateError> {
        for p in pts.iter_mut().rev() {
            if let Some((r, s)) = self.wong_point(kind, p.0 as u32)? {
                p.1 = p.1.min(r);
                samples.push(s);
            }
        }
        Ok(())
    }

    fn wong(&mut self, kind: WongKind) -> Result<Option<Measured>, CalibrateError> {
        let hint = self.base_value(kind.key()).unwrap_or(128.0);
        let n_max = ((2.0 * hint + 64.0) as u32).clamp(128, 1400);
        let coarse = (n_max / 40).max(4);
        let mut pts: Vec<(f64, f64)> = Vec::new();
        let mut samples = Vec::new();
        let mut above = 0;
        let mut n = 0;
        while n <= n_max {
            let Some((r, s)) = self.wong_point(kind, n)? else { break };
            pts.push((n as f64, r));
            samples.push(s);
            // stop the sweep once the curve has clearly doubled for a while
            above = if pts.len() > 3 && r > 1.6 { above + 1 } else { 0 };
            if above >= 4 {
                break;
            }
            n += coarse;
        }
        // a second pass, backwards, keeps the smaller ratio per point: a burst of DRAM
        // traffic from a neighbour that fakes a step must then hit the same points twice
        self.second_pass(kind, &mut pts, &mut samples)?;
        let Some(step) = an::find_step(&pts, 1.3) else {
            let m = format!("no step found up to N = {} with `{}` fillers", pts.last().map_or(0.0, |p| p.0), kind.filler());
            self.cal.notes.push(format!("{}: {m}", kind.key()));
            return Ok(None);
        };
        let fine = (coarse / 8).max(1);
        let lo = (step.crossing as u32).saturating_sub(coarse * 3 / 2);
        let hi = step.crossing as u32 + coarse * 3 / 2;
        let mut fine_pts = Vec::new();
        let mut x = lo;
        while x <= hi {
            if !pts.iter().any(|p| p.0 == x as f64) {
                if let Some((r, s)) = self.wong_point(kind, x)? {
                    fine_pts.push((x as f64, r));
                    samples.push(s);
                }
            }
            x += fine;
        }
        self.second_pass(kind, &mut fine_pts, &mut samples)?;
        pts.extend(fine_pts);
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let Some(step) = an::find_step(&pts, 1.3) else { return Ok(None) };
        let size = an::wong_size(&step, kind.extra_entries());
        // the median point's spread: single points are noisy on a shared host, and the
        // two passes (smaller ratio wins) are what keeps them from faking a step
        let spread = an::median(&samples.iter().map(|s| s.spread_pct).collect::<Vec<_>>());
        // the step must be sharp: more than 6 points between 25 % and 75 % of the rise are a
        // ramp (or noise that both passes saw): unstable
        let rise = step.high - step.low;
        let ramp = pts.iter().filter(|p| p.1 > step.low + 0.25 * rise && p.1 < step.low + 0.75 * rise).count();
        let unstable = ramp > 6;
        let m = format!(
            "Wong: two independent DRAM misses (huge pages) with N `{}` between them; time per iteration relative to N = 0 (timed beside each point, so changes in DRAM latency cancel) {:.2} -> {:.2} ({:.0} cycles at N = 0), crossing half-way at N = {:.1}; size = last N below the step + {} (sweep step {coarse}, then {fine}; {ramp} points on the ramp)",
            kind.filler(),
            step.low,
            step.high,
            samples.first().map_or(0.0, |s| s.cycles),
            step.crossing,
            kind.extra_entries()
        );
        let curve: Vec<String> = pts.iter().map(|p| format!("{:.0}:{:.2}", p.0, p.1)).collect();
        let m = format!("{m}; curve N:ratio {}", curve.join(" "));
        let base = self.base_value(kind.key());
        Ok(Some(Measured { key: kind.key().into(), value: size, base, method: m, spread_pct: spread, unstable }))
    }

    fn forms(&mut self, keys: &[String]) -> Result<(), CalibrateError> {
        let int_load = self.cal.value("memory.integer_load_latency");
        let fp_load = self.cal.value("memory.load_latency");
        for (i, key) in keys.iter().enumerate() {
            (self.progress)("forms", i, keys.len());
            self.check_stop()?;
            let base = self.base.form(key);
            let base_latency = base.map(|f| f.latency);
            let base_rthroughput = base.and_then(|f| forms::base_rthroughput(self.base, f));
            let parsed = match forms::parse(key) {
                Ok(p) => p,
                Err(why) => {
                    self.cal.forms.push(MeasuredForm { form: key.clone(), latency: None, rthroughput: None, base_latency, base_rthroughput, method: format!("skipped: {why}"), unstable: false });
                    continue;
                }
            };
            let mut method = Vec::new();
            let mut unstable = false;
            let tb = Bench::FormThroughput { form: key.clone() };
            let rthroughput = match self.measure(&tb) {
                Ok(s) => {
                    unstable |= s.unstable;
                    method.push(format!("throughput: {} independent copies", bench::FORM_BODY));
                    Some(s.cycles)
                }
                Err(e) => {
                    self.check_stop()?;
                    self.cal.forms.push(MeasuredForm { form: key.clone(), latency: None, rthroughput: None, base_latency, base_rthroughput, method: format!("skipped: {e}"), unstable: false });
                    continue;
                }
            };
            let load_lat = if forms::vector_dest(&parsed) { fp_load } else { int_load };
            let load_name = if forms::vector_dest(&parsed) { "memory.load_latency" } else { "memory.integer_load_latency" };
            let latency = match forms::chain_of(&parsed) {
                Ok(forms::Chain::LoadToUse) => {
                    method.push(format!("latency: the measured load-to-use ({load_name})"));
                    load_lat
                }
                Ok(chain) => match self.measure(&Bench::FormLatency { form: key.clone() }) {
                    Ok(s) => {
                        unstable |= s.unstable;
                        let copy = forms::latency_copy(&parsed, &chain, 0);
                        if forms::loads(&parsed) && chain != forms::Chain::Address {
                            method.push(format!("latency: chain `{copy}` ({:.2}, load off the chain) + {load_name}", s.cycles));
                            load_lat.map(|l| s.cycles + l)
                        } else {
                            method.push(format!("latency: chain `{copy}`"));
                            Some(s.cycles)
                        }
                    }
                    Err(e) => {
                        self.check_stop()?;
                        method.push(format!("latency not measured: {e}"));
                        None
                    }
                },
                Err(why) => {
                    method.push(format!("latency not measured: {why}"));
                    None
                }
            };
            self.cal.forms.push(MeasuredForm { form: key.clone(), latency, rthroughput, base_latency, base_rthroughput, method: method.join("; "), unstable });
        }
        (self.progress)("forms", keys.len(), keys.len());
        Ok(())
    }

    /// Palmed-style pairwise mixes among the measured forms: at most 16, those whose
    /// measured throughput contradicts the base model's (more than 10 % apart) first.
    fn conflicts(&mut self) -> Result<(), CalibrateError> {
        let mut measured: Vec<(String, f64, bool)> = self
            .cal
            .forms
            .iter()
            .filter_map(|f| {
                let t = f.rthroughput?;
                let off = f.base_rthroughput.is_none_or(|b| (t - b).abs() > 0.1 * b.max(t));
                Some((f.form.clone(), t, off))
            })
            .collect();
        measured.sort_by_key(|m| !m.2); // stable: contradicting first, table order otherwise
        let measured: Vec<(String, f64)> = measured.into_iter().take(16).map(|(f, t, _)| (f, t)).collect();
        let total = measured.len() * measured.len().saturating_sub(1) / 2;
        let mut done = 0;
        for i in 0..measured.len() {
            for j in i + 1..measured.len() {
                (self.progress)("port conflicts", done, total);
                done += 1;
                // the degree divides the extra time by the faster form's: with throughputs
                // far apart that is noise of the slower one (sqrtsd beside lea read 1.5)
                let (a, b) = (measured[i].1, measured[j].1);
                if a.min(b) < 0.25 * a.max(b) {
                    continue;
                }
                let b = Bench::FormPair { a: measured[i].0.clone(), b: measured[j].0.clone() };
                if let Some(s) = self.try_measure(&b)? {
                    let c = an::conflict(measured[i].1, measured[j].1, s.cycles);
                    self.cal.conflicts.push((measured[i].0.clone(), measured[j].0.clone(), (c * 100.0).round() / 100.0));
                }
            }
        }
        (self.progress)("port conflicts", total, total);
        Ok(())
    }
}

/// The DRAM buffer: the plan's size, at least 8 x L3 (so at most 1/8 of a chase hits the
/// L3), at most 1 GiB.
fn dram_bytes(plan: &Plan, l3: Option<u64>) -> u64 {
    round_size(plan.dram_bytes.max(l3.unwrap_or(0) * 8).min(1 << 30))
}

/// Buffer sizes: a multiple of 16 KiB (the stream loops need multiples of 256 bytes per stream).
fn round_size(b: u64) -> u64 {
    (b / (16 << 10)).max(1) * (16 << 10)
}
