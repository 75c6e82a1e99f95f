//! The accounting views on static blocks: invariants of the Top-Down events,
//! the CPI and FLOPS stacks, and the 1-cycle-ALU idealization.
mod common;
use bottlenose_analysis::{analyze_block, find_node, BlockReport, StaticOptions};
use bottlenose_decode::decode_block;
use bottlenose_inputs::{assemble, AsmSyntax};
use common::machine;

const BLOCKS: &[(&str, &str)] = &[
    ("jacobi", include_str!("../../../examples/jacobi.s")),
    ("div_chain", include_str!("../../../bench/blocks/div_chain.s")),
    ("fma_throughput", include_str!("../../../bench/blocks/fma_throughput.s")),
    ("fma_chain", include_str!("../../../bench/blocks/fma_chain.s")),
    ("stream_copy", include_str!("../../../bench/blocks/stream_copy.s")),
    ("pointer_chase", include_str!("../../../bench/blocks/pointer_chase.s")),
    ("store_heavy", include_str!("../../../bench/blocks/store_heavy.s")),
    ("mixed_int", include_str!("../../../bench/blocks/mixed_int.s")),
    ("dot_1acc", include_str!("../../../bench/blocks/dot_1acc.s")),
    ("shuffle_bound", include_str!("../../../bench/blocks/shuffle_bound.s")),
];

fn analyze(machine_name: &str, name: &str, src: &str) -> BlockReport {
    let code = &assemble(src, name, AsmSyntax::Auto).expect("assemble")[0];
    let insts = decode_block(&code.bytes, code.address).expect("decode");
    let opts = StaticOptions { sensitivity: false, ..StaticOptions::default() };
    analyze_block(&machine(machine_name), name, &insts, &opts).expect("analysis")
}

fn sum(m: &std::collections::BTreeMap<String, f64>) -> f64 {
    m.values().sum()
}

fn check_invariants(r: &BlockReport) {
    let a = &r.accounting;
    let name = format!("{} on {}", r.block, r.machine);
    // level 1 sums to 1
    let l1: f64 = a.topdown.iter().map(|n| n.value.unwrap()).sum();
    assert!((l1 - 1.0).abs() < 1e-9, "{name}: level 1 sums to {l1}");
    // the tree from the simulated events equals the direct slot accounting
    let s = a.slot_accounting.unwrap();
    let v = |n: &str| find_node(&a.topdown, n).and_then(|n| n.value).unwrap();
    for (node, direct) in [
        ("Frontend_Bound", s.frontend_bound),
        ("Bad_Speculation", s.bad_speculation),
        ("Retiring", s.retiring),
        ("Backend_Bound", s.backend_bound),
    ] {
        assert!((v(node) - direct).abs() < 1e-9, "{name}: {node} {} vs direct {direct}", v(node));
    }
    // each CPI stack's attributed components account for the cycles within 2 %
    // (the remainder is reported as `unattributed`), base is the same at the three stages
    let st = a.cpi_stacks.as_ref().unwrap();
    assert_eq!(st.cycles, r.total_cycles);
    for stage in ["dispatch", "issue", "commit"] {
        let m = st.stage(stage).unwrap();
        let attributed = sum(m) - m["unattributed"];
        assert!(
            (attributed - r.total_cycles).abs() < 0.02 * r.total_cycles,
            "{name}: {stage} attributes {attributed} of {} cycles",
            r.total_cycles
        );
        assert!((sum(m) - r.total_cycles).abs() < 1e-6 * r.total_cycles, "{name}: {stage} with unattributed is the cycles");
        let m: std::collections::BTreeMap<_, _> = m.iter().filter(|(k, _)| *k != "unattributed").collect();
        assert!(m.values().all(|&&x| x > -1e-6), "{name}: {stage} has a negative component: {m:?}");
    }
    let base = st.dispatch["base"];
    assert!((st.issue["base"] - base).abs() < 1e-6 && (st.commit["base"] - base).abs() < 1e-6, "{name}: base differs: {st:?}");
    let slots = a.events["SlotsRetired"];
    assert!((base - slots / st.width).abs() < 1e-9, "{name}: base {base} vs SlotsRetired/W {}", slots / st.width);
    // the FLOPS stack sums to the peak
    if let Some(f) = &a.flops_stack {
        let peak = a.flops.as_ref().unwrap().peak_flops_per_cycle;
        assert!((sum(f) - peak).abs() < 1e-9, "{name}: {f:?}");
    }
    let c = a.cycle_accounting.as_ref().unwrap();
    assert!((c.retired + c.non_retired + c.stalls - r.total_cycles).abs() < 1e-9, "{name}: {c:?}");
}

