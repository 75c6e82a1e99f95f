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
//! timing instead of adding to it. An inline engine times every variant on
//! the caller's thread instead (a loop's short runs, and measurements of the
//! model's own speed).

use crate::sink::Sink;
use crate::worker::{SampledTiming, Snapshots, Timing};
pub use crate::records::{DynRecord, RecordSlice, Records};
use bottlenose_timing::{BatchPart, Core, CoreConfig, InstrTiming, Listener};
use std::collections::VecDeque;
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// A chunk of the stream plus the static instructions first seen in it.
#[derive(Default)]
pub struct Batch {
    pub new_instructions: Vec<InstrTiming>,
    pub records: Records,
    /// What the batch is to a sampled run (SMARTS); `Whole` when timed in full.
    pub part: BatchPart,
    /// Record the commit cycle of the batch's last record (a loop's iteration
    /// end) in every variant's [`VariantOutcome::marks`].
    pub mark_end: bool,
    /// What the variants beside the baseline do with the batch.
    pub variants: VariantsTime,
    /// A batch of a sampled run's exact prefix, given after the run's windows
    /// (the producer kept it), and which cores time it.
    pub late_prefix: LatePrefix,
}

/// Which cores time a batch of a sampled run's exact prefix given after its
/// windows, and how: each on a fresh core of its own configuration, apart
/// from the state its windows left, either the whole prefix (its cycles there
/// are the variant's [`VariantOutcome::exact_prefix`]) or the units of a
/// sub-sample of it ([`VariantOutcome::prefix_units`]). The baseline timed the
/// prefix as it came.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LatePrefix {
    /// Not a late prefix: timed as `part` and `variants` say.
    #[default]
    No,
    /// Every core of the engine (an idealized stream's, whose baseline is the run's).
    EveryCore,
    /// The one variant of this index.
    Variant(usize),
    /// The warm-up of a unit of the prefix's sub-sample: every core of the
    /// engine, the baseline's included, starts afresh in its own
    /// configuration and times the batch (the variants' forks of the baseline
    /// are gone with the prefix: each pair starts from the same cold pipeline).
    SampleWarmUp,
    /// The unit after it: its cycles on each core go to
    /// [`VariantOutcome::prefix_units`], the baseline's with them.
    SampleUnit,
}

impl LatePrefix {
    /// Whether the variant of index `variant` times the whole prefix.
    pub fn whole_on(self, variant: usize) -> bool {
        self == LatePrefix::EveryCore || self == LatePrefix::Variant(variant)
    }
}

/// What the variants beside the baseline (variant 0) do with a batch: a
/// sampled run's variants time only a sub-sample of its windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VariantsTime {
    /// Time it as the baseline does (its `part` of the run).
    #[default]
    Same,
    /// Skip it: the baseline (and its listener) only. Workers without the
    /// baseline get the batch only when it brings new static instructions
    /// (their tables must stay complete).
    Skip,
    /// The variants only: the baseline (and its listener) took the batch
    /// before. A sampled run's exact prefix goes to the baseline alone, its
    /// records kept; a run that ends in it gives them to the variants then.
    Only,
    /// A unit of the baseline's just before one of the variants' sub-sample:
    /// the variants skip it (each of their units starts from a fork of the
    /// baseline's core); an idealized stream's engine, fed it as its own
    /// warm-up, times it as one.
    WarmUp,
}

#[derive(Debug, Clone, Default)]
pub struct VariantOutcome {
    pub cycles: f64,
    pub instructions: u64,
    /// A sampled run: the cycles when its first window began (the exact
    /// prefix's), and the cycles of each measured unit, in stream order.
    pub prefix_cycles: Option<f64>,
    pub units: Vec<f64>,
    /// The commit cycle of the last record of each batch with `mark_end`, in stream order.
    pub marks: Vec<f64>,
    /// A sampled run whose exact prefix the variant timed after the windows
    /// ([`Batch::late_prefix`]): its own cycles over the prefix.
    pub exact_prefix: Option<f64>,
    /// With `exact_prefix`: those cycles by static instruction (each charged
    /// what its commit moved the last commit on); empty without.
    pub exact_prefix_by_instruction: Vec<f64>,
    /// A sampled run's units of its prefix's sub-sample ([`LatePrefix::SampleUnit`]):
    /// the cycles of each, in order.
    pub prefix_units: Vec<f64>,
    /// The variance of `prefix_cycles` when a sampled run estimated it from
    /// `prefix_units` (0 when timed, or the baseline's).
    pub prefix_variance: f64,
    /// A sampled run's estimate of the variant's cycles on code no unit
    /// measured, priced (its error unknown: the analysis's code-mix
    /// estimator); `None` when not estimated apart.
    pub priced: Option<f64>,
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
/// decoding, caches and predictors) overlaps with timing it, or inline. The
/// first worker also runs the baseline (variant 0) with the caller's listener.
pub struct VariantEngine<L: Listener + Send + 'static> {
    workers: Vec<Worker<L>>,
    instructions: u64,
    /// What comes back to the producer (see [`Returns`]).
    returns: Returns,
    /// An inline engine's end of `returns.spare`.
    spare_tx: Option<SyncSender<Records>>,
}

