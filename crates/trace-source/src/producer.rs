//! One process's executed instructions through the region of interest, the
//! functional layer and into batches for the timing engines, exact or sampled:
//! the baseline's (handed out by the trace source), and each idealized
//! stream's (the baseline's records masked, fed to its own engine here).

use bottlenose_simulate::engine::{Batch, LatePrefix, Records, Returns, VariantEngine, VariantsTime};
use crate::front::{Executed, Front};
use crate::mappings::MappingLog;
use crate::roi::{RoiPlacement, RoiTracker};
use crate::statics::{FrontFacts, StaticInstruction};
use crate::strings::{Fed, StringCollapser};
use crate::source::Schedule;
use bottlenose_functional::{FunctionalCounts, FunctionalLayer};
use bottlenose_simulate::Ideal;
use bottlenose_views::SharedFacts;
use bottlenose_machine::Machine;
use bottlenose_trace::{ExecutedInsn, Resume};
use bottlenose_timing::{BatchPart, DynInfo, UnknownForm};
use std::collections::VecDeque;

/// Instructions per batch handed to the timing engines.
pub const BATCH: usize = 1 << 12;

/// An idealized stream: the baseline's records with `masks` applied, on timing core(s) of its own.
pub struct IdealStream {
    pub masks: Vec<Ideal>,
    /// The idealizations of each timing variant of the stream (variant 1, if any, adds the 1-cycle ALU).
    pub sets: Vec<Vec<Ideal>>,
    pub engine: VariantEngine<()>,
    pub batch: Batch,
}

/// Turns one process's executed instructions into batches.
pub(crate) struct Producer<'m, S> {
    pub(crate) machine: &'m Machine,
    /// Emptied record buffers and the baseline's cycles, back from the baseline's engine.
    pub(crate) returns: Returns,
    /// Filled batches of the baseline stream, in order, waiting to be handed out.
    pub(crate) ready: VecDeque<Batch>,
    pub(crate) front: Front,
    pub(crate) ideal: Vec<IdealStream>,
    pub(crate) facts: SharedFacts,
    pub(crate) roi: RoiTracker,
    pub(crate) warm: bool,
    /// Whether the previous instruction was in the region of interest.
    pub(crate) was_in_roi: bool,
    /// The functional layer's counters of the region so far, kept while the code
    /// around the region warms the caches and predictors without being counted.
    pub(crate) roi_counts: FunctionalCounts,
    /// static id (QEMU) -> index into `statics` (u32::MAX: not decoded yet)
    pub(crate) by_static_id: Vec<u32>,
    pub(crate) statics: Vec<StaticInstruction>,
    /// What the frontend reads of each, by the same index (hot: read per execution).
    pub(crate) front_facts: Vec<FrontFacts>,
    pub(crate) unknown: Vec<UnknownForm>,
    /// Repeated string instructions collapsed into one execution each.
    pub(crate) strings: StringCollapser,
    pub(crate) batch: Batch,
    pub(crate) executed: u64,
    pub(crate) simulated: u64,
    pub(crate) limit: u64,
    pub(crate) stopped: bool,
    /// The static instruction QEMU reported last (the faulting one when the guest dies of SIGILL).
    pub(crate) last_index: u32,
    /// The guest's mappings so far, and how many of them were looked at.
    pub(crate) maps: MappingLog,
    pub(crate) maps_seen: usize,
    pub(crate) roi_placement: Option<RoiPlacement>,
    /// Per static instruction: how many mappings were known when it was first seen.
    pub(crate) maps_known: Vec<u32>,
    /// A sampled run's schedule; the batch being filled is timed as `part`, or
    /// not at all (fast-forward: `None`), `fast_forwarded` instructions into it.
    pub(crate) sampler: Option<S>,
    pub(crate) part: Option<BatchPart>,
    pub(crate) fast_forwarded: usize,
    /// What the variants and idealized streams do with the batch being filled
    /// (a sampled run's sub-sample), fixed when the batch begins.
    pub(crate) variants: VariantsTime,
    /// Executions and mispredictions the timing model did not see, by static index.
    pub(crate) untimed: Vec<(u64, u64)>,
    /// A sampled run's exact prefix, which the baseline times and the variants
    /// wait on: its batches, kept while `keeping`, given to the variants and
    /// idealized streams at the end of the run. A run that ends in the prefix
    /// is then exact. One that sampled past it gives them to the idealized
    /// streams and to `late_prefix_variant` (the 1-cycle ALU) as a late prefix
    /// ([`Batch::late_prefix`]), so that the idealizations' prefix is timed
    /// rather than taken at their ratio over the windows: start-up code (the
    /// loader, first touches) misses in the caches and predictors far more
    /// than what follows, and in a run a few times the prefix's length the
    /// idealizations' gains there are much of the answer (a 5 M-instruction
    /// run: a perfect icache saved 0.0 % of the cycles at the windows' ratio,
    /// 11.6 % exact, 8.9 % so). The sensitivity variants, some forty cores,
    /// would each cost the prefix's length in detailed steps: they time a
    /// systematic sub-sample of [`PREFIX_UNITS`] of its batches instead, each
    /// after the batch before it as a warm-up, paired with the baseline's
    /// configuration timed the same way; so do the idealizations in a run
    /// more than [`EXACT_LATE_PREFIX_FACTOR`] times the prefix. Dropped once
    /// the run is [`LATE_PREFIX_RUN_FACTOR`] times the prefix.
    pub(crate) kept: Vec<KeptBatch>,
    /// The main engine's variant that is an idealization (the 1-cycle ALU).
    pub(crate) late_prefix_variant: Option<usize>,
    pub(crate) kept_bubbles: Vec<f32>,
    pub(crate) keeping: bool,
}

