//! CPU detection: CPUID vendor/family/model/stepping mapped to a table through
//! the metrics crate's mapfile rules (Intel by model, AMD family 19h → Zen 3/4,
//! 1Ah → Zen 5), and hybrid Intel parts (Alder Lake and later): which core
//! type this thread runs on and which PMU (`cpu_core` for P-cores,
//! `cpu_atom` for E-cores) has a table.

use crate::errors::{CountersError, SysInfo};
use bottlenose_metrics::cpuid::{cpuid_string, rules, uarch_for_cpuid};
use bottlenose_metrics::MetricEngine;

/// CPUID identification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuId {
    /// `GenuineIntel`, `AuthenticAMD`.
    pub vendor: String,
    /// Display family (base + extended).
    pub family: u32,
    /// Display model (extended model in the high nibble).
    pub model: u32,
    /// Stepping.
    pub stepping: u32,
    /// CPUID.07H:EDX[15]: hybrid part.
    pub hybrid: bool,
    /// CPUID.1AH:EAX[31:24] of the CPU this ran on (0x20 Atom, 0x40 Core).
    pub core_type: Option<u8>,
}

impl CpuId {
    /// Reads CPUID on this CPU (`None` off x86-64).
    pub fn detect() -> Option<CpuId> {
        detect_impl()
    }

    /// The mapfile identifier with stepping (`GenuineIntel-6-55-4`).
    pub fn id(&self) -> String {
        cpuid_string(&self.vendor, self.family, self.model, Some(self.stepping))
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unused_unsafe)] // __cpuid is a safe fn in recent toolchains, unsafe in older ones
fn detect_impl() -> Option<CpuId> {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    // SAFETY: CPUID is available on every x86-64 CPU; leaves above the maximum are not queried.
    unsafe {
        let l0 = __cpuid(0);
        let mut v = Vec::with_capacity(12);
        for r in [l0.ebx, l0.edx, l0.ecx] {
            v.extend_from_slice(&r.to_le_bytes());
        }
        let vendor = String::from_utf8_lossy(&v).into_owned();
        let l1 = __cpuid(1);
        let base_family = (l1.eax >> 8) & 0xf;
        let base_model = (l1.eax >> 4) & 0xf;
        let ext_family = (l1.eax >> 20) & 0xff;
        let ext_model = (l1.eax >> 16) & 0xf;
        let family = if base_family == 0xf { base_family + ext_family } else { base_family };
        let model = if base_family == 0x6 || base_family == 0xf { ext_model << 4 | base_model } else { base_model };
        let stepping = l1.eax & 0xf;
        let hybrid = l0.eax >= 7 && (__cpuid_count(7, 0).edx >> 15) & 1 == 1;
        let core_type = (hybrid && l0.eax >= 0x1a).then(|| (__cpuid_count(0x1a, 0).eax >> 24) as u8).filter(|t| *t != 0);
        Some(CpuId { vendor, family, model, stepping, hybrid, core_type })
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_impl() -> Option<CpuId> {
    None
}

/// A core type of a hybrid part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreKind {
    /// `P-core` or `E-core`.
    pub kind: &'static str,
    /// Its PMU (`cpu_core`, `cpu_atom`).
    pub pmu: &'static str,
    /// The table for it, when one is shipped.
    pub table: Option<String>,
    /// Whether the PMU is exposed here.
    pub exposed: bool,
}

/// What was detected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuInfo {
    /// CPUID.
    pub cpuid: CpuId,
    /// The table to use (`None`: unsupported).
    pub uarch: Option<String>,
    /// Hybrid parts: both core types.
    pub hybrid: Vec<CoreKind>,
    /// The core type this thread ran on when detected (`P-core`/`E-core`).
    pub current_core: Option<&'static str>,
}

/// Maps CPUID to a table and describes hybrid core types.
pub fn identify(cpuid: &CpuId, sys: &SysInfo) -> CpuInfo {
    let id = cpuid.id();
    let uarch = uarch_for_cpuid(&id).map(str::to_string);
    let is_hybrid = cpuid.hybrid || sys.pmus.iter().any(|p| p == "cpu_core" || p == "cpu_atom");
    let mut hybrid = Vec::new();
    if is_hybrid {
        // The P-core table is the one uarch_for_cpuid picks; an E-core table would be a
        // rule with core_type Atom whose table has cpu_atom events (none is shipped).
        let atom = rules().iter().find(|r| r.core_type.as_deref() == Some("Atom") && bottlenose_metrics::cpuid::Regex::new(&r.pattern).is_some_and(|re| re.is_match(&cpuid_string(&cpuid.vendor, cpuid.family, cpuid.model, None))));
        let atom_table = atom.and_then(|r| MetricEngine::for_uarch(&r.uarch).ok()).filter(|e| e.table().events.iter().any(|ev| ev.pmu.as_deref() == Some("cpu_atom"))).map(|e| e.uarch().to_string());
        let has = |p: &str| sys.pmus.iter().any(|x| x == p);
        hybrid.push(CoreKind { kind: "P-core", pmu: "cpu_core", table: uarch.clone(), exposed: has("cpu_core") });
        hybrid.push(CoreKind { kind: "E-core", pmu: "cpu_atom", table: atom_table, exposed: has("cpu_atom") });
    }
    let current_core = match cpuid.core_type {
        Some(0x40) => Some("P-core"),
        Some(0x20) => Some("E-core"),
        _ => None,
    };
    CpuInfo { cpuid: cpuid.clone(), uarch, hybrid, current_core }
}