/// What comes back from the timing workers to whoever produces the batches:
/// emptied record buffers, and (with [`VariantEngine::with_feedback`]) the
/// baseline's cycles batch by batch. A source that fills batches for an engine
/// it does not hold takes them with [`VariantEngine::take_returns`].
pub struct Returns {
    spare: Receiver<Records>,
    /// Emptied buffers in the order they came back, oldest first.
    cooling: VecDeque<Records>,
    feedback: Option<Receiver<BatchCycles>>,
}

impl Returns {
    fn new(spare: Receiver<Records>, feedback: Option<Receiver<BatchCycles>>) -> Self {
        Returns { spare, cooling: VecDeque::new(), feedback }
    }

    /// An empty record buffer with room for `capacity` records: one the workers
    /// were done with [`COOLING_BUFFERS`] batches ago if there is one. Reuse keeps
    /// the producer writing into memory that is mapped and in the shared cache
    /// instead of fresh allocations; the delay keeps it from writing the lines the
    /// timing core has just read (see [`COOLING_BUFFERS`]).
    pub fn buffer(&mut self, capacity: usize) -> Records {
        while let Ok(r) = self.spare.try_recv() {
            self.cooling.push_back(r);
        }
        let cooled = self.cooling.len() > COOLING_BUFFERS;
        cooled.then(|| self.cooling.pop_front()).flatten().unwrap_or_else(|| Records::with_capacity(capacity))
    }

    /// The baseline's batch cycles that came back since the last call.
    pub fn take_feedback(&self, mut f: impl FnMut(BatchCycles)) {
        if let Some(rx) = &self.feedback {
            while let Ok(b) = rx.try_recv() {
                f(b);
            }
        }
    }
}

/// Batches queued for a worker before the producer waits. Few: a batch of records was
/// about 300 KB (unpacked), and 64 queued (the producer runs ahead of the timing model) made the
/// producer write each record into memory last touched ~19 MB ago, out of every cache.
const QUEUED_BATCHES: usize = 4;
/// How many emptied record buffers the channel back to the producer holds (more are
/// freed): every queued one, those being filled and timed, and the cooling ones.
const SPARE_BUFFERS: usize = QUEUED_BATCHES + 4 + COOLING_BUFFERS;
/// Emptied record buffers wait this many batches before the producer writes into
/// them again (about 1 MB of records). A buffer reused as soon as it came back was
/// still in the timing core's caches, and each line the producer wrote had to be
/// taken from there: in `perf annotate` of threaded replays of speed.c, the store after
/// the producer's first writes in `Front::fill` took 4-43 % of its samples, 3-5 % with a
/// delay of 8 to 48 batches (bench/notes/speed.md, session 24).
const COOLING_BUFFERS: usize = 16;

type Finished<L> = (Vec<(usize, VariantOutcome)>, Option<Sink<L>>);

