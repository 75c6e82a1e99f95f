//! The frontend of a trace: each executed instruction's fetch (lines,
//! fetch blocks, BTB resteers and taken-branch bubbles), data accesses and
//! branch prediction through the functional layer, written into its `DynInfo`.

use crate::access_span::AccessSpan;
use crate::statics::FrontFacts;
use crate::strings::{StringRun, StringSpan};
use bottlenose_decode::BranchKind;
use bottlenose_functional::{FunctionalLayer, Idealization, MemLevel, Prefetcher};
use bottlenose_machine::Machine;
use bottlenose_trace::{ExecutedInsn, MemAccess};
use bottlenose_timing::{DynInfo, StringWork};
use std::num::NonZeroU64;

/// The functional side of one stream: caches, TLBs, predictors and the fetch state.
pub(crate) struct Front {
    pub(crate) functional: FunctionalLayer,
    last_fetch_line: u64,
    /// The last fetched line missed L1I (a next-line miss then continues a stream).
    last_line_missed: bool,
    pending_fetch_stall: f64,
    /// Fetch bubble of the taken branch just executed, charged to its target.
    pending_bubble: f64,
    /// The bubble the taken branch just executed would have left had it not been
    /// mispredicted (the resteer covers it), and that of the instruction last filled:
    /// what a perfect branch predictor adds back ([`bottlenose_simulate::Ideal::apply`]).
    pending_missed_bubble: f64,
    pub(crate) bubble_if_predicted: f32,
    l1_fetch: f64,
    last_window: u64,
    prev_taken: bool,
    bubbles: TakenBubbles,
}

/// Frontend bubbles of correctly predicted taken branches (machine `[branch]`).
struct TakenBubbles {
    taken: f64,
    ret: f64,
    indirect: f64,
    /// Cycles lost when the branch's target was not in the BTB (decode-time resteer).
    btb_miss: f64,
}

impl Front {
    pub(crate) fn new(machine: &Machine, idealization: Idealization, prefetcher: Prefetcher) -> Self {
        let functional = FunctionalLayer::with_prefetcher(&machine.params, idealization, prefetcher);
        let l1_fetch = functional.fetch_latency(MemLevel::L1);
        Front {
            functional,
            last_fetch_line: u64::MAX,
            last_line_missed: false,
            pending_fetch_stall: 0.0,
            pending_bubble: 0.0,
            pending_missed_bubble: 0.0,
            bubble_if_predicted: 0.0,
            l1_fetch,
            last_window: u64::MAX,
            prev_taken: true,
            bubbles: TakenBubbles {
                taken: machine.params.branch.taken_bubble,
                ret: machine.params.branch.return_bubble,
                indirect: machine.params.branch.indirect_bubble,
                btb_miss: machine.params.branch.btb_miss_penalty,
            },
        }
    }

    /// Resets `info` for a new instruction at `vaddr` and fills in its frontend facts:
    /// the stall and bubble left by the instruction before, the fetch of its line (once
    /// per line) and whether it starts a fetch block.
    #[inline(always)]
    fn fetch(&mut self, vaddr: u64, stat: &FrontFacts, info: &mut DynInfo) {
        *info = DynInfo {
            fetch_stall: self.pending_fetch_stall as f32,
            btb_stall: self.pending_fetch_stall as f32,
            fetch_bubble: self.pending_bubble as f32,
            ..Default::default()
        };
        self.pending_fetch_stall = 0.0;
        self.pending_bubble = 0.0;
        self.bubble_if_predicted = self.pending_missed_bubble as f32;
        self.pending_missed_bubble = 0.0;
        // instruction fetch, once per line
        let line = vaddr >> 6;
        if line != self.last_fetch_line {
            let sequential = line == self.last_fetch_line.wrapping_add(1);
            self.last_fetch_line = line;
            let f = self.functional.inst_fetch(vaddr);
            let missed = f.level != MemLevel::L1;
            if missed || f.tlb_cycles > 0.0 {
                info.fetch_stall += ((self.functional.fetch_latency(f.level) - self.l1_fetch).max(0.0) + f.tlb_cycles) as f32;
                info.fetch_stream = missed && sequential && self.last_line_missed;
            }
            self.last_line_missed = missed;
        }
        // fetch blocks end at taken branches and at the machine's window boundaries
        let window = stat.fetch_window;
        info.new_fetch_block = self.prev_taken || window != self.last_window;
        self.last_window = window;
        self.prev_taken = false;
    }

    #[inline(always)]
    pub(crate) fn fill_executed(&mut self, executed: &Executed<'_, '_>, stat: &FrontFacts, info: &mut DynInfo) {
        match executed {
            Executed::Plain(insn) => self.fill(insn, stat, info),
            Executed::String(run) => self.fill_string(run, stat, info),
        }
    }

