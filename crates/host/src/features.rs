//! The CPUID feature flags that tell the machine models apart.

use crate::dump::{CpuidDump, Regs};

/// Feature flags that tell the machine models apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// CPUID.1:ECX[20].
    pub sse4_2: bool,
    /// CPUID.1:ECX[28].
    pub avx: bool,
    /// CPUID.7.0:EBX[5].
    pub avx2: bool,
    /// CPUID.1:ECX[12].
    pub fma: bool,
    /// CPUID.7.0:EBX[16].
    pub avx512f: bool,
    /// CPUID.7.0:EBX[30].
    pub avx512bw: bool,
    /// CPUID.7.0:EBX[31].
    pub avx512vl: bool,
    /// CPUID.7.0:ECX[6] (Ice Lake and later; Skylake-SP and Cascade Lake lack it).
    pub avx512_vbmi2: bool,
    /// CPUID.7.0:EDX[23].
    pub avx512_fp16: bool,
    /// CPUID.7.1:EAX[5].
    pub avx512_bf16: bool,
    /// CPUID.7.0:EDX[8].
    pub avx512_vp2intersect: bool,
    /// CPUID.7.0:EDX[24].
    pub amx_tile: bool,
    /// CPUID.7.0:EDX[22].
    pub amx_bf16: bool,
    /// CPUID.7.1:EAX[21].
    pub amx_fp16: bool,
    /// CPUID.7.0:EBX[9]: enhanced REP MOVSB/STOSB.
    pub erms: bool,
    /// CPUID.7.0:EDX[4]: fast short REP MOV.
    pub fsrm: bool,
    /// CPUID.7.0:EDX[15]: hybrid part.
    pub hybrid: bool,
}

impl Features {
    /// Reads the flags from leaves 1, 7.0 and 7.1.
    pub fn from_dump(d: &CpuidDump) -> Features {
        let l1 = d.leaf(1).unwrap_or_default();
        let max = d.leaf(0).map_or(0, |r| r.eax);
        let l7 = if max >= 7 {
            d.get(7, 0).unwrap_or_default()
        } else {
            Regs::default()
        };
        let l7_1 = if max >= 7 && l7.eax >= 1 {
            d.get(7, 1).unwrap_or_default()
        } else {
            Regs::default()
        };
        let bit = |r: u32, b: u32| r >> b & 1 == 1;
        Features {
            sse4_2: bit(l1.ecx, 20),
            avx: bit(l1.ecx, 28),
            fma: bit(l1.ecx, 12),
            avx2: bit(l7.ebx, 5),
            erms: bit(l7.ebx, 9),
            avx512f: bit(l7.ebx, 16),
            avx512bw: bit(l7.ebx, 30),
            avx512vl: bit(l7.ebx, 31),
            avx512_vbmi2: bit(l7.ecx, 6),
            fsrm: bit(l7.edx, 4),
            avx512_vp2intersect: bit(l7.edx, 8),
            hybrid: bit(l7.edx, 15),
            amx_bf16: bit(l7.edx, 22),
            avx512_fp16: bit(l7.edx, 23),
            amx_tile: bit(l7.edx, 24),
            avx512_bf16: bit(l7_1.eax, 5),
            amx_fp16: bit(l7_1.eax, 21),
        }
    }

    /// The set flags by their Linux `/proc/cpuinfo` names.
    pub fn names(&self) -> Vec<&'static str> {
        let all = [
            (self.sse4_2, "sse4_2"),
            (self.avx, "avx"),
            (self.avx2, "avx2"),
            (self.fma, "fma"),
            (self.avx512f, "avx512f"),
            (self.avx512bw, "avx512bw"),
            (self.avx512vl, "avx512vl"),
            (self.avx512_vbmi2, "avx512_vbmi2"),
            (self.avx512_fp16, "avx512_fp16"),
            (self.avx512_bf16, "avx512_bf16"),
            (self.avx512_vp2intersect, "avx512_vp2intersect"),
            (self.amx_tile, "amx_tile"),
            (self.amx_bf16, "amx_bf16"),
            (self.amx_fp16, "amx_fp16"),
            (self.erms, "erms"),
            (self.fsrm, "fsrm"),
            (self.hybrid, "hybrid"),
        ];
        all.into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| n)
            .collect()
    }
}
