//! The sampled adapter on a toy view that counts instructions, one cycle each.

use super::{Sampled, WindowCounts, WindowTally, Windowed};
use bottlenose_timing::{BatchPart, CommitCause, Details, DispatchCause, IssueCause, Listener, StageDetails, StageTimes};

#[derive(Clone, Default)]
struct Booked(f64);

impl WindowCounts for Booked {
    fn add(&mut self, o: &Booked) {
        self.0 += o.0;
    }
    fn reweight(&mut self, start: &Booked, w: f64) {
        self.0 = start.0 + (self.0 - start.0) * w;
    }
    fn tally(&self, swept_cycles: i64) -> WindowTally {
        WindowTally { cycles: swept_cycles as f64, gaps: [self.0, 0.0, 0.0, 0.0], ..Default::default() }
    }
}

/// Books one count per instruction; every booked instruction is one swept cycle.
#[derive(Default)]
struct Toy {
    counts: Booked,
    booked: u64,
    swept: i64,
    restarts: u32,
}

impl Windowed for Toy {
    type Counts = Booked;
    fn is_on(&self) -> bool {
        true
    }
    fn new_counts(&self) -> Booked {
        Booked::default()
    }
    fn counts_mut(&mut self) -> &mut Booked {
        &mut self.counts
    }
    fn sweep_to_dispatch(&mut self) {
        self.swept = self.booked as i64;
    }
    fn swept(&self) -> i64 {
        self.swept
    }
    fn booked(&self) -> u64 {
        self.booked
    }
    fn restart_next(&mut self) {
        self.restarts += 1;
    }
    fn book(&mut self, _: usize, _: &StageTimes, _: &StageDetails) {
        self.booked += 1;
        self.counts.0 += 1.0;
    }
}

fn times() -> StageTimes {
    StageTimes {
        dispatch: 0.0,
        issue: 0.0,
        ready: 0.0,
        complete: 0.0,
        commit: 0.0,
        dispatch_cause: DispatchCause::Width,
        issue_cause: IssueCause::Dispatch,
        commit_cause: CommitCause::Complete,
        mispredicted: false,
    }
}

fn feed(s: &mut Sampled<Toy>, n: usize) {
    for i in 0..n {
        s.on_detailed(i, &times(), &StageDetails::default());
    }
}

/// A sampled run's warm-up (8 instructions, shorter than the views' warm-up,
/// so all of them are booked, into the scratch counts, after a restart), then
/// a unit of weight 8 for views whose own period is 4: the unit stands for 8 / 4
/// = 2 of the views' windows. Its 8 instructions and 8 swept cycles count
/// twice: 16 instructions, 16 cycles; its tally keeps what it measured (8
/// cycles, 8 counted) with weight 2. The warm-up's 8 are not in the real counts.
#[test]
fn a_weighted_unit_counts_its_weight_over_the_views_period() {
    let mut s = Sampled::exact(Toy::default()).sampled(4, 0);
    assert_eq!(s.begin_part(8, BatchPart::WarmUp), Details::From(0));
    assert_eq!(s.views.restarts, 1);
    feed(&mut s, 8);
    assert_eq!(s.begin_part(8, BatchPart::Unit { weight: 8.0 }), Details::All);
    feed(&mut s, 8);
    s.begin_part(8, BatchPart::WarmUp);
    let (views, outcome) = s.into_parts(&[]);
    let o = outcome.expect("sampled");
    assert_eq!(views.counts.0, 16.0);
    assert_eq!((o.counted_instructions, o.swept_cycles), (16, 16.0));
    assert_eq!(o.tallies.len(), 1);
    let t = o.tallies[0];
    assert_eq!((t.weight, t.cycles, t.gaps[0]), (2.0, 8.0, 8.0));
    assert_eq!((o.report.windows, o.report.period, o.report.exact_instructions), (1, 4, 0));
}

/// Fed as the driver feeds a batch the views skip (the cheap step, no details).
fn pass(s: &mut Sampled<Toy>, n: usize) {
    for i in 0..n {
        s.on_instruction(i, &times());
    }
}

