//! Behaviour of the cache hierarchy on crafted access streams.

use super::*;
use crate::test_params::{skylake_like, skylake_like_with};
use bottlenose_machine::Replacement;

const KIB: u64 = 1024;

fn l(c: &CacheHierarchy, name: &str) -> (u64, u64) {
    let s = c.level_stats(name).unwrap();
    (s.accesses, s.misses)
}

#[test]
fn working_set_that_fits_l1_hits_after_warm_up() {
    let mut c = CacheHierarchy::new(&skylake_like());
    let base = 0x10_0000u64;
    for a in (0..16 * KIB).step_by(8) {
        c.data_access(base + a, 8, false);
    }
    let (_, m0) = l(&c, "L1D");
    assert_eq!(m0, 16 * KIB / 64, "one cold miss per line");
    for _ in 0..5 {
        for a in (0..16 * KIB).step_by(8) {
            assert_eq!(c.data_access(base + a, 8, false), MemLevel::L1);
        }
    }
    assert_eq!(l(&c, "L1D").1, m0);
    // The full 32 KiB also fits (64 sets × 8 ways, contiguous).
    let mut c = CacheHierarchy::new(&skylake_like());
    for _ in 0..2 {
        for a in (0..32 * KIB).step_by(64) {
            c.data_access(base + a, 8, false);
        }
    }
    assert_eq!(l(&c, "L1D"), (1024, 512));
}

#[test]
fn strided_pass_over_twice_l2_misses_l2_on_every_line() {
    for repl in [Replacement::Lru, Replacement::Plru] {
        let mut c = CacheHierarchy::new(&skylake_like_with(repl));
        let size = 2 * 256 * KIB;
        let base = 0x4000_0000u64;
        for a in (0..size).step_by(64) {
            assert_eq!(c.data_access(base + a, 8, false), MemLevel::Dram);
        }
        let (a0, m0) = l(&c, "L2");
        for _ in 0..3 {
            for a in (0..size).step_by(64) {
                assert_eq!(c.data_access(base + a, 8, false), MemLevel::L3, "{repl:?} addr {a:#x}");
            }
        }
        let (a1, m1) = l(&c, "L2");
        assert_eq!(a1 - a0, 3 * size / 64);
        assert_eq!(m1 - m0, 3 * size / 64, "{repl:?}: every line misses L2");
    }
}

#[test]
fn ways_plus_one_lines_in_one_set_thrash_under_lru() {
    let mut c = CacheHierarchy::new(&skylake_like_with(Replacement::Lru));
    // L1D: 64 sets of 64 B → addresses 4 KiB apart share a set.
    let lines: Vec<u64> = (0..9).map(|i| 0x20_0000 + i * 4 * KIB).collect();
    for &a in &lines {
        c.data_access(a, 8, false);
    }
    for _ in 0..10 {
        for &a in &lines {
            assert_eq!(c.data_access(a, 8, false), MemLevel::L2, "9 lines in an 8-way set");
        }
    }
    // 8 of them fit.
    let mut c = CacheHierarchy::new(&skylake_like_with(Replacement::Lru));
    for _ in 0..2 {
        for &a in &lines[..8] {
            c.data_access(a, 8, false);
        }
    }
    assert_eq!(l(&c, "L1D").1, 8);
}

#[test]
fn line_crossing_access_touches_both_lines_and_reports_the_worst() {
    let mut c = CacheHierarchy::new(&skylake_like());
    let a = 0x30_0000u64;
    c.data_access(a, 8, false); // line a in L1
    assert_eq!(c.data_access(a + 56, 8, false), MemLevel::L1, "ends exactly at the line end");
    // 16 bytes at a+56 cross into the next (cold) line.
    assert_eq!(c.data_access(a + 56, 16, false), MemLevel::Dram);
    assert!(c.contains("L1D", a + 64));
    let s = c.stats();
    assert_eq!(s.line_crossings, 1);
    assert_eq!(s.data_accesses, 3);
    assert_eq!(l(&c, "L1D"), (4, 2));
    assert_eq!(c.data_access(a + 60, 8, false), MemLevel::L1);
}

