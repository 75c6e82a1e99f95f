//! Accounting views: listeners on the timing model's per-instruction stage
//! times. Each view is a [`bottlenose_timing::Listener`]; several combine as a
//! tuple, so the per-instruction path stays statically dispatched.

mod accounting;
mod cpi_stack;
mod cycle_accounting;
mod facts;
mod flops_stack;
mod instruction_cost;
mod stall_causes;
mod timeline;
mod topdown;

pub use accounting::{cpi_components, AccountingResult, AccountingViews, ViewParams, ViewsSampling, WindowTally};
pub use cpi_stack::{CpiStacks, COMPONENTS as CPI_COMPONENTS};
pub use cycle_accounting::{CycleAccounting, PenaltyTerm};
pub use facts::{FpKind, SharedFacts, StaticFacts};
pub use flops_stack::{FlopsStack, FLOPS_COMPONENTS};
pub use instruction_cost::{Cost, InstructionCost};
pub use topdown::{SlotAccounting, TopDownCounters};
pub use stall_causes::{StallCauseCounter, StallCauses};
pub use timeline::{Timeline, TimelineRow};

/// `LoadBuffer` → `load_buffer` (enum variant names as they appear in reports).
pub fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Report name of an issue cause (`port:p23`, `register`, ...).
pub fn issue_cause_name(machine: &bottlenose_machine::Machine, c: bottlenose_timing::IssueCause) -> String {
    match c {
        bottlenose_timing::IssueCause::Port(g) => format!("port:{}", machine.groups[g as usize].name),
        c => snake(&format!("{c:?}")),
    }
}
