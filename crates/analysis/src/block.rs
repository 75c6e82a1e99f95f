//! Static analysis of a block or loop body: iterate it to steady state, report
//! cycles per iteration, IPC, resource usage, sensitivity and bottlenecks.


pub mod loops;
pub mod usage;

use bottlenose_simulate::sensitivity::{explain_slower, points};
use bottlenose_simulate::{rank, run_loop, steady_iterations, BlockRun, DefaultKnobs, IdealizeLevel, Knob, Plan, PlanRequest, Variants};
use bottlenose_timing::CoreKnob;
use usage::{global_usage, per_instruction_load};
use crate::AnalysisError;
use bottlenose_decode::DecodedInst;
use bottlenose_machine::Machine;
use crate::accounting::{AccountingReport, BuildAccounting, Ideal};
use bottlenose_views::{AccountingViews, InstructionCost, StallCauseCounter, StaticFacts, Timeline, ViewParams};
use bottlenose_timing::{resolve_block, InstrTiming};
pub use bottlenose_report_model::block::{Assumption, BlockReport, InstructionRow, UnsupportedSummary};

/// Usage from which a resource counts as saturated (for automatic combinations).
pub const SATURATED: f64 = 0.9;

#[derive(Debug, Clone)]
pub struct StaticOptions {
    /// Iterations of the block; `None` = enough for a steady state.
    pub iterations: Option<std::num::NonZeroU32>,
    pub weights: Vec<f64>,
    /// Resources to accelerate one at a time; `None` = every resource the block uses plus the core knobs.
    pub resources: Option<Vec<String>>,
    /// Sets of resources accelerated together.
    pub combine: Vec<Vec<String>>,
    pub sensitivity: bool,
}

impl Default for StaticOptions {
    fn default() -> Self {
        Self { iterations: None, weights: bottlenose_simulate::default_weights(), resources: None, combine: vec![], sensitivity: true }
    }
}

