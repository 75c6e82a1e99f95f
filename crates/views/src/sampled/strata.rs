//! Post-stratification of the views' own windows by the cycles per instruction
//! of their batch.
//!
//! Where the model times every instruction (an exact run, a sampled run's exact
//! prefix) the views still count only their own windows, but the cycles of every
//! batch are known. A window stands for `period` batches; that is right for code
//! that repeats and wrong for code that runs once: a window that catches a
//! program's exit (cold code, instruction-cache misses from DRAM, CPI ten times
//! the loop's) counted `period` times made `phases 40`'s Frontend_Bound 11.2 %
//! where every instruction counted gives 7.2 %; missed, 5.3 % one round fewer
//! (7.6 %).
//!
//! So the batches are grouped by their CPI (half-octave bins), and the windows
//! of a bin stand for the bin's cycles, not for `period` times their own: the
//! classical post-stratified ratio estimator, `Σ_h C_h · ȳ_h / c̄_h`, with `C_h`
//! the cycles of every batch of bin `h` and the means over its windows. A bin
//! without a window joins the nearest bin that has one. A window of the exit then
//! stands for the exit's few batches, a loop's windows for the loop's many.
//! And after a skipped batch at a CPI not seen before the next batch is a
//! window (the sampler's catch-up, `super::Sampled`), so that the exit, two or
//! three batches long, is seldom missed.

/// Bins per octave of CPI, and how many: CPI from 2^-16 to 2^16 covers any batch.
const BINS_PER_OCTAVE: f64 = 2.0;
const BINS: usize = 64;

/// Cycles and windows of every batch the views' own schedule passed after
/// their exact prefix, by CPI bin.
#[derive(Clone, Debug)]
pub(super) struct BatchStrata {
    batch_cycles: [f64; BINS],
    batches: [u32; BINS],
    window_cycles: [f64; BINS],
    windows: [u32; BINS],
}

impl Default for BatchStrata {
    fn default() -> Self {
        BatchStrata { batch_cycles: [0.0; BINS], batches: [0; BINS], window_cycles: [0.0; BINS], windows: [0; BINS] }
    }
}

/// The CPI bin of a batch.
pub(super) fn bin_of(cycles: f64, instructions: usize) -> usize {
    let cpi = cycles / instructions.max(1) as f64;
    // (no cycles, or not a number: the lowest bin)
    if cpi.is_nan() || cpi <= 0.0 {
        return 0;
    }
    let b = (cpi.log2() * BINS_PER_OCTAVE).floor() + (BINS / 2) as f64;
    b.clamp(0.0, (BINS - 1) as f64) as usize
}

impl BatchStrata {
    /// A batch the schedule passed (skipped, warmed up on or counted); whether
    /// it is the first of its bin.
    pub(super) fn add_batch(&mut self, bin: usize, cycles: f64) -> bool {
        self.batch_cycles[bin] += cycles;
        self.batches[bin] += 1;
        self.batches[bin] == 1
    }

    /// A counted window of `cycles` (its batch is added with [`Self::add_batch`] too).
    pub(super) fn add_window(&mut self, bin: usize, cycles: f64) {
        self.window_cycles[bin] += cycles;
        self.windows[bin] += 1;
    }

