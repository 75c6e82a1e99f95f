//! Sampled views: a generic adapter ([`Sampled`]) that counts views on windows
//! of a dynamic run, SMARTS-style, so that a long run pays for them on a
//! fraction of it. The views it wraps implement [`Windowed`]: they book
//! instructions into counts ([`WindowCounts`]) that the adapter swaps, weights
//! and hands back at the end; scaling the windows to the run is theirs.
//!
//! The first `exact_batches` are counted exactly (a run that ends within them
//! is an exact run). After them, in every `period` batches one *warms* the
//! views up and the next is counted, at an offset within the period drawn
//! afresh each period (deterministic, so runs repeat), so that the windows
//! do not alias with a program's own period. Warming up: over the last
//! [`WARM_UP`] instructions of the batch before the window the model takes its
//! detailed step and the views book them, into scratch tallies, so that the
//! per-cycle picture (loads in flight, the ROB-head timeline, blame) is complete
//! again after the stretch nobody looked at. The batches outside the windows
//! are *skipped*: timed by the model's cheap step, and only their executions
//! (and mispredictions) are counted.
//!
//! A counted window covers, per kind of tally, the window's instructions
//! (per-instruction counts, the dispatch and commit gaps before each) and the
//! cycles swept during it (`fin`, first cycle not swept, at its start and end).
//! Those cycles hold every booking that falls into them: instructions before
//! the warm-up committed long before (a batch is far larger than the ROB), and
//! later ones book only at or after their own dispatch, which is past the last
//! swept cycle.
//!
//! The model times every batch, so each batch's cycles are known: the views'
//! own windows are weighted by the cycles of the batches of their CPI
//! ([`strata`]), and after a skipped batch at a CPI not seen before the next
//! batch is a window (a *catch-up*: its own first [`WARM_UP`] instructions warm
//! up, the rest is counted). A sampled run's units are weighted by the code
//! mix's calibration instead (`into_parts`).
//!
//! At the end (`CycleViews::finish`) the counts that follow from static
//! facts come from every execution (exact); the exact prefix is added as it is;
//! the windows, weighted, are scaled to the rest of the run: per-cycle counts by its cycles
//! over the windows' swept cycles, the dispatch gaps (and with them the dispatch
//! CPI stack) so that slots and gaps fill the run's clocks, per-instruction event
//! counts by its instructions over the windows'. Last, the stall components of
//! each CPI stack share what the base leaves of the run's cycles.

use bottlenose_timing::{BatchPart, Details, Listener, StageDetails, StageTimes};
pub use bottlenose_report_model::views::ViewsSampling;
use strata::BatchStrata;
pub use windowed::{WindowCounts, WindowTally, Windowed};

mod strata;
mod windowed;

/// Instructions booked before a counted window (the tail of the batch before it):
/// three times the largest bundled ROB (Zen 4: 320 entries), so that whatever is
/// in flight when the window opens was booked.
const WARM_UP: usize = 1024;

/// One counted window: what it counted from zero, its instructions and
/// cycles, its weight, and the sampled run's unit it was (none for the views'
/// own windows, which have their batch's CPI bin instead: see [`strata`]).
struct CountedWindow<C> {
    counts: C,
    tally: WindowTally,
    instructions: u64,
    unit: Option<u64>,
    bin: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The exact prefix: every instruction counted into the real counts.
    Exact,
    Skip,
    Warm,
    Count,
}

/// The exact prefix, once it is over: its counts, the cycles it swept and the
/// instructions it booked.
pub(crate) struct Prefix<C> {
    pub(crate) counts: C,
    pub(crate) cycles: i64,
    pub(crate) instructions: u64,
}

