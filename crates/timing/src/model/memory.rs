//! The memory parts of an instruction: the load (its pipe, the line fills of a
//! miss, a late prefetch, store-to-load forwarding through shadow memory), the
//! store's address and data uops, and the line transfers an access causes
//! (fills, prefetches, write-backs) booked on the fill and write-back calendars.

use super::{fmax, Core};
use crate::events::{DynInfo, LineEvents};
use crate::resolve::InstrTiming;
use crate::shadow::short_key;
use bottlenose_machine::GroupId;

/// A store's data is written one cycle after its address and data uops have issued.
const STORE_WRITE_CYCLES: f64 = 1.0;

/// When an instruction's load ran and where its data came from.
pub(super) struct LoadPart {
    pub start: f64,
    /// When its data is available.
    pub done: f64,
    /// The load group that delayed its start, if any.
    pub port: Option<GroupId>,
    /// The level the data came from: a hit on a line still on its way (a late
    /// prefetch) counts as a miss at the level the line comes from.
    pub level: u8,
    /// It missed L1 (or waited for a late prefetch).
    pub miss: bool,
    /// It waited for an older store's data.
    pub waited_memory: bool,
}

impl Core {
    /// Times the load part of `it` (an instruction without one: starts and
    /// ends at `dispatch`); operands ready at `addr_ready`.
    #[inline(always)]
    pub(super) fn load(&mut self, it: &InstrTiming, dy: &DynInfo, addr_ready: f64, dispatch: f64) -> LoadPart {
        let mut part = LoadPart { start: dispatch, done: dispatch, port: None, level: dy.load_level, miss: false, waited_memory: false };
        if !it.loads {
            return part;
        }
        let scale = self.cfg.latency_scale;
        // a load spanning two lines takes the load pipes twice (or as the machine says)
        let slots = if dy.lines.load_split() { 1.0 + self.cfg.split_load_extra } else { 1.0 };
        let (s, port) = self.place_n(&it.load_uses, addr_ready, slots);
        let mut done = s + it.load_latency * scale + dy.load_extra_latency as f64;
        if dy.load_level > 0 {
            let level = (dy.load_level as usize).min(3);
            let filled = self.fill_line(level, s);
            done = fmax(done, filled + it.load_latency * scale) + self.cfg.level_extra_latency[level];
            part.miss = true;
        } else if let Some(a) = dy.load_addr {
            if let Some((arrives, level)) = self.prefetched.arrival(a.get() >> self.cfg.line_shift) {
                if arrives > s {
                    done = fmax(done, arrives + it.load_latency * scale);
                    part.miss = true;
                    part.level = level;
                }
            }
        }
        if let Some(a) = dy.load_addr {
            if let Some((st, key)) = self.memory.ready(a.get()) {
                match self.cfg.renamed_forward_latency {
                    // memory renaming: the load is renamed to the store's data register,
                    // so its consumers see that data when it is ready (not when the
                    // store writes it) and can even beat an L1 hit
                    Some(lat) if it.mem_key != 0 && key == short_key(it.mem_key) && !part.miss => {
                        done = fmax(st - STORE_WRITE_CYCLES + lat * scale, addr_ready);
                        part.waited_memory = true;
                    }
                    _ => {
                        let fwd = st + self.cfg.store_forward_latency * scale;
                        if fwd > done {
                            done = fwd;
                            part.waited_memory = true;
                        }
                    }
                }
            }
        }
        part.start = s;
        part.done = done;
        part.port = port;
        part
    }

    /// Books the line transfers of an access that leave with it (from
    /// `load_start`; `dispatch` for an instruction without a load): the
    /// write-backs its fills caused and the prefetches it started.
    #[inline(always)]
    pub(super) fn book_access_lines(&mut self, it: &InstrTiming, dy: &DynInfo, load_start: f64, dispatch: f64) {
        // the dirty lines its fills evicted take the links' bandwidth as they leave
        // (a store's at commit, with its write-allocate fill)
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
    }

    /// Times the store parts of `it`: its address uops from `addr_ready`, its data
    /// uops from `data`. Returns when the address was computed and when the data is
    /// written (then visible to younger loads of the address through shadow memory).
    #[inline(always)]
    pub(super) fn store(&mut self, it: &InstrTiming, dy: &DynInfo, addr_ready: f64, data: f64) -> (f64, f64) {
        let (sa, _) = self.place(&it.store_address_uses, addr_ready);
        let slots = if dy.lines.store_split() { 1.0 + self.cfg.split_store_extra } else { 1.0 };
        let (sd, _) = self.place_n(&it.store_data_uses, data, slots);
        let written = fmax(sa, sd) + STORE_WRITE_CYCLES;
        if let Some(a) = dy.store_addr {
            self.memory.write(a.get(), written, it.mem_key);
        }
        (sa, written)
    }

    /// Books one line transfer through every level between the one that holds
    /// the line and L1 (Gus's UpdateCaches); returns when the last transfer starts.
    #[inline]
    pub(super) fn fill_line(&mut self, level: usize, t: f64) -> f64 {
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
    pub(super) fn book_writebacks(&mut self, lines: LineEvents, t: f64) {
        for link in 0..3 {
            let own = link < 2 && self.cfg.writeback_lines_per_cycle[link].is_some();
            let c = if own { &mut self.writeback_paths[link] } else { &mut self.fills[link + 1] };
            for _ in 0..lines.writebacks(link) {
                c.book_earliest(t, 1.0, self.base);
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
}
