//! Rough per-operation cost of the functional layer's hot paths.
//!
//! `cargo run --release -p bottlenose-functional --example functional_bench [FILTER]`
//!
//! Times are on-CPU time of this thread (from `/proc/thread-self/schedstat`
//! where available, so that other processes on a busy machine do not inflate
//! them), falling back to wall-clock time.

use bottlenose_functional::test_params::skylake_like;
use bottlenose_functional::{BranchKind, FunctionalLayer, Idealization};
use std::hint::black_box;
use std::time::Instant;

/// On-CPU nanoseconds of this thread, or wall-clock nanoseconds since `start`.
struct Clock {
    wall: Instant,
    cpu: Option<u64>,
}

fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

impl Clock {
    fn start() -> Self {
        Clock { wall: Instant::now(), cpu: cpu_ns() }
    }
    fn ns(&self) -> f64 {
        match (self.cpu, cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64,
            _ => self.wall.elapsed().as_nanos() as f64,
        }
    }
}

const N: usize = 1 << 20;
const REPS: usize = 8;

fn lcg(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed >> 16
}

fn selected(name: &str) -> bool {
    match std::env::args().nth(1) {
        Some(f) => name.contains(&f),
        None => true,
    }
}

fn time_data(name: &str, addrs: &[u64]) {
    if !selected(name) {
        return;
    }
    let mut f = FunctionalLayer::new(&skylake_like(), Idealization::default());
    for &a in addrs {
        black_box(f.data_access(a, 8, false));
    }
    let t = Clock::start();
    for _ in 0..REPS {
        for (i, &a) in addrs.iter().enumerate() {
            black_box(f.data_access(black_box(a), 8, i & 7 == 0));
        }
    }
    let ns = t.ns() / (REPS * addrs.len()) as f64;
    let s = f.stats();
    let l1d = s.caches.levels.iter().find(|l| l.name == "L1D").unwrap();
    println!("data_access         {name:<34} {ns:6.2} ns/op   (L1D miss rate {:.3})", l1d.miss_rate);
}

fn main() {
    let mut seed = 1u64;
    let seq: Vec<u64> = (0..N as u64).map(|i| 0x1000_0000 + (i * 8) % (16 << 10)).collect();
    let rand_l1: Vec<u64> = (0..N).map(|_| (0x1000_0000 + lcg(&mut seed) % (24 << 10)) & !7).collect();
    let rand_l2: Vec<u64> = (0..N).map(|_| (0x1000_0000 + lcg(&mut seed) % (192 << 10)) & !7).collect();
    let rand_big: Vec<u64> = (0..N).map(|_| (0x1000_0000 + lcg(&mut seed) % (256 << 20)) & !7).collect();
    // A "typical" mix: 70% stack/locals (hot 4 KiB), 25% L1-resident arrays, 5% far.
    let mix: Vec<u64> = (0..N)
        .map(|i| {
            let r = lcg(&mut seed);
            match r % 100 {
                0..=69 => 0x7fff_0000 + (i as u64 * 8) % 4096,
                70..=94 => 0x1000_0000 + (r >> 8) % (24 << 10),
                _ => 0x2000_0000 + (r >> 8) % (64 << 20),
            }
        })
        .collect();
    // A loop kernel: c[i] = a[i] + b[i] over 1 MiB arrays, three stack slots,
    // and every 8th iteration a lookup in a 256 KiB table.
    let mut kernel = Vec::with_capacity(N);
    let mut i = 0u64;
    while kernel.len() + 8 <= N {
        kernel.push(0x7fff_e000 + 8);
        kernel.push(0x1000_0000 + (i * 8) % (1 << 20));
        kernel.push(0x2000_0000 + (i * 8) % (1 << 20));
        kernel.push(0x7fff_e000 + 16);
        kernel.push(0x3000_0000 + (i * 8) % (1 << 20));
        kernel.push(0x7fff_e000 + 40);
        if i & 7 == 0 {
            kernel.push((0x4000_0000 + lcg(&mut seed) % (256 << 10)) & !7);
        }
        i += 1;
    }
    time_data("loop kernel (streams+stack+table)", &kernel);
    time_data("sequential, 16 KiB", &seq);
    time_data("random, 24 KiB (L1 hits)", &rand_l1);
    time_data("random, 192 KiB (L2 hits)", &rand_l2);
    time_data("random, 256 MiB (mostly DRAM)", &rand_big);
    time_data("mix 70% stack/25% L1/5% far", &mix);

    // Branches: a loop nest with a data-dependent conditional, an indirect
    // dispatch over 6 targets, a call/return pair and a direct jump.
    if !selected("branch mixed") {
        return;
    }
    let mut f = FunctionalLayer::new(&skylake_like(), Idealization::default());
    let mut ops = 0u64;
    let mut seed = 7u64;
    let t = Clock::start();
    for it in 0..(REPS * N / 8) as u64 {
        let r = lcg(&mut seed);
        let base = 0x40_0000 + (it % 64) * 0x40;
        black_box(f.branch(base, BranchKind::Conditional, it % 8 != 7, base + 0x400, base + 2));
        black_box(f.branch(base + 4, BranchKind::Conditional, r & 3 != 0, base + 0x500, base + 6));
        black_box(f.branch(base + 8, BranchKind::IndirectJump, true, 0x50_0000 + (it % 6) * 0x80, base + 10));
        black_box(f.branch(base + 12, BranchKind::DirectCall, true, 0x60_0000, base + 17));
        black_box(f.branch(0x60_0040, BranchKind::Conditional, it & 1 == 0, 0x60_0050, 0x60_0042));
        black_box(f.branch(0x60_0060, BranchKind::Return, true, base + 17, 0x60_0061));
        black_box(f.branch(base + 20, BranchKind::DirectJump, true, base + 0x30, base + 22));
        black_box(f.branch(base + 24, BranchKind::Conditional, it % 3 == 0, base + 0x600, base + 26));
        ops += 8;
    }
    let ns = t.ns() / ops as f64;
    let s = f.stats();
    println!(
        "predict_and_update  branch mixed kinds                 {ns:6.2} ns/op   (mispredict ratio {:.4}, cond {:.4}, indirect {:.4})",
        s.branches.mispredict_ratio,
        s.branches.conditional.mispredicts as f64 / s.branches.conditional.branches as f64,
        s.branches.indirect_jump.mispredicts as f64 / s.branches.indirect_jump.branches as f64,
    );
    // Conditional only.
    let mut f = FunctionalLayer::new(&skylake_like(), Idealization::default());
    let t = Clock::start();
    let n = (REPS * N) as u64;
    for it in 0..n {
        let pc = 0x40_0000 + (it % 37) * 6;
        black_box(f.branch(pc, BranchKind::Conditional, (it / 37) % 5 != 0, pc + 64, pc + 2));
    }
    let ns = t.ns() / n as f64;
    println!("predict_and_update  branch conditional only            {ns:6.2} ns/op");
}
