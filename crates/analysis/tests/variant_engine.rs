//! The fan-out engine gives every variant exactly what a separate run gives.
mod common;
use bottlenose_analysis::dynamic::{Batch, DynRecord, VariantEngine};
use bottlenose_analysis::{accelerate, run_block, Knob};
use bottlenose_timing::{resolve_block, CoreConfig, DynInfo};
use common::*;

#[test]
fn parallel_variants_match_separate_runs() {
    let m = machine("gus-fig4");
    let insts = asm(include_str!("../../../examples/gus-fig4.s"));
    let (block, _) = resolve_block(&m, &insts);
    let knobs: Vec<Vec<Knob>> = ["p0", "p1", "p6", "frontend", "window"]
        .iter()
        .map(|n| vec![Knob::parse(&m, n).unwrap()])
        .collect();
    let mut configs = vec![CoreConfig::new(&m, &bottlenose_timing::Acceleration::nominal(&m))];
    configs.extend(knobs.iter().map(|k| CoreConfig::new(&m, &accelerate(&m, k, 2.0))));
    let expected: Vec<f64> = configs.iter().map(|c| run_block(&block, c.clone(), 300, ()).0.total_cycles).collect();

    let mut engine = VariantEngine::new(configs, (), 2);
    let iterations = 300;
    let mut sent_table = false;
    // feed in uneven batches to exercise the table hand-over
    let mut records = Vec::new();
    for _ in 0..iterations {
        for i in 0..block.len() {
            records.push(DynRecord { id: i as u32, info: DynInfo::default() });
        }
    }
    for chunk in records.chunks(777) {
        let new_instructions = if sent_table { vec![] } else { block.clone() };
        sent_table = true;
        engine.feed(Batch { new_instructions, records: chunk.iter().copied().collect(), ..Default::default() });
    }
    let (outcomes, _) = engine.finish();
    let got: Vec<f64> = outcomes.iter().map(|o| o.cycles).collect();
    assert_eq!(got, expected);
    assert!(got[2] < got[0], "p1 x2 is faster: {got:?}");
    assert_eq!(outcomes[3].instructions, (iterations * block.len()) as u64);
}

/// A listener that needs the detailed stage times (so it runs on its own thread)
/// and remembers what it saw.
#[derive(Default)]
struct Recorder {
    ids: Vec<usize>,
    last_commit: f64,
}

impl bottlenose_timing::Listener for Recorder {
    fn on_instruction(&mut self, index: usize, t: &bottlenose_timing::StageTimes) {
        self.ids.push(index);
        self.last_commit = t.commit;
    }
}

fn jacobi_stream(m: &bottlenose_machine::Machine, iterations: usize) -> (Vec<bottlenose_timing::InstrTiming>, Vec<DynRecord>) {
    let src = format!(".att_syntax prefix\n{}", include_str!("../../../examples/jacobi.s"));
    let (block, _) = resolve_block(m, &asm(&src));
    let records = (0..iterations)
        .flat_map(|_| (0..block.len()).map(|i| DynRecord { id: i as u32, info: DynInfo::default() }))
        .collect();
    (block, records)
}

fn feed_all<L: bottlenose_timing::Listener + Send + 'static>(
    mut engine: VariantEngine<L>,
    block: &[bottlenose_timing::InstrTiming],
    records: &[DynRecord],
) -> (Vec<f64>, L) {
    for (k, chunk) in records.chunks(4096).enumerate() {
        let new_instructions = if k == 0 { block.to_vec() } else { vec![] };
        engine.feed(Batch { new_instructions, records: chunk.iter().copied().collect(), ..Default::default() });
    }
    let (outcomes, l) = engine.finish();
    (outcomes.iter().map(|o| o.cycles).collect(), l)
}

#[test]
fn sampled_sweep_tracks_the_exact_one() {
    use bottlenose_analysis::dynamic::Sampling;
    let m = machine("skylake");
    let (block, records) = jacobi_stream(&m, 40_000);
    let mut configs = vec![CoreConfig::new(&m, &bottlenose_timing::Acceleration::nominal(&m))];
    for n in ["p23", "p0156", "frontend", "latency"] {
        configs.push(CoreConfig::new(&m, &accelerate(&m, &[Knob::parse(&m, n).unwrap()], 1.15)));
    }
    let (exact, rec) = feed_all(VariantEngine::with_listener_thread(configs.clone(), Recorder::default(), 2, Some(true)), &block, &records);
    // the listener saw every instruction, in order, on its own thread
    assert_eq!(rec.ids.len(), records.len());
    assert!(rec.ids.iter().zip(&records).all(|(&i, r)| i == r.id as usize));
    assert_eq!(rec.last_commit + 1.0, exact[0]);

    // one window covering the whole stream is the exact sweep
    let whole = Sampling { window: 1 << 20, period: 1 << 20 };
    let (same, _) = feed_all(VariantEngine::sampled(configs.clone(), Recorder::default(), whole), &block, &records);
    assert_eq!(same, exact);

    // windows of 4 batches in every 16: the baseline is exact, each speedup within 1 point
    let sparse = Sampling { window: 4, period: 16 };
    let (sampled, rec) = feed_all(VariantEngine::sampled(configs, Recorder::default(), sparse), &block, &records);
    assert_eq!(sampled[0], exact[0]);
    assert_eq!(rec.ids.len(), records.len());
    for v in 1..exact.len() {
        let (e, s) = (exact[0] / exact[v] - 1.0, sampled[0] / sampled[v] - 1.0);
        assert!((e - s).abs() < 0.01, "variant {v}: exact speedup {e}, sampled {s}");
    }
    assert!(exact[0] / exact[1] - 1.0 > 0.1, "p23 binds on Jacobi: {exact:?}");
}

