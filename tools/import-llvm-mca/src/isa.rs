//! Which ISA extensions a CPU has.
//!
//! llvm-mca does not check that an instruction exists on `-mcpu`: the X86 models
//! share scheduling classes, so the Skylake client model happily times
//! `vpternlogd xmm` or `sha256rnds2`. A table for a CPU should only hold forms it
//! can run, so representatives are filtered by the CPUID features iced reports for
//! them against an allowlist per CPU, transcribed from the processor feature
//! lists in LLVM's `llvm/lib/Target/X86/X86.td` (SKLFeatures, ZN4Features).

use iced_x86::{CpuidFeature, Instruction};

/// Features common to every x86-64 CPU the tool knows.
const BASE: &[&str] = &[
    "INTEL8086",
    "INTEL186",
    "INTEL286",
    "INTEL386",
    "INTEL486",
    "X64",
    "CPUID",
    "FPU",
    "FPU287",
    "FPU387",
    "CMOV",
    "CX8",
    "CMPXCHG16B",
    "MMX",
    "SSE",
    "SSE2",
    "SSE3",
    "SSSE3",
    "SSE4_1",
    "SSE4_2",
    "POPCNT",
    "LZCNT",
    "SYSCALL",
    "SEP",
    "TSC",
    "RDTSCP",
    "RDPMC",
    "MSR",
    "MULTIBYTENOP",
    "PAUSE",
    "FXSR",
    "XSAVE",
    "XSAVEC",
    "XSAVEOPT",
    "XSAVES",
    "MONITOR",
    "CLFSH",
    "CLFLUSHOPT",
    "AES",
    "PCLMULQDQ",
    "AVX",
    "AVX2",
    "FMA",
    "F16C",
    "BMI1",
    "BMI2",
    "ADX",
    "MOVBE",
    "RDRAND",
    "RDSEED",
    "FSGSBASE",
    "INVPCID",
    "PREFETCHW",
    "SMAP",
    "CET_IBT",
];

/// Intel Skylake client (LLVM `skylake`): up to AVX2, plus TSX, SGX, MPX, VMX.
const SKYLAKE: &[&str] = &[
    "HLE",
    "HLE_or_RTM",
    "RTM",
    "SGX1",
    "MPX",
    "VMX",
    "SMX",
    "INVEPT",
    "INVVPID",
];

/// AMD Zen 4 (LLVM `znver4`): AVX-512 (no FP16/VP2INTERSECT), SHA, GFNI, VAES, ...
const ZNVER4: &[&str] = &[
    "AVX512F",
    "AVX512CD",
    "AVX512DQ",
    "AVX512BW",
    "AVX512VL",
    "AVX512_IFMA",
    "AVX512_VBMI",
    "AVX512_VBMI2",
    "AVX512_VNNI",
    "AVX512_BF16",
    "AVX512_BITALG",
    "AVX512_VPOPCNTDQ",
    "GFNI",
    "VAES",
    "VPCLMULQDQ",
    "SHA",
    "SSE4A",
    "CLZERO",
    "CLWB",
    "RDPID",
    "WBNOINVD",
    "PKU",
    "MONITORX",
    "RDPRU",
    "SVM",
    "SKINIT",
    "SKINIT_or_SVM",
    "CET_SS",
    "INVLPGB",
    "MCOMMIT",
    "SEV_ES",
    "SEV_SNP",
    "RMPQUERY",
];

/// Intel Ice Lake server (LLVM `icelake-server`, ICXFeatures): Skylake-SP's AVX-512
/// (F/CD/DQ/BW/VL) plus Cannon Lake's IFMA/VBMI/SHA and Ice Lake's VBMI2, VNNI, BITALG,
/// VPOPCNTDQ, GFNI, VAES, VPCLMULQDQ; no MPX.
const ICELAKE_SERVER: &[&str] = &[
    "AVX512F",
    "AVX512CD",
    "AVX512DQ",
    "AVX512BW",
    "AVX512VL",
    "AVX512_IFMA",
    "AVX512_VBMI",
    "AVX512_VBMI2",
    "AVX512_VNNI",
    "AVX512_BITALG",
    "AVX512_VPOPCNTDQ",
    "GFNI",
    "VAES",
    "VPCLMULQDQ",
    "SHA",
    "CLWB",
    "RDPID",
    "PKU",
    "WBNOINVD",
    "PCONFIG",
    "SGX1",
    "HLE",
    "HLE_or_RTM",
    "RTM",
    "VMX",
    "SMX",
    "INVEPT",
    "INVVPID",
];

