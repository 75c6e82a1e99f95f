//! The verdict of a run's hottest loops and functions.
//!
//! Only the whole run has Top-Down, CPI stacks, idealizations and sensitivity.
//! Per loop the verdict combines what is known of the loop itself:
//!
//! * the **static analysis of its body** (its own instructions, inner loops
//!   excluded), with that analysis' own verdict: data in L1, branches
//!   predicted. Its causes' gains are scaled by the static time over the
//!   loop's measured time (cycles charged to its instructions at retirement
//!   over its iterations);
//!   A static cause never gets more than the run's own experiments measure for
//!   it (its whole-run gain, in cycles, over the loop's cycles): a chain the
//!   static analysis blames can hide behind cache misses in the run;
//! * the **time beyond that estimate** (the excess) is what caches, predictors
//!   and fetch cost the loop. Its **mispredictions** are counted on its own
//!   instructions and given their part of the run's perfect-branch gain (by
//!   count; count × the machine's penalty without that idealization), at most
//!   the excess. What is left of the excess is split between the run's memory
//!   and fetch causes (cache misses by level, TLB, frontend) in proportion to
//!   their gains in the run's verdict: the run has no per-loop cache counters.
//!
//! Per function: its mispredictions (the same way, at most its cycles), and the
//! causes of its hottest loop scaled by that loop's share of the function.
//! Code outside the program's symbols (`[shared]`, `[unknown]`) is no function.

use super::actions::{action, Place};
use super::build::{loop_place, ByAddress, RunContext};
use super::judge::Judged;
use super::rules::SIGNIFICANT;
use super::{
    Agreement, Cause, CountedEvent, CounterEvidence, Evidence, Finding, Gain, GainSource, HotspotKind, HotspotVerdict, Verdict, View,
};
use crate::dynamic::DynamicReport;
use crate::block::{analyze_block, StaticOptions};
use bottlenose_attribution::LoopInfo;
use bottlenose_decode::DecodedInst;
use bottlenose_machine::Machine;

/// Hotspots judged of each kind, and the share of the run's cycles from which one is.
const TOP: usize = 3;
const MIN_SHARE: f64 = 0.05;
/// Loop bodies longer than this are not analyzed statically.
const MAX_STATIC_BODY: usize = 2000;

/// One loop's verdict and what a function's verdict takes from it.
struct LoopVerdict {
    head: u64,
    own_cycles: f64,
    verdict: Verdict,
}

/// Verdicts of the hottest loops (by the cycles of their own instructions) and functions.
/// What the run's experiments measure for a cause (share of the run's cycles), if they cover it.
pub(crate) type RunGain<'a> = &'a dyn Fn(&Cause) -> Option<f64>;

/// The run's facts every hotspot verdict uses.
struct RunFacts<'a> {
    machine: &'a Machine,
    r: &'a DynamicReport,
    ctx: &'a RunContext<'a>,
    index: &'a ByAddress<'a>,
    run: &'a Verdict,
    measured: RunGain<'a>,
    penalty: f64,
    /// Cycles the run's perfect-branch idealization removes, and the run's mispredictions.
    branch_ideal: Option<(f64, u64)>,
}

impl RunFacts<'_> {
    /// What `mispredicts` cost out of `cycles`: their part (by count) of the
    /// run's perfect-branch gain, else count × penalty (an upper bound).
    fn mispredictions(&self, mispredicts: u64, cycles: f64) -> (CounterEvidence, String) {
        let mut c = counter(CountedEvent::Mispredictions, mispredicts, self.penalty, cycles);
        match self.branch_ideal {
            Some((removed, all)) if all > 0 => {
                let part = mispredicts as f64 / all as f64;
                c.share = removed * part / cycles.max(1e-9);
                c.supports = c.share >= SIGNIFICANT;
                (c, format!("{:.0} % of the run's mispredictions, their part of perfect_branch's gain", part * 100.0))
            }
            _ => (c, format!("{mispredicts} mispredictions x {:.0} cycles (no overlap: an upper bound)", self.penalty)),
        }
    }
}

