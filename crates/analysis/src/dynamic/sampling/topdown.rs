//! Intervals on every node of a sampled run's simulated Top-Down tree (the
//! `yasin2014` table's levels 1–4), centred on the tree's values.
//!
//! The views scale their counted windows to the run (`bottlenose_views::sampled`)
//! and the tree's formulas read the scaled counters; each node's interval is
//! that of the estimator its value comes from, with `C` the run's estimated
//! cycles (interval `±h_C`), `Ret` the tree's Retiring, and `Σ` the windows'
//! weighted sums:
//!
//! * **cycle shares** (Memory_Bound and below, Core_Bound and below): a count of
//!   cycles `x` (stall cycles, cycles with ≥ k uops executed ...) over the
//!   cycles. The views scale per-cycle counts by the cycles after their exact
//!   prefix (`C_p` cycles, `x_p` counted) over the windows', so the value is
//!   `V = x_p / C + (1 − C_p / C) · R` with `R = Σx / Σc`, the windows' ratio
//!   estimate (paired residuals `x_i − R c_i`). To first order
//!   `ΔV = (1 − C_p / C) ΔR − (V − R) ΔC / C`: the half-width is
//!   `h_R + |V − R| · h_C / C` (`V − R` comes from the prefix alone: 0 without one).
//! * **dispatch-gap shares** (Frontend, Bad Speculation, Backend Bound and the
//!   gap-counted children Fetch_Latency, Fetch_Bandwidth, Branch_Mispredicts):
//!   the views fit the windows' dispatch gaps into what the retired slots
//!   (counted over every execution, exact: `Ret = base / C` of the cycles) and
//!   the prefix's gaps (`γ_p` in all, `g_p` of the kind) leave of the cycles, so
//!   the value is `G = g_p / C + (1 − Ret − γ_p / C) · Q` with `Q = Σg / Σgaps`.
//!   To first order `ΔG = (1 − Ret − γ_p / C) ΔQ − (G − Q) ΔC / C`: the
//!   half-width is `(1 − Ret) h_Q + |G − Q| · h_C / C` (without a prefix
//!   `G − Q = −Ret · Q`).
//! * **exact counts over the cycles** (Retiring, Base, MicroSequencer, FP_Arith
//!   and its children, Other): retired slots, microcode slots and FP operations
//!   are counted over every execution, so the value is `X / C` and its
//!   half-width `value · h_C / C` (delta method on `1 / C`).
//! * **Machine_Clears**: 0 by construction (the model has no machine clears).
//!
//! In the shares, the two parts' half-widths are added: an upper bound whatever
//! their correlation (`R`, `Q` and `C` come from the same units). The prefix,
//! counted in full, has no sampling error: its share only narrows the first
//! part, which is taken whole (slightly conservative after a long prefix).
//!
//! Code no unit measured (the run's exit, where no window fell) is priced, `P`
//! cycles, and the windows stand for it in the views' counts; nothing bounds
//! what it held. A share of the gaps or of the cycles (and a CPI-stack
//! component) adds [`unmeasured_half_width`]: `2 P / C · max(V, 1 − V)`, the
//! most the share moves if those cycles held anything, at up to twice their
//! price (the cycles' interval takes the price whole). `phases 40` (18.6 M
//! instructions, its exit priced at 1.9 % of the cycles) gave Frontend_Bound
//! 5.1 % ± 0.1 where every instruction counted gives 7.2 %: ± 3.7 now.
//!
//! Nodes of another table (a vendor's tree) have no derivation here and
//! get no interval.

use super::estimator::{Interval, Series, Z_99_7};
use super::report::window_design;
use bottlenose_report_model::accounting::TopDownNode;
use bottlenose_report_model::sampling::{SamplingSummary, ShareInterval, TopDownDerivation, TopDownInterval};
use bottlenose_views::{TopDownTally as T, WindowTally};

/// A window's count that a node's value is a share of.
type Count = fn(&WindowTally) -> f64;

/// How a node's value follows from the windows (see the module docs).
#[derive(Clone, Copy)]
enum Estimate {
    /// A share of the dispatch gaps: the count, over the four gaps' sum.
    GapShare(Count),
    /// A count of cycles over the windows' cycles.
    CycleShare(Count),
    ExactOverCycles,
    Zero,
}

