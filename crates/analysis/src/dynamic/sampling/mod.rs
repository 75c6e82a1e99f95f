//! Sampled simulation of whole programs (SMARTS: Wunderlich et al., ISCA 2003).
//!
//! Every executed instruction goes through the functional layer (caches, TLBs,
//! predictors and prefetchers stay warm: functional warming). The timing model
//! runs only on periodic windows: a detailed warm-up of [`WARM_UP_BATCHES`]
//! batches brings the pipeline's state back, then a unit of [`UNIT_BATCHES`]
//! is measured; between windows it is not run at all (fast-forward). Every
//! variant (sensitivity, idealizations) and the views are timed on the same
//! windows, so their differences are paired per unit (a sensitivity variant
//! forks from the baseline's core shortly before each of its units:
//! `bottlenose_simulate::VARIANT_WARM_UP`).
//!
//! Runs start exact: the first [`DEFAULT_EXACT_BELOW`] instructions are timed in
//! full as an exact run times them (the variants on kept records, at the end
//! of a run that ends there), so that a run that ends before is exactly
//! today's run; past it, sampling begins and the prefix counts as an exact
//! stratum of the baseline's; the variants time the kept records after the
//! windows, whole or a sub-sample (`bottlenose_simulate::engine::LatePrefix`).
//! Sampling from the first instruction is `exact_below: 0`.
//!
//! * [`schedule`]: where the windows fall (random offset per period: no aliasing);
//! * [`estimator`]: totals, ratios and their confidence intervals from the units;
//! * [`code_mix`]: the total cycles from the run's exact instruction mix and the units' cycles per execution;
//! * [`controller`]: the period, from the observed variance, the target and the budget;
//! * [`signatures`]: the code each unit ran, and the spread of cycles within it (what the controller plans with);
//! * [`report`]: what the report says about the sample;
//! * [`topdown`]: the intervals of every node of the Top-Down tree;
//! * [`stacks`]: the CPI stacks' intervals, centred on the report's stacks;
//! * [`groups`]: the functions' and loops' shares, centred on the report's;
//! * [`finish`]: the units turned into the run's totals at its end;
//! * [`unit_costs`]: the baseline's cycles per instruction unit by unit (per-function intervals).

pub mod code_mix;
pub mod controller;
pub mod estimator;
pub mod finish;
pub mod groups;
pub mod report;
pub mod schedule;
pub mod signatures;
pub mod stacks;
pub mod topdown;
pub mod unit_costs;
#[cfg(test)]
mod look_ahead_tests;
#[cfg(test)]
mod subsample_tests;
#[cfg(test)]
mod synthetic_tests;
#[cfg(test)]
mod topdown_tests;

use bottlenose_simulate::engine::VariantsTime;
use bottlenose_timing::BatchPart;
use controller::{choose_period, variants_every, State, Target, VariantLoad, MIN_PERIOD};
use estimator::{Design, Running, Subsample};
use schedule::{WindowSchedule, WindowStep};
use signatures::SignatureLog;
use bottlenose_simulate::engine::Records;
use std::time::{Duration, Instant};

/// Below this many instructions a run is timed exactly (the default threshold).
/// The baseline and the views time the prefix as it comes; the variants
/// (sensitivity, the 1-cycle ALU, the idealized cores) wait, and the producer
/// keeps the prefix's records (16 bytes each, 80 for the few kept whole: about
/// 35 MB) to give them if the run ends there, so that a run below the threshold
/// is the exact run. Past it, the variants time the kept prefix after the
/// windows (the idealizations all of it in a run at most 10 times the prefix, a
/// sub-sample of its batches otherwise and for the sensitivity variants:
/// `bottlenose_trace_source`'s producer). With the variants timing the whole
/// prefix as it came, the prefix cost 1.1-1.3 CPU s
/// per million instructions, 25 times the sampled model's: 20 M (the threshold
/// before) made a default run of 677 M instructions 5 times as costly as its
/// model alone (bench/notes/sampling.md).
pub const DEFAULT_EXACT_BELOW: u64 = 2_000_000;
/// Default target: ±3 % on the total cycles at 99.7 % confidence.
pub const DEFAULT_TARGET: f64 = 0.03;
/// Batches of detailed warm-up before each unit, and batches per unit.
pub const WARM_UP_BATCHES: u64 = 1;
pub const UNIT_BATCHES: u64 = 1;
/// When the controller decides again at the latest after the previous decision
/// (instructions), while the run is short.
const FIRST_STRETCH: u64 = 1 << 22;

