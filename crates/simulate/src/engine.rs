//! Fan-out of one executed-instruction stream to N timing variants.
//!
//! The producer (QEMU trace + functional layer) fills [`Batch`]es of records,
//! each naming a static instruction by index plus its dynamic facts. New static
//! instructions travel with the first batch that uses them, so workers keep
//! their own append-only copy of the instruction table and never lock. Each
//! worker thread owns a subset of the variants; variant 0 (the baseline) also
//! feeds the caller's listener. On hosts with cores to spare, a listener that
//! reads the detailed stage times (the accounting views) runs on a thread of its
//! own, fed with the baseline's stage times batch by batch, so it overlaps with
//! timing instead of adding to it.

use bottlenose_timing::{BatchPart, Details, Core, CoreConfig, DynInfo, InstrTiming, Listener, StageDetails, StageTimes};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// One executed instruction: static index + dynamic facts.
#[derive(Clone, Copy, Debug)]
pub struct DynRecord {
    pub id: u32,
    pub info: DynInfo,
}

/// A chunk of the stream plus the static instructions first seen in it.
#[derive(Default)]
pub struct Batch {
    pub new_instructions: Vec<InstrTiming>,
    pub records: Vec<DynRecord>,
    /// What the batch is to a sampled run (SMARTS); `Whole` when timed in full.
    pub part: BatchPart,
}

#[derive(Debug, Clone)]
pub struct VariantOutcome {
    pub cycles: f64,
    pub instructions: u64,
    /// A sampled run: the cycles when its first window began (the exact
    /// prefix's), and the cycles of each measured unit, in stream order.
    pub prefix_cycles: Option<f64>,
    pub units: Vec<f64>,
}

/// The baseline's cycles over one batch timed in full or one measured unit,
/// sent back to the producer as they are known (the sampling controller reads
/// the variance from them).
#[derive(Debug, Clone, Copy)]
pub struct BatchCycles {
    pub part: BatchPart,
    pub cycles: f64,
}

type Work = Arc<Batch>;

/// Runs every variant on worker threads, so that producing the stream (QEMU,
/// decoding, caches and predictors) overlaps with timing it. The first worker
/// also runs the baseline (variant 0) with the caller's listener.
pub struct VariantEngine<L: Listener + Send + 'static> {
    workers: Vec<Worker<L>>,
    instructions: u64,
    /// Emptied record buffers coming back from the workers (see [`VariantEngine::buffer`]).
    spare: Receiver<Vec<DynRecord>>,
    /// The baseline's cycles batch by batch ([`VariantEngine::with_feedback`]).
    feedback: Option<Receiver<BatchCycles>>,
}

/// How many emptied record buffers wait for reuse.
const SPARE_BUFFERS: usize = 4;

struct Worker<L> {
    tx: SyncSender<Work>,
    handle: JoinHandle<(Vec<(usize, VariantOutcome)>, Option<Sink<L>>)>,
}

/// Where the baseline's stage times go: the listener itself, or the thread that runs it.
enum Sink<L> {
    Inline(L),
    Thread(ListenerThread<L>),
}

/// A listener on its own thread. Batches of stage times travel to it and the
/// emptied buffers come back, so nothing is allocated per batch in steady state.
struct ListenerThread<L> {
    tx: SyncSender<Vec<(u32, StageTimes, StageDetails)>>,
    spare: Receiver<Vec<(u32, StageTimes, StageDetails)>>,
    handle: JoinHandle<L>,
}

impl<L: Listener + Send + 'static> ListenerThread<L> {
    fn spawn(mut listener: L) -> Self {
        let (tx, rx) = sync_channel::<Vec<(u32, StageTimes, StageDetails)>>(4);
        let (spare_tx, spare) = sync_channel::<Vec<(u32, StageTimes, StageDetails)>>(8);
        let handle = spawn_named("bn-views".into(), move || {
            while let Ok(mut times) = rx.recv() {
                listener.begin_batch(times.len());
                for (id, t, d) in &times {
                    listener.on_detailed(*id as usize, t, d);
                }
                times.clear();
                let _ = spare_tx.try_send(times);
            }
            listener
        });
        Self { tx, spare, handle }
    }

    fn buffer(&self) -> Vec<(u32, StageTimes, StageDetails)> {
        self.spare.try_recv().unwrap_or_default()
    }

    fn finish(self) -> L {
        drop(self.tx);
        self.handle.join().expect("listener thread panicked")
    }
}

