//! The out-of-order core: Gus's instruction-driven Algorithm 1 with per-cycle
//! calendars for the throughput resources.
//!
//! Each instruction goes through, in program order and in constant work:
//! 1. dispatch ([`dispatch`], with the frontend's delivery in [`fetch`]): the first
//!    cycle with a dispatch slot and room in the ROB, scheduler and load/store
//!    buffers (and, in dynamic runs, once the frontend has delivered it);
//! 2. issue ([`issue`], the memory parts in [`memory`]): each part (load, compute,
//!    store address, store data) starts at the earliest cycle >= its operands'
//!    ready time where all its resources have capacity (shadow register file,
//!    perfect renaming; shadow memory for store-to-load dependencies);
//! 3. complete: issue + latency;
//! 4. commit ([`commit`]): in order, at most `commit_width` per cycle, no earlier
//!    than the cycle in which the instruction completes.
//!
//! Each stage also records which constraint was binding ([`StageTimes`]); the
//! detailed step adds what the accounting views need ([`StageDetails`], with the
//! latency classes of [`classes`]).

use crate::calendar::Calendar;
use crate::ports::PortCalendars;
use crate::config::CoreConfig;
use crate::events::{DynInfo, LatencyClass, StageDetails, StageTimes};
use crate::prefetched::PrefetchedLines;
use crate::resolve::InstrTiming;
use crate::shadow::ShadowMemory;
use crate::thinning::Thinning;
use crate::window::{FifoWindow, Scheduler};
use bottlenose_decode::NUM_REGS;

mod classes;
mod commit;
mod dispatch;
mod fetch;
mod issue;
mod memory;
mod string_op;

const EPS: f64 = 1e-9;

/// Per-register state is kept for every `u8` register id (`NUM_REGS` are used): an
/// index by a `RegId` then needs no bounds check on the hot path.
const REG_SLOTS: usize = 256;
const _: () = assert!(NUM_REGS <= REG_SLOTS);

