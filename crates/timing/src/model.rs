//! The out-of-order core: Gus's instruction-driven Algorithm 1 with per-cycle
//! calendars for the throughput resources.
//!
//! Each instruction goes through, in program order and in constant work:
//! 1. dispatch: the first cycle with a dispatch slot and room in the ROB,
//!    scheduler and load/store buffers (and, in dynamic runs, once the frontend
//!    has delivered it);
//! 2. issue: each part (load, compute, store address, store data) starts at the
//!    earliest cycle >= its operands' ready time where all its resources have
//!    capacity (shadow register file, perfect renaming; shadow memory for
//!    store-to-load dependencies);
//! 3. complete: issue + latency;
//! 4. commit: in order, at most `commit_width` per cycle, no earlier than the
//!    cycle in which the instruction completes.
//! Each stage also records which constraint was binding.

use crate::calendar::{ceil_pos, floor_pos, Calendar};
use crate::config::CoreConfig;
use crate::events::{CommitCause, DispatchCause, DynInfo, IssueCause, LatencyClass, LineEvents, StageDetails, StageTimes};
use crate::resolve::{InstrTiming, Use};
use crate::prefetched::PrefetchedLines;
use crate::thinning::Thinning;
use crate::shadow::{short_key, ShadowMemory};
use crate::window::{FifoWindow, Scheduler};
use bottlenose_decode::{BranchKind, NUM_REGS};
use bottlenose_machine::GroupId;

mod string_op;

/// A store's data is written one cycle after its address and data uops have issued.
const STORE_WRITE_CYCLES: f64 = 1.0;
/// Latency of a pre/post-index base update after its address (an integer add beside
/// the access: 1 cycle on the Neoverse cores, SWOG "writeback" rows).
const WRITEBACK_CYCLES: f64 = 1.0;

