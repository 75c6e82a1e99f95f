//! How often each constraint was binding at dispatch, issue and commit.
//! Counting is per instruction into fixed arrays; names are made only at the end.

use bottlenose_machine::Machine;
use bottlenose_timing::{CommitCause, DispatchCause, IssueCause, Listener, StageTimes};
pub use bottlenose_report_model::views::StallCauses;

pub struct StallCauseCounter {
    dispatch: [u64; 8],
    /// Dispatch, Register, Load, Memory, CacheMiss, then one slot per resource group.
    issue: Vec<u64>,
    commit: [u64; 3],
}

impl StallCauseCounter {
    pub fn new(machine: &Machine) -> Self {
        Self { dispatch: [0; 8], issue: vec![0; 5 + machine.groups.len()], commit: [0; 3] }
    }

    pub fn finish(&self, machine: &Machine) -> StallCauses {
        let mut out = StallCauses::default();
        let d = [
            DispatchCause::Width,
            DispatchCause::Rob,
            DispatchCause::Scheduler,
            DispatchCause::LoadBuffer,
            DispatchCause::StoreBuffer,
            DispatchCause::Fetch,
            DispatchCause::Mispredict,
            DispatchCause::Microcode,
        ];
        for (i, c) in d.iter().enumerate() {
            if self.dispatch[i] > 0 {
                out.dispatch.insert(crate::snake(&format!("{c:?}")), self.dispatch[i]);
            }
        }
        for (i, &n) in self.issue.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let c = match i {
                0 => IssueCause::Dispatch,
                1 => IssueCause::Register,
                2 => IssueCause::Load,
                3 => IssueCause::Memory,
                4 => IssueCause::CacheMiss,
                g => IssueCause::Port((g - 5) as u16),
            };
            out.issue.insert(crate::issue_cause_name(machine, c), n);
        }
        for (i, c) in [CommitCause::Complete, CommitCause::InOrder, CommitCause::Width].iter().enumerate() {
            if self.commit[i] > 0 {
                out.commit.insert(crate::snake(&format!("{c:?}")), self.commit[i]);
            }
        }
        out
    }
}

impl Listener for StallCauseCounter {
    const DETAILS: bool = false;

    #[inline]
    fn on_instruction(&mut self, _index: usize, t: &StageTimes) {
        self.dispatch[t.dispatch_cause as usize] += 1;
        let i = match t.issue_cause {
            IssueCause::Dispatch => 0,
            IssueCause::Register => 1,
            IssueCause::Load => 2,
            IssueCause::Memory => 3,
            IssueCause::CacheMiss => 4,
            IssueCause::Port(g) => 5 + g as usize,
        };
        self.issue[i] += 1;
        self.commit[t.commit_cause as usize] += 1;
    }
}
