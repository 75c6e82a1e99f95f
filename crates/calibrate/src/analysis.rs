//! Pure arithmetic on timings: minima and spreads, step detection for Wong's tests, and
//! the conversions from measured cycles to the machine model's parameters.

/// Smallest value (NaN-free input).
pub fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// How far the median repetition is above the fastest, in percent.
pub fn spread_pct(v: &[f64]) -> f64 {
    let m = min(v);
    if m <= 0.0 || !m.is_finite() {
        return 0.0;
    }
    (median(v) - m) / m * 100.0
}

/// A step found in a curve y(x).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Level before and after the step.
    pub low: f64,
    pub high: f64,
    /// x where the curve crosses half-way between the levels (linear interpolation).
    pub crossing: f64,
}

/// Finds the (first lasting) rise of `points` (x ascending): `low` is the median of the
/// first three points, `high` the median of the last three; the step is where the curve
/// crosses their middle and stays above it for most of the remaining points (so one noisy
/// point before the step does not move it). `None` when the curve does not at least rise
/// by `min_ratio`.
pub fn find_step(points: &[(f64, f64)], min_ratio: f64) -> Option<Step> {
    if points.len() < 6 {
        return None;
    }
    let ys: Vec<f64> = points.iter().map(|p| p.1).collect();
    let low = median(&ys[..3]);
    let high = median(&ys[ys.len() - 3..]);
    if high.is_nan() || high <= low * min_ratio {
        return None;
    }
    let mid = (low + high) / 2.0;
    let n = points.len();
    let i = (1..n).find(|&i| {
        let above = points[i..].iter().filter(|p| p.1 > mid).count();
        points[i].1 > mid && above as f64 >= 0.8 * (n - i) as f64
    })?;
    let (x0, y0) = points[i - 1];
    let (x1, y1) = points[i];
    let f = if y1 > y0 { ((mid - y0) / (y1 - y0)).clamp(0.0, 1.0) } else { 0.5 };
    Some(Step { low, high, crossing: x0 + f * (x1 - x0) })
}

/// Structure size from a Wong step: the last filler count still below the step (the
/// crossing lies half-way between it and the first count above) plus the entries the two
/// missing loads take themselves.
pub fn wong_size(step: &Step, extra_entries: u32) -> f64 {
    (step.crossing - 0.5).round().max(0.0) + extra_entries as f64
}

/// The model's mispredict penalty (from the branch's resolution to the first correct-path
/// dispatch) from cycles per branch with a random and with a learnable pattern of the same
/// taken ratio: the difference is per mispredicted branch over the random pattern's
/// mispredict rate, minus the time the correct path needs to resolve the next branch
/// (`resolution`: the load feeding it plus the fused test/jcc).
pub fn mispredict_penalty(random: f64, predictable: f64, mispredict_rate: f64, resolution: f64) -> (f64, f64) {
    let per_miss = (random - predictable) / mispredict_rate;
    (per_miss, per_miss - resolution)
}

/// Vector load-to-use: a chase `movq xmm0, [rax]; movq rax, xmm0` costs the load plus the
/// xmm->GPR move; the move is taken as half a GPR->xmm->GPR round trip.
pub fn vector_load_latency(vector_chase: f64, round_trip: f64) -> f64 {
    vector_chase - round_trip / 2.0
}

/// Widths are integers in the model: snap to the nearest one when within 0.15.
pub fn snap_width(ipc: f64) -> f64 {
    let r = ipc.round();
    if (ipc - r).abs() <= 0.15 {
        r
    } else {
        (ipc * 100.0).round() / 100.0
    }
}

