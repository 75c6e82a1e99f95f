//! Cycles attributed to each static instruction: the gap between consecutive
//! retirements is charged to the instruction that retires after it (the one
//! at the head of the ROB while the machine waited), which is what a
//! retirement-based sampling profiler would blame.

use bottlenose_timing::{BatchPart, Details, Listener, StageTimes};

/// What one static instruction cost over the run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    pub executions: u64,
    pub mispredicts: u64,
    pub cycles: f64,
}

/// The costs by static instruction index. One entry per instruction (not one
/// array per counter), so an execution touches one cache line.
#[derive(Debug, Clone)]
pub struct InstructionCost {
    costs: Vec<Cost>,
    last_commit: f64,
    /// What a cycle of the current batch stands for: 1 when timed in full, a
    /// unit's sampling weight in a sampled run, 0 in a warm-up (not measured).
    weight: f64,
}

impl InstructionCost {
    pub fn new() -> Self {
        Self { costs: Vec::new(), last_commit: -1.0, weight: 1.0 }
    }

    /// Adds executions the timing model did not see (fast-forwarded by a sampled run).
    pub fn add_untimed(&mut self, index: usize, executions: u64, mispredicts: u64) {
        if index >= self.costs.len() {
            self.costs.resize(index + 1, Cost::default());
        }
        self.costs[index].executions += executions;
        self.costs[index].mispredicts += mispredicts;
    }

    /// Multiplies every instruction's cycles by `f` (a sampled run's weighted
    /// units brought to its estimated total).
    pub fn scale_cycles(&mut self, f: f64) {
        self.costs.iter_mut().for_each(|c| c.cycles *= f);
    }

    /// Sets every instruction's cycles to `cycles(index)` (a sampled run's
    /// estimate per instruction replacing its weighted units).
    pub fn replace_cycles(&mut self, cycles: impl Fn(usize) -> f64) {
        self.costs.iter_mut().enumerate().for_each(|(i, c)| c.cycles = cycles(i));
    }

    pub fn total_cycles(&self) -> f64 {
        self.costs.iter().map(|c| c.cycles).sum()
    }

    /// The costs by static instruction index (trailing entries may be unused).
    pub fn costs(&self) -> &[Cost] {
        &self.costs
    }

    /// The cost of static instruction `index` (zero if it never executed).
    pub fn get(&self, index: usize) -> Cost {
        self.costs.get(index).copied().unwrap_or_default()
    }
}

impl Default for InstructionCost {
    fn default() -> Self {
        Self::new()
    }
}

impl Listener for InstructionCost {
    const DETAILS: bool = false;

    #[inline]
    fn on_instruction(&mut self, index: usize, t: &StageTimes) {
        if index >= self.costs.len() {
            self.costs.resize((index + 1).next_power_of_two(), Cost::default());
        }
        let c = &mut self.costs[index];
        c.executions += 1;
        c.mispredicts += t.mispredicted as u64;
        if t.commit > self.last_commit {
            c.cycles += self.weight * (t.commit - self.last_commit);
            self.last_commit = t.commit;
        }
    }

    fn begin_part(&mut self, _len: usize, part: BatchPart) -> Details {
        self.weight = match part {
            BatchPart::Whole => 1.0,
            BatchPart::WarmUp => 0.0,
            BatchPart::Unit { weight } => weight,
        };
        Details::None
    }
}