/// max of two times; times are never NaN, so no NaN handling (f64::max's showed in profiles).
#[inline(always)]
fn fmax(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

#[derive(Clone)]
pub struct Core {
    cfg: CoreConfig,
    /// The port groups' calendars.
    ports: PortCalendars,
    dispatch_next: f64,
    commit_next: f64,
    last_dispatch: f64,
    last_commit: f64,
    /// Current dispatch cycle: no uop can be booked before it.
    base: i64,
    rob: FifoWindow,
    load_buffer: FifoWindow,
    store_buffer: FifoWindow,
    store_drain: f64,
    scheduler: Scheduler,
    reg_ready: [f64; REG_SLOTS],
    /// When each register is ready for a chained FMA's accumulator (earlier than
    /// `reg_ready` when an FMA with late forwarding wrote it).
    acc_ready: [f64; REG_SLOTS],
    /// For the accounting views only (no effect on timing): the latency class of
    /// each register's last writer and from when its result is late because of it.
    reg_class: [LatencyClass; REG_SLOTS],
    reg_penalty: [f64; REG_SLOTS],
    memory: ShadowMemory,
    prefetched: PrefetchedLines,
    resteer_at: f64,
    /// Until when the frontend sequences an older string instruction's microcode:
    /// nothing younger dispatches before.
    microcode_until: f64,
    /// When the last string instruction completes: the next one starts after it.
    string_until: f64,
    /// Earliest slot time of the next fetch block (machine `fetch_blocks_per_cycle`).
    fetch_next: f64,
    /// When the last missing instruction line arrived (the head of a miss stream).
    fetch_line_ready: f64,
    /// Line-fill bandwidth calendars (index 1 = into L1 from L2, 2 = into L2 from L3, 3 = from DRAM).
    fills: [Calendar; 4],
    /// Write-back paths of their own (into L2, into L3), where the machine has them.
    writeback_paths: [Calendar; 2],
    /// The share of miss events this variant times as not happening (rate knobs).
    thinning: Option<Thinning>,
}

impl Core {
    pub fn new(cfg: CoreConfig) -> Self {
        let fill_rates = cfg.fill_lines_per_cycle;
        let writeback_paths = cfg.writeback_lines_per_cycle.map(|r| Calendar::new(r.unwrap_or(f64::INFINITY)));
        let ports = PortCalendars::new(&cfg.group_capacity);
        let thinning = Thinning::from_weights(cfg.rate_weights);
        Self {
            thinning,
            rob: FifoWindow::new(cfg.rob),
            load_buffer: FifoWindow::new(cfg.load_buffer),
            store_buffer: FifoWindow::new(cfg.store_buffer),
            scheduler: Scheduler::new(cfg.scheduler),
            ports,
            cfg,
            dispatch_next: 0.0,
            commit_next: 0.0,
            last_dispatch: 0.0,
            last_commit: -1.0,
            base: 0,
            store_drain: 0.0,
            reg_ready: [0.0; REG_SLOTS],
            acc_ready: [0.0; REG_SLOTS],
            reg_class: [LatencyClass::Short; REG_SLOTS],
            reg_penalty: [0.0; REG_SLOTS],
            memory: ShadowMemory::new(),
            prefetched: PrefetchedLines::new(),
            resteer_at: 0.0,
            microcode_until: 0.0,
            string_until: 0.0,
            fetch_next: 0.0,
            fetch_line_ready: 0.0,
            fills: [
                Calendar::new(f64::INFINITY),
                Calendar::new(cfg_fill(&fill_rates, 1)),
                Calendar::new(cfg_fill(&fill_rates, 2)),
                Calendar::new(cfg_fill(&fill_rates, 3)),
            ],
            writeback_paths,
        }
    }

    pub fn config(&self) -> &CoreConfig {
        &self.cfg
    }

    /// A copy of this core's state that continues under another configuration:
    /// what a variant that had behaved identically so far would hold (sampled
    /// sensitivity starts its variants this way at each sampling window).
    pub fn fork(&self, cfg: CoreConfig) -> Core {
        let mut c = self.clone();
        c.memory.begin_fork(None);
        c.reconfigure(cfg);
        c
    }

    /// [`Core::fork`] of this core into `into`, under `into`'s configuration: a
    /// variant forked at every unit keeps its shadow memory's overlay from fork to
    /// fork instead of a table of its own (see [`ShadowMemory`]).
    ///
    /// `into` becomes a copy of this core's state in the memory it already holds
    /// (a hundred variants fork at every unit: a clone allocated and freed every
    /// ring of every one), keeps its configuration, and redoes only what that
    /// configuration changes.
    pub fn fork_into(&self, into: &mut Core) {
        let overlay = into.memory.take_overlay();
        into.copy_state_from(self);
        into.memory.begin_fork(overlay);
        into.apply_config_over(&self.cfg);
    }

    /// Every field of `src` but the configuration, copied into this core's memory.
    fn copy_state_from(&mut self, src: &Core) {
        // every field named: a new one does not compile until it is copied here (or left out on purpose)
        let Core {
            cfg: _,
            ports,
            dispatch_next,
            commit_next,
            last_dispatch,
            last_commit,
            base,
            rob,
            load_buffer,
            store_buffer,
            store_drain,
            scheduler,
            reg_ready,
            acc_ready,
            reg_class,
            reg_penalty,
            memory,
            prefetched,
            resteer_at,
            microcode_until,
            string_until,
            fetch_next,
            fetch_line_ready,
            fills,
            writeback_paths,
            thinning: _,
        } = src;
        self.ports.copy_from(ports);
        (self.dispatch_next, self.commit_next, self.last_dispatch, self.last_commit, self.base) = (*dispatch_next, *commit_next, *last_dispatch, *last_commit, *base);
        self.rob.copy_from(rob);
        self.load_buffer.copy_from(load_buffer);
        self.store_buffer.copy_from(store_buffer);
        self.store_drain = *store_drain;
        self.scheduler.copy_from(scheduler);
        self.reg_ready = *reg_ready;
        self.acc_ready = *acc_ready;
        self.reg_class = *reg_class;
        self.reg_penalty = *reg_penalty;
        self.memory = memory.clone();
        self.prefetched.copy_from(prefetched);
        (self.resteer_at, self.microcode_until, self.string_until, self.fetch_next, self.fetch_line_ready) =
            (*resteer_at, *microcode_until, *string_until, *fetch_next, *fetch_line_ready);
        for (d, s) in self.fills.iter_mut().zip(fills) {
            d.copy_from(s);
        }
        for (d, s) in self.writeback_paths.iter_mut().zip(writeback_paths) {
            d.copy_from(s);
        }
    }

    /// State built under `from`, now under this core's own configuration: the
    /// capacities and sizes that differ. What the two agree on is left as it is (an
    /// unchanged calendar's bookings and its record of full cycles still hold).
    fn apply_config_over(&mut self, from: &CoreConfig) {
        let cfg = &self.cfg;
        if cfg.group_capacity != from.group_capacity {
            self.ports.set_capacities(&cfg.group_capacity, self.base);
        }
        for (l, fill) in self.fills.iter_mut().enumerate().skip(1) {
            let cap = cfg_fill(&cfg.fill_lines_per_cycle, l);
            if cap != cfg_fill(&from.fill_lines_per_cycle, l) {
                fill.set_capacity(cap);
            }
        }
        for ((path, rate), was) in self.writeback_paths.iter_mut().zip(cfg.writeback_lines_per_cycle).zip(from.writeback_lines_per_cycle) {
            if rate != was {
                path.set_capacity(rate.unwrap_or(f64::INFINITY));
            }
        }
        self.rob.set_size(cfg.rob);
        self.scheduler.set_size(cfg.scheduler);
        self.load_buffer.set_size(cfg.load_buffer);
        self.store_buffer.set_size(cfg.store_buffer);
        self.thinning = Thinning::from_weights(cfg.rate_weights);
    }

    /// The same state under `cfg`: the capacities and sizes it changes.
    fn reconfigure(&mut self, cfg: CoreConfig) {
        let from = std::mem::replace(&mut self.cfg, cfg);
        self.apply_config_over(&from);
    }

    /// Cycles elapsed so far: up to and including the last commit cycle.
    pub fn cycles(&self) -> f64 {
        self.last_commit + 1.0
    }

    /// Times one executed instruction: returns its stage times and writes the
    /// details the accounting views read into `details` (the caller's buffer:
    /// the listener then reads both where they were written, no copy).
    #[inline]
    pub fn step(&mut self, it: &InstrTiming, dy: &DynInfo, details: &mut StageDetails) -> StageTimes {
        self.step_impl::<true>(it, dy, Some(details))
    }

    /// Times one executed instruction: its stage times only. Same timing as
    /// [`Core::step`], less work: for variants nobody listens to in detail.
    #[inline]
    pub fn step_fast(&mut self, it: &InstrTiming, dy: &DynInfo) -> StageTimes {
        self.step_impl::<false>(it, dy, None)
    }

    /// The step; with `DETAILS` (and only then) `details_out` is given and filled.
    #[inline(always)]
    fn step_impl<const DETAILS: bool>(&mut self, it: &InstrTiming, dy: &DynInfo, details_out: Option<&mut StageDetails>) -> StageTimes {
        let thinned;
        let dy = match &mut self.thinning {
            Some(t) => {
                thinned = t.apply(dy);
                &thinned
            }
            None => dy,
        };
        let d = self.dispatch::<DETAILS>(it, dy);
        let x = self.issue::<DETAILS>(it, dy, d.dispatch);
        let c = self.commit(it, dy, d.dispatch, x.complete);

        if let (true, Some(out)) = (DETAILS, details_out) {
            *out = StageDetails {
                slot: d.slot,
                resteer: d.resteer,
                fetch_stall: (d.fetched - d.resteer).max(0.0) as f32,
                // fetch-block limits (taken branches, window crossings) and taken-branch bubbles are
                // branch handling, not instruction-cache misses: the views charge them with the BTB part
                btb_stall: (dy.btb_stall as f64 + d.block_stall).min(d.fetched - d.resteer).max(0.0) as f32,
                fetch_block_stall: d.block_stall as f32,
                load_level: if it.loads { x.load_level } else { 0 },
                self_class: x.self_class,
                wait_class: x.wait_class,
                load_start: x.load_start,
                load_done: x.load_done,
                operands: x.wait_on,
                wait_from: x.wait_from,
                penalty_from: x.penalty_from,
                commit_slot: c.slot,
                wrong_path: d.wrong_path,
            };
        }
        StageTimes {
            dispatch: d.dispatch,
            issue: x.issue,
            ready: x.ready,
            complete: x.complete,
            commit: c.commit,
            dispatch_cause: d.cause,
            issue_cause: x.cause,
            commit_cause: c.cause,
            mispredicted: dy.mispredicted,
        }
    }
}

fn cfg_fill(rates: &[f64; 4], level: usize) -> f64 {
    if rates[level].is_finite() {
        rates[level]
    } else {
        1e9
    }
}
