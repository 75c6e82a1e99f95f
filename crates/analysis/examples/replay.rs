//! Benchmark: an exact run's two halves on a recorded trace, without QEMU. The
//! trace source (trace decoding, the functional layer, batches) and the baseline's
//! timing with the listeners of `run --exact --no-views` (stall causes and
//! per-instruction cost), so that the pipeline can be measured, profiled and run
//! under callgrind, which cannot run QEMU under bottlenose (it lacks `pidfd_open`).
//!
//! Record a trace with the plugin writing to a file, then replay it:
//!
//! ```sh
//! setarch -R qemu-x86_64 -plugin target/release/libbottlenose_qemu_plugin.so,fd=3 ./speed 3>speed.trace
//! cargo run --release -p bottlenose-analysis --example replay -- speed.trace [machine] [inline|threaded] [repeat] [listeners|bare]
//! ```
//!
//! `inline` (the default) runs both halves on this thread and times each (thread
//! CPU); `threaded` times on a worker thread as `run` does and reports wall time.
//! `bare` times with no listener (the model's cheap step): what the listeners cost.
//! Either prints the baseline's cycles and a digest of the functional layer's counters
//! (caches, TLBs, predictors), which must not change with a speed-up.

use bottlenose_machine::Machine;
use bottlenose_simulate::{Source, VariantEngine};
use bottlenose_timing::{Acceleration, CoreConfig, Listener};
use bottlenose_trace::{ProcessTrace, TraceStream};
use bottlenose_trace_source::{Exact, TraceOptions, TraceSource};
use bottlenose_views::{InstructionCost, SharedFacts, StallCauseCounter};
use std::time::Instant;

/// CPU time of this thread.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// CPU time of the whole process (every thread).
fn process_cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: as above.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: replay TRACE [machine] [inline|threaded] [repeat] [listeners|bare]");
        std::process::exit(2);
    };
    let machine = Machine::resolve(args.get(2).map_or("skylake", String::as_str)).expect("machine");
    let threaded = args.get(3).is_some_and(|m| m == "threaded");
    let repeat: usize = args.get(4).map_or(1, |r| r.parse().expect("repeat: a number"));
    let bare = args.get(5).is_some_and(|m| m == "bare");
    // the whole file in memory: reading it is not what is measured
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    for _ in 0..repeat {
        if bare {
            // the model's cheap step with nobody listening: what the listeners cost
            replay_once(&machine, &bytes, threaded, ());
        } else {
            replay_once(&machine, &bytes, threaded, (StallCauseCounter::new(&machine), InstructionCost::new()));
        }
    }
}

/// One replay of the recorded trace `bytes`, the baseline timed with `listeners`; prints the times.
fn replay_once<L: Listener + Send + 'static>(machine: &Machine, bytes: &[u8], threaded: bool, listeners: L) {
    let trace = ProcessTrace::child(TraceStream::recorded(std::io::Cursor::new(bytes.to_vec())));
    let configs = vec![CoreConfig::new(machine, &Acceleration::nominal(machine))];
    let mut engine = if threaded { VariantEngine::new(configs, listeners, 1) } else { VariantEngine::inline(configs, listeners) };
    let mut source = TraceSource::new(machine, trace, TraceOptions::default(), engine.take_returns(), Vec::new(), SharedFacts::new(), None::<Exact>);
    let (wall, cpu) = (Instant::now(), process_cpu());
    let (mut produce, mut time) = (0.0, 0.0);
    loop {
        let t0 = thread_cpu();
        let Some(batch) = source.next_batch() else { break };
        let t1 = thread_cpu();
        engine.feed_shared(batch);
        produce += t1 - t0;
        time += thread_cpu() - t1;
    }
    let end = source.finish().expect("a recorded trace");
    let (outcomes, _) = engine.finish();
    let (wall, cpu) = (wall.elapsed().as_secs_f64(), process_cpu() - cpu);
    let n = end.simulated as f64;
    // the functional layer's counters, in a line that a change must leave as it was
    let counts = format!("{:?}", end.functional.counts());
    let digest = counts.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    let rate = |s: f64| n / s / 1e6;
    if threaded {
        println!(
            "{n:.0} instructions, {:.0} cycles, functional counts {digest:016x}: wall {wall:.3} s ({:.1} M/s), CPU {cpu:.3} s, producer thread {produce:.3} s",
            outcomes[0].cycles,
            rate(wall)
        );
    } else {
        println!(
            "{n:.0} instructions, {:.0} cycles, functional counts {digest:016x}: producer {produce:.3} s ({:.1} M/s), timing {time:.3} s ({:.1} M/s), both {cpu:.3} s CPU",
            outcomes[0].cycles,
            rate(produce),
            rate(time)
        );
    }
}