/// A listener that samples (decides per batch whether it wants details, like
/// the sampled accounting views) stays on the timing thread even where the
/// listener would get a thread of its own, and is told of every batch.
#[test]
fn a_sampling_listener_stays_on_the_timing_thread() {
    #[derive(Default)]
    struct Sampler {
        batches: usize,
        detailed: usize,
        threads: std::collections::BTreeSet<String>,
    }
    impl bottlenose_timing::Listener for Sampler {
        fn on_instruction(&mut self, _: usize, _: &bottlenose_timing::StageTimes) {
            self.threads.insert(std::thread::current().name().unwrap_or("").to_string());
        }
        fn on_detailed(&mut self, i: usize, t: &bottlenose_timing::StageTimes, _: &bottlenose_timing::StageDetails) {
            self.detailed += 1;
            self.on_instruction(i, t);
        }
        fn begin_batch(&mut self, _: usize) -> bottlenose_timing::Details {
            self.batches += 1;
            if self.wants_details() {
                bottlenose_timing::Details::All
            } else {
                bottlenose_timing::Details::None
            }
        }
        // before the first batch it wants them (as sampled views do in their exact
        // prefix): a listener that did would otherwise be given a thread
        fn wants_details(&self) -> bool {
            self.batches % 2 == 0
        }
        fn samples(&self) -> bool {
            true
        }
    }
    let m = machine("skylake");
    let (block, records) = jacobi_stream(&m, 4_000);
    let configs = vec![CoreConfig::new(&m, &bottlenose_timing::Acceleration::nominal(&m))];
    let (_, s) = feed_all(VariantEngine::with_listener_thread(configs, Sampler::default(), 1, Some(true)), &block, &records);
    assert_eq!(s.batches, records.len().div_ceil(4096));
    assert_eq!(s.threads.iter().collect::<Vec<_>>(), ["bn-timing-0"]);
    // the 2nd, 4th, ... batches were timed in detail, the others not
    let detailed: usize = records.chunks(4096).skip(1).step_by(2).map(|c| c.len()).sum();
    assert_eq!(s.detailed, detailed);
}

/// A sampled run's variants time a sub-sample of its windows: batches the
/// variants skip change nothing for the baseline and count nothing for them;
/// warm-ups (of the baseline's, or a unit of the baseline's before one of
/// theirs) they skip too: each of their units starts from a fork of the
/// baseline's core. The static instructions a skipped batch brings still reach
/// every worker (two threads: the variants' worker never gets the skipped
/// batches' records, and gets the baseline's core from the other).
#[test]
fn variants_skip_or_warm_up_on_the_batches_they_are_told() {
    use bottlenose_analysis::dynamic::VariantsTime;
    use bottlenose_timing::BatchPart;
    let m = machine("skylake");
    let (block, records) = jacobi_stream(&m, 8_000);
    let mut configs = vec![CoreConfig::new(&m, &bottlenose_timing::Acceleration::nominal(&m))];
    configs.push(CoreConfig::new(&m, &accelerate(&m, &[Knob::parse(&m, "latency").unwrap()], 2.0)));
    let chunks: Vec<&[DynRecord]> = records.chunks(4096).collect();
    // batch k: a unit when odd (after its warm-up); the variants skip the first two windows,
    // take the third's unit as their warm-up and time the rest
    let plan = |k: usize| {
        let part = if k % 2 == 1 { BatchPart::Unit { weight: 2.0 } } else { BatchPart::WarmUp };
        let variants = match k {
            0..=3 => VariantsTime::Skip,
            5 => VariantsTime::WarmUp,
            _ => VariantsTime::Same,
        };
        (part, variants)
    };
    let run = |sub: bool| {
        let mut engine = VariantEngine::new(configs.clone(), (), 2);
        for (k, chunk) in chunks.iter().enumerate() {
            let (part, variants) = plan(k);
            let new_instructions = if k == 0 { block.to_vec() } else { vec![] };
            let variants = if sub { variants } else { VariantsTime::Same };
            engine.feed(Batch { new_instructions, records: chunk.iter().copied().collect(), part, variants, ..Default::default() });
        }
        engine.finish().0
    };
    let (all, sub) = (run(false), run(true));
    let units = chunks.len() / 2;
    // the baseline: the same cycles, every unit
    assert_eq!(sub[0].cycles, all[0].cycles);
    assert_eq!(sub[0].units, all[0].units);
    assert_eq!(sub[0].units.len(), units);
    // the variant: units from batch 7 on; it timed their instructions and the last
    // VARIANT_WARM_UP of each batch before one of its units (4, 5 and 6, then every even one)
    assert_eq!(sub[1].units.len(), units - 3, "{:?}", sub[1].units);
    let warm_up = bottlenose_simulate::VARIANT_WARM_UP;
    let timed: usize = chunks.iter().enumerate().skip(4).map(|(k, c)| if k % 2 == 1 && k >= 7 { c.len() } else { c.len().min(warm_up) }).sum();
    assert_eq!(sub[1].instructions, timed as u64);
    // each of its units started from the baseline's core at that point, the same in both
    // runs: the same cycles to the bit, whatever it skipped before
    assert_eq!(sub[1].units[..], all[1].units[3..]);
}

