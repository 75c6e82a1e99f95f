//! Arm's telemetry Top-Down from the simulated counters of AArch64 code on
//! the Neoverse machines: the vendor tree the `perf stat` import builds
//! (`bottlenose_metrics::neoverse`), from the model's slot accounting.
use bottlenose_analysis::{analyze_block, find_node, BlockReport, StaticOptions, TopDownNode};
use bottlenose_decode::Isa;

fn analyze(machine: &str, src: &str) -> BlockReport {
    let code = &bottlenose_inputs::assemble_for(Isa::Aarch64, src, "t.s", bottlenose_inputs::AsmSyntax::Att).expect("assemble")[0];
    let insts = bottlenose_decode::decode_block_for(Isa::Aarch64, &code.bytes, code.address).expect("decode");
    let m = bottlenose_machine::Machine::resolve(machine).expect("machine");
    analyze_block(&m, "t", &insts, &StaticOptions { sensitivity: false, ..StaticOptions::default() }).expect("analysis")
}

fn node<'a>(nodes: &'a [TopDownNode], name: &str) -> &'a TopDownNode {
    find_node(nodes, name).unwrap_or_else(|| panic!("{name} not in the tree"))
}

const FMUL_CHAIN: &str = ".L1:\n fmul d0, d0, d1\n subs x2, x2, #1\n b.ne .L1\n";

/// One FMUL per iteration at its SWOG latency of 3 cycles on V2: a core-bound backend stall.
#[test]
fn an_fmul_chain_is_backend_core_bound_in_arms_tree() {
    let r = analyze("neoverse-v2", FMUL_CHAIN);
    let v = r.accounting.vendor_topdown.as_ref().expect("neoverse-v2 has Arm's tree");
    assert_eq!(v.table, "neoverse-v2");
    let cycles = v.events["CPU_CYCLES"];
    let iterations = v.events["INST_RETIRED"] / 3.0;
    assert!((cycles / iterations - 3.0).abs() < 0.01, "{} cycles per iteration", cycles / iterations);
    // 8 slots x 3 cycles per iteration hold 3 instructions (2 ops when subs + b.ne fuse)
    let retiring = node(&v.topdown, "Retiring").value.unwrap();
    assert!([2.0 / 24.0, 3.0 / 24.0].iter().any(|x| (retiring - x).abs() < 1e-3), "Retiring {retiring}");
    // no mispredicts: Arm's formulas give back the slots the model classified directly
    let s = r.accounting.slot_accounting.unwrap();
    for (name, direct) in [("Retiring", s.retiring), ("Frontend_Bound", s.frontend_bound), ("Backend_Bound", s.backend_bound), ("Bad_Speculation", s.bad_speculation)] {
        let arm = node(&v.topdown, name).value.unwrap();
        assert!((arm - direct).abs() < 1e-9, "{name}: Arm {arm} vs slots {direct}");
    }
    let be = node(&v.topdown, "Backend_Bound");
    assert!(be.flagged && be.value.unwrap() > 0.8, "{be:?}");
    assert!(node(&v.topdown, "Backend_Core_Bound").flagged);
    assert!(!node(&v.topdown, "Backend_Mem_Bound").flagged);
}

#[test]
fn neoverse_n1_gets_arms_cycle_accounting_and_x86_machines_none() {
    let r = analyze("neoverse-n1", FMUL_CHAIN);
    let v = r.accounting.vendor_topdown.as_ref().expect("neoverse-n1 has Arm's tree");
    let be = node(&v.topdown, "Backend_Stalled_Cycles");
    assert_eq!(be.value, Some(v.events["STALL_BACKEND"] / v.events["CPU_CYCLES"]));
    assert!(be.flagged);
    let code = &bottlenose_inputs::assemble("1:\n mulsd %xmm1, %xmm0\n dec %ecx\n jnz 1b\n", "t.s", bottlenose_inputs::AsmSyntax::Att).unwrap()[0];
    let insts = bottlenose_decode::decode_block(&code.bytes, code.address).unwrap();
    let zen4 = bottlenose_machine::Machine::resolve("zen4").unwrap();
    let r = analyze_block(&zen4, "t", &insts, &StaticOptions { sensitivity: false, ..StaticOptions::default() }).unwrap();
    assert!(r.accounting.vendor_topdown.is_none(), "zen4's table is a hardware table the simulated counters are not named for");
}