/// Which batch is counted, and what the windows measured.
struct Schedule<C> {
    period: u64,
    exact_batches: u64,
    prefix: Option<Prefix<C>>,
    batches: u64,
    phase: Phase,
    /// While counting, the scratch counts (what is booked outside the windows)
    /// are parked here, and the window counts from zero.
    other: C,
    /// At the start of the counted window: first unswept cycle, instructions booked;
    /// its weight (1 but for a sampled run's unit), and the unit it is.
    start: (i64, u64),
    weight: f64,
    unit: Option<u64>,
    /// The windows counted, each apart: they are weighted and summed at the end.
    counted: Vec<CountedWindow<C>>,
    /// The longest batch so far (every batch is whole but the run's last), and
    /// the length of the counted window's.
    batch_len: usize,
    window_len: usize,
    /// The batch under way; the cycles of every batch the views' own schedule
    /// placed, by CPI, for the windows' weights.
    current: BatchUnderWay,
    strata: BatchStrata,
    /// A skipped batch was the first at its CPI: the next one is a window that
    /// warms up on its own head, so that what first runs at a new CPI (a program's
    /// exit, two or three batches of cold code) gets a window before it is over.
    catch_up: bool,
    /// The last commit before the counted window opened: its cycles.
    window_commit: f64,
}

/// The batch being timed: its length, the last commit before it, and whether
/// the views' own schedule placed it (past the exact prefix).
#[derive(Clone, Copy, Default)]
struct BatchUnderWay {
    len: usize,
    commit_before: f64,
    own: bool,
}

/// A batch the views' own schedule placed, once over: its CPI bin, and the
/// cycles of what a window in it counted (all of it, or all but a catch-up
/// window's head).
#[derive(Clone, Copy)]
struct EndedBatch {
    bin: usize,
    window_cycles: f64,
}

/// What the windows of a sampled run measured, handed to the views at the end.
pub(crate) struct SampleOutcome<C> {
    pub(crate) prefix: Option<Prefix<C>>,
    pub(crate) counted_instructions: u64,
    pub(crate) swept_cycles: f64,
    pub(crate) tallies: Vec<WindowTally>,
    pub(crate) report: ViewsSampling,
}

/// Where in period `q` its warm-up batch falls: `0..=period - 2` (the counted
/// batch follows it within the period), from a fixed hash of `q` (splitmix64).
fn window_offset(q: u64, period: u64) -> u64 {
    let mut z = q.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    z % (period - 1)
}

/// Views counted on every instruction, or on samples of the run.
pub struct Sampled<V: Windowed> {
    pub(crate) views: V,
    /// The last commit time seen (commits are in order): batches' cycles.
    commit_seen: f64,
    /// Instructions to book before a catch-up window opens (0: none pending).
    opens_in: usize,
    schedule: Option<Schedule<V::Counts>>,
    /// In a batch that sampled views skip (they look at none of its instructions,
    /// or not yet: the head of a warm-up batch, `ignore`).
    skipping: bool,
    /// Instructions still to pass unseen before a warm-up (the head of its batch).
    ignore: usize,
    /// A sampled run's units: the views count the first `units_all` and then one in
    /// `unit_every` (and warm up before it), the others they skip; `units_seen` counts them.
    unit_every: u64,
    units_all: u64,
    units_seen: u64,
}

impl<V: Windowed> Sampled<V> {
    /// Counts every instruction.
    pub fn exact(views: V) -> Self {
        Sampled { views, commit_seen: 0.0, opens_in: 0, schedule: None, skipping: false, ignore: 0, unit_every: 1, units_all: 0, units_seen: 0 }
    }

    /// Counted exactly on the first `exact_batches` batches of a dynamic run,
    /// then on 1 of every `period` batches (≥ 3); see the module doc.
    pub fn sampled(mut self, period: u64, exact_batches: u64) -> Self {
        let s = Schedule {
            period: period.max(3),
            exact_batches,
            prefix: None,
            batches: 0,
            phase: if exact_batches > 0 { Phase::Exact } else { Phase::Skip },
            other: self.views.new_counts(),
            start: (0, 0),
            weight: 1.0,
            unit: None,
            counted: Vec::new(),
            batch_len: 0,
            window_len: 0,
            current: BatchUnderWay::default(),
            strata: BatchStrata::default(),
            catch_up: false,
            window_commit: 0.0,
        };
        self.skipping = s.phase == Phase::Skip;
        self.schedule = Some(s);
        self
    }

    /// In a sampled run, count the views on every one of the first `all` units, then
    /// on one unit in `k` only (a systematic sub-sample: each counted unit stands for
    /// `k` times its weight), warming them up before it; they skip the others. Past
    /// the first `all`, the views cost about `1 / k` of what they cost on every unit,
    /// and their intervals widen by about `sqrt(k)`; a short run keeps every unit (its
    /// intervals' strata keep enough windows each).
    pub fn on_units_every(mut self, k: u64, all: u64) -> Self {
        self.unit_every = k.max(1);
        self.units_all = all;
        self
    }

