//! Levinthal's cycle accounting on hand-written streams (`crate::test_stream`).

use crate::test_stream::{close, dram_load, frontend_stall, mispredict, run};

/// Frontend stall: uops execute in cycles 0 and 3 (one each) → retired 2,
/// stalls 5 - 2 = 3, 1 uop per executing cycle. One icache miss of 2 cycles →
/// counted 2, unaccounted 3 - 2 = 1.
#[test]
fn accounting_of_a_frontend_stall() {
    let (facts, stream, clocks) = frontend_stall();
    let a = run(facts, &stream, clocks).cycle_accounting;
    assert!(close(a.retired, 2.0) && close(a.stalls, 3.0) && close(a.non_retired, 0.0), "{a:?}");
    assert!(close(a.uop_dispatch_rate, 1.0));
    let icache = a.penalties.iter().find(|t| t.event == "icache_miss").unwrap();
    assert_eq!(icache.count, 1);
    assert!(close(icache.penalty, 2.0));
    assert!(close(a.counted_stall_cycles, 2.0) && close(a.unaccounted, 1.0), "{a:?}");
}

/// Mispredict: one mispredicted branch × the 4-cycle penalty = 4; uops execute
/// in cycles 0 and 5 → stalls 7 - 2 = 5, unaccounted 1.
#[test]
fn accounting_of_a_mispredict() {
    let (facts, stream, clocks) = mispredict();
    let a = run(facts, &stream, clocks).cycle_accounting;
    let m = a.penalties.iter().find(|t| t.event == "branch_mispredict").unwrap();
    assert_eq!(m.count, 1);
    assert!(close(m.cycles, 4.0));
    assert!(close(a.stalls, 5.0) && close(a.unaccounted, 1.0), "{a:?}");
}

/// DRAM load: one load served by DRAM × the machine's 100 extra cycles = 100
/// counted against 10 stall cycles (cycle 0 executes the load): Levinthal's
/// point, the naive sum over-counts, unaccounted -90.
#[test]
fn accounting_of_a_dram_load() {
    let (facts, stream, clocks) = dram_load();
    let a = run(facts, &stream, clocks).cycle_accounting;
    let d = a.penalties.iter().find(|t| t.event == "l3_miss_dram").unwrap();
    assert_eq!(d.count, 1);
    assert!(close(d.cycles, 100.0));
    assert!(close(a.stalls, 10.0) && close(a.unaccounted, -90.0), "{a:?}");
}