/// Snaps a measured reciprocal throughput to the nearest 1/k (k = 1..8 units) or whole
/// number of cycles when it lies within `tolerance` (a fraction) of it: a loop's own
/// overhead makes 96 copies of a half-cycle form read 0.52, and a table that says 0.52
/// where the core does 0.5 would slow every loop of it by 4 %.
pub fn snap_rthroughput(v: f64, tolerance: f64) -> f64 {
    let candidates = (1..=8).map(|k| 1.0 / k as f64).chain((2..=64).map(|k| k as f64));
    candidates
        .filter(|c| (v - c).abs() <= tolerance * c)
        .min_by(|a, b| (v - a).abs().total_cmp(&(v - b).abs()))
        .unwrap_or((v * 1000.0).round() / 1000.0)
}

/// Port-conflict degree of two forms from their cycles per instance alone (`a`, `b`) and
/// per pair interleaved (`ab`): 0 when the pair runs in max(a, b) (disjoint resources),
/// 1 when in a + b (one shared resource).
pub fn conflict(a: f64, b: f64, ab: f64) -> f64 {
    let lo = a.min(b);
    if lo <= 0.0 {
        return 0.0;
    }
    ((ab - a.max(b)) / lo).clamp(0.0, 1.5)
}

/// Cycles the timing model adds to a load-add-store round through memory besides the
/// forwarding: the chain's add, and the cycle in which the store writes its data once the
/// store-data uop has it (`STORE_WRITE_CYCLES` of crates/timing's model).
const ROUND_ADD_CYCLES: f64 = 1.0;
const STORE_WRITE_CYCLES: f64 = 1.0;

/// The model's `store_forward_latency` (from the store writing its data to the load's
/// result) from cycles per round of a load-add-store chain whose store names the address
/// differently from the load: the model times such a round as forwarding + add + write.
pub fn store_forward_latency(aliased_round: f64) -> f64 {
    (aliased_round - ROUND_ADD_CYCLES - STORE_WRITE_CYCLES).max(0.0)
}

/// Whether the core renames memory: the chain whose store names the same address
/// expression as its load runs clearly faster (at most 3/4 of the time and 1.5 cycles
/// less per round) than the one that needs store forwarding.
pub fn renames_memory(aliased_round: f64, same_round: f64) -> bool {
    same_round <= 0.75 * aliased_round && aliased_round - same_round >= 1.5
}

/// Whether the chain whose store names the address another way was renamed too: a round
/// within half a cycle of the add alone is not store forwarding (which the model charges
/// with the store's write besides), but the load taking the stored register at rename.
/// The Zen 5 (family 26) under these sessions does so: 1.00 cycles a round both ways.
pub fn renamed_across_namings(aliased_round: f64) -> bool {
    aliased_round < ROUND_ADD_CYCLES + 0.5
}

/// The model's `renamed_forward_latency` (from the store's data being ready to the renamed
/// load's result) from cycles per round of the same-expression chain: the model times it
/// as that latency + the add.
/// Snapped to a whole cycle within 0.15 (1.12 cycles a round on a busy host is the add
/// alone, not 0.12 cycles of forwarding).
pub fn renamed_forward_latency(same_round: f64) -> f64 {
    snap_width((same_round - ROUND_ADD_CYCLES).max(0.0))
}

