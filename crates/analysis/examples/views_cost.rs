//! Benchmark: the cost of the accounting views (Top-Down events, CPI stacks at
//! three stages, FLOPS stack, cycle accounting — one listener) relative to the
//! timing model alone, on static blocks iterated to a few million instructions.
//! Run: cargo run --release -p bottlenose-analysis --example views_cost [machine] [block]

use bottlenose_analysis::run_block;
use bottlenose_decode::decode_block;
use bottlenose_views::{AccountingViews, InstructionCost, StaticFacts, ViewParams};
use bottlenose_machine::Machine;
use bottlenose_inputs::{assemble, AsmSyntax};
use bottlenose_timing::{resolve_block, Acceleration, CoreConfig, Listener, StageDetails, StageTimes};

/// CPU time of this thread: unaffected by other processes sharing the machine.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// A listener that only reads the stage times and details: the price of having a listener at all.
struct Trivial(f64);
impl Listener for Trivial {
    #[inline]
    fn on_instruction(&mut self, _: usize, t: &StageTimes) {
        self.0 += t.commit;
    }

    #[inline]
    fn on_detailed(&mut self, _: usize, t: &StageTimes, d: &StageDetails) {
        self.0 += t.commit - d.slot;
    }
}

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "skylake".into());
    let only = std::env::args().nth(2);
    // for profiles: `views` or `model` runs only that variant
    let variant = std::env::var("VIEWS_COST_ONLY").ok();
    let runs = |v: &str| variant.as_deref().is_none_or(|o| o == v);
    let machine = Machine::resolve(&name).expect("machine");
    let blocks = [
        ("jacobi", include_str!("../../../examples/jacobi.s")),
        ("mixed_int", include_str!("../../../bench/blocks/mixed_int.s")),
        ("fp_add_chain", include_str!("../../../bench/blocks/fp_add_chain.s")),
        ("stream_copy", include_str!("../../../bench/blocks/stream_copy.s")),
        ("dot_4acc", include_str!("../../../bench/blocks/dot_4acc.s")),
        ("div_chain", include_str!("../../../bench/blocks/div_chain.s")),
    ];
    let (mut sum_model, mut sum_views, mut sum_trivial) = (0.0, 0.0, 0.0);
    for (label, src) in blocks {
        if only.as_deref().is_some_and(|o| o != label) {
            continue;
        }
        let code = &assemble(src, label, AsmSyntax::Auto).expect("assemble")[0];
        let insts = decode_block(&code.bytes, code.address).expect("decode");
        let (block, _) = resolve_block(&machine, &insts);
        let cfg = CoreConfig::new(&machine, &Acceleration::nominal(&machine));
        let facts = StaticFacts::block(&machine, &insts, &block);
        let params = ViewParams::new(&machine, &cfg);
        let iterations = 3_000_000 / block.len() as u32;
        let n = iterations as f64 * block.len() as f64;
        let (mut model, mut views, mut trivial) = (f64::MAX, f64::MAX, f64::MAX);
        let mut cycles = 0.0;
        for _ in 0..5 {
            if runs("model") {
                let c = thread_cpu();
                let (r, ()) = run_block(&block, cfg.clone(), iterations, ());
                model = model.min(thread_cpu() - c);
                cycles = r.total_cycles;
            }
            if runs("trivial") {
                let t = Trivial(0.0);
                let c = thread_cpu();
                run_block(&block, cfg.clone(), iterations, t);
                trivial = trivial.min(thread_cpu() - c);
            }
            if !runs("views") {
                continue;
            }
            // the views take the executions from an InstructionCost beside them
            let v = (InstructionCost::new(), AccountingViews::new(params.clone(), facts.clone()));
            let c = thread_cpu();
            let (r, v) = run_block(&block, cfg.clone(), iterations, v);
            let result = v.1.finish(r.total_cycles, &v.0, &[]);
            views = views.min(thread_cpu() - c);
            assert_eq!(result.cpi_stacks.cycles, r.total_cycles);
        }
        sum_model += model;
        sum_views += views;
        sum_trivial += trivial;
        println!(
            "{label:>13}: model alone {:5.1} M instr/s, with all views {:5.1} M instr/s: {:+5.1}% time (a listener that only reads: {:+4.1}%; {:.2} cycles/instr)",
            n / model / 1e6,
            n / views / 1e6,
            (views / model - 1.0) * 100.0,
            (trivial / model - 1.0) * 100.0,
            cycles / n
        );
    }
    println!(
        "all blocks: the accounting views cost {:+.1}% of the timing model's time (a listener that only reads the stage times: {:+.1}%; thread CPU, best of 5)",
        (sum_views / sum_model - 1.0) * 100.0,
        (sum_trivial / sum_model - 1.0) * 100.0
    );
}