/// What keeps caches, TLBs, predictors and prefetchers warm between windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warming {
    /// Every instruction goes through the functional layer (SMARTS's
    /// functional warming): the most accurate, at the functional layer's speed.
    Full,
    /// QEMU fast-forwards between windows, counting only (the plugin's skip
    /// mode), and the functional layer warms on the `instructions` before each
    /// window's detailed warm-up. Needs the whole program as the region of interest.
    Window { instructions: u64 },
}

/// Functional warm-up before each window under [`Warming::Window`] (the default).
pub const DEFAULT_WINDOW_WARMING: u64 = 1 << 21;

/// How a run samples (`None` in [`crate::dynamic::DynamicOptions`]: exact).
#[derive(Debug, Clone)]
pub struct SamplingOptions {
    /// Between windows: functional warming throughout, or fast-forward.
    pub warming: Warming,
    /// Instructions timed in full before the first window.
    pub exact_below: u64,
    /// Relative half-width wanted on the total cycles (0.03: ±3 %).
    pub target: f64,
    /// Wall time the whole run may take (caps the sampling rate).
    pub budget: Option<Duration>,
    /// A fixed period in batches instead of the adaptive one.
    pub period: Option<u64>,
    /// Seed of the windows' offsets (runs repeat with the same seed).
    pub seed: u64,
}

impl Default for SamplingOptions {
    fn default() -> Self {
        SamplingOptions {
            warming: Warming::Window { instructions: DEFAULT_WINDOW_WARMING },
            exact_below: DEFAULT_EXACT_BELOW,
            target: DEFAULT_TARGET,
            budget: None,
            period: None,
            seed: 0,
        }
    }
}

/// The estimate shown while the run goes on.
#[derive(Debug, Clone, Copy)]
pub struct LiveEstimate {
    pub cpi: f64,
    /// Relative half-width of the interval on the cycles so far.
    pub relative_half_width: f64,
    pub units: u64,
    pub period: u64,
    /// Seconds until the interval reaches the target at the current rate (`None`: reached).
    pub eta_to_target: Option<f64>,
}

/// The producer's side of sampling: which batch is timed, and when the period changes.
pub struct Sampler {
    pub opts: SamplingOptions,
    target: Target,
    batch_instructions: u64,
    schedule: Option<WindowSchedule>,
    sampling_since: Option<Instant>,
    /// Baseline cycles of the exact prefix.
    prefix_cycles: f64,
    units: Running,
    /// The units received so far by stratum (feedback arrives in unit order).
    by_stratum: Vec<Running>,
    next_decision: u64,
    /// Wall-clock split between fast-forwarding and windows (for the budget).
    started: Instant,
    mark: Instant,
    last: WindowStep,
    fast_forward: (Duration, u64),
    windows: (Duration, u64),
    /// Timing cores beside the baseline's, which time a sub-sample of the windows.
    variant_cores: usize,
    signatures: SignatureLog,
    /// The units' spread within signatures for the progress line, recomputed
    /// when the units have grown by a sixteenth since (it is a pass over all
    /// of them; the progress line asks every 2^20 instructions).
    live_spread: Spread,
    live_spread_at: usize,
}

/// The units' cycles' spread within signatures and each unit's residual ([`signatures::within`]).
type Spread = (Running, Vec<f64>);

