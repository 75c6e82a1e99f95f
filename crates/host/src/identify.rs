//! The closest built-in machine model for a CPU: by family/model when the number
//! is known and the features do not contradict it, otherwise by features (a
//! hypervisor may report a model number of another part: KVM shows Sapphire and
//! Granite Rapids class Xeons as family 6 model 0xA7, Rocket Lake's number),
//! checked against the L2 size per core; Skylake when nothing fits.

use crate::cpu::HostCpu;
use crate::geometry::size_text;

/// The built-in machines identification may choose (`gus-fig4` is a toy, never chosen).
pub const MACHINES: &[&str] = &[
    "skylake",
    "icelake-server",
    "goldencove",
    "graniterapids",
    "zen3",
    "zen4",
    "zen5",
];

/// How the machine was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// By vendor, family and model number.
    Exact,
    /// By feature flags (and cache geometry), the model being unknown or masked.
    ByFeatures,
    /// Nothing fitted: the default machine.
    Fallback,
}

impl Match {
    /// `by model`, `by features`, `fallback`.
    pub fn as_str(self) -> &'static str {
        match self {
            Match::Exact => "by model",
            Match::ByFeatures => "by features",
            Match::Fallback => "fallback",
        }
    }
}

/// The chosen machine and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identification {
    /// A built-in machine name (one of [`MACHINES`]).
    pub machine: &'static str,
    /// How it was chosen.
    pub how: Match,
    /// One line naming the evidence: `AuthenticAMD family 25 model 17 (0x11) = Zen 4 (Genoa) → zen4`.
    pub reason: String,
    /// True when the model number was not taken at face value: unknown, or
    /// contradicted by the features under a hypervisor.
    pub masked: bool,
}

/// What a model number stands for.
struct Known {
    name: &'static str,
    machine: Option<&'static str>,
    note: Option<&'static str>,
}

fn intel_model(model: u32) -> Option<Known> {
    let k = |name, machine, note| {
        Some(Known {
            name,
            machine,
            note,
        })
    };
    match model {
        0x4E | 0x5E => k("Skylake", Some("skylake"), None),
        0x55 => k("Skylake-SP / Cascade Lake", Some("skylake"), None),
        0x8E | 0x9E => k("Kaby / Coffee Lake (Skylake core)", Some("skylake"), None),
        0xA5 | 0xA6 => k("Comet Lake (Skylake core)", Some("skylake"), None),
        0x6A | 0x6C => k("Ice Lake server", Some("icelake-server"), None),
        0x7D | 0x7E => k(
            "Ice Lake client",
            Some("icelake-server"),
            Some("same Sunny Cove core, client L2 512 KiB"),
        ),
        0x8F => k("Sapphire Rapids", Some("goldencove"), None),
        0xCF => k(
            "Emerald Rapids",
            Some("goldencove"),
            Some("Raptor Cove core"),
        ),
        0xAD | 0xAE => k("Granite Rapids", Some("graniterapids"), None),
        0x97 | 0x9A => k("Alder Lake", Some("goldencove"), Some("P-cores")),
        0xB7 | 0xBA | 0xBF => k("Raptor Lake", Some("goldencove"), Some("P-cores")),
        // Known numbers without a model of their own: features decide.
        0xA7 => k("Rocket Lake", None, None),
        0x8C | 0x8D => k("Tiger Lake", None, None),
        0x3C | 0x3F | 0x45 | 0x46 => k("Haswell", None, None),
        0x3D | 0x47 | 0x4F | 0x56 => k("Broadwell", None, None),
        0x66 => k("Cannon Lake", None, None),
        0xAA | 0xAC => k("Meteor Lake", None, None),
        0xC5 | 0xC6 => k("Arrow Lake", None, None),
        0xBD => k("Lunar Lake", None, None),
        0xAF => k("Sierra Forest", None, None),
        0xB6 => k("Grand Ridge", None, None),
        _ => None,
    }
}

fn amd_model(family: u32, model: u32) -> Option<Known> {
    let k = |name, machine| {
        Some(Known {
            name,
            machine: Some(machine),
            note: None,
        })
    };
    match (family, model) {
        (0x19, 0x00..=0x0F) => k("Zen 3 (Milan)", "zen3"),
        (0x19, 0x20..=0x2F) => k("Zen 3 (Vermeer)", "zen3"),
        (0x19, 0x30..=0x3F) => k("Zen 3", "zen3"),
        (0x19, 0x40..=0x4F) => k("Zen 3+ (Rembrandt)", "zen3"),
        (0x19, 0x50..=0x5F) => k("Zen 3 (Cezanne)", "zen3"),
        (0x19, 0x10..=0x1F) => k("Zen 4 (Genoa)", "zen4"),
        (0x19, 0x60..=0x6F) => k("Zen 4 (Raphael)", "zen4"),
        (0x19, 0x70..=0x7F) => k("Zen 4 (Phoenix)", "zen4"),
        (0x19, 0xA0..=0xAF) => k("Zen 4c (Bergamo / Siena)", "zen4"),
        (0x1A, _) => k("Zen 5", "zen5"),
        _ => None,
    }
}

/// What the features allow a machine to be: a feature the real part of that
/// model lacks shows the number is not the real one.
fn contradiction(machine: &str, cpu: &HostCpu) -> Option<&'static str> {
    let f = &cpu.features;
    match machine {
        "skylake" | "icelake-server" | "zen3" | "zen4" | "zen5" if f.amx_tile => Some("AMX"),
        "goldencove" if f.amx_fp16 => Some("AMX-FP16"),
        "zen3" if f.avx512f => Some("AVX-512"),
        "zen4" if f.avx512_vp2intersect => Some("AVX512_VP2INTERSECT"),
        "skylake" if f.avx512_vbmi2 => Some("AVX512_VBMI2"),
        _ => None,
    }
}