/// A run this many times its exact prefix or longer lets the kept prefix go:
/// the idealizations' prefix is then estimated at their ratio over the
/// windows. The prefix is then at most 1 % of the run's instructions, and
/// what timing it would change in an idealized total about that at most;
/// keeping it costs its records' memory (16 bytes an instruction, 80 for the
/// few kept whole: `Records`) until then.
pub const LATE_PREFIX_RUN_FACTOR: u64 = 100;
/// A run at most this many times its exact prefix has the idealizations time
/// all of it after the windows (the prefix is then at least a tenth of the
/// run, and start-up's misses much of their gains); a longer one gives them,
/// as the sensitivity variants, a sub-sample of it.
pub const EXACT_LATE_PREFIX_FACTOR: u64 = 10;
/// Units of the prefix's sub-sample: as many as the intervals' central-limit
/// bound asks of the windows' sub-sample, at most one batch in two (each
/// unit's warm-up is the batch before it). Past [`EXACT_LATE_PREFIX_FACTOR`]
/// times the prefix, fewer in proportion to its part of the run, down to
/// [`MIN_PREFIX_UNITS`]: its error weighs less there, and the variants'
/// prefix costs them as much whatever the run's length.
pub const PREFIX_UNITS: usize = 30;
pub const MIN_PREFIX_UNITS: usize = 10;

/// A batch of the exact prefix the variants have not timed yet: its records,
/// and per record the taken-branch bubble an idealized predictor adds back
/// (only with idealized streams).
pub(crate) struct KeptBatch {
    records: Records,
    bubbles: Vec<f32>,
}

