//! Cache and TLB geometry from CPUID (Intel leaf 4 and 0x18; AMD 0x8000001D,
//! 0x80000005/6 and 0x80000019), and from sysfs when CPUID has no cache leaves.

use crate::dump::CpuidDump;

mod sysfs;
pub use sysfs::caches_from_sysfs;

/// What a cache or TLB holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Data.
    Data,
    /// Instructions.
    Instruction,
    /// Both.
    Unified,
    /// Loads only (Intel leaf 0x18 type 4).
    LoadOnly,
    /// Stores only (Intel leaf 0x18 type 5).
    StoreOnly,
}

impl Kind {
    /// `D`, `I`, `U`, `load`, `store`.
    pub fn short(self) -> &'static str {
        match self {
            Kind::Data => "D",
            Kind::Instruction => "I",
            Kind::Unified => "U",
            Kind::LoadOnly => "load",
            Kind::StoreOnly => "store",
        }
    }
}

/// Where the cache geometry came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheSource {
    /// Intel deterministic cache parameters, leaf 4.
    Leaf4,
    /// AMD cache topology, leaf 0x8000001D.
    Leaf8000001D,
    /// AMD legacy L1/L2/L3 descriptors, leaves 0x80000005 and 0x80000006.
    AmdLegacy,
    /// `/sys/devices/system/cpu/cpu0/cache/index*/`.
    Sysfs,
    /// Nothing known.
    None,
}

/// One cache level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    /// 1, 2, 3...
    pub level: u8,
    /// Data, instruction or unified.
    pub kind: Kind,
    /// Associativity (ways; for a fully associative cache, lines).
    pub ways: u32,
    /// Line size in bytes.
    pub line_size: u32,
    /// Sets.
    pub sets: u32,
    /// Size in bytes (ways × partitions × line × sets).
    pub size: u64,
    /// Logical processors sharing it, when known.
    pub shared_by: Option<u32>,
}

/// One TLB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tlb {
    /// 1 or 2.
    pub level: u8,
    /// Data, instruction, unified, load-only or store-only.
    pub kind: Kind,
    /// Page sizes it maps (`4K`, `2M`, `4M`, `1G`).
    pub pages: Vec<&'static str>,
    /// Entries.
    pub entries: u32,
    /// Ways (`entries` when fully associative).
    pub ways: u32,
}

/// `48 KiB`, `1.25 MiB`, `2 MiB`.
pub fn size_text(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB / 4) {
        let m = bytes as f64 / MIB as f64;
        format!("{} MiB", trim_float(m))
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} B")
    }
}

