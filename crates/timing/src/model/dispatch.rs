//! Dispatch: the first slot time at which the frontend has delivered the
//! instruction (after any resteer, fetch stall or microcode sequencing) and
//! the ROB, scheduler and load/store buffers have room for it.

use super::{fmax, Core, EPS};
use crate::calendar::{cycle_of, floor_pos};
use crate::events::{DispatchCause, DynInfo};
use crate::resolve::InstrTiming;

/// When one instruction dispatched and what held it up.
pub(super) struct Dispatched {
    /// The cycle of its last uop's slot.
    pub dispatch: f64,
    /// The slot time of its first uop.
    pub slot: f64,
    /// The slot time after any resteer, before the frontend delivered it.
    pub resteer: f64,
    /// When the frontend delivered it, and the part of the delay due to the fetch-block limit.
    pub fetched: f64,
    pub block_stall: f64,
    /// Cycles the wrong path of an older mispredicted branch dispatched (`DETAILS` only).
    pub wrong_path: f64,
    pub cause: DispatchCause,
}

impl Core {
    #[inline(always)]
    pub(super) fn dispatch<const DETAILS: bool>(&mut self, it: &InstrTiming, dy: &DynInfo) -> Dispatched {
        let mut t = self.dispatch_next;
        let mut cause = DispatchCause::Width;
        let mut wrong_path = 0.0;
        if self.resteer_at > t {
            if DETAILS {
                // before dispatch frees the ROB up to the resteer
                let resolve = fmax(self.resteer_at - self.cfg.mispredict_penalty, t);
                wrong_path = self.wrong_path_cycles(t, resolve);
            }
            t = self.resteer_at;
            cause = DispatchCause::Mispredict;
        }
        let resteer = t;
        let (fetched, block_stall) = self.fetch(t, dy);
        if fetched > t {
            t = fetched;
            cause = DispatchCause::Fetch;
        }
        if self.microcode_until > t {
            t = self.microcode_until;
            cause = DispatchCause::Microcode;
        }
        // One pass is a fixed point: a window with room at t has room at any later
        // time (entries only free as time passes), so a later constraint that moves
        // t never invalidates an earlier one. The cause is the last one that moved t.
        let r = self.rob.earliest(t, it.fused_uops);
        if r > t {
            t = r;
            cause = DispatchCause::Rob;
        }
        let s = self.scheduler.earliest(t, it.unfused_uops);
        if s > t {
            t = s;
            cause = DispatchCause::Scheduler;
        }
        if it.loads {
            let l = self.load_buffer.earliest(t, 1);
            if l > t {
                t = l;
                cause = DispatchCause::LoadBuffer;
            }
        }
        if it.stores {
            let s = self.store_buffer.earliest(t, 1);
            if s > t {
                t = s;
                cause = DispatchCause::StoreBuffer;
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
        self.base = cycle_of(dispatch);
        Dispatched { dispatch, slot: t, resteer, fetched, block_stall, wrong_path, cause }
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
}