// the dispatch gaps of a window, in cycles of slot time (`WindowTally::gaps`)
fn wrong_path_and_recovery(t: &WindowTally) -> f64 {
    t.gaps[0] + t.gaps[1]
}
fn frontend(t: &WindowTally) -> f64 {
    t.gaps[2]
}
fn backend(t: &WindowTally) -> f64 {
    t.gaps[3]
}
fn c(t: &WindowTally, k: T) -> f64 {
    t.topdown[k as usize]
}
/// Cycles with at most FEW (2) uops executed that are not memory stalls
/// (`ExecutionStalls − Memory_Bound`, both per cycle).
fn core_bound(t: &WindowTally) -> f64 {
    t.cycles - c(t, T::OpsAtLeast3) - c(t, T::LoadStalls) - c(t, T::StoreStalls)
}

/// The estimate of the `yasin2014` node labelled `label` (its formula in
/// `bottlenose_metrics::yasin`); FEW is the views' 2, so `OpsExecuted:c(FEW+1)`
/// is the cycles with ≥ 3 uops.
fn estimate(label: &str) -> Option<Estimate> {
    use Estimate::*;
    Some(match label {
        "Frontend_Bound" => GapShare(frontend),
        // FetchBubbles:cW / Clocks: the frontend's whole-cycle gaps, fitted as the gaps are
        "Fetch_Latency" => GapShare(|t| c(t, T::FetchFullCycles)),
        "Fetch_Bandwidth" => GapShare(|t| frontend(t) - c(t, T::FetchFullCycles)),
        "Bad_Speculation" => GapShare(wrong_path_and_recovery),
        // BrMispredRetired / (BrMispredRetired + MachineClears) is 1 with no machine
        // clears (0/0, no value, without mispredictions): all of Bad_Speculation
        "Branch_Mispredicts" => GapShare(wrong_path_and_recovery),
        "Machine_Clears" => Zero,
        "Backend_Bound" => GapShare(backend),
        "Retiring" | "Base" | "FP_Arith" | "FP_Scalar" | "FP_Vector" | "Other" | "MicroSequencer" => ExactOverCycles,
        "Memory_Bound" => CycleShare(|t| c(t, T::LoadStalls) + c(t, T::StoreStalls)),
        "L1_Bound" => CycleShare(|t| c(t, T::LoadStalls) - c(t, T::LoadStallsL1Miss)),
        "L2_Bound" => CycleShare(|t| c(t, T::LoadStallsL1Miss) - c(t, T::LoadStallsL2Miss)),
        "L3_Bound" => CycleShare(|t| c(t, T::LoadStallsL2Miss) - c(t, T::LoadStallsL3Miss)),
        "Ext_Memory_Bound" => CycleShare(|t| c(t, T::LoadStallsL3Miss)),
        "MEM_Bandwidth" => CycleShare(|t| c(t, T::DramBandwidthCycles)),
        "MEM_Latency" => CycleShare(|t| c(t, T::DramCycles) - c(t, T::DramBandwidthCycles)),
        "Stores_Bound" => CycleShare(|t| c(t, T::StoreStalls)),
        "Core_Bound" => CycleShare(core_bound),
        "Divider" => CycleShare(|t| c(t, T::DividerActive)),
        "Ports_Utilization" => CycleShare(|t| core_bound(t) - c(t, T::DividerActive)),
        "Ports_Utilized_0" => CycleShare(|t| t.cycles - c(t, T::OpsAtLeast1)),
        "Ports_Utilized_1_to_2" => CycleShare(|t| c(t, T::OpsAtLeast1) - c(t, T::OpsAtLeast3)),
        "Ports_Utilized_More" => CycleShare(|t| c(t, T::OpsAtLeast3)),
        _ => return None,
    })
}

/// What priced code adds to the half-width of a share `value` of the views:
/// `unmeasured` is its share of the run's cycles (see the module docs).
pub(super) fn unmeasured_half_width(value: f64, unmeasured: f64) -> f64 {
    2.0 * unmeasured * value.max(1.0 - value)
}