fn trim_float(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Where live detection reads cache sizes when CPUID has none.
pub const SYSFS_CACHE: &str = "/sys/devices/system/cpu/cpu0/cache";

/// Leaf 4 / 0x8000001D layout: type, level, sharing in EAX; ways, partitions, line in EBX; sets in ECX.
fn deterministic(d: &CpuidDump, leaf: u32) -> Vec<Cache> {
    let mut out = Vec::new();
    for (_, r) in d.subleaves(leaf) {
        let kind = match r.eax & 0x1f {
            1 => Kind::Data,
            2 => Kind::Instruction,
            3 => Kind::Unified,
            _ => break,
        };
        let ways = (r.ebx >> 22) + 1;
        let partitions = ((r.ebx >> 12) & 0x3ff) + 1;
        let line_size = (r.ebx & 0xfff) + 1;
        let sets = r.ecx.wrapping_add(1);
        out.push(Cache {
            level: ((r.eax >> 5) & 7) as u8,
            kind,
            ways,
            line_size,
            sets,
            size: u64::from(ways) * u64::from(partitions) * u64::from(line_size) * u64::from(sets),
            shared_by: Some(((r.eax >> 14) & 0xfff) + 1),
        });
    }
    out
}

/// AMD's 4-bit associativity code of leaf 0x80000006 (APM vol. 3, CPUID Fn8000_0006).
fn amd_ways(code: u32, lines: u32) -> Option<u32> {
    Some(match code {
        1 => 1,
        2 => 2,
        3 => 3,
        4 => 4,
        5 => 6,
        6 => 8,
        8 => 16,
        0xA => 32,
        0xB => 48,
        0xC => 64,
        0xD => 96,
        0xE => 128,
        0xF => lines,
        _ => return None,
    })
}

pub(crate) fn amd_legacy_caches(d: &CpuidDump, ext_max: u32) -> Vec<Cache> {
    let mut out = Vec::new();
    let mut push = |level: u8, kind: Kind, size: u64, ways: Option<u32>, line: u32| {
        if let (true, Some(ways)) = (size > 0 && line > 0, ways) {
            let sets = (size / (u64::from(ways.max(1)) * u64::from(line))) as u32;
            out.push(Cache {
                level,
                kind,
                ways,
                line_size: line,
                sets,
                size,
                shared_by: None,
            });
        }
    };
    if ext_max >= 0x8000_0005 {
        if let Some(r) = d.leaf(0x8000_0005) {
            for (reg, kind) in [(r.ecx, Kind::Data), (r.edx, Kind::Instruction)] {
                let size = u64::from(reg >> 24) * 1024;
                let line = reg & 0xff;
                let ways = (reg >> 16) & 0xff;
                let ways = if ways == 0xff {
                    (size / u64::from(line.max(1))) as u32
                } else {
                    ways
                };
                push(1, kind, size, Some(ways), line);
            }
        }
    }
    if ext_max >= 0x8000_0006 {
        if let Some(r) = d.leaf(0x8000_0006) {
            // L2 in ECX (size in KiB from bit 16), L3 in EDX (size in 512 KiB from bit 18);
            // both: associativity code in bits 15:12, line size in 7:0
            for (level, reg, size) in [(2, r.ecx, u64::from(r.ecx >> 16) * 1024), (3, r.edx, u64::from(r.edx >> 18) * 512 * 1024)] {
                let line = reg & 0xff;
                push(level, Kind::Unified, size, amd_ways((reg >> 12) & 0xf, (size / u64::from(line.max(1))) as u32), line);
            }
        }
    }
    out
}

pub(crate) fn caches_from_cpuid(
    d: &CpuidDump,
    amd: bool,
    max: u32,
    ext_max: u32,
) -> (Vec<Cache>, CacheSource) {
    let leaf4 = || {
        if max >= 4 {
            deterministic(d, 4)
        } else {
            Vec::new()
        }
    };
    let leaf1d = || {
        if ext_max >= 0x8000_001D {
            deterministic(d, 0x8000_001D)
        } else {
            Vec::new()
        }
    };
    let tries: [(&dyn Fn() -> Vec<Cache>, CacheSource); 2] = if amd {
        [
            (&leaf1d, CacheSource::Leaf8000001D),
            (&leaf4, CacheSource::Leaf4),
        ]
    } else {
        [
            (&leaf4, CacheSource::Leaf4),
            (&leaf1d, CacheSource::Leaf8000001D),
        ]
    };
    for (f, src) in tries {
        let c = f();
        if !c.is_empty() {
            return (c, src);
        }
    }
    if amd {
        let c = amd_legacy_caches(d, ext_max);
        if !c.is_empty() {
            return (c, CacheSource::AmdLegacy);
        }
    }
    (Vec::new(), CacheSource::None)
}

/// Intel leaf 0x18 (deterministic address translation parameters).
pub(crate) fn intel_tlbs(d: &CpuidDump) -> Vec<Tlb> {
    let mut out = Vec::new();
    for (_, r) in d.subleaves(0x18) {
        let kind = match r.edx & 0x1f {
            1 => Kind::Data,
            2 => Kind::Instruction,
            3 => Kind::Unified,
            4 => Kind::LoadOnly,
            5 => Kind::StoreOnly,
            _ => continue,
        };
        let pages: Vec<&'static str> = [(0, "4K"), (1, "2M"), (2, "4M"), (3, "1G")]
            .into_iter()
            .filter(|(b, _)| r.ebx >> b & 1 == 1)
            .map(|(_, n)| n)
            .collect();
        let ways = r.ebx >> 16;
        let entries = ways * r.ecx;
        out.push(Tlb {
            level: ((r.edx >> 5) & 7) as u8,
            kind,
            pages,
            entries,
            ways,
        });
    }
    out
}

/// AMD leaves 0x80000005 (L1), 0x80000006 (L2) and 0x80000019 (1G pages).
pub(crate) fn amd_tlbs(d: &CpuidDump, ext_max: u32) -> Vec<Tlb> {
    let mut out = Vec::new();
    let mut push =
        |level: u8, kind: Kind, pages: &[&'static str], entries: u32, ways: Option<u32>| {
            if entries > 0 {
                if let Some(w) = ways {
                    out.push(Tlb {
                        level,
                        kind,
                        pages: pages.to_vec(),
                        entries,
                        ways: w.min(entries),
                    });
                }
            }
        };
    let l1_ways = |w: u32, n: u32| Some(if w == 0xff { n } else { w });
    if ext_max >= 0x8000_0005 {
        if let Some(r) = d.leaf(0x8000_0005) {
            for (reg, pages) in [(r.ebx, &["4K"][..]), (r.eax, &["2M", "4M"][..])] {
                push(
                    1,
                    Kind::Data,
                    pages,
                    (reg >> 16) & 0xff,
                    l1_ways(reg >> 24, (reg >> 16) & 0xff),
                );
                push(
                    1,
                    Kind::Instruction,
                    pages,
                    reg & 0xff,
                    l1_ways((reg >> 8) & 0xff, reg & 0xff),
                );
            }
        }
    }
    type Push<'a> = dyn FnMut(u8, Kind, &[&'static str], u32, Option<u32>) + 'a;
    let l2 = |push: &mut Push, reg: u32, pages: &[&'static str]| {
        let (dn, inn) = ((reg >> 16) & 0xfff, reg & 0xfff);
        push(2, Kind::Data, pages, dn, amd_ways(reg >> 28, dn));
        push(
            2,
            Kind::Instruction,
            pages,
            inn,
            amd_ways((reg >> 12) & 0xf, inn),
        );
    };
    if ext_max >= 0x8000_0006 {
        if let Some(r) = d.leaf(0x8000_0006) {
            l2(&mut push, r.ebx, &["4K"]);
            l2(&mut push, r.eax, &["2M", "4M"]);
        }
    }
    if ext_max >= 0x8000_0019 {
        if let Some(r) = d.leaf(0x8000_0019) {
            let (dn, inn) = ((r.eax >> 16) & 0xfff, r.eax & 0xfff);
            push(1, Kind::Data, &["1G"], dn, amd_ways(r.eax >> 28, dn));
            push(
                1,
                Kind::Instruction,
                &["1G"],
                inn,
                amd_ways((r.eax >> 12) & 0xf, inn),
            );
            l2(&mut push, r.ebx, &["1G"]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size_text(48 * 1024), "48 KiB");
        assert_eq!(size_text(1280 * 1024), "1.25 MiB");
        assert_eq!(size_text(2 * 1024 * 1024), "2 MiB");
        assert_eq!(size_text(38400 * 1024), "37.5 MiB");
    }
}