#[test]
fn invariants_hold_on_every_block() {
    for m in ["skylake", "zen4"] {
        for (name, src) in BLOCKS {
            let r = analyze(m, name, src);
            check_invariants(&r);
            let st = r.accounting.cpi_stacks.as_ref().unwrap();
            let show = |s: &std::collections::BTreeMap<String, f64>| {
                s.iter().filter(|(_, v)| v.abs() > 1e-9).map(|(k, v)| format!("{k} {:.0}%", v * 100.0 / r.total_cycles)).collect::<Vec<_>>().join(", ")
            };
            println!("{m} {name}: cpi {:.2}\n  dispatch {}\n  issue    {}\n  commit   {}", r.cycles_per_iteration, show(&st.dispatch), show(&st.issue), show(&st.commit));
            println!("  topdown {}", r.accounting.topdown.iter().map(|n| format!("{} {:.2}", n.name, n.value.unwrap())).collect::<Vec<_>>().join(", "));
        }
    }
}

#[test]
fn divide_chain_is_core_bound_on_the_divider_and_alu_latency() {
    let r = analyze("skylake", "div_chain", include_str!("../../../bench/blocks/div_chain.s"));
    let a = &r.accounting;
    let node = |n: &str| find_node(&a.topdown, n).unwrap();
    for n in ["Backend_Bound", "Core_Bound", "Divider"] {
        assert!(node(n).flagged, "{n} not flagged: {:?}", node(n));
    }
    assert!(!node("Memory_Bound").flagged);
    let st = a.cpi_stacks.as_ref().unwrap();
    for stage in ["dispatch", "issue", "commit"] {
        assert!(st.component(stage, "alu_latency") > 0.8 * r.total_cycles, "{stage}: {:?}", st.stage(stage));
    }
    // the 1-cycle ALU removes the divide latency down to the divider's throughput
    let i = &a.idealization[0];
    assert_eq!(i.what, "alu_1cycle");
    assert!(i.cpi_reduction > 0.5 * r.total_cycles / a.cpi_stacks.as_ref().unwrap().instructions as f64, "{i:?}");
    // Levinthal: the naive divide penalties overshoot the measured stalls
    let c = a.cycle_accounting.as_ref().unwrap();
    assert!(c.unaccounted < 0.0, "{c:?}");
}

#[test]
fn fma_throughput_reaches_the_flops_peak() {
    let r = analyze("skylake", "fma_throughput", include_str!("../../../bench/blocks/fma_throughput.s"));
    let f = r.accounting.flops_stack.as_ref().unwrap();
    let info = r.accounting.flops.as_ref().unwrap();
    assert_eq!(info.peak_flops_per_cycle, 16.0, "2 FMA units x 4 doubles x 2");
    assert!(f["base"] > 0.97 * info.peak_flops_per_cycle, "{f:?}");
    // 8 single-precision lanes x 2 per FMA, two per cycle
    assert!((info.flops_per_cycle - 32.0).abs() < 0.5, "{info:?}");
    // scalar double additions use a quarter of the width and no FMA
    let r = analyze("skylake", "fp_add_chain", include_str!("../../../bench/blocks/fp_add_chain.s"));
    let f = r.accounting.flops_stack.as_ref().unwrap();
    assert!(f["narrow"] > 3.0 * f["base"] && (f["non_fma"] - f["base"]).abs() < 1e-9 && f["dependence"] > f["narrow"], "{f:?}");
    // Table III's components, its `mask` named for what it is here (unused
    // width, not AVX-512 masking) and its `frontend` split three ways
    assert!(!f.contains_key("mask") && !f.contains_key("frontend"), "{f:?}");
}

