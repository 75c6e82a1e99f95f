//! `bottlenose run`, one process: plan -> source -> engine -> views ->
//! attribution. The plan ([`crate::dynamic::plan`]) gives the timing variants
//! and idealized streams; the process's trace is a [`TraceSource`]
//! (`bottlenose-trace-source`: decoding, the functional layer, the region of
//! interest, sampling's fast-forward) that the [`VariantEngine`] pulls batches
//! from with the same `drive` loop static analysis uses; the views listen on the
//! baseline; the cycles are then attributed to code ([`crate::dynamic::symbolize`])
//! and the report assembled. [`processes`] runs the program and every process
//! it starts, each through this.

pub mod processes;

use bottlenose_simulate::engine::{Sampling, VariantEngine, VariantOutcome};
use crate::dynamic::options::{DynamicOptions, EXACT_VIEW_BATCHES, SAMPLE_WINDOW_INSTRUCTIONS};
use crate::dynamic::plan::{variants, Variants};
use crate::dynamic::report::{DynamicError, DynamicReport, HotInstruction, RoiReport, SamplingReport};
use crate::dynamic::sampling::{self, unit_costs::UnitCosts, Sampler};
use crate::dynamic::symbolize::{attribute_run, cycles_by_file, dso_name, objdump_address, objdump_asm};
use bottlenose_trace_source::{Ending, TraceEnd, TraceOptions, TraceSource, BATCH};
use crate::accounting::{AccountingReport, BuildAccounting, Ideal};
use bottlenose_simulate::{drive, rank};
use crate::block::UnsupportedSummary;
use bottlenose_views::{AccountingViews, InstructionCost, SharedFacts, StallCauseCounter, ViewParams};
use bottlenose_machine::Machine;
use bottlenose_trace::{ProcessEvents, ProcessTrace};
use std::collections::HashMap;

/// The listeners on the baseline: stall causes and per-instruction cost, the
/// accounting views, and a sampled run's unit costs.
type Views = ((StallCauseCounter, InstructionCost), (AccountingViews, UnitCosts));

/// A sampled run counts the accounting views on every one of its first
/// [`VIEWS_EVERY_UNIT_FIRST`] units, then on one unit in [`VIEWS_UNIT_EVERY`]. On every
/// unit they cost a sixth of the sampled model (the detailed step, and booking each
/// instruction into the per-cycle picture), and their shares came out within 0.8 points
/// of the exact run's on the ten programs of bench/sampling.py: a quarter of the units
/// doubles their intervals, well inside the 2 points they are held to. The first units
/// are all counted so that a short run's strata of windows each keep enough of them for
/// their variance (one in four of a few hundred units left intervals that missed). With
/// `--exact-views` they count on every unit.
const VIEWS_UNIT_EVERY: u64 = 4;
const VIEWS_EVERY_UNIT_FIRST: u64 = 1000;