pub(crate) fn hotspots(
    machine: &Machine,
    r: &DynamicReport,
    ctx: &RunContext,
    index: &ByAddress,
    run: &Verdict,
    measured: RunGain<'_>,
) -> Vec<HotspotVerdict> {
    let total = r.cycles.max(1e-9);
    let branch_ideal = r.accounting.idealization.iter().find(|i| i.what == crate::accounting::Ideal::Branch.name()).map(|i| {
        let all: u64 = index.totals.values().map(|t| t.mispredicts).sum();
        ((r.cycles - i.cycles).max(0.0), all)
    });
    let facts = RunFacts { machine, r, ctx, index, run, measured, penalty: mispredict_penalty(machine, r), branch_ideal };
    let mut loops: Vec<(usize, Vec<u64>, f64)> = ctx
        .loops
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let own = own_instructions(ctx.loops, i);
            let cycles = index.sum(&own).cycles;
            (i, own, cycles)
        })
        .collect();
    loops.sort_by(|a, b| b.2.total_cmp(&a.2));
    let mut judged: Vec<LoopVerdict> = Vec::new();
    let mut out = Vec::new();
    for (i, own, cycles) in loops.iter().filter(|l| l.2 / total >= MIN_SHARE).take(TOP) {
        let l = &ctx.loops[*i];
        let v = loop_verdict(&facts, l, own, *cycles);
        let (function, source) = (ctx.locate)(l.head);
        out.push(HotspotVerdict {
            kind: HotspotKind::Loop,
            name: loop_place(l.head, ctx.objdump, &|_| (function.clone(), None)),
            source,
            cycles: *cycles,
            share: cycles / total,
            verdict: v.clone(),
        });
        judged.push(LoopVerdict { head: l.head, own_cycles: *cycles, verdict: v });
    }
    // `[shared]` and `[unknown]` gather unrelated code: no function to judge
    let real = |f: &&crate::dynamic::HotspotRow| f.function != bottlenose_attribution::SHARED && f.function != bottlenose_attribution::UNKNOWN;
    for f in r.functions.iter().filter(real).filter(|f| f.share >= MIN_SHARE).take(TOP) {
        // the function's hottest loop, judged above or now
        let hottest = loops.iter().find(|(i, _, _)| ctx.loops[*i].function.as_deref() == Some(f.function.as_str()));
        if let Some((i, own, cycles)) = hottest {
            if !judged.iter().any(|j| j.head == ctx.loops[*i].head) {
                let l = &ctx.loops[*i];
                let v = loop_verdict(&facts, l, own, *cycles);
                judged.push(LoopVerdict { head: l.head, own_cycles: *cycles, verdict: v });
            }
        }
        let inner = hottest.and_then(|(i, _, _)| judged.iter().find(|j| j.head == ctx.loops[*i].head));
        let mispredicts = f.counters[0].max(0.0) as u64;
        out.push(HotspotVerdict {
            kind: HotspotKind::Function,
            name: f.function.clone(),
            source: f.file.as_ref().map(|file| format!("{file}:{}", f.line.unwrap_or(0))),
            cycles: f.cycles,
            share: f.share,
            verdict: function_verdict(&facts, &f.function, f.cycles, mispredicts, inner),
        });
    }
    out
}

/// The penalty the run charged per misprediction (its cycle accounting), else the machine's.
pub(crate) fn mispredict_penalty(machine: &Machine, r: &DynamicReport) -> f64 {
    r.accounting
        .cycle_accounting
        .as_ref()
        .and_then(|c| c.penalties.iter().find(|t| t.event == "branch_mispredict").map(|t| t.penalty))
        .unwrap_or(machine.params.branch.mispredict_penalty)
}

/// A loop's instructions minus those of the loops nested in it.
fn own_instructions(loops: &[LoopInfo], i: usize) -> Vec<u64> {
    let l = &loops[i];
    let inner: Vec<&LoopInfo> = loops.iter().filter(|o| o.depth > l.depth && o.head != l.head && l.instructions.binary_search(&o.head).is_ok()).collect();
    l.instructions.iter().copied().filter(|a| !inner.iter().any(|o| o.instructions.binary_search(a).is_ok())).collect()
}

fn counter(event: CountedEvent, count: u64, penalty: f64, cycles: f64) -> CounterEvidence {
    let share = count as f64 * penalty / cycles.max(1e-9);
    CounterEvidence { event, count, penalty, share, supports: share >= SIGNIFICANT }
}

/// A finding of a hotspot from events counted on its instructions.
fn counted(cause: Cause, gain: Gain, evidence: Evidence, reason: Option<String>, act: String) -> Finding {
    Finding { rank: 0, title: cause.title(), cause, gain, agreement: if reason.is_some() { Agreement::Disagree } else { Agreement::Agree }, reason, action: act, evidence }
}