/// Integer code with one independent FP add per iteration: the FP units wait
/// for FP work the code does not have. The FLOPS stack says so (`non_fp`),
/// not "frontend", while Top-Down's Frontend_Bound is near zero.
#[test]
fn a_mostly_integer_loop_is_non_fp_not_frontend_in_the_flops_stack() {
    let src = "loop:\n  vaddsd %xmm1, %xmm1, %xmm0\n  add %r13, %r14\n  add %rax, %rbx\n  add %rcx, %rdx\n  add %rsi, %rdi\n  add %r8, %r9\n  add %r10, %r11\n  dec %r12\n  jnz loop\n";
    let r = analyze("skylake", "mostly_int", src);
    let f = r.accounting.flops_stack.as_ref().unwrap();
    let peak = r.accounting.flops.as_ref().unwrap().peak_flops_per_cycle;
    let fe = find_node(&r.accounting.topdown, "Frontend_Bound").and_then(|n| n.value).unwrap();
    assert!(fe < 0.05, "Frontend_Bound {fe}");
    // 8 fused uops (dec+jnz fuse) on a 4-wide core: 2 cycles per iteration, one
    // independent scalar add in
    // 2 cycles x 2 FP units = 4 unit-cycles: 1 used (a quarter of its width),
    // 3 idle with no FP instruction waiting: non_fp = 3/4 of the peak
    assert!((f["non_fp"] / peak - 0.75).abs() < 0.05, "{f:?}");
    assert!(f["icache"] < 1e-9 && f["bpred"] < 1e-9, "{f:?}");
}

/// Times a block as a dynamic run does: in batches of 4096 instructions, each
/// announced to the listener, which picks the step it needs. The block changes
/// phase every 20 batches: in one phase every 5th load misses to DRAM and every
/// 3rd back edge is mispredicted, in the other everything hits and predicts, so
/// that sampled windows see different things. Returns the cycles and every
/// instruction's executions (which the views take at the end).
fn batched(
    machine: &bottlenose_machine::Machine,
    src: &str,
    batches: usize,
    views: &mut bottlenose_views::AccountingViews,
) -> (f64, bottlenose_views::InstructionCost) {
    use bottlenose_decode::BranchKind;
    use bottlenose_timing::{resolve_block, Acceleration, Core, CoreConfig, Details, DynInfo, Listener};
    let code = &assemble(src, "block", AsmSyntax::Auto).expect("assemble")[0];
    let insts = decode_block(&code.bytes, code.address).expect("decode");
    let (block, _) = resolve_block(machine, &insts);
    let mut core = Core::new(CoreConfig::new(machine, &Acceleration::nominal(machine)));
    let mut cost = bottlenose_views::InstructionCost::new();
    let (mut loads, mut branches, mut i) = (0u64, 0u64, 0usize);
    for b in 0..batches {
        let detailed_from = match views.begin_batch(4096) {
            Details::None => 4096,
            Details::All => 0,
            Details::From(k) => k,
        };
        let missing = (b / 20) % 2 == 1;
        for j in 0..4096 {
            let details = j >= detailed_from;
            let k = i % block.len();
            let it = &block[k];
            let mut dy = DynInfo { new_fetch_block: k == 0, ..Default::default() };
            if it.loads {
                loads += 1;
                if missing && loads % 5 == 0 {
                    dy.load_level = 3;
                }
            }
            if it.branch != BranchKind::None {
                branches += 1;
                dy.mispredicted = missing && branches % 3 == 0;
            }
            if details {
                let mut d = bottlenose_timing::StageDetails::default();
                let t = core.step(it, &dy, &mut d);
                cost.on_instruction(k, &t);
                views.on_detailed(k, &t, &d);
            } else {
                let t = core.step_fast(it, &dy);
                cost.on_instruction(k, &t);
                views.on_instruction(k, &t);
            }
            i += 1;
        }
    }
    (core.cycles(), cost)
}

