//! Recorded CPUID dumps (tests/data, origins in each file's header) → the CPU, its
//! features and caches, and the machine it is identified as.

use bottlenose_host::{identify, CacheSource, CpuidDump, HostCpu, Kind, Match};
use std::path::PathBuf;

const K: u64 = 1024;
const M: u64 = 1024 * 1024;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn load(name: &str) -> HostCpu {
    let d = CpuidDump::from_file(&data(name)).unwrap_or_else(|e| panic!("{e}"));
    HostCpu::from_dump(&d).unwrap_or_else(|e| panic!("{e}"))
}

struct Expect {
    file: &'static str,
    signature: &'static str,
    hypervisor: Option<&'static str>,
    features: &'static [&'static str],
    caches: (u64, u64, u64),
    machine: &'static str,
    how: Match,
    reason: &'static str,
}

fn check(e: &Expect) {
    let cpu = load(e.file);
    assert_eq!(cpu.signature(), e.signature, "{}", e.file);
    assert_eq!(cpu.hypervisor, e.hypervisor.is_some(), "{}", e.file);
    assert_eq!(cpu.hypervisor_vendor.as_deref(), e.hypervisor, "{}", e.file);
    assert_eq!(cpu.features.names(), e.features, "{}", e.file);
    assert_eq!(
        (cpu.l1d(), cpu.l2(), cpu.l3()),
        (Some(e.caches.0), Some(e.caches.1), Some(e.caches.2)),
        "{}: {:?}",
        e.file,
        cpu.caches
    );
    let id = identify(&cpu);
    assert_eq!(
        (id.machine, id.how),
        (e.machine, e.how),
        "{}: {}",
        e.file,
        id.reason
    );
    assert_eq!(id.reason, e.reason, "{}", e.file);
    assert!(!id.reason.contains('\n'));
}

#[test]
fn skylake_client() {
    check(&Expect {
        file: "skylake-client.txt",
        signature: "GenuineIntel-6-94-3",
        hypervisor: None,
        features: &["sse4_2", "avx", "avx2", "fma", "erms"],
        caches: (32 * K, 256 * K, 8 * M),
        machine: "skylake",
        how: Match::Exact,
        reason: "GenuineIntel family 6 model 94 (0x5E) = Skylake → skylake",
    });
    let cpu = load("skylake-client.txt");
    assert_eq!(
        cpu.brand.as_deref(),
        Some("Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz")
    );
    assert_eq!(cpu.cache_source, CacheSource::Leaf4);
    let l1d = cpu.cache(1, Kind::Data).unwrap();
    assert_eq!((l1d.ways, l1d.line_size, l1d.sets), (8, 64, 64));
}

#[test]
fn skylake_server() {
    check(&Expect {
        file: "skylake-sp.txt",
        signature: "GenuineIntel-6-85-4",
        hypervisor: None,
        features: &[
            "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "erms",
        ],
        caches: (32 * K, M, 33 * M),
        machine: "skylake",
        how: Match::Exact,
        reason: "GenuineIntel family 6 model 85 (0x55) = Skylake-SP / Cascade Lake → skylake",
    });
}

#[test]
fn icelake_server() {
    check(&Expect {
        file: "icelake-server.txt",
        signature: "GenuineIntel-6-106-6",
        hypervisor: None,
        features: &[
            "sse4_2",
            "avx",
            "avx2",
            "fma",
            "avx512f",
            "avx512bw",
            "avx512vl",
            "avx512_vbmi2",
            "erms",
            "fsrm",
        ],
        caches: (48 * K, 1280 * K, 54 * M),
        machine: "icelake-server",
        how: Match::Exact,
        reason: "GenuineIntel family 6 model 106 (0x6A) = Ice Lake server → icelake-server",
    });
    // Leaf 0x18: the first-level data TLBs (load-only 64 entries 4-way... as the dump says).
    let cpu = load("icelake-server.txt");
    assert!(
        cpu.tlbs
            .iter()
            .any(|t| t.level == 1 && t.kind == Kind::LoadOnly && t.pages == ["4K"]),
        "{:?}",
        cpu.tlbs
    );
    assert!(
        cpu.tlbs
            .iter()
            .any(|t| t.level == 2 && t.kind == Kind::Unified && t.entries >= 1024),
        "{:?}",
        cpu.tlbs
    );
}

#[test]
fn sapphire_rapids() {
    check(&Expect {
        file: "sapphire-rapids.txt",
        signature: "GenuineIntel-6-143-8",
        hypervisor: None,
        features: &[
            "sse4_2",
            "avx",
            "avx2",
            "fma",
            "avx512f",
            "avx512bw",
            "avx512vl",
            "avx512_vbmi2",
            "avx512_fp16",
            "avx512_bf16",
            "amx_tile",
            "amx_bf16",
            "erms",
            "fsrm",
        ],
        caches: (48 * K, 2 * M, 37 * M + 512 * K),
        machine: "goldencove",
        how: Match::Exact,
        reason: "GenuineIntel family 6 model 143 (0x8F) = Sapphire Rapids → goldencove",
    });
}

