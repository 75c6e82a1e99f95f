//! Where the detailed windows fall: one measured unit per sampling period, at
//! a position within the period drawn afresh for each period, preceded by its
//! detailed warm-up (which, for a unit at the start of a period, lies at the end
//! of the period before).
//!
//! The schedule counts in batches of the timed stream. A fixed offset would
//! measure the same phase of a program whose own period divides the sampling
//! period every time (aliasing: a loop nest whose slow and fast halves
//! alternate every `P` batches would be measured in one half only). A
//! uniformly random offset per period makes every batch equally likely to be
//! measured, whatever the program's period, so the expansion estimate is
//! unbiased (stratified sampling with one unit per period). The unit may be any
//! batch of its period, the first one included: were its warm-up kept inside the
//! period, the first batch of every period would never be measured, and a
//! program whose period equals the sampling period would be measured in all
//! but one of its phases. The draws come from
//! a fixed hash of (seed, period number): runs repeat.
//!
//! The period changes only between periods, and every change starts a new
//! stratum (see `estimator`): the strata record how many instructions each
//! period length covered and which units were measured in it.
//!
//! The timing variants (sensitivity, idealizations) time a sub-sample of the
//! windows: in each stratum, one period in every `variants_every` (its own
//! choice, made with the period), drawn at random within each block of that
//! many consecutive periods, so that every unit of the stratum is in the
//! sub-sample with the same probability and no program period aliases with
//! the sub-sampling. The choice is known at the window's warm-up, which the
//! variants then time too.

use super::estimator::{Design, Stratum, Subsample};

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

#[derive(Clone)]
pub struct WindowSchedule {
    warm_up: u64,
    unit: u64,
    period: u64,
    /// The period to use from the next period boundary on.
    pending: Option<u64>,
    seed: u64,
    /// Batch index within the current period, its unit's position, and the
    /// next period's (drawn at this period's last batch, to warm up for it).
    pos: u64,
    unit_at: u64,
    next_unit_at: u64,
    periods: u64,
    /// Batches scheduled so far (the next one's number).
    batches: u64,
    design: Design,
    /// The period of each stratum.
    periods_by_stratum: Vec<u64>,
    units: usize,
    /// One window in `variants_every` periods is timed by the variants too: the
    /// current stratum's, and the next stratum's when a period change is pending.
    variants_every: u64,
    pending_every: u64,
    /// The period number the current stratum began with.
    stratum_first_period: u64,
    /// What the variants do with the batch just scheduled.
    variants_step: WindowStep,
    /// The sub-sample: the measured units the variants timed (indices in unit
    /// order), and each stratum's `variants_every`.
    variant_units: Vec<usize>,
    every_by_stratum: Vec<u64>,
}

