//! What a CPUID dump says about the CPU: vendor, family/model/stepping, brand,
//! hypervisor, features ([`crate::features`]) and cache and TLB geometry
//! ([`crate::geometry`]).

use crate::dump::{CpuidDump, DumpError, Regs};
use crate::features::Features;
use crate::geometry::{amd_tlbs, caches_from_cpuid, caches_from_sysfs, intel_tlbs, size_text, Cache, CacheSource, Kind, Tlb, SYSFS_CACHE};
use std::path::Path;

/// The CPU a dump describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostCpu {
    /// `GenuineIntel`, `AuthenticAMD`, ...
    pub vendor: String,
    /// Display family (base + extended when base is 0xF).
    pub family: u32,
    /// Display model (extended model in the high nibble for families 6 and 0xF).
    pub model: u32,
    /// Stepping.
    pub stepping: u32,
    /// Brand string (leaves 0x80000002-4), trimmed.
    pub brand: Option<String>,
    /// CPUID.1:ECX[31]: running under a hypervisor.
    pub hypervisor: bool,
    /// The hypervisor's signature (leaf 0x40000000: `KVMKVMKVM`, `Microsoft Hv`...).
    pub hypervisor_vendor: Option<String>,
    /// Feature flags.
    pub features: Features,
    /// CPUID.1AH:EAX[31:24] on hybrid parts (0x20 Atom, 0x40 Core).
    pub core_type: Option<u8>,
    /// Caches by level and kind.
    pub caches: Vec<Cache>,
    /// Where `caches` came from.
    pub cache_source: CacheSource,
    /// TLBs, where CPUID describes them cheaply (Intel leaf 0x18, AMD 0x80000005/6/19).
    pub tlbs: Vec<Tlb>,
}

impl HostCpu {
    /// Decodes a dump; it must have leaves 0 and 1.
    pub fn from_dump(d: &CpuidDump) -> Result<HostCpu, DumpError> {
        let missing = |leaf: &str| DumpError {
            file: d.source.clone(),
            line: None,
            message: format!(
                "no CPUID leaf {leaf} in it (vendor and family/model need leaves 0 and 1)"
            ),
        };
        let l0 = d.leaf(0).ok_or_else(|| missing("0x00000000"))?;
        let l1 = d.leaf(1).ok_or_else(|| missing("0x00000001"))?;
        let vendor = String::from_utf8_lossy(&l0.vendor_bytes())
            .trim_end_matches('\0')
            .to_string();
        let base_family = (l1.eax >> 8) & 0xf;
        let base_model = (l1.eax >> 4) & 0xf;
        let family = if base_family == 0xf {
            base_family + ((l1.eax >> 20) & 0xff)
        } else {
            base_family
        };
        let model = if base_family == 0x6 || base_family == 0xf {
            ((l1.eax >> 16) & 0xf) << 4 | base_model
        } else {
            base_model
        };
        let stepping = l1.eax & 0xf;
        let ext_max = d.leaf(0x8000_0000).map_or(0, |r| r.eax);
        let brand = (ext_max >= 0x8000_0004)
            .then(|| {
                let mut b = Vec::with_capacity(48);
                for leaf in 0x8000_0002..=0x8000_0004 {
                    b.extend_from_slice(&d.leaf(leaf)?.bytes());
                }
                let s = String::from_utf8_lossy(&b)
                    .trim_end_matches('\0')
                    .trim()
                    .to_string();
                Some(s.split_whitespace().collect::<Vec<_>>().join(" "))
            })
            .flatten()
            .filter(|s| !s.is_empty());
        let hypervisor = l1.ecx >> 31 & 1 == 1;
        let hypervisor_vendor = d
            .leaf(0x4000_0000)
            .filter(|_| hypervisor)
            .map(|r| {
                String::from_utf8_lossy(&r.vendor_bytes_hv())
                    .trim_matches('\0')
                    .trim()
                    .to_string()
            })
            .filter(|s| !s.is_empty());
        let features = Features::from_dump(d);
        let core_type = (features.hybrid && l0.eax >= 0x1a)
            .then(|| d.leaf(0x1a).map(|r| (r.eax >> 24) as u8))
            .flatten()
            .filter(|t| *t != 0);
        let amd = vendor == "AuthenticAMD" || vendor == "HygonGenuine";
        let (caches, cache_source) = caches_from_cpuid(d, amd, l0.eax, ext_max);
        let mut tlbs = if l0.eax >= 0x18 {
            intel_tlbs(d)
        } else {
            Vec::new()
        };
        if tlbs.is_empty() && amd {
            tlbs = amd_tlbs(d, ext_max);
        }
        Ok(HostCpu {
            vendor,
            family,
            model,
            stepping,
            brand,
            hypervisor,
            hypervisor_vendor,
            features,
            core_type,
            caches,
            cache_source,
            tlbs,
        })
    }

