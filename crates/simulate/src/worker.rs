//! One worker's share of the variants: their cores, the instruction table they
//! share, and what each variant's outcome collects. The same state times
//! batches on a worker thread or, for an inline engine, on the caller's.

use crate::engine::{Batch, BatchCycles, LatePrefix, RecordSlice, Sampling, VariantOutcome, VariantsTime};
use crate::sink::Sink;
use bottlenose_timing::{BatchPart, Core, CoreConfig, Details, InstrTiming, Listener, StageDetails};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;

/// Instructions a sampled run's variant times from its fork of the baseline
/// to the start of its unit: enough for a pipeline of a few hundred
/// instructions to settle into the variant's own configuration (the baseline's
/// backlog drained at the variant's rate, its queues at the variant's sizes).
pub const VARIANT_WARM_UP: usize = 1024;

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
    /// Per variant, the fresh core that times the exact prefix given after the
    /// windows ([`Batch::late_prefix`]), once one came.
    late_prefix: Vec<Option<LateCore>>,
    /// Per variant, the core of the prefix's sub-sample's current unit (fresh
    /// at each warm-up), and the cycles of each unit.
    sample_core: Vec<Option<Core>>,
    prefix_units: Vec<Vec<f64>>,
    /// Where the baseline's batch cycles go (when the producer asked for them).
    feedback: Option<Sender<BatchCycles>>,
    /// The baseline's core [`VARIANT_WARM_UP`] instructions before each of the
    /// variants' units: sent by the baseline's worker to the others, which fork
    /// their variants from it.
    snapshots: Snapshots,
}

/// A fresh core timing a sampled run's exact prefix after its windows, and
/// the cycles of the prefix by static instruction (what its cold code cost
/// this configuration: the sampled part's cold code no unit measured is
/// priced from it).
struct LateCore {
    core: Core,
    by_instruction: Vec<f64>,
    last_commit: f64,
}

impl LateCore {
    fn new(core: Core) -> Self {
        // from cycle -1, as the baseline's listeners count (an instruction committing at 0 took a cycle)
        LateCore { core, by_instruction: Vec::new(), last_commit: -1.0 }
    }

    /// Times `records`, each instruction charged the cycles its commit moved
    /// the last commit on (as the baseline's per-instruction costs are).
    fn step(&mut self, records: RecordSlice<'_>, table: &[InstrTiming]) {
        for r in records.iter() {
            let commit = self.core.step_fast(&table[r.id as usize], &r.info).commit;
            let id = r.id as usize;
            if id >= self.by_instruction.len() {
                self.by_instruction.resize((id + 1).next_power_of_two(), 0.0);
            }
            if commit > self.last_commit {
                self.by_instruction[id] += commit - self.last_commit;
                self.last_commit = commit;
            }
        }
    }
}

/// How a worker gets the baseline's state at the start of a unit of the variants' sub-sample.
pub(crate) enum Snapshots {
    /// This worker times the baseline: it forks its own variants from it and
    /// sends a copy to every other worker.
    Send(Vec<Sender<Arc<Core>>>),
    /// The baseline is timed elsewhere: its copies arrive here, one per unit.
    Receive(Receiver<Arc<Core>>),
}

impl Snapshots {
    /// A copy of the baseline's `core` for this worker's variants, sent to the others.
    fn share(&self, core: &Core) -> Arc<Core> {
        let base = Arc::new(core.clone());
        if let Snapshots::Send(others) = self {
            for tx in others {
                // a worker only stops early by panicking; finish() reports that
                let _ = tx.send(base.clone());
            }
        }
        base
    }
}