/// Priced code's share of the run's cycles (`priced`: its cycles, if any).
pub(super) fn unmeasured_share(priced: Option<f64>, cycles: &Interval) -> f64 {
    match priced {
        Some(p) if cycles.value > 0.0 => p / cycles.value,
        _ => 0.0,
    }
}

/// The half-width of a count's share of the cycles as the views report it
/// (`value`, their exact prefix's counts and the windows' scaled to the rest)
/// from the windows' ratio estimate `r` and the cycles' relative half-width:
/// `h_R + |V − R| · h_C / C` (see the module docs).
pub(super) fn cycle_share_half_width(value: f64, r: Interval, relative_cycles: f64) -> f64 {
    r.half_width + (value - r.value).abs() * relative_cycles
}

/// Every node of `tree` (the report's simulated Top-Down) that has a value and
/// a derivation, depth first, with its interval at `z`; `windows`: the views'
/// counted windows; `cycles`: the run's estimated cycles; `unmeasured`: the share
/// of them priced, not measured.
pub fn node_intervals(windows: &[WindowTally], tree: &[TopDownNode], cycles: &Interval, unmeasured: f64, z: f64) -> Vec<TopDownInterval> {
    let retiring = tree.iter().find(|n| n.name == "Retiring").and_then(|n| n.value).unwrap_or(0.0);
    // (a ratio needs two windows for its spread)
    let design = (windows.len() >= 2).then(|| window_design(windows));
    let ratio = |num: Count, den: Count| -> Interval {
        match &design {
            Some((d, sorted)) => {
                let a: Vec<f64> = sorted.iter().map(|t| num(t)).collect();
                let b: Vec<f64> = sorted.iter().map(|t| den(t)).collect();
                d.ratio_interval(Series { prefix: 0.0, units: &a }, Series { prefix: 0.0, units: &b }, z)
            }
            None => Interval::unknown(0.0),
        }
    };
    let relative_cycles = if cycles.value > 0.0 { cycles.half_width / cycles.value } else { f64::NAN };
    let mut out = Vec::new();
    let mut stack: Vec<(String, &TopDownNode)> = tree.iter().rev().map(|n| (n.name.clone(), n)).collect();
    while let Some((path, n)) = stack.pop() {
        stack.extend(n.children.iter().rev().map(|k| (format!("{path}.{}", k.name), k)));
        let (Some(value), Some(how)) = (n.value, estimate(&n.name)) else { continue };
        let (half_width, derivation) = match how {
            Estimate::GapShare(g) => {
                let q = ratio(g, |t| t.gaps.iter().sum());
                ((1.0 - retiring) * q.half_width + (value - q.value).abs() * relative_cycles, TopDownDerivation::DispatchGapShare)
            }
            Estimate::CycleShare(x) => (cycle_share_half_width(value, ratio(x, |t| t.cycles), relative_cycles), TopDownDerivation::CycleShare),
            Estimate::ExactOverCycles => (value.abs() * relative_cycles, TopDownDerivation::ExactOverCycles),
            Estimate::Zero => (0.0, TopDownDerivation::Exact),
        };
        // the windows stand for priced code in the shares they estimate
        let windowed = matches!(how, Estimate::GapShare(_) | Estimate::CycleShare(_));
        let half_width = if windowed { half_width + unmeasured_half_width(value, unmeasured) } else { half_width };
        let level = path.matches('.').count() as u32 + 1;
        out.push(TopDownInterval { path, level, value: Interval { value, half_width }, derivation });
    }
    out
}

/// The sampling section's Top-Down: every node of the report's tree
/// (`topdown`), and its level 1 (`topdown_level1`, as shares).
pub fn add_topdown(summary: &mut SamplingSummary, windows: &[WindowTally], tree: &[TopDownNode]) {
    let unmeasured = unmeasured_share(summary.priced_cycles, &summary.cycles);
    summary.topdown = node_intervals(windows, tree, &summary.cycles, unmeasured, Z_99_7);
    summary.topdown_level1 = summary.topdown.iter().filter(|n| n.level == 1).map(|n| ShareInterval { name: n.path.clone(), share: n.value }).collect();
}