impl<L: Listener + Send + 'static> Sink<L> {
    /// The views get a thread of their own only where there is a core for it: QEMU, the
    /// functional layer and the timing worker already keep two busy, and on a 2-core host
    /// handing the stage times over costs more than it overlaps (measured: 8.2 s vs 7.2 s
    /// on bench/programs/speed.c).
    ///
    /// A listener switched off stays inline, and so does one that samples: it decides
    /// batch by batch which step the timing thread takes, and costs little.
    fn new(listener: L, own_thread: Option<bool>) -> Self {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        if L::DETAILS && listener.wants_details() && !listener.samples() && own_thread.unwrap_or(cores >= 4) {
            Sink::Thread(ListenerThread::spawn(listener))
        } else {
            Sink::Inline(listener)
        }
    }

    fn finish(self) -> L {
        match self {
            Sink::Inline(l) => l,
            Sink::Thread(t) => t.finish(),
        }
    }
}

/// Sampled sensitivity: the variants are timed only on windows of `window`
/// batches, one window at the start of every `period` batches. At each window
/// start every variant is forked from the baseline's state ([`Core::fork`]); a
/// variant's cycles are the baseline's total scaled by the ratio of the
/// variant's to the baseline's cycles summed over the windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampling {
    pub window: u64,
    pub period: u64,
}

impl<L: Listener + Send + 'static> VariantEngine<L> {
    /// `configs[0]` is the baseline; every other variant is sampled (see [`Sampling`]).
    /// One worker thread times them all, since each window forks from the baseline.
    pub fn sampled(configs: Vec<CoreConfig>, listener: L, plan: Sampling) -> Self {
        assert!(!configs.is_empty(), "at least the baseline variant");
        let plan = Sampling { window: plan.window.max(1), period: plan.period.max(plan.window.max(1)) };
        let sink = Sink::new(listener, None);
        let (tx, rx) = sync_channel::<Work>(64);
        let (spare_tx, spare) = sync_channel(SPARE_BUFFERS);
        let handle = spawn_named("bn-timing".into(), move || sampled_worker(configs, Some(sink), Batches { rx, spare: spare_tx, feedback: None }, plan));
        Self { workers: vec![Worker { tx, handle }], instructions: 0, spare, feedback: None }
    }

    /// `configs[0]` is the baseline. `threads` worker threads share the variants.
    pub fn new(configs: Vec<CoreConfig>, listener: L, threads: usize) -> Self {
        Self::with_listener_thread(configs, listener, threads, None)
    }

    /// As [`VariantEngine::new`], choosing whether a detailed listener gets its own
    /// thread (`None`: when the host has at least 4 cores).
    pub fn with_listener_thread(configs: Vec<CoreConfig>, listener: L, threads: usize, own_thread: Option<bool>) -> Self {
        Self::build(configs, listener, threads, own_thread, false)
    }

    /// As [`VariantEngine::new`], and the baseline's cycles of every batch timed
    /// in full and every measured unit come back through [`VariantEngine::take_feedback`].
    pub fn with_feedback(configs: Vec<CoreConfig>, listener: L, threads: usize) -> Self {
        Self::build(configs, listener, threads, None, true)
    }

    fn build(configs: Vec<CoreConfig>, listener: L, threads: usize, own_thread: Option<bool>, feedback: bool) -> Self {
        let all: Vec<(usize, CoreConfig)> = configs.into_iter().enumerate().collect();
        assert!(!all.is_empty(), "at least the baseline variant");
        let threads = threads.max(1).min(all.len());
        let mut buckets: Vec<Vec<(usize, CoreConfig)>> = (0..threads).map(|_| Vec::new()).collect();
        for (k, v) in all.into_iter().enumerate() {
            buckets[k % threads].push(v);
        }
        let mut listener = Some(listener);
        let (spare_tx, spare) = sync_channel(SPARE_BUFFERS);
        let (feedback_tx, feedback_rx) = channel::<BatchCycles>();
        let mut feedback_tx = feedback.then_some(feedback_tx);
        let workers = buckets
            .into_iter()
            .enumerate()
            .map(|(k, bucket)| {
                let (tx, rx) = sync_channel::<Work>(64);
                let baseline = bucket[0].0 == 0;
                let l = if baseline { listener.take().map(|l| Sink::new(l, own_thread)) } else { None };
                let batches = Batches { rx, spare: spare_tx.clone(), feedback: if baseline { feedback_tx.take() } else { None } };
                let handle = spawn_named(format!("bn-timing-{k}"), move || worker(bucket, l, batches));
                Worker { tx, handle }
            })
            .collect();
        Self { workers, instructions: 0, spare, feedback: feedback.then_some(feedback_rx) }
    }

    /// The baseline's batch cycles that came back since the last call.
    pub fn take_feedback(&self, mut f: impl FnMut(BatchCycles)) {
        if let Some(rx) = &self.feedback {
            while let Ok(b) = rx.try_recv() {
                f(b);
            }
        }
    }

    /// An empty record buffer with room for `capacity` records: one the workers
    /// are done with if there is one. Reuse keeps the producer writing into
    /// memory that is already mapped and cached instead of fresh allocations.
    pub fn buffer(&self, capacity: usize) -> Vec<DynRecord> {
        self.spare.try_recv().unwrap_or_else(|_| Vec::with_capacity(capacity))
    }

    /// Feeds one batch to every variant.
    pub fn feed(&mut self, batch: Batch) {
        self.instructions += batch.records.len() as u64;
        let batch = Arc::new(batch);
        for w in &self.workers {
            // a worker only stops early by panicking; finish() reports that
            let _ = w.tx.send(batch.clone());
        }
    }

    /// Closes the stream; returns the outcome of every variant (index order) and the listener.
    pub fn finish(self) -> (Vec<VariantOutcome>, L) {
        let mut all: Vec<(usize, VariantOutcome)> = Vec::new();
        let mut listener = None;
        for w in self.workers {
            drop(w.tx);
            let (outcomes, l) = w.handle.join().expect("timing worker panicked");
            all.extend(outcomes);
            if let Some(sink) = l {
                listener = Some(sink.finish());
            }
        }
        all.sort_by_key(|r| r.0);
        (all.into_iter().map(|r| r.1).collect(), listener.expect("baseline listener"))
    }

    pub fn instructions(&self) -> u64 {
        self.instructions
    }
}