/// A variant configured as the baseline, forked from it at each unit, takes
/// exactly the baseline's cycles on every unit (a pair that differs in nothing
/// differs by nothing); warmed up on its own, its units differed by up to a few
/// cycles, and the paired ratios of every other variant carried that noise.
#[test]
fn a_variant_like_the_baseline_measures_every_unit_as_the_baseline_does() {
    use bottlenose_analysis::dynamic::VariantsTime;
    use bottlenose_timing::BatchPart;
    let m = machine("skylake");
    let (block, records) = jacobi_stream(&m, 8_000);
    let base = CoreConfig::new(&m, &bottlenose_timing::Acceleration::nominal(&m));
    let configs = vec![base.clone(), base.clone(), base];
    for threads in [1, 2] {
        let mut engine = VariantEngine::new(configs.clone(), (), threads);
        for (k, chunk) in records.chunks(4096).enumerate() {
            // a window in every third batch, fast-forward between (nothing fed); the
            // variants' sub-sample every other window
            let part = match k % 3 {
                0 => continue,
                1 => BatchPart::WarmUp,
                _ => BatchPart::Unit { weight: 3.0 },
            };
            let variants = if (k / 3) % 2 == 0 { VariantsTime::Same } else { VariantsTime::Skip };
            let new_instructions = if k <= 2 { block.to_vec() } else { vec![] };
            engine.feed(Batch { new_instructions, records: chunk.iter().copied().collect(), part, variants, ..Default::default() });
        }
        let out = engine.finish().0;
        let sub: Vec<f64> = out[0].units.iter().step_by(2).copied().collect();
        assert!(sub.len() >= 5, "{:?}", out[0].units);
        for v in &out[1..] {
            assert_eq!(v.units, sub, "{threads} threads");
        }
    }
}

/// A sampled run's exact prefix: the baseline times it as it comes, the
/// variants skip it; given to them afterwards (`Only`: a run that ended in the
/// prefix), they take exactly what they take when they timed it along with the
/// baseline, and the baseline takes nothing more.
#[test]
fn variants_given_the_prefix_afterwards_time_it_as_they_would_have() {
    use bottlenose_analysis::dynamic::VariantsTime;
    use bottlenose_timing::BatchPart;
    let m = machine("skylake");
    let (block, records) = jacobi_stream(&m, 6_000);
    let mut configs = vec![CoreConfig::new(&m, &bottlenose_timing::Acceleration::nominal(&m))];
    configs.push(CoreConfig::new(&m, &accelerate(&m, &[Knob::parse(&m, "latency").unwrap()], 2.0)));
    configs.push(CoreConfig::new(&m, &accelerate(&m, &[Knob::parse(&m, "window").unwrap()], 2.0)));
    let batch = |k: usize, chunk: &[DynRecord], variants| Batch {
        new_instructions: if k == 0 { block.to_vec() } else { vec![] },
        records: chunk.iter().copied().collect(),
        part: BatchPart::Whole,
        variants,
        ..Default::default()
    };
    for threads in [1, 2] {
        let mut together = VariantEngine::new(configs.clone(), (), threads);
        let mut later = VariantEngine::new(configs.clone(), (), threads);
        for (k, chunk) in records.chunks(4096).enumerate() {
            together.feed(batch(k, chunk, VariantsTime::Same));
            later.feed(batch(k, chunk, VariantsTime::Skip));
        }
        for chunk in records.chunks(4096) {
            later.feed(Batch { records: chunk.iter().copied().collect(), part: BatchPart::Whole, variants: VariantsTime::Only, ..Default::default() });
        }
        let (a, b) = (together.finish().0, later.finish().0);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((x.cycles, x.instructions), (y.cycles, y.instructions), "{threads} threads");
        }
        assert_eq!(b[0].instructions, records.len() as u64);
        assert!(b[1].cycles != b[0].cycles && b[2].cycles > 0.0);
    }
}