#[test]
fn stores_write_allocate() {
    let mut c = CacheHierarchy::new(&skylake_like());
    assert_eq!(c.data_access(0x55_0000, 8, true), MemLevel::Dram);
    assert!(c.contains("L1D", 0x55_0000) && c.contains("L2", 0x55_0000) && c.contains("L3", 0x55_0000));
    assert_eq!(c.data_access(0x55_0008, 8, false), MemLevel::L1);
    assert_eq!(c.stats().stores, 1);
}

#[test]
fn inner_levels_are_filled_from_the_serving_level() {
    let mut c = CacheHierarchy::new(&skylake_like());
    let a = 0x60_0000u64;
    c.data_access(a, 8, false);
    // Evict it from L1D (8-way set, 4 KiB apart) but not from L2 (4-way, 1024 sets → 64 KiB apart).
    for i in 1..=8 {
        c.data_access(a + i * 4 * KIB, 8, false);
    }
    assert!(!c.contains("L1D", a));
    assert_eq!(c.data_access(a, 8, false), MemLevel::L2);
    assert!(c.contains("L1D", a), "L2 hit refills L1D");
    assert_eq!(c.data_access(a, 8, false), MemLevel::L1);
}

#[test]
fn instruction_side_has_its_own_l1_and_shares_l2() {
    let mut c = CacheHierarchy::new(&skylake_like());
    let code = 0x40_1000u64;
    assert_eq!(c.inst_fetch(code), MemLevel::Dram);
    assert_eq!(c.inst_fetch(code + 16), MemLevel::L1);
    assert!(!c.contains("L1D", code));
    // Reading the code as data finds it in L2.
    assert_eq!(c.data_access(code, 8, false), MemLevel::L2);
    let (acc, miss) = l(&c, "L1I");
    assert_eq!((acc, miss), (2, 1));
    assert_eq!(c.stats().inst_fetches, 2);
}

#[test]
fn latencies_come_from_the_params() {
    let c = CacheHierarchy::new(&skylake_like());
    assert_eq!(c.latency(MemLevel::L1), 5.0);
    assert_eq!(c.latency(MemLevel::L2), 12.0);
    assert_eq!(c.latency(MemLevel::L3), 42.0);
    assert_eq!(c.latency(MemLevel::Dram), 250.0);
    assert_eq!(c.inst_latency(MemLevel::L1), 1.0);
    assert_eq!(c.inst_latency(MemLevel::L2), 12.0);
}

#[test]
fn missing_levels_are_skipped() {
    let mut p = skylake_like();
    p.caches.retain(|c| c.name != "L3");
    let mut c = CacheHierarchy::new(&p);
    assert_eq!(c.data_access(0x1234, 4, false), MemLevel::Dram);
    assert_eq!(c.latency(MemLevel::L3), 250.0);
    let mut p = skylake_like();
    p.caches.clear();
    let mut c = CacheHierarchy::new(&p);
    assert_eq!(c.data_access(0x1234, 4, false), MemLevel::Dram);
    assert_eq!(c.inst_fetch(0x1234), MemLevel::Dram);
}

#[test]
fn unified_l1_serves_both_sides() {
    let mut p = skylake_like();
    p.caches.retain(|c| c.name != "L1I");
    p.caches.iter_mut().find(|c| c.name == "L1D").unwrap().kind = bottlenose_machine::CacheKind::Unified;
    let mut c = CacheHierarchy::new(&p);
    c.inst_fetch(0x9000);
    assert_eq!(c.data_access(0x9008, 8, false), MemLevel::L1);
    assert_eq!(c.stats().levels.len(), 3);
}

#[test]
fn perfect_caches_never_miss() {
    let mut c = CacheHierarchy::new(&skylake_like());
    c.set_perfect(true, true);
    for i in 0..100_000u64 {
        assert_eq!(c.data_access(i * 4096 + 60, 8, i % 3 == 0), MemLevel::L1);
        assert_eq!(c.inst_fetch(i * 8192), MemLevel::L1);
    }
    let s = c.stats();
    assert!(s.levels.iter().all(|l| l.misses == 0));
    assert_eq!(s.dram_accesses, 0);
}

