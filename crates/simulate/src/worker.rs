//! One worker's share of the variants: their cores, the instruction table they
//! share, and what each variant's outcome collects. The same state times
//! batches on a worker thread or, for an inline engine, on the caller's.

use crate::engine::{Batch, BatchCycles, Sampling, VariantOutcome, VariantsTime};
use crate::sink::Sink;
use bottlenose_timing::{BatchPart, Core, CoreConfig, Details, InstrTiming, Listener, StageDetails};
use std::sync::mpsc::Sender;

/// The variants one worker times.
pub(crate) struct Timing<L> {
    /// Each variant's index in the engine's configs, and its core.
    cores: Vec<(usize, Core)>,
    /// The baseline's listener, on the worker that times variant 0.
    sink: Option<Sink<L>>,
    table: Vec<InstrTiming>,
    /// A sampled run: each variant's cycles at its first window, and per measured unit.
    prefix: Option<Vec<f64>>,
    units: Vec<Vec<f64>>,
    /// Per variant, the commit cycle at the end of each marked batch.
    marks: Vec<Vec<f64>>,
    /// Per variant, the instructions it timed (a sub-sampled variant skips windows).
    instructions: Vec<u64>,
    /// Where the baseline's batch cycles go (when the producer asked for them).
    feedback: Option<Sender<BatchCycles>>,
}

impl<L: Listener + Send + 'static> Timing<L> {
    pub(crate) fn new(variants: Vec<(usize, CoreConfig)>, sink: Option<Sink<L>>, feedback: Option<Sender<BatchCycles>>) -> Self {
        let n = variants.len();
        Self {
            cores: variants.into_iter().map(|(i, c)| (i, Core::new(c))).collect(),
            sink,
            table: Vec::new(),
            prefix: None,
            units: vec![Vec::new(); n],
            marks: vec![Vec::new(); n],
            instructions: vec![0; n],
            feedback,
        }
    }

    /// Times one batch on every variant of this worker.
    pub(crate) fn take(&mut self, batch: &Batch) {
        self.table.extend(batch.new_instructions.iter().cloned());
        if batch.part != BatchPart::Whole && self.prefix.is_none() {
            self.prefix = Some(self.cores.iter().map(|(_, c)| c.cycles()).collect());
        }
        for (k, (i, core)) in self.cores.iter_mut().enumerate() {
            let variants = if *i == 0 { VariantsTime::Same } else { batch.variants };
            let unit = match variants {
                VariantsTime::Skip => continue,
                VariantsTime::WarmUp => false,
                VariantsTime::Same => matches!(batch.part, BatchPart::Unit { .. }),
            };
            self.instructions[k] += batch.records.len() as u64;
            let before = core.cycles();
            let last_commit = match (&mut self.sink, *i) {
                (Some(sink), 0) => step_baseline(core, sink, batch, &self.table),
                _ => step_unobserved(core, batch, &self.table),
            };
            if batch.mark_end {
                self.marks[k].push(last_commit);
            }
            let cycles = core.cycles() - before;
            if unit {
                self.units[k].push(cycles);
            }
            if let (0, Some(tx), false) = (*i, &self.feedback, batch.part == BatchPart::WarmUp) {
                let _ = tx.send(BatchCycles { part: batch.part, cycles });
            }
        }
    }

    /// Every variant's outcome (with its index in the engine's configs) and the listener.
    pub(crate) fn finish(self) -> (Vec<(usize, VariantOutcome)>, Option<Sink<L>>) {
        let Self { cores, sink, prefix, units, marks, instructions, .. } = self;
        let outcomes = cores
            .into_iter()
            .zip(units.into_iter().zip(marks).zip(instructions))
            .enumerate()
            .map(|(k, ((i, c), ((units, marks), instructions)))| {
                let prefix_cycles = prefix.as_ref().map(|p| p[k]);
                (i, VariantOutcome { cycles: c.cycles(), instructions, prefix_cycles, units, marks })
            })
            .collect();
        (outcomes, sink)
    }
}

/// Times one batch on a variant nobody listens to; returns the last record's commit cycle.
fn step_unobserved(core: &mut Core, batch: &Batch, table: &[InstrTiming]) -> f64 {
    let mut commit = f64::NAN;
    for r in &batch.records {
        commit = core.step_fast(&table[r.id as usize], &r.info).commit;
    }
    commit
}