    /// What a sampled run's unit `u` stands for in the views' sub-sample
    /// ([`Sampled::on_units_every`]): 1 among the first units, `k` for one in `k` after
    /// them, 0 for a unit the views skip.
    fn sub_sample_weight(&self, u: u64) -> f64 {
        match u.checked_sub(self.units_all) {
            None => 1.0,
            Some(r) if r % self.unit_every == 0 => self.unit_every as f64,
            Some(_) => 0.0,
        }
    }

    /// The views and, when sampled past the exact prefix, what the windows measured
    /// (the windows' counts, weighted and summed, are the views' real counts).
    /// `calibration`: by a sampled run's unit, a factor on its weight (1 past
    /// the end, and for the views' own windows): the code mix weighs each class
    /// of code a unit ran by the run's exact executions of it, so that one-off
    /// code (a program's exit) caught by a unit counts once, not the unit's weight
    /// times (`bottlenose_analysis`' sampling, `CodeMix::unit_calibration`).
    pub(crate) fn into_parts(mut self, calibration: &[f64]) -> (V, Option<SampleOutcome<V::Counts>>) {
        // a sampled run that ended within its exact prefix was counted exactly
        let outcome = self.schedule.take().filter(|s| s.phase != Phase::Exact).map(|mut s| {
            let ended = self.end_batch(&mut s);
            match s.phase {
                // a catch-up window the run ended before it opened: nothing counted
                Phase::Count if self.opens_in > 0 => {}
                // (a window of the views' own stands for its CPI bin's batches, whatever its length)
                Phase::Count if s.window_len < s.batch_len && ended.is_none() => self.drop_window(&mut s),
                Phase::Count => self.close_window(&mut s, ended),
                _ => {}
            }
            let strata = s.strata.factors(s.period);
            let zero = self.views.new_counts();
            let mut real = self.views.new_counts();
            let (mut counted_instructions, mut swept_cycles) = (0u64, 0.0);
            let mut tallies = Vec::with_capacity(s.counted.len());
            for window in &s.counted {
                let w = window.tally.weight;
                let f = match (window.unit, window.bin) {
                    (Some(u), _) => calibration.get(u as usize).copied().unwrap_or(1.0),
                    (None, Some(b)) => strata[b],
                    (None, None) => 1.0,
                };
                let mut counts = window.counts.clone();
                counts.reweight(&zero, w * f);
                real.add(&counts);
                counted_instructions += (window.instructions as f64 * w * f).round() as u64;
                swept_cycles += window.tally.cycles * w * f;
                tallies.push(window.tally.scaled(f));
            }
            *self.views.counts_mut() = real;
            let report = ViewsSampling {
                exact_instructions: s.prefix.as_ref().map_or(0, |p| p.instructions),
                period: s.period,
                windows: s.counted.len() as u64,
                counted_instructions,
                counted_cycles: swept_cycles,
            };
            SampleOutcome { prefix: s.prefix, counted_instructions, swept_cycles, tallies, report }
        });
        (self.views, outcome)
    }

