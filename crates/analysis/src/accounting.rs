//! Accounting views in reports: the simulated Top-Down events fed through the
//! metric engine (`yasin2014` table) into the Top-Down tree, the CPI stacks at
//! dispatch/issue/commit, the FLOPS stack, Levinthal's cycle accounting and
//! the idealization experiments that check the stacks (Eyerman §V).

use crate::vendor_topdown::{vendor_topdown, VendorTopDown};
use bottlenose_machine::Machine;
use bottlenose_views::{AccountingResult, CpiStacks, CycleAccounting, FlopsStack, SlotAccounting, ViewParams, ViewsSampling};
use bottlenose_metrics::yasin::{self, YasinParams};
use bottlenose_metrics::{Counts, MetricEngine, Node, Unit};
use serde::Serialize;
use std::collections::BTreeMap;

/// One node of the Top-Down tree: its value as the formula gives it, a
/// fraction of its unit (slots, cycles ...), and its normalized share of all
/// slots, fitted inside the parent (see `bottlenose_metrics::tree`).
#[derive(Debug, Clone, Serialize)]
pub struct TopDownNode {
    pub name: String,
    pub value: Option<f64>,
    pub unit: Option<Unit>,
    pub normalized: Option<f64>,
    /// Why there is no value (a division by zero on these counts, say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Above its threshold with every ancestor flagged (hierarchical safety).
    pub flagged: bool,
    pub children: Vec<TopDownNode>,
}

impl TopDownNode {
    pub(crate) fn from_node(n: &Node) -> Self {
        TopDownNode {
            name: n.label.clone(),
            value: n.value,
            unit: n.unit,
            normalized: n.normalized,
            reason: n.reason.as_ref().map(|r| r.to_string()),
            flagged: n.flagged,
            children: n.children.iter().map(TopDownNode::from_node).collect(),
        }
    }

    /// The node with this name in the subtree.
    pub fn find(&self, name: &str) -> Option<&TopDownNode> {
        if self.name.eq_ignore_ascii_case(name) {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(name))
    }
}

/// A Top-Down tree lookup over the level-1 nodes.
pub fn find_node<'a>(roots: &'a [TopDownNode], name: &str) -> Option<&'a TopDownNode> {
    roots.iter().find_map(|r| r.find(name))
}

/// One idealization experiment (Eyerman §IV–V): the actual gain against the
/// matching component of each CPI stack.
#[derive(Debug, Clone, Serialize)]
pub struct IdealizationRow {
    /// `perfect_icache`, `perfect_dcache`, `perfect_branch`, `alu_1cycle`, or two joined by `+`.
    pub what: String,
    pub cycles: f64,
    /// Baseline CPI minus idealized CPI (cycles per instruction).
    pub cpi_reduction: f64,
    /// The matching components (summed for a pair) in CPI at each stage.
    pub components: StageComponents,
    /// The reduction lies between the smallest and the largest of the three
    /// components (with a slack of [`BOUND_TOLERANCE`] of the largest plus
    /// 0.1 % of the baseline CPI).
    pub within_bounds: bool,
    /// For a pair: the sum of the two single reductions, and the pair's gain beyond it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sum_of_singles: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interaction: Option<f64>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct StageComponents {
    pub dispatch: f64,
    pub issue: f64,
    pub commit: f64,
}

impl StageComponents {
    pub fn min(&self) -> f64 {
        self.dispatch.min(self.issue).min(self.commit)
    }
    pub fn max(&self) -> f64 {
        self.dispatch.max(self.issue).max(self.commit)
    }
}

/// Slack of the bound check, relative to the largest component: the stacks
/// and the idealized run round whole cycles differently.
pub const BOUND_TOLERANCE: f64 = 0.02;

pub use bottlenose_simulate::Ideal;

/// Everything the accounting views add to a report.
#[derive(Debug, Clone, Serialize, Default)]
pub struct AccountingReport {
    /// The Top-Down tree from the simulated events (levels 1–4, every node).
    pub topdown: Vec<TopDownNode>,
    /// Level 1 counted directly from the slots (equals the tree's level 1).
    pub slot_accounting: Option<SlotAccounting>,
    /// The simulated counter values (Yasin Table 1 names).
    pub events: BTreeMap<String, f64>,
    pub cpi_stacks: Option<CpiStacks>,
    /// FLOPS stack: component → flops per cycle, summing to the peak (runs with FP arithmetic).
    pub flops_stack: Option<BTreeMap<String, f64>>,
    /// Peak and achieved flops per cycle, FP instruction count.
    pub flops: Option<FlopsStack>,
    pub cycle_accounting: Option<CycleAccounting>,
    pub idealization: Vec<IdealizationRow>,
    /// Present when the views were counted on sampled windows (`run --sample-views`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub views_sampling: Option<ViewsSampling>,
    /// The machine vendor's own Top-Down (Arm's telemetry tree on Neoverse
    /// machines) from the same simulated counters, named as its PMU names them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vendor_topdown: Option<VendorTopDown>,
}

/// The metric engine over the model's counters for a machine of this width.
pub fn model_engine(width: f64) -> MetricEngine {
    let p = YasinParams { issue_width: width.round().max(1.0) as u32, ..YasinParams::default() };
    MetricEngine::from_table(yasin::table(&p)).expect("the yasin2014 table parses")
}

impl AccountingReport {
    /// [`AccountingReport::new`] plus the vendor tree of the machine's PMU table, if any.
    pub fn for_machine(r: AccountingResult, p: &ViewParams, machine: &Machine) -> Self {
        let vendor = machine.peers.topdown_table.as_deref().and_then(|t| vendor_topdown(t, &r.topdown, &r.cpi_stacks));
        AccountingReport { vendor_topdown: vendor, ..AccountingReport::new(r, p) }
    }

    /// Turns the views' counters into the report (Top-Down through the metric engine).
    pub fn new(r: AccountingResult, p: &ViewParams) -> Self {
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
    pub fn add_idealizations(&mut self, base_cycles: f64, results: &[(Vec<Ideal>, f64)]) {
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