enum Worker<L> {
    /// `baseline`: whether this worker times variant 0.
    Thread { tx: SyncSender<Work>, handle: JoinHandle<Finished<L>>, baseline: bool },
    /// Timed by the caller's thread in [`VariantEngine::feed`].
    Inline(Timing<L>),
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
        let (tx, rx) = sync_channel::<Work>(QUEUED_BATCHES);
        let (spare_tx, spare) = sync_channel(SPARE_BUFFERS);
        let batches = Batches { rx, spare: spare_tx };
        let handle = spawn_named("bn-timing".into(), move || {
            let mut timing = SampledTiming::new(configs, Some(sink), plan);
            batches.each(|b| timing.take(b));
            timing.finish()
        });
        Self { workers: vec![Worker::Thread { tx, handle, baseline: true }], instructions: 0, returns: Returns::new(spare, None), spare_tx: None }
    }

    /// `configs[0]` is the baseline. The caller's thread times every variant as
    /// each batch is fed, with the listener inline.
    pub fn inline(configs: Vec<CoreConfig>, listener: L) -> Self {
        assert!(!configs.is_empty(), "at least the baseline variant");
        let (spare_tx, spare) = sync_channel(SPARE_BUFFERS);
        let timing = Timing::new(configs.into_iter().enumerate().collect(), Some(Sink::new(listener, Some(false))), None, Snapshots::Send(Vec::new()));
        Self { workers: vec![Worker::Inline(timing)], instructions: 0, returns: Returns::new(spare, None), spare_tx: Some(spare_tx) }
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
        // the baseline's worker (the first) sends its core to the others at each of the variants' units
        let (senders, mut receivers): (Vec<_>, Vec<_>) = (1..buckets.len()).map(|_| channel::<Arc<Core>>()).unzip();
        let mut senders = Some(senders);
        let workers = buckets
            .into_iter()
            .enumerate()
            .map(|(k, bucket)| {
                let (tx, rx) = sync_channel::<Work>(QUEUED_BATCHES);
                let baseline = bucket[0].0 == 0;
                let l = if baseline { listener.take().map(|l| Sink::new(l, own_thread)) } else { None };
                let batches = Batches { rx, spare: spare_tx.clone() };
                let feedback = if baseline { feedback_tx.take() } else { None };
                let snapshots = if baseline { Snapshots::Send(senders.take().unwrap_or_default()) } else { Snapshots::Receive(receivers.remove(0)) };
                let handle = spawn_named(format!("bn-timing-{k}"), move || {
                    let mut timing = Timing::new(bucket, l, feedback, snapshots);
                    batches.each(|b| timing.take(b));
                    timing.finish()
                });
                Worker::Thread { tx, handle, baseline }
            })
            .collect();
        Self { workers, instructions: 0, returns: Returns::new(spare, feedback.then_some(feedback_rx)), spare_tx: None }
    }

    /// An empty record buffer (see [`Returns::buffer`]).
    pub fn buffer(&mut self, capacity: usize) -> Records {
        self.returns.buffer(capacity)
    }

    /// Hands what comes back from the workers to the producer of the batches;
    /// the engine's own [`VariantEngine::buffer`] then returns no used buffer.
    pub fn take_returns(&mut self) -> Returns {
        let (_, spare) = sync_channel(0);
        std::mem::replace(&mut self.returns, Returns::new(spare, None))
    }

    /// Feeds one batch to every variant (see [`Batch::variants`]).
    pub fn feed(&mut self, batch: Batch) {
        self.feed_shared(Arc::new(batch));
    }

    /// Feeds one batch that the producer may feed again (a loop's repeated iterations).
    pub fn feed_shared(&mut self, batch: Arc<Batch>) {
        self.instructions += batch.records.len() as u64;
        let table_only = batch.variants == VariantsTime::Skip && batch.new_instructions.is_empty();
        for w in &mut self.workers {
            match w {
                // a worker only stops early by panicking; finish() reports that
                Worker::Thread { tx, baseline, .. } => {
                    if table_only && !*baseline {
                        continue;
                    }
                    let _ = tx.send(batch.clone());
                }
                Worker::Inline(timing) => timing.take(&batch),
            }
        }
        if let Some(spare) = &self.spare_tx {
            recycle(spare, batch);
        }
    }

    /// Closes the stream; returns the outcome of every variant (index order) and the listener.
    pub fn finish(self) -> (Vec<VariantOutcome>, L) {
        let mut all: Vec<(usize, VariantOutcome)> = Vec::new();
        let mut listener = None;
        for w in self.workers {
            let (outcomes, l) = match w {
                Worker::Thread { tx, handle, .. } => {
                    drop(tx);
                    handle.join().expect("timing worker panicked")
                }
                Worker::Inline(timing) => timing.finish(),
            };
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
pub(crate) fn spawn_named<T: Send + 'static>(name: String, f: impl FnOnce() -> T + Send + 'static) -> JoinHandle<T> {
    std::thread::Builder::new().name(name).spawn(f).expect("cannot start a thread")
}

/// A worker's end of the stream: batches in, emptied record buffers back.
struct Batches {
    rx: Receiver<Work>,
    spare: SyncSender<Records>,
}

impl Batches {
    /// Hands every batch to `take`, then its records buffer back to the producer.
    fn each(self, mut take: impl FnMut(&Batch)) {
        while let Ok(batch) = self.rx.recv() {
            take(&batch);
            recycle(&self.spare, batch);
        }
    }
}

/// Gives a batch's records buffer back to the producer once every worker is done with it.
fn recycle(spare: &SyncSender<Records>, batch: Work) {
    if let Some(b) = Arc::into_inner(batch) {
        let mut records = b.records;
        records.clear();
        let _ = spare.try_send(records);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_timing::DynInfo;

    /// A buffer of `n` records (its length tells it apart).
    fn marked(n: usize) -> Records {
        let mut r = Records::with_capacity(n);
        for i in 0..n {
            r.push(i as u32, &DynInfo::default());
        }
        r
    }

    #[test]
    fn emptied_buffers_are_reused_oldest_first_after_cooling() {
        let (tx, spare) = sync_channel(SPARE_BUFFERS);
        let mut returns = Returns::new(spare, None);
        // the first buffers back are kept cooling: the producer gets fresh ones
        for n in 1..=COOLING_BUFFERS {
            tx.send(marked(n)).unwrap();
        }
        assert_eq!(returns.buffer(8).len(), 0, "a buffer just given back was reused at once");
        // one more than the cooling ones: the oldest comes back, then the next oldest
        tx.send(marked(COOLING_BUFFERS + 1)).unwrap();
        tx.send(marked(COOLING_BUFFERS + 2)).unwrap();
        assert_eq!(returns.buffer(8).len(), 1);
        assert_eq!(returns.buffer(8).len(), 2);
        assert_eq!(returns.buffer(8).len(), 0, "fewer than the cooling ones wait: a fresh buffer");
    }
}