impl<L: Listener + Send + 'static> Timing<L> {
    pub(crate) fn new(variants: Vec<(usize, CoreConfig)>, sink: Option<Sink<L>>, feedback: Option<Sender<BatchCycles>>, snapshots: Snapshots) -> Self {
        let n = variants.len();
        Self {
            cores: variants.into_iter().map(|(i, c)| (i, Core::new(c))).collect(),
            sink,
            table: Vec::new(),
            prefix: None,
            units: vec![Vec::new(); n],
            marks: vec![Vec::new(); n],
            instructions: vec![0; n],
            late_prefix: (0..n).map(|_| None).collect(),
            sample_core: (0..n).map(|_| None).collect(),
            prefix_units: vec![Vec::new(); n],
            feedback,
            snapshots,
        }
    }

    /// Times one batch on every variant of this worker.
    ///
    /// Past the exact prefix, a variant times only the windows of its
    /// sub-sample, and not from a state of its own: [`VARIANT_WARM_UP`]
    /// instructions before its unit it becomes a fork of the baseline's core
    /// (caches and predictors are the functional layer's; the pipeline is the
    /// baseline's), times those instructions to settle into its own
    /// configuration, then the unit. The pair then differs by the configuration
    /// alone. A variant that kept its own state between windows started each
    /// from what it was windows before, and its units differed from the
    /// baseline's by up to 1.6 % where the configurations were the same.
    pub(crate) fn take(&mut self, batch: &Batch) {
        self.table.extend(batch.new_instructions.iter().cloned());
        if batch.late_prefix != LatePrefix::No {
            self.take_late_prefix(batch);
            return;
        }
        if batch.part != BatchPart::Whole && self.prefix.is_none() {
            self.prefix = Some(self.cores.iter().map(|(_, c)| c.cycles()).collect());
        }
        let records = batch.records.all();
        // the batch before one of the variants' units: the baseline's warm-up, or its
        // unit when the variants' sub-sample skipped it
        let warm_up = matches!((batch.variants, batch.part), (VariantsTime::WarmUp, _) | (VariantsTime::Same, BatchPart::WarmUp));
        let fork_at = warm_up.then(|| records.len().saturating_sub(VARIANT_WARM_UP));
        let Self { cores, sink, table, units, marks, instructions, feedback, snapshots, .. } = self;
        let mut fork: Option<Arc<Core>> = None;
        for (k, (i, core)) in cores.iter_mut().enumerate() {
            let (timed, unit) = match (*i, batch.variants, batch.part, fork_at) {
                (0, VariantsTime::Only, _, _) => continue,
                (0, _, part, _) => (records, matches!(part, BatchPart::Unit { .. })),
                (_, _, _, Some(at)) => {
                    let base = match (&fork, &*snapshots) {
                        (Some(base), _) => base.clone(),
                        (None, Snapshots::Receive(rx)) => match rx.recv() {
                            Ok(base) => fork.insert(base).clone(),
                            Err(_) => return, // the baseline's worker panicked: finish() reports it
                        },
                        (None, Snapshots::Send(_)) => unreachable!("the baseline is its worker's first core"),
                    };
                    base.fork_into(core);
                    (records.starting_at(at), false)
                }
                (_, VariantsTime::Skip | VariantsTime::WarmUp, _, None) | (_, VariantsTime::Same, BatchPart::WarmUp, None) => continue,
                (_, VariantsTime::Same | VariantsTime::Only, part, None) => (records, matches!(part, BatchPart::Unit { .. })),
            };
            instructions[k] += timed.len() as u64;
            let before = core.cycles();
            let last_commit = match (&mut *sink, *i) {
                (Some(sink), 0) => {
                    let mut at_fork = |base: &Core| fork = Some(snapshots.share(base));
                    step_baseline(core, sink, batch, table, fork_at.map(|at| (at, &mut at_fork as &mut dyn FnMut(&Core))))
                }
                (None, 0) => {
                    // (an engine without a listener: the baseline forks the same)
                    let at = fork_at.unwrap_or(records.len());
                    step_unobserved(core, records.slice(0..at), table);
                    if fork_at.is_some() {
                        fork = Some(snapshots.share(core));
                    }
                    step_unobserved(core, records.starting_at(at), table)
                }
                _ => step_unobserved(core, timed, table),
            };
            if batch.mark_end {
                marks[k].push(last_commit);
            }
            let cycles = core.cycles() - before;
            if unit {
                units[k].push(cycles);
            }
            if let (0, Some(tx), false) = (*i, &*feedback, batch.part == BatchPart::WarmUp) {
                let _ = tx.send(BatchCycles { part: batch.part, cycles });
            }
        }
        // a baseline's worker that has no variant of its own still sends (above); a
        // worker whose variants all skipped still takes its copy, to stay in step
        if let (Some(_), None, Snapshots::Receive(rx)) = (fork_at, &fork, &*snapshots) {
            let _ = rx.recv();
        }
    }

    /// A batch of the exact prefix after the windows: timed, in stream order,
    /// on a fresh core of each chosen variant's configuration (a variant's
    /// windows each began from a fork of the baseline, so its own core's state
    /// says nothing of the prefix).
    fn take_late_prefix(&mut self, batch: &Batch) {
        let Self { cores, table, late_prefix, sample_core, prefix_units, .. } = self;
        for (k, (i, core)) in cores.iter().enumerate() {
            let fresh = || Core::new(core.config().clone());
            match batch.late_prefix {
                whole if whole.whole_on(*i) => {
                    late_prefix[k].get_or_insert_with(|| LateCore::new(fresh())).step(batch.records.all(), table);
                }
                LatePrefix::No | LatePrefix::EveryCore | LatePrefix::Variant(_) => {}
                LatePrefix::SampleWarmUp => {
                    step_unobserved(sample_core[k].insert(fresh()), batch.records.all(), table);
                }
                LatePrefix::SampleUnit => {
                    let Some(c) = sample_core[k].as_mut() else { continue };
                    let before = c.cycles();
                    step_unobserved(c, batch.records.all(), table);
                    prefix_units[k].push(c.cycles() - before);
                }
            }
        }
    }

    /// Every variant's outcome (with its index in the engine's configs) and the listener.
    pub(crate) fn finish(self) -> (Vec<(usize, VariantOutcome)>, Option<Sink<L>>) {
        let Self { cores, sink, prefix, units, marks, instructions, late_prefix, prefix_units, .. } = self;
        let outcomes = cores
            .into_iter()
            .zip(units.into_iter().zip(marks).zip(instructions).zip(late_prefix).zip(prefix_units))
            .enumerate()
            .map(|(k, ((i, c), ((((units, marks), instructions), late), prefix_units)))| {
                let prefix_cycles = prefix.as_ref().map(|p| p[k]);
                let (exact_prefix, exact_prefix_by_instruction) = late.map_or((None, Vec::new()), |l| (Some(l.core.cycles()), l.by_instruction));
                (i, VariantOutcome { cycles: c.cycles(), instructions, prefix_cycles, units, marks, exact_prefix, exact_prefix_by_instruction, prefix_units, ..Default::default() })
            })
            .collect();
        (outcomes, sink)
    }
}

