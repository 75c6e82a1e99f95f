//! Per-static-instruction facts the accounting views need beyond the stage
//! times: uop counts per part, microcode, divider occupancy and the FP shape
//! (scalar/vector, FMA, how much of the widest vector it uses).
//!
//! Static analysis hands the views the whole table up front. A dynamic run
//! discovers static instructions as QEMU executes them on the producer thread
//! while the views run on a timing worker: the producer appends to a
//! [`SharedFacts`] before the first record naming the instruction is sent, and
//! the views copy new entries into their own table the first time they see an
//! index beyond it (rare: once per batch of new instructions, never per record).

use bottlenose_decode::{BranchKind, DecodedInst, FpClass};
use bottlenose_machine::Machine;
use bottlenose_timing::InstrTiming;
use std::sync::{Arc, Mutex};

/// FP arithmetic kind of an instruction (moves and logic are `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum FpKind {
    #[default]
    None,
    Scalar,
    Vector,
}

#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub struct StaticFacts {
    /// Dispatch/ROB/retirement slots (after micro- and macro-fusion).
    pub fused: u16,
    /// Cycles a divide keeps its unit busy (its largest busy count), for `DividerActive`.
    pub divider_cycles: u16,
    /// Floating-point operations per execution (lanes × 2 for FMA).
    pub flops: u16,
    /// Uops executed on ports by the load part, the compute part and the store part.
    /// The compute part counts at most `max(fused, 1)` uops: busy cycles of an
    /// unpipelined unit (`fpdiv = 4`) are occupancy, not uops.
    pub load_uops: u8,
    pub compute_uops: u8,
    pub store_uops: u8,
    /// More than 4 fused uops: supplied by the microcode sequencer on Intel-like cores.
    pub microcoded: bool,
    pub is_divide: bool,
    pub branch: bool,
    pub fp: FpKind,
    pub fma: bool,
    /// Share of the machine's widest vector the operation uses (scalar double on a
    /// 256-bit machine: 0.25; a single-precision lane counts 32 bits).
    pub width: f32,
    /// Execution latency of the compute part (nominal), for penalty estimates.
    pub op_latency: f32,
}

impl StaticFacts {
    pub fn new(machine: &Machine, inst: &DecodedInst, t: &InstrTiming) -> Self {
        let sum = |uses: &[bottlenose_timing::Use]| uses.iter().map(|u| u.count.ceil()).sum::<f64>();
        // a pre/post-index base update is an executed integer uop too
        let executed = sum(&t.compute_uses) + sum(&t.writeback_uses);
        let compute = if executed == 0.0 { 0.0 } else { executed.min(t.fused_uops.max(1) as f64) };
        let max_bits = machine.params.vector.max_bits.max(64) as f32;
        let fp = match inst.fp {
            FpClass::None => FpKind::None,
            FpClass::PackedHalf | FpClass::PackedSingle | FpClass::PackedDouble => FpKind::Vector,
            _ => FpKind::Scalar,
        };
        let elem_bits = match inst.fp {
            FpClass::ScalarHalf | FpClass::PackedHalf => 16.0,
            FpClass::ScalarSingle | FpClass::PackedSingle => 32.0,
            _ => 64.0,
        };
        let width = match fp {
            FpKind::None => 0.0,
            FpKind::Scalar => elem_bits / max_bits,
            FpKind::Vector => {
                let lanes = (inst.flops / if inst.fma { 2 } else { 1 }).max(1) as f32;
                (lanes * elem_bits / max_bits).min(1.0)
            }
        };
        let divider = if inst.is_divide {
            t.compute_uses.iter().map(|u| u.count).fold(1.0, f64::max).ceil() as u16
        } else {
            0
        };
        StaticFacts {
            fused: t.fused_uops.min(u16::MAX as u32) as u16,
            load_uops: sum(&t.load_uses).min(255.0) as u8,
            compute_uops: compute.min(255.0) as u8,
            store_uops: (sum(&t.store_address_uses) + sum(&t.store_data_uses)).min(255.0) as u8,
            microcoded: t.fused_uops > 4,
            is_divide: inst.is_divide,
            divider_cycles: divider,
            branch: inst.branch != BranchKind::None,
            fp,
            fma: inst.fma,
            flops: inst.flops,
            width,
            op_latency: t.op_latency as f32,
        }
    }

    /// Facts of a block (static analysis).
    pub fn block(machine: &Machine, insts: &[DecodedInst], timings: &[InstrTiming]) -> Vec<StaticFacts> {
        insts.iter().zip(timings).map(|(d, t)| StaticFacts::new(machine, d, t)).collect()
    }
}

/// The table of a dynamic run, appended by the producer, read by the views.
#[derive(Clone, Default)]
pub struct SharedFacts(Arc<Mutex<Vec<StaticFacts>>>);

impl SharedFacts {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the facts of static instruction number `index` (indices are dense, in order).
    pub fn push(&self, index: usize, f: StaticFacts) {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        debug_assert_eq!(v.len(), index);
        if v.len() <= index {
            v.resize(index + 1, StaticFacts::default());
        }
        v[index] = f;
    }

    /// Copies the entries from `from` on into `into`.
    pub fn copy_new(&self, into: &mut Vec<StaticFacts>) {
        let v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if v.len() > into.len() {
            into.extend_from_slice(&v[into.len()..]);
        }
    }
}
