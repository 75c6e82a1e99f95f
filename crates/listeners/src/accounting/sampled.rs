//! Sampled views: the accounting views counted on windows of a dynamic run,
//! SMARTS-style, so that a long run pays for them on a fraction of it.
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
//! At the end ([`AccountingViews::finish`]) the counts that follow from static
//! facts come from every execution (exact); the exact prefix is added as it is;
//! the windows are scaled to the rest of the run: per-cycle counts by its cycles
//! over the windows' swept cycles, the dispatch gaps (and with them the dispatch
//! CPI stack) so that slots and gaps fill the run's clocks, per-instruction event
//! counts by its instructions over the windows'. Last, the stall components of
//! each CPI stack share what the base leaves of the run's cycles.

use super::{floor_i, AccountingViews, Tallies};
use bottlenose_timing::Details;
use serde::Serialize;

/// Instructions booked before a counted window (the tail of the batch before it):
/// three times the largest bundled ROB (Zen 4: 320 entries), so that whatever is
/// in flight when the window opens was booked.
const WARM_UP: usize = 1024;

/// What sampled views measured (reported beside their results).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ViewsSampling {
    /// Instructions counted exactly at the start of the run.
    pub exact_instructions: u64,
    /// After them, one counted batch (after one batch of warm-up) of every `period` batches.
    pub period: u64,
    /// Counted windows and the instructions in them.
    pub windows: u64,
    pub counted_instructions: u64,
    /// Cycles swept in the windows (the run's clocks are scaled from these).
    pub counted_cycles: f64,
}

/// What one counted window measured, for the intervals of the views' shares:
/// the cycles it swept, the stall components of the three CPI stacks (dispatch,
/// issue, commit) and the Top-Down dispatch gaps (wrong path, recovery,
/// frontend, backend), all in cycles.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WindowTally {
    /// What the window stands for relative to the views' own windows (1 for those).
    pub weight: f64,
    pub cycles: f64,
    pub cpi: [[f64; 16]; 3],
    pub gaps: [f64; 4],
}

impl WindowTally {
    fn of(t: &Tallies, fin: i64) -> Self {
        let td = &t.td;
        WindowTally { weight: 1.0, cycles: fin as f64, cpi: t.acc.cpi, gaps: [td.wrong_path_cycles, td.recovery_cycles, td.fetch_cycles, td.backend_cycles] }
    }

    fn minus(&self, o: &WindowTally) -> Self {
        let mut d = *self;
        d.cycles -= o.cycles;
        for (a, b) in d.cpi.iter_mut().zip(&o.cpi) {
            a.iter_mut().zip(b).for_each(|(x, y)| *x -= y);
        }
        d.gaps.iter_mut().zip(&o.gaps).for_each(|(x, y)| *x -= y);
        d
    }
}

impl Tallies {
    /// `start + w · (self - start)`: a window that stands for `w` times what the
    /// views' own windows stand for (a sampled run's unit) counts `w` times.
    /// The fields are those booking and sweeping count ([`Tallies::add`]).
    fn reweight(&mut self, start: &Tallies, w: f64) {
        let u = |x: &mut u64, s: u64| *x = s + ((x.saturating_sub(s)) as f64 * w).round() as u64;
        let f = |x: &mut f64, s: f64| *x = s + (*x - s) * w;
        let (a, b) = (&mut self.acc, &start.acc);
        a.ops.iter_mut().zip(&b.ops).for_each(|(x, s)| u(x, *s));
        a.mem.iter_mut().zip(&b.mem).for_each(|(x, s)| u(x, *s));
        u(&mut a.mem_stores, b.mem_stores);
        u(&mut a.ext_c1, b.ext_c1);
        u(&mut a.ext_ct, b.ext_ct);
        u(&mut a.ext_occupancy, b.ext_occupancy);
        u(&mut a.divider_active, b.divider_active);
        for (x, s) in a.cpi.iter_mut().zip(&b.cpi) {
            x.iter_mut().zip(s).for_each(|(x, s)| f(x, *s));
        }
        a.idle.iter_mut().zip(&b.idle).for_each(|(x, s)| f(x, *s));
        let (a, b) = (&mut self.td, &start.td);
        f(&mut a.wrong_path_cycles, b.wrong_path_cycles);
        f(&mut a.recovery_cycles, b.recovery_cycles);
        f(&mut a.fetch_cycles, b.fetch_cycles);
        u(&mut a.fetch_full_cycles, b.fetch_full_cycles);
        f(&mut a.backend_cycles, b.backend_cycles);
        let (a, b) = (&mut self.lev, &start.lev);
        a.loads.iter_mut().zip(&b.loads).for_each(|(x, s)| u(x, *s));
        u(&mut a.icache_events, b.icache_events);
        f(&mut a.icache_cycles, b.icache_cycles);
        u(&mut a.btb_events, b.btb_events);
        f(&mut a.btb_cycles, b.btb_cycles);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// The exact prefix: every instruction counted into the real tallies.
    Exact,
    Skip,
    Warm,
    Count,
}

/// The exact prefix, once it is over: its tallies, the cycles it swept and the
/// instructions it booked.
struct Prefix {
    tallies: Tallies,
    cycles: i64,
    instructions: u64,
}

pub(super) struct Sample {
    pub period: u64,
    exact_batches: u64,
    prefix: Option<Prefix>,
    batches: u64,
    pub phase: Phase,
    /// The tallies not in use: while counting, the scratch ones; otherwise the real ones.
    other: Tallies,
    /// At the start of the counted window: first unswept cycle, instructions booked,
    /// and the tallies then.
    start: (i64, u64),
    start_tally: WindowTally,
    /// A weighted window (a sampled run's unit): its weight and the tallies at its start.
    weighted: Option<(f64, Box<Tallies>)>,
    /// What each counted window measured.
    pub tallies: Vec<WindowTally>,
    pub windows: u64,
    pub counted_instructions: u64,
    pub swept_cycles: f64,
}

impl Sample {
    pub fn new(period: u64, exact_batches: u64, width: f64) -> Self {
        Sample {
            period: period.max(3),
            exact_batches,
            prefix: None,
            batches: 0,
            phase: if exact_batches > 0 { Phase::Exact } else { Phase::Skip },
            other: Tallies::new(width),
            start: (0, 0),
            start_tally: WindowTally::default(),
            weighted: None,
            tallies: Vec::new(),
            windows: 0,
            counted_instructions: 0,
            swept_cycles: 0.0,
        }
    }

