//! Benchmark: simulated instructions per second of the timing model, and the
//! wall time of a full default sensitivity sweep, on the Jacobi block.
//! Run: cargo run --release -p bottlenose-analysis --example sim_speed [machine]

use bottlenose_analysis::{analyze_block, run_block, StaticOptions};
use bottlenose_decode::decode_block;
use bottlenose_views::{StallCauseCounter, Timeline};
use bottlenose_machine::Machine;
use bottlenose_inputs::{assemble, AsmSyntax};
use bottlenose_timing::{resolve_block, Acceleration, CoreConfig};
use std::time::Instant;

/// CPU time of this thread: unaffected by other processes sharing the machine.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "skylake".into());
    let machine = Machine::resolve(&name).expect("machine");
    for (label, src) in [
        ("mixed_int", include_str!("../../../bench/blocks/mixed_int.s")),
        ("fp_add_chain", include_str!("../../../bench/blocks/fp_add_chain.s")),
        ("stream_copy", include_str!("../../../bench/blocks/stream_copy.s")),
        ("dot_4acc", include_str!("../../../bench/blocks/dot_4acc.s")),
    ] {
        let code = &assemble(src, label, AsmSyntax::Att).expect("assemble")[0];
        let insts = decode_block(&code.bytes, code.address).expect("decode");
        let (block, _) = resolve_block(&machine, &insts);
        let cfg = CoreConfig::new(&machine, &Acceleration::nominal(&machine));
        let iterations = 4_000_000 / block.len() as u32;
        let mut best = f64::MAX;
        for _ in 0..3 {
            let c = thread_cpu();
            run_block(&block, cfg.clone(), iterations, ());
            best = best.min(thread_cpu() - c);
        }
        println!("{label:>13}: {:.1} M simulated instructions/s (thread CPU)", iterations as f64 * block.len() as f64 / best / 1e6);
    }
    let src = include_str!("../../../examples/jacobi.s");
    let code = &assemble(src, "jacobi.s", AsmSyntax::Att).expect("assemble")[0];
    let insts = decode_block(&code.bytes, code.address).expect("decode");
    let (block, _) = resolve_block(&machine, &insts);
    let cfg = CoreConfig::new(&machine, &Acceleration::nominal(&machine));
    let iterations = 2_000_000u32;
    let n = iterations as f64 * block.len() as f64;

    let mut best = f64::MAX;
    let mut best_cpu = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let c = thread_cpu();
        let (r, ()) = run_block(&block, cfg.clone(), iterations, ());
        best_cpu = best_cpu.min(thread_cpu() - c);
        best = best.min(t.elapsed().as_secs_f64());
        assert!(r.total_cycles > 0.0);
    }
    println!(
        "jacobi (p23-saturated): timing model alone: {:.1} M simulated instructions/s of thread CPU time ({:.1} M/s wall; {} instructions, best of 3)",
        n / best_cpu / 1e6,
        n / best / 1e6,
        n
    );

    let mut best_l = f64::MAX;
    for _ in 0..3 {
        let views = (Timeline::new(block.len(), iterations), StallCauseCounter::new(&machine));
        let c = thread_cpu();
        run_block(&block, cfg.clone(), iterations, views);
        best_l = best_l.min(thread_cpu() - c);
    }
    println!(
        "with listeners (timeline, stall causes): {:.1} M/s CPU ({:+.1}% time)",
        n / best_l / 1e6,
        (best_l / best_cpu - 1.0) * 100.0
    );

    let mut best_s = f64::MAX;
    let mut variants = 0;
    let mut per_variant_insts = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let r = analyze_block(&machine, "jacobi", &insts, &StaticOptions::default()).expect("analysis");
        best_s = best_s.min(t.elapsed().as_secs_f64());
        variants = r.sensitivity.len();
        per_variant_insts = r.iterations as usize * insts.len();
    }
    println!(
        "full default sensitivity sweep: {:.3} s for {} variants x {} instructions ({} threads)",
        best_s,
        variants,
        per_variant_insts,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
}
