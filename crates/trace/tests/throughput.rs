//! Throughput of the runner and reader (run by hand: cargo test --release -p
//! bottlenose-trace --test throughput -- --ignored --nocapture).

mod common;
use common::{gcc, plugin};

use std::ffi::OsString;
use std::process::Command;
use std::time::Instant;

use bottlenose_trace::{
    run_program, run_program_with, trace_run, QemuCommand, StreamSummary, TraceVisitor,
};


const BENCH_S: &str = r#"
    .intel_syntax noprefix
    .text
    .globl alu_loop
    .type alu_loop, @function
alu_loop:
    xor eax, eax
1:  add rax, rdi
    xor rdx, rax
    dec rdi
    jnz 1b
    ret
    .size alu_loop, .-alu_loop
    .globl mem_loop
    .type mem_loop, @function
mem_loop:
    xor eax, eax
    sub rsp, 64
1:  mov qword ptr [rsp + 8], rax
    add rax, qword ptr [rsp + 8]
    dec rdi
    jnz 1b
    add rsp, 64
    ret
    .size mem_loop, .-mem_loop
    .section .note.GNU-stack,"",@progbits
"#;

const BENCH_C: &str = r#"
#include <stdlib.h>
#include <string.h>
long alu_loop(long n);
long mem_loop(long n);
int main(int argc, char **argv) {
    long n = atol(argv[2]);
    long r = strcmp(argv[1], "mem") == 0 ? mem_loop(n) : alu_loop(n);
    return (int)(r & 1);
}
"#;

#[derive(Default)]
struct Counter {
    execs: u64,
    mems: u64,
}

impl TraceVisitor for Counter {
    fn tb_exec(&mut self, _: u32, _: u16) {
        self.execs += 1;
    }
    fn mem(&mut self, _: u16, _: u16, _: u64, _: u8, _: bool) {
        self.mems += 1;
    }
}

#[test]
#[ignore]
fn throughput() {
    plugin();
    let dir = tempfile::tempdir().unwrap();
    let prog = gcc(
        dir.path(),
        "bench",
        &[("bench.c", BENCH_C), ("bench.s", BENCH_S)],
        &["-O1", "-no-pie"],
    );
    // 4 instructions per iteration: 50M iterations = 200M instructions.
    let iters = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50_000_000u64);
    let insns = 4 * iters;
    let qemu = bottlenose_trace::find_qemu().unwrap();
    // CPU seconds (user + system) of this process and of its waited-for
    // children: the machine may be shared, so wall time alone misleads.
    let cpu = |who| {
        // SAFETY: getrusage into a zeroed struct.
        let r = unsafe {
            let mut r: libc::rusage = std::mem::zeroed();
            libc::getrusage(who, &mut r);
            r
        };
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
        t(r.ru_utime) + t(r.ru_stime)
    };
    // Runs `f`, returns (wall, reader CPU, child CPU) seconds.
    let measure = |f: &mut dyn FnMut()| {
        let (s0, c0, t) = (
            cpu(libc::RUSAGE_SELF),
            cpu(libc::RUSAGE_CHILDREN),
            Instant::now(),
        );
        f();
        let wall = t.elapsed().as_secs_f64();
        (
            wall,
            cpu(libc::RUSAGE_SELF) - s0,
            cpu(libc::RUSAGE_CHILDREN) - c0,
        )
    };
    let line = |what: &str, (wall, me, child): (f64, f64, f64)| {
        println!(
            "  {what:30} {:7.1} M insn/s  wall {wall:5.2} s  cpu: reader {me:5.2} s, child {child:5.2} s",
            insns as f64 / wall / 1e6
        );
    };
    for kind in ["alu", "mem"] {
        let args = [OsString::from(kind), OsString::from(iters.to_string())];
        let native = measure(&mut || {
            Command::new(&prog).args(&args).status().unwrap();
        });
        let plain = measure(&mut || {
            Command::new(&qemu).arg(&prog).args(&args).status().unwrap();
        });
        let mut sum = StreamSummary::default();
        let raw = measure(&mut || {
            sum = run_program_with(&prog, &args, &mut Counter::default())
                .unwrap()
                .1;
        });
        let raw_socket = measure(&mut || {
            let run = QemuCommand::new(&prog)
                .args(&args)
                .shared_memory(false)
                .spawn()
                .unwrap();
            trace_run(run, &mut Counter::default()).unwrap();
        });
        let mut n = 0u64;
        let mut mem = 0u64;
        let full = measure(&mut || {
            let out = run_program(&prog, &args, |i| {
                n += 1;
                mem += i.mem().len() as u64;
            })
            .unwrap();
            assert_eq!(out.instructions, n);
        });
        println!(
            "{kind} loop, {insns} loop instructions ({n} executed in all, {mem} memory accesses, {} MB stream):",
            sum.bytes / 1_000_000
        );
        line("native", native);
        line("qemu-x86_64, no plugin", plain);
        line("plugin + read_stream (shm)", raw);
        line("plugin + read_stream (socket)", raw_socket);
        line("plugin + ExecutedInsn (shm)", full);
    }
}