    /// The views' own period, what a weight of 1 stands for.
    pub fn own_period(&self) -> u64 {
        self.period
    }

    pub fn report(&self) -> ViewsSampling {
        ViewsSampling {
            exact_instructions: self.prefix.as_ref().map_or(0, |p| p.instructions),
            period: self.period,
            windows: self.windows,
            counted_instructions: self.counted_instructions,
            counted_cycles: self.swept_cycles,
        }
    }
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

impl AccountingViews {
    /// Views counted exactly on the first `exact_batches` batches of a dynamic
    /// run, then on 1 of every `period` batches (≥ 3); see the module doc.
    pub fn sampled(mut self, period: u64, exact_batches: u64) -> Self {
        let s = Sample::new(period, exact_batches, self.p.width);
        self.skipping = s.phase == Phase::Skip;
        self.sample = Some(s);
        self
    }

    /// Next batch (of `len` instructions): warm up, count, or skip it; which of
    /// its instructions the views want timed in detail. `forced`: the phase a
    /// sampled run's schedule gives the batch (its warm-ups and units), instead
    /// of the views' own schedule.
    pub(super) fn next_batch(&mut self, len: usize, forced: Option<(Phase, f64)>) -> Details {
        let Some(mut s) = self.sample.take() else { return Details::All };
        let next = match s.batches.checked_sub(s.exact_batches) {
            _ if forced.is_some() => forced.map_or(Phase::Skip, |f| f.0),
            None => Phase::Exact,
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
        // run's first unit after its exact prefix) warms them up instead of being counted
        let next = if next == Phase::Count && s.phase == Phase::Skip { Phase::Warm } else { next };
        s.batches += 1;
        match (s.phase, next) {
            (Phase::Exact, Phase::Exact) => {}
            (Phase::Exact, _) => {
                // the prefix ends where the window would: its cycles are swept; what it
                // booked beyond them is swept into the scratch tallies (a few cycles)
                self.sweep_to_dispatch();
                let tallies = std::mem::replace(&mut self.tally, s.other.clone());
                s.prefix = Some(Prefix { tallies, cycles: self.fin, instructions: self.booked });
            }
            // (a window ending a period may be followed at once by the next one's warm-up,
            // and a sampled run's unit by the next period's unit)
            (Phase::Count, _) => self.close_window(&mut s),
            _ => {}
        }
        if next == Phase::Count {
            self.sweep_to_dispatch();
            self.swap_tallies(&mut s);
            s.start = (self.fin, self.booked);
            s.start_tally = WindowTally::of(&self.tally, self.fin);
            s.weighted = forced.map(|f| f.1).filter(|&w| w != 1.0).map(|w| (w, Box::new(self.tally.clone())));
        }
        s.phase = next;
        self.sample = Some(s);
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
                self.resync_pending = true;
                let skipped = len.saturating_sub(WARM_UP);
                self.ignore = skipped;
                self.skipping = skipped > 0;
                Details::From(skipped)
            }
        }
    }