fn sweep_misses_on(params: &bottlenose_machine::Params, pf: Prefetcher, stride: u64) -> (u64, CacheStats) {
    let mut c = CacheHierarchy::with_prefetcher(params, pf);
    for a in (0..1024 * KIB).step_by(stride as usize) {
        c.data_access(0x1_0000_0000 + a, 8, false);
    }
    (l(&c, "L1D").1, c.stats())
}

fn sweep_misses(pf: Prefetcher, stride: u64) -> (u64, CacheStats) {
    sweep_misses_on(&skylake_like(), pf, stride)
}

#[test]
fn prefetchers_cut_streaming_misses() {
    // skylake_like has no [prefetch] section: the machine's choice is none
    let c = CacheHierarchy::new(&skylake_like());
    assert_eq!(c.prefetcher(), Prefetcher::Machine);
    assert!(c.describe().ends_with("prefetcher none"), "{}", c.describe());
    let (none, s) = sweep_misses(Prefetcher::None, 64);
    assert_eq!(none, 1024 * KIB / 64);
    assert_eq!(s.prefetch_fills, 0);
    let (machine, _) = sweep_misses(Prefetcher::Machine, 64);
    assert_eq!(machine, none);
    // Next-line: every other line is prefetched.
    let (nl, s) = sweep_misses(Prefetcher::NextLine, 64);
    assert_eq!(s.prefetcher, "next-line");
    assert!(nl <= none / 2 + 1, "next-line {nl} vs {none}");
    // Stride (256 B, 4 lines): three accesses train the first page's stream
    // (two equal deltas), then the stream ramps ahead without holes and
    // carries into each next page: only those first three miss.
    let (no_stride, _) = sweep_misses(Prefetcher::None, 256);
    assert_eq!(no_stride, 4 * 1024);
    let (st, s) = sweep_misses(Prefetcher::Stride, 256);
    assert_eq!(s.prefetcher, "stream 16 lines ahead");
    assert_eq!(st, 3, "stride {st} vs {no_stride}");
    assert_eq!("next-line".parse::<Prefetcher>(), Ok(Prefetcher::NextLine));
    assert_eq!("machine".parse::<Prefetcher>(), Ok(Prefetcher::Machine));
}

/// A machine's `[prefetch]` section is what `machine` runs, at its distance.
#[test]
fn the_machine_prefetchers_run_at_the_machine_distance() {
    let mut p = skylake_like();
    p.prefetch = bottlenose_machine::PrefetchParams { next_line: true, stream: true, streams: 16, stream_distance_lines: Some(40) };
    let mut c = CacheHierarchy::new(&p);
    assert!(c.describe().ends_with("prefetcher next-line + stream 40 lines ahead"), "{}", c.describe());
    // one 8-byte access per line: lines 0, 1, 2 train the stream; the third
    // access prefetches line 2 + 40, and every later access one more line, so
    // the stream stays 40 lines ahead
    let base = 0x1_0000_0000u64;
    let mut prefetched = Vec::new();
    for i in 0..8u64 {
        c.data_access(base + 64 * i, 8, false);
        let started: Vec<u64> = c.take_prefetches().as_slice().iter().map(|&(l, _)| (l - base) / 64).collect();
        prefetched.push(started);
    }
    // line 0's miss: next-line fetches 1; line 1 was prefetched (a hit, no
    // stream yet: one delta); line 2 confirms the stride and the stream
    // fetches two lines per access from there on
    let expect: [&[u64]; 8] = [&[1], &[], &[3, 4], &[5, 6], &[7, 8], &[9, 10], &[11, 12], &[13, 14]];
    assert_eq!(prefetched, expect);
    // one access per line: the lead grows by a line per access up to 40
    // lines, then holds; the 1 MiB sweep misses in lines 0 and 2 only
    let (m, s) = sweep_misses_on(&p, Prefetcher::Machine, 64);
    assert_eq!(m, 2);
    // lines prefetched: all but those two, plus the 40 beyond the end
    assert_eq!(s.prefetch_fills, 1024 * KIB / 64 - 2 + 40);
}

#[test]
fn stats_serialize() {
    let mut c = CacheHierarchy::new(&skylake_like());
    c.data_access(0, 8, false);
    let j = serde_json::to_value(c.stats()).unwrap();
    let names: Vec<_> = j["levels"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["L1D", "L1I", "L2", "L3"]);
    assert_eq!(j["levels"][0]["misses"], 1);
    assert_eq!(j["levels"][0]["kind"], "data");
    assert_eq!(j["prefetcher"], "none");
}

