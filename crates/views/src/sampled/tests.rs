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
