//! The views: what the timing model's per-instruction stage times add up to.
//! Each is a [`bottlenose_timing::Listener`]; several combine as a tuple, so
//! the per-instruction path stays statically dispatched.
//!
//! | module | computes |
//! | --- | --- |
//! | `picture/` | the shared per-cycle picture the four accounting views count on (ring of cycles, ROB-head timeline, dispatch and commit gaps) |
//! | `topdown/` | simulated Top-Down event counts (Yasin §4 Table 1) |
//! | `cpi_stacks/` | CPI stacks at dispatch, issue and commit (Eyerman Table II) |
//! | `flops_stack/` | the FLOPS stack (Eyerman Table III) |
//! | `cycle_accounting/` | Levinthal's cycle accounting |
//! | `views.rs` | the four on one picture ([`AccountingViews`]) |
//! | `sampled/` | a generic adapter that counts views on samples of a run |
//! | `instruction_cost.rs`, `stall_causes.rs`, `timeline.rs` | cycles per static instruction, binding causes, llvm-mca's timeline |

mod counts;
mod cpi_stacks;
mod cycle_accounting;
mod facts;
mod flops_stack;
mod instruction_cost;
mod params;
mod picture;
mod sampled;
mod stall_causes;
#[cfg(test)]
mod test_stream;
mod time;
mod timeline;
mod topdown;
mod views;

pub use cpi_stacks::{Component, CpiStacks, COMPONENTS as CPI_COMPONENTS};
pub use cycle_accounting::{CycleAccounting, PenaltyTerm};
pub use facts::{FpKind, SharedFacts, StaticFacts};
pub use flops_stack::{FlopsStack, IdleFp, FLOPS_COMPONENTS, IDLE_CAUSES};
pub use instruction_cost::{Cost, InstructionCost};
pub use params::ViewParams;
pub use sampled::{Sampled, ViewsSampling, WindowCounts, WindowTally, Windowed};
pub use stall_causes::{StallCauseCounter, StallCauses};
pub use timeline::{Timeline, TimelineRow};
pub use topdown::{SlotAccounting, TopDownCounters, TopDownTally, TOPDOWN_TALLIES};
pub use views::{AccountingResult, AccountingViews, CycleViews};

/// Names of the CPI-stack components, in report order.
pub fn cpi_components() -> &'static [&'static str] {
    &CPI_COMPONENTS
}

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