/// Times `records` on a core nobody listens to; returns the last record's commit cycle.
fn step_unobserved(core: &mut Core, records: RecordSlice<'_>, table: &[InstrTiming]) -> f64 {
    let mut commit = f64::NAN;
    for r in records.iter() {
        commit = core.step_fast(&table[r.id as usize], &r.info).commit;
    }
    commit
}

/// Where in a batch the variants fork from the baseline, and what receives its core there.
type ForkPoint<'a> = Option<(usize, &'a mut dyn FnMut(&Core))>;

/// Times one batch on the baseline and hands the stage times to the listener;
/// returns the last record's commit cycle. `fork`: before the record at that
/// index, the core is shown to the callback (the variants fork from it).
fn step_baseline<L: Listener + Send + 'static>(core: &mut Core, sink: &mut Sink<L>, batch: &Batch, table: &[InstrTiming], mut fork: ForkPoint<'_>) -> f64 {
    let mut commit = f64::NAN;
    let records = batch.records.all();
    let at = fork.as_ref().map_or(records.len(), |f| f.0.min(records.len()));
    match sink {
        Sink::Inline(l) => {
            // the cheap step for the part nobody wants the details of
            let detailed_from = match l.begin_part(records.len(), batch.part) {
                _ if !L::DETAILS => records.len(),
                Details::None => records.len(),
                Details::All => 0,
                Details::From(k) => k.min(records.len()),
            };
            for (start, end) in [(0, at), (at, records.len())] {
                if start == at {
                    if let Some((_, f)) = fork.as_mut() {
                        f(core);
                    }
                }
                let split = detailed_from.clamp(start, end);
                for r in records.slice(start..split).iter() {
                    let t = core.step_fast(&table[r.id as usize], &r.info);
                    l.on_instruction(r.id as usize, &t);
                    commit = t.commit;
                }
                let mut details = StageDetails::default();
                for r in records.slice(split..end).iter() {
                    let t = core.step(&table[r.id as usize], &r.info, &mut details);
                    l.on_detailed(r.id as usize, &t, &details);
                    commit = t.commit;
                }
            }
        }
        Sink::Thread(lt) => {
            let mut times = lt.buffer();
            times.reserve(records.len());
            for (start, end) in [(0, at), (at, records.len())] {
                if start == at {
                    if let Some((_, f)) = fork.as_mut() {
                        f(core);
                    }
                }
                for r in records.slice(start..end).iter() {
                    let mut details = StageDetails::default();
                    let t = core.step(&table[r.id as usize], &r.info, &mut details);
                    commit = t.commit;
                    times.push((r.id, t, details));
                }
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
    /// The window being timed: the baseline's cycles when it began.
    open: Option<f64>,
    /// The variants' forks of the baseline, made again at each window (into the
    /// same cores, which keep their buffers).
    forks: Vec<Core>,
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
        Self { base, sink, variants, plan, base_sum: 0.0, sums, open: None, forks: Vec::new(), table: Vec::new(), instructions: 0, batches: 0 }
    }

    fn close(&mut self) {
        if let Some(start) = self.open.take() {
            self.base_sum += self.base.cycles() - start;
            for (sum, c) in self.sums.iter_mut().zip(&self.forks) {
                *sum += c.cycles() - start;
            }
        }
    }

    pub(crate) fn take(&mut self, batch: &Batch) {
        let plan = self.plan;
        self.table.extend(batch.new_instructions.iter().cloned());
        if self.batches % plan.period == 0 && !self.variants.is_empty() {
            // one copy of the baseline, which every variant forks from
            let snapshot = self.base.clone();
            if self.forks.is_empty() {
                self.forks = self.variants.iter().map(|c| snapshot.fork(c.clone())).collect();
            } else {
                for f in &mut self.forks {
                    snapshot.fork_into(f);
                }
            }
            self.open = Some(self.base.cycles());
        }
        match &mut self.sink {
            Some(sink) => step_baseline(&mut self.base, sink, batch, &self.table, None),
            None => step_unobserved(&mut self.base, batch.records.all(), &self.table),
        };
        if self.open.is_some() {
            for core in &mut self.forks {
                step_unobserved(core, batch.records.all(), &self.table);
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
        let outcome = |cycles| VariantOutcome { cycles, instructions: n, ..Default::default() };
        let mut outcomes = vec![(0, outcome(total))];
        for (i, sum) in self.sums.iter().enumerate() {
            let cycles = if self.base_sum > 0.0 { total * sum / self.base_sum } else { total };
            outcomes.push((i + 1, outcome(cycles)));
        }
        (outcomes, self.sink)
    }
}