impl<S: Schedule> Producer<'_, S> {
    #[inline]
    pub(crate) fn on_insn(&mut self, insn: &ExecutedInsn<'_>) {
        if self.stopped {
            return;
        }
        if let Some(run) = self.strings.interrupted(insn) {
            self.step(run.index, run.vcpu, Executed::String(&run));
        }
        let index = self.statics_index(insn);
        self.last_index = index as u32;
        if let Some(op) = self.front_facts[index].string_op {
            // QEMU reports every element: time the instruction once, when it is done
            if let Fed::Done(run) = self.strings.feed(insn, index, op.repeats()) {
                self.step(index, run.vcpu, Executed::String(&run));
            }
            return;
        }
        self.step(index, insn.vcpu, Executed::Plain(insn));
    }

    /// One executed instruction through the region of interest, the functional layer
    /// and into the batches.
    #[inline(always)]
    pub(crate) fn step(&mut self, index: usize, vcpu: u16, executed: Executed<'_, '_>) {
        if self.stopped {
            return;
        }
        self.executed += 1;
        let stat = &self.front_facts[index];
        let in_roi = self.roi.step(&self.statics[index].inst, vcpu);
        if in_roi != self.was_in_roi {
            roi_boundary(&mut self.front.functional, &mut self.roi_counts, in_roi);
            self.was_in_roi = in_roi;
        }
        if !in_roi && !self.warm {
            return;
        }
        if !in_roi {
            // warming only: update the functional layer, time nothing
            let mut scratch = DynInfo::default();
            self.front.fill_executed(&executed, stat, &mut scratch);
            return;
        }
        if self.part.is_none() && self.sampler.is_some() {
            self.fast_forward(index, executed);
            return;
        }
        // filled here, then packed into the batch (`Records`): the batch's memory is
        // written once, in 16 bytes for most records
        let mut info = DynInfo::default();
        self.front.fill_executed(&executed, stat, &mut info);
        self.batch.records.push(index as u32, &info);
        // the idealized streams get a copy only of the batches they time (a sampled
        // run's variants skip most windows)
        if !self.ideal.is_empty() && self.variants != VariantsTime::Skip {
            let bubble = self.front.bubble_if_predicted;
            for st in &mut self.ideal {
                let mut info = info;
                for ideal in &st.masks {
                    ideal.apply(&mut info, bubble);
                }
                st.batch.records.push(index as u32, &info);
            }
        }
        if self.keeping && !self.ideal.is_empty() {
            self.kept_bubbles.push(self.front.bubble_if_predicted);
        }
        self.simulated += 1;
        if self.batch.records.len() >= BATCH {
            self.flush();
        }
        if self.simulated >= self.limit {
            self.stopped = true;
        }
    }

    pub(crate) fn flush(&mut self) {
        if self.sampler.is_some() && self.batch.records.is_empty() {
            return; // the end of a sampled run between windows: nothing to time
        }
        let part = self.part.unwrap_or_default();
        let len = self.batch.records.len() as u64;
        // the variants time a sub-sample of a sampled run's windows
        let variants = self.variants;
        if let Some(s) = &mut self.sampler {
            s.note_batch(part, &self.batch.records);
        }
        if self.keeping {
            self.kept.push(KeptBatch { records: self.batch.records.clone(), bubbles: std::mem::take(&mut self.kept_bubbles) });
        }
        let filled = swap_out(&mut self.batch, self.returns.buffer(BATCH), part, variants);
        self.ready.push_back(filled);
        for st in &mut self.ideal {
            match variants {
                VariantsTime::Same => hand_over(&mut st.batch, &mut st.engine, part, VariantsTime::Same),
                VariantsTime::WarmUp => hand_over(&mut st.batch, &mut st.engine, BatchPart::WarmUp, VariantsTime::Same),
                // `step` copied nothing into a batch the variants skip
                VariantsTime::Skip | VariantsTime::Only => debug_assert!(st.batch.records.is_empty()),
            }
        }
        self.end_batch(len);
    }

    /// The run is over: the variants and the idealized streams time the
    /// prefix's batches the baseline timed. A run that ended in its exact
    /// prefix is then the exact run; one that sampled past it gives them as
    /// a late prefix (see `kept`): whole to the idealizations of a run at
    /// most [`EXACT_LATE_PREFIX_FACTOR`] times the prefix, a sub-sample to
    /// the rest.
    pub(crate) fn give_kept_to_variants(&mut self) {
        let kept = std::mem::take(&mut self.kept);
        if !self.sampler.as_ref().is_some_and(|s| s.sampling()) {
            for KeptBatch { records, bubbles } in kept {
                self.give_late(records, &bubbles, Some(LatePrefix::No), Some(LatePrefix::No));
            }
            return;
        }
        let prefix = kept.iter().map(|b| b.records.len() as u64).sum::<u64>();
        let whole = self.simulated <= EXACT_LATE_PREFIX_FACTOR * prefix;
        // the sub-sample: batch j - 1 then j, every `step` batches; fewer units the
        // smaller the prefix's part of the run
        let units = if whole { PREFIX_UNITS } else { (PREFIX_UNITS as u64 * EXACT_LATE_PREFIX_FACTOR * prefix / self.simulated.max(1)).max(MIN_PREFIX_UNITS as u64) as usize };
        let step = (kept.len() / units.max(1)).max(2);
        for j in (step - 1..kept.len()).step_by(step) {
            for (b, role) in [(j - 1, LatePrefix::SampleWarmUp), (j, LatePrefix::SampleUnit)] {
                // the idealizations sub-sample it too when they do not time it whole
                self.give_late(kept[b].records.clone(), &kept[b].bubbles, (!whole).then_some(role), Some(role));
            }
        }
        if whole {
            let alu1 = self.late_prefix_variant.map(LatePrefix::Variant);
            for KeptBatch { records, bubbles } in kept {
                self.give_late(records, &bubbles, Some(LatePrefix::EveryCore), alu1);
            }
        }
    }

    /// One batch of the prefix to the idealized streams (as `ideal` says, their
    /// masks applied) and to the main engine's variants (as `main` says); `None`:
    /// not to them. `LatePrefix::No`: the run ended in the prefix, timed as the run's.
    fn give_late(&mut self, records: Records, bubbles: &[f32], ideal: Option<LatePrefix>, main: Option<LatePrefix>) {
        if let Some(late_prefix) = ideal {
            for st in &mut self.ideal {
                st.batch.records.extend(records.iter().zip(bubbles).map(|(mut r, &bubble)| {
                    for ideal in &st.masks {
                        ideal.apply(&mut r.info, bubble);
                    }
                    r
                }));
                st.batch.late_prefix = late_prefix;
                hand_over(&mut st.batch, &mut st.engine, BatchPart::Whole, VariantsTime::Same);
            }
        }
        if let Some(late_prefix) = main {
            self.ready.push_back(Batch { records, part: BatchPart::Whole, variants: VariantsTime::Only, late_prefix, ..Default::default() });
        }
    }

    /// The batch being filled is over (timed or fast-forwarded): plan the next one.
    fn end_batch(&mut self, len: u64) {
        let Some(s) = &mut self.sampler else { return };
        s.end_batch(len, self.part);
        self.returns.take_feedback(|b| s.on_cycles(b.part, b.cycles));
        self.part = s.next_batch(self.simulated);
        self.variants = s.variants_time();
        self.keeping = self.part == Some(BatchPart::Whole) && self.variants == VariantsTime::Skip;
        if !self.keeping && !self.kept.is_empty() && self.simulated >= LATE_PREFIX_RUN_FACTOR.saturating_mul(s.exact_below()) {
            self.kept = Vec::new(); // the prefix is too small a part of the run to time it late
        }
    }

    /// One instruction between windows: the functional layer only, and its
    /// execution (and misprediction) counted for the report.
    #[inline(always)]
    fn fast_forward(&mut self, index: usize, executed: Executed<'_, '_>) {
        let stat = &self.front_facts[index];
        let mut scratch = DynInfo::default();
        self.front.fill_executed(&executed, stat, &mut scratch);
        let mispredicted = scratch.mispredicted as u64;
        if index >= self.untimed.len() {
            self.untimed.resize((index + 1).next_power_of_two(), (0, 0));
        }
        let u = &mut self.untimed[index];
        u.0 += 1;
        u.1 += mispredicted;
        self.simulated += 1;
        self.fast_forwarded += 1;
        if self.fast_forwarded == BATCH {
            self.fast_forwarded = 0;
            self.end_batch(BATCH as u64);
        }
        if self.simulated >= self.limit {
            self.stopped = true;
        }
    }
}