fn loop_verdict(facts: &RunFacts, l: &LoopInfo, own: &[u64], cycles: f64) -> Verdict {
    let RunFacts { machine, r, ctx, index, run, .. } = *facts;
    let place = loop_place(l.head, ctx.objdump, ctx.locate);
    let measured = cycles / l.iterations.max(1) as f64;
    // at the addresses objdump shows, so that the static analysis's actions and
    // the chain's steps name them as the tables do
    let insts: Vec<DecodedInst> = own.iter().filter_map(|a| index.first.get(a)).map(|&i| index.shown(&index.statics[i].inst)).collect();
    let opts = StaticOptions { weights: vec![1.15, 2.0], ..StaticOptions::default() };
    let analysis = (insts.len() <= MAX_STATIC_BODY).then(|| analyze_block(machine, &place, &insts, &opts).ok()).flatten();
    let static_share = analysis.as_ref().map_or(0.0, |a| (a.cycles_per_iteration / measured.max(1e-9)).min(1.0));
    let mut causes: Vec<Finding> = Vec::new();
    let mut notes = vec![format!(
        "Top-Down, CPI stacks, idealizations and sensitivity exist for the whole run only; here: the static analysis of the loop body ({} instructions, data in L1, branches predicted) and the mispredictions of its own instructions",
        own.len()
    )];
    match &analysis {
        Some(a) => {
            notes.push(format!(
                "measured {measured:.2} cycles per iteration ({} iterations), {:.2} statically: the static causes weigh {:.0} % of its time",
                l.iterations,
                a.cycles_per_iteration,
                static_share * 100.0
            ));
            for f in a.verdict.causes.iter().filter(|f| f.gain.share >= SIGNIFICANT) {
                let mut f = f.clone();
                let share = f.gain.share * static_share;
                let basis = format!("{} in the static analysis, x {:.0} % of the loop's measured time", f.gain.basis, static_share * 100.0);
                // no more than the run's experiments measure for it
                let cap = (facts.measured)(&f.cause).map(|g| (g * r.cycles / cycles.max(1e-9)).min(1.0));
                match cap {
                    Some(cap) if share > cap + 0.01 => {
                        f.reason = Some(format!(
                            "the static analysis (data in L1, no mispredictions) puts {:.0} % of the loop on it, the run's experiments measure {:.0} %: in the run it hides behind other stalls",
                            share * 100.0,
                            cap * 100.0
                        ));
                        f.agreement = Agreement::Disagree;
                        f.gain = Gain::new(cap, GainSource::StaticLoop, format!("{basis}, cut to what the run's experiments measure"));
                        if cap < SIGNIFICANT {
                            notes.push(format!("{}: {}", f.title, f.reason.as_deref().unwrap_or("")));
                            continue;
                        }
                    }
                    _ => f.gain = Gain::new(share, GainSource::StaticLoop, basis),
                }
                causes.push(f);
            }
        }
        None => notes.push("no static analysis of the body (too long, or nothing to time)".into()),
    }
    let excess = 1.0 - static_share;
    let t = index.sum(own);
    let (mis, mis_basis) = facts.mispredictions(t.mispredicts, cycles);
    let mis_gain = mis.share.min(excess);
    let body = analysis.as_ref().map(|_| {
        let timings = own.iter().filter_map(|a| index.first.get(a)).map(|&i| &index.statics[i].timing);
        super::Body::new(machine, place.clone(), insts.iter().zip(timings), Some(measured))
    });
    let mut sorted_own = own.to_vec();
    sorted_own.sort_unstable();
    let branches = index.branches(Some(&sorted_own), ctx.locate);
    let place_of = Place { machine, body: body.as_ref(), branches: &branches };
    if mis_gain >= SIGNIFICANT {
        let reason = (mis.share > excess * 1.2 + 0.01).then(|| {
            format!(
                "the mispredictions' estimate ({:.0} %) exceeds the loop's time beyond its static estimate ({:.0} %): the static estimate counts work that overlaps with them",
                mis.share * 100.0,
                excess * 100.0
            )
        });
        let gain = Gain::new(mis_gain, GainSource::Counters, format!("{mis_basis}, at most the time beyond the static estimate"));
        let evidence = Evidence { counters: vec![mis], ..Evidence::default() };
        let j = Judged { cause: Cause::BranchMispredictions, gain: gain.clone(), evidence: evidence.clone(), support: vec![(View::Counters, true)], co_limited: None, elsewhere: None };
        causes.push(counted(Cause::BranchMispredictions, gain, evidence, reason, action(&j, &place_of)));
    }
    // the rest of the excess: the run's memory and fetch causes, in proportion
    let rest = excess - mis_gain;
    let memory: Vec<&Finding> = run
        .causes
        .iter()
        .filter(|f| matches!(f.cause, Cause::CacheMisses { .. } | Cause::TlbMisses | Cause::Frontend) && f.gain.share >= SIGNIFICANT)
        .collect();
    let weight: f64 = memory.iter().map(|f| f.gain.share).sum();
    if rest >= SIGNIFICANT && weight > 0.0 && analysis.is_some() {
        for f in memory {
            let share = rest * f.gain.share / weight;
            if share < SIGNIFICANT {
                continue;
            }
            let gain = Gain::new(
                share,
                GainSource::Counters,
                format!("{:.0} % of the loop's time beyond its static estimate, split by the run's verdict", share * 100.0),
            );
            let evidence = Evidence { missing: vec!["per-loop views: none for the memory side; the run's verdict weighs this cause".into()], ..Evidence::default() };
            let j = Judged { cause: f.cause.clone(), gain: gain.clone(), evidence: f.evidence.clone(), support: vec![], co_limited: None, elsewhere: None };
            causes.push(counted(f.cause.clone(), gain, evidence, None, action(&j, &place_of)));
        }
    } else if rest >= SIGNIFICANT && analysis.is_some() {
        notes.push(format!("{:.0} % of its time is beyond its static estimate and not mispredictions; the run's verdict names no memory or fetch cause for it", rest * 100.0));
    }
    rank(&mut causes);
    Verdict { scope: place, causes, views: vec![View::Counters], notes, hotspots: Vec::new() }
}

