//! The per-cycle sweep: once no later instruction can book into a cycle, what
//! was booked into it (uops executed, loads in flight, change-points of blame)
//! becomes Top-Down event counts, the issue CPI stack and idle FP-unit cycles.

use super::{fmin, Cell, Lanes, BPRED, ICACHE, NONE, OTHER, SET, STORES, V_NO_FP};
use crate::flops_stack::{FlopsCounters, IdleFp, IDLE_CAUSES};
use crate::topdown::TopDownCounters;

/// Constants of the per-cycle sweep.
#[derive(Clone, Copy, Debug)]
pub(super) struct SweepParams {
    pub(super) width: f64,
    pub(super) inv_w: f64,
    pub(super) few: u8,
    pub(super) bw: u64,
    pub(super) fp_units: f64,
}

/// State carried from cycle to cycle by the sweep.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sweep {
    pub(super) in_flight: i64,
    pub(super) divider: i32,
    pub(super) cur_rs: u8,
    /// The oldest waiting instruction waits for a load's data.
    pub(super) rs_on_load: bool,
    pub(super) cur_fe: u8,
    pub(super) cur_vfp: u8,
    pub(super) any_vfp: bool,
    pub(super) iss_carry: f64,
    pub(super) vfp_carry: f64,
}

/// What the sweep accumulates.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SweepAcc {
    /// Cycles with 0, 1, 2, ≥ 3 uops executed (0: only non-empty cells).
    pub(super) ops: [u64; 4],
    /// Cycles with no uop executed and a load in flight (any, missed L1, L2, L3).
    pub(super) mem: [u64; 4],
    pub(super) mem_stores: u64,
    pub(super) ext_c1: u64,
    pub(super) ext_ct: u64,
    pub(super) ext_occupancy: u64,
    pub(super) divider_active: u64,
    /// Stall cycles per component at dispatch, issue, commit (base is computed at the end).
    pub(super) cpi: [[f64; 16]; 3],
    /// Idle FP-unit cycles per FLOPS-stack label.
    pub(super) idle: [f64; IDLE_CAUSES],
}

