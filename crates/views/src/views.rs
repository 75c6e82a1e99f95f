//! The four accounting views of one timing run on one shared picture:
//! simulated Top-Down events (Yasin §4 Table 1, `crate::topdown`), CPI stacks at
//! dispatch, issue and commit (Eyerman Table II, `crate::cpi_stacks`), the FLOPS
//! stack (Eyerman Table III, `crate::flops_stack`) and Levinthal's cycle
//! accounting (`crate::cycle_accounting`). [`CycleViews`] looks up each
//! instruction's static facts and books it into the picture; at the end each
//! view turns its counts into its result. [`AccountingViews`] is the listener:
//! these views, counted exactly or on samples (`crate::sampled`).

use crate::counts::{StaticSums, ViewCounts};
use crate::cpi_stacks::CpiStacks;
use crate::cycle_accounting::CycleAccounting;
use crate::facts::{FpKind, SharedFacts, StaticFacts};
use crate::flops_stack::{FlopsStack, FpIssue};
use crate::instruction_cost::InstructionCost;
use crate::params::ViewParams;
use crate::picture::{Booking, Picture};
use crate::sampled::{SampleOutcome, Sampled, ViewsSampling, WindowCounts, WindowTally, Windowed};
use crate::topdown::TopDownCounters;
use bottlenose_timing::{StageDetails, StageTimes};

/// Everything the views computed, at the end of a run.
#[derive(Debug, Clone)]
pub struct AccountingResult {
    pub topdown: TopDownCounters,
    pub cpi_stacks: CpiStacks,
    pub flops_stack: FlopsStack,
    pub cycle_accounting: CycleAccounting,
    /// Set when the views were counted on samples of the run ([`AccountingViews::sampled`]).
    pub sampling: Option<ViewsSampling>,
    /// What each counted window of sampled views measured (empty when exact).
    pub windows: Vec<WindowTally>,
}

/// Top-Down events, CPI stacks, FLOPS stack and cycle accounting, counted on
/// every instruction booked.
pub struct CycleViews {
    p: ViewParams,
    facts: Vec<StaticFacts>,
    /// Per static instruction, what booking needs. Whatever follows from the
    /// static facts alone (slots, uops, FP and divide counts) is summed at the
    /// end from the executions that [`InstructionCost`] counted.
    bookings: Vec<Booking>,
    shared: Option<SharedFacts>,
    picture: Picture,
    /// Ignore every instruction (benchmarks measure the views' cost this way).
    off: bool,
}

/// The listener of the accounting views.
pub type AccountingViews = Sampled<CycleViews>;

impl Sampled<CycleViews> {
    /// Views over a block whose facts are known (static analysis).
    pub fn new(p: ViewParams, facts: Vec<StaticFacts>) -> Self {
        Sampled::exact(CycleViews::new(p, facts))
    }

    /// Views of a dynamic run: facts arrive through `shared` as instructions are discovered.
    pub fn with_shared(p: ViewParams, shared: SharedFacts) -> Self {
        let mut v = CycleViews::new(p, Vec::new());
        v.shared = Some(shared);
        Sampled::exact(v)
    }

    /// Views that ignore every instruction: what a run costs without them
    /// (their results are then empty: every cycle is "other").
    pub fn disabled(mut self) -> Self {
        self.views.off = true;
        self
    }

    /// Closes the run at `clocks` cycles and returns every view. `all`: the
    /// executions and mispredictions of every instruction, counted by an
    /// [`InstructionCost`] beside the views on the same stream (the views do not
    /// count them again; sampled views skip batches without looking at them).
    /// `calibration`: a sampled run's factor on each unit's weight (empty: none;
    /// see `Sampled::into_parts`).
    pub fn finish(self, clocks: f64, all: &InstructionCost, calibration: &[f64]) -> AccountingResult {
        let (views, outcome) = self.into_parts(calibration);
        views.finish(clocks, all, outcome)
    }
}

impl CycleViews {
    fn new(p: ViewParams, facts: Vec<StaticFacts>) -> Self {
        CycleViews { picture: Picture::new(&p), bookings: facts.iter().map(Booking::new).collect(), p, facts, shared: None, off: false }
    }

    #[cold]
    fn refresh(&mut self, index: usize) {
        if let Some(s) = &self.shared {
            s.copy_new(&mut self.facts);
        }
        if index >= self.facts.len() {
            // unknown instruction (should not happen): account it as one plain uop
            self.facts.resize(index + 1, StaticFacts { fused: 1, compute_uops: 1, ..Default::default() });
        }
        let known = self.bookings.len();
        self.bookings.extend(self.facts[known..].iter().map(Booking::new));
    }