#[test]
fn granite_rapids_masked_by_kvm() {
    check(&Expect {
        file: "graniterapids-kvm-masked.txt",
        signature: "GenuineIntel-6-167-1",
        hypervisor: Some("KVMKVMKVM"),
        features: &["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vbmi2", "avx512_fp16", "avx512_bf16", "amx_tile", "amx_bf16", "amx_fp16", "erms", "fsrm"],
        caches: (48 * K, 2 * M, 144 * M),
        machine: "graniterapids",
        how: Match::ByFeatures,
        reason: "GenuineIntel family 6 model 167 (0xA7) is Rocket Lake's number, which has no AMX: masked under a hypervisor; by features: AMX-TILE + AVX512_FP16 + AMX-FP16 → graniterapids; L2 2 MiB per core agrees",
    });
    let cpu = load("graniterapids-kvm-masked.txt");
    assert!(identify(&cpu).masked);
    assert_eq!(cpu.describe(), "Intel(R) Xeon(R) 658X (GenuineIntel-6-167-1), under a hypervisor (KVMKVMKVM); L1D 48 KiB, L2 2 MiB, L3 144 MiB");
    // Without AMX-FP16 the same guest is a Sapphire/Emerald Rapids class part.
    let mut spr = cpu.clone();
    spr.features.amx_fp16 = false;
    assert_eq!(identify(&spr).machine, "goldencove");
    // A real Rocket Lake (no AMX, no hypervisor): its Cypress Cove core is a Sunny Cove.
    let mut rkl = cpu.clone();
    (
        rkl.features.amx_tile,
        rkl.features.amx_bf16,
        rkl.features.amx_fp16,
        rkl.features.avx512_fp16,
        rkl.hypervisor,
    ) = (false, false, false, false, false);
    rkl.caches.retain(|c| c.level != 2);
    let id = identify(&rkl);
    assert_eq!(
        (id.machine, id.how, id.masked),
        ("icelake-server", Match::ByFeatures, false)
    );
    assert_eq!(id.reason, "GenuineIntel family 6 model 167 (0xA7) = Rocket Lake, which has no model of its own; by features: AVX-512 with AVX512_VBMI2, no AMX → icelake-server; no L2 size to check");
    // A known number contradicted by the features is not taken at face value.
    let mut skl = cpu;
    skl.model = 0x55;
    let id = identify(&skl);
    assert_eq!(
        (id.machine, id.how, id.masked),
        ("graniterapids", Match::ByFeatures, true)
    );
    assert!(id.reason.starts_with("GenuineIntel family 6 model 85 (0x55) is Skylake-SP / Cascade Lake's number, which has no AMX: masked under a hypervisor"), "{}", id.reason);
}

#[test]
fn zen3_milan() {
    check(&Expect {
        file: "zen3-milan.txt",
        signature: "AuthenticAMD-25-1-1",
        hypervisor: None,
        features: &["sse4_2", "avx", "avx2", "fma", "erms", "fsrm"],
        caches: (32 * K, 512 * K, 32 * M),
        machine: "zen3",
        how: Match::Exact,
        reason: "AuthenticAMD family 25 model 1 (0x1) = Zen 3 (Milan) → zen3",
    });
    let cpu = load("zen3-milan.txt");
    assert_eq!(cpu.cache_source, CacheSource::Leaf8000001D);
    assert_eq!(
        cpu.brand.as_deref(),
        Some("AMD EPYC 7763 64-Core Processor")
    );
    // AMD 0x80000005/6: L1 data TLB 64 entries fully associative for 4K pages, L2 2048 entries.
    assert!(
        cpu.tlbs
            .iter()
            .any(|t| t.level == 1 && t.kind == Kind::Data && t.pages == ["4K"] && t.entries == 64),
        "{:?}",
        cpu.tlbs
    );
    assert!(
        cpu.tlbs.iter().any(|t| t.level == 2
            && t.kind == Kind::Data
            && t.pages == ["4K"]
            && t.entries == 2048),
        "{:?}",
        cpu.tlbs
    );
}

#[test]
fn zen5_turin() {
    let cpu = load("zen5-turin.txt");
    assert_eq!(cpu.signature(), "AuthenticAMD-26-2-1");
    assert!(cpu.features.avx512_vp2intersect && cpu.features.avx512f);
    assert_eq!((cpu.l1d(), cpu.l2()), (Some(48 * K), Some(M)));
    let id = identify(&cpu);
    assert_eq!((id.machine, id.how), ("zen5", Match::Exact));
}

