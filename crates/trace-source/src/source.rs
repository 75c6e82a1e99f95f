//! A traced process as a [`Source`] of batches: the engine pulls
//! ([`TraceSource::next_batch`]) and the source reads the trace until a batch
//! of the baseline stream is full, each executed instruction going through the
//! region of interest, the static-instruction cache and the functional layer
//! ([`Producer`]). Between batches it reports progress, watches the interrupt
//! flag and stops the process once the run is over.

use crate::front::{Executed, Front};
use crate::mappings::{MappingLog, WithMappings};
use crate::producer::{IdealStream, Producer};
use crate::roi::{Roi, RoiPlacement, RoiTracker};
use crate::ending::{ending, Ending, Stopper};
use crate::statics::StaticInstruction;
use crate::strings::StringCollapser;
use bottlenose_functional::{FunctionalCounts, FunctionalLayer, Idealization, Prefetcher};
use bottlenose_machine::Machine;
use bottlenose_simulate::engine::{Batch, Records, Returns, VariantsTime};
use bottlenose_simulate::Source;
use bottlenose_timing::{BatchPart, UnknownForm};
use bottlenose_trace::{ExecutedInsn, GuestExit, InsnSink, InstructionStream, ProcessEvents, ProcessTrace, QemuError, Reading, Resume, StreamSummary};
use bottlenose_views::SharedFacts;
use std::collections::VecDeque;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A sampled run's schedule, as the trace source asks it what to do with the
/// instructions to come (the sampling controller of `bottlenose-analysis`
/// implements it). Asked once per batch, never per instruction.
pub trait Schedule {
    /// What the live estimate says (shown with the progress).
    type Estimate;
    /// What the next batch is, `simulated` instructions into the timed
    /// stream: a part of the run to time, or `None`: fast-forward.
    fn next_batch(&mut self, simulated: u64) -> Option<BatchPart>;
    /// What the variants do with the batch just planned.
    fn variants_time(&self) -> VariantsTime;
    /// The batch just planned held `instructions` (the last one may be short).
    fn end_batch(&mut self, instructions: u64, part: Option<BatchPart>);
    /// The records of a batch about to be timed as `part` (before the engine gets it).
    fn note_batch(&mut self, part: BatchPart, records: &Records);
    /// The baseline's cycles of a batch timed in full or of a unit (engine feedback).
    fn on_cycles(&mut self, part: BatchPart, cycles: f64);
    /// Instructions fast-forwarded past the batch they belonged to (a skip
    /// that ran into a window): they count in the current stratum.
    fn extend_stratum(&mut self, instructions: u64);
    /// Whether sampling has begun (the exact prefix is over).
    fn sampling(&self) -> bool;
    /// Instructions timed in full before the first window.
    fn exact_below(&self) -> u64;
    /// Functional warm-up before each window when QEMU fast-forwards between
    /// windows (`None`: every instruction goes through the functional layer).
    fn warming_window(&self) -> Option<u64>;
    /// Batches of a window (detailed warm-up and unit).
    fn window_batches(&self) -> u64;
    /// Fast-forward batches after the current one (at most `limit`), the
    /// current one ending `simulated` instructions into the run, and whether a
    /// window follows them.
    fn fast_forward_ahead(&self, simulated: u64, limit: u64) -> (u64, bool);
    /// The estimate so far, if there is one yet.
    fn live(&self, simulated: u64) -> Option<Self::Estimate>;
}

/// The schedule of a run that times every instruction: there is no value of
/// it (a source of an exact run has `None::<Exact>`).
pub enum Exact {}