/// The model's `icache_misses_in_flight` from cycles per 64-byte line of straight-line
/// code streamed from L2: the model delivers each further line of a sequential miss
/// stream (L2 latency - L1I latency) / misses-in-flight after the one before it; at least
/// one miss is in flight.
pub fn icache_misses_in_flight(line_cycles: f64, l2_latency: f64, l1i_latency: f64) -> f64 {
    ((l2_latency - l1i_latency).max(0.0) / line_cycles).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughputs_snap_to_unit_fractions() {
        assert_eq!(snap_rthroughput(0.52, 0.05), 0.5);
        assert_eq!(snap_rthroughput(0.245, 0.05), 0.25);
        assert_eq!(snap_rthroughput(0.34, 0.05), 1.0 / 3.0);
        assert_eq!(snap_rthroughput(4.9, 0.05), 5.0);
        // 8.4 is 5 % from 8 and 9: a real value between them stays
        assert_eq!(snap_rthroughput(8.4, 0.03), 8.4);
        assert_eq!(snap_rthroughput(0.42, 0.05), 0.42);
    }

    #[test]
    fn step_in_the_middle() {
        // sizes 0..400 step 8, step after 250 (last low at 248)
        let pts: Vec<(f64, f64)> = (0..=50).map(|i| (i as f64 * 8.0, if i * 8 <= 248 { 400.0 } else { 800.0 })).collect();
        let s = find_step(&pts, 1.3).unwrap();
        assert!((s.crossing - 252.0).abs() < 1e-9, "{s:?}");
        // fine sweep with step 1: last low at 254 -> size 254 + 2
        let pts: Vec<(f64, f64)> = (240..=270).map(|x| (x as f64, if x <= 254 { 400.0 } else { 800.0 })).collect();
        let s = find_step(&pts, 1.3).unwrap();
        assert_eq!(wong_size(&s, 2), 256.0);
    }

    #[test]
    fn a_lone_spike_before_the_step_is_ignored() {
        let mut pts: Vec<(f64, f64)> = (0..40).map(|i| (i as f64 * 4.0, if i < 30 { 100.0 } else { 200.0 })).collect();
        pts[5].1 = 190.0;
        let s = find_step(&pts, 1.3).unwrap();
        assert!((s.crossing - 118.0).abs() < 1e-9, "{s:?}");
    }

    #[test]
    fn flat_curves_have_no_step() {
        let pts: Vec<(f64, f64)> = (0..20).map(|i| (i as f64, 100.0 + (i % 3) as f64)).collect();
        assert!(find_step(&pts, 1.3).is_none());
    }

    #[test]
    fn forwarding_and_renaming_in_model_terms() {
        // a round of 7.6 cycles without renaming: 5.6 of forwarding once the add (1) and the
        // store's write (1) are taken out; the same chain renamed at 1.0 a round is the add alone
        assert!((store_forward_latency(7.6) - 5.6).abs() < 1e-9);
        assert!(renames_memory(7.6, 1.0));
        assert_eq!(renamed_forward_latency(1.0), 0.0);
        assert_eq!(renamed_forward_latency(1.12), 0.0);
        assert_eq!(renamed_forward_latency(2.5), 1.5);
        // an Intel-like core: both chains about 5 cycles, no renaming
        assert!(!renames_memory(5.0, 4.9));
        // a little faster is not renaming (1.2 cycles, under 1.5)
        assert!(!renames_memory(4.0, 2.8));
        assert_eq!(store_forward_latency(1.5), 0.0);
        // a round at the add's pace through a store naming the address another way is renaming
        assert!(renamed_across_namings(1.0) && renamed_across_namings(1.12));
        assert!(!renamed_across_namings(2.0) && !renamed_across_namings(7.6));
    }

    #[test]
    fn misses_in_flight_from_the_line_rate() {
        // L2 14, L1I 1: 4 cycles per line means 13 / 4 = 3.25 lines in flight
        assert!((icache_misses_in_flight(4.0, 14.0, 1.0) - 3.25).abs() < 1e-9);
        // slower than one miss at a time: the model's floor of one
        assert_eq!(icache_misses_in_flight(20.0, 14.0, 1.0), 1.0);
    }

    #[test]
    fn penalty_arithmetic() {
        // 24 cycles per mispredict, half the random branches mispredict: +12 per branch
        let (per, pen) = mispredict_penalty(14.0, 2.0, 0.5, 5.0);
        assert_eq!((per, pen), (24.0, 19.0));
        assert_eq!(snap_width(5.93), 6.0);
        assert_eq!(snap_width(5.5), 5.5);
        assert_eq!(conflict(1.0, 1.0, 2.0), 1.0);
        assert_eq!(conflict(1.0, 0.5, 1.0), 0.0);
    }
}