/// Simulates one process of a run from `source` and returns its report
/// (partial if it crashed or was stopped) and what its stream said about it.
/// `opts.program` and `opts.args` name what it runs; its code is named from the
/// guest's mappings.
pub(crate) fn simulate(machine: &Machine, opts: &mut DynamicOptions, trace: ProcessTrace) -> Result<(DynamicReport, ProcessEvents), DynamicError> {
    let Variants { configs, labels, acceleration, alu1_variant, ideal } = variants(machine, opts)?;
    let with_views = opts.accounting_views;
    let view_params = ViewParams::new(machine, &configs[0]);
    let facts = SharedFacts::new();
    let views = AccountingViews::with_shared(view_params.clone(), facts.clone());
    let smarts = opts.sampling.clone();
    let listeners: Views = (
        (StallCauseCounter::new(machine), InstructionCost::new()),
        (
            match (with_views, opts.sample_views) {
                (false, _) => views.disabled(),
                (true, Some(n)) => views.sampled(n as u64, EXACT_VIEW_BATCHES).on_units_every(VIEWS_UNIT_EVERY, VIEWS_EVERY_UNIT_FIRST),
                // a sampled run counts the views on its units: exact before them
                (true, None) if smarts.is_some() => views.sampled(8, u64::MAX),
                (true, None) => views,
            },
            UnitCosts::new(smarts.is_some()),
        ),
    );
    let sampling = opts.sample_every.filter(|&n| n >= 2 && configs.len() > 1 && smarts.is_none());
    let mut engine = match (sampling, &smarts) {
        (Some(n), _) => VariantEngine::sampled(configs, listeners, Sampling { window: 16, period: 16 * n as u64 }),
        (None, Some(_)) => VariantEngine::with_feedback(configs, listeners, opts.threads),
        (None, None) => VariantEngine::new(configs, listeners, opts.threads),
    };
    // the timing cores beside the baseline's, which a sampled run times on a sub-sample of its windows
    let variant_cores = labels.len() + alu1_variant.is_some() as usize + ideal.iter().map(|st| st.sets.len()).sum::<usize>();
    let trace_opts = TraceOptions {
        roi: opts.roi.clone(),
        warm: opts.warm,
        max_instructions: opts.max_instructions,
        roi_placement: opts.roi_placement.take(),
        idealization: opts.idealization,
        prefetcher: opts.prefetcher,
        interrupt: opts.interrupt.clone(),
        progress: opts.progress.take(),
        on_estimate: opts.on_estimate.take(),
        late_prefix_variant: alu1_variant,
    };
    let sampler = smarts.map(|o| Sampler::new(o, BATCH as u64).with_variant_cores(variant_cores));
    let mut source = TraceSource::new(machine, trace, trace_opts, engine.take_returns(), ideal, facts, sampler);
    // what ran, not the option's name: `machine` reads as `next-line + stream 63 lines ahead`
    let prefetcher = source.prefetcher_description();
    drive(&mut source, &mut engine);
    let TraceEnd { executed, simulated, complete, interrupted, killed, exit, ending, events, functional, ideal, roi, statics, unknown, last_index, maps_known, maps, sampler, untimed } =
        source.finish()?;
    let Ending { stop_reason, exit_text, exit_code, signal } = ending;
    let (mut outcomes, ((causes, mut cost), (views, mut unit_costs))) = engine.finish();
    let mut ideal_outcomes: Vec<(Vec<Vec<Ideal>>, Vec<VariantOutcome>)> = ideal.into_iter().map(|st| (st.sets, st.engine.finish().0)).collect();
    // a sampled run: every total becomes the estimate from its units
    let sampled = sampler.and_then(|s| {
        let all = outcomes.iter_mut().chain(ideal_outcomes.iter_mut().flat_map(|(_, o)| o.iter_mut()));
        sampling::finish::estimate(s, all, &mut cost, &mut unit_costs, &untimed)
    });
    let mappings = std::mem::take(&mut *maps.borrow_mut());
    let space = bottlenose_attribution::AddressSpace::new(
        mappings,
        statics.iter().zip(&maps_known).enumerate().filter(|(i, _)| cost.get(*i).executions > 0).map(|(_, (s, &k))| (s.inst.address, k as usize)),
    );
    // unsupported forms are reported where objdump shows them
    let mut unknown = unknown;
    for u in &mut unknown {
        use bottlenose_attribution::Symbolize;
        u.address = space.dso_address(u.address).map_or(u.address, |(_, a)| a);
    }
    let base = outcomes[0].cycles.max(0.0);
    // without the views there is nothing to report (they booked nothing)
    // (the views weigh a sampled run's units as its code-mix estimate does)
    let calibration = sampled.as_ref().map_or(&[][..], |s| s.unit_calibration());
    let views_result = with_views.then(|| views.finish(base, &cost, calibration));
    let windows = views_result.as_ref().map(|r| r.windows.clone()).unwrap_or_default();
    let mut accounting = match views_result {
        Some(r) => AccountingReport::for_machine(r, &view_params, machine),
        None => AccountingReport::default(),
    };
    let mut ideal_results: Vec<(Vec<Ideal>, f64)> = Vec::new();
    let mut ideal_units: Vec<(String, &VariantOutcome)> = Vec::new();
    for (sets, o) in &ideal_outcomes {
        for (set, out) in sets.iter().zip(o) {
            ideal_results.push((set.clone(), out.cycles));
            ideal_units.push((set.iter().map(|i| i.name()).collect::<Vec<_>>().join("+"), out));
        }
    }
    if let Some(i) = alu1_variant {
        ideal_results.push((vec![Ideal::Alu1], outcomes[i].cycles));
        ideal_units.push((Ideal::Alu1.name().to_string(), &outcomes[i]));
    }
    ideal_results.sort_by_key(|(set, _)| (set.len(), set.iter().map(|i| Ideal::ALL.iter().position(|x| x == i).unwrap_or(9)).collect::<Vec<_>>()));
    if !ideal_results.is_empty() {
        accounting.add_idealizations(base, &ideal_results);
    }
    // a run is not repeatable per instruction as a block is: slower points are not explained
    let sensitivity = bottlenose_simulate::sensitivity::points(&labels, outcomes[1..].iter().map(|o| o.cycles), base);
    let bottlenecks = rank(&sensitivity, &opts.weights);
    let total: f64 = cost.total_cycles().max(1e-9);
    // the 40 hottest, named and decoded at their file addresses once chosen
    let mut hottest: Vec<(usize, f64)> = (0..statics.len()).map(|i| (i, cost.get(i).cycles)).filter(|&(i, _)| cost.get(i).executions > 0).collect();
    hottest.sort_by(|a, b| b.1.total_cmp(&a.1));
    hottest.truncate(40);
    let hot: Vec<HotInstruction> = hottest
        .into_iter()
        .map(|(i, _)| (cost.get(i), &statics[i]))
        .map(|(c, s)| HotInstruction {
            address: objdump_address(&space, s.inst.address),
            dso: dso_name(&space, s.inst.address),
            asm: objdump_asm(&space, &s.inst, machine.isa),
            executions: c.executions,
            cycles: c.cycles,
            share: c.cycles / total,
            mispredicts: c.mispredicts,
        })
        .collect();
    let ((hotspots, functions, loops, hottest_loop, hottest_loop_head, hottest_loop_at), all_loops) = attribute_run(machine, &space, &statics, &cost);
    let sampling_summary = sampled.map(|run| {
        let shown: Vec<String> = functions.iter().take(sampling::report::FUNCTIONS_SHOWN).map(|f| f.function.clone()).collect();
        let by_name: HashMap<&str, usize> = shown.iter().enumerate().map(|(g, f)| (f.as_str(), g)).collect();
        let function_of = |i: usize, g: &mut Vec<usize>| {
            let name = statics.get(i).map(|s| bottlenose_attribution::function_label(Some(&space), s.inst.address)).unwrap_or_default();
            g.extend(by_name.get(name.as_str()).copied());
        };
        // the report's loops (all_loops' first ones, in its order), by the addresses of their instructions
        let reported = &all_loops[..loops.len().min(all_loops.len())];
        let loop_of = |i: usize, g: &mut Vec<usize>| {
            let Some(s) = statics.get(i) else { return };
            g.extend(reported.iter().enumerate().filter(|(_, l)| l.instructions.binary_search(&s.inst.address).is_ok()).map(|(k, _)| k));
        };
        let function_groups = sampling::finish::Groups { names: shown.clone(), of: function_of };
        let loop_groups = sampling::finish::Groups { names: loops.iter().map(|l| l.head.clone()).collect(), of: loop_of };
        let flops = accounting.flops_stack.as_ref().map(|f| (f, view_params.fp_units));
        let mut summary = run.summary(&labels, &outcomes, &ideal_units, &windows, flops, simulated, unit_costs, function_groups, loop_groups);
        sampling::topdown::add_topdown(&mut summary, &windows, &accounting.topdown);
        // the code mix's intervals hold the total's error; the windows' ratio (a run without a mix) does not
        let widen = if summary.code_classes.is_some() { 0.0 } else { summary.cycles.relative() };
        sampling::groups::centre_group_shares(&mut summary.functions, |n| functions.iter().find(|f| f.function == n).map(|f| f.share), widen);
        sampling::groups::centre_group_shares(&mut summary.loops, |n| loops.iter().find(|l| l.head == n).map(|l| l.share), widen);
        if let Some(stacks) = &accounting.cpi_stacks {
            sampling::stacks::centre_cpi_stacks(&mut summary, stacks);
        }
        summary
    });

    let mut report = DynamicReport {
        verdict: Default::default(),
        machine: machine.name.clone(),
        program: opts.program.display().to_string(),
        args: opts.args.iter().map(|a| a.to_string_lossy().into_owned()).collect(),
        exit: exit_text,
        exit_code,
        signal,
        complete,
        interrupted,
        stop_reason,
        instructions_executed: executed,
        instructions_simulated: simulated,
        cycles: base,
        ipc: if base > 0.0 { simulated as f64 / base } else { 0.0 },
        roi: RoiReport { description: roi.roi().describe(), roi: roi.roi().clone(), entries: roi.entries, instructions: simulated },
        sensitivity,
        sensitivity_sampling: sampling.map(|every| SamplingReport { every, window_instructions: SAMPLE_WINDOW_INSTRUCTIONS }),
        bottlenecks,
        stall_causes: causes.finish(machine),
        functional: functional.stats(),
        prefetcher,
        acceleration,
        hot_instructions: hot,
        hotspots,
        functions,
        files: cycles_by_file(&space, &statics, &cost),
        loops,
        hottest_loop,
        hottest_loop_head,
        unsupported_instructions: UnsupportedSummary { count: unknown.len(), forms: unknown },
        static_instructions: statics.len(),
        accounting,
        processes: Vec::new(),
        total: Default::default(),
        untraced: Vec::new(),
        sampling: sampling_summary,
    };
    if exit.signal() == Some(libc::SIGILL) && !killed {
        if let Some(last) = statics.get(last_index as usize) {
            let why = crate::dynamic::illegal::explain_illegal(&last.inst, &space, machine.isa);
            report.stop_reason = Some(format!("{exit}: {why}"));
        }
    }
    let locate = |a: u64| {
        use bottlenose_attribution::Symbolize;
        (Some(space.label(a)), space.line_at(a).map(|(f, l)| format!("{f}:{l}")))
    };
    let objdump = |a: u64| {
        use bottlenose_attribution::Symbolize;
        space.dso_address(a).map_or((a, None), |(d, at)| (at, Some(d.to_string())))
    };
    report.verdict = crate::verdict::of_run(
        machine,
        &report,
        &crate::verdict::RunContext { loops: &all_loops, locate: &locate, objdump: &objdump, hottest_loop: hottest_loop_at, statics: &statics, cost: &cost },
    );
    Ok((report, events))
}

