//! Issue and execute: when the operands are ready (shadow register file), when
//! each part finds room on its ports (the calendars), when the result is ready
//! and the instruction complete, and what the critical uop waited for.

use super::{fmax, Core, EPS};
use crate::calendar::cycle_of;
use crate::events::{DynInfo, IssueCause, LatencyClass};
use crate::resolve::{InstrTiming, Use};
use bottlenose_decode::BranchKind;
use bottlenose_machine::GroupId;

/// Latency of a pre/post-index base update after its address (an integer add beside
/// the access: 1 cycle on the Neoverse cores, SWOG "writeback" rows).
const WRITEBACK_CYCLES: f64 = 1.0;

/// When one instruction issued, completed, and (`DETAILS` only) what for the views.
pub(super) struct Issued {
    /// Start of the critical uop, and why not earlier.
    pub issue: f64,
    pub cause: IssueCause,
    /// When the result is available to dependants.
    pub ready: f64,
    /// When every uop is done (stores included).
    pub complete: f64,
    pub load_start: f64,
    pub load_done: f64,
    pub load_level: u8,
    /// When the critical uop's operands were ready.
    pub wait_on: f64,
    pub self_class: LatencyClass,
    pub penalty_from: f64,
    pub wait_class: LatencyClass,
    pub wait_from: f64,
}