    /// The counts that depend only on each instruction's static facts
    /// (executions × facts), and the mispredictions.
    fn static_sums(&mut self, all: &InstructionCost) -> (StaticSums, FpIssue) {
        let seen = all.costs().iter().rposition(|c| c.executions > 0).map_or(0, |i| i + 1);
        if seen > self.facts.len() {
            self.refresh(seen - 1); // instructions that only ran in skipped batches
        }
        let mut sums = StaticSums { mispredicts: all.costs().iter().map(|c| c.mispredicts).sum(), ..Default::default() };
        let mut fp = FpIssue::default();
        for (f, c) in self.facts.iter().zip(all.costs()) {
            let n = c.executions;
            if n == 0 {
                continue;
            }
            sums.add(f, n);
            if f.fp != FpKind::None {
                fp.issue(&self.p, f, n);
            }
        }
        (sums, fp)
    }

    /// Scales what the windows counted to the rest of the run after the exact
    /// prefix, and adds the prefix (`sums`: over every execution).
    fn scale_windows(&mut self, s: &SampleOutcome<ViewCounts>, clocks: f64, sums: &StaticSums) {
        let (prefix_cycles, prefix_instructions, prefix_gaps) = match &s.prefix {
            Some(p) => (p.cycles as f64, p.instructions, p.counts.topdown.gaps.sum()),
            None => (0.0, 0, 0.0),
        };
        let rest_cycles = (clocks - prefix_cycles).max(0.0);
        let per_cycle = if s.swept_cycles > 0.0 { rest_cycles / s.swept_cycles } else { 0.0 };
        let counts = &mut self.picture.counts;
        let base = sums.slots_retired as f64 / self.p.width;
        counts.topdown.scale_to_run(per_cycle, clocks, base, prefix_gaps);
        counts.cpi.scale_to_run(per_cycle);
        counts.flops.scale_to_run(per_cycle);
        let rest_instructions = sums.instructions.saturating_sub(prefix_instructions) as f64;
        let per_instruction = if s.counted_instructions > 0 { rest_instructions / s.counted_instructions as f64 } else { 0.0 };
        counts.events.scale_to_run(per_instruction);
        self.picture.sweep.issue_carry = 0.0;
        if let Some(p) = &s.prefix {
            counts.add(&p.counts);
        }
    }

    fn finish(mut self, clocks: f64, all: &InstructionCost, sample: Option<SampleOutcome<ViewCounts>>) -> AccountingResult {
        if sample.is_none() {
            self.picture.close_run(clocks, !self.off);
        }
        let (sums, fp_issue) = self.static_sums(all);
        if let Some(s) = &sample {
            self.scale_windows(s, clocks, &sums);
        }
        let counts = &self.picture.counts;
        let w = self.p.width;
        let mut topdown = TopDownCounters {
            clocks,
            width: w,
            slots_retired: sums.slots_retired,
            mispredicts: sums.mispredicts,
            ms_slots: sums.microcode_slots,
            ops_executed: sums.uops_executed,
            fp_scalar: sums.fp_scalar,
            fp_vector: sums.fp_vector,
            ..Default::default()
        };
        counts.topdown.export(&mut topdown);
        let cpi_stacks = counts.cpi.finish(clocks, sums.slots_retired as f64, sums.instructions, w, self.p.commit_gap, self.picture.sweep.issue_carry);
        let flops_stack = fp_issue.finish(&self.p, clocks, &counts.flops);
        let cycle_accounting = counts.events.finish(&self.p, &topdown, &sums, clocks);
        let (sampling, windows) = match sample {
            Some(s) => (Some(s.report), s.tallies),
            None => (None, Vec::new()),
        };
        AccountingResult { topdown, cpi_stacks, flops_stack, cycle_accounting, sampling, windows }
    }
}

impl Windowed for CycleViews {
    type Counts = ViewCounts;

    fn is_on(&self) -> bool {
        !self.off
    }

    fn new_counts(&self) -> ViewCounts {
        ViewCounts::new()
    }

    fn counts_mut(&mut self) -> &mut ViewCounts {
        &mut self.picture.counts
    }

    fn sweep_to_dispatch(&mut self) {
        self.picture.sweep_to_dispatch();
    }

    fn swept(&self) -> i64 {
        self.picture.fin
    }

    fn booked(&self) -> u64 {
        self.picture.booked
    }

    fn restart_next(&mut self) {
        self.picture.restart_pending = true;
    }

    #[inline(always)]
    fn book(&mut self, index: usize, t: &StageTimes, d: &StageDetails) {
        if index >= self.bookings.len() {
            self.refresh(index);
        }
        let f = self.bookings[index];
        self.picture.book(f, t, d, &self.p);
    }
}
