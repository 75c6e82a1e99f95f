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
    let expected: Vec<f64> = configs.iter().map(|c| run_block(&block, c.clone(), 300, &mut ()).total_cycles).collect();

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
        engine.feed(Batch { new_instructions, records: chunk.to_vec() });
    }
    let (outcomes, _) = engine.finish();
    let got: Vec<f64> = outcomes.iter().map(|o| o.cycles).collect();
    assert_eq!(got, expected);
    assert!(got[2] < got[0], "p1 x2 is faster: {got:?}");
    assert_eq!(outcomes[3].instructions, (iterations * block.len()) as u64);
}