/// Feeds the filled batch in `slot` to `engine` as `part` of the run (for the
/// variants beside the baseline, as `variants` says) and leaves an empty one in
/// its place, at full size: no regrowth per batch on the hot path.
fn hand_over<L: bottlenose_timing::Listener + Send + 'static>(slot: &mut Batch, engine: &mut VariantEngine<L>, part: BatchPart, variants: VariantsTime) {
    let filled = swap_out(slot, engine.buffer(BATCH), part, variants);
    engine.feed(filled);
}

/// The filled batch in `slot`, labelled `part` and `variants`, with an empty one
/// on `records` (a reused buffer) left in its place.
#[inline]
fn swap_out(slot: &mut Batch, records: Records, part: BatchPart, variants: VariantsTime) -> Batch {
    let mut filled = std::mem::replace(slot, Batch { records, ..Default::default() });
    filled.part = part;
    filled.variants = variants;
    filled
}

/// Skips shorter than this stream in full instead: a switch costs two plugin
/// resets, each retranslating the code that runs.
const MIN_SKIP: u64 = 1 << 18;
/// How far ahead a pause looks for the next window (batches).
const MAX_LOOK_AHEAD: u64 = 1 << 22;

impl<S: Schedule> Producer<'_, S> {
    /// Fast-forward: the plugin asks what comes next. Between windows, skip to
    /// the functional warm-up before the next window, then stream the warm-up
    /// and the window; in the exact prefix or a window, stream on.
    pub(crate) fn on_pause(&mut self) -> Resume {
        let batch = BATCH as u64;
        let Some(s) = &self.sampler else { return Resume::FULL };
        let Some(warm) = s.warming_window() else { return Resume::FULL };
        let window = (s.window_batches() + 1) * batch;
        if !s.sampling() {
            return Resume { skip: 0, full: s.exact_below().saturating_sub(self.simulated).max(batch) };
        }
        if self.part.is_some() {
            return Resume { skip: 0, full: window };
        }
        let here = batch - self.fast_forwarded as u64;
        let (ahead, window_next) = s.fast_forward_ahead(self.simulated + here, MAX_LOOK_AHEAD);
        let between = here + ahead * batch;
        let skip = between.saturating_sub(warm);
        match (skip >= MIN_SKIP, window_next) {
            (true, true) => Resume { skip, full: between - skip + window },
            // the period may change at the end of the stretch: ask again after the skip
            (true, false) => Resume { skip, full: 0 },
            // windows too close for a skip: stream on, and ask again not too soon (each pause
            // makes QEMU wait for the reader to catch up)
            (false, _) => Resume { skip: 0, full: (between + window).max(4 * MIN_SKIP) },
        }
    }

    /// Fast-forward: static instruction `insn` ran `executions` times unseen.
    /// They count in the totals and in the sampled population (fast-forwarded batches).
    pub(crate) fn on_skipped(&mut self, insn: &ExecutedInsn<'_>, executions: u64) {
        if self.stopped {
            return;
        }
        let index = self.statics_index(insn);
        if index >= self.untimed.len() {
            self.untimed.resize((index + 1).next_power_of_two(), (0, 0));
        }
        self.untimed[index].0 += executions;
        self.executed += executions;
        self.simulated += executions;
        if self.sampler.is_none() {
            return;
        }
        self.fast_forwarded += executions as usize;
        while self.part.is_none() && self.fast_forwarded >= BATCH {
            self.fast_forwarded -= BATCH;
            self.end_batch(BATCH as u64);
        }
        if self.part.is_some() && self.fast_forwarded > 0 {
            // the skip ran into a window: its excess counts in the stratum
            if let Some(s) = &mut self.sampler {
                s.extend_stratum(self.fast_forwarded as u64);
            }
            self.fast_forwarded = 0;
        }
        if self.simulated >= self.limit {
            self.stopped = true;
        }
    }
}

/// Entering the region of interest puts back its counters; leaving it keeps
/// them, so that the report counts the region only, warm or cold.
#[cold]
pub(crate) fn roi_boundary(functional: &mut FunctionalLayer, roi_counts: &mut FunctionalCounts, entering: bool) {
    if entering {
        functional.restore_counts(*roi_counts);
    } else {
        *roi_counts = functional.counts();
    }
}
