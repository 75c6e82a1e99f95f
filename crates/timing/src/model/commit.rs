//! Commit: in order, `commit_width` uops per cycle, no earlier than the cycle
//! in which the instruction completes; then the ROB and load buffer entries
//! free, and a store drains into L1 behind the older ones (after its
//! write-allocate fill, or the arrival of its line's late prefetch) before its
//! store-buffer entry frees.

use super::{fmax, Core, EPS};
use crate::calendar::{ceil_pos, floor_pos};
use crate::events::{CommitCause, DynInfo};
use crate::resolve::InstrTiming;

/// When one instruction committed and what held it up.
pub(super) struct Committed {
    pub commit: f64,
    pub cause: CommitCause,
    /// The commit slot time of its first uop.
    pub slot: f64,
}

impl Core {
    #[inline(always)]
    pub(super) fn commit(&mut self, it: &InstrTiming, dy: &DynInfo, dispatch: f64, complete: f64) -> Committed {
        let earliest = fmax(ceil_pos(complete - EPS) - 1.0, dispatch);
        let cgap = self.cfg.commit_gap;
        let (commit, cause, slot) = if it.fused_uops == 0 {
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
            } else if let Some(a) = dy.store_addr {
                // a hit on a line the prefetcher asked for that is still on its way: the store
                // cannot drain before it arrives (as a load waits for it). Without this a store
                // stream ran at store width while its prefetches piled up on the DRAM calendar,
                // and the next demand miss paid the whole backlog at once.
                if let Some((arrives, _)) = self.prefetched.arrival(a.get() >> self.cfg.line_shift) {
                    self.store_drain = fmax(self.store_drain, arrives);
                }
            }
            if !it.loads && dy.lines.has_writebacks() {
                self.book_writebacks(dy.lines, commit);
            }
            self.store_buffer.push(self.store_drain, 1);
        }
        Committed { commit, cause, slot }
    }
}
