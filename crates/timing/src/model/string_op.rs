//! The execution of a string instruction: one operation per executed instruction.
//!
//! It starts when its registers (`rcx`, `rsi`, `rdi`, `rax`, flags) are ready and ends
//! at the latest of: its work with the data in L1 ([`StringTiming::core_cycles`]); the
//! fills of the lines it touched, each fill path at its bandwidth, plus the latency of
//! the farthest level once (the transfers stream), or for a store without
//! read-for-ownership the lines beyond L2 it writes at the streaming rate; the drain of
//! its stores into L1
//! behind older stores. It starts after the previous string instruction completes.
//! Meanwhile the frontend sequences its microcode: younger instructions dispatch only
//! in its last `overlap_cycles` (measured on the Zen 4 host: a 1 KiB `rep movsb` hides
//! entirely behind an independent 120-cycle chain, a 4 KiB one overlaps it by its last
//! 67 cycles). Its transfers are not booked line by line in the fill calendars: what
//! younger instructions could compete for them is that tail at most.

use super::{fmax, Core};
use crate::events::{DynInfo, IssueCause, LatencyClass};
use crate::strings::StringTiming;

/// When a string instruction ran and what held it up.
pub(super) struct StringDone {
    pub start: f64,
    pub end: f64,
    /// [`IssueCause::CacheMiss`] when the line fills bound it, else what its start waited for.
    pub cause: IssueCause,
    /// The latency class of its result for the views: the farthest level when the fills
    /// bound it, else a long operation.
    pub class: LatencyClass,
}

impl Core {
    /// Times one execution of a string instruction whose operands are ready at `ready`.
    #[inline(never)]
    pub(super) fn execute_string(&mut self, s: &StringTiming, dy: &DynInfo, ready: f64) -> StringDone {
        let w = &dy.string;
        let start = fmax(ready, self.string_until);
        let mut end = start + s.core_cycles(w.elements, self.cfg.latency_scale);
        let mut cause = if start > self.last_dispatch { IssueCause::Register } else { IssueCause::Dispatch };
        let mut class = LatencyClass::Long;

        // lines beyond L2 that a no-RFO store writes whole are not read: they take no
        // fill on any path and stream out at their own rate
        let mut fills = w.fills;
        let mut filled = start;
        let streamed = if s.streaming_bytes_per_cycle > 0.0 { fills[1] } else { 0 };
        if streamed > 0 {
            for f in &mut fills {
                *f -= streamed.min(*f);
            }
            filled = start + (streamed as f64 * (1u64 << self.cfg.line_shift) as f64) / s.streaming_bytes_per_cycle;
        }
        // line fills: each path moves its lines at its own rate, after what is booked on it
        let mut farthest = 0;
        for level in 1..=3 {
            let lines = fills[level - 1];
            if lines == 0 {
                continue;
            }
            farthest = level;
            let path = &self.fills[level];
            let at = fmax(start, path.earliest(start, self.base));
            filled = fmax(filled, at + lines as f64 / path.capacity());
        }
        if farthest > 0 {
            filled += self.cfg.level_extra_latency[farthest];
        }
        filled += dy.load_extra_latency as f64; // page walks
        if filled > end {
            end = filled;
            cause = IssueCause::CacheMiss;
            class = match farthest {
                0 if streamed > 0 => LatencyClass::Dram,
                0 | 1 => LatencyClass::L2,
                2 => LatencyClass::L3,
                _ => LatencyClass::Dram,
            };
        }

        // stores drain into L1 behind the older ones still in the store buffer
        let drain = s.drain_cycles(w.elements);
        if drain > 0.0 {
            self.store_drain = fmax(self.store_drain, start) + drain;
            end = fmax(end, self.store_drain);
        }
        self.string_until = end;
        self.microcode_until = fmax(self.microcode_until, end - s.overlap_cycles);
        StringDone { start, end, cause, class }
    }
}