    /// This CPU, read live (`None` off x86-64); cache sizes from sysfs when CPUID has none.
    pub fn detect() -> Option<HostCpu> {
        let d = CpuidDump::read_live()?;
        let mut cpu = HostCpu::from_dump(&d).ok()?;
        if cpu.caches.is_empty() {
            cpu.fill_caches_from_sysfs(Path::new(SYSFS_CACHE));
        }
        Some(cpu)
    }

    /// When no cache is known, takes the caches from a sysfs cache directory
    /// (`/sys/devices/system/cpu/cpu0/cache`); true when it did.
    pub fn fill_caches_from_sysfs(&mut self, dir: &Path) -> bool {
        if !self.caches.is_empty() {
            return false;
        }
        let caches = caches_from_sysfs(dir);
        if caches.is_empty() {
            return false;
        }
        self.caches = caches;
        self.cache_source = CacheSource::Sysfs;
        true
    }

    /// `Vendor-family-model-stepping` in decimal: `AuthenticAMD-25-17-1`.
    pub fn signature(&self) -> String {
        format!(
            "{}-{}-{}-{}",
            self.vendor, self.family, self.model, self.stepping
        )
    }

    /// The cache of a level and kind (`Unified` also answers for a level asked as `Data`).
    pub fn cache(&self, level: u8, kind: Kind) -> Option<&Cache> {
        self.caches
            .iter()
            .find(|c| c.level == level && c.kind == kind)
            .or_else(|| {
                (kind == Kind::Data)
                    .then(|| {
                        self.caches
                            .iter()
                            .find(|c| c.level == level && c.kind == Kind::Unified)
                    })
                    .flatten()
            })
    }

    /// L1 data cache size in bytes.
    pub fn l1d(&self) -> Option<u64> {
        self.cache(1, Kind::Data).map(|c| c.size)
    }

    /// L2 size in bytes (the unified, or data, L2).
    pub fn l2(&self) -> Option<u64> {
        self.cache(2, Kind::Unified)
            .or_else(|| self.cache(2, Kind::Data))
            .map(|c| c.size)
    }

    /// L3 size in bytes.
    pub fn l3(&self) -> Option<u64> {
        self.cache(3, Kind::Unified).map(|c| c.size)
    }

    /// One line for reports: brand, signature, hypervisor, L1D/L2/L3.
    pub fn describe(&self) -> String {
        let mut s = match &self.brand {
            Some(b) => format!("{b} ({})", self.signature()),
            None => self.signature(),
        };
        if self.hypervisor {
            match &self.hypervisor_vendor {
                Some(v) => s.push_str(&format!(", under a hypervisor ({v})")),
                None => s.push_str(", under a hypervisor"),
            }
        }
        let sizes: Vec<String> = [("L1D", self.l1d()), ("L2", self.l2()), ("L3", self.l3())]
            .iter()
            .filter_map(|(n, v)| v.map(|v| format!("{n} {}", size_text(v))))
            .collect();
        if !sizes.is_empty() {
            s.push_str(&format!("; {}", sizes.join(", ")));
        }
        s
    }
}

impl Regs {
    /// EBX, ECX, EDX bytes: the hypervisor signature of leaf 0x40000000.
    fn vendor_bytes_hv(&self) -> [u8; 12] {
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&self.ebx.to_le_bytes());
        b[4..8].copy_from_slice(&self.ecx.to_le_bytes());
        b[8..].copy_from_slice(&self.edx.to_le_bytes());
        b
    }
}
