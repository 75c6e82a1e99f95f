//! The CPI stacks on hand-written streams (`crate::test_stream`); W = 2, so
//! base = fused uops / 2.

use crate::test_stream::{close, dram_load, frontend_stall, mispredict, run};

fn get(stack: &std::collections::BTreeMap<String, f64>, name: &str) -> f64 {
    stack[name]
}

/// Frontend stall (5 cycles, 2 uops: base 1).
///
/// Dispatch: the gap 0.5 → 2.5 is the fetch stall → icache 2; the drain 3.0 →
/// 5.0 goes to the ROB head at its middle (4.0): i1, which from its dispatch
/// (2.5) to its commit (4.0) waits for its own result, no penalty → dependence 2.
///
/// Issue, per cycle: cycle 0 issues 1 of 2 slots, the lost half goes to why
/// dispatch stalls then (the icache miss) → 0.5; cycle 1 nothing issues, still
/// the icache → 1; cycle 2 i1 waits for a port → structural 1; cycle 3 i1
/// issues (0.5 lost) and cycles 3-4 dispatch waits behind the ROB head
/// (dependence) → 0.5 + 1. Icache 1.5, structural 1, dependence 1.5.
///
/// Commit: before i0 commits (0 → 1) it waits for its result → dependence 1;
/// after its slot (end 1.5) until i1's commit slot 4.0: the ROB is empty
/// until i1 dispatches at 2.5 → icache 1.0, then i1 waits → dependence 1.5;
/// the last half cycle (4.5 → 5) → other 0.5. Commit width = W: no carry.
#[test]
fn stacks_of_a_frontend_stall() {
    let (facts, stream, clocks) = frontend_stall();
    let c = run(facts, &stream, clocks).cpi_stacks;
    let d = &c.dispatch;
    assert!(close(get(d, "base"), 1.0) && close(get(d, "icache"), 2.0) && close(get(d, "dependence"), 2.0), "{d:?}");
    let i = &c.issue;
    assert!(close(get(i, "base"), 1.0) && close(get(i, "icache"), 1.5) && close(get(i, "structural"), 1.0) && close(get(i, "dependence"), 1.5), "{i:?}");
    let m = &c.commit;
    assert!(close(get(m, "base"), 1.0) && close(get(m, "icache"), 1.0) && close(get(m, "dependence"), 2.5) && close(get(m, "other"), 0.5), "{m:?}");
    for stack in [d, i, m] {
        assert!(close(get(stack, "unattributed"), 0.0), "{stack:?}");
        assert!(close(stack.values().sum::<f64>(), 5.0));
    }
}

/// Mispredict (7 cycles, base 1). Dispatch: wrong path 0.5 + recovery 4 →
/// bpred 4.5; the drain 5.5 → 7 goes to the head at 6.25: i1 is the head from
/// its commit gap on (5.0 → 6.0, dependence), and the last change-point before
/// 6.25 is its dependence after the (empty) penalty → dependence 1.5.
#[test]
fn dispatch_stack_of_a_mispredict() {
    let (facts, stream, clocks) = mispredict();
    let d = run(facts, &stream, clocks).cpi_stacks.dispatch;
    assert!(close(get(&d, "bpred"), 4.5) && close(get(&d, "dependence"), 1.5) && close(get(&d, "base"), 1.0), "{d:?}");
    assert!(close(get(&d, "unattributed"), 0.0), "{d:?}");
}

/// DRAM load (11 cycles, base 0.5). Commit: the load is the head from 0 to its
/// commit slot 10: dependence until an L1 hit would have returned (4), its
/// DRAM penalty 4 → 10 → dcache_dram 6, dependence 4; then 10.5 → 11 other.
/// Dispatch: the drain 0.5 → 11 (10.5) goes to the head at 5.75, inside the
/// load's penalty → dcache_dram 10.5. Issue: cycle 0 issues half its slots
/// and the rest of the run has nothing to issue while dispatch waits behind
/// the load's penalty → dcache_dram 0.5 + 10.
#[test]
fn stacks_of_a_dram_load() {
    let (facts, stream, clocks) = dram_load();
    let c = run(facts, &stream, clocks).cpi_stacks;
    let m = &c.commit;
    assert!(close(get(m, "dependence"), 4.0) && close(get(m, "dcache_dram"), 6.0) && close(get(m, "other"), 0.5) && close(get(m, "base"), 0.5), "{m:?}");
    assert!(close(get(&c.dispatch, "dcache_dram"), 10.5), "{:?}", c.dispatch);
    assert!(close(get(&c.issue, "dcache_dram"), 10.5), "{:?}", c.issue);
    assert!(close(c.component("commit", "dcache"), 6.0));
}
