//! `attribute()` on hand-made instruction statistics with a known CFG.

use bottlenose_attribution::{attribute, basic_blocks, normalize, InsnStat, UNKNOWN};

fn insn(vaddr: u64, len: u8, executions: u64, cycles: f64) -> InsnStat {
    InsnStat {
        vaddr,
        len,
        executions,
        cycles,
        ..Default::default()
    }
}

fn branch(vaddr: u64, len: u8, executions: u64, cycles: f64, targets: &[u64]) -> InsnStat {
    InsnStat {
        is_branch: true,
        taken_targets: targets.to_vec(),
        ..insn(vaddr, len, executions, cycles)
    }
}

/// Textbook nesting: both loops test at the bottom and jump back up.
///
/// ```text
/// 0x1000 mov; mov                    (1×)
/// 0x1007 xor; mov                    outer head (10×)
/// 0x100d add; cmp; jne 0x100d        inner loop (100×, 90 taken)
/// 0x1016 inc; cmp; jl 0x1007         outer latch (10×, 9 taken)
/// 0x101e ret → 0x2005
/// 0x2000 call 0x1000; 0x2005 mov     the caller
/// ```
fn nested() -> Vec<InsnStat> {
    let mut jne = branch(0x1014, 2, 100, 100.0, &[0x100d]);
    jne.counters = [0.0, 1.0, 0.0, 0.0];
    vec![
        // Listed out of order, and the inner head split in two entries
        // (as when a driver reports the same address twice).
        branch(0x2000, 5, 1, 2.0, &[0x1000]),
        insn(0x2005, 3, 1, 1.0),
        insn(0x1000, 4, 1, 1.0),
        insn(0x1004, 3, 1, 1.0),
        insn(0x1007, 3, 10, 10.0),
        insn(0x100a, 3, 10, 10.0),
        insn(0x100d, 4, 60, 200.0),
        insn(0x1011, 3, 100, 100.0),
        jne,
        insn(0x100d, 4, 40, 100.0),
        insn(0x1016, 3, 10, 20.0),
        insn(0x1019, 3, 10, 10.0),
        branch(0x101c, 2, 10, 10.0, &[0x1007]),
        branch(0x101e, 1, 1, 5.0, &[0x2005]),
    ]
}

#[test]
fn blocks_are_split_at_targets_and_after_branches() {
    let insns = normalize(&nested());
    assert_eq!(insns.len(), 13);
    assert_eq!(
        (insns[4].vaddr, insns[4].executions, insns[4].cycles),
        (0x100d, 100, 300.0)
    );
    let blocks: Vec<(u64, u64, u64, f64)> = basic_blocks(&insns)
        .iter()
        .map(|b| (b.start, b.end, b.executions, b.cycles))
        .collect();
    assert_eq!(
        blocks,
        vec![
            (0x1000, 0x1007, 1, 2.0),
            (0x1007, 0x100d, 10, 20.0),
            (0x100d, 0x1016, 100, 500.0),
            (0x1016, 0x101e, 10, 40.0),
            (0x101e, 0x101f, 1, 5.0),
            (0x2000, 0x2005, 1, 2.0),
            (0x2005, 0x2008, 1, 1.0),
        ]
    );
}

#[test]
fn nested_loops_blocks_functions_and_shares() {
    let a = attribute(&nested(), None);
    assert_eq!(a.total_cycles, 570.0);

    // Blocks, hottest first; ties by address.
    let blocks: Vec<(u64, f64)> = a.blocks.iter().map(|b| (b.start, b.cycles)).collect();
    assert_eq!(
        blocks,
        vec![
            (0x100d, 500.0),
            (0x1016, 40.0),
            (0x1007, 20.0),
            (0x101e, 5.0),
            (0x1000, 2.0),
            (0x2000, 2.0),
            (0x2005, 1.0)
        ]
    );
    assert_eq!(
        a.blocks.iter().map(|b| b.cycles).sum::<f64>(),
        a.total_cycles
    );
    assert_eq!(a.blocks[0].counters, [0.0, 1.0, 0.0, 0.0]);

    // Two loops; the call back to 0x1000 is not one.
    assert_eq!(a.loops.len(), 2, "{:#?}", a.loops);
    let outer = &a.loops[0];
    assert_eq!(
        (outer.head, outer.tail, outer.body),
        (0x1007, 0x101c, (0x1007, 0x101e))
    );
    assert_eq!((outer.depth, outer.iterations, outer.cycles), (0, 9, 560.0));
    assert_eq!(outer.share, 560.0 / 570.0);
    assert_eq!(
        outer.instructions,
        vec![0x1007, 0x100a, 0x100d, 0x1011, 0x1014, 0x1016, 0x1019, 0x101c]
    );
    assert_eq!(outer.function, None);
    let inner = &a.loops[1];
    assert_eq!(
        (inner.head, inner.tail, inner.body),
        (0x100d, 0x1014, (0x100d, 0x1016))
    );
    assert_eq!(
        (inner.depth, inner.iterations, inner.cycles),
        (1, 90, 500.0)
    );
    assert_eq!(inner.instructions, vec![0x100d, 0x1011, 0x1014]);
    assert_eq!(inner.counters, [0.0, 1.0, 0.0, 0.0]);

    // Without a program everything is one unknown function, no lines.
    assert_eq!(a.functions.len(), 1);
    let f = &a.functions[0];
    assert_eq!(
        (f.function.as_str(), f.cycles, f.share, f.instructions),
        (UNKNOWN, 570.0, 1.0, 355)
    );
    assert_eq!((f.file.clone(), f.line), (None, None));
    assert_eq!(a.lines.len(), 1);
    assert_eq!((a.lines[0].cycles, a.lines[0].line), (570.0, None));

    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["loops"][0]["head"], 0x1007);
    assert_eq!(json["functions"][0]["function"], "[unknown]");
}

