//! The frontend's delivery of an instruction to dispatch: instruction-cache
//! misses (streamed when sequential), BTB-miss resteers, the fetch-block limit
//! and taken-branch bubbles. What the caches and predictors did comes from the
//! functional layer in [`DynInfo`]; this times it.

use super::{fmax, Core};
use crate::events::DynInfo;

impl Core {
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
    pub(super) fn fetch(&mut self, t: f64, dy: &DynInfo) -> (f64, f64) {
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
}
