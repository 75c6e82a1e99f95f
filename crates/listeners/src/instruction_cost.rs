//! Cycles attributed to each static instruction: the gap between consecutive
//! retirements is charged to the instruction that retires after it (the one
//! at the head of the ROB while the machine waited), which is what a
//! retirement-based sampling profiler would blame.

use bottlenose_timing::{Listener, StageTimes};

/// What one static instruction cost over the run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    pub executions: u64,
    pub mispredicts: u64,
    pub cycles: f64,
}

/// The costs by static instruction index. One entry per instruction (not one
/// array per counter), so an execution touches one cache line.
#[derive(Debug, Clone, Default)]
pub struct InstructionCost {
    costs: Vec<Cost>,
    last_commit: f64,
}

impl InstructionCost {
    pub fn new() -> Self {
        Self { last_commit: -1.0, ..Default::default() }
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
            c.cycles += t.commit - self.last_commit;
            self.last_commit = t.commit;
        }
    }
}