/// The layout `gcc -O1` gives
/// `for (i = 0; i < n; i++) for (j = 0; j < i; j++) s += i ^ j;`
/// (loops rotated: the outer header is entered sideways at 0x401157, and the
/// exit `je` jumps *back* to the shared return block at 0x401136), run with
/// n = 4.
fn rotated(n: u64) -> Vec<InsnStat> {
    let inner = n * (n - 1) / 2;
    vec![
        insn(0x401126, 6, 1, 1.0),
        insn(0x40112c, 5, 1, 1.0),
        insn(0x401131, 3, 1, 1.0),
        branch(0x401134, 2, 1, 1.0, &[0x401157]), // jg
        insn(0x401136, 3, 1, 1.0),
        branch(0x401139, 1, 1, 1.0, &[0x401200]), // ret to the caller
        insn(0x40113a, 5, n - 1, 1.0),
        insn(0x40113f, 3, inner, 2.0),
        insn(0x401142, 3, inner, 2.0),
        insn(0x401145, 3, inner, 2.0),
        insn(0x401148, 3, inner, 2.0),
        insn(0x40114b, 4, inner, 2.0),
        insn(0x40114f, 3, inner, 2.0),
        branch(0x401152, 2, inner, 2.0, &[0x40113f]), // jne
        insn(0x401154, 3, n - 1, 1.0),
        insn(0x401157, 4, n, 1.0),
        insn(0x40115b, 3, n, 1.0),
        branch(0x40115e, 2, n, 1.0, &[0x401136]), // je: the loop exit
        insn(0x401160, 3, n - 1, 1.0),
        branch(0x401163, 2, n - 1, 1.0, &[0x40113a]), // jg
    ]
}

#[test]
fn rotated_loops_from_gcc() {
    let a = attribute(&rotated(4), None);
    assert_eq!(a.total_cycles, 27.0);
    assert_eq!(a.loops.len(), 2, "{:#?}", a.loops);
    let outer = &a.loops[0];
    assert_eq!(
        (outer.head, outer.tail, outer.body),
        (0x401157, 0x401154, (0x40113a, 0x401165))
    );
    assert_eq!((outer.depth, outer.iterations), (0, 3));
    assert_eq!(outer.instructions.len(), 14);
    assert!(!outer.instructions.contains(&0x401136));
    assert_eq!(outer.cycles, 21.0);
    let inner = &a.loops[1];
    assert_eq!(
        (inner.head, inner.tail, inner.body),
        (0x40113f, 0x401152, (0x40113f, 0x401154))
    );
    assert_eq!((inner.depth, inner.iterations, inner.cycles), (1, 3, 14.0));
    // n = 10: 45 inner executions, 36 taken back edges; 9 outer back edges.
    let a = attribute(&rotated(10), None);
    assert_eq!((a.loops[0].iterations, a.loops[1].iterations), (9, 36));
}

#[test]
fn shares_and_ordering_with_several_functions_unknown() {
    // Straight-line code only: no loops; hotspot ordering by cycles.
    let stats = vec![insn(0x10, 4, 1, 3.0), insn(0x14, 4, 2, 1.0)];
    let a = attribute(&stats, None);
    assert!(a.loops.is_empty());
    assert_eq!(a.blocks.len(), 2, "execution counts differ: two blocks");
    assert_eq!(a.functions[0].share, 1.0);

    let empty = attribute(&[], None);
    assert_eq!(empty.total_cycles, 0.0);
    assert!(empty.functions.is_empty() && empty.blocks.is_empty() && empty.loops.is_empty());

    // Zero cycles: shares are 0, not NaN.
    let zero = attribute(&[insn(0x10, 1, 5, 0.0)], None);
    assert_eq!(zero.functions[0].share, 0.0);
}