/// The machine the features point to, with the evidence.
fn by_features(cpu: &HostCpu) -> Option<(&'static str, String)> {
    let f = &cpu.features;
    let amd = cpu.vendor == "AuthenticAMD" || cpu.vendor == "HygonGenuine";
    if cpu.vendor == "GenuineIntel" {
        if f.amx_tile && f.avx512_fp16 {
            return Some(if f.amx_fp16 {
                ("graniterapids", "AMX-TILE + AVX512_FP16 + AMX-FP16".into())
            } else {
                ("goldencove", "AMX-TILE + AVX512_FP16, no AMX-FP16".into())
            });
        }
        if f.avx512f {
            return Some(if f.avx512_vbmi2 {
                ("icelake-server", "AVX-512 with AVX512_VBMI2, no AMX".into())
            } else {
                (
                    "skylake",
                    "AVX-512 without AVX512_VBMI2 (Skylake-SP class)".into(),
                )
            });
        }
        if f.avx2 {
            return Some(("skylake", "AVX2, no AVX-512".into()));
        }
        return None;
    }
    if amd {
        if f.avx512_vp2intersect || cpu.family == 0x1A {
            let why = if f.avx512_vp2intersect {
                "AVX512_VP2INTERSECT"
            } else {
                "family 26 (1Ah)"
            };
            return Some(("zen5", why.into()));
        }
        if f.avx512f {
            return Some(("zen4", "AVX-512, no AVX512_VP2INTERSECT".into()));
        }
        if f.avx2 {
            return Some(("zen3", "AVX2, no AVX-512".into()));
        }
    }
    None
}

/// L2 sizes per core each machine's real parts have.
fn usual_l2(machine: &str) -> &'static [u64] {
    const K: u64 = 1024;
    match machine {
        "skylake" => &[256 * K, 1024 * K],
        "icelake-server" => &[1280 * K, 512 * K],
        "goldencove" => &[2048 * K, 1280 * K],
        "graniterapids" => &[2048 * K],
        "zen3" => &[512 * K],
        "zen4" | "zen5" => &[1024 * K],
        _ => &[],
    }
}

/// `; L2 2 MiB per core agrees` or `; L2 512 KiB is unusual for it (2 MiB expected)`.
fn l2_check(machine: &str, cpu: &HostCpu) -> String {
    let Some(l2) = cpu.l2() else {
        return "; no L2 size to check".into();
    };
    let usual = usual_l2(machine);
    if usual.contains(&l2) {
        format!("; L2 {} per core agrees", size_text(l2))
    } else {
        let exp: Vec<String> = usual.iter().map(|&v| size_text(v)).collect();
        format!(
            "; L2 {} is unusual for it ({} expected)",
            size_text(l2),
            exp.join(" or ")
        )
    }
}

fn model_text(cpu: &HostCpu) -> String {
    format!(
        "{} family {} model {} (0x{:X})",
        cpu.vendor, cpu.family, cpu.model, cpu.model
    )
}

/// Chooses the closest built-in machine for `cpu`.
pub fn identify(cpu: &HostCpu) -> Identification {
    let known = match cpu.vendor.as_str() {
        "GenuineIntel" if cpu.family == 6 => intel_model(cpu.model),
        "AuthenticAMD" | "HygonGenuine" => amd_model(cpu.family, cpu.model),
        _ => None,
    };
    let under = if cpu.hypervisor {
        " under a hypervisor"
    } else {
        ""
    };
    if let Some(k) = &known {
        // A feature the real part lacks shows the number is not the real one.
        let clash = match k.machine {
            Some(m) => contradiction(m, cpu),
            None => (cpu.vendor == "GenuineIntel" && cpu.features.amx_tile).then_some("AMX"),
        };
        match (k.machine, clash) {
            (Some(machine), None) => {
                let note = k.note.map(|n| format!(" ({n})")).unwrap_or_default();
                return Identification {
                    machine,
                    how: Match::Exact,
                    reason: format!("{} = {}{note} → {machine}", model_text(cpu), k.name),
                    masked: false,
                };
            }
            (_, Some(feature)) => {
                if let Some((m, why)) = by_features(cpu) {
                    let reason = format!("{} is {}'s number, which has no {feature}: masked{under}; by features: {why} → {m}{}", model_text(cpu), k.name, l2_check(m, cpu));
                    return Identification {
                        machine: m,
                        how: Match::ByFeatures,
                        reason,
                        masked: true,
                    };
                }
            }
            (None, None) => {}
        }
    }
    let what = match &known {
        Some(k) => format!(
            "{} = {}, which has no model of its own",
            model_text(cpu),
            k.name
        ),
        None => format!(
            "{} is not a known model number{}",
            model_text(cpu),
            if cpu.hypervisor {
                " (masked under a hypervisor?)"
            } else {
                ""
            }
        ),
    };
    if let Some((m, why)) = by_features(cpu) {
        let reason = format!("{what}; by features: {why} → {m}{}", l2_check(m, cpu));
        return Identification {
            machine: m,
            how: Match::ByFeatures,
            reason,
            masked: known.is_none() && cpu.hypervisor,
        };
    }
    let have = if cpu.features.avx2 { "AVX2" } else { "no AVX2" };
    Identification {
        machine: "skylake",
        how: Match::Fallback,
        reason: format!("{what}; no model fits its features ({have}): skylake, the default"),
        masked: false,
    }
}