impl CpuInfo {
    /// One line: `AuthenticAMD-25-11-1 → zen4`, with hybrid core types.
    pub fn describe(&self) -> String {
        let mut s = format!("{} → {}", self.cpuid.id(), self.uarch.as_deref().unwrap_or("unsupported"));
        if !self.hybrid.is_empty() {
            let kinds: Vec<String> = self
                .hybrid
                .iter()
                .map(|k| format!("{} ({}{}): {}", k.kind, k.pmu, if k.exposed { "" } else { ", not exposed" }, k.table.as_deref().unwrap_or("no table")))
                .collect();
            s.push_str(&format!("; hybrid: {}", kinds.join(", ")));
            if let Some(c) = self.current_core {
                s.push_str(&format!("; detected on {} {c}", if c.starts_with('E') { "an" } else { "a" }));
            }
        }
        s
    }

    /// The table, or [`CountersError::UnsupportedCpu`].
    pub fn table(&self) -> Result<&str, CountersError> {
        self.uarch.as_deref().ok_or_else(|| CountersError::UnsupportedCpu { cpu: self.cpuid.id(), supported: supported_uarchs().join(", ") })
    }
}

/// The hardware tables (without the built-in method tables).
pub fn supported_uarchs() -> Vec<&'static str> {
    MetricEngine::available().into_iter().filter(|u| !bottlenose_metrics::engine::BUILTIN.contains(u)).collect()
}

/// Detects this machine's CPU.
pub fn detect(sys: &SysInfo) -> Result<CpuInfo, CountersError> {
    let id = CpuId::detect().ok_or_else(|| CountersError::UnsupportedCpu { cpu: std::env::consts::ARCH.into(), supported: supported_uarchs().join(", ") })?;
    Ok(identify(&id, sys))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(vendor: &str, family: u32, model: u32, stepping: u32) -> CpuId {
        CpuId { vendor: vendor.into(), family, model, stepping, hybrid: false, core_type: None }
    }

    #[test]
    fn identification() {
        let sys = SysInfo::default();
        assert_eq!(identify(&id("GenuineIntel", 6, 0x55, 4), &sys).uarch.as_deref(), Some("skx"));
        assert_eq!(identify(&id("GenuineIntel", 6, 0x55, 7), &sys).uarch, None);
        assert_eq!(identify(&id("AuthenticAMD", 0x19, 0x11, 1), &sys).uarch.as_deref(), Some("zen4"));
        assert_eq!(identify(&id("AuthenticAMD", 0x19, 0x21, 0), &sys).uarch.as_deref(), Some("zen3"));
        assert_eq!(identify(&id("AuthenticAMD", 0x1a, 0x44, 0), &sys).uarch.as_deref(), Some("zen5"));
        let e = identify(&id("AuthenticAMD", 0x17, 0x71, 0), &sys).table().unwrap_err().to_string();
        assert!(e.starts_with("unsupported CPU AuthenticAMD-23-71-0: no event table for it (supported: skl, skx"), "{e}");
    }

    #[test]
    fn hybrid_alder_lake() {
        let sys = SysInfo { pmus: vec!["cpu_atom".into(), "cpu_core".into()], ..SysInfo::default() };
        let c = CpuId { hybrid: true, core_type: Some(0x20), ..id("GenuineIntel", 6, 0x97, 2) };
        let info = identify(&c, &sys);
        assert_eq!(info.uarch.as_deref(), Some("adl"));
        assert_eq!(info.hybrid[0], CoreKind { kind: "P-core", pmu: "cpu_core", table: Some("adl".into()), exposed: true });
        assert_eq!(info.hybrid[1].table, None);
        assert_eq!(info.current_core, Some("E-core"));
        assert_eq!(info.describe(), "GenuineIntel-6-97-2 → adl; hybrid: P-core (cpu_core): adl, E-core (cpu_atom): no table; detected on an E-core");
    }

    #[test]
    fn this_machine_does_not_panic() {
        if let Ok(info) = detect(&SysInfo::probe()) {
            assert!(!info.describe().is_empty());
        }
    }
}