impl Sampler {
    pub fn new(opts: SamplingOptions, batch_instructions: u64) -> Self {
        let now = Instant::now();
        let target = Target { relative_half_width: opts.target, z: estimator::Z_99_7, budget: opts.budget };
        Sampler {
            opts,
            target,
            batch_instructions,
            schedule: None,
            sampling_since: None,
            prefix_cycles: 0.0,
            units: Running::default(),
            by_stratum: Vec::new(),
            next_decision: 0,
            started: now,
            mark: now,
            last: WindowStep::Unit,
            fast_forward: (Duration::ZERO, 0),
            windows: (Duration::ZERO, 0),
            variant_cores: 0,
            signatures: SignatureLog::default(),
            live_spread: Spread::default(),
            live_spread_at: 2,
        }
    }

    /// The run times `cores` timing cores beside the baseline's: they time a
    /// sub-sample of the windows, chosen per stratum ([`controller::variants_every`]).
    pub fn with_variant_cores(mut self, cores: usize) -> Self {
        self.variant_cores = cores;
        self
    }

    /// What the variants do with the batch just planned: wait in the exact
    /// prefix (the producer keeps its records and gives them to the variants if
    /// the run ends there; past it, a variant's prefix is estimated at its ratio
    /// to the baseline over the windows: [`finish::estimate`]), then time the
    /// windows of their sub-sample.
    pub fn variants_time(&self) -> VariantsTime {
        match self.schedule.as_ref().map(|s| (s.variants_step(), self.last)) {
            None if self.variant_cores > 0 => VariantsTime::Skip,
            None => VariantsTime::Same,
            Some((WindowStep::FastForward, _)) => VariantsTime::Skip,
            Some((WindowStep::WarmUp, WindowStep::Unit)) => VariantsTime::WarmUp,
            Some(_) => VariantsTime::Same,
        }
    }

    /// The sub-sampling of a stratum at `period` from `simulated` to `until` instructions.
    fn variants_every(&self, period: u64, simulated: u64, until: u64) -> u64 {
        let window_batches = WARM_UP_BATCHES + UNIT_BATCHES;
        let functional_batches = match self.opts.warming {
            Warming::Full => period as f64,
            Warming::Window { instructions } => (period as f64).min(instructions as f64 / self.batch_instructions as f64 + window_batches as f64),
        };
        let period_instructions = (period * self.batch_instructions) as f64;
        variants_every(&VariantLoad {
            cores: self.variant_cores,
            period,
            window_batches,
            functional_batches,
            variant_units_before: self.schedule.as_ref().map_or(0, |s| s.variant_units()) as f64,
            units_planned: until.saturating_sub(simulated) as f64 / period_instructions,
        })
    }

    /// Whether sampling has begun (the exact prefix is over).
    pub fn sampling(&self) -> bool {
        self.schedule.is_some()
    }

    /// A batch of `part` is handed to the engine: what code it ran (its cycles come back later).
    pub fn note_batch(&mut self, part: BatchPart, records: &Records) {
        self.signatures.note(part, records);
    }

    /// The baseline's cycles of a batch timed in full or of a unit (engine feedback).
    pub fn on_cycles(&mut self, part: BatchPart, cycles: f64) {
        self.signatures.on_cycles(part, cycles);
        let signed = self.signatures.units().len();
        if signed >= self.live_spread_at {
            self.live_spread = signatures::within(self.signatures.units());
            self.live_spread_at = signed + signed / 16 + 1;
        }
        match part {
            BatchPart::Whole => {
                self.prefix_cycles += cycles;
            }
            BatchPart::Unit { .. } => {
                let k = self.units.n as usize;
                self.units.push(cycles);
                if let Some(s) = &self.schedule {
                    let h = s.design().strata.iter().rposition(|st| st.first_unit <= k).unwrap_or(0);
                    if self.by_stratum.len() <= h {
                        self.by_stratum.resize(h + 1, Running::default());
                    }
                    self.by_stratum[h].push(cycles);
                }
            }
            BatchPart::WarmUp => {}
        }
    }

