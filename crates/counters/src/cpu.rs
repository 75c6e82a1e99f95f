//! CPU detection: CPUID (read through `bottlenose-host`) vendor/family/model/stepping
//! mapped to a table through the metrics crate's mapfile rules (Intel by model, AMD
//! family 19h → Zen 3/4, 1Ah → Zen 5), and hybrid Intel parts (Alder Lake and
//! later): which core type this thread runs on and which PMU (`cpu_core` for
//! P-cores, `cpu_atom` for E-cores) has a table.
//!
//! When the mapfile has no table for the signature (a model without a table, or
//! one a hypervisor masks: KVM shows Granite Rapids class Xeons as
//! `GenuineIntel-6-A7`), [`identify_host`] takes the table of the built-in machine
//! `bottlenose-host` identifies from the features and caches ([`machine_table`]).

use crate::errors::{CountersError, SysInfo};
use bottlenose_host::{HostCpu, Match};
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
        HostCpu::detect().map(|h| CpuId::from_host(&h))
    }

    /// The identification part of a decoded CPUID dump.
    pub fn from_host(h: &HostCpu) -> CpuId {
        CpuId { vendor: h.vendor.clone(), family: h.family, model: h.model, stepping: h.stepping, hybrid: h.features.hybrid, core_type: h.core_type }
    }

    /// The mapfile identifier with stepping (`GenuineIntel-6-55-4`).
    pub fn id(&self) -> String {
        cpuid_string(&self.vendor, self.family, self.model, Some(self.stepping))
    }
}

/// The Top-Down table of a built-in machine: its file's `[peers] topdown_table`
/// (`graniterapids` → `spr`, `icelake-server` → `icl` while no `gnr`/`icx` table is shipped).
pub fn machine_table(machine: &str) -> Option<String> {
    bottlenose_machine::load_builtin(machine)?.ok()?.peers.topdown_table.filter(|t| supported_uarchs().contains(&t.as_str()))
}

/// A table chosen through machine identification because the mapfile has none for the signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelFallback {
    /// The built-in machine identified (`graniterapids`).
    pub machine: &'static str,
    /// By model number or by features.
    pub how: Match,
    /// The identification's one-line reason.
    pub reason: String,
    /// True when the model number was not taken at face value.
    pub masked: bool,
    /// True when CPUID says a hypervisor is present.
    pub hypervisor: bool,
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
    /// Set when `uarch` comes from machine identification, the mapfile having no
    /// table for the signature (see [`identify_host`]).
    pub fallback: Option<ModelFallback>,
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
    CpuInfo { cpuid: cpuid.clone(), uarch, hybrid, current_core, fallback: None }
}

/// [`identify`] for a decoded CPUID dump; when the mapfile has no table for its
/// signature, the table of the machine `bottlenose-host` identifies from the
/// model number or, when the number is unknown or masked, from the features
/// ([`machine_table`]). A CPU that fits no model keeps no table.
pub fn identify_host(host: &HostCpu, sys: &SysInfo) -> CpuInfo {
    let mut info = identify(&CpuId::from_host(host), sys);
    if info.uarch.is_some() {
        return info;
    }
    let id = bottlenose_host::identify(host);
    if id.how == Match::Fallback {
        return info;
    }
    if let Some(table) = machine_table(id.machine) {
        info.uarch = Some(table.to_string());
        if let Some(p) = info.hybrid.iter_mut().find(|k| k.pmu == "cpu_core") {
            p.table = info.uarch.clone();
        }
        info.fallback = Some(ModelFallback { machine: id.machine, how: id.how, reason: id.reason, masked: id.masked, hypervisor: host.hypervisor });
    }
    info
}