/// Salt of the sub-sample's draws (independent of the units' positions).
const SUBSAMPLE_SALT: u64 = 0x5ab5_a3b1e;

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
            unit_at: 0,
            next_unit_at: 0,
            periods: 0,
            batches: 0,
            design: Design { unit_instructions, prefix_instructions, strata: Vec::new() },
            periods_by_stratum: Vec::new(),
            units: 0,
            variants_every: 1,
            pending_every: 1,
            stratum_first_period: 0,
            variants_step: WindowStep::FastForward,
            variant_units: Vec::new(),
            every_by_stratum: Vec::new(),
        };
        s.start_stratum();
        s.unit_at = s.draw(0, period);
        s
    }

    pub fn period(&self) -> u64 {
        self.period
    }

    pub fn window_batches(&self) -> u64 {
        self.warm_up + self.unit
    }

    /// Start a new stratum at the next period, of `period` batches per window (the
    /// same period too: the controller then reads the new stratum's own variance).
    /// Call it before the current period's last batch is scheduled
    /// ([`WindowSchedule::at_last_batch`]), so that a unit at the start of the
    /// next period gets its warm-up.
    pub fn set_period(&mut self, period: u64) {
        self.set_stratum(period, 1);
    }

    /// As [`WindowSchedule::set_period`], the variants timing one window in
    /// `variants_every` periods of the new stratum.
    pub fn set_stratum(&mut self, period: u64, variants_every: u64) {
        self.pending = Some(period.max(self.window_batches()));
        self.pending_every = variants_every.max(1);
    }

    /// The first stratum's sub-sampling (before the first batch is scheduled).
    pub fn with_variants_every(mut self, variants_every: u64) -> Self {
        debug_assert_eq!(self.batches, 0, "set before the first batch");
        self.variants_every = variants_every.max(1);
        *self.every_by_stratum.last_mut().expect("a stratum is open") = self.variants_every;
        self
    }

    /// Whether the variants time period `q`'s window: `q` the `j`-th period of
    /// stratum `h`, sub-sampled one in `every`.
    fn variants_time(&self, h: usize, j: u64, every: u64) -> bool {
        every <= 1 || mix(mix(self.seed ^ SUBSAMPLE_SALT) ^ ((h as u64) << 40) ^ (j / every)) % every == j % every
    }

    /// The unit's position in period `q` of `len` batches: uniform over `0..len`.
    fn draw(&self, q: u64, len: u64) -> u64 {
        mix(mix(self.seed) ^ q) % len
    }

    fn start_stratum(&mut self) {
        self.periods_by_stratum.push(self.period);
        self.every_by_stratum.push(self.variants_every);
        self.design.strata.push(Stratum { instructions: 0, first_unit: self.units, units: 0 });
    }

    /// The step for the next batch.
    pub fn next(&mut self) -> WindowStep {
        if self.pos == self.period {
            self.pos = 0;
            self.periods += 1;
            if let Some(p) = self.pending.take() {
                self.period = p;
                self.variants_every = self.pending_every;
                self.stratum_first_period = self.periods;
                self.start_stratum();
            }
            self.unit_at = self.next_unit_at;
        }
        let r = self.pos;
        self.pos += 1;
        self.batches += 1;
        if r + 1 == self.period {
            let next_len = self.pending.unwrap_or(self.period);
            self.next_unit_at = self.draw(self.periods + 1, next_len);
        }
        // units span `unit` batches from `unit_at`; the warm-up the `warm_up` before,
        // into the end of this period for the next period's unit
        let in_unit = r >= self.unit_at && r < self.unit_at + self.unit;
        let warms_this = r < self.unit_at && self.unit_at - r <= self.warm_up;
        let warms_next = self.period - r + self.next_unit_at <= self.warm_up && r + 1 >= self.period.saturating_sub(self.warm_up);
        // the variants: this period's unit and its warm-up if it is in their
        // sub-sample; a batch that warms up for the next period's unit (this
        // period's unit included, when the next one starts its period) if that one is
        let h = self.design.strata.len() - 1;
        let this_period = self.periods - self.stratum_first_period;
        let this_in = (in_unit || warms_this) && self.variants_time(h, this_period, self.variants_every);
        let next_in = warms_next
            && match self.pending {
                Some(_) => self.variants_time(h + 1, 0, self.pending_every),
                None => self.variants_time(h, this_period + 1, self.variants_every),
            };
        self.variants_step = match (this_in, next_in) {
            (true, _) if in_unit => WindowStep::Unit,
            (true, _) | (false, true) => WindowStep::WarmUp,
            (false, false) => WindowStep::FastForward,
        };
        if in_unit {
            WindowStep::Unit
        } else if warms_this || warms_next {
            WindowStep::WarmUp
        } else {
            WindowStep::FastForward
        }
    }

    /// What the variants do with the batch just scheduled: time it as a unit
    /// of their sub-sample or as its warm-up, or skip it (`FastForward`).
    pub fn variants_step(&self) -> WindowStep {
        self.variants_step
    }

    /// Whether the next batch is the last of its period (the time to change the period).
    pub fn at_last_batch(&self) -> bool {
        self.pos + 1 == self.period
    }

    /// The batch just scheduled held `instructions`; `measured` if it was a
    /// complete unit whose cycles were recorded (a cut-off last one is not).
    pub fn record(&mut self, instructions: u64, measured: bool) {
        let s = self.design.strata.last_mut().expect("a stratum is open");
        s.instructions += instructions;
        if measured {
            if self.variants_step == WindowStep::Unit {
                self.variant_units.push(self.units);
            }
            s.units += 1;
            self.units += 1;
        }
    }

    pub fn units(&self) -> usize {
        self.units
    }

    /// The units the variants timed so far (their sub-sample).
    pub fn variant_units(&self) -> usize {
        self.variant_units.len()
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

    /// The design and its sub-sample (the variants' units).
    pub fn into_parts(self) -> (Design, Subsample) {
        (self.design, Subsample { units: self.variant_units, every_by_stratum: self.every_by_stratum })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn periods(s: &mut WindowSchedule, period: usize, count: usize) -> Vec<Vec<WindowStep>> {
        (0..count).map(|_| (0..period).map(|_| s.next()).collect()).collect()
    }

    #[test]
    fn one_unit_per_period_each_after_its_warm_up() {
        let mut s = WindowSchedule::new(1, 1, 10, 7, 100, 0);
        let all: Vec<WindowStep> = periods(&mut s, 10, 200).concat();
        for p in all.chunks(10) {
            assert_eq!(p.iter().filter(|&&x| x == WindowStep::Unit).count(), 1);
        }
        // every unit but the very first follows a warm-up or another unit (already warm)
        for (k, w) in all.iter().enumerate().skip(1) {
            if *w == WindowStep::Unit {
                assert_ne!(all[k - 1], WindowStep::FastForward, "unit at batch {k} not warmed up");
            }
        }
        // and a warm-up is always followed by its unit
        for (k, w) in all.iter().enumerate() {
            if *w == WindowStep::WarmUp {
                assert_eq!(all[k + 1], WindowStep::Unit, "warm-up at batch {k} without its unit");
            }
        }
    }

    #[test]
    fn units_fall_on_every_position_of_the_period() {
        // the first batch of a period included (its warm-up ends the period before)
        let mut s = WindowSchedule::new(1, 1, 10, 1, 100, 0);
        let mut seen = [0u32; 10];
        for p in periods(&mut s, 10, 2000) {
            seen[p.iter().position(|&x| x == WindowStep::Unit).unwrap()] += 1;
        }
        // 2000 draws over 10 positions: 200 each; 130 is 5 sigma below
        assert!(seen.iter().all(|&n| n > 130), "{seen:?}");
    }

    #[test]
    fn a_new_period_starts_a_new_stratum_at_the_boundary() {
        let mut s = WindowSchedule::new(1, 1, 4, 3, 10, 0);
        let run = |s: &mut WindowSchedule, n: usize| {
            for _ in 0..n {
                let st = s.next();
                s.record(10, st == WindowStep::Unit);
            }
        };
        run(&mut s, 3);
        assert!(s.at_last_batch());
        s.set_period(8);
        run(&mut s, 1);
        assert_eq!(s.design().strata.len(), 1, "the current period finishes at the old length");
        run(&mut s, 8);
        let d = s.design();
        assert_eq!(d.strata.len(), 2);
        assert_eq!((d.strata[0].instructions, d.strata[0].units), (40, 1));
        assert_eq!((d.strata[1].instructions, d.strata[1].units, d.strata[1].first_unit), (80, 1, 1));
    }
}