const EPS: f64 = 1e-9;

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
    calendars: Vec<Calendar>,
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
    reg_ready: [f64; NUM_REGS],
    /// When each register is ready for a chained FMA's accumulator (earlier than
    /// `reg_ready` when an FMA with late forwarding wrote it).
    acc_ready: [f64; NUM_REGS],
    /// For the accounting views only (no effect on timing): the latency class of
    /// each register's last writer and from when its result is late because of it.
    reg_class: [LatencyClass; NUM_REGS],
    reg_penalty: [f64; NUM_REGS],
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
        let calendars = cfg.group_capacity.iter().map(|&c| Calendar::new(c)).collect();
        let thinning = Thinning::from_weights(cfg.rate_weights);
        Self {
            thinning,
            rob: FifoWindow::new(cfg.rob),
            load_buffer: FifoWindow::new(cfg.load_buffer),
            store_buffer: FifoWindow::new(cfg.store_buffer),
            scheduler: Scheduler::new(cfg.scheduler),
            calendars,
            cfg,
            dispatch_next: 0.0,
            commit_next: 0.0,
            last_dispatch: 0.0,
            last_commit: -1.0,
            base: 0,
            store_drain: 0.0,
            reg_ready: [0.0; NUM_REGS],
            acc_ready: [0.0; NUM_REGS],
            reg_class: [LatencyClass::Short; NUM_REGS],
            reg_penalty: [0.0; NUM_REGS],
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
        for (cal, &cap) in c.calendars.iter_mut().zip(&cfg.group_capacity) {
            cal.set_capacity(cap);
        }
        for (l, fill) in c.fills.iter_mut().enumerate().skip(1) {
            fill.set_capacity(cfg_fill(&cfg.fill_lines_per_cycle, l));
        }
        for (path, rate) in c.writeback_paths.iter_mut().zip(cfg.writeback_lines_per_cycle) {
            path.set_capacity(rate.unwrap_or(f64::INFINITY));
        }
        c.rob.set_size(cfg.rob);
        c.scheduler.set_size(cfg.scheduler);
        c.load_buffer.set_size(cfg.load_buffer);
        c.store_buffer.set_size(cfg.store_buffer);
        c.thinning = Thinning::from_weights(cfg.rate_weights);
        c.cfg = cfg;
        c
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
    fn step_impl<const DETAILS: bool>(&mut self, it: &InstrTiming, dy: &DynInfo, details_out: Option<&mut StageDetails>) -> StageTimes {
        let thinned;
        let dy = match &mut self.thinning {
            Some(t) => {
                thinned = t.apply(dy);
                &thinned
            }
            None => dy,
        };
        let scale = self.cfg.latency_scale;

        // ---- dispatch -------------------------------------------------------------
        let mut t = self.dispatch_next;
        let mut dispatch_cause = DispatchCause::Width;
        let mut wrong_path = 0.0;
        if self.resteer_at > t {
            if DETAILS {
                // before dispatch frees the ROB up to the resteer
                let resolve = fmax(self.resteer_at - self.cfg.mispredict_penalty, t);
                wrong_path = self.wrong_path_cycles(t, resolve);
            }
            t = self.resteer_at;
            dispatch_cause = DispatchCause::Mispredict;
        }
        let resteer = t;
        let (fetched, block_stall) = self.fetch(t, dy);
        if fetched > t {
            t = fetched;
            dispatch_cause = DispatchCause::Fetch;
        }
        if self.microcode_until > t {
            t = self.microcode_until;
            dispatch_cause = DispatchCause::Microcode;
        }
        // One pass is a fixed point: a window with room at t has room at any later
        // time (entries only free as time passes), so a later constraint that moves
        // t never invalidates an earlier one. The cause is the last one that moved t.
        let r = self.rob.earliest(t, it.fused_uops);
        if r > t {
            t = r;
            dispatch_cause = DispatchCause::Rob;
        }
        let s = self.scheduler.earliest(t, it.unfused_uops);
        if s > t {
            t = s;
            dispatch_cause = DispatchCause::Scheduler;
        }
        if it.loads {
            let l = self.load_buffer.earliest(t, 1);
            if l > t {
                t = l;
                dispatch_cause = DispatchCause::LoadBuffer;
            }
        }
        if it.stores {
            let s = self.store_buffer.earliest(t, 1);
            if s > t {
                t = s;
                dispatch_cause = DispatchCause::StoreBuffer;
            }
        }
        let gap = self.cfg.dispatch_gap;
        let dispatch = if it.fused_uops == 0 && t == self.dispatch_next {
            self.last_dispatch // fused into the previous instruction's slot
        } else {
            floor_pos(t + (it.fused_uops.max(1) - 1) as f64 * gap + EPS)
        };
        self.dispatch_next = t + it.fused_uops as f64 * gap;
        self.last_dispatch = dispatch;
        self.base = dispatch as i64;

        let slot = t;

        // ---- issue and execute ------------------------------------------------------
        let op_latency = if self.cfg.unit_alu_latency { it.op_latency.min(1.0) } else { it.op_latency };
        let details = DETAILS;
        let (addr_max, addr_src) = if details { self.max_ready_src(&it.addr_reads) } else { (self.max_ready(&it.addr_reads), u8::MAX) };
        let (data_max, data_src) = match it.accumulator {
            None if details => self.max_ready_src(&it.data_reads),
            None => (self.max_ready(&it.data_reads), u8::MAX),
            Some(acc) => self.max_ready_accumulating(&it.data_reads, acc),
        };
        let addr_ready = fmax(addr_max, dispatch);
        let data_ready = fmax(data_max, dispatch);
        let mut load_waited_memory = false;
        let mut miss = false;
        // the level the load's data came from: a hit on a line still on its way
        // (a late prefetch) counts as a miss at the level the line comes from
        let mut load_level = dy.load_level;
        let (load_start, load_done, load_port) = if it.loads {
            // a load spanning two lines takes the load pipes twice (or as the machine says)
            let slots = if dy.lines.load_split() { 1.0 + self.cfg.split_load_extra } else { 1.0 };
            let (s, port) = self.place_n(&it.load_uses, addr_ready, slots);
            let mut done = s + it.load_latency * scale + dy.load_extra_latency as f64;
            if dy.load_level > 0 {
                let level = (dy.load_level as usize).min(3);
                let filled = self.fill_line(level, s);
                done = fmax(done, filled + it.load_latency * scale) + self.cfg.level_extra_latency[level];
                miss = true;
            } else if let Some(a) = dy.load_addr {
                if let Some((arrives, level)) = self.prefetched.arrival(a.get() >> self.cfg.line_shift) {
                    if arrives > s {
                        done = fmax(done, arrives + it.load_latency * scale);
                        miss = true;
                        load_level = level;
                    }
                }
            }
            if let Some(a) = dy.load_addr {
                if let Some((st, key)) = self.memory.ready(a.get()) {
                    match self.cfg.renamed_forward_latency {
                        // memory renaming: the load is renamed to the store's data register,
                        // so its consumers see that data when it is ready (not when the
                        // store writes it) and can even beat an L1 hit
                        Some(lat) if it.mem_key != 0 && key == short_key(it.mem_key) && !miss => {
                            done = fmax(st - STORE_WRITE_CYCLES + lat * scale, addr_ready);
                            load_waited_memory = true;
                        }
                        _ => {
                            let fwd = st + self.cfg.store_forward_latency * scale;
                            if fwd > done {
                                done = fwd;
                                load_waited_memory = true;
                            }
                        }
                    }
                }
            }
            (s, done, port)
        } else {
            (dispatch, dispatch, None)
        };
        // the dirty lines its fills evicted take the links' bandwidth as they leave
        // (a store's at commit, with its write-allocate fill, below)
        if dy.lines.has_writebacks() && !(it.stores && !it.loads) {
            self.book_writebacks(dy.lines, if it.loads { load_start } else { dispatch });
        }
        // a prefetch this instruction's access started leaves with the access
        if let (Some(line), 1..) = (dy.prefetch_line, dy.prefetch_level) {
            self.book_prefetch(line.get(), dy.prefetch_level, load_start);
            if dy.prefetch_next_lines != 0 {
                let next = line.get().wrapping_add_signed((dy.prefetch_next_lines as i64) << self.cfg.line_shift);
                self.book_prefetch(next, dy.prefetch_level, load_start);
            }
        }
        let operands = if it.loads { fmax(data_ready, load_done) } else { data_ready };
        let mut string_class = None;
        let (issue, ready, issue_cause) = if let Some(s) = &it.string {
            let done = self.execute_string(s, dy, fmax(operands, addr_ready));
            string_class = Some(done.class);
            (done.start, done.end, done.cause)
        } else if !it.compute_uses.is_empty() {
            let (s, port) = self.place(&it.compute_uses, operands);
            let cause = match port {
                Some(g) if s > operands + EPS => IssueCause::Port(g),
                _ if operands > dispatch + EPS => {
                    if it.loads && load_done >= data_ready {
                        if load_waited_memory { IssueCause::Memory } else if miss { IssueCause::CacheMiss } else { IssueCause::Load }
                    } else {
                        IssueCause::Register
                    }
                }
                _ => IssueCause::Dispatch,
            };
            (s, s + op_latency * scale, cause)
        } else if it.loads {
            let cause = match load_port {
                Some(g) if load_start > addr_ready + EPS => IssueCause::Port(g),
                _ if load_waited_memory => IssueCause::Memory,
                _ if miss => IssueCause::CacheMiss,
                _ if addr_ready > dispatch + EPS => IssueCause::Register,
                _ => IssueCause::Dispatch,
            };
            (load_start, load_done, cause)
        } else if it.eliminated {
            let cause = if data_ready > dispatch + EPS { IssueCause::Register } else { IssueCause::Dispatch };
            (dispatch, data_ready, cause)
        } else {
            // no resources at all (e.g. nop, or a store whose parts follow)
            (operands, operands + op_latency * scale, IssueCause::Dispatch)
        };

        // ---- what the accounting views need (no effect on timing) -----------------
        // the critical uop's operands: its own load, or the latest register
        let (wait_on, src) = if it.compute_uses.is_empty() && it.loads {
            (addr_ready, addr_src)
        } else {
            (operands, data_src)
        };
        let (mut self_class, mut penalty_from, wait_class, wait_from) = if details {
            self.latency_classes(it, dy, load_level, scale, op_latency, load_start, load_done, issue, ready, miss, load_waited_memory, data_ready, dispatch, wait_on, src)
        } else {
            (LatencyClass::Short, 0.0, LatencyClass::Short, 0.0)
        };
        if let (Some(class), true) = (string_class, details) {
            // a string instruction's result is late for all its duration: the bulk of
            // the work (or the line fills) is its penalty
            self_class = class;
            penalty_from = issue;
        }
        let mut complete = ready;
        let mut store_address = addr_ready;
        if it.stores {
            let (sa, _) = self.place(&it.store_address_uses, addr_ready);
            store_address = sa;
            let data = if it.compute_uses.is_empty() && !it.loads { data_ready } else { ready };
            let slots = if dy.lines.store_split() { 1.0 + self.cfg.split_store_extra } else { 1.0 };
            let (sd, _) = self.place_n(&it.store_data_uses, data, slots);
            let written = fmax(sa, sd) + STORE_WRITE_CYCLES;
            complete = fmax(complete, written);
            if let Some(a) = dy.store_addr {
                self.memory.write(a.get(), written, it.mem_key);
            }
        }
        // a chained FMA may take this one's result as its accumulator early
        let acc_at = if it.accumulate_latency > 0.0 { ready.min(issue + it.accumulate_latency * scale) } else { ready };
        for &w in &it.writes {
            self.reg_ready[w as usize] = ready;
            self.acc_ready[w as usize] = acc_at;
        }
        if !it.address_writes.is_empty() {
            let address = if it.loads { load_start } else { store_address };
            let (update, _) = self.place(&it.writeback_uses, addr_ready);
            let base_ready = fmax(address, update) + WRITEBACK_CYCLES * scale;
            for &w in &it.address_writes {
                self.reg_ready[w as usize] = base_ready;
                self.acc_ready[w as usize] = base_ready;
            }
        }
        if details {
            for &w in &it.writes {
                self.reg_class[w as usize] = self_class;
                self.reg_penalty[w as usize] = penalty_from;
            }
        }
        if dy.mispredicted && it.branch != BranchKind::None {
            self.resteer_at = fmax(self.resteer_at, ready + self.cfg.mispredict_penalty);
        }

        // ---- commit ---------------------------------------------------------------
        let earliest = fmax(ceil_pos(complete - EPS) - 1.0, dispatch);
        let cgap = self.cfg.commit_gap;
        let (commit, commit_cause, commit_slot) = if it.fused_uops == 0 {
            let c = fmax(earliest, self.last_commit);
            (c, if earliest >= self.last_commit { CommitCause::Complete } else { CommitCause::InOrder }, c)
        } else {
            let start = fmax(self.commit_next, earliest);
            let c = floor_pos(start + (it.fused_uops - 1) as f64 * cgap + EPS);
            self.commit_next = start + it.fused_uops as f64 * cgap;
            let cause = if earliest + EPS >= self.commit_next - it.fused_uops as f64 * cgap {
                CommitCause::Complete
            } else if c > self.last_commit && earliest < self.last_commit + EPS {
                CommitCause::Width
            } else {
                CommitCause::InOrder
            };
            (c, cause, start)
        };
        self.last_commit = fmax(self.last_commit, commit);
        self.rob.push(commit + 1.0, it.fused_uops);
        if it.loads {
            self.load_buffer.push(commit + 1.0, 1);
        }
        if it.stores {
            let writes = if dy.lines.store_split() { 1.0 + self.cfg.split_store_extra } else { 1.0 };
            self.store_drain = fmax(self.store_drain + self.cfg.store_drain_gap * writes, commit + 1.0);
            if dy.store_level > 0 {
                // write-allocate: the line must arrive before the store can drain
                let level = (dy.store_level as usize).min(3);
                let filled = self.fill_line(level, commit);
                self.store_drain = fmax(self.store_drain, filled + self.cfg.level_extra_latency[level]);
            }
            if !it.loads && dy.lines.has_writebacks() {
                self.book_writebacks(dy.lines, commit);
            }
            self.store_buffer.push(self.store_drain, 1);
        }

        if let (true, Some(out)) = (DETAILS, details_out) {
            *out = StageDetails {
                slot,
                resteer,
                fetch_stall: (fetched - resteer).max(0.0) as f32,
                // fetch-block limits (taken branches, window crossings) and taken-branch bubbles are
                // branch handling, not instruction-cache misses: the views charge them with the BTB part
                btb_stall: (dy.btb_stall as f64 + block_stall).min(fetched - resteer).max(0.0) as f32,
                fetch_block_stall: block_stall as f32,
                load_level: if it.loads { load_level } else { 0 },
                self_class,
                wait_class,
                load_start,
                load_done,
                operands: wait_on,
                wait_from,
                penalty_from,
                commit_slot,
                wrong_path,
            };
        }
        StageTimes { dispatch, issue, ready, complete, commit, dispatch_cause, issue_cause, commit_cause, mispredicted: dy.mispredicted }
    }

    /// Cycles of `[t0, resolve)` in which a mispredicted branch's wrong path
    /// dispatched (for the views; the trace holds only the correct path). It
    /// runs at full width into the ROB entries free at `t0` and those the older
    /// instructions free as they commit; once it has filled them, dispatch
    /// stalls as behind any full ROB. Uops dispatched by `resolve`: the least,
    /// over the times `τ` it could have been blocked, of the room at `τ` plus
    /// full width after it.
    fn wrong_path_cycles(&mut self, t0: f64, resolve: f64) -> f64 {
        let w = 1.0 / self.cfg.dispatch_gap;
        self.rob.free_until(t0);
        let room = (self.cfg.rob as f64 - self.rob.occupied() as f64).max(0.0);
        let open = resolve - t0;
        if open * w <= room {
            return open; // the common case: the ROB never fills
        }
        let mut uops = open * w;
        let mut freed = 0.0;
        for (at, n) in self.rob.held() {
            if at > resolve {
                break;
            }
            uops = uops.min(room + freed + (resolve - at) * w);
            freed += n as f64;
        }
        uops = uops.min(room + freed);
        uops / w
    }

    /// When the frontend delivers this instruction, given the earliest dispatch slot `t`,
    /// and the part of the delay due to the fetch-block limit.
    ///
    /// An icache miss delays delivery by its extra latency; a line that continues a
    /// sequential miss stream was requested while the previous one was in flight, so it
    /// arrives a share of that latency after it. A new fetch block (after a taken branch or
    /// across a fetch window) waits for the fetch unit's next block cycle, plus the bubble
    /// of the taken branch that led to it; fetch may run ahead of dispatch by
    /// `fetch_runahead` cycles, which averages short blocks with long ones.
    #[inline]
    fn fetch(&mut self, t: f64, dy: &DynInfo) -> (f64, f64) {
        let mut ready = t;
        if dy.fetch_stall > 0.0 {
            ready += dy.btb_stall as f64;
            let icache = (dy.fetch_stall - dy.btb_stall) as f64;
            if icache > 0.0 {
                ready = if dy.fetch_stream {
                    fmax(ready, self.fetch_line_ready + icache * self.cfg.icache_stream_share)
                } else {
                    ready + icache
                };
                self.fetch_line_ready = ready;
            }
        }
        let mut block_stall = 0.0;
        if self.cfg.fetch_block_gap == 0.0 {
            // no fetch clock: a taken-branch bubble delays delivery directly
            ready += dy.fetch_bubble as f64;
            block_stall = dy.fetch_bubble as f64;
        } else if dy.new_fetch_block {
            // a bubble is lost fetch time: the fetch clock skips it
            let at = fmax(self.fetch_next + dy.fetch_bubble as f64, ready - self.cfg.fetch_runahead);
            self.fetch_next = at + self.cfg.fetch_block_gap;
            if at > ready {
                block_stall = at - ready;
                ready = at;
            }
        }
        (ready, block_stall)
    }

    /// Books one line transfer through every level between the one that holds
    /// the line and L1 (Gus's UpdateCaches); returns when the last transfer starts.
    #[inline]
    fn fill_line(&mut self, level: usize, t: f64) -> f64 {
        let mut at = t;
        for l in 1..=level {
            let c = &mut self.fills[l];
            at = fmax(at, c.earliest(t, self.base));
            c.take(at, 1.0, self.base);
        }
        at
    }

    /// Books the write-backs of one execution: each dirty line crosses its link once
    /// (into L2, into L3, into DRAM), as early as the link has room from `t` on: on the
    /// link's own write path where the machine has one, else on its fill bandwidth (always
    /// for DRAM). Nothing waits for them (write-back buffers), but fills after them find
    /// a shared link busy.
    #[cold]
    fn book_writebacks(&mut self, lines: LineEvents, t: f64) {
        for link in 0..3 {
            let own = link < 2 && self.cfg.writeback_lines_per_cycle[link].is_some();
            let c = if own { &mut self.writeback_paths[link] } else { &mut self.fills[link + 1] };
            for _ in 0..lines.writebacks(link) {
                let at = c.earliest(t, self.base);
                c.take(at, 1.0, self.base);
            }
        }
    }

    /// Books the transfer of the line at address `line` that the prefetcher
    /// started at `t` from `level`, and records when it arrives in L1.
    #[inline(never)]
    fn book_prefetch(&mut self, line: u64, level: u8, t: f64) {
        let level = (level as usize).min(3);
        let started = self.fill_line(level, t);
        let arrives = started + self.cfg.level_extra_latency[level];
        self.prefetched.insert(line >> self.cfg.line_shift, arrives, level as u8);
    }

    /// The latency class of this instruction's result and of what its critical
    /// uop waited for, with the start of each penalty (accounting views only).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn latency_classes(
        &self,
        it: &InstrTiming,
        dy: &DynInfo,
        load_level: u8,
        scale: f64,
        op_latency: f64,
        load_start: f64,
        load_done: f64,
        issue: f64,
        ready: f64,
        miss: bool,
        load_waited_memory: bool,
        data_ready: f64,
        dispatch: f64,
        wait_on: f64,
        src: u8,
    ) -> (LatencyClass, f64, LatencyClass, f64) {
        let load_class = |level: u8| match level {
            0 => LatencyClass::L1,
            1 => LatencyClass::L2,
            2 => LatencyClass::L3,
            _ => LatencyClass::Dram,
        };
        let l1_done = load_start + it.load_latency * scale + dy.load_extra_latency as f64;
        let (self_class, penalty_from) = if it.loads && load_waited_memory {
            (LatencyClass::Forward, ready)
        } else if it.loads && miss {
            (load_class(load_level), l1_done)
        } else if !it.compute_uses.is_empty() && op_latency * scale > scale + EPS {
            (LatencyClass::Long, issue + scale)
        } else if it.loads {
            (LatencyClass::L1, ready)
        } else {
            (LatencyClass::Short, ready)
        };
        let (wait_class, wait_from) = if it.loads && !it.compute_uses.is_empty() && load_done >= data_ready {
            if load_waited_memory {
                (LatencyClass::Forward, wait_on)
            } else if miss {
                (load_class(load_level), l1_done.min(wait_on))
            } else {
                (LatencyClass::L1, wait_on)
            }
        } else if (src as usize) < NUM_REGS && wait_on > dispatch + EPS {
            let r = src as usize;
            (self.reg_class[r], self.reg_penalty[r].min(wait_on))
        } else {
            (LatencyClass::Short, wait_on)
        };
        (self_class, penalty_from, wait_class, wait_from)
    }

    #[inline]
    fn max_ready(&self, regs: &[u8]) -> f64 {
        regs.iter().fold(0.0, |m, &r| fmax(m, self.reg_ready[r as usize]))
    }

    /// [`Self::max_ready_src`] for an FMA with late accumulator forwarding: its
    /// accumulator `acc` is ready when a chained FMA's forwarding allows.
    fn max_ready_accumulating(&self, regs: &[u8], acc: u8) -> (f64, u8) {
        let mut m = 0.0;
        let mut src = u8::MAX;
        for &r in regs {
            let v = if r == acc { self.acc_ready[r as usize] } else { self.reg_ready[r as usize] };
            if v > m {
                m = v;
                src = r;
            }
        }
        (m, src)
    }

    /// The latest ready time of `regs` and the register that has it (`u8::MAX`: none later than 0).
    #[inline]
    fn max_ready_src(&self, regs: &[u8]) -> (f64, u8) {
        // branch-free: which source is latest is data, not a pattern a predictor learns
        let mut m = 0.0;
        let mut src = u8::MAX;
        for &r in regs {
            let v = self.reg_ready[r as usize];
            let later = v > m;
            m = if later { v } else { m };
            src = if later { r } else { src };
        }
        (m, src)
    }

    /// Books every use at the earliest cycle >= `t` where all its targets have room.
    /// Returns the start of the latest first uop and the group that delayed it.
    #[inline]
    fn place(&mut self, uses: &[Use], t: f64) -> (f64, Option<GroupId>) {
        self.place_n(uses, t, 1.0)
    }

    /// [`Self::place`] with every use's count multiplied by `times` (an access split in two).
    #[inline]
    fn place_n(&mut self, uses: &[Use], t: f64, times: f64) -> (f64, Option<GroupId>) {
        let mut start = t;
        let mut binding = None;
        let base = self.base;
        for u in uses {
            let mut at = t;
            let mut remaining = u.count * times;
            let mut first = true;
            while remaining > EPS {
                let amount = remaining.min(1.0);
                remaining -= amount;
                let mut full = None;
                if let [g] = u.targets[..] {
                    // one calendar: its earliest open cycle is the answer
                    let e = self.calendars[g as usize].earliest(at, base);
                    if e > at {
                        at = e;
                        full = Some(g);
                    }
                } else {
                    // several: move to each one's next open cycle until all agree
                    loop {
                        let mut moved = false;
                        for &g in &u.targets {
                            let e = self.calendars[g as usize].earliest(at, base);
                            if e > at {
                                at = e;
                                moved = true;
                                full = Some(g);
                            }
                        }
                        if !moved {
                            break;
                        }
                    }
                }
                for &g in &u.targets {
                    self.calendars[g as usize].take(at, amount, base);
                }
                self.scheduler.push(floor_pos(at) + 1.0);
                if first {
                    first = false;
                    if at > start + EPS || (binding.is_none() && full.is_some() && at >= start) {
                        start = fmax(start, at);
                        binding = full.or(Some(u.group));
                    }
                }
            }
        }
        (start, if start > t + EPS { binding } else { None })
    }
}

fn cfg_fill(rates: &[f64; 4], level: usize) -> f64 {
    if rates[level].is_finite() {
        rates[level]
    } else {
        1e9
    }
}
