//! The accounting views in reports: the Top-Down tree (simulated and the
//! vendor's), the CPI and FLOPS stacks, cycle accounting and the
//! idealization experiments (built by `bottlenose_analysis::accounting`).

use crate::views::{CpiStacks, CycleAccounting, FlopsStack, SlotAccounting, ViewsSampling};
use bottlenose_metrics::{Node, Unit};
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
    /// The node of the metric engine's tree, with its descendants.
    pub fn from_node(n: &Node) -> Self {
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
    /// components (with a slack of `bottlenose_analysis::accounting::BOUND_TOLERANCE` of the largest plus
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

/// The vendor tree of one run.
#[derive(Debug, Clone, Serialize)]
pub struct VendorTopDown {
    /// The table (`neoverse-v2`).
    pub table: String,
    /// Level-1 nodes with their descendants.
    pub topdown: Vec<TopDownNode>,
    /// The simulated counter values under the vendor's event names.
    pub events: BTreeMap<String, f64>,
}
