//! Cycles attributed to each static instruction: the gap between consecutive
//! retirements is charged to the instruction that retires after it (the one
//! at the head of the ROB while the machine waited), which is what a
//! retirement-based sampling profiler would blame.

use bottlenose_timing::{Listener, StageTimes};

#[derive(Debug, Clone, Default)]
pub struct InstructionCost {
    pub executions: Vec<u64>,
    pub cycles: Vec<f64>,
    pub mispredicts: Vec<u64>,
    last_commit: f64,
}

impl InstructionCost {
    pub fn new() -> Self {
        Self { last_commit: -1.0, ..Default::default() }
    }

    pub fn total_cycles(&self) -> f64 {
        self.cycles.iter().sum()
    }
}

impl Listener for InstructionCost {
    const DETAILS: bool = false;

    #[inline]
    fn on_instruction(&mut self, index: usize, t: &StageTimes) {
        if index >= self.executions.len() {
            let n = (index + 1).next_power_of_two();
            self.executions.resize(n, 0);
            self.cycles.resize(n, 0.0);
            self.mispredicts.resize(n, 0);
        }
        self.executions[index] += 1;
        if t.commit > self.last_commit {
            self.cycles[index] += t.commit - self.last_commit;
            self.last_commit = t.commit;
        }
        self.mispredicts[index] += t.mispredicted as u64;
    }
}
