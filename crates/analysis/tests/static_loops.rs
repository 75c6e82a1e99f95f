//! Loops of static code: found by back edges (dominance, as for dynamic runs),
//! each timed on its own instructions, the hottest by static estimate.

use bottlenose_analysis::{analyze_loops, find_static_loops, StaticOptions, ASSUMED_ITERATIONS_PER_ENTRY};
use bottlenose_decode::{decode_block, DecodedInst};
use bottlenose_machine::Machine;
use bottlenose_inputs::{assemble, AsmSyntax};

fn insts(src: &str) -> Vec<DecodedInst> {
    let b = &assemble(src, "t.s", AsmSyntax::Att).unwrap()[0];
    decode_block(&b.bytes, b.address).unwrap()
}

fn at(insts: &[DecodedInst], mnemonic_asm: &str) -> u64 {
    insts.iter().find(|i| i.asm == mnemonic_asm).unwrap_or_else(|| panic!("no {mnemonic_asm}: {:?}", insts.iter().map(|i| &i.asm).collect::<Vec<_>>())).address
}

fn opts() -> StaticOptions {
    StaticOptions { sensitivity: false, ..StaticOptions::default() }
}

const NONE: &dyn Fn(u64) -> (Option<String>, Option<String>) = &|_| (None, None);

/// A function: prologue, one loop, epilogue and `ret`. The loop is the three
/// instructions between the label and the back edge, nothing else.
#[test]
fn the_loop_of_a_function_without_its_prologue_and_return() {
    let code = insts("push %rbx\nxor %eax, %eax\nmov $100, %ecx\ntop:\nimul %rax, %rax\ndec %rcx\njnz top\npop %rbx\nret\n");
    let loops = find_static_loops(&code);
    assert_eq!(loops.len(), 1);
    let l = &loops[0];
    assert_eq!(l.head, at(&code, "imul rax, rax"));
    assert_eq!(l.back_edge, code[5].address);
    assert_eq!((l.depth, l.instructions), (0, 3));
    assert_eq!(l.own, vec![3, 4, 5]);
    assert_eq!((l.start, l.end), (code[3].address, code[6].address));
    // timed alone: the imul chain, 3 cycles per iteration on Skylake (Agner Fog's
    // tables: imul r64,r64 latency 3); the whole function read as one loop body
    // would have pushed and popped rbx and returned every "iteration"
    let skl = Machine::resolve("skylake").unwrap();
    let a = analyze_loops(&skl, "f", &code, &opts(), NONE).unwrap().expect("loops");
    assert!((a[0].cycles_per_iteration - 3.0).abs() < 0.02, "{}", a[0].cycles_per_iteration);
    assert!(a[0].hottest);
    assert_eq!(a[0].estimated_share, 1.0);
}

/// gcc's rotated loop: a jump to the condition at the bottom, the body
/// entered from it. The header is the condition (it dominates the body); the
/// back edge is the body falling through into it.
#[test]
fn a_rotated_loop_has_its_condition_as_header() {
    let code = insts("xor %eax, %eax\njmp cond\nbody:\nadd (%rdi), %rax\nadd $8, %rdi\ncond:\ncmp %rsi, %rdi\njb body\nret\n");
    let loops = find_static_loops(&code);
    assert_eq!(loops.len(), 1);
    assert_eq!(loops[0].head, at(&code, "cmp rdi, rsi"));
    assert_eq!(loops[0].back_edge, at(&code, "add rdi, 8"));
    assert_eq!(loops[0].own, vec![2, 3, 4, 5]);
}