fn function_verdict(facts: &RunFacts, name: &str, cycles: f64, mispredicts: u64, inner: Option<&LoopVerdict>) -> Verdict {
    let RunFacts { machine, ctx, index, .. } = *facts;
    let mut causes: Vec<Finding> = Vec::new();
    let mut notes = Vec::new();
    let in_loop = inner.map_or(0.0, |l| (l.own_cycles / cycles.max(1e-9)).min(1.0));
    if let Some(l) = inner {
        notes.push(format!("{:.0} % of its time is in {} (its verdict scaled below)", in_loop * 100.0, l.verdict.scope));
        for f in l.verdict.causes.iter().filter(|f| f.cause != Cause::BranchMispredictions) {
            let mut f = f.clone();
            f.gain = Gain::new(f.gain.share * in_loop, f.gain.source, format!("{}, x {:.0} % of the function in the loop", f.gain.basis, in_loop * 100.0));
            if f.gain.share >= SIGNIFICANT {
                causes.push(f);
            }
        }
    } else {
        notes.push("none of its loops is among the run's: only its mispredictions are judged".into());
    }
    let (mis, basis) = facts.mispredictions(mispredicts, cycles);
    if mis.share >= SIGNIFICANT {
        let gain = Gain::new(mis.share.min(1.0), GainSource::Counters, basis);
        let evidence = Evidence { counters: vec![mis], ..Evidence::default() };
        let branches = index.branches(None, ctx.locate).into_iter().filter(|b| (ctx.locate)(b.address).0.as_deref() == Some(name)).collect::<Vec<_>>();
        let place = Place { machine, body: None, branches: &branches };
        let j = Judged { cause: Cause::BranchMispredictions, gain: gain.clone(), evidence: evidence.clone(), support: vec![(View::Counters, true)], co_limited: None, elsewhere: None };
        causes.push(counted(Cause::BranchMispredictions, gain, evidence, None, action(&j, &place)));
    }
    notes.push("per function: its mispredictions over its own cycles, and its hottest loop's verdict; the views exist for the whole run only".into());
    rank(&mut causes);
    Verdict { scope: format!("function {name}"), causes, views: vec![View::Counters], notes, hotspots: Vec::new() }
}

/// Ranks findings by gain (1 = largest).
fn rank(causes: &mut [Finding]) {
    causes.sort_by(|a, b| b.gain.share.total_cmp(&a.gain.share));
    for (i, f) in causes.iter_mut().enumerate() {
        f.rank = i + 1;
    }
}