    /// Ends the counted window: its cycles are swept into the real tallies, which
    /// then change places with the scratch ones again.
    pub(super) fn close_window(&mut self, s: &mut Sample) {
        self.sweep_to_dispatch();
        let (fin0, booked0) = s.start;
        s.windows += 1;
        let mut window = WindowTally::of(&self.tally, self.fin).minus(&s.start_tally);
        let w = match s.weighted.take() {
            Some((w, start)) => {
                self.tally.reweight(&start, w);
                w
            }
            None => 1.0,
        };
        window.weight = w;
        s.tallies.push(window);
        s.counted_instructions += ((self.booked - booked0) as f64 * w).round() as u64;
        s.swept_cycles += (self.fin - fin0) as f64 * w;
        self.swap_tallies(s);
        s.phase = Phase::Skip;
    }

    /// Brings the real tallies in (at the end of the run, outside a window and the prefix).
    pub(super) fn real_tallies_in(&mut self, s: &mut Sample) {
        if s.phase != Phase::Count && s.phase != Phase::Exact {
            self.swap_tallies(s);
        }
    }

    fn swap_tallies(&mut self, s: &mut Sample) {
        std::mem::swap(&mut self.tally, &mut s.other);
    }

    /// Sweeps every cycle before the current dispatch point: no later instruction books into them.
    fn sweep_to_dispatch(&mut self) {
        let bound = floor_i(self.prev_slot_end);
        if bound > self.fin {
            self.finalize_to(bound);
        }
    }

    /// Scales what the windows counted to the rest of the run after the exact
    /// prefix, and adds the prefix. Called once the static sums are in
    /// (`self.instructions`: every execution).
    pub(super) fn scale_windows(&mut self, s: &Sample, clocks: f64) {
        let (prefix_cycles, prefix_instructions, prefix_gaps) = match &s.prefix {
            Some(p) => {
                let td = &p.tallies.td;
                (p.cycles as f64, p.instructions, td.wrong_path_cycles + td.recovery_cycles + td.fetch_cycles + td.backend_cycles)
            }
            None => (0.0, 0, 0.0),
        };
        let rest_cycles = (clocks - prefix_cycles).max(0.0);
        let per_cycle = if s.swept_cycles > 0.0 { rest_cycles / s.swept_cycles } else { 0.0 };
        let scale = |v: &mut u64, f: f64| *v = (*v as f64 * f).round() as u64;
        let a = &mut self.tally.acc;
        a.ops.iter_mut().chain(&mut a.mem).for_each(|v| scale(v, per_cycle));
        for v in [&mut a.mem_stores, &mut a.ext_c1, &mut a.ext_ct, &mut a.ext_occupancy, &mut a.divider_active] {
            scale(v, per_cycle);
        }
        let [_, issue, commit] = &mut a.cpi;
        issue.iter_mut().chain(commit.iter_mut()).chain(&mut a.idle).for_each(|v| *v *= per_cycle);
        // dispatch: retired slots (exact) and the gaps between them fill the clocks
        let td = &mut self.tally.td;
        let base = td.slots_retired as f64 / td.width;
        let gaps = td.wrong_path_cycles + td.recovery_cycles + td.fetch_cycles + td.backend_cycles;
        let rest = (clocks - base - prefix_gaps).max(0.0);
        if gaps > 0.0 {
            let f = rest / gaps;
            for v in [&mut td.wrong_path_cycles, &mut td.recovery_cycles, &mut td.fetch_cycles, &mut td.backend_cycles] {
                *v *= f;
            }
            scale(&mut td.fetch_full_cycles, f);
        } else {
            // no window saw a gap: whatever the slots leave is the backend draining
            td.backend_cycles = rest;
        }
        // the dispatch stack's stalls scale with the cycles like the other two
        // stacks (its base is exact); what they miss is left unattributed
        a.cpi[0][1..].iter_mut().for_each(|v| *v *= per_cycle);
        let rest_instructions = self.instructions.saturating_sub(prefix_instructions) as f64;
        let per_instruction = if s.counted_instructions > 0 { rest_instructions / s.counted_instructions as f64 } else { 0.0 };
        let l = &mut self.tally.lev;
        l.loads.iter_mut().for_each(|v| scale(v, per_instruction));
        scale(&mut l.icache_events, per_instruction);
        scale(&mut l.btb_events, per_instruction);
        l.icache_cycles *= per_instruction;
        l.btb_cycles *= per_instruction;
        self.sweep.iss_carry = 0.0;
        if let Some(p) = &s.prefix {
            self.tally.add(&p.tallies);
        }
    }
}
