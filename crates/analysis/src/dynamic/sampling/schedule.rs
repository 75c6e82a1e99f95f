//! Where the detailed windows fall: one window (a detailed warm-up, then the
//! measured unit) per sampling period, at an offset within the period drawn
//! afresh for each period.
//!
//! The schedule counts in batches of the timed stream. A fixed offset would
//! measure the same phase of a program whose own period divides the sampling
//! period every time (aliasing: a loop nest whose slow and fast halves
//! alternate every `P` batches would be measured in one half only). A
//! uniformly random offset per period makes every batch equally likely to be
//! measured, whatever the program's period, so the expansion estimate is
//! unbiased (stratified sampling with one unit per period). The draws come from
//! a fixed hash of (seed, period number): runs repeat.
//!
//! The period changes only between periods, and every change starts a new
//! stratum (see `estimator`): the strata record how many instructions each
//! period length covered and which units were measured in it.

use super::estimator::{Design, Stratum};

/// What the timing model does with one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowStep {
    /// Functional layer only (caches, TLBs, predictors warm); not timed.
    FastForward,
    /// Timed in detail to bring the pipeline's state back; not measured.
    WarmUp,
    /// Timed and measured.
    Unit,
}

pub struct WindowSchedule {
    warm_up: u64,
    unit: u64,
    period: u64,
    /// The period to use from the next period boundary on.
    pending: Option<u64>,
    seed: u64,
    /// Batch index within the current period, and the window's offset in it.
    pos: u64,
    offset: u64,
    periods: u64,
    /// Batches scheduled so far (the next one's number).
    batches: u64,
    design: Design,
    /// The period of each stratum.
    periods_by_stratum: Vec<u64>,
    units: usize,
}

/// splitmix64: a fixed, well-mixed hash of one word.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl WindowSchedule {
    /// `warm_up` and `unit` batches per window, one window every `period`
    /// batches (at least the window's length). `unit_instructions`: a unit's size.
    pub fn new(warm_up: u64, unit: u64, period: u64, seed: u64, unit_instructions: u64, prefix_instructions: u64) -> Self {
        let period = period.max(warm_up + unit);
        let mut s = WindowSchedule {
            warm_up,
            unit,
            period,
            pending: None,
            seed,
            pos: 0,
            offset: 0,
            periods: 0,
            batches: 0,
            design: Design { unit_instructions, prefix_instructions, strata: Vec::new() },
            periods_by_stratum: Vec::new(),
            units: 0,
        };
        s.start_stratum();
        s.offset = s.draw_offset();
        s
    }

    pub fn period(&self) -> u64 {
        self.period
    }

    pub fn window_batches(&self) -> u64 {
        self.warm_up + self.unit
    }

    /// Use `period` batches per window from the next period on (a new stratum).
    pub fn set_period(&mut self, period: u64) {
        let p = period.max(self.window_batches());
        self.pending = (p != self.period).then_some(p);
    }

    fn draw_offset(&self) -> u64 {
        let slack = self.period - self.window_batches();
        mix(mix(self.seed) ^ self.periods) % (slack + 1)
    }

    fn start_stratum(&mut self) {
        self.periods_by_stratum.push(self.period);
        self.design.strata.push(Stratum { instructions: 0, first_unit: self.units, units: 0 });
    }

    /// The step for the next batch.
    pub fn next(&mut self) -> WindowStep {
        if self.pos == self.period {
            self.pos = 0;
            self.periods += 1;
            if let Some(p) = self.pending.take() {
                self.period = p;
                self.start_stratum();
            }
            self.offset = self.draw_offset();
        }
        let r = self.pos;
        self.pos += 1;
        self.batches += 1;
        if r < self.offset || r >= self.offset + self.window_batches() {
            WindowStep::FastForward
        } else if r < self.offset + self.warm_up {
            WindowStep::WarmUp
        } else {
            WindowStep::Unit
        }
    }

    /// The batch just scheduled held `instructions`; `measured` if it was a
    /// complete unit whose cycles were recorded (a cut-off last one is not).
    pub fn record(&mut self, instructions: u64, measured: bool) {
        let s = self.design.strata.last_mut().expect("a stratum is open");
        s.instructions += instructions;
        if measured {
            s.units += 1;
            self.units += 1;
        }
    }

    /// Whether the current period is complete (the next batch starts a new one).
    pub fn at_period_end(&self) -> bool {
        self.pos == self.period
    }

    pub fn units(&self) -> usize {
        self.units
    }

    pub fn design(&self) -> &Design {
        &self.design
    }

    pub fn periods_by_stratum(&self) -> &[u64] {
        &self.periods_by_stratum
    }

    pub fn into_design(self) -> Design {
        self.design
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_window_per_period_inside_it() {
        let mut s = WindowSchedule::new(1, 1, 10, 7, 100, 0);
        for _ in 0..50 {
            let steps: Vec<WindowStep> = (0..10).map(|_| s.next()).collect();
            assert_eq!(steps.iter().filter(|&&x| x == WindowStep::WarmUp).count(), 1);
            assert_eq!(steps.iter().filter(|&&x| x == WindowStep::Unit).count(), 1);
            let w = steps.iter().position(|&x| x == WindowStep::WarmUp).unwrap();
            assert_eq!(steps[w + 1], WindowStep::Unit, "the unit follows its warm-up");
        }
    }

    #[test]
    fn offsets_cover_every_position() {
        // over many periods every admissible offset (0..=8 for a window of 2 in 10) occurs
        let mut s = WindowSchedule::new(1, 1, 10, 1, 100, 0);
        let mut seen = [0u32; 10];
        for _ in 0..2000 {
            let steps: Vec<WindowStep> = (0..10).map(|_| s.next()).collect();
            seen[steps.iter().position(|&x| x == WindowStep::Unit).unwrap()] += 1;
        }
        assert_eq!(seen[0], 0, "a unit never comes first: its warm-up does");
        // 2000 draws over 9 positions: ~222 each; 150 is more than 5 sigma below
        assert!(seen[1..].iter().all(|&n| n > 150), "{seen:?}");
    }

    #[test]
    fn a_new_period_starts_a_new_stratum_at_the_boundary() {
        let mut s = WindowSchedule::new(1, 1, 4, 3, 10, 0);
        for _ in 0..2 {
            let st = s.next();
            s.record(10, st == WindowStep::Unit);
        }
        s.set_period(8);
        // the current period (4 batches) finishes at the old length
        for _ in 0..2 {
            let st = s.next();
            s.record(10, st == WindowStep::Unit);
        }
        assert_eq!(s.design().strata.len(), 1);
        for _ in 0..8 {
            let st = s.next();
            s.record(10, st == WindowStep::Unit);
        }
        let d = s.design();
        assert_eq!(d.strata.len(), 2);
        assert_eq!((d.strata[0].instructions, d.strata[0].units), (40, 1));
        assert_eq!((d.strata[1].instructions, d.strata[1].units, d.strata[1].first_unit), (80, 1, 1));
    }
}