/// Intel Sapphire Rapids (LLVM `sapphirerapids`, SPRFeatures): Ice Lake server plus
/// AVX512-FP16/BF16, AVX-VNNI, AMX, MOVDIRI/MOVDIR64B, ENQCMD, SERIALIZE, TSXLDTRK,
/// UINTR, WAITPKG, CLDEMOTE, PTWRITE, CET shadow stack.
const SAPPHIRERAPIDS_EXTRA: &[&str] = &[
    "AVX512_FP16",
    "AVX512_BF16",
    "AVX_VNNI",
    "AMX_TILE",
    "AMX_INT8",
    "AMX_BF16",
    "MOVDIRI",
    "MOVDIR64B",
    "ENQCMD",
    "SERIALIZE",
    "TSXLDTRK",
    "UINTR",
    "WAITPKG",
    "CLDEMOTE",
    "PTWRITE",
    "CET_SS",
];

/// AMD Zen 3 (LLVM `znver3`, ZN3Features): Zen 4's list without AVX-512 and GFNI.
const ZNVER3: &[&str] = &[
    "VAES",
    "VPCLMULQDQ",
    "SHA",
    "SSE4A",
    "CLZERO",
    "CLWB",
    "RDPID",
    "WBNOINVD",
    "PKU",
    "MONITORX",
    "RDPRU",
    "SVM",
    "SKINIT",
    "SKINIT_or_SVM",
    "CET_SS",
    "INVLPGB",
    "SEV_ES",
    "SEV_SNP",
    "RMPQUERY",
];

/// The allowlist for `mcpu`, or `None` when the tool does not know the CPU (then
/// nothing is filtered).
pub fn allowed(mcpu: &str) -> Option<Vec<&'static str>> {
    let (extra, more): (&[&str], &[&str]) = match mcpu {
        "skylake" => (SKYLAKE, &[]),
        "znver4" => (ZNVER4, &[]),
        "znver3" => (ZNVER3, &[]),
        "icelake-server" => (ICELAKE_SERVER, &[]),
        "sapphirerapids" | "emeraldrapids" => (ICELAKE_SERVER, SAPPHIRERAPIDS_EXTRA),
        _ => return None,
    };
    Some(BASE.iter().chain(extra).chain(more).copied().collect())
}

/// The CPUID features `instr` needs that are not in `allowed`, by iced's names.
pub fn missing(instr: &Instruction, allowed: &[&str]) -> Vec<String> {
    instr
        .cpuid_features()
        .iter()
        .map(|f: &CpuidFeature| format!("{f:?}"))
        .filter(|f| !allowed.contains(&f.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use iced_x86::{Decoder, DecoderOptions};

    fn first(bytes: &[u8]) -> Instruction {
        Decoder::new(64, bytes, DecoderOptions::NONE).decode()
    }

    #[test]
    fn filters_by_cpu() {
        let skl = allowed("skylake").unwrap();
        let zn4 = allowed("znver4").unwrap();
        // vpaddd xmm0, xmm1, xmm2 (VEX) / vpaddd xmm16, xmm17, xmm18 (EVEX)
        let vex = first(&[0xc5, 0xf1, 0xfe, 0xc2]);
        let evex = first(&[0x62, 0xa1, 0x75, 0x00, 0xfe, 0xc2]);
        assert_eq!(format!("{:?}", evex.mnemonic()), "Vpaddd");
        assert!(missing(&vex, &skl).is_empty());
        assert_eq!(missing(&evex, &skl), ["AVX512VL", "AVX512F"]);
        assert!(missing(&evex, &zn4).is_empty());
        // sha1nexte xmm0, xmm1
        let sha = first(&[0x0f, 0x38, 0xc8, 0xc1]);
        assert_eq!(missing(&sha, &skl), ["SHA"]);
        assert!(missing(&sha, &zn4).is_empty());
        // add rax, rbx
        assert!(missing(&first(&[0x48, 0x01, 0xd8]), &skl).is_empty());
        assert!(allowed("pentium4").is_none());
    }
}
