//! The bundled functional layer: idealization switches and the real skylake machine file.

use bottlenose_functional::test_params::skylake_like;
use bottlenose_functional::{BranchKind, FunctionalLayer, Idealization, MemLevel, Prefetcher};

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0
    }
}

/// A noisy mixed workload: random data accesses over 64 MiB, code spread over
/// 4 MiB, random conditional and indirect branches, unmatched returns.
fn hammer(f: &mut FunctionalLayer, n: usize) {
    let mut r = Lcg(99);
    for _ in 0..n {
        let x = r.next();
        f.inst_fetch(0x40_0000 + (x >> 10) % (4 << 20));
        f.data_access(0x1000_0000 + (x >> 20) % (64 << 20), 8, x & 1 == 1);
        let pc = 0x40_0000 + (x >> 30) % 4096;
        f.branch(pc, BranchKind::Conditional, x >> 63 == 1, pc + 100, pc + 2);
        f.branch(pc + 7, BranchKind::IndirectJump, true, 0x50_0000 + (x >> 40) % 64 * 16, pc + 9);
        f.branch(pc + 11, BranchKind::Return, true, x >> 44, pc + 12);
        f.branch(pc + 13, BranchKind::DirectJump, true, x >> 24, pc + 15);
    }
}

#[test]
fn without_idealization_the_noisy_workload_misses_and_mispredicts() {
    let mut f = FunctionalLayer::new(&skylake_like(), Idealization::default());
    hammer(&mut f, 50_000);
    let s = f.stats();
    assert!(s.caches.levels.iter().all(|l| l.misses > 0));
    assert!(s.tlbs.page_walks > 0);
    assert!(s.branches.conditional.mispredicts > 10_000);
    assert!(s.branches.indirect_jump.mispredicts > 10_000);
    assert!(s.branches.ret.mispredicts > 40_000);
    assert!(s.branches.btb_misses > 0);
}

#[test]
fn idealization_flags_give_zero_misses_and_mispredicts() {
    let ideal = Idealization { perfect_icache: true, perfect_dcache: true, perfect_branch: true };
    let mut f = FunctionalLayer::with_prefetcher(&skylake_like(), ideal, Prefetcher::Stride);
    hammer(&mut f, 50_000);
    let s = f.stats();
    assert_eq!(s.idealization, ideal);
    assert!(s.caches.levels.iter().all(|l| l.misses == 0), "{:?}", s.caches.levels);
    assert_eq!(s.caches.dram_accesses, 0);
    assert!(s.tlbs.levels.iter().all(|l| l.misses == 0));
    assert_eq!(s.tlbs.extra_cycles, 0.0);
    assert_eq!(s.branches.branches, 200_000);
    assert_eq!((s.branches.mispredicts, s.branches.btb_misses), (0, 0));
    assert_eq!(s.caches.data_accesses, 50_000);
}

#[test]
fn each_flag_only_idealizes_its_own_part() {
    let ideal = Idealization { perfect_dcache: true, ..Default::default() };
    let mut f = FunctionalLayer::new(&skylake_like(), ideal);
    hammer(&mut f, 20_000);
    let s = f.stats();
    let by = |n: &str| s.caches.levels.iter().find(|l| l.name == n).unwrap().misses;
    assert_eq!(by("L1D"), 0);
    assert!(by("L1I") > 0);
    assert!(s.branches.mispredicts > 0);
    let mut f = FunctionalLayer::new(&skylake_like(), Idealization { perfect_icache: true, ..Default::default() });
    hammer(&mut f, 20_000);
    let s = f.stats();
    let by = |n: &str| s.caches.levels.iter().find(|l| l.name == n).unwrap().misses;
    assert_eq!(by("L1I"), 0);
    assert!(by("L1D") > 0);
}

#[test]
fn data_access_reports_level_and_translation_cost() {
    let mut f = FunctionalLayer::new(&skylake_like(), Idealization::default());
    let o = f.data_access(0x7000_0000, 8, false);
    assert_eq!((o.level, o.tlb_cycles), (MemLevel::Dram, 39.0));
    let o = f.data_access(0x7000_0008, 8, false);
    assert_eq!((o.level, o.tlb_cycles), (MemLevel::L1, 0.0));
    assert_eq!(f.data_latency(MemLevel::Dram), 250.0);
    let json = serde_json::to_string(&f.stats()).unwrap();
    assert!(json.contains("\"perfect_dcache\":false"));
}

#[test]
fn builds_from_the_skylake_machine_file() {
    // The form table may be regenerated concurrently; only the params matter here.
    let Ok(m) = bottlenose_machine::Machine::resolve("skylake") else {
        eprintln!("skylake machine did not load; skipped");
        return;
    };
    let mut f = FunctionalLayer::new(&m.params, Idealization::default());
    let d = f.caches.describe();
    assert!(d.contains("L1D 64x8-way"), "{d}");
    assert!(d.contains("L2 1024x4-way"), "{d}");
    assert_eq!(f.caches.latency(MemLevel::L2), m.params.caches.iter().find(|c| c.name == "L2").unwrap().latency);
    assert_eq!(f.inst_fetch(0x40_1000).level, MemLevel::Dram);
    assert_eq!(f.inst_fetch(0x40_1010).level, MemLevel::L1);
}
