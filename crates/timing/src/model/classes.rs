//! The latency classes the accounting views read (detailed step only; no
//! effect on timing): what an instruction's own result is late because of, and
//! what its critical uop waited for, with the start of each penalty.

use super::memory::LoadPart;
use super::{Core, EPS};
use crate::events::{DynInfo, LatencyClass};
use crate::resolve::InstrTiming;
use bottlenose_decode::NUM_REGS;

impl Core {
    /// The latency class of this instruction's result and of what its critical
    /// uop waited for (`wait_on`: its operands, `src`: the register that came
    /// last), with the start of each penalty.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn latency_classes(
        &self,
        it: &InstrTiming,
        dy: &DynInfo,
        load: &LoadPart,
        op_latency: f64,
        issue: f64,
        ready: f64,
        data_ready: f64,
        dispatch: f64,
        wait_on: f64,
        src: u8,
    ) -> (LatencyClass, f64, LatencyClass, f64) {
        let scale = self.cfg.latency_scale;
        let load_class = |level: u8| match level {
            0 => LatencyClass::L1,
            1 => LatencyClass::L2,
            2 => LatencyClass::L3,
            _ => LatencyClass::Dram,
        };
        let l1_done = load.start + it.load_latency * scale + dy.load_extra_latency as f64;
        let (self_class, penalty_from) = if it.loads && load.waited_memory {
            (LatencyClass::Forward, ready)
        } else if it.loads && load.miss {
            (load_class(load.level), l1_done)
        } else if !it.compute_uses.is_empty() && op_latency * scale > scale + EPS {
            (LatencyClass::Long, issue + scale)
        } else if it.loads {
            (LatencyClass::L1, ready)
        } else {
            (LatencyClass::Short, ready)
        };
        let (wait_class, wait_from) = if it.loads && !it.compute_uses.is_empty() && load.done >= data_ready {
            if load.waited_memory {
                (LatencyClass::Forward, wait_on)
            } else if load.miss {
                (load_class(load.level), l1_done.min(wait_on))
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
}
