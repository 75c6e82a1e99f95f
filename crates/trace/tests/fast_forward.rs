//! Fast-forward (plugin argument `pause=N`): the plugin skips what the reader
//! asks, counts it exactly, and streams the rest well-formed. The guest is a
//! static program without libc whose instruction count is known from its
//! source: `_start` calls a loop of 3 instructions per iteration.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use bottlenose_trace::{trace_run, ExecutedInsn, InsnSink, InstructionStream, QemuCommand, Resume};

mod common;
use common::plugin;

/// `_start`: mov edi, N; call count_loop; mov eax, 60; xor edi, edi; syscall (5, one of them
/// the exit) and `count_loop`: xor, mov, then N times add/dec/jnz, then ret (3 N + 3).
const PROGRAM: &str = r#"
    .intel_syntax noprefix
    .text
    .globl _start
_start:
    mov edi, 2000000
    call count_loop
    mov eax, 60
    xor edi, edi
    syscall
count_loop:
    xor eax, eax
    mov ecx, edi
1:  add rax, 1
    dec ecx
    jnz 1b
    ret
    .section .note.GNU-stack,"",@progbits
"#;
const N: u64 = 2_000_000;
const TOTAL: u64 = 5 + 3 * N + 3;

fn program(dir: &Path) -> PathBuf {
    common::gcc(dir, "count", &[("count.s", PROGRAM)], &["-nostdlib", "-static", "-no-pie"])
}

/// Answers every pause alike; checks that the emitted instructions follow
/// each other (each one's successor is the next one emitted).
struct Steered {
    answer: Resume,
    pauses: u64,
    emitted: u64,
    skipped: u64,
    by_vaddr: HashMap<u64, u64>,
    /// The successor the previous emitted instruction announced.
    expected_next: Option<u64>,
    broken_chains: Vec<String>,
    /// Emitted instructions without a successor (before each skip, and the last).
    ends: u64,
}

impl Steered {
    fn new(answer: Resume) -> Self {
        Steered { answer, pauses: 0, emitted: 0, skipped: 0, by_vaddr: HashMap::new(), expected_next: None, broken_chains: Vec::new(), ends: 0 }
    }
}

impl InsnSink for Steered {
    fn insn(&mut self, i: &ExecutedInsn<'_>) {
        if let Some(x) = self.expected_next.take() {
            if x != i.vaddr {
                self.broken_chains.push(format!("{:#x} after a successor of {x:#x}", i.vaddr));
            }
        }
        self.expected_next = i.next_vaddr;
        self.ends += i.next_vaddr.is_none() as u64;
        self.emitted += 1;
        *self.by_vaddr.entry(i.vaddr).or_default() += 1;
    }
    fn pause(&mut self) -> Resume {
        self.pauses += 1;
        self.answer
    }
    fn skipped(&mut self, i: &ExecutedInsn<'_>, executions: u64) {
        assert!(i.mem().is_empty() && i.next_vaddr.is_none());
        self.skipped += executions;
        *self.by_vaddr.entry(i.vaddr).or_default() += executions;
    }
}

fn run(prog: &Path, first_pause: Option<u64>, answer: Resume) -> Steered {
    let mut cmd = QemuCommand::new(prog);
    cmd.plugin(plugin());
    if let Some(n) = first_pause {
        cmd.fast_forward(n);
    }
    let mut insns = InstructionStream::new(Steered::new(answer));
    let (exit, summary) = trace_run(cmd.spawn().unwrap(), &mut insns).unwrap();
    assert!(exit.success() && summary.complete, "{exit} {summary:?}");
    let executed = insns.executed();
    let s = insns.into_inner();
    assert_eq!(executed, s.emitted + s.skipped);
    s
}

#[test]
fn skipped_and_streamed_instructions_add_up_to_the_exact_count() {
    let dir = tempfile::tempdir().unwrap();
    let prog = program(dir.path());
    // in full: every instruction streamed, 3 N + 8 of them
    let full = run(&prog, None, Resume::FULL);
    assert_eq!((full.emitted, full.skipped, full.pauses), (TOTAL, 0, 0));

    // all skipped from the first block on: the SKIPPED counts alone are exact, per instruction
    let skip = run(&prog, Some(0), Resume { skip: u64::MAX - 1, full: Resume::NEVER });
    assert_eq!(skip.pauses, 1);
    assert_eq!(skip.skipped + skip.emitted, TOTAL);
    assert!(skip.emitted <= 5, "only the blocks before the switch took effect are streamed: {}", skip.emitted);
    let loop_add = skip.by_vaddr.iter().filter(|&(_, &n)| n == N).count();
    assert_eq!(loop_add, 3, "add, dec and jnz ran N times each: {:?}", skip.by_vaddr);

    // switching back and forth, as sampling does: still exact, and every streamed
    // stretch is a chain of successors
    let switching = run(&prog, Some(20_000), Resume { skip: 300_000, full: 50_000 });
    assert_eq!(switching.skipped + switching.emitted, TOTAL);
    assert_eq!(switching.by_vaddr, full.by_vaddr, "per-instruction counts as in full");
    assert!(switching.pauses >= 15, "{} pauses", switching.pauses);
    assert!(switching.skipped >= 15 * 300_000 && switching.emitted >= 15 * 50_000, "{} skipped, {} streamed", switching.skipped, switching.emitted);
    assert!(switching.broken_chains.is_empty(), "{:?}", &switching.broken_chains[..switching.broken_chains.len().min(5)]);
    // a stretch ends without successor once per skip (and at the end)
    assert!(switching.ends >= switching.pauses, "{} ends, {} pauses", switching.ends, switching.pauses);
}

#[test]
fn bad_plugin_arguments_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let prog = program(dir.path());
    let so = plugin();
    for (args, expected) in [(",pause=abc", "bad pause value `abc` (a number of instructions)"), (",fd=1,pause=5", "pause=N needs fd=N and shm=M")] {
        let mut arg = so.as_os_str().to_owned();
        arg.push(args);
        let out = Command::new("qemu-x86_64").arg("-plugin").arg(&arg).arg(&prog).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        let first = stderr.lines().next().unwrap_or("");
        assert!(first.starts_with("bottlenose plugin: ") && first.contains(expected), "{stderr}");
    }
}
