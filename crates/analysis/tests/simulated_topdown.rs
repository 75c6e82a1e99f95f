//! The simulated Top-Down tree: units and normalized shares on the model's
//! counters, and load stalls that are stalls *on* loads. A chain of dependent
//! FP adds whose other operand comes from memory waits on the previous add,
//! not on its load: the loads run ahead, so they are in flight during the
//! chain's stall cycles without causing them. Intel's STALLS_MEM_ANY would
//! count those cycles; the model knows what the oldest instruction waits for.
mod common;
use bottlenose_analysis::{find_node, BlockReport, StaticOptions, TopDownNode};
use bottlenose_metrics::Unit;

fn analyze(machine: &str, src: &str) -> BlockReport {
    let code = &bottlenose_inputs::assemble(src, "t.s", bottlenose_inputs::AsmSyntax::Att).expect("assemble")[0];
    let insts = bottlenose_decode::decode_block(&code.bytes, code.address).expect("decode");
    bottlenose_analysis::analyze_block(&common::machine(machine), "t", &insts, &StaticOptions { sensitivity: false, ..StaticOptions::default() }).expect("analysis")
}

fn node<'a>(r: &'a BlockReport, name: &str) -> &'a TopDownNode {
    find_node(&r.accounting.topdown, name).unwrap_or_else(|| panic!("{name} not in the tree"))
}

/// `s += a[i]` as a compiler writes it, four per iteration: one dependent chain of FP adds.
const FP_ADD_FROM_MEMORY: &str = "1:\n addsd (%rdi), %xmm0\n addsd 8(%rdi), %xmm0\n addsd 16(%rdi), %xmm0\n addsd 24(%rdi), %xmm0\n dec %ecx\n jnz 1b\n";

#[test]
fn an_fp_add_latency_chain_is_not_l1_bound() {
    for m in ["skylake", "zen4"] {
        for (what, src) in [("addsd chain", FP_ADD_FROM_MEMORY), ("fma chain", include_str!("../../../bench/blocks/dot_1acc.s"))] {
            let r = analyze(m, src);
            let mem = node(&r, "Memory_Bound");
            let l1 = node(&r, "L1_Bound");
            assert!(!l1.flagged && !mem.flagged, "{what} on {m}: Memory_Bound {:?}, L1_Bound {:?}", mem.value, l1.value);
            assert!(l1.value.unwrap() < 0.01, "{what} on {m}: L1_Bound {:?}", l1.value);
            // its stalls are the chain's: Core_Bound
            assert!(node(&r, "Core_Bound").flagged, "{what} on {m}: {:?}", node(&r, "Core_Bound"));
        }
    }
}

#[test]
fn a_pointer_chase_still_is_l1_bound() {
    // each load waits for the previous one's data: the stalls are on loads
    let r = analyze("skylake", include_str!("../../../bench/blocks/pointer_chase.s"));
    let l1 = node(&r, "L1_Bound");
    assert!(l1.flagged && l1.value.unwrap() > 0.5, "{l1:?}");
}

#[test]
fn simulated_nodes_carry_units_and_normalized_shares() {
    let r = analyze("skylake", include_str!("../../../bench/blocks/pointer_chase.s"));
    assert_eq!(node(&r, "Backend_Bound").unit, Some(Unit::Slots));
    assert_eq!(node(&r, "Memory_Bound").unit, Some(Unit::Stalls));
    assert_eq!(node(&r, "Ports_Utilized_0").unit, Some(Unit::Clocks));
    fn check(nodes: &[TopDownNode], frame: f64) {
        let sum: f64 = nodes.iter().filter_map(|n| n.normalized).sum();
        assert!(sum <= frame + 1e-9, "{sum} > {frame}: {nodes:?}");
        for n in nodes {
            assert_eq!(n.normalized.is_some(), n.value.is_some(), "{n:?}");
            check(&n.children, n.normalized.unwrap_or(0.0));
        }
    }
    check(&r.accounting.topdown, 1.0);
    // no mispredicts and no machine clears: Branch_Mispredicts divides 0 by 0, and says so
    let bm = node(&r, "Branch_Mispredicts");
    assert_eq!(bm.value, None);
    assert_eq!(bm.reason.as_deref(), Some("division by zero in BrMispredFraction: (BrMispredRetired + MachineClears) is 0"));
    // Memory_Bound + Core_Bound are cycles; their raw sum exceeds Backend_Bound's slots, not their normalized one
    let be = node(&r, "Backend_Bound");
    let raw: f64 = be.children.iter().map(|c| c.value.unwrap()).sum();
    assert!(raw > be.value.unwrap(), "raw children {raw} vs Backend_Bound {:?}", be.value);
    let norm: f64 = be.children.iter().map(|c| c.normalized.unwrap()).sum();
    assert!((norm - be.normalized.unwrap()).abs() < 1e-9, "fitted: {norm} vs {:?}", be.normalized);
}
