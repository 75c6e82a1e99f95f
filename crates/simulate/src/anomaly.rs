//! Why a faster resource can make the model slower.
//!
//! The model books ports greedily, one instruction after the other in program
//! order, each at the earliest cycle its operands and a port allow. Greedy list
//! scheduling has Graham's anomalies: more capacity lets an instruction off the
//! critical path take a port earlier, and an instruction on the critical path
//! that comes later in program order then finds that port busy. Real schedulers
//! pick the oldest ready uop each cycle and show the effect less. When a
//! sensitivity variant comes out slower than the baseline, this module times
//! the block under both configurations and names the instruction that now
//! waits for a port where it did not, and the port group, so that the report
//! can say why instead of printing a negative speedup without comment.

use crate::steady::run_block;
use bottlenose_machine::{GroupId, Machine};
use bottlenose_timing::{CoreConfig, InstrTiming, IssueCause, Listener, StageTimes};
pub use bottlenose_report_model::sensitivity::SlowerWhenFaster;

/// Per instruction, the share of iterations (second half of a run) in which it
/// waited for a port, and the last port group it waited for.
struct PortWaits {
    seen: usize,
    skip: usize,
    waits: Vec<u32>,
    group: Vec<Option<GroupId>>,
}

impl Listener for PortWaits {
    const DETAILS: bool = false;

    fn on_instruction(&mut self, i: usize, t: &StageTimes) {
        self.seen += 1;
        if self.seen > self.skip {
            if let IssueCause::Port(g) = t.issue_cause {
                self.waits[i] += 1;
                self.group[i] = Some(g);
            }
        }
    }
}

fn port_waits(block: &[InstrTiming], cfg: CoreConfig, iterations: u32) -> (Vec<f64>, Vec<Option<GroupId>>) {
    let n = block.len();
    let half = iterations / 2;
    let w = PortWaits { seen: 0, skip: n * half as usize, waits: vec![0; n], group: vec![None; n] };
    let (_, w) = run_block(block, cfg, iterations, w);
    let counted = (iterations - half).max(1) as f64;
    (w.waits.iter().map(|&x| x as f64 / counted).collect(), w.group)
}

/// Compares the variant with the baseline instruction by instruction; `None`
/// when no instruction waits for a port measurably more often (then the cause
/// is not the port booking, e.g. a window knob).
pub fn explain(machine: &Machine, block: &[InstrTiming], base: CoreConfig, variant: CoreConfig, iterations: u32) -> Option<SlowerWhenFaster> {
    let (before, _) = port_waits(block, base, iterations);
    let (after, groups) = port_waits(block, variant, iterations);
    let (delayed, growth) =
        after.iter().zip(&before).map(|(a, b)| a - b).enumerate().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let group = groups[delayed]?;
    (growth > 0.05).then(|| SlowerWhenFaster {
        compared_with_weight: 1.0,
        delayed,
        port_waits_before: before[delayed],
        port_waits_after: after[delayed],
        port_group: machine.groups[group as usize].name.clone(),
    })
}