#[test]
fn this_host_recorded() {
    check(&Expect {
        file: "zen4-genoa-kvm-live.txt",
        signature: "AuthenticAMD-25-17-1",
        hypervisor: Some("KVMKVMKVM"),
        features: &[
            "sse4_2",
            "avx",
            "avx2",
            "fma",
            "avx512f",
            "avx512bw",
            "avx512vl",
            "avx512_vbmi2",
            "avx512_bf16",
            "erms",
            "fsrm",
        ],
        caches: (32 * K, M, 32 * M),
        machine: "zen4",
        how: Match::Exact,
        reason: "AuthenticAMD family 25 model 17 (0x11) = Zen 4 (Genoa) → zen4",
    });
    let cpu = load("zen4-genoa-kvm-live.txt");
    assert_eq!(cpu.describe(), "AMD EPYC (AuthenticAMD-25-17-1), under a hypervisor (KVMKVMKVM); L1D 32 KiB, L2 1 MiB, L3 32 MiB");
    // Were the model masked, the features would still say Zen 4.
    let mut masked = cpu;
    masked.model = 0x90;
    let id = identify(&masked);
    assert_eq!(
        (id.machine, id.how),
        ("zen4", Match::ByFeatures),
        "{}",
        id.reason
    );
    assert_eq!(id.reason, "AuthenticAMD family 25 model 144 (0x90) is not a known model number (masked under a hypervisor?); by features: AVX-512, no AVX512_VP2INTERSECT → zen4; L2 1 MiB per core agrees");
}

/// Session 26's host: an Emerald Rapids Xeon under KVM. The caches are those the guest's
/// sysfs listed beside the dump (index0..3: 48K 12-way, 32K 8-way, 2048K 16-way, 266240K
/// 20-way with 212992 sets), an independent reading of the same CPU.
#[test]
fn emerald_rapids_recorded() {
    check(&Expect {
        file: "emerald-rapids-kvm-live.txt",
        signature: "GenuineIntel-6-207-2",
        hypervisor: Some("KVMKVMKVM"),
        features: &[
            "sse4_2",
            "avx",
            "avx2",
            "fma",
            "avx512f",
            "avx512bw",
            "avx512vl",
            "avx512_vbmi2",
            "avx512_fp16",
            "avx512_bf16",
            "erms",
            "fsrm",
        ],
        caches: (48 * K, 2 * M, 260 * M),
        machine: "goldencove",
        how: Match::Exact,
        reason: "GenuineIntel family 6 model 207 (0xCF) = Emerald Rapids (Raptor Cove core) → goldencove",
    });
    let cpu = load("emerald-rapids-kvm-live.txt");
    let l3 = cpu.cache(3, Kind::Unified).unwrap();
    assert_eq!((l3.ways, l3.sets, l3.line_size), (20, 212_992, 64));
    let l1i = cpu.cache(1, Kind::Instruction).unwrap();
    assert_eq!((l1i.size, l1i.ways), (32 * K, 8));
}

#[test]
fn nothing_fits() {
    let mut cpu = load("skylake-client.txt");
    cpu.vendor = "CentaurHauls".into();
    let id = identify(&cpu);
    assert_eq!((id.machine, id.how), ("skylake", Match::Fallback));
    assert_eq!(id.reason, "CentaurHauls family 6 model 94 (0x5E) is not a known model number; no model fits its features (AVX2): skylake, the default");
}

#[test]
fn malformed_dump_names_file_and_line() {
    let e = CpuidDump::from_file(&data("malformed.txt"))
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("tests/data/malformed.txt:3: missing edx"),
        "{e}"
    );
    let e = CpuidDump::from_file(&data("absent.txt"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("absent.txt: cannot read the CPUID dump: "),
        "{e}"
    );
    let d = CpuidDump::parse(
        "0x00000000 0x00: eax=0x1 ebx=0 ecx=0 edx=0\n",
        "only-leaf0.txt",
    )
    .unwrap();
    assert_eq!(HostCpu::from_dump(&d).unwrap_err().to_string(), "only-leaf0.txt: no CPUID leaf 0x00000001 in it (vendor and family/model need leaves 0 and 1)");
}

#[test]
fn cpuid_tool_output_as_is() {
    // `cpuid -r -1` prints a `CPU:` header and indented lines.
    let text = "CPU:\n   0x00000000 0x00: eax=0x00000010 ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65\n   0x00000001 0x00: eax=0x00a00f11 ebx=0x00400800 ecx=0x7eda320b edx=0x178bfbff\n";
    let cpu = HostCpu::from_dump(&CpuidDump::parse(text, "web.txt").unwrap()).unwrap();
    assert_eq!(cpu.signature(), "AuthenticAMD-25-1-1");
    assert_eq!(identify(&cpu).machine, "zen3");
}

#[test]
fn live_host_identifies_without_panicking() {
    if let Some(cpu) = HostCpu::detect() {
        let id = identify(&cpu);
        assert!(bottlenose_host::MACHINES.contains(&id.machine), "{id:?}");
        assert!(!cpu.describe().is_empty() && !id.reason.is_empty());
        eprintln!(
            "this host: {} → {} ({}): {}",
            cpu.describe(),
            id.machine,
            id.how.as_str(),
            id.reason
        );
    }
}
