//! Intel-syntax GNU assembler text for every [`Bench`]: one function
//! `void f(u64 iterations, u8 *l1, u8 *p1, u8 *p2)` (System V) that runs `iterations`
//! times a loop body, with the callee-saved registers saved and restored.
//!
//! Register conventions inside the loop: `r15` counts iterations, `rsi` is the L1 buffer
//! (`l1`: 1.0 doubles in its first 4 KiB, scratch for stores above), `p1`/`p2` are the
//! bench's data (chase start nodes, stream buffer, branch pattern).

use crate::bench::*;
use crate::forms::{self, Features};

/// The function text. `Err` for a form that cannot be generated (the reason).
pub fn function(bench: &Bench, feat: &Features) -> Result<String, String> {
    let mut init = String::new();
    let mut body = String::new();
    let mut inner_loop = String::new();
    let mut epilogue = String::new();
    match bench {
        Bench::Chain { op } => {
            init += "mov rax, 1\nmov rbx, 1\n";
            let ins = match op {
                ChainOp::Add => "add rax, rbx",
                ChainOp::Imul => "imul rax, rbx",
            };
            for _ in 0..CHAIN_BODY {
                body += ins;
                body += "\n";
            }
        }
        Bench::Chase { load, .. } => {
            // p1 holds the current node: each run continues where the last one stopped, so
            // repeated runs do not revisit (and cache) the same nodes
            init += "mov rax, QWORD PTR [rdx]\n";
            epilogue += "mov QWORD PTR [rdx], rax\n";
            for _ in 0..CHASE_BODY {
                body += match load {
                    ChaseLoad::Int => "mov rax, QWORD PTR [rax]\n",
                    ChaseLoad::Vector => "movq xmm0, QWORD PTR [rax]\nmovq rax, xmm0\n",
                };
            }
        }
        Bench::MovqRoundTrip => {
            init += "mov rax, 1\n";
            for _ in 0..CHAIN_BODY / 2 {
                body += "movq xmm0, rax\nmovq rax, xmm0\n";
            }
        }
        Bench::Stream { bytes, streams, .. } => {
            let s = (*streams).clamp(1, 4) as u64;
            let part = bytes / s;
            if !part.is_multiple_of(256) || part == 0 {
                return Err(format!("stream size {bytes} is not a multiple of {}", 256 * s));
            }
            let regs = ["r8", "r9", "r10", "r11"];
            for (i, r) in regs.iter().enumerate().take(s as usize) {
                init += &format!("lea {r}, [rdx+{}]\n", part * (i as u64 + 1));
            }
            let per_stream = 256 / s;
            let (width, mov, reg) = if feat.avx { (32, "vmovdqa", "ymm") } else { (16, "movdqa", "xmm") };
            body += &format!("mov rbx, -{part}\n.Linner:\n");
            let mut k = 0;
            for c in 0..per_stream / width {
                for r in regs.iter().take(s as usize) {
                    body += &format!("{mov} {reg}{}, [{r}+rbx+{}]\n", k % 16, c * width);
                    k += 1;
                }
            }
            body += &format!("add rbx, {per_stream}\njnz .Linner\n");
        }
        Bench::Branch { .. } => {
            init += "mov r12, rdx\nxor r10d, r10d\n";
            body += &format!("mov rbx, r12\nmov r9d, {}\n.Linner:\n", BRANCH_ARRAY / 16);
            for k in 0..16 {
                body += &format!("movzx eax, BYTE PTR [rbx+{k}]\ntest eax, eax\njz 1f\ninc r10\n1:\n");
            }
            body += "add rbx, 16\ndec r9d\njnz .Linner\n";
        }
        Bench::Taken => {
            for _ in 0..TAKEN_BODY - 1 {
                body += "jmp 1f\n1:\n";
            }
        }
        Bench::Wong { kind, fillers } => {
            init += "mov rax, QWORD PTR [rdx]\nmov r12, QWORD PTR [rcx]\npush rdx\npush rcx\n";
            epilogue += "pop rcx\npop rdx\nmov QWORD PTR [rdx], rax\nmov QWORD PTR [rcx], r12\n";
            for r in ["rbx", "rbp", "r8", "r9", "r10", "r11", "r13", "r14", "rdx", "rcx"] {
                init += &format!("mov {r}, 1\n");
            }
            let pool = ["rbx", "rbp", "r8", "r9", "r10", "r11", "r13", "r14", "rdx", "rcx"];
            let filler = |k: usize| -> String {
                let r = pool[k % pool.len()];
                match kind {
                    WongKind::Rob => "nop\n".into(),
                    WongKind::RobMove => format!("mov {r}, r12\n"),
                    WongKind::Scheduler => format!("add {r}, rax\n"),
                    WongKind::LoadBuffer => format!("mov {r}, QWORD PTR [rsi+{}]\n", 64 * (k % 16)),
                    // at byte 32 of a line: the chase loads read bytes 0..8 of their lines, so
                    // no store can look like it aliases one (4 KiB aliasing holds the load
                    // back behind the store, serializing the misses)
                    WongKind::StoreBuffer => format!("mov QWORD PTR [rsi+{}], {r}\n", 4096 + 32 + 64 * (k % 8)),
                }
            };
            body += "mov rax, QWORD PTR [rax]\n";
            for k in 0..*fillers as usize {
                body += &filler(k);
            }
            body += "mov r12, QWORD PTR [r12]\n";
            for k in 0..*fillers as usize {
                body += &filler(k);
            }
        }
        Bench::Dispatch { mix } => {
            for r in ["rax", "rbx", "rcx", "rdx", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14"] {
                init += &format!("mov {r}, 1\n");
            }
            init += "pxor xmm15, xmm15\n";
            let gprs = ["rax", "rbx", "rcx", "rdx", "rbp", "r8", "r9", "r10", "r11", "r12"];
            let (mut a, mut v, mut l) = (0usize, 0usize, 0usize);
            let pattern: &[char] = match mix {
                Mix::Alu => &['a'],
                Mix::AluVec => &['a', 'a', 'v'],
                Mix::AluVecLoad => &['a', 'v', 'a', 'v', 'a', 'l'],
                Mix::Nop => &['n'],
            };
            for i in 0..DISPATCH_BODY as usize {
                body += &match pattern[i % pattern.len()] {
                    'a' => {
                        a += 1;
                        format!("add {}, r13\n", gprs[(a - 1) % gprs.len()])
                    }
                    'v' => {
                        v += 1;
                        format!("paddd xmm{}, xmm15\n", (v - 1) % 14)
                    }
                    'l' => {
                        l += 1;
                        format!("mov r14, QWORD PTR [rsi+{}]\n", 64 * ((l - 1) % 16))
                    }
                    _ => "nop\n".into(),
                };
            }
        }
        Bench::FormLatency { form } => {
            let f = forms::parse(form)?;
            let chain = forms::chain_of(&f)?;
            if chain == forms::Chain::LoadToUse {
                return Err("pure load: its latency is the measured load-to-use".into());
            }
            init += &forms::init_code(&[&f]);
            for k in 0..FORM_BODY as usize {
                body += &forms::latency_copy(&f, &chain, k);
                body += "\n";
            }
        }
        Bench::FormThroughput { form } => {
            let f = forms::parse(form)?;
            init += &forms::init_code(&[&f]);
            for k in 0..FORM_BODY as usize {
                body += &forms::throughput_copy(&f, k);
                body += "\n";
            }
        }
        Bench::FormPair { a, b } => {
            let fa = forms::parse(a)?;
            let fb = forms::parse(b)?;
            init += &forms::init_code(&[&fa, &fb]);
            for k in 0..FORM_BODY as usize / 2 {
                // even and odd destinations: the two forms never share a register
                body += &forms::throughput_copy(&fa, 2 * k);
                body += "\n";
                body += &forms::throughput_copy(&fb, 2 * k + 1);
                body += "\n";
            }
        }
        Bench::StoreForward { renamed } => {
            // rdi + 520 and rcx + 528 are the same quadword of the L1 scratch area; base
            // registers no other bench addresses memory with, so a core that remembers
            // renamed address expressions carries nothing over to the other benches
            init += "lea rdi, [rsi+4096]\nlea rcx, [rdi-8]\nmov QWORD PTR [rdi+520], 0\nmov r13, 1\n";
            let store = if *renamed { "[rdi+520]" } else { "[rcx+528]" };
            for _ in 0..FORWARD_BODY {
                body += &format!("mov rax, QWORD PTR [rdi+520]\nadd rax, r13\nmov QWORD PTR {store}, rax\n");
            }
        }
        Bench::CodeStream { bytes } => {
            if !bytes.is_multiple_of(CODE_LINE_BYTES) || *bytes == 0 {
                return Err(format!("code size {bytes} is not a multiple of {CODE_LINE_BYTES}"));
            }
            // `nop DWORD PTR [rax+rax*1+0x0]`, 8 bytes: whole lines of eight, no dependencies
            body += &format!(
                ".rept {}\n.byte 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00\n.endr\n",
                bytes / CODE_INSTRUCTION_BYTES
            );
        }
    }
    inner_loop += "dec r15\njnz .Lloop\n";
    let vzu = if feat.avx { "vzeroupper\n" } else { "" };
    Ok(format!(
        ".intel_syntax noprefix\n.text\n.p2align 6\nbench_fn:\npush rbx\npush rbp\npush r12\npush r13\npush r14\npush r15\n\
         mov r15, rdi\n{vzu}{init}.p2align 6\n.Lloop:\n{body}{inner_loop}{epilogue}{vzu}pop r15\npop r14\npop r13\npop r12\npop rbp\npop rbx\nret\n"
    ))
}