/// Sampled views (a dynamic run's default after its first 1 Mi instructions)
/// estimate what exact views count: on a run with two alternating phases, every
/// Top-Down level-1 fraction and every CPI-stack component lands within one
/// percentage point, the invariants hold exactly, and the counts that follow
/// from executions are exact. A run that ends within the exact prefix is exact.
#[test]
fn sampled_views_estimate_the_exact_views() {
    use bottlenose_views::{AccountingViews, StaticFacts, ViewParams};
    use bottlenose_timing::{resolve_block, Acceleration, CoreConfig};
    let m = machine("skylake");
    let src = include_str!("../../../examples/jacobi.s");
    let code = &assemble(src, "block", AsmSyntax::Auto).expect("assemble")[0];
    let insts = decode_block(&code.bytes, code.address).expect("decode");
    let (block, _) = resolve_block(&m, &insts);
    let cfg = CoreConfig::new(&m, &Acceleration::nominal(&m));
    let new_views = || AccountingViews::new(ViewParams::new(&m, &cfg), StaticFacts::block(&m, &insts, &block));
    let (exact_batches, period, batches) = (16, 8, 400);

    let mut exact = new_views();
    let (cycles, all) = batched(&m, src, batches, &mut exact);
    let exact = exact.finish(cycles, &all, &[]);
    let mut sampled = new_views().sampled(period, exact_batches);
    let (sampled_cycles, all) = batched(&m, src, batches, &mut sampled);
    assert_eq!(sampled_cycles, cycles, "sampling the views changed the timing");
    let sampled = sampled.finish(cycles, &all, &[]);

    let s = sampled.sampling.expect("sampled views say so");
    assert_eq!(s.exact_instructions, exact_batches * 4096);
    let periods = (batches as u64 - exact_batches) as f64 / period as f64;
    // one in every period, and one after each batch at a CPI not seen before (a few)
    assert!(s.windows as f64 >= periods - 1.0 && s.windows as f64 <= periods + 4.0, "{} windows in {periods} periods", s.windows);
    assert!(exact.sampling.is_none());
    // what follows from executions is exact
    assert_eq!(sampled.cpi_stacks.instructions, exact.cpi_stacks.instructions);
    assert_eq!(sampled.topdown.slots_retired, exact.topdown.slots_retired);
    assert_eq!(sampled.topdown.mispredicts, exact.topdown.mispredicts);
    assert!(exact.topdown.mispredicts > 1000, "the run has mispredictions: {}", exact.topdown.mispredicts);
    // the rest is estimated, within a point
    let (a, b) = (exact.topdown.slots(), sampled.topdown.slots());
    for (name, x, y) in [
        ("frontend", a.frontend_bound, b.frontend_bound),
        ("bad speculation", a.bad_speculation, b.bad_speculation),
        ("retiring", a.retiring, b.retiring),
        ("backend", a.backend_bound, b.backend_bound),
    ] {
        println!("{name:>16}: exact {x:.4} sampled {y:.4}");
        assert!((x - y).abs() < 0.01, "{name}: exact {x:.4} vs sampled {y:.4}");
    }
    assert!((b.frontend_bound + b.bad_speculation + b.retiring + b.backend_bound - 1.0).abs() < 1e-9);
    for stage in ["dispatch", "issue", "commit"] {
        let (x, y) = (exact.cpi_stacks.stage(stage).unwrap(), sampled.cpi_stacks.stage(stage).unwrap());
        let attributed = y.values().sum::<f64>() - y["unattributed"];
        assert!((attributed - cycles).abs() < 0.02 * cycles, "sampled {stage} stack attributes {attributed} of {cycles} cycles");
        for (k, v) in x {
            println!("{stage:>9} {k:>14}: exact {:.4} sampled {:.4}", v / cycles, y[k] / cycles);
            assert!((v - y[k]).abs() < 0.01 * cycles, "{stage} {k}: exact {v} vs sampled {}", y[k]);
        }
    }
    assert!(exact.cpi_stacks.dispatch["dcache_dram"] > 0.05 * cycles, "the DRAM phase shows: {:?}", exact.cpi_stacks.dispatch);

    // within the exact prefix nothing is sampled: the same counts as exact views
    let mut short_exact = new_views();
    let (short_cycles, all) = batched(&m, src, exact_batches as usize, &mut short_exact);
    let mut short_sampled = new_views().sampled(period, exact_batches);
    batched(&m, src, exact_batches as usize, &mut short_sampled);
    let (x, y) = (short_exact.finish(short_cycles, &all, &[]), short_sampled.finish(short_cycles, &all, &[]));
    assert!(y.sampling.is_none());
    assert_eq!(format!("{:?}", x.topdown), format!("{:?}", y.topdown));
    assert_eq!(format!("{:?}", x.cpi_stacks), format!("{:?}", y.cpi_stacks));
}