impl Schedule for Exact {
    type Estimate = ();
    fn next_batch(&mut self, _: u64) -> Option<BatchPart> {
        match *self {}
    }
    fn variants_time(&self) -> VariantsTime {
        match *self {}
    }
    fn end_batch(&mut self, _: u64, _: Option<BatchPart>) {
        match *self {}
    }
    fn note_batch(&mut self, _: BatchPart, _: &Records) {
        match *self {}
    }
    fn on_cycles(&mut self, _: BatchPart, _: f64) {
        match *self {}
    }
    fn extend_stratum(&mut self, _: u64) {
        match *self {}
    }
    fn sampling(&self) -> bool {
        match *self {}
    }
    fn exact_below(&self) -> u64 {
        match *self {}
    }
    fn warming_window(&self) -> Option<u64> {
        match *self {}
    }
    fn window_batches(&self) -> u64 {
        match *self {}
    }
    fn fast_forward_ahead(&self, _: u64, _: u64) -> (u64, bool) {
        match *self {}
    }
    fn live(&self, _: u64) -> Option<()> {
        match *self {}
    }
}

/// What a trace source is asked to do besides reading the trace; `E` is the
/// live estimate of a sampled run ([`Schedule::Estimate`]).
pub struct TraceOptions<E> {
    pub roi: Roi,
    /// Keep caches and predictors warm outside the region of interest.
    pub warm: bool,
    pub max_instructions: Option<NonZeroU64>,
    pub roi_placement: Option<RoiPlacement>,
    pub idealization: Idealization,
    pub prefetcher: Prefetcher,
    /// Set by a signal handler: stop the process and end the stream.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Called about every million executed instructions with (executed, simulated).
    pub progress: Option<Box<dyn FnMut(u64, u64) + Send>>,
    /// Called with the progress calls while a sampled run has an estimate: (simulated, estimate).
    pub on_estimate: Option<Box<dyn FnMut(u64, E) + Send>>,
    /// The engine's variant that is an idealization (the 1-cycle ALU): a
    /// sampled run times its exact prefix after the windows, as it does the
    /// idealized streams'.
    pub late_prefix_variant: Option<usize>,
}

impl<E> Default for TraceOptions<E> {
    /// What `run` does without options: the whole program, caches and predictors
    /// warm, no instruction limit, nothing idealized, the machine's prefetchers.
    fn default() -> Self {
        TraceOptions {
            roi: Roi::Whole,
            warm: true,
            max_instructions: None,
            roi_placement: None,
            idealization: Default::default(),
            prefetcher: Default::default(),
            interrupt: None,
            progress: None,
            on_estimate: None,
            late_prefix_variant: None,
        }
    }
}

/// The trace's instructions into the producer, with progress, the interrupt
/// and fast-forward's pauses around it.
struct Consumer<'m, S: Schedule> {
    pipe: Producer<'m, S>,
    stopper: Stopper,
    interrupted: bool,
    interrupt: Option<Arc<AtomicBool>>,
    progress: Option<Box<dyn FnMut(u64, u64) + Send>>,
    on_estimate: Option<Box<dyn FnMut(u64, S::Estimate) + Send>>,
    next_progress: u64,
}

impl<S: Schedule> Consumer<'_, S> {
    /// Progress, the live estimate and the interrupt, every 2^20 instructions.
    #[inline(always)]
    fn after(&mut self) {
        let pipe = &mut self.pipe;
        if pipe.executed >= self.next_progress {
            self.next_progress = (pipe.executed >> 20 << 20) + (1 << 20);
            if let Some(p) = &mut self.progress {
                p(pipe.executed, pipe.simulated);
            }
            if let (Some(f), Some(live)) = (&mut self.on_estimate, pipe.sampler.as_ref().and_then(|s| s.live(pipe.simulated))) {
                f(pipe.simulated, live);
            }
            if self.interrupt.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
                self.interrupted = true;
                pipe.stopped = true;
            }
        }
        if pipe.stopped {
            self.stopper.stop();
        }
    }
}

