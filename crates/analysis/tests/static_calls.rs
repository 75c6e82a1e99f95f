//! A static block that calls out pays for the callee's return: one fetch block for
//! the `ret`, the return bubble, and the indirect-branch bubble of an indirect call.

mod common;
use bottlenose_analysis::StaticOptions;
use common::*;

fn cpi(src: &str) -> f64 {
    let opts = StaticOptions { sensitivity: false, ..StaticOptions::default() };
    run("zen4", src, &opts).cycles_per_iteration
}

#[test]
fn calls_cost_the_return_and_its_bubbles() {
    let m = machine("zen4");
    let b = &m.params.branch;
    // zen4: one fetch block per cycle, return bubble 2, indirect bubble 2 (machines/zen4.toml)
    let block_gap = 1.0 / m.params.core.fetch_blocks_per_cycle;
    let plain = cpi("add rbp, rax\ninc rbx\ncmp rbx, 100\njne 0");
    let direct = cpi("call 0x100\nadd rbp, rax\ninc rbx\ncmp rbx, 100\njne 0");
    let indirect = cpi("call qword ptr [8*rax + 0x1000]\nadd rbp, rax\ninc rbx\ncmp rbx, 100\njne 0");
    // the loop alone: one fetch block per iteration
    assert!((plain - 1.0).abs() < 0.05, "{plain}");
    // three fetch blocks per iteration instead of one (the call ends its block, the
    // callee's `ret` is one, the return point starts another) and the return bubble;
    // an indirect call adds its own bubble
    assert!((direct - (plain + 2.0 * block_gap + b.return_bubble)).abs() < 0.3, "{direct}");
    assert!((indirect - (direct + b.indirect_bubble)).abs() < 0.3, "{indirect} vs {direct}");
}