/// Analyzes one block on one machine.
pub fn analyze_block(
    machine: &Machine,
    name: &str,
    insts: &[DecodedInst],
    opts: &StaticOptions,
) -> Result<BlockReport, AnalysisError> {
    if insts.is_empty() {
        return Err(AnalysisError::EmptyBlock(name.to_string()));
    }
    let (block, unknown) = resolve_block(machine, insts);
    let request = PlanRequest {
        weights: &opts.weights,
        resources: opts.resources.as_deref(),
        combine: &opts.combine,
        sensitivity: opts.sensitivity,
        baseline: &[],
        // static code has no cache misses or mispredictions: of Eyerman's
        // idealizations only the 1-cycle ALU applies (a loop has no masked streams)
        idealize: IdealizeLevel::Singles,
    };
    let plan = Plan::new(machine, &request, DefaultKnobs::Loop(&block))?;
    let nominal = plan.baseline_config(machine);
    let iterations = opts.iterations.map_or_else(|| steady_iterations(&block, &nominal).max(1), |n| n.get());

    // one stream of the loop times the baseline (with the views), the sweep and the 1-cycle ALU
    let view_params = ViewParams::new(machine, &nominal);
    let facts = StaticFacts::block(machine, insts, &block);
    let views = (
        (Timeline::new(block.len(), iterations), StallCauseCounter::new(machine)),
        (InstructionCost::new(), AccountingViews::new(view_params.clone(), facts)),
    );
    let Variants { configs, labels, alu1 } = plan.variants(machine);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (runs, views) = run_loop(&block, configs, views, iterations, threads);
    let ((timeline, causes), (executions, views)) = views;
    let base = &runs[0];
    let mut accounting = AccountingReport::for_machine(views.finish(base.total_cycles, &executions, &[]), &view_params, machine);
    let alu1_cycles = runs[alu1.expect("planned")].total_cycles;
    accounting.add_idealizations(base.total_cycles, &[(vec![Ideal::Alu1], alu1_cycles)]);
    let cpi = base.cycles_per_iteration();

    let resources = global_usage(machine, &block, cpi);
    let mut sensitivity = points(&labels, runs[1..=labels.len()].iter().map(BlockRun::cycles_per_iteration), cpi);
    explain_slower(machine, &block, iterations, if labels.is_empty() { &[] } else { &plan.sets }, &plan.weights, &mut sensitivity);
    let mut bottlenecks = rank(&sensitivity, &opts.weights);
    // A balanced block speeds up only when its saturated resources grow together
    // (Gus Table 2's multi-resource rows): try that set when no single one helps.
    if opts.sensitivity && opts.resources.is_none() && bottlenecks.is_empty() {
        let saturated: Vec<Knob> = resources
            .iter()
            .filter(|u| u.usage >= SATURATED)
            .filter_map(|u| Knob::parse(machine, &u.name))
            .collect();
        // the saturated resources together; if that is not enough, a recurrence as
        // long as the throughput bound hides behind them: add latency
        let mut with_latency = saturated.clone();
        with_latency.push(Knob::Core(CoreKnob::Latency));
        for set in [saturated, with_latency] {
            if set.len() < 2 || opts.weights.is_empty() {
                continue;
            }
            let sets = [set];
            let (configs, labels) = plan.sweep(machine, &sets);
            let (runs, ()) = run_loop(&block, configs, (), iterations, threads);
            let mut more = points(&labels, runs.iter().map(BlockRun::cycles_per_iteration), cpi);
            explain_slower(machine, &block, iterations, &sets, &plan.weights, &mut more);
            sensitivity.extend(more);
            bottlenecks = rank(&sensitivity, &opts.weights);
            if !bottlenecks.is_empty() {
                break;
            }
        }
    }

    let instructions = insts.iter().zip(&block).map(|(d, t)| instruction_row(machine, d, t, cpi)).collect();
    let mut report = BlockReport {
        verdict: Default::default(),
        machine: machine.name.clone(),
        block: name.to_string(),
        iterations,
        instructions_per_iteration: insts.len(),
        total_cycles: base.total_cycles,
        cycles_per_iteration: cpi,
        ipc: if cpi > 0.0 { insts.len() as f64 / cpi } else { 0.0 },
        resources,
        sensitivity,
        bottlenecks,
        instructions,
        unsupported_instructions: UnsupportedSummary { count: unknown.len(), forms: unknown },
        assumptions: assumptions(insts, &block),
        timeline: timeline.finish(machine),
        stall_causes: causes.finish(machine),
        accounting,
    };
    report.verdict = crate::verdict::of_block(machine, &report, insts, &block);
    Ok(report)
}

/// The count of each repeated string instruction: `rcx` at run time, assumed here.
fn assumptions(insts: &[DecodedInst], block: &[InstrTiming]) -> Vec<Assumption> {
    insts
        .iter()
        .zip(block)
        .filter_map(|(d, t)| {
            let s = t.string.filter(|s| s.op.repeats())?;
            let w = s.assumed_work();
            Some(Assumption {
                address: format!("{:x}", d.address),
                asm: d.asm.clone(),
                assumption: format!(
                    "element count unknown statically (rcx at run time): timed as {} bytes ({} elements of {}), data in L1, {:.0} cycles; `bottlenose run` times each execution with its real count",
                    s.bytes(w.elements),
                    w.elements,
                    s.op.element_bytes,
                    s.core_cycles(w.elements, 1.0)
                ),
            })
        })
        .collect()
}

fn instruction_row(machine: &Machine, d: &DecodedInst, t: &InstrTiming, cpi: f64) -> InstructionRow {
    let usage = per_instruction_load(machine, t)
        .into_iter()
        .map(|(g, n)| (machine.groups[g as usize].name.clone(), n / (machine.group_capacity(g) * cpi.max(1e-9))))
        .collect();
    let ports = t
        .all_uses()
        .map(|u| {
            let n = &machine.groups[u.group as usize].name;
            if u.count == 1.0 { n.clone() } else { format!("{}x{n}", u.count) }
        })
        .collect::<Vec<_>>()
        .join(" ");
    InstructionRow {
        address: format!("{:x}", d.address),
        asm: d.asm.clone(),
        form: d.form.clone(),
        uops: t.unfused_uops,
        fused_uops: t.fused_uops,
        latency: t.latency,
        usage,
        ports,
        unknown_form: t.unknown_form,
    }
}
