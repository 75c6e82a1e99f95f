//! The running CPU, for choosing a machine model: CPUID read live (x86-64) or
//! from a recorded dump, decoded into vendor, family/model/stepping, brand,
//! hypervisor, feature flags and cache/TLB geometry, and mapped to the closest
//! built-in machine even when a hypervisor masks the model number.
//!
//! * [`dump`]: [`CpuidDump`], (leaf, subleaf) → registers; live reading, the text
//!   format (also `cpuid -r` output and InstLatx64/AIDA64 reports), one-line [`DumpError`]s.
//! * [`cpu`]: [`HostCpu`] from a dump.
//! * [`features`]: the feature flags that tell the models apart.
//! * [`geometry`]: cache and TLB geometry from CPUID, sysfs as a fallback.
//! * [`identify`](mod@identify): [`identify()`] → [`Identification`] (`Exact` by
//!   family/model, `ByFeatures`, `Fallback`) with a one-line reason naming the evidence.
//!
//! ```
//! use bottlenose_host::{identify, CpuidDump, HostCpu, Match};
//! let dump = CpuidDump::parse("\
//! 0x00000000 0x00: eax=0x00000010 ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65
//! 0x00000001 0x00: eax=0x00a10f11 ebx=0x00000800 ecx=0xfef83203 edx=0x178bfbff
//! ", "genoa.txt").unwrap();
//! let cpu = HostCpu::from_dump(&dump).unwrap();
//! assert_eq!(cpu.signature(), "AuthenticAMD-25-17-1");
//! let id = identify(&cpu);
//! assert_eq!((id.machine, id.how), ("zen4", Match::Exact));
//! assert_eq!(id.reason, "AuthenticAMD family 25 model 17 (0x11) = Zen 4 (Genoa) → zen4");
//! ```

#![warn(missing_docs)]

pub mod cpu;
pub mod dump;
pub mod features;
pub mod geometry;
pub mod identify;

pub use cpu::HostCpu;
pub use features::Features;
pub use geometry::{Cache, CacheSource, Kind, Tlb};
pub use dump::{CpuidDump, DumpError, Regs};
pub use identify::{identify, Identification, Match, MACHINES};
