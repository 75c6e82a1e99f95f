//! Top-Down on hand-written streams (`crate::test_stream`); W = 2 slots per cycle.

use crate::test_stream::{close, dram_load, frontend_stall, mispredict, run};

/// Frontend stall. Clocks 5 → 10 slots. Retired: 2 fused uops → 2 slots.
/// Frontend: the lost dispatch slots from the previous slot end 0.5 to the
/// slot 2.5 that the fetch stall explains: 2 cycles = 4 slots; of them only
/// cycle 1 lost both its slots (cycle 0 used one, cycle 2 lost one).
/// Backend: the drain after the last dispatch (slot end 3.0) to the end
/// (5.0): 2 cycles = 4 slots. So retiring 2/10, frontend 4/10, backend 4/10.
/// Uops executed: one in cycle 0, one in cycle 3 → two cycles with ≥ 1.
#[test]
fn level_one_of_a_frontend_stall() {
    let (facts, stream, clocks) = frontend_stall();
    let td = run(facts, &stream, clocks).topdown;
    let s = td.slots();
    assert!(close(s.total_slots, 10.0));
    assert!(close(s.retiring, 0.2), "{s:?}");
    assert!(close(s.frontend_bound, 0.4), "{s:?}");
    assert!(close(s.backend_bound, 0.4), "{s:?}");
    assert!(close(s.bad_speculation, 0.0), "{s:?}");
    assert_eq!(td.fetch_full_cycles, 1);
    assert_eq!((td.ops_c1, td.ops_c2, td.ops_executed), (2, 0, 2));
    assert_eq!(td.fp_scalar, 1);
}

/// Mispredict. Clocks 7 → 14 slots. The wrong path dispatched 0.5 cycles (1
/// slot issued, not retired); from the resolution (1) to the resteer (5) the
/// recovery: 4 cycles = 8 slots. Bad speculation (1 + 8)/14. The drain from
/// the last slot end 5.5 to 7: 1.5 cycles = 3 slots of backend. Retiring 2/14.
#[test]
fn bad_speculation_of_a_mispredict() {
    let (facts, stream, clocks) = mispredict();
    let td = run(facts, &stream, clocks).topdown;
    let s = td.slots();
    assert!(close(s.bad_speculation, 9.0 / 14.0), "{s:?}");
    assert!(close(s.backend_bound, 3.0 / 14.0), "{s:?}");
    assert!(close(s.retiring, 2.0 / 14.0), "{s:?}");
    assert!(close(s.frontend_bound, 0.0), "{s:?}");
    assert_eq!(td.mispredicts, 1);
    let events: std::collections::BTreeMap<String, f64> = td.events(28).into_iter().collect();
    assert!(close(events["SlotsIssued"], 3.0), "retired 2 + wrong path 1");
    assert!(close(events["RecoveryBubbles"], 8.0));
}

/// DRAM load. The load is in flight in cycles 0..9 (it starts in cycle 0, its
/// data returns at 10). Cycle 0 executes the load uop; cycles 1..9 execute
/// nothing while a load that missed L1, L2 and L3 is in flight: 9 load-stall
/// cycles at every level. A DRAM load is in flight in 10 cycles (ExtMemOutstanding
/// sums one per cycle: 10), never 28 of them (the bandwidth threshold).
#[test]
fn memory_stalls_of_a_dram_load() {
    let (facts, stream, clocks) = dram_load();
    let td = run(facts, &stream, clocks).topdown;
    assert_eq!((td.mem_any, td.mem_l1, td.mem_l2, td.mem_l3), (9, 9, 9, 9));
    assert_eq!((td.ext_c1, td.ext_occupancy, td.ext_ct), (10, 10, 0));
    assert_eq!(td.ops_c1, 1);
    // the backend: from the slot end 0.5 to 11
    assert!(close(td.backend_cycles, 10.5));
}

/// A window's tally reads each count where the tree's formulas read it: the
/// cycles with ≥ k uops executed are the sums of the histogram from k up
/// (cycles with exactly 1, 2, ≥ 3: 5, 3, 2 → ≥ 1: 10, ≥ 2: 5, ≥ 3: 2).
#[test]
fn a_window_tallies_every_count_of_the_tree() {
    use super::counts::{CycleCounts, DispatchGaps, TopDownCounts};
    use super::TopDownTally as T;
    let c = TopDownCounts {
        gaps: DispatchGaps { frontend_full_cycles: 7, ..Default::default() },
        cycles: CycleCounts {
            uops: [0, 5, 3, 2],
            load_stalls: [10, 6, 4, 1],
            store_stalls: 3,
            dram_cycles: 9,
            dram_bandwidth_cycles: 2,
            dram_occupancy: 40,
            divider_active: 11,
        },
    };
    let t = c.tally();
    let expected = [
        (T::FetchFullCycles, 7.0),
        (T::LoadStalls, 10.0),
        (T::LoadStallsL1Miss, 6.0),
        (T::LoadStallsL2Miss, 4.0),
        (T::LoadStallsL3Miss, 1.0),
        (T::StoreStalls, 3.0),
        (T::DramCycles, 9.0),
        (T::DramBandwidthCycles, 2.0),
        (T::DividerActive, 11.0),
        (T::OpsAtLeast1, 10.0),
        (T::OpsAtLeast2, 5.0),
        (T::OpsAtLeast3, 2.0),
    ];
    assert_eq!(expected.len(), T::ALL.len());
    for (k, v) in expected {
        assert_eq!(t[k as usize], v, "{k:?}");
    }
}