/// A triple loop nest (matrix multiply's shape): depths 0, 1, 2; each loop's
/// own instructions exclude its inner loops; the innermost is the hottest.
#[test]
fn nested_loops_have_depths_and_own_instructions() {
    let code = insts(
        "mov $8, %r8\n\
         outer: mov $8, %r9\n\
         middle: mov $8, %r10\n\
         inner: vaddsd %xmm1, %xmm0, %xmm0\n\
         dec %r10\n\
         jnz inner\n\
         dec %r9\n\
         jnz middle\n\
         dec %r8\n\
         jnz outer\n\
         ret\n",
    );
    let loops = find_static_loops(&code);
    assert_eq!(loops.iter().map(|l| l.depth).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(loops.iter().map(|l| l.instructions).collect::<Vec<_>>(), [9, 6, 3]);
    assert_eq!(loops[0].own, vec![1, 8, 9]);
    assert_eq!(loops[1].own, vec![2, 6, 7]);
    assert_eq!(loops[2].own, vec![3, 4, 5]);
    let skl = Machine::resolve("skylake").unwrap();
    let a = analyze_loops(&skl, "nest", &code, &opts(), NONE).unwrap().expect("loops");
    // inner: the vaddsd chain, 4 cycles on Skylake (Agner Fog: addsd latency 4)
    assert!((a[2].cycles_per_iteration - 4.0).abs() < 0.02, "{}", a[2].cycles_per_iteration);
    assert!(a[2].hottest && !a[0].hottest && !a[1].hottest);
    // the estimate: cycles x 32^(depth+1), normalized
    let w: Vec<f64> = a.iter().map(|l| l.cycles_per_iteration * ASSUMED_ITERATIONS_PER_ENTRY.powi(l.depth as i32 + 1)).collect();
    let total: f64 = w.iter().sum();
    for (l, w) in a.iter().zip(&w) {
        assert!((l.estimated_share - w / total).abs() < 1e-12);
    }
    assert!(a[2].estimated_share > 0.9, "{}", a[2].estimated_share);
}

/// Two loops one after the other at the same depth: the slower one per
/// iteration is the hotter. imul chain (3 cycles) against an add chain (1):
/// shares 3/4 and 1/4.
#[test]
fn sequential_loops_ranked_by_their_cycles() {
    let code = insts("a: add %rbx, %rdx\ndec %rcx\njnz a\nmov $50, %ecx\nb: imul %rax, %rax\ndec %rcx\njnz b\nret\n");
    let skl = Machine::resolve("skylake").unwrap();
    let a = analyze_loops(&skl, "two", &code, &opts(), NONE).unwrap().expect("loops");
    assert_eq!(a.len(), 2);
    assert!((a[0].cycles_per_iteration - 1.0).abs() < 0.02, "{}", a[0].cycles_per_iteration);
    assert!((a[1].cycles_per_iteration - 3.0).abs() < 0.02, "{}", a[1].cycles_per_iteration);
    assert!(a[1].hottest);
    assert!((a[1].estimated_share - 0.75).abs() < 0.01, "{}", a[1].estimated_share);
    assert_eq!(a[1].number, 2);
}

/// An `if` inside the loop: one loop, both arms in its body.
#[test]
fn both_arms_of_a_branch_belong_to_the_loop() {
    let code = insts("top:\ntest $1, %al\njz even\nadd %rbx, %rdx\njmp next\neven:\nsub %rbx, %rdx\nnext:\ndec %rcx\njnz top\nret\n");
    let loops = find_static_loops(&code);
    assert_eq!(loops.len(), 1);
    assert_eq!(loops[0].own, (0..7).collect::<Vec<_>>());
}

/// A snippet that is one loop body, and straight-line code: analyzed whole,
/// as before.
#[test]
fn a_loop_body_or_code_without_loops_is_analyzed_whole() {
    let skl = Machine::resolve("skylake").unwrap();
    let body = insts("top:\nadd %rbx, %rax\ndec %rcx\njnz top\n");
    assert_eq!(find_static_loops(&body).len(), 1);
    assert!(analyze_loops(&skl, "body", &body, &opts(), NONE).unwrap().is_none());
    let straight = insts("add %rbx, %rax\nimul %rcx, %rdx\nret\n");
    assert!(find_static_loops(&straight).is_empty());
    assert!(analyze_loops(&skl, "straight", &straight, &opts(), NONE).unwrap().is_none());
}

/// Code after a `ret` (another function, alignment padding) is entered from
/// nowhere seen: its loops are still found.
#[test]
fn a_loop_after_a_return_is_found() {
    let code = insts("ret\nsecond:\nnop\nagain:\nadd %rbx, %rax\njnz again\nret\n");
    let loops = find_static_loops(&code);
    assert_eq!(loops.len(), 1);
    assert_eq!(loops[0].head, at(&code, "add rax, rbx"));
}