/// A thread with a name (`top -H` and profiles then tell the workers apart).
fn spawn_named<T: Send + 'static>(name: String, f: impl FnOnce() -> T + Send + 'static) -> JoinHandle<T> {
    std::thread::Builder::new().name(name).spawn(f).expect("cannot start a thread")
}

/// Times one batch on a variant nobody listens to.
fn step_unobserved(core: &mut Core, batch: &Batch, table: &[InstrTiming]) {
    for r in &batch.records {
        core.step_fast(&table[r.id as usize], &r.info);
    }
}

/// Times one batch on the baseline and hands the stage times to the listener.
fn step_baseline<L: Listener + Send + 'static>(core: &mut Core, sink: &mut Sink<L>, batch: &Batch, table: &[InstrTiming]) {
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
            }
            let mut details = StageDetails::default();
            for r in &records[detailed_from..] {
                let t = core.step(&table[r.id as usize], &r.info, &mut details);
                l.on_detailed(r.id as usize, &t, &details);
            }
        }
        Sink::Thread(lt) => {
            let mut times = lt.buffer();
            times.reserve(batch.records.len());
            for r in &batch.records {
                let mut details = StageDetails::default();
                let t = core.step(&table[r.id as usize], &r.info, &mut details);
                times.push((r.id, t, details));
            }
            // the listener thread only stops by panicking; finish() reports that
            let _ = lt.tx.send(times);
        }
    }
}

/// A worker's end of the stream: batches in, emptied record buffers back.
struct Batches {
    rx: Receiver<Work>,
    spare: SyncSender<Vec<DynRecord>>,
    /// Where the baseline's worker reports its batch cycles (when asked to).
    feedback: Option<Sender<BatchCycles>>,
}

impl Batches {
    /// Gives the records buffer back to the producer once every worker is done with the batch.
    fn done(&self, batch: Work) {
        if let Some(b) = Arc::into_inner(batch) {
            let mut records = b.records;
            records.clear();
            let _ = self.spare.try_send(records);
        }
    }
}