impl<S: Schedule> InsnSink for Consumer<'_, S> {
    #[inline(always)]
    fn insn(&mut self, insn: &ExecutedInsn<'_>) {
        self.pipe.on_insn(insn);
        self.after();
    }

    fn pause(&mut self) -> Resume {
        self.pipe.on_pause()
    }

    fn skipped(&mut self, insn: &ExecutedInsn<'_>, executions: u64) {
        self.pipe.on_skipped(insn, executions);
        self.after();
    }

    /// A full batch is waiting: the engine takes it before the trace is read on.
    #[inline(always)]
    fn yield_now(&self) -> bool {
        !self.pipe.ready.is_empty()
    }
}

/// How reading a trace ended: the process's exit (`None` for a child, whose
/// end is in its events) and what the stream held, or the error.
type Ended = Result<(Option<GuestExit>, StreamSummary), QemuError>;

/// One traced process's executed instructions as batches for the engine.
pub struct TraceSource<'m, S: Schedule> {
    trace: Option<ProcessTrace>,
    stream: WithMappings<InstructionStream<Consumer<'m, S>>>,
    ended: Option<Ended>,
}

/// A trace source at its end: what was simulated, how the process ended, and
/// what the producer kept (the static instructions, the functional layer, the
/// idealized streams' engines, the schedule).
pub struct TraceEnd<S> {
    pub executed: u64,
    pub simulated: u64,
    /// The stream ended with the process's END and the run did not stop it.
    pub complete: bool,
    pub interrupted: bool,
    /// The run stopped the process (or stopped listening to it).
    pub killed: bool,
    pub exit: GuestExit,
    pub ending: Ending,
    pub events: ProcessEvents,
    pub functional: FunctionalLayer,
    pub ideal: Vec<IdealStream>,
    pub roi: RoiTracker,
    pub statics: Vec<StaticInstruction>,
    pub unknown: Vec<UnknownForm>,
    /// The static instruction QEMU reported last (the faulting one when the guest dies of SIGILL).
    pub last_index: u32,
    /// Per static instruction: how many of `maps` were known when it was first seen.
    pub maps_known: Vec<u32>,
    pub maps: MappingLog,
    pub sampler: Option<S>,
    /// Executions and mispredictions the timing model did not see, by static index.
    pub untimed: Vec<(u64, u64)>,
}

impl<'m, S: Schedule> TraceSource<'m, S> {
    /// `returns` come back from the engine the batches go to; `ideal` are the
    /// idealized streams, fed here with masked copies of the batches they time;
    /// `facts` gets the static facts of each new instruction (for the views).
    pub fn new(
        machine: &'m Machine,
        trace: ProcessTrace,
        opts: TraceOptions<S::Estimate>,
        returns: Returns,
        ideal: Vec<IdealStream>,
        facts: SharedFacts,
        sampler: Option<S>,
    ) -> Self {
        let front = Front::new(machine, opts.idealization, opts.prefetcher);
        let mut pipe = Producer {
            machine,
            returns,
            ready: VecDeque::with_capacity(2),
            front,
            ideal,
            facts,
            roi: RoiTracker::new(opts.roi),
            warm: opts.warm,
            was_in_roi: false,
            roi_counts: FunctionalCounts::default(),
            by_static_id: Vec::new(),
            statics: Vec::new(),
            front_facts: Vec::new(),
            unknown: Vec::new(),
            strings: StringCollapser::new(),
            batch: Batch::default(),
            executed: 0,
            simulated: 0,
            limit: opts.max_instructions.map_or(u64::MAX, NonZeroU64::get),
            stopped: false,
            last_index: u32::MAX,
            maps: MappingLog::default(),
            maps_seen: 0,
            roi_placement: opts.roi_placement,
            maps_known: Vec::new(),
            sampler,
            part: Some(BatchPart::Whole),
            fast_forwarded: 0,
            variants: VariantsTime::Same,
            untimed: Vec::new(),
            kept: Vec::new(),
            late_prefix_variant: opts.late_prefix_variant,
            kept_bubbles: Vec::new(),
            keeping: false,
        };
        let maps = pipe.maps.clone();
        if let Some(s) = &mut pipe.sampler {
            pipe.part = s.next_batch(0);
            pipe.variants = s.variants_time();
            pipe.keeping = pipe.part == Some(BatchPart::Whole) && pipe.variants == VariantsTime::Skip;
        }
        let consumer = Consumer {
            pipe,
            stopper: Stopper::of(&trace),
            interrupted: false,
            interrupt: opts.interrupt,
            progress: opts.progress,
            on_estimate: opts.on_estimate,
            next_progress: 1 << 20,
        };
        let stream = WithMappings { inner: InstructionStream::new(consumer), log: maps };
        TraceSource { trace: Some(trace), stream, ended: None }
    }

