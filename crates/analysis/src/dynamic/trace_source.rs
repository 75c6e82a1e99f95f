//! A traced process as a [`Source`] of batches: the engine pulls
//! ([`TraceSource::next_batch`]) and the source reads the trace until a batch
//! of the baseline stream is full, each executed instruction going through the
//! region of interest, the static-instruction cache and the functional layer
//! ([`Producer`]). Between batches it reports progress, watches the interrupt
//! flag and stops the process once the run is over.

use super::front::{Executed, Front};
use super::pipeline::{IdealStream, Producer};
use super::roi::{Roi, RoiPlacement, RoiTracker};
use super::sampling::{LiveEstimate, Sampler};
use super::source::Stopper;
use super::strings::StringCollapser;
use super::symbolize::{MappingLog, WithMappings};
use bottlenose_functional::{FunctionalCounts, Idealization, Prefetcher};
use bottlenose_machine::Machine;
use bottlenose_simulate::engine::{Batch, Returns, VariantsTime};
use bottlenose_simulate::Source;
use bottlenose_timing::BatchPart;
use bottlenose_trace::{ExecutedInsn, GuestExit, InsnSink, InstructionStream, ProcessEvents, ProcessTrace, QemuError, Reading, Resume, StreamSummary};
use bottlenose_views::SharedFacts;
use std::collections::VecDeque;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What a trace source is asked to do besides reading the trace.
pub(super) struct TraceOptions {
    pub(super) roi: Roi,
    /// Keep caches and predictors warm outside the region of interest.
    pub(super) warm: bool,
    pub(super) max_instructions: Option<NonZeroU64>,
    pub(super) roi_placement: Option<RoiPlacement>,
    pub(super) idealization: Idealization,
    pub(super) prefetcher: Prefetcher,
    /// Set by a signal handler: stop the process and end the stream.
    pub(super) interrupt: Option<Arc<AtomicBool>>,
    /// Called about every million executed instructions with (executed, simulated).
    pub(super) progress: Option<Box<dyn FnMut(u64, u64) + Send>>,
    /// Called with the progress calls while a sampled run has an estimate: (simulated, estimate).
    pub(super) on_estimate: Option<Box<dyn FnMut(u64, LiveEstimate) + Send>>,
}

/// The trace's instructions into the producer, with progress, the interrupt
/// and fast-forward's pauses around it.
pub(super) struct Consumer<'m> {
    pub(super) pipe: Producer<'m>,
    pub(super) stopper: Stopper,
    pub(super) interrupted: bool,
    interrupt: Option<Arc<AtomicBool>>,
    progress: Option<Box<dyn FnMut(u64, u64) + Send>>,
    on_estimate: Option<Box<dyn FnMut(u64, LiveEstimate) + Send>>,
    next_progress: u64,
}

impl Consumer<'_> {
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

impl InsnSink for Consumer<'_> {
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
pub(super) struct TraceSource<'m> {
    trace: Option<ProcessTrace>,
    stream: WithMappings<InstructionStream<Consumer<'m>>>,
    ended: Option<Ended>,
}

/// A trace source at its end: the producer's state, and how the process ended.
pub(super) struct TraceEnd<'m> {
    pub(super) consumer: Consumer<'m>,
    pub(super) events: ProcessEvents,
    pub(super) exit: Option<GuestExit>,
    pub(super) summary: StreamSummary,
    pub(super) maps: MappingLog,
}

impl<'m> TraceSource<'m> {
    /// `returns` come back from the engine the batches go to; `ideal` are the
    /// idealized streams, fed here with masked copies of the batches they time;
    /// `facts` gets the static facts of each new instruction (for the views).
    pub(super) fn new(
        machine: &'m Machine,
        trace: ProcessTrace,
        opts: TraceOptions,
        returns: Returns,
        ideal: Vec<IdealStream>,
        facts: SharedFacts,
        sampler: Option<Sampler>,
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
        };
        let maps = pipe.maps.clone();
        if let Some(s) = &mut pipe.sampler {
            pipe.part = s.next_batch(0);
            pipe.variants = s.variants_time();
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
    pub(super) fn prefetcher_description(&self) -> String {
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
        }
        self.ended = Some(ended);
    }

    /// The source's state once the engine has taken every batch; the error
    /// if the trace could not be read.
    pub(super) fn finish(self) -> Result<TraceEnd<'m>, QemuError> {
        let (exit, summary) = self.ended.expect("the engine takes every batch first")?;
        let WithMappings { inner, log } = self.stream;
        let events = inner.events().clone();
        Ok(TraceEnd { consumer: inner.into_inner(), events, exit, summary, maps: log })
    }
}

impl Source for TraceSource<'_> {
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
