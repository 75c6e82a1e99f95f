//! Behaviour of the combined branch unit: indirect targets, returns, BTB misses.

use super::*;

fn unit() -> BranchUnit {
    BranchUnit::new(&BranchParams::default())
}

#[test]
fn indirect_jump_cycling_through_four_targets_is_learned() {
    let mut u = unit();
    let pc = 0x40_2000;
    let targets = [0x40_3000u64, 0x40_3120, 0x40_3388, 0x40_3404];
    let pattern = [0usize, 1, 2, 3];
    let mut miss = 0;
    let n = 20_000;
    for i in 0..n {
        let t = targets[pattern[i % 4]];
        let o = u.predict_and_update(pc, BranchKind::IndirectJump, true, t, pc + 2);
        if i >= 2_000 {
            miss += o.mispredicted as u32;
        }
    }
    let rate = miss as f64 / (n - 2_000) as f64;
    assert!(rate < 0.05, "indirect mispredict rate {rate}");
}

#[test]
fn indirect_jump_with_irregular_fixed_pattern_is_learned() {
    // Period 6 over 4 targets (A B A C D B): the previous target alone does
    // not determine the next, two previous targets do.
    let mut u = unit();
    let pc = 0x41_0000;
    let t = [0x41_1000u64, 0x41_2040, 0x41_3080, 0x41_40c0];
    let pattern = [0usize, 1, 0, 2, 3, 1];
    let mut miss = 0;
    for i in 0..30_000 {
        let o = u.predict_and_update(pc, BranchKind::IndirectJump, true, t[pattern[i % 6]], pc + 3);
        if i >= 5_000 {
            miss += o.mispredicted as u32;
        }
    }
    let rate = miss as f64 / 25_000.0;
    assert!(rate < 0.05, "indirect mispredict rate {rate}");
}

#[test]
fn nested_calls_and_returns_are_predicted_exactly() {
    let mut u = unit();
    // main → f → g → h, returns, then main → g → h twice.
    let mut stack = Vec::new();
    let mut mis = 0;
    let call = |u: &mut BranchUnit, site: u64, callee: u64, stack: &mut Vec<u64>| {
        u.predict_and_update(site, BranchKind::DirectCall, true, callee, site + 5);
        stack.push(site + 5);
    };
    for round in 0..3u64 {
        call(&mut u, 0x1000 + round, 0x2000, &mut stack);
        call(&mut u, 0x2010, 0x3000, &mut stack);
        call(&mut u, 0x3010, 0x4000, &mut stack);
        for _ in 0..3 {
            let ret = stack.pop().unwrap();
            mis += u.predict_and_update(0x9000, BranchKind::Return, true, ret, 0x9001).mispredicted as u32;
        }
        // An indirect call mixed in.
        u.predict_and_update(0x1100, BranchKind::IndirectCall, true, 0x5000, 0x1106);
        mis += u.predict_and_update(0x5050, BranchKind::Return, true, 0x1106, 0x5051).mispredicted as u32;
    }
    assert_eq!(mis, 0);
    assert_eq!(u.counters(BranchKind::Return).branches, 12);
    assert_eq!(u.counters(BranchKind::Return).mispredicts, 0);
}

#[test]
fn ras_overflow_mispredicts_only_the_overflowed_returns() {
    let p = BranchParams::default();
    let depth = p.ras_entries as u64 + 5;
    let mut u = unit();
    for d in 0..depth {
        u.predict_and_update(0x1000 + d * 16, BranchKind::DirectCall, true, 0x1000 + (d + 1) * 16, 0x1000 + d * 16 + 5);
    }
    let mut mispredicted = Vec::new();
    for d in (0..depth).rev() {
        let o = u.predict_and_update(0x8000, BranchKind::Return, true, 0x1000 + d * 16 + 5, 0x8001);
        mispredicted.push(o.mispredicted);
    }
    let n = p.ras_entries as usize;
    assert!(mispredicted[..n].iter().all(|&m| !m), "innermost {n} returns predicted");
    assert!(mispredicted[n..].iter().all(|&m| m), "the 5 overflowed returns mispredict");
}

#[test]
fn direct_branches_miss_the_btb_only_on_first_encounter() {
    let mut u = unit();
    let o = u.predict_and_update(0x100, BranchKind::DirectJump, true, 0x200, 0x102);
    assert_eq!(o, BranchOutcome { mispredicted: false, btb_miss: true });
    let o = u.predict_and_update(0x100, BranchKind::DirectJump, true, 0x200, 0x102);
    assert_eq!(o, BranchOutcome::default());
    let o = u.predict_and_update(0x300, BranchKind::DirectCall, true, 0x400, 0x305);
    assert!(o.btb_miss && !o.mispredicted);
}

#[test]
fn taken_conditional_new_to_the_btb_is_a_resteer_not_a_mispredict() {
    let mut u = unit();
    // The bimodal table starts weakly taken: a taken branch is predicted right
    // but its target is unknown.
    let o = u.predict_and_update(0x700, BranchKind::Conditional, true, 0x780, 0x702);
    assert_eq!(o, BranchOutcome { mispredicted: false, btb_miss: true });
    let o = u.predict_and_update(0x700, BranchKind::Conditional, true, 0x780, 0x702);
    assert_eq!(o, BranchOutcome::default());
    // Not-taken branches never miss the BTB.
    let mut miss = 0;
    for _ in 0..100 {
        miss += u.predict_and_update(0x800, BranchKind::Conditional, false, 0x880, 0x802).btb_miss as u32;
    }
    assert_eq!(miss, 0);
    assert_eq!(u.stats().conditional.branches, 102);
}

#[test]
fn perfect_branch_unit_never_mispredicts() {
    let mut u = unit();
    u.set_perfect(true);
    let mut x = 1u64;
    for i in 0..10_000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let kind = match i % 5 {
            0 => BranchKind::Conditional,
            1 => BranchKind::IndirectJump,
            2 => BranchKind::Return,
            3 => BranchKind::DirectJump,
            _ => BranchKind::IndirectCall,
        };
        let o = u.predict_and_update(x & 0xffff, kind, x >> 63 == 1, x >> 40, (x & 0xffff) + 2);
        assert_eq!(o, BranchOutcome::default());
    }
    let s = u.stats();
    assert_eq!(s.branches, 10_000);
    assert_eq!((s.mispredicts, s.btb_misses), (0, 0));
}

#[test]
fn none_kind_is_ignored_and_stats_serialize() {
    let mut u = unit();
    u.predict_and_update(0x10, BranchKind::None, false, 0, 0x12);
    u.predict_and_update(0x20, BranchKind::Other, true, 0, 0x22);
    let s = u.stats();
    assert_eq!(s.branches, 1);
    assert_eq!(s.other.branches, 1);
    let j = serde_json::to_string(&s).unwrap();
    assert!(j.contains("\"return\""));
}