    /// Next batch (of `len` instructions): warm up, count, or skip it; which of
    /// its instructions the views want timed in detail. `forced`: the phase a
    /// sampled run's schedule gives the batch (its warm-ups and units), instead
    /// of the views' own schedule.
    fn next_batch(&mut self, len: usize, forced: Option<(Phase, f64)>) -> Details {
        let Some(mut s) = self.schedule.take() else { return Details::All };
        let ended = self.end_batch(&mut s);
        let next = match s.batches.checked_sub(s.exact_batches) {
            _ if forced.is_some() => forced.map_or(Phase::Skip, |f| f.0),
            None => Phase::Exact,
            Some(_) if s.catch_up => Phase::Count,
            Some(b) => {
                let offset = window_offset(b / s.period, s.period);
                match b % s.period {
                    r if r == offset => Phase::Warm,
                    r if r == offset + 1 => Phase::Count,
                    _ => Phase::Skip,
                }
            }
        };
        // a unit straight after batches the views skipped (timed, not booked: a sampled
        // run's first unit after its exact prefix) warms them up instead of being counted;
        // a catch-up window (the views' own, never a sampled run's unit) warms up on its own head
        let warm_inside = std::mem::take(&mut s.catch_up) && forced.is_none() && next == Phase::Count;
        let next = if next == Phase::Count && s.phase == Phase::Skip && !warm_inside { Phase::Warm } else { next };
        s.batches += 1;
        s.batch_len = s.batch_len.max(len);
        match (s.phase, next) {
            (Phase::Exact, Phase::Exact) => {}
            (Phase::Exact, _) => {
                // the prefix ends where the window would: its cycles are swept; what it
                // booked beyond them is swept into the scratch counts (a few cycles)
                self.views.sweep_to_dispatch();
                let scratch = self.views.new_counts();
                let counts = std::mem::replace(self.views.counts_mut(), scratch);
                s.prefix = Some(Prefix { counts, cycles: self.views.swept(), instructions: self.views.booked() });
            }
            // (a window ending a period may be followed at once by the next one's warm-up,
            // and a sampled run's unit by the next period's unit)
            (Phase::Count, _) => self.close_window(&mut s, ended),
            _ => {}
        }
        if next == Phase::Count {
            s.window_len = len;
            s.weight = forced.map_or(1.0, |f| f.1);
            // (a forced window is a sampled run's unit, the last one seen)
            s.unit = forced.map(|_| self.units_seen - 1);
            if warm_inside {
                // booked from a fresh start, counted from `opens_in` instructions on
                self.views.restart_next();
                self.opens_in = WARM_UP.min(len / 2).max(1);
            } else {
                self.open_window(&mut s);
            }
        }
        s.phase = next;
        s.current = BatchUnderWay { len, commit_before: self.commit_seen, own: forced.is_none() && next != Phase::Exact };
        self.schedule = Some(s);
        match next {
            Phase::Exact | Phase::Count => {
                self.skipping = false;
                Details::All
            }
            Phase::Skip => {
                self.skipping = true;
                Details::None
            }
            Phase::Warm => {
                // only the batch's tail warms up: it starts after a stretch nobody looked at
                self.views.restart_next();
                let skipped = len.saturating_sub(WARM_UP);
                self.ignore = skipped;
                self.skipping = skipped > 0;
                Details::From(skipped)
            }
        }
    }

    /// The counted window starts here: it counts from zero, the scratch counts wait.
    fn open_window(&mut self, s: &mut Schedule<V::Counts>) {
        self.views.sweep_to_dispatch();
        let window = self.views.new_counts();
        s.other = std::mem::replace(self.views.counts_mut(), window);
        s.start = (self.views.swept(), self.views.booked());
        s.window_commit = self.commit_seen;
    }

    /// A catch-up window's head is booked: it opens.
    #[cold]
    fn open_window_now(&mut self) {
        if let Some(mut s) = self.schedule.take() {
            self.open_window(&mut s);
            self.schedule = Some(s);
        }
    }

    /// The batch under way is over: when the views' own schedule placed it, its
    /// CPI bin (then it is in the strata too) and the cycles of what a window in
    /// it counted.
    fn end_batch(&self, s: &mut Schedule<V::Counts>) -> Option<EndedBatch> {
        let BatchUnderWay { len, commit_before, own } = s.current;
        if !own || len == 0 {
            return None;
        }
        let cycles = (self.commit_seen - commit_before).max(0.0);
        let bin = strata::bin_of(cycles, len);
        if s.strata.add_batch(bin, cycles) && s.phase == Phase::Skip {
            s.catch_up = true;
        }
        Some(EndedBatch { bin, window_cycles: (self.commit_seen - s.window_commit).max(0.0) })
    }