impl CpuInfo {
    /// One line: `AuthenticAMD-25-11-1 → zen4`, with hybrid core types; a table
    /// from machine identification says so: `GenuineIntel-6-A7-1 (masked by the
    /// hypervisor) → spr by features (machine graniterapids)`.
    pub fn describe(&self) -> String {
        let mut s = match &self.fallback {
            None => format!("{} → {}", self.cpuid.id(), self.uarch.as_deref().unwrap_or("unsupported")),
            Some(f) => {
                let why = match (f.masked, f.hypervisor) {
                    (true, true) => "masked by the hypervisor",
                    (true, false) => "masked",
                    (false, _) => "no table for this model",
                };
                let how = if f.how == Match::Exact { "by model" } else { "by features" };
                format!("{} ({why}) → {} {how} (machine {})", self.cpuid.id(), self.uarch.as_deref().unwrap_or("unsupported"), f.machine)
            }
        };
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

/// Detects this machine's CPU ([`identify_host`] on CPUID read live).
pub fn detect(sys: &SysInfo) -> Result<CpuInfo, CountersError> {
    let host = HostCpu::detect().ok_or_else(|| CountersError::UnsupportedCpu { cpu: std::env::consts::ARCH.into(), supported: supported_uarchs().join(", ") })?;
    Ok(identify_host(&host, sys))
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

    fn host(file: &str) -> HostCpu {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/tests/data").join(file);
        HostCpu::from_dump(&bottlenose_host::CpuidDump::from_file(&path).unwrap()).unwrap()
    }

    #[test]
    fn machine_tables() {
        assert_eq!(machine_table("skylake").as_deref(), Some("skl"));
        assert_eq!(machine_table("goldencove").as_deref(), Some("spr"));
        let gnr = if supported_uarchs().contains(&"gnr") { "gnr" } else { "spr" };
        assert_eq!(machine_table("graniterapids").as_deref(), Some(gnr));
        assert_eq!(machine_table("icelake-server").as_deref(), Some(if supported_uarchs().contains(&"icx") { "icx" } else { "icl" }));
        assert_eq!(machine_table("zen5").as_deref(), Some("zen5"));
        assert_eq!(machine_table("gus-fig4").as_deref(), None);
    }

    #[test]
    fn masked_model_falls_back_to_the_identified_machine() {
        let sys = SysInfo::default();
        let gnr = host("graniterapids-kvm-masked.txt");
        // The signature alone (Rocket Lake's number) has no table.
        assert_eq!(identify(&CpuId::from_host(&gnr), &sys).uarch, None);
        let info = identify_host(&gnr, &sys);
        let table = machine_table("graniterapids").unwrap();
        let table = table.as_str();
        assert_eq!(info.uarch.as_deref(), Some(table));
        let f = info.fallback.as_ref().unwrap();
        assert_eq!((f.machine, f.how, f.masked, f.hypervisor), ("graniterapids", Match::ByFeatures, true, true));
        assert!(f.reason.contains("AMX-FP16"), "{}", f.reason);
        assert_eq!(info.describe(), format!("GenuineIntel-6-A7-1 (masked by the hypervisor) → {table} by features (machine graniterapids)"));
        assert_eq!(info.table().unwrap(), table);
        // Ice Lake-SP: the mapfile names it (icelakex) without a table; the model number picks the machine.
        let icx = identify_host(&host("icelake-server.txt"), &sys);
        let t = machine_table("icelake-server").unwrap();
        assert_eq!(icx.describe(), format!("GenuineIntel-6-6A-6 (no table for this model) → {t} by model (machine icelake-server)"));
        // A signature with a table is unchanged.
        let zen4 = identify_host(&host("zen4-genoa-kvm-live.txt"), &sys);
        assert_eq!((zen4.uarch.as_deref(), zen4.fallback.is_none()), (Some("zen4"), true));
        assert_eq!(zen4.describe(), "AuthenticAMD-25-11-1 → zen4");
        // A CPU no model fits gets no table.
        let mut other = host("skylake-client.txt");
        other.vendor = "CentaurHauls".into();
        assert_eq!(identify_host(&other, &sys).uarch, None);
    }

    #[test]
    fn this_machine_does_not_panic() {
        if let Ok(info) = detect(&SysInfo::probe()) {
            assert!(!info.describe().is_empty());
        }
    }
}
