//! Paper case and classic bottleneck shapes on the `skylake` machine.
mod common;
use bottlenose_analysis::StaticOptions;
use common::*;

const JACOBI: &str = include_str!("../../../examples/jacobi.s");

fn att(src: &str) -> String {
    format!(".att_syntax prefix\n{src}")
}

/// Gus Fig. 1 / Fig. 11 / Table 1: the load ports are the bottleneck, the speedup
/// of accelerating them by 1-15 % is close to linear, nothing else matters.
#[test]
fn jacobi_is_bound_by_the_load_ports() {
    let r = run("skylake", &att(JACOBI), &StaticOptions::default());
    assert_eq!(r.unsupported_instructions.count, 0, "{:?}", r.unsupported_instructions.forms);
    assert_eq!(r.bottlenecks[0].resources, vec!["p23".to_string()], "{:?}", r.bottlenecks);
    // 10 loads on two ports: 5 cycles per iteration
    assert!((r.cycles_per_iteration - 5.0).abs() < 0.05, "cpi {}", r.cycles_per_iteration);
    for pct in 1..=15 {
        let w = 1.0 + pct as f64 / 100.0;
        let s = speedup(&r, "p23", w);
        assert!((s - (w - 1.0)).abs() <= 0.02, "p23 at {w}: speedup {s}");
    }
    for p in r.sensitivity.iter().filter(|p| p.resources != ["p23"] && p.weight <= 1.15 + 1e-9) {
        assert!(p.speedup.abs() < 0.005, "{:?} at {} gives {}", p.resources, p.weight, p.speedup);
    }
}

#[test]
fn dependent_fp_adds_are_latency_bound() {
    let r = run(
        "skylake",
        &att("1:\n addsd %xmm1, %xmm0\n addsd %xmm2, %xmm0\n addsd %xmm3, %xmm0\n addsd %xmm4, %xmm0\n dec %ecx\n jnz 1b\n"),
        &StaticOptions::default(),
    );
    // four dependent 4-cycle adds per iteration
    assert!((r.cycles_per_iteration - 16.0).abs() < 0.1, "cpi {}", r.cycles_per_iteration);
    assert_eq!(r.bottlenecks[0].resources, vec!["latency".to_string()], "{:?}", r.bottlenecks);
    assert!(speedup(&r, "latency", 1.15) > 0.12);
    assert!(r.stall_causes.issue.get("register").copied().unwrap_or(0) > r.stall_causes.issue.values().sum::<u64>() / 2);
}

#[test]
fn independent_shuffles_are_port_bound() {
    // vpshufb runs on port 5 only: three per iteration need three cycles
    let r = run(
        "skylake",
        &att("1:\n vpshufb %ymm1, %ymm2, %ymm3\n vpshufb %ymm1, %ymm4, %ymm5\n vpshufb %ymm1, %ymm6, %ymm7\n add $1, %rax\n add $1, %rbx\n dec %ecx\n jnz 1b\n"),
        &StaticOptions::default(),
    );
    assert!((r.cycles_per_iteration - 3.0).abs() < 0.05, "cpi {}", r.cycles_per_iteration);
    let top = &r.bottlenecks[0].resources;
    assert_eq!(top, &vec!["p5".to_string()], "{:?}", r.bottlenecks);
    assert!(speedup(&r, "latency", 1.15).abs() < 0.005);
}

#[test]
fn divider_loop_is_divider_bound() {
    let r = run(
        "skylake",
        &att("1:\n vdivsd %xmm1, %xmm2, %xmm3\n vdivsd %xmm1, %xmm4, %xmm5\n dec %ecx\n jnz 1b\n"),
        &StaticOptions::default(),
    );
    let top = &r.bottlenecks[0].resources[0];
    assert!(top.contains("div"), "top bottleneck {top}, all {:?}", r.bottlenecks);
    assert!(speedup(&r, "latency", 1.15).abs() < 0.01);
}