    /// Ends the counted window (in `batch` when the views' own schedule placed
    /// it): its cycles are swept into its counts, kept apart, and the scratch
    /// counts are back.
    fn close_window(&mut self, s: &mut Schedule<V::Counts>, batch: Option<EndedBatch>) {
        self.views.sweep_to_dispatch();
        let (fin0, booked0) = s.start;
        let fin = self.views.swept();
        let instructions = self.views.booked() - booked0;
        let counts = self.take_window(s);
        let mut tally = counts.tally(fin - fin0);
        tally.weight = s.weight;
        if let Some(b) = batch {
            s.strata.add_window(b.bin, b.window_cycles);
        }
        s.counted.push(CountedWindow { counts, tally, instructions, unit: s.unit, bin: batch.map(|b| b.bin) });
        s.phase = Phase::Skip;
    }

    /// The counted window's counts; the scratch counts back in the views.
    fn take_window(&mut self, s: &mut Schedule<V::Counts>) -> V::Counts {
        let zero = self.views.new_counts();
        let scratch = std::mem::replace(&mut s.other, zero);
        std::mem::replace(self.views.counts_mut(), scratch)
    }

    /// Leaves out the window the run ended in, cut off (its batch shorter than
    /// the others): a window stands for its period, and the run has no more of
    /// it. In a sampled run it is the unit cut off by the end, which the cycles'
    /// estimate leaves out too (its instructions count in its stratum, at the
    /// other units' rate); weighted as a whole unit, the exit it holds, which
    /// ran once, counted as many times as the unit's weight.
    fn drop_window(&mut self, s: &mut Schedule<V::Counts>) {
        self.take_window(s);
        s.phase = Phase::Skip;
    }

    /// Passes an instruction the views do not look at (a skipped batch, the head of a warm-up).
    #[inline(always)]
    fn pass(&mut self) {
        if self.ignore > 0 {
            self.ignore -= 1;
            self.skipping = self.ignore > 0;
        }
    }
}

impl<V: Windowed> Listener for Sampled<V> {
    fn wants_details(&self) -> bool {
        self.views.is_on() && !self.skipping
    }

    fn begin_batch(&mut self, len: usize) -> Details {
        if !self.views.is_on() {
            return Details::None;
        }
        self.next_batch(len, None)
    }

    /// A sampled run's warm-ups and units are the views' warm-ups and counted
    /// windows; what it times in full, the views sample on their own schedule.
    fn begin_part(&mut self, len: usize, part: BatchPart) -> Details {
        if !self.views.is_on() {
            return Details::None;
        }
        match part {
            BatchPart::Whole => self.next_batch(len, None),
            // a warm-up leads to the next unit
            BatchPart::WarmUp if self.sub_sample_weight(self.units_seen) > 0.0 => self.next_batch(len, Some((Phase::Warm, 1.0))),
            BatchPart::WarmUp => self.next_batch(len, Some((Phase::Skip, 1.0))),
            BatchPart::Unit { weight } => {
                let u = self.units_seen;
                self.units_seen += 1;
                let k = self.sub_sample_weight(u);
                if k > 0.0 {
                    // a unit stands for `weight` batches (times the sub-sample's), a window
                    // of the views' own for their period
                    let own = self.schedule.as_ref().map_or(1, |s| s.period) as f64;
                    self.next_batch(len, Some((Phase::Count, weight * k / own)))
                } else if self.sub_sample_weight(u + 1) > 0.0 {
                    // the next unit may follow at once, without a warm-up batch of its own
                    self.next_batch(len, Some((Phase::Warm, 1.0)))
                } else {
                    self.next_batch(len, Some((Phase::Skip, 1.0)))
                }
            }
        }
    }

    fn samples(&self) -> bool {
        self.schedule.is_some()
    }

    /// Without details there is nothing to book: the instruction is one the views skip.
    #[inline(always)]
    fn on_instruction(&mut self, _index: usize, t: &StageTimes) {
        self.commit_seen = t.commit;
        if self.skipping {
            self.pass();
        }
    }

    /// A batch that sampled views skip is not looked at (its executions come
    /// from `InstructionCost` at the end); in a warm-up batch, its head is not.
    #[inline(always)]
    fn on_detailed(&mut self, index: usize, t: &StageTimes, d: &StageDetails) {
        self.commit_seen = t.commit;
        if self.skipping {
            self.pass();
        } else if self.views.is_on() {
            self.views.book(index, t, d);
            if self.opens_in > 0 {
                self.opens_in -= 1;
                if self.opens_in == 0 {
                    self.open_window_now();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
