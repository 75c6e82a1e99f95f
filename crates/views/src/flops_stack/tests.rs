//! The FLOPS stack on a hand-written stream (`crate::test_stream`).

use crate::test_stream::{close, frontend_stall, run};

/// Frontend stall; i1 is a scalar double FP add. Machine: 2 FP units of 256
/// bits with FMA → peak 2 × 4 × 2 = 16 flops/cycle; 5 cycles → 10 unit-cycles.
///
/// The add takes one unit-cycle: base 0.25 (its width) × 1/2 (no FMA) =
/// 0.125, non_fma 0.125, narrow 0.75. Idle unit-cycles per cycle (2 units):
/// cycles 0-1 no FP instruction waits and the frontend stalls on the icache →
/// icache 4; cycle 2 the add waits for a port → non_vfp 2; cycle 3 it issues
/// (1 idle) and cycles 3-4 have no FP instruction and no frontend stall →
/// non_fp 3. Known: 1 + 4 + 2 = 7 of 10, the rest (3) is non_fp. Scaled by
/// 16 / 10: base 0.2, non_fma 0.2, narrow 1.2, icache 6.4, non_vfp 3.2, non_fp 4.8.
#[test]
fn stack_of_a_scalar_add_behind_a_frontend_stall() {
    let (facts, stream, clocks) = frontend_stall();
    let f = run(facts, &stream, clocks).flops_stack;
    assert!(close(f.peak_flops_per_cycle, 16.0));
    assert!(close(f.flops_per_cycle, 0.2), "1 flop in 5 cycles");
    assert_eq!(f.fp_instructions, 1);
    let expect = [("base", 0.2), ("non_fma", 0.2), ("narrow", 1.2), ("non_fp", 4.8), ("icache", 6.4), ("bpred", 0.0), ("non_vfp", 3.2), ("memory", 0.0), ("dependence", 0.0)];
    for (name, v) in expect {
        assert!(close(f.components[name], v), "{name}: {} vs {v} ({:?})", f.components[name], f.components);
    }
}

/// The mispredict stream (`test_stream::mispredict`): no FP instruction at all, 7 cycles,
/// 2 FP units → 14 idle unit-cycles, peak 16. In cycles 0-4 nothing FP waits and the
/// frontend is on the wrong path or resteering (as the issue CPI stack says: bpred) →
/// bpred 10; cycles 5-6 i1 runs with the frontend back → non_fp 4. Scaled by 16 / 14:
/// bpred 11.43, non_fp 4.57. The rule holds from the first cycle, FP instruction or not:
/// a sampled run's windows, which may hold none of a program's few FP instructions,
/// charge a stretch as the exact run does (sort's 5 FP instructions in its start-up once
/// split its stack 83 / 17 exact against 100 / 0 sampled).
#[test]
fn an_integer_stream_charges_idle_units_to_the_misprediction() {
    let (facts, stream, clocks) = crate::test_stream::mispredict();
    let f = run(facts, &stream, clocks).flops_stack;
    assert_eq!(f.fp_instructions, 0);
    let expect = [("base", 0.0), ("non_fma", 0.0), ("narrow", 0.0), ("non_fp", 16.0 * 4.0 / 14.0), ("icache", 0.0), ("bpred", 16.0 * 10.0 / 14.0), ("non_vfp", 0.0), ("memory", 0.0), ("dependence", 0.0)];
    for (name, v) in expect {
        assert!(close(f.components[name], v), "{name}: {} vs {v} ({:?})", f.components[name], f.components);
    }
}