#[test]
fn frontend_bound_block_of_cheap_independent_ops() {
    // independent single-uop ops: dec+jnz macro-fuse, so 7 fused uops per
    // iteration at 4 per cycle (1.75), while the ALU ports need 1.5 and the loads 1
    let r = run(
        "skylake",
        &att("1:\n add $1, %rax\n add $1, %rbx\n add $1, %rdx\n mov (%rsi), %r8\n mov 8(%rsi), %r9\n add $1, %r10\n dec %ecx\n jnz 1b\n"),
        &StaticOptions::default(),
    );
    assert!((r.cycles_per_iteration - 1.75).abs() < 0.05, "cpi {}", r.cycles_per_iteration);
    // allocation and retirement are both 4 wide: neither alone helps, together they do
    assert!(speedup(&r, "frontend", 1.15).abs() < 0.005);
    assert_eq!(r.bottlenecks[0].resources, ["frontend", "commit"], "{:?}", r.bottlenecks);
    assert!(r.bottlenecks[0].speedup > 0.10, "{:?}", r.bottlenecks);
}

/// Skylake with port 7's restriction (Intel optimization manual, Haswell/Skylake:
/// its store-address unit only takes base + displacement, so an indexed store
/// computes its address on port 2 or 3). The built-in `skylake` leaves it off,
/// as Gus's Table 1 does (the Jacobi block's indexed stores use p237 there).
fn skylake_p7_simple_only() -> bottlenose_machine::Machine {
    let toml = include_str!("../../../machines/skylake.toml")
        .replace("store_address_groups = [\"p237\"]", "store_address_groups = [\"p237\"]\nindexed_store_address_groups = [\"p23\"]");
    assert!(toml.contains("indexed_store_address_groups"));
    bottlenose_machine::Machine::from_strs("skylake-p7.toml", &toml, include_str!("../../../machines/skylake.forms.toml")).expect("machine")
}

#[test]
fn indexed_store_address_avoids_port_7() {
    let m = skylake_p7_simple_only();
    let sta = |m: &bottlenose_machine::Machine, src: &str| -> Vec<String> {
        let insts = asm(&att(src));
        let t = bottlenose_timing::resolve(m, &insts[0], None);
        t.store_address_uses.iter().map(|u| m.groups[u.group as usize].name.clone()).collect()
    };
    assert_eq!(sta(&m, "mov %rax, (%rdi,%rsi,8)\n"), ["p23"]);
    assert_eq!(sta(&m, "vmovsd %xmm0, 8(%rdx,%rax,1)\n"), ["p23"]);
    assert_eq!(sta(&m, "mov %rax, 8(%rdi)\n"), ["p237"]);
    assert_eq!(sta(&m, "add %rax, 8(%rdi)\n"), ["p237"]);
    assert_eq!(sta(&m, "add %rax, 8(%rdi,%rsi,1)\n"), ["p23"]);
    // without the field (the built-in skylake), every store address stays on p237
    assert_eq!(sta(&machine("skylake"), "mov %rax, (%rdi,%rsi,8)\n"), ["p237"]);
}

#[test]
fn two_loads_and_an_indexed_store_are_bound_by_the_load_ports() {
    let m = skylake_p7_simple_only();
    let go = |src: &str| bottlenose_analysis::analyze_block(&m, "test", &asm(&att(src)), &StaticOptions::default()).expect("analysis");
    // 2 loads + 1 store address on p23 = 3 uops on two ports: 1.5 cycles per iteration
    let indexed = go("1:\n mov (%rdi), %rax\n mov 8(%rdi), %rbx\n mov %rcx, (%rdi,%rsi,8)\n dec %ecx\n jnz 1b\n");
    assert!((indexed.cycles_per_iteration - 1.5).abs() < 0.05, "cpi {}", indexed.cycles_per_iteration);
    assert_eq!(indexed.bottlenecks[0].resources, vec!["p23".to_string()], "{:?}", indexed.bottlenecks);
    // the base + displacement store's address goes to port 7: one iteration per cycle
    let simple = go("1:\n mov (%rdi), %rax\n mov 8(%rdi), %rbx\n mov %rcx, 16(%rdi)\n dec %ecx\n jnz 1b\n");
    assert!(simple.cycles_per_iteration < 1.1, "cpi {}", simple.cycles_per_iteration);
}