    /// The functional layer's description of its prefetcher (what ran, not the option's name).
    pub fn prefetcher_description(&self) -> String {
        self.stream.inner.sink().pipe.front.functional.caches.prefetcher_description()
    }

    /// The stream is over (read to its end, or broken): wait for the process,
    /// then time what the trace left pending.
    #[cold]
    fn end(&mut self, read: Result<(), QemuError>) {
        let ended = self.trace.take().expect("a trace is read until it ends").finish(read);
        let complete = ended.as_ref().is_ok_and(|(_, s)| s.complete);
        if ended.is_ok() {
            if !complete {
                self.stream.inner.finish();
            }
            let c = self.stream.inner.sink_mut();
            if c.interrupt.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
                c.interrupted = true;
            }
            let pipe = &mut c.pipe;
            // a string instruction cut off by the end of the trace ran that far
            for run in pipe.strings.finish() {
                pipe.step(run.index, run.vcpu, Executed::String(&run));
            }
            if pipe.part.is_none() && pipe.fast_forwarded > 0 {
                if let Some(s) = &mut pipe.sampler {
                    s.end_batch(pipe.fast_forwarded as u64, None); // cut off between windows
                }
            }
            pipe.flush();
            pipe.give_kept_to_variants();
        }
        self.ended = Some(ended);
    }

    /// The source's state once the engine has taken every batch; the error
    /// if the trace could not be read.
    pub fn finish(self) -> Result<TraceEnd<S>, QemuError> {
        let (exit, summary) = self.ended.expect("the engine takes every batch first")?;
        let WithMappings { inner, log } = self.stream;
        let events = inner.events().clone();
        let Consumer { pipe, stopper, interrupted, .. } = inner.into_inner();
        let exit = exit.unwrap_or(match events.exit_code {
            Some(c) => GuestExit::Code(c),
            None => GuestExit::Signal { signal: 0, core_dumped: false },
        });
        let limit_hit = pipe.simulated >= pipe.limit;
        let killed = stopper.stopped;
        let complete = summary.complete && !killed;
        let ending = ending(complete, interrupted, limit_hit, &events, &exit, &stopper);
        let mut pipe = pipe;
        if !pipe.was_in_roi {
            let counts = pipe.roi_counts;
            pipe.front.functional.restore_counts(counts); // after the region: not counted
        }
        let Producer { executed, simulated, front, ideal, roi, statics, unknown, last_index, maps_known, sampler, untimed, .. } = pipe;
        Ok(TraceEnd {
            executed,
            simulated,
            complete,
            interrupted,
            killed,
            exit,
            ending,
            events,
            functional: front.functional,
            ideal,
            roi,
            statics,
            unknown,
            last_index,
            maps_known,
            maps: log,
            sampler,
            untimed,
        })
    }
}

impl<S: Schedule> Source for TraceSource<'_, S> {
    fn next_batch(&mut self) -> Option<Arc<Batch>> {
        loop {
            if let Some(batch) = self.stream.inner.sink_mut().pipe.ready.pop_front() {
                return Some(Arc::new(batch));
            }
            let trace = self.trace.as_mut()?;
            match trace.read(&mut self.stream) {
                Ok(Reading::Yielded) => {}
                Ok(Reading::Ended) => self.end(Ok(())),
                Err(e) => self.end(Err(e)),
            }
        }
    }
}