/// One unit in 2 counted (units 0 and 2), each standing for 2 x 8 / 4 = 4 of the
/// views' windows: 8 instructions and 8 cycles each, counted 4 times, 64 in all. Unit 1
/// is not counted but warms the views up (unit 2 might follow it at once); the warm-up
/// batch before it and the one after unit 2 (whose unit 3 is not counted) are skipped.
#[test]
fn a_sub_sample_of_units_counts_one_in_k_at_k_times_the_weight() {
    let mut s = Sampled::exact(Toy::default()).sampled(4, 0).on_units_every(2, 0);
    assert_eq!(s.begin_part(8, BatchPart::WarmUp), Details::From(0));
    feed(&mut s, 8);
    assert_eq!(s.begin_part(8, BatchPart::Unit { weight: 8.0 }), Details::All);
    feed(&mut s, 8);
    assert_eq!(s.begin_part(8, BatchPart::WarmUp), Details::None);
    pass(&mut s, 8);
    assert_eq!(s.begin_part(8, BatchPart::Unit { weight: 8.0 }), Details::From(0));
    feed(&mut s, 8);
    assert_eq!(s.begin_part(8, BatchPart::WarmUp), Details::From(0));
    feed(&mut s, 8);
    assert_eq!(s.begin_part(8, BatchPart::Unit { weight: 8.0 }), Details::All);
    feed(&mut s, 8);
    assert_eq!(s.begin_part(8, BatchPart::WarmUp), Details::None);
    pass(&mut s, 8);
    let (views, outcome) = s.into_parts(&[]);
    let o = outcome.expect("sampled");
    assert_eq!(views.counts.0, 64.0);
    assert_eq!((o.counted_instructions, o.swept_cycles), (64, 64.0));
    assert_eq!(o.tallies.iter().map(|t| (t.weight, t.cycles)).collect::<Vec<_>>(), vec![(4.0, 8.0), (4.0, 8.0)]);
    assert_eq!(o.report.windows, 2);
}

/// A run that ends within the exact prefix (2 batches here) was counted
/// exactly: no sampling outcome, every instruction in the counts.
#[test]
fn a_run_within_the_exact_prefix_is_exact() {
    let mut s = Sampled::exact(Toy::default()).sampled(3, 2);
    assert_eq!(s.begin_batch(5), Details::All);
    feed(&mut s, 5);
    assert_eq!(s.begin_batch(5), Details::All);
    feed(&mut s, 5);
    let (views, outcome) = s.into_parts(&[]);
    assert!(outcome.is_none());
    assert_eq!(views.counts.0, 10.0);
}

/// A sampled run's warm-up of 8 instructions, then a unit of weight 8 and
/// `len` instructions (8 whole), both booked.
fn warm_up_and_unit(s: &mut Sampled<Toy>, len: usize) {
    s.begin_part(8, BatchPart::WarmUp);
    feed(s, 8);
    s.begin_part(len, BatchPart::Unit { weight: 8.0 });
    feed(s, len);
}

/// The run ends inside a unit, cut off (5 of its batch's 8 instructions): the
/// window is left out, as the cycles' estimate leaves out that unit; weighted
/// as a whole unit, the exit it holds counted twice. The first unit's 8
/// instructions count twice (weight 8 over the views' period 4), and only it.
/// A unit the run ends with, whole, counts.
#[test]
fn a_unit_cut_off_by_the_end_of_the_run_is_left_out() {
    let run = |last: usize| {
        let mut s = Sampled::exact(Toy::default()).sampled(4, 0);
        warm_up_and_unit(&mut s, 8);
        warm_up_and_unit(&mut s, last);
        s.into_parts(&[])
    };
    let (views, outcome) = run(5);
    let o = outcome.expect("sampled");
    assert_eq!(views.counts.0, 16.0);
    assert_eq!((o.counted_instructions, o.swept_cycles, o.tallies.len(), o.report.windows), (16, 16.0, 1, 1));
    let (views, outcome) = run(8);
    let o = outcome.expect("sampled");
    assert_eq!(views.counts.0, 32.0);
    assert_eq!((o.tallies.len(), o.report.windows), (2, 2));
}

/// A sampled run's calibration scales each unit's weight: the unit of the
/// first test, weight 8 over the views' period 4 (2), at factor 0.25 counts
/// half of its 8 instructions and cycles, and its tally keeps its weight with
/// its counts scaled. A factor past the calibration's end is 1.
#[test]
fn a_units_calibration_scales_its_weight() {
    let run = |calibration: &[f64]| {
        let mut s = Sampled::exact(Toy::default()).sampled(4, 0);
        warm_up_and_unit(&mut s, 8);
        s.begin_part(8, BatchPart::WarmUp);
        s.into_parts(calibration)
    };
    let (views, outcome) = run(&[0.25]);
    let o = outcome.expect("sampled");
    assert_eq!(views.counts.0, 4.0);
    assert_eq!((o.counted_instructions, o.swept_cycles), (4, 4.0));
    assert_eq!((o.tallies[0].weight, o.tallies[0].cycles, o.tallies[0].gaps[0]), (2.0, 2.0, 2.0));
    let (views, _) = run(&[]);
    assert_eq!(views.counts.0, 16.0);
}

/// Feeds a batch of `len` instructions as the driver does for what
/// `begin_batch` asked (`Details::None`: the cheap step; `From(k)`: detailed
/// from the k-th), each taking `cpi` cycles to commit after the one before.
fn feed_timed(s: &mut Sampled<Toy>, commit: &mut f64, len: usize, cpi: f64) -> Details {
    let d = s.begin_batch(len);
    let from = match d {
        Details::None => len,
        Details::All => 0,
        Details::From(k) => k,
    };
    for i in 0..len {
        *commit += cpi;
        let t = StageTimes { commit: *commit, ..times() };
        if i < from {
            s.on_instruction(i, &t);
        } else {
            s.on_detailed(i, &t, &StageDetails::default());
        }
    }
    d
}