impl Core {
    #[inline(always)]
    pub(super) fn issue<const DETAILS: bool>(&mut self, it: &InstrTiming, dy: &DynInfo, dispatch: f64) -> Issued {
        let scale = self.cfg.latency_scale;
        let op_latency = if self.cfg.unit_alu_latency { it.op_latency.min(1.0) } else { it.op_latency };
        let (addr_max, addr_src) = if DETAILS { self.max_ready_src(&it.addr_reads) } else { (self.max_ready(&it.addr_reads), u8::MAX) };
        let (data_max, data_src) = match it.accumulator {
            None if DETAILS => self.max_ready_src(&it.data_reads),
            None => (self.max_ready(&it.data_reads), u8::MAX),
            Some(acc) => self.max_ready_accumulating(&it.data_reads, acc),
        };
        let addr_ready = fmax(addr_max, dispatch);
        let data_ready = fmax(data_max, dispatch);
        let load = self.load(it, dy, addr_ready, dispatch);
        self.book_access_lines(it, dy, load.start, dispatch);
        let operands = if it.loads { fmax(data_ready, load.done) } else { data_ready };
        let mut string_class = None;
        let (issue, ready, cause) = if let Some(s) = &it.string {
            let done = self.execute_string(s, dy, fmax(operands, addr_ready));
            string_class = Some(done.class);
            (done.start, done.end, done.cause)
        } else if !it.compute_uses.is_empty() {
            let (s, port) = self.place(&it.compute_uses, operands);
            let cause = match port {
                Some(g) if s > operands + EPS => IssueCause::Port(g),
                _ if operands > dispatch + EPS => {
                    if it.loads && load.done >= data_ready {
                        if load.waited_memory {
                            IssueCause::Memory
                        } else if load.miss {
                            IssueCause::CacheMiss
                        } else {
                            IssueCause::Load
                        }
                    } else {
                        IssueCause::Register
                    }
                }
                _ => IssueCause::Dispatch,
            };
            (s, s + op_latency * scale, cause)
        } else if it.loads {
            let cause = match load.port {
                Some(g) if load.start > addr_ready + EPS => IssueCause::Port(g),
                _ if load.waited_memory => IssueCause::Memory,
                _ if load.miss => IssueCause::CacheMiss,
                _ if addr_ready > dispatch + EPS => IssueCause::Register,
                _ => IssueCause::Dispatch,
            };
            (load.start, load.done, cause)
        } else if it.eliminated {
            let cause = if data_ready > dispatch + EPS { IssueCause::Register } else { IssueCause::Dispatch };
            (dispatch, data_ready, cause)
        } else {
            // no resources at all (e.g. nop, or a store whose parts follow)
            (operands, operands + op_latency * scale, IssueCause::Dispatch)
        };

        // ---- what the accounting views need (no effect on timing) -----------------
        // the critical uop's operands: its own load, or the latest register
        let (wait_on, src) = if it.compute_uses.is_empty() && it.loads { (addr_ready, addr_src) } else { (operands, data_src) };
        let (mut self_class, mut penalty_from, wait_class, wait_from) = if DETAILS {
            self.latency_classes(it, dy, &load, op_latency, issue, ready, data_ready, dispatch, wait_on, src)
        } else {
            (LatencyClass::Short, 0.0, LatencyClass::Short, 0.0)
        };
        if let (Some(class), true) = (string_class, DETAILS) {
            // a string instruction's result is late for all its duration: the bulk of
            // the work (or the line fills) is its penalty
            self_class = class;
            penalty_from = issue;
        }
        let mut complete = ready;
        let mut store_address = addr_ready;
        if it.stores {
            let data = if it.compute_uses.is_empty() && !it.loads { data_ready } else { ready };
            let (address, written) = self.store(it, dy, addr_ready, data);
            store_address = address;
            complete = fmax(complete, written);
        }
        // a chained FMA may take this one's result as its accumulator early
        let acc_at = if it.accumulate_latency > 0.0 { ready.min(issue + it.accumulate_latency * scale) } else { ready };
        for &w in &it.writes {
            self.reg_ready[w as usize] = ready;
            self.acc_ready[w as usize] = acc_at;
        }
        if !it.address_writes.is_empty() {
            let address = if it.loads { load.start } else { store_address };
            let (update, _) = self.place(&it.writeback_uses, addr_ready);
            let base_ready = fmax(address, update) + WRITEBACK_CYCLES * scale;
            for &w in &it.address_writes {
                self.reg_ready[w as usize] = base_ready;
                self.acc_ready[w as usize] = base_ready;
            }
        }
        if DETAILS {
            for &w in &it.writes {
                self.reg_class[w as usize] = self_class;
                self.reg_penalty[w as usize] = penalty_from;
            }
        }
        if dy.mispredicted && it.branch != BranchKind::None {
            self.resteer_at = fmax(self.resteer_at, ready + self.cfg.mispredict_penalty);
        }
        Issued {
            issue,
            cause,
            ready,
            complete,
            load_start: load.start,
            load_done: load.done,
            load_level: load.level,
            wait_on,
            self_class,
            penalty_from,
            wait_class,
            wait_from,
        }
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
    pub(super) fn place(&mut self, uses: &[Use], t: f64) -> (f64, Option<GroupId>) {
        self.place_n(uses, t, 1.0)
    }

    /// [`Self::place`] with every use's count multiplied by `times` (an access split in two).
    #[inline(always)]
    pub(super) fn place_n(&mut self, uses: &[Use], t: f64, times: f64) -> (f64, Option<GroupId>) {
        match uses {
            // most parts are one uop on one use: booked here, without the general loop's call
            [u] if u.count == 1.0 && times == 1.0 => {
                let (at, full) = self.book_uop(u, t, 1.0);
                let start = if at > t + EPS || (full.is_some() && at >= t) { fmax(t, at) } else { t };
                (start, if start > t + EPS { full.or(Some(u.group)) } else { None })
            }
            _ => self.place_all(uses, t, times),
        }
    }

    /// [`Self::place_n`] for any uses and counts.
    #[inline(never)]
    fn place_all(&mut self, uses: &[Use], t: f64, times: f64) -> (f64, Option<GroupId>) {
        let mut start = t;
        let mut binding = None;
        for u in uses {
            let mut at = t;
            let mut remaining = u.count * times;
            let mut first = true;
            while remaining > EPS {
                let amount = remaining.min(1.0);
                remaining -= amount;
                let (booked, full) = self.book_uop(u, at, amount);
                at = booked;
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

    /// Books `amount` of one uop of `u` at the earliest cycle >= `t` where all its
    /// targets have room, and its scheduler entry. Returns that time and the group
    /// that moved it, if one did.
    #[inline(always)]
    fn book_uop(&mut self, u: &Use, t: f64, amount: f64) -> (f64, Option<GroupId>) {
        let base = self.base;
        let mut at = t;
        let mut full = None;
        if let [g] = u.targets[..] {
            // one calendar: its earliest open cycle is the answer, booked at once
            let e = self.ports.book_earliest(g, at, amount, base);
            if e > at {
                at = e;
                full = Some(g);
            }
        } else {
            // several: all open at `at` (one lookup), or move to each one's next
            // open cycle, round and round, until all agree, which is once a whole
            // round has not moved (a calendar is open at the cycle it just answered)
            let c = cycle_of(at);
            if u.mask == 0 || c < base || !self.ports.all_open(c, u.mask) {
                let n = u.targets.len();
                let (mut k, mut unmoved) = (0, 0);
                while unmoved < n {
                    let g = u.targets[k];
                    let e = self.ports.earliest(g, at, base);
                    if e > at {
                        at = e;
                        full = Some(g);
                        unmoved = 1;
                    } else {
                        unmoved += 1;
                    }
                    k = if k + 1 == n { 0 } else { k + 1 };
                }
            }
            let c = cycle_of(at).max(base);
            for &g in &u.targets {
                self.ports.take_in(g, c, amount, base);
            }
        }
        self.scheduler.push(cycle_of(at) + 1);
        (at, full)
    }
}