    /// What the next batch is, `simulated` instructions into the timed stream.
    /// `None`: fast-forward.
    pub fn next_batch(&mut self, simulated: u64) -> Option<BatchPart> {
        let now = Instant::now();
        let spent = now - self.mark;
        self.mark = now;
        match self.last {
            WindowStep::FastForward => {
                self.fast_forward.0 += spent;
                self.fast_forward.1 += self.batch_instructions;
            }
            _ => self.windows.0 += spent,
        }
        if self.schedule.is_none() {
            if simulated < self.opts.exact_below {
                self.last = WindowStep::Unit;
                return Some(BatchPart::Whole);
            }
            let period = self.decide(simulated);
            self.next_decision = (2 * simulated).max(simulated + FIRST_STRETCH);
            let every = self.variants_every(period.max(WARM_UP_BATCHES + UNIT_BATCHES), simulated, self.next_decision);
            let schedule = WindowSchedule::new(WARM_UP_BATCHES, UNIT_BATCHES, period, self.opts.seed, self.batch_instructions * UNIT_BATCHES, simulated);
            self.schedule = Some(schedule.with_variants_every(every));
            self.sampling_since = Some(now);
        } else if simulated >= self.next_decision && self.schedule.as_ref().is_some_and(|s| s.at_last_batch()) {
            // the stretch to come is as long as all before it and its phases are unknown: the
            // period at most doubles, so that no stratum has fewer units than the one before
            // (a pointer chase after a long initialisation got 16 units at the period the
            // initialisation's low variance asked for)
            let current = self.schedule.as_ref().map_or(MIN_PERIOD, |s| s.period());
            let period = self.decide(simulated).min(2 * current);
            self.next_decision = 2 * simulated;
            let every = self.variants_every(period, simulated, self.next_decision);
            if let Some(s) = &mut self.schedule {
                s.set_stratum(period, every);
            }
        }
        let s = self.schedule.as_mut()?;
        let step = s.next();
        self.last = step;
        match step {
            WindowStep::FastForward => None,
            WindowStep::WarmUp => Some(BatchPart::WarmUp),
            WindowStep::Unit => {
                self.windows.1 += 1;
                Some(BatchPart::Unit { weight: s.period() as f64 / UNIT_BATCHES as f64 })
            }
        }
    }

    /// Fast-forward batches coming after the current one (at most `limit`), the
    /// current one ending `simulated` instructions into the run; and whether a
    /// window follows them (false: the count stops where the controller may
    /// change the period, or at `limit`).
    pub fn fast_forward_ahead(&self, simulated: u64, limit: u64) -> (u64, bool) {
        let Some(s) = &self.schedule else { return (0, true) };
        // the schedule's own steps on a copy (a few strata: cheap, once per window)
        let mut s = s.clone();
        let mut at = simulated;
        for n in 0..limit {
            if at >= self.next_decision && s.at_last_batch() {
                return (n, false);
            }
            if s.next() != WindowStep::FastForward {
                return (n, true);
            }
            at += self.batch_instructions;
        }
        (limit, false)
    }

    /// Instructions fast-forwarded past the batch they belonged to (a skip
    /// that ran into a window): they count in the current stratum.
    pub fn extend_stratum(&mut self, instructions: u64) {
        if let Some(s) = &mut self.schedule {
            s.record(instructions, false);
        }
    }

    /// The batch just planned held `instructions` (the last one may be short).
    pub fn end_batch(&mut self, instructions: u64, part: Option<BatchPart>) {
        if let Some(s) = &mut self.schedule {
            let measured = matches!(part, Some(BatchPart::Unit { .. })) && instructions == self.batch_instructions * UNIT_BATCHES;
            s.record(instructions, measured);
        }
    }