impl SweepAcc {
    pub(super) fn add(&mut self, o: &SweepAcc) {
        let sum = |a: &mut [u64], b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        sum(&mut self.ops, &o.ops);
        sum(&mut self.mem, &o.mem);
        self.mem_stores += o.mem_stores;
        self.ext_c1 += o.ext_c1;
        self.ext_ct += o.ext_ct;
        self.ext_occupancy += o.ext_occupancy;
        self.divider_active += o.divider_active;
        for (a, b) in self.cpi.iter_mut().zip(&o.cpi) {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        self.idle.iter_mut().zip(&o.idle).for_each(|(x, y)| *x += y);
    }

    pub(super) fn export(&self, td: &mut TopDownCounters, flops: &mut FlopsCounters) {
        td.ops_c1 = self.ops[1] + self.ops[2] + self.ops[3];
        td.ops_c2 = self.ops[2] + self.ops[3];
        td.ops_c3 = self.ops[3];
        td.mem_any = self.mem[0];
        td.mem_l1 = self.mem[1];
        td.mem_l2 = self.mem[2];
        td.mem_l3 = self.mem[3];
        td.mem_stores = self.mem_stores;
        td.ext_c1 = self.ext_c1;
        td.ext_ct = self.ext_ct;
        td.ext_occupancy = self.ext_occupancy;
        td.divider_active = self.divider_active;
        flops.idle = self.idle;
    }
}

/// Sweeps cycles `from..to` of the ring (a free function, so that the compiler
/// knows the ring, the state and the accumulators do not alias). `k` cycles in
/// a row in which nothing was booked share one state and are counted at once.
/// Sums that follow a label are kept in a register while the label holds
/// (a memory accumulator per cycle would serialize the loop).
pub(super) fn sweep(ring: &mut [Cell], mask: usize, from: i64, to: i64, sp: &SweepParams, st: &mut Sweep, acc: &mut SweepAcc) {
    let mut s = *st;
    let w = sp.width;
    let (mut c1, mut c2, mut c3) = (0u64, 0u64, 0u64);
    // running sums of the current issue-stack and FLOPS labels
    let mut iss_label = u8::MAX;
    let mut iss_sum = 0.0;
    let mut vfp_label = u8::MAX;
    let mut vfp_sum = 0.0;
    let mut c = from;
    while c < to {
        let slot = &mut ring[c as usize & mask];
        let e = *slot;
        let (ops, iss, vfp_n) = (Lanes::ops(e.counts), Lanes::issued(e.counts), Lanes::fp(e.counts));
        // how many cycles share this state: this one, and the empty ones after it
        let mut k: i64 = 1;
        if e.is_empty() {
            while c + k < to && ring[(c + k) as usize & mask].is_empty() {
                k += 1;
            }
        } else {
            *slot = Cell::default();
            c1 += (ops >= 1) as u64;
            c2 += (ops >= 2) as u64;
            c3 += (ops >= 3) as u64;
            s.in_flight += e.d_mem;
            s.divider += e.d_div as i32;
            if e.rs != 0 {
                s.cur_rs = e.rs & !(SET | super::ON_LOAD);
                s.rs_on_load = e.rs & super::ON_LOAD != 0;
            }
            if e.fe != 0 {
                s.cur_fe = e.fe & !SET;
            }
            if e.vfp != 0 {
                s.cur_vfp = e.vfp & !SET;
            }
        }
        let ku = k as u64;
        let m = s.in_flight as u64;
        // a load stall: no uop executed while a load that missed L1 is in flight,
        // or an L1 hit is and the oldest waiting instruction waits for a load's
        // data (or none waits). L1 hits running ahead of an FP-add chain are in
        // flight in its stall cycles without causing them.
        let miss_in_flight = (m & 0xffff_0000) != 0;
        let load_stall = ops == 0 && (m & 0xffff) != 0 && (miss_in_flight || s.rs_on_load || s.cur_rs == NONE);
        if m != 0 {
            let dram = m >> 48;
            if load_stall {
                acc.mem[0] += ku;
                acc.mem[1] += ku * ((m & 0xffff_0000) != 0) as u64;
                acc.mem[2] += ku * ((m & 0xffff_0000_0000) != 0) as u64;
                acc.mem[3] += ku * (dram != 0) as u64;
            }
            if dram != 0 {
                acc.ext_c1 += ku;
                acc.ext_ct += ku * (dram >= sp.bw) as u64;
                acc.ext_occupancy += ku * dram;
            }
        }
        // stores count only where no load stall does: Yasin §3.7 puts loads first
        if s.cur_fe == STORES && ops <= sp.few && !load_stall {
            acc.mem_stores += ku;
        }
        if s.divider > 0 {
            acc.divider_active += ku;
        }
        // issue stage (Eyerman Table II, column 2): the oldest waiting
        // instruction; with an empty scheduler, why dispatch stalled
        let l = if s.cur_rs != NONE {
            s.cur_rs
        } else if s.cur_fe != NONE {
            s.cur_fe
        } else {
            OTHER
        };
        let lost = if iss == 0 && s.iss_carry == 0.0 {
            k as f64
        } else {
            // a carry drains over the following cycles, one at a time
            let avail = iss as f64 + s.iss_carry;
            let used = fmin(avail, w);
            s.iss_carry = avail - used;
            let mut lost = 1.0 - used * sp.inv_w;
            let mut rest = k - 1;
            while rest > 0 && s.iss_carry > 0.0 {
                let used = fmin(s.iss_carry, w);
                s.iss_carry -= used;
                lost += 1.0 - used * sp.inv_w;
                rest -= 1;
            }
            lost + rest as f64
        };
        if l != iss_label {
            if iss_label != u8::MAX {
                acc.cpi[1][iss_label as usize & 15] += iss_sum;
            }
            iss_label = l;
            iss_sum = 0.0;
        }
        iss_sum += lost;
        // FLOPS stack (Table III): idle FP-unit cycles
        if s.any_vfp {
            let kk = sp.fp_units;
            let idle = if vfp_n == 0 && s.vfp_carry == 0.0 {
                k as f64 * kk
            } else {
                let mut idle = 0.0;
                let mut carry = vfp_n as f64 + s.vfp_carry;
                for _ in 0..k.min(4) {
                    let used = fmin(carry, kk);
                    carry -= used;
                    idle += kk - used;
                }
                s.vfp_carry = carry;
                idle + (k - k.min(4)) as f64 * kk
            };
            // no FP instruction waiting: a stalled frontend (as the issue CPI stack
            // says for an empty scheduler) or else the instruction mix
            let why = match (s.cur_vfp, s.cur_rs, s.cur_fe) {
                (V_NO_FP, NONE, ICACHE) => IdleFp::Icache as u8,
                (V_NO_FP, NONE, BPRED) => IdleFp::Bpred as u8,
                (v, _, _) => v,
            };
            if why != vfp_label {
                if vfp_label != u8::MAX {
                    acc.idle[vfp_label as usize % IDLE_CAUSES] += vfp_sum;
                }
                vfp_label = why;
                vfp_sum = 0.0;
            }
            vfp_sum += idle;
        }
        c += k;
    }
    if iss_label != u8::MAX {
        acc.cpi[1][iss_label as usize & 15] += iss_sum;
    }
    if vfp_label != u8::MAX {
        acc.idle[vfp_label as usize % IDLE_CAUSES] += vfp_sum;
    }
    acc.ops[1] += c1 - c2;
    acc.ops[2] += c2 - c3;
    acc.ops[3] += c3;
    *st = s;
}
