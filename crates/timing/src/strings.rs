//! String instructions (`rep movs`, `rep stos`, `repe cmps`, `repne scas`, `rep lods`
//! and their one-element forms) timed as one operation per execution: a start-up cost,
//! then a byte or element rate (the machine's `[strings]`), bounded by the fills of the
//! lines it touches and by the drain of its stores into L1 (see `model/string_op.rs`).
//!
//! QEMU reports a repeated string instruction once per element; the trace source
//! collapses those reports into one execution with its element count and the line
//! transfers it caused ([`StringWork`]). A static block has no count: it is timed with
//! [`ASSUMED_STATIC_BYTES`] and the report says so.

use crate::resolve::{resolve, InstrTiming};
use bottlenose_decode::{DecodedInst, StringKind, StringOp};
use bottlenose_machine::{Machine, StringOpParams};
use serde::Serialize;

/// Bytes a repeated string instruction is assumed to cover when the count is not known
/// (static analysis of a block: `rcx` is a run-time value).
pub const ASSUMED_STATIC_BYTES: u32 = 64;

/// How a string instruction is timed on a machine, resolved once per static instruction.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct StringTiming {
    pub op: StringOp,
    /// The machine's figures for this kind of string instruction.
    pub params: StringOpParams,
    /// Bytes per cycle its stores drain into L1 (0: it does not store).
    pub store_bytes_per_cycle: f64,
    /// Younger instructions dispatch this long before it completes (machine `overlap_cycles`).
    pub overlap_cycles: f64,
    /// Bytes per cycle it writes lines no cache holds without reading them first (0: it
    /// reads them, a write-allocate fill each; machine `no_rfo`).
    pub streaming_bytes_per_cycle: f64,
}

/// What one execution of a string instruction did: filled in by the trace source from
/// the collapsed per-element reports, by static analysis from an assumed count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StringWork {
    /// Elements processed (`rcx` at the start for `rep movs`/`stos`/`lods`, up to
    /// the stop for `repe`/`repne`; 1 without a prefix).
    pub elements: u32,
    /// Line transfers the lines it touched needed: into L1 from L2 (index 0), into L2
    /// from L3 (1), into L3 from DRAM (2). A line from DRAM counts in all three. Loads and
    /// write-allocated stores alike; a prefetch its accesses started counts as well.
    pub fills: [u32; 3],
}

impl StringTiming {
    /// Bytes `elements` elements cover.
    pub fn bytes(&self, elements: u32) -> f64 {
        elements as f64 * self.op.element_bytes as f64
    }

    /// Cycles of the work itself with its data in L1 (start-up scaled by `latency_scale`):
    /// see [`StringOpParams`].
    pub fn core_cycles(&self, elements: u32, latency_scale: f64) -> f64 {
        let p = &self.params;
        let bytes = self.bytes(elements);
        let per_element = elements as f64 * p.cycles_per_element;
        if !self.op.repeats() {
            // one element, no start-up: at least a cycle
            return (bytes / p.bytes_per_cycle).max(p.cycles_per_element).max(1.0);
        }
        if p.short_bytes > 0 && bytes <= p.short_bytes as f64 {
            return p.short_cycles * latency_scale;
        }
        p.startup * latency_scale + (bytes / p.bytes_per_cycle).max(per_element)
    }

    /// Cycles its stores take to drain into L1 (0 for a string instruction that only loads).
    pub fn drain_cycles(&self, elements: u32) -> f64 {
        if self.store_bytes_per_cycle > 0.0 {
            self.bytes(elements) / self.store_bytes_per_cycle
        } else {
            0.0
        }
    }

    /// The work static analysis assumes: [`ASSUMED_STATIC_BYTES`] for a repeated
    /// instruction, one element otherwise, all in L1.
    pub fn assumed_work(&self) -> StringWork {
        let elements = if self.op.repeats() { (ASSUMED_STATIC_BYTES / self.op.element_bytes.max(1) as u32).max(1) } else { 1 };
        StringWork { elements, fills: [0; 3] }
    }
}