    fn decide(&self, simulated: u64) -> u64 {
        if let Some(p) = self.opts.period {
            return p;
        }
        // the spread the code-mix estimate will have: of unit cycles within the code they ran
        // (the units', or before the first units the exact prefix's batches)
        let Some(units) = self.signatures.planning_spread() else { return MIN_PERIOD };
        let (cycles, variance) = self.so_far(&signatures::within(self.signatures.units()));
        let window_seconds = if self.windows.1 > 0 { self.windows.0.as_secs_f64() / self.windows.1 as f64 } else { 0.0 };
        let ff = if self.fast_forward.1 > 0 { self.fast_forward.0.as_secs_f64() / self.fast_forward.1 as f64 } else { 0.0 };
        let state = State {
            instructions: simulated,
            cycles,
            variance,
            units,
            unit_instructions: self.batch_instructions * UNIT_BATCHES,
            elapsed: self.started.elapsed(),
            fast_forward_seconds_per_instruction: ff,
            window_seconds,
            window_batches: WARM_UP_BATCHES + UNIT_BATCHES,
        };
        choose_period(&self.target, &state)
    }

    /// Estimated cycles so far and the variance of that estimate, stratum by
    /// stratum from the units received so far (a stratum without units yet
    /// borrows the mean and variance of all units). The variance is of the
    /// cycles within the code the units ran ([`signatures`]), as the code-mix
    /// estimate's is: `spread`, of the units so far or of most of them.
    fn so_far(&self, spread: &Spread) -> (f64, f64) {
        let Some(s) = &self.schedule else { return (self.prefix_cycles, 0.0) };
        if self.units.n == 0 {
            return (self.prefix_cycles, 0.0);
        }
        let (spread, residuals) = spread;
        let unit = (self.batch_instructions * UNIT_BATCHES) as f64;
        let (mut total, mut variance) = (self.prefix_cycles, 0.0);
        for (h, st) in s.design().strata.iter().enumerate() {
            let own = self.by_stratum.get(h).copied().unwrap_or_default();
            let mean = if own.n >= 1 { own.mean() } else { self.units.mean() };
            let end = (st.first_unit + st.units).min(residuals.len());
            let mine = &residuals[st.first_unit.min(end)..end];
            let s2 = if mine.len() >= 2 { estimator::variance(mine) } else { spread.variance() };
            let m = st.instructions as f64 / unit;
            let n = own.n.max(1) as f64;
            total += m * mean;
            variance += m * m * (1.0 - n / m.max(n)).max(0.0) * s2 / n;
        }
        (total, variance)
    }

    /// The estimate so far, once sampling has measured two units (one has no spread).
    pub fn live(&self, simulated: u64) -> Option<LiveEstimate> {
        let s = self.schedule.as_ref()?;
        if self.units.n < 2 {
            return None;
        }
        let (cycles, variance) = self.so_far(&self.live_spread);
        let relative = if cycles > 0.0 { self.target.z * variance.sqrt() / cycles } else { 0.0 };
        // the half-width shrinks as 1/sqrt(units): units wanted, at the units' rate so far
        let eta_to_target = (relative > self.target.relative_half_width).then(|| {
            let n = self.units.n as f64;
            let wanted = n * (relative / self.target.relative_half_width).powi(2);
            let rate = n / self.sampling_since.map_or(1.0, |t| t.elapsed().as_secs_f64().max(1e-3));
            (wanted - n) / rate
        });
        Some(LiveEstimate { cpi: cycles / simulated.max(1) as f64, relative_half_width: relative, units: self.units.n, period: s.period(), eta_to_target })
    }

    /// The design of the finished run (`None`: it never left the exact prefix).
    pub fn finish(self) -> Option<(Design, Subsample, Vec<report::StratumReport>, Duration)> {
        let s = self.schedule?;
        let elapsed = self.started.elapsed();
        let periods = s.periods_by_stratum().to_vec();
        let (design, subsample) = s.into_parts();
        let sub = subsample.design(&design);
        let strata = design
            .strata
            .iter()
            .zip(periods)
            .zip(subsample.every_by_stratum.iter().zip(&sub.strata))
            .map(|((st, period), (&variants_every, v))| report::StratumReport { instructions: st.instructions, period, units: st.units, variants_every, variant_units: v.units })
            .collect();
        Some((design, subsample, strata, elapsed))
    }
}
