//! Gus (arXiv:2402.15773) Fig. 4/5/7/8: twelve single-uop instructions on a
//! 4-wide core with a 4-entry ROB. One pass takes 4 cycles; doubling port 1
//! gives 3; doubling any other port gives 4.
mod common;
use bottlenose_analysis::StaticOptions;
use common::*;

const FIG4: &str = "
    mul rbx
    sbb rcx, rdx
    rol rsi, 1
    bsf r8, r9
    rol r10, 1
    pop r11
    mov r12, [rdi]
    sahf
    movsx r13, byte ptr [rsi]
    sahf
    sbb r14, r15
    xor rbp, rax
";

fn one_pass(resources: &[&str], weights: &[f64]) -> bottlenose_analysis::BlockReport {
    run(
        "gus-fig4",
        FIG4,
        &StaticOptions {
            iterations: std::num::NonZeroU32::new(1),
            weights: weights.to_vec(),
            resources: Some(resources.iter().map(|s| s.to_string()).collect()),
            combine: vec![],
            sensitivity: true,
        },
    )
}

#[test]
fn nominal_takes_four_cycles_with_fig8_retirement() {
    let r = one_pass(&["p1"], &[2.0]);
    assert_eq!(r.unsupported_instructions.count, 0, "{:?}", r.unsupported_instructions);
    assert_eq!(r.total_cycles, 4.0);
    // Fig. 8, nominal column (1-based cycles)
    let commits: Vec<f64> = r.timeline.iter().map(|t| t.commit + 1.0).collect();
    assert_eq!(commits, vec![1., 1., 1., 2., 2., 2., 2., 3., 3., 3., 4., 4.]);
}

#[test]
fn accelerating_p1_saves_one_cycle() {
    let r = one_pass(&["p1"], &[2.0]);
    let p = &r.sensitivity[0];
    assert_eq!(p.cycles_per_iteration, 3.0);
    assert!((p.speedup - (4.0 / 3.0 - 1.0)).abs() < 1e-9);
}

#[test]
fn accelerating_any_other_port_saves_nothing() {
    let r = one_pass(&["p0", "p2", "p3", "p5", "p6"], &[2.0]);
    assert_eq!(r.sensitivity.len(), 5);
    for p in &r.sensitivity {
        assert_eq!(p.cycles_per_iteration, 4.0, "{:?}", p.resources);
        assert_eq!(p.speedup, 0.0);
    }
    // and the ranking names p1 alone
    let r = one_pass(&["p0", "p1", "p2", "p3", "p5", "p6"], &[2.0]);
    assert_eq!(r.bottlenecks.len(), 1);
    assert_eq!(r.bottlenecks[0].resources, vec!["p1".to_string()]);
}