/// The phase the views' own schedule gives batch `b` (no exact prefix), before
/// any catch-up window: `Some(true)` warm-up, `Some(false)` counted, `None` skipped.
fn regular(b: u64, period: u64) -> Option<bool> {
    let offset = super::window_offset(b / period, period);
    match b % period {
        r if r == offset => Some(true),
        r if r == offset + 1 => Some(false),
        _ => None,
    }
}

/// The views' own windows (period 4, no exact prefix) over a loop of batches
/// at 1 cycle per instruction, then an exit at 20 cycles per instruction: a
/// batch of 8 the schedule skips, the first at its CPI, and one of 5, cut off
/// by the end of the run, which becomes a window: its first 2 instructions
/// warm up, its last 3 are counted (60 cycles). Each window stands for the
/// cycles of its CPI bin over its own, so the toy's count of booked
/// instructions, times the period, is the run's instructions: the loop's
/// windows 1 per cycle, the exit's 3 per 60 cycles of its 260. Weighted
/// `period` times each, the windows would give a multiple of 4 · 4 and 4 · 3.
#[test]
fn the_views_own_windows_stand_for_the_batches_of_their_cpi() {
    let period = 4;
    // a loop of 40 batches or a few more, so that the exit's first batch is one the schedule skips
    let loop_batches = (40..60).find(|&l| regular(l, period).is_none()).expect("a skipped batch");
    let mut s = Sampled::exact(Toy::default()).sampled(period, 0);
    let mut commit = 0.0;
    for _ in 0..loop_batches {
        feed_timed(&mut s, &mut commit, 8, 1.0);
    }
    let exit: Vec<Details> = [8, 5].iter().map(|&len| feed_timed(&mut s, &mut commit, len, 20.0)).collect();
    assert_eq!(exit, [Details::None, Details::All]);
    let (views, outcome) = s.into_parts(&[]);
    let o = outcome.expect("sampled");
    let instructions = loop_batches as f64 * 8.0 + 13.0;
    assert!((views.counts.0 * 4.0 - instructions).abs() < 1e-9, "{} against {instructions}", views.counts.0 * 4.0);
    // the exit's window is the last, 3 instructions counted, scaled by its factor 260 / 60 / 4
    let t = o.tallies.last().expect("the exit's window");
    assert!((t.gaps[0] - 3.0 * 260.0 / 60.0 / 4.0).abs() < 1e-9, "{t:?}");
}

/// A batch at a CPI not seen before gets a window at once, where the views'
/// own schedule would skip: the next batch, counted after a warm-up on its own
/// head (the third period's, at a stretch its offset leaves out). A second
/// batch at that CPI does not: a run at one CPI throughout has its periods'
/// windows and the one after its first batch.
#[test]
fn a_new_cpi_gets_a_window_of_its_own() {
    let period = 8;
    let mut s = Sampled::exact(Toy::default()).sampled(period, 0);
    let mut commit = 0.0;
    // two whole periods at the loop's CPI, then the third up to two batches the schedule skips
    let at = (2 * period..3 * period - 1).find(|&b| regular(b, period).is_none() && regular(b + 1, period).is_none()).expect("a skipped stretch");
    for _ in 0..at {
        feed_timed(&mut s, &mut commit, 8, 1.0);
    }
    let got: Vec<Details> = (0..2).map(|_| feed_timed(&mut s, &mut commit, 8, 30.0)).collect();
    assert_eq!(got, [Details::None, Details::All]);
    let mut s2 = Sampled::exact(Toy::default()).sampled(period, 0);
    let mut c2 = 0.0;
    let first = feed_timed(&mut s2, &mut c2, 8, 30.0);
    assert_eq!(first, Details::None, "the schedule's first batch");
    let again: Vec<Details> = (0..2 * period).map(|_| feed_timed(&mut s2, &mut c2, 8, 30.0)).collect();
    let windows = again.iter().filter(|d| **d == Details::All).count();
    assert_eq!(windows as u64, 2 + 1, "{again:?}");
}

/// A catch-up is the views' own: a sampled run's unit straight after a skipped
/// batch that was the first at its CPI (the end of the exact prefix) warms the
/// views up, as after any skipped batch, instead of counting from its head on.
#[test]
fn a_unit_after_a_new_cpi_warms_up_as_after_any_skipped_batch() {
    let period = 8;
    let mut s = Sampled::exact(Toy::default()).sampled(period, 0);
    let mut commit = 0.0;
    let first = feed_timed(&mut s, &mut commit, 8, 1.0);
    assert_eq!(first, Details::None, "the schedule's first batch");
    assert_eq!(s.begin_part(8, BatchPart::Unit { weight: 8.0 }), Details::From(0));
}