    /// By bin, the factor on the weight of a window of that bin: what the bin's
    /// batches took (with those of the bins without windows nearest to it) over
    /// what its windows took, per `period`: 1 when its windows took their share of
    /// its cycles, as windows of repeating code do. Without windows, every factor 1.
    pub(super) fn factors(&self, period: u64) -> [f64; BINS] {
        let mut f = [1.0; BINS];
        let with: Vec<usize> = (0..BINS).filter(|&b| self.windows[b] > 0).collect();
        if with.is_empty() {
            return f;
        }
        let mut stands_for = [0.0; BINS];
        for b in 0..BINS {
            // the nearest bin with windows (the lower one on a tie)
            let k = with.partition_point(|&w| w < b);
            let near = match (k.checked_sub(1).map(|i| with[i]), with.get(k)) {
                (Some(lo), Some(&hi)) => if b - lo <= hi - b { lo } else { hi },
                (Some(lo), None) => lo,
                (None, Some(&hi)) => hi,
                (None, None) => unreachable!("some bin has windows"),
            };
            stands_for[near] += self.batch_cycles[b];
        }
        for &b in &with {
            if self.window_cycles[b] > 0.0 {
                f[b] = stands_for[b] / self.window_cycles[b] / period as f64;
            }
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half-octave bins, from CPI 1 (bin 32) up: [1, √2), [√2, 2)...: 0.25 and 0.3
    /// share [0.25, 0.354), 0.4 is in the next; 1 and 1.4 share a bin, 1.5 is in the
    /// next; no cycles and absurd CPIs land in the end bins.
    #[test]
    fn bins_are_half_octaves_of_cpi() {
        let n = 1000;
        assert_eq!(bin_of(250.0, n), bin_of(300.0, n));
        assert_eq!(bin_of(250.0, n) + 1, bin_of(400.0, n));
        assert_eq!(bin_of(1000.0, n), BINS / 2);
        assert_eq!(bin_of(1400.0, n), BINS / 2);
        assert_eq!(bin_of(1500.0, n), BINS / 2 + 1);
        assert_eq!(bin_of(0.0, n), 0);
        assert_eq!(bin_of(1e30, n), BINS - 1);
    }

    /// A loop of 80 batches of 1000 cycles with 10 windows among them (period
    /// 8), and an exit of 3 batches of 20 000 cycles with one window: the loop's
    /// windows stand for 80 000 / 10 000 = 8 batches each (factor 1), the exit's
    /// for 60 000 / 20 000 = 3 (factor 3 / 8).
    #[test]
    fn a_window_of_one_off_code_stands_for_its_own_batches() {
        let mut s = BatchStrata::default();
        let loop_bin = bin_of(1000.0, 4096);
        let exit_bin = bin_of(20000.0, 4096);
        for k in 0..80 {
            s.add_batch(loop_bin, 1000.0);
            if k % 8 == 0 {
                s.add_window(loop_bin, 1000.0);
            }
        }
        for k in 0..3 {
            s.add_batch(exit_bin, 20000.0);
            if k == 1 {
                s.add_window(exit_bin, 20000.0);
            }
        }
        let f = s.factors(8);
        assert!((f[loop_bin] - 1.0).abs() < 1e-12, "{}", f[loop_bin]);
        assert!((f[exit_bin] - 3.0 / 8.0).abs() < 1e-12, "{}", f[exit_bin]);
    }

    /// Bins without windows join the nearest bin with some: a loop bin's
    /// neighbour (one bin up, 16 batches of 1500 cycles, no window) joins it, and
    /// a bin three up from the loop and one below the exit joins the exit's.
    #[test]
    fn a_bin_without_windows_joins_the_nearest() {
        let mut s = BatchStrata::default();
        let (lo, exit) = (20, 30);
        for k in 0..80 {
            s.add_batch(lo, 1000.0);
            if k % 8 == 0 {
                s.add_window(lo, 1000.0);
            }
        }
        s.add_batch(lo + 1, 16.0 * 1500.0);
        s.add_batch(exit - 1, 5000.0);
        s.add_batch(exit, 20000.0);
        s.add_window(exit, 20000.0);
        let f = s.factors(8);
        assert!((f[lo] - (80_000.0 + 24_000.0) / 10_000.0 / 8.0).abs() < 1e-12);
        assert!((f[exit] - 25_000.0 / 20_000.0 / 8.0).abs() < 1e-12);
        // a tie goes to the lower bin: bin 25 is 5 from both
        s.add_batch(25, 8000.0);
        let g = s.factors(8);
        assert!((g[lo] - (80_000.0 + 24_000.0 + 8000.0) / 10_000.0 / 8.0).abs() < 1e-12);
    }

    /// No window: every factor 1; one window: it stands for every batch, 600 cycles.
    #[test]
    fn without_windows_nothing_changes() {
        let mut s = BatchStrata::default();
        s.add_batch(10, 500.0);
        assert!(s.factors(8).iter().all(|&x| x == 1.0));
        s.add_window(12, 100.0);
        s.add_batch(12, 100.0);
        // (a bin without windows has no window to weigh: its factor is never read)
        assert!((s.factors(4)[12] - 600.0 / 100.0 / 4.0).abs() < 1e-12);
    }
}
