//! Accounting views in reports: the simulated Top-Down events fed through the
//! metric engine (`yasin2014` table) into the Top-Down tree, the CPI stacks at
//! dispatch/issue/commit, the FLOPS stack, Levinthal's cycle accounting and
//! the idealization experiments that check the stacks (Eyerman §V).

use crate::vendor_topdown::vendor_topdown;
use bottlenose_machine::Machine;
use bottlenose_views::{AccountingResult, ViewParams};
use bottlenose_metrics::yasin::{self, YasinParams};
use bottlenose_metrics::{Counts, MetricEngine};
pub use bottlenose_report_model::accounting::{find_node, AccountingReport, IdealizationRow, StageComponents, TopDownNode};

/// Slack of the bound check, relative to the largest component: the stacks
/// and the idealized run round whole cycles differently.
pub const BOUND_TOLERANCE: f64 = 0.02;

pub use bottlenose_simulate::Ideal;

/// The metric engine over the model's counters for a machine of this width.
pub fn model_engine(width: f64) -> MetricEngine {
    let p = YasinParams { issue_width: width.round().max(1.0) as u32, ..YasinParams::default() };
    MetricEngine::from_table(yasin::table(&p)).expect("the yasin2014 table parses")
}

/// Builds the report's accounting part from the views (a trait because the
/// type is the report model's).
pub trait BuildAccounting {
    fn for_machine(r: AccountingResult, p: &ViewParams, machine: &Machine) -> Self;
    fn new(r: AccountingResult, p: &ViewParams) -> Self;
    fn add_idealizations(&mut self, base_cycles: f64, results: &[(Vec<Ideal>, f64)]);
}

impl BuildAccounting for AccountingReport {
    /// [`AccountingReport::new`] plus the vendor tree of the machine's PMU table, if any.
    fn for_machine(r: AccountingResult, p: &ViewParams, machine: &Machine) -> Self {
        let vendor = machine.peers.topdown_table.as_deref().and_then(|t| vendor_topdown(t, &r.topdown, &r.cpi_stacks));
        AccountingReport { vendor_topdown: vendor, ..AccountingReport::new(r, p) }
    }

    /// Turns the views' counters into the report (Top-Down through the metric engine).
    fn new(r: AccountingResult, p: &ViewParams) -> Self {
        let engine = model_engine(p.width);
        let events = r.topdown.events(p.mem_bw_occupancy);
        let mut counts = Counts::new();
        for (k, v) in &events {
            counts.set(k, *v);
        }
        counts.set_const("issue_width", p.width);
        let topdown = match engine.evaluate(&counts) {
            Ok(ev) => engine.tree(&ev).roots.iter().map(TopDownNode::from_node).collect(),
            Err(_) => Vec::new(),
        };
        let slot_accounting = Some(r.topdown.slots());
        let flops = (r.flops_stack.fp_instructions > 0).then_some(r.flops_stack);
        let flops_stack = flops.as_ref().map(|f| f.components.clone());
        AccountingReport {
            topdown,
            slot_accounting,
            events: events.into_iter().collect(),
            cpi_stacks: Some(r.cpi_stacks),
            flops_stack,
            flops,
            cycle_accounting: Some(r.cycle_accounting),
            idealization: Vec::new(),
            views_sampling: r.sampling,
            vendor_topdown: None,
        }
    }

    /// Adds the idealization rows from (idealizations, cycles) results of the same trace.
    fn add_idealizations(&mut self, base_cycles: f64, results: &[(Vec<Ideal>, f64)]) {
        let Some(stacks) = &self.cpi_stacks else { return };
        let n = stacks.instructions.max(1) as f64;
        let base_cpi = base_cycles / n;
        let comp = |stage: &str, set: &[Ideal]| set.iter().map(|i| stacks.component(stage, i.component())).sum::<f64>() / n;
        let single = |i: Ideal| results.iter().find(|(s, _)| s.len() == 1 && s[0] == i).map(|(_, c)| (base_cycles - c) / n);
        let mut rows = Vec::new();
        for (set, cycles) in results {
            let reduction = (base_cycles - cycles) / n;
            let components = StageComponents { dispatch: comp("dispatch", set), issue: comp("issue", set), commit: comp("commit", set) };
            let tol = BOUND_TOLERANCE * components.max().abs() + 1e-3 * base_cpi;
            let within = reduction >= components.min() - tol && reduction <= components.max() + tol;
            let sum_of_singles = if set.len() > 1 { set.iter().map(|&i| single(i)).sum::<Option<f64>>() } else { None };
            rows.push(IdealizationRow {
                what: set.iter().map(|i| i.name()).collect::<Vec<_>>().join("+"),
                cycles: *cycles,
                cpi_reduction: reduction,
                components,
                within_bounds: within,
                interaction: sum_of_singles.map(|s| reduction - s),
                sum_of_singles,
            });
        }
        self.idealization = rows;
    }
}