    /// The dynamic facts of one execution of a string instruction: its frontend as for
    /// any instruction, then each line its memory streams covered, once, in the order it
    /// touched them (the streams interleaved, as its loads and stores are); the line
    /// transfers that took, its prefetches' included, go into `info.string`. Only the first
    /// page's translation delays it: the walks for the pages after it find their page-table
    /// entries in lines the walk before brought in, and overlap with the transfers.
    #[inline(never)]
    fn fill_string(&mut self, run: &StringRun, stat: &FrontFacts, info: &mut DynInfo) {
        self.fetch(run.vaddr, stat, info);
        let shift = self.functional.caches.data_line_shift();
        let mut fills = [0u32; 3];
        let count = |fills: &mut [u32; 3], level: MemLevel| {
            for f in &mut fills[..level_index(level) as usize] {
                *f = f.saturating_add(1);
            }
        };
        let lines = |s: &StringSpan| {
            let (lo, hi) = s.bytes();
            (lo >> shift, hi >> shift)
        };
        let longest = run.spans().iter().map(|s| lines(s).1 - lines(s).0 + 1).max().unwrap_or(0);
        let mut tlb = 0.0;
        for k in 0..longest {
            for s in run.spans() {
                let (first, last) = lines(s);
                if k > last - first {
                    continue;
                }
                let line = if s.descending() { last - k } else { first + k };
                let o = self.functional.data_access(line << shift, 1, s.is_store);
                count(&mut fills, o.level);
                if k == 0 {
                    tlb = o.tlb_cycles.max(tlb);
                }
                for &(_, from) in self.functional.caches.take_prefetches().as_slice() {
                    count(&mut fills, from);
                }
            }
        }
        // dirty lines the string's fills pushed out take the same links
        for (f, wb) in fills.iter_mut().zip(self.functional.caches.take_writebacks()) {
            *f = f.saturating_add(wb as u32);
        }
        info.load_extra_latency = tlb as f32;
        info.string = StringWork { elements: run.elements, fills };
    }

    /// The dynamic facts of one executed instruction (and the functional layer's update),
    /// written in place: into the batch's next record on the hot path (a returned
    /// `DynInfo` copied into the batch made the copy's loads wait for the
    /// field-by-field stores that built it, the hottest spot of the producer).
    #[inline]
    fn fill(&mut self, insn: &ExecutedInsn<'_>, stat: &FrontFacts, info: &mut DynInfo) {
        self.fetch(insn.vaddr, stat, info);
        let mem = insn.mem();
        if !mem.is_empty() {
            self.fill_accesses(mem, info);
        }
        // an instruction fetch's fill may push a dirty line out of a shared level too
        let writebacks = self.functional.caches.take_writebacks();
        if writebacks != [0; 3] {
            info.lines.set_writebacks(writebacks);
        }
        if stat.branch != BranchKind::None && stat.branch != BranchKind::Other {
            let fallthrough = insn.vaddr + stat.len as u64;
            let next = insn.next_vaddr.unwrap_or(fallthrough);
            let taken = next != fallthrough;
            self.prev_taken = taken;
            let o = self.functional.branch(insn.vaddr, stat.branch, taken, next, fallthrough);
            info.mispredicted = o.mispredicted;
            if o.btb_miss && taken && !o.mispredicted {
                self.pending_fetch_stall += self.bubbles.btb_miss;
            }
            if taken {
                let bubble = match stat.branch {
                    BranchKind::Return => self.bubbles.ret,
                    BranchKind::IndirectJump | BranchKind::IndirectCall => self.bubbles.indirect,
                    _ => 0.0,
                } + self.bubbles.taken;
                if o.mispredicted {
                    self.pending_missed_bubble += bubble;
                } else {
                    self.pending_bubble += bubble;
                }
            }
        }
    }
}

impl Front {
    /// An instruction's data accesses through the caches and TLBs, and what they
    /// started: line splits, prefetches (only data accesses start them).
    #[inline(always)]
    fn fill_accesses(&mut self, mem: &[MemAccess], info: &mut DynInfo) {
        // QEMU reports a wide access in pieces (a ymm load as 8-byte reads), so a line split
        // is judged on the instruction's contiguous span of loads and of stores
        let (mut loads, mut stores) = (AccessSpan::default(), AccessSpan::default());
        for m in mem {
            if m.is_store { &mut stores } else { &mut loads }.add(m.vaddr, m.size as u64);
            let o = self.functional.data_access(m.vaddr, m.size as u32, m.is_store);
            let level = level_index(o.level);
            if m.is_store {
                info.store_level = info.store_level.max(level);
                if info.store_addr.is_none() {
                    info.store_addr = NonZeroU64::new(m.vaddr);
                }
            } else {
                info.load_level = info.load_level.max(level);
                if info.load_addr.is_none() {
                    info.load_addr = NonZeroU64::new(m.vaddr);
                }
                info.load_extra_latency += o.tlb_cycles as f32;
            }
        }
        let line_shift = self.functional.caches.data_line_shift();
        if loads.spans_two_lines(line_shift) {
            info.lines.set_load_split();
        }
        if stores.spans_two_lines(line_shift) {
            info.lines.set_store_split();
        }
        let started = self.functional.caches.take_prefetches();
        if let Some(&(line, from)) = started.as_slice().first() {
            info.prefetch_line = NonZeroU64::new(line);
            info.prefetch_level = level_index(from);
            // a second line rides along as a delta (DynInfo stays small); more are not timed
            if let Some(&(second, from2)) = started.as_slice().get(1) {
                let lines = (second.wrapping_sub(line) as i64) >> line_shift;
                if let Ok(d) = i8::try_from(lines) {
                    info.prefetch_next_lines = d;
                    info.prefetch_level = info.prefetch_level.max(level_index(from2));
                }
            }
        }
    }
}

/// What executed: one report of QEMU's, or a string instruction collapsed from its reports.
pub(crate) enum Executed<'a, 'b> {
    Plain(&'a ExecutedInsn<'b>),
    String(&'a StringRun),
}

pub(crate) fn level_index(l: MemLevel) -> u8 {
    match l {
        MemLevel::L1 => 0,
        MemLevel::L2 => 1,
        MemLevel::L3 => 2,
        MemLevel::Dram => 3,
    }
}

