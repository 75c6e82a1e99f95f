//! Reading CPUID on the CPU this thread runs on (x86-64 only), leaf by leaf
//! with the subleaves each leaf defines; see [`CpuidDump::read_live`].

use super::{CpuidDump, Regs};
use std::arch::x86_64::__cpuid_count;

#[allow(unused_unsafe)] // __cpuid_count is a safe fn in recent toolchains, unsafe in older ones
fn cpuid(leaf: u32, sub: u32) -> Regs {
    // SAFETY: CPUID exists on every x86-64 CPU; a leaf above the maximum
    // returns other data but does not fault, and the callers stay within the maxima.
    let r = unsafe { __cpuid_count(leaf, sub) };
    Regs {
        eax: r.eax,
        ebx: r.ebx,
        ecx: r.ecx,
        edx: r.edx,
    }
}

/// Subleaves until `stop` says the list ended (that one is kept), at most `cap`.
fn until(d: &mut CpuidDump, leaf: u32, cap: u32, stop: impl Fn(&Regs) -> bool) {
    for sub in 0..cap {
        let r = cpuid(leaf, sub);
        d.insert(leaf, sub, r);
        if stop(&r) {
            break;
        }
    }
}

/// Subleaves 0..=max where max is read from subleaf 0's EAX.
fn counted(d: &mut CpuidDump, leaf: u32, cap: u32) {
    let max = cpuid(leaf, 0).eax.min(cap);
    for sub in 0..=max {
        d.insert(leaf, sub, cpuid(leaf, sub));
    }
}

fn standard(d: &mut CpuidDump, leaf: u32) {
    match leaf {
        4 => until(d, 4, 16, |r| r.eax & 0x1f == 0),
        7 | 0x14 | 0x17 | 0x18 | 0x1D | 0x20 | 0x24 => counted(d, leaf, 32),
        0xB | 0x1F => until(d, leaf, 8, |r| (r.ecx >> 8) & 0xff == 0),
        0xD => {
            let s0 = cpuid(0xD, 0);
            let s1 = cpuid(0xD, 1);
            d.insert(0xD, 0, s0);
            d.insert(0xD, 1, s1);
            let mask = (u64::from(s0.edx) << 32 | u64::from(s0.eax))
                | (u64::from(s1.edx) << 32 | u64::from(s1.ecx));
            for sub in 2..63 {
                if mask >> sub & 1 == 1 {
                    d.insert(0xD, sub, cpuid(0xD, sub));
                }
            }
        }
        0xF | 0x10 => {
            let s0 = cpuid(leaf, 0);
            d.insert(leaf, 0, s0);
            let mask = if leaf == 0xF { s0.edx } else { s0.ebx };
            for sub in 1..4 {
                if mask >> sub & 1 == 1 {
                    d.insert(leaf, sub, cpuid(leaf, sub));
                }
            }
        }
        0x23 => until(d, 0x23, 8, |r| r.eax == 0 && r.ebx == 0),
        _ => d.insert(leaf, 0, cpuid(leaf, 0)),
    }
}

pub(super) fn read() -> Option<CpuidDump> {
    let mut d = CpuidDump::new("live CPUID");
    let l0 = cpuid(0, 0);
    // A bogus maximum (some hypervisors) would enumerate garbage: cap it.
    let max = l0.eax.min(0x40);
    for leaf in 0..=max {
        standard(&mut d, leaf);
    }
    let hypervisor = max >= 1 && d.leaf(1).is_some_and(|r| r.ecx >> 31 & 1 == 1);
    if hypervisor {
        let h = cpuid(0x4000_0000, 0);
        let hmax = if (0x4000_0000..=0x4000_00ff).contains(&h.eax) {
            h.eax.min(0x4000_0010)
        } else {
            0x4000_0000
        };
        for leaf in 0x4000_0000..=hmax {
            d.insert(leaf, 0, cpuid(leaf, 0));
        }
    }
    let e = cpuid(0x8000_0000, 0);
    if (0x8000_0000..=0x8000_00ff).contains(&e.eax) {
        for leaf in 0x8000_0000..=e.eax.min(0x8000_0040) {
            match leaf {
                0x8000_001D => until(&mut d, leaf, 16, |r| r.eax & 0x1f == 0),
                0x8000_0026 => until(&mut d, leaf, 8, |r| (r.ecx >> 8) & 0xff == 0),
                0x8000_0020 => {
                    let s0 = cpuid(leaf, 0);
                    d.insert(leaf, 0, s0);
                    for sub in 1..8 {
                        if s0.ebx >> sub & 1 == 1 {
                            d.insert(leaf, sub, cpuid(leaf, sub));
                        }
                    }
                }
                _ => d.insert(leaf, 0, cpuid(leaf, 0)),
            }
        }
    }
    Some(d)
}
