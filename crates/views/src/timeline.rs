//! The pipeline timeline (dispatch/issue/complete/commit cycles and causes) of
//! chosen iterations of a block: what llvm-mca's timeline view shows.

use bottlenose_machine::Machine;
use bottlenose_timing::{IssueCause, Listener, StageTimes};
pub use bottlenose_report_model::views::TimelineRow;

/// Records the first and the last iteration of a block run.
pub struct Timeline {
    block_len: usize,
    last_iteration: u32,
    /// Position in the current iteration and the iteration number (no division per instruction).
    position: usize,
    iteration: u32,
    raw: Vec<(u32, usize, StageTimes)>,
}

impl Timeline {
    pub fn new(block_len: usize, iterations: u32) -> Self {
        Self { block_len: block_len.max(1), last_iteration: iterations.saturating_sub(1), position: 0, iteration: 0, raw: Vec::new() }
    }

    pub fn finish(&self, machine: &Machine) -> Vec<TimelineRow> {
        self.raw
            .iter()
            .map(|(iteration, index, t)| TimelineRow {
                iteration: *iteration,
                index: *index,
                dispatch: t.dispatch,
                issue: t.issue,
                complete: t.complete,
                commit: t.commit,
                dispatch_cause: crate::snake(&format!("{:?}", t.dispatch_cause)),
                issue_cause: match t.issue_cause {
                    IssueCause::Port(_) => crate::issue_cause_name(machine, t.issue_cause),
                    c => crate::snake(&format!("{c:?}")),
                },
                commit_cause: crate::snake(&format!("{:?}", t.commit_cause)),
            })
            .collect()
    }
}

impl Listener for Timeline {
    const DETAILS: bool = false;

    #[inline]
    fn on_instruction(&mut self, index: usize, t: &StageTimes) {
        if self.iteration == 0 || self.iteration == self.last_iteration {
            self.raw.push((self.iteration, index, *t));
        }
        self.position += 1;
        if self.position == self.block_len {
            self.position = 0;
            self.iteration += 1;
        }
    }
}