fn sampled_worker<L: Listener + Send + 'static>(
    configs: Vec<CoreConfig>,
    mut sink: Option<Sink<L>>,
    batches: Batches,
    plan: Sampling,
) -> (Vec<(usize, VariantOutcome)>, Option<Sink<L>>) {
    let mut configs = configs.into_iter();
    let mut base = Core::new(configs.next().expect("baseline"));
    let variants: Vec<CoreConfig> = configs.collect();
    // cycles summed over the windows: the baseline's and each variant's
    let mut base_sum = 0.0;
    let mut sums = vec![0.0; variants.len()];
    let mut open: Option<(f64, Vec<Core>)> = None;
    let close = |open: &mut Option<(f64, Vec<Core>)>, base: &Core, base_sum: &mut f64, sums: &mut [f64]| {
        if let Some((start, cores)) = open.take() {
            *base_sum += base.cycles() - start;
            for (sum, c) in sums.iter_mut().zip(&cores) {
                *sum += c.cycles() - start;
            }
        }
    };
    let mut table: Vec<InstrTiming> = Vec::new();
    let (mut n, mut k) = (0u64, 0u64);
    while let Ok(batch) = batches.rx.recv() {
        table.extend(batch.new_instructions.iter().cloned());
        if k % plan.period == 0 && !variants.is_empty() {
            open = Some((base.cycles(), variants.iter().map(|c| base.fork(c.clone())).collect()));
        }
        match &mut sink {
            Some(sink) => step_baseline(&mut base, sink, &batch, &table),
            None => step_unobserved(&mut base, &batch, &table),
        }
        if let Some((_, cores)) = &mut open {
            for core in cores {
                step_unobserved(core, &batch, &table);
            }
        }
        k += 1;
        n += batch.records.len() as u64;
        if k % plan.period == plan.window % plan.period {
            close(&mut open, &base, &mut base_sum, &mut sums);
        }
        batches.done(batch);
    }
    close(&mut open, &base, &mut base_sum, &mut sums);
    let total = base.cycles();
    let outcome = |cycles| VariantOutcome { cycles, instructions: n, prefix_cycles: None, units: Vec::new() };
    let mut outcomes = vec![(0, outcome(total))];
    for (i, sum) in sums.into_iter().enumerate() {
        let cycles = if base_sum > 0.0 { total * sum / base_sum } else { total };
        outcomes.push((i + 1, outcome(cycles)));
    }
    (outcomes, sink)
}

fn worker<L: Listener + Send + 'static>(
    variants: Vec<(usize, CoreConfig)>,
    mut listener: Option<Sink<L>>,
    batches: Batches,
) -> (Vec<(usize, VariantOutcome)>, Option<Sink<L>>) {
    let mut cores: Vec<(usize, Core)> = variants.into_iter().map(|(i, c)| (i, Core::new(c))).collect();
    // a sampled run: each variant's cycles at its first window, and per measured unit
    let mut prefix: Option<Vec<f64>> = None;
    let mut units: Vec<Vec<f64>> = vec![Vec::new(); cores.len()];
    let mut table: Vec<InstrTiming> = Vec::new();
    let mut n = 0u64;
    while let Ok(batch) = batches.rx.recv() {
        table.extend(batch.new_instructions.iter().cloned());
        if batch.part != BatchPart::Whole && prefix.is_none() {
            prefix = Some(cores.iter().map(|(_, c)| c.cycles()).collect());
        }
        let unit = matches!(batch.part, BatchPart::Unit { .. });
        for (k, (i, core)) in cores.iter_mut().enumerate() {
            let before = core.cycles();
            match (&mut listener, *i) {
                (Some(sink), 0) => step_baseline(core, sink, &batch, &table),
                _ => step_unobserved(core, &batch, &table),
            }
            let cycles = core.cycles() - before;
            if unit {
                units[k].push(cycles);
            }
            if let (0, Some(tx), false) = (*i, &batches.feedback, batch.part == BatchPart::WarmUp) {
                let _ = tx.send(BatchCycles { part: batch.part, cycles });
            }
        }
        n += batch.records.len() as u64;
        batches.done(batch);
    }
    let outcomes = cores
        .into_iter()
        .zip(units)
        .enumerate()
        .map(|(k, ((i, c), units))| {
            (i, VariantOutcome { cycles: c.cycles(), instructions: n, prefix_cycles: prefix.as_ref().map(|p| p[k]), units })
        })
        .collect();
    (outcomes, listener)
}