/// Resolves a string instruction: the registers and fetch facts of any instruction,
/// the machine's `[strings]` figures instead of the form table (LLVM's tables give these
/// instructions a 100-cycle placeholder per element), no port uses of its own.
pub(crate) fn resolve_string(machine: &Machine, inst: &DecodedInst, op: StringOp) -> InstrTiming {
    let s = &machine.params.strings;
    let params = match op.kind {
        StringKind::Movs => s.movs,
        StringKind::Stos => s.stos,
        StringKind::Lods => s.lods,
        StringKind::Cmps => s.cmps,
        StringKind::Scas => s.scas,
    };
    let stores = matches!(op.kind, StringKind::Movs | StringKind::Stos);
    let string = StringTiming {
        op,
        params,
        store_bytes_per_cycle: if stores { s.store_bytes_per_cycle } else { 0.0 },
        overlap_cycles: s.overlap_cycles,
        streaming_bytes_per_cycle: if stores && params.no_rfo { s.streaming_bytes_per_cycle } else { 0.0 },
    };
    let mut plain = inst.clone();
    plain.string_op = None;
    let mut t = resolve(machine, &plain, None);
    t.fused_uops = params.uops;
    t.unfused_uops = 0;
    for uses in [&mut t.load_uses, &mut t.compute_uses, &mut t.store_address_uses, &mut t.store_data_uses, &mut t.writeback_uses] {
        uses.clear();
    }
    // its memory traffic is timed by the string path, not by the load/store parts
    t.loads = false;
    t.stores = false;
    t.load_latency = 0.0;
    t.op_latency = 0.0;
    t.latency = string.core_cycles(string.assumed_work().elements, 1.0);
    t.unknown_form = false;
    t.eliminated = false;
    t.mem_key = 0;
    t.string = Some(string);
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_decode::Repeat;

    fn timing(kind: StringKind, element_bytes: u8, repeat: Repeat, params: StringOpParams) -> StringTiming {
        StringTiming { op: StringOp { kind, element_bytes, repeat }, params, store_bytes_per_cycle: 32.0, overlap_cycles: 60.0, streaming_bytes_per_cycle: 0.0 }
    }

    const P: StringOpParams = StringOpParams {
        startup: 23.0,
        bytes_per_cycle: 32.0,
        cycles_per_element: 0.0,
        short_bytes: 64,
        short_cycles: 12.0,
        uops: 4,
        no_rfo: false,
    };

    #[test]
    fn core_cycles_follow_the_short_path_then_startup_plus_bytes() {
        let t = timing(StringKind::Movs, 1, Repeat::Count, P);
        // short path up to 64 bytes, rcx = 0 included
        assert_eq!(t.core_cycles(0, 1.0), 12.0);
        assert_eq!(t.core_cycles(64, 1.0), 12.0);
        // 1 KiB: 23 + 1024 / 32
        assert_eq!(t.core_cycles(1024, 1.0), 55.0);
        // rep movsq over 1 KiB: the same bytes
        let q = timing(StringKind::Movs, 8, Repeat::Count, P);
        assert_eq!(q.core_cycles(128, 1.0), 55.0);
        // a faster start-up (the latency knob) shortens only the start-up
        assert_eq!(t.core_cycles(1024, 0.5), 11.5 + 32.0);
    }

    #[test]
    fn element_loops_take_the_slower_of_bytes_and_elements() {
        let p = StringOpParams { startup: 17.0, cycles_per_element: 2.0, short_bytes: 0, ..P };
        let t = timing(StringKind::Scas, 1, Repeat::WhileNotEqual, p);
        // 100 bytes: 2 cycles per element beats 32 bytes per cycle
        assert_eq!(t.core_cycles(100, 1.0), 17.0 + 200.0);
        assert_eq!(t.core_cycles(0, 1.0), 17.0);
        // without a prefix: one element, no start-up
        let once = timing(StringKind::Scas, 1, Repeat::Once, p);
        assert_eq!(once.core_cycles(1, 1.0), 2.0);
        assert_eq!(once.assumed_work().elements, 1);
    }

    #[test]
    fn static_assumption_covers_the_stated_bytes() {
        let t = timing(StringKind::Stos, 8, Repeat::Count, P);
        assert_eq!(t.assumed_work(), StringWork { elements: ASSUMED_STATIC_BYTES / 8, fills: [0; 3] });
        assert_eq!(t.drain_cycles(8), 64.0 / 32.0);
    }
}