#[test]
fn the_derived_stream_distance_is_dram_in_flight_lines_within_an_eighth_of_l1d() {
    let auto = bottlenose_machine::PrefetchParams { next_line: true, stream: true, streams: 16, stream_distance_lines: None };
    let mut p = skylake_like(); // L1D 32 KiB of 64-byte lines: 512 lines, an eighth is 64
    p.memory.dram_latency = 400.0;
    p.memory.dram_bytes_per_cycle = 10.0;
    // 400 cycles x 10 B/cycle / 64 B = 62.5 lines in flight -> 63
    assert_eq!(auto.distance_lines(&p.memory, &p.caches), 63);
    // 600 x 10 / 64 = 93.75 -> 94, above 64: the L1D bound holds it
    p.memory.dram_latency = 600.0;
    assert_eq!(auto.distance_lines(&p.memory, &p.caches), 64);
    // a 48 KiB L1D (768 lines) allows 96
    p.caches.iter_mut().find(|c| c.name == "L1D").unwrap().size_kib = 48;
    assert_eq!(auto.distance_lines(&p.memory, &p.caches), 94);
    // a machine file's own distance is taken as it is
    let fixed = bottlenose_machine::PrefetchParams { stream_distance_lines: Some(100), ..auto };
    assert_eq!(fixed.distance_lines(&p.memory, &p.caches), 100);
}

/// Writes `bytes` from `base` with one 8-byte store per line.
fn store_stream(c: &mut CacheHierarchy, base: u64, bytes: u64) {
    for a in (0..bytes).step_by(64) {
        c.data_access(base + a, 8, true);
    }
}

#[test]
fn stores_write_back_dirty_lines_when_they_leave_l1() {
    // 64 KiB of stores into a 32 KiB L1D (512 lines): every line past the first 512
    // evicts a dirty one, so 1024 - 512 lines go to L2; L2 (256 KiB) keeps them all
    let mut c = CacheHierarchy::new(&skylake_like());
    store_stream(&mut c, 0x100_0000, 64 * KIB);
    assert_eq!(c.stats().writebacks, [512, 0, 0]);
    assert_eq!(c.take_writebacks(), [255, 0, 0], "pending counts saturate at u8::MAX");
    assert_eq!(c.take_writebacks(), [0, 0, 0], "taken once");
    // a read-only pass over another 64 KiB pushes out the other 512 dirty lines, and
    // writes nothing itself
    for a in (0..64 * KIB).step_by(64) {
        c.data_access(0x200_0000 + a, 8, false);
    }
    assert_eq!(c.stats().writebacks, [1024, 0, 0]);
    for a in (0..64 * KIB).step_by(64) {
        c.data_access(0x300_0000 + a, 8, false);
    }
    assert_eq!(c.stats().writebacks, [1024, 0, 0], "clean lines leave without a write-back");
}

#[test]
fn loads_alone_never_write_back() {
    let mut c = CacheHierarchy::new(&skylake_like());
    for a in (0..1024 * KIB).step_by(64) {
        c.data_access(0x100_0000 + a, 8, false);
    }
    assert_eq!(c.stats().writebacks, [0, 0, 0]);
}

#[test]
fn write_backs_cascade_from_l2_to_l3() {
    // 512 KiB of stores (8192 lines), LRU everywhere: L1D writes back 8192 - 512 lines;
    // L2 (4096 lines) got each line on its demand miss and holds it dirty from the
    // L1 write-back on (512 lines later, which also makes it the most recent of its
    // set); it evicts 8192 - 4096 lines, each after that, so each is dirty; the 8 MiB
    // L3 keeps everything
    let mut c = CacheHierarchy::new(&skylake_like_with(Replacement::Lru));
    store_stream(&mut c, 0x100_0000, 512 * KIB);
    assert_eq!(c.stats().writebacks, [8192 - 512, 8192 - 4096, 0]);
    // misses are demand misses only: the write-backs found their lines in L2
    assert_eq!(l(&c, "L2"), (8192, 8192));
}