/// Times one batch on the baseline and hands the stage times to the listener;
/// returns the last record's commit cycle.
fn step_baseline<L: Listener + Send + 'static>(core: &mut Core, sink: &mut Sink<L>, batch: &Batch, table: &[InstrTiming]) -> f64 {
    let mut commit = f64::NAN;
    match sink {
        Sink::Inline(l) => {
            let records = &batch.records[..];
            // the cheap step for the part nobody wants the details of
            let detailed_from = match l.begin_part(records.len(), batch.part) {
                _ if !L::DETAILS => records.len(),
                Details::None => records.len(),
                Details::All => 0,
                Details::From(k) => k.min(records.len()),
            };
            for r in &records[..detailed_from] {
                let t = core.step_fast(&table[r.id as usize], &r.info);
                l.on_instruction(r.id as usize, &t);
                commit = t.commit;
            }
            let mut details = StageDetails::default();
            for r in &records[detailed_from..] {
                let t = core.step(&table[r.id as usize], &r.info, &mut details);
                l.on_detailed(r.id as usize, &t, &details);
                commit = t.commit;
            }
        }
        Sink::Thread(lt) => {
            let mut times = lt.buffer();
            times.reserve(batch.records.len());
            for r in &batch.records {
                let mut details = StageDetails::default();
                let t = core.step(&table[r.id as usize], &r.info, &mut details);
                commit = t.commit;
                times.push((r.id, t, details));
            }
            // the listener thread only stops by panicking; finish() reports that
            let _ = lt.tx.send(times);
        }
    }
    commit
}

/// The one worker of a sampled-sensitivity engine (see [`Sampling`]): the
/// baseline in full, every other variant forked from it at each window.
pub(crate) struct SampledTiming<L> {
    base: Core,
    sink: Option<Sink<L>>,
    variants: Vec<CoreConfig>,
    plan: Sampling,
    /// Cycles summed over the windows: the baseline's and each variant's.
    base_sum: f64,
    sums: Vec<f64>,
    /// The window being timed: the baseline's cycles when it began, and the forks.
    open: Option<(f64, Vec<Core>)>,
    table: Vec<InstrTiming>,
    instructions: u64,
    batches: u64,
}

impl<L: Listener + Send + 'static> SampledTiming<L> {
    pub(crate) fn new(configs: Vec<CoreConfig>, sink: Option<Sink<L>>, plan: Sampling) -> Self {
        let mut configs = configs.into_iter();
        let base = Core::new(configs.next().expect("baseline"));
        let variants: Vec<CoreConfig> = configs.collect();
        let sums = vec![0.0; variants.len()];
        Self { base, sink, variants, plan, base_sum: 0.0, sums, open: None, table: Vec::new(), instructions: 0, batches: 0 }
    }

    fn close(&mut self) {
        if let Some((start, cores)) = self.open.take() {
            self.base_sum += self.base.cycles() - start;
            for (sum, c) in self.sums.iter_mut().zip(&cores) {
                *sum += c.cycles() - start;
            }
        }
    }

    pub(crate) fn take(&mut self, batch: &Batch) {
        let plan = self.plan;
        self.table.extend(batch.new_instructions.iter().cloned());
        if self.batches % plan.period == 0 && !self.variants.is_empty() {
            self.open = Some((self.base.cycles(), self.variants.iter().map(|c| self.base.fork(c.clone())).collect()));
        }
        match &mut self.sink {
            Some(sink) => step_baseline(&mut self.base, sink, batch, &self.table),
            None => step_unobserved(&mut self.base, batch, &self.table),
        };
        if let Some((_, cores)) = &mut self.open {
            for core in cores {
                step_unobserved(core, batch, &self.table);
            }
        }
        self.batches += 1;
        self.instructions += batch.records.len() as u64;
        if self.batches % plan.period == plan.window % plan.period {
            self.close();
        }
    }

    pub(crate) fn finish(mut self) -> (Vec<(usize, VariantOutcome)>, Option<Sink<L>>) {
        self.close();
        let total = self.base.cycles();
        let n = self.instructions;
        let outcome = |cycles| VariantOutcome { cycles, instructions: n, prefix_cycles: None, units: Vec::new(), marks: Vec::new() };
        let mut outcomes = vec![(0, outcome(total))];
        for (i, sum) in self.sums.iter().enumerate() {
            let cycles = if self.base_sum > 0.0 { total * sum / self.base_sum } else { total };
            outcomes.push((i + 1, outcome(cycles)));
        }
        (outcomes, self.sink)
    }
}
