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
//!   (nops excluded: Zen 4 runs 12 per cycle), snapped to an integer within 0.15;
//!   `core.commit_width` is raised to it where the base retires fewer per cycle.
//! - `memory.store_forward_latency`: cycles per round of `mov rax, [rdi+520]; add rax, r13;
//!   mov [rcx+528], rax` (rcx = rdi - 8: the same quadword named another way) minus the add
//!   and the cycle the model takes to write the store's data.
//! - `memory.memory_renaming` (1 or 0) and `memory.renamed_forward_latency`: the same chain
//!   storing to `[rdi+520]`, the load's own address expression, clearly faster (Zen 2 and
//!   later rename such a load to the stored register): its round minus the add. Where the
//!   first chain already runs at the add's pace (Zen 5: the load is renamed whatever the
//!   store's naming), that is renaming, and no forwarding latency is written.
//! - `core.icache_misses_in_flight`: cycles per 64-byte line of straight-line 8-byte nops
//!   4 x L1I long (streamed from L2), as (L2 latency - L1I latency) / cycles per line, the
//!   way the model delivers a sequential icache miss stream; written only with the L2
//!   latency it was computed with ([`Measured::depends_on`]).
//! - forms `div`/`idiv r32`/`r64`: fixed operands (a 43-bit / 20-bit quotient; divide
//!   timing depends on the values), the latency chain closed by an `or` that is subtracted
//!   (see the `divide` module).
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
pub mod derive;
mod divide;
mod engine;
pub mod forms;
mod passes;
mod steps;
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
pub use passes::combine_passes;
pub use synthetic::{SyntheticTimer, TrueMachine};

use analysis as an;
use engine::Engine;
use bottlenose_machine::Machine;
use serde::Serialize;
use std::sync::atomic::AtomicBool;

/// Cache sizes in bytes (from CPUID, passed in by the CLI); a missing one is taken from the
/// base machine's `[[cache]]` of the same level.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CacheGeometry {
    pub l1d_bytes: Option<u64>,
    pub l1i_bytes: Option<u64>,
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
    /// Only these steps of the standard set (`latency`, `bandwidth`, `forwarding`,
    /// `frontend`, `branches`, `dispatch`, `windows`); empty: all.
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
    /// Keys of measured values this one is derived from with: it holds only together with
    /// them (written only where they are).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<String>,
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

    /// Marks unstable every value derived from one that is unstable or was not measured
    /// (see [`Measured::depends_on`]), saying which.
    pub fn settle_dependencies(&mut self) {
        let shaky: Vec<String> = self
            .entries
            .iter()
            .flat_map(|e| e.depends_on.iter())
            .filter(|k| self.get(k).is_none_or(|d| d.unstable))
            .cloned()
            .collect();
        for e in self.entries.iter_mut().filter(|e| !e.unstable) {
            if let Some(k) = e.depends_on.iter().find(|k| shaky.contains(k)) {
                e.unstable = true;
                e.method.push_str(&format!("; left out with {k}, which is unstable or not measured"));
            }
        }
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
        e.cal.entries.retain(|m| WongKind::ALL.iter().any(|k| k.key() == m.key));
        if plan.runs("latency") {
            e.latencies(plan)?;
        } else {
            e.l1_latencies(plan)?;
        }
        if plan.runs("bandwidth") {
            e.bandwidth(plan)?;
        }
        if plan.runs("forwarding") {
            e.forwarding()?;
        }
        if plan.runs("frontend") {
            e.frontend(plan)?;
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
    e.cal.settle_dependencies();
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
