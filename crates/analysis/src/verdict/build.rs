//! The verdict of a static block analysis and of a dynamic run.

use super::actions::{action, BranchSite, Place};
use super::body::Body;
use super::judge::{findings, judge, rank, stack_shares, Judged, Views};
use super::rules::{candidates, RuleInputs};
use super::{CacheLevel, GainSource, Verdict, View};
use crate::accounting::AccountingReport;
use crate::dynamic::{DynamicReport, StaticInstruction};
use bottlenose_views::InstructionCost;
use bottlenose_simulate::SensitivityPoint;
use crate::block::BlockReport;
use bottlenose_attribution::LoopInfo;
use bottlenose_decode::DecodedInst;
use bottlenose_machine::Machine;
use bottlenose_timing::InstrTiming;
use std::collections::HashMap;

/// Whether port group `outer` contains `inner` (and is another group).
fn contains(machine: &Machine, outer: &str, inner: &str) -> bool {
    match (machine.group_id(outer), machine.group_id(inner)) {
        (Some(o), Some(i)) if o != i => {
            let (mo, mi) = (machine.groups[o as usize].members, machine.groups[i as usize].members);
            mo & mi == mi
        }
        _ => false,
    }
}

/// The views a scope has.
fn views_present(sensitivity: &[SensitivityPoint], a: &AccountingReport, usage: bool) -> Vec<View> {
    let mut v = Vec::new();
    if !sensitivity.is_empty() {
        v.push(View::Sensitivity);
    }
    if !a.topdown.is_empty() {
        v.push(View::TopDown);
    }
    if a.cpi_stacks.is_some() {
        v.push(View::CpiStacks);
    }
    if !a.idealization.is_empty() {
        v.push(View::Idealization);
    }
    if usage {
        v.push(View::ResourceUsage);
    }
    v
}

/// Port groups to judge: those the loop uses; without a loop, those a single
/// knob of which sped the code up (with a loop, a unit's knob that helps
/// grows a group the loop uses, which is judged already).
fn port_groups(machine: &Machine, usage: &[(String, f64)], sensitivity: &[SensitivityPoint], divider: &[String]) -> Vec<String> {
    let mut v: Vec<String> = usage.iter().map(|(g, _)| g.clone()).collect();
    if v.is_empty() {
        for p in sensitivity {
            if p.resources.len() == 1 && machine.group_id(&p.resources[0]).is_some() && !v.contains(&p.resources[0]) {
                v.push(p.resources[0].clone());
            }
        }
    }
    v.retain(|g| !divider.contains(g));
    v
}

fn group_names(machine: &Machine, ids: &[u16]) -> Vec<String> {
    ids.iter().map(|&g| machine.groups[g as usize].name.clone()).collect()
}

/// The causes of `views`, judged, ranked and explained.
fn verdict_of(machine: &Machine, scope: String, views: &Views, dynamic: bool, body: Option<&Body>, branches: &[BranchSite]) -> Verdict {
    let groups = port_groups(machine, &views.usage, views.sensitivity, &views.inputs.divider_groups);
    let judged: Vec<Judged> = candidates(dynamic, &groups).into_iter().map(|c| judge(c, views)).collect();
    let ranked = rank(judged, &|o, i| contains(machine, o, i));
    let place = Place { machine, body, branches };
    let causes = findings(ranked, &|j| action(j, &place));
    let mut notes = Vec::new();
    if causes.is_empty() {
        notes.push(format!("no cause takes {:.0} % of the cycles in any view", super::SIGNIFICANT * 100.0));
    }
    if causes.len() > 1 {
        notes.push("the gains overlap: removing two causes does not buy the sum".into());
    }
    Verdict { scope, causes, views: views_present(views.sensitivity, views.accounting, !views.usage.is_empty()), notes, hotspots: Vec::new() }
}

/// The verdict of one static block (or loop body).
pub fn of_block(machine: &Machine, r: &BlockReport, insts: &[DecodedInst], block: &[InstrTiming]) -> Verdict {
    let body = Body::new(machine, r.block.clone(), insts.iter().zip(block), Some(r.cycles_per_iteration));
    let usage: Vec<(String, f64)> = r.resources.iter().filter(|u| machine.group_id(&u.name).is_some()).map(|u| (u.name.clone(), u.usage)).collect();
    let views = Views {
        sensitivity: &r.sensitivity,
        accounting: &r.accounting,
        cycles: r.total_cycles,
        usage,
        inputs: RuleInputs { rate_level: [CacheLevel::L2, CacheLevel::L3, CacheLevel::Dram], divider_groups: group_names(machine, &body.divider_groups(machine)) },
        counters: Vec::new(),
        idealization_absent: "not simulated: static code has no caches or branch predictor".into(),
        recurrence: body.recurrence.clone(),
    };
    let mut v = verdict_of(machine, format!("block {}", r.block), &views, false, Some(&body), &[]);
    if r.sensitivity.is_empty() {
        v.notes.push("no sensitivity (--no-sensitivity): co-limited resources cannot be found".into());
    }
    v.notes.push(
        "static analysis: data in L1 and branches predicted, so cache misses and mispredictions are not judged here (`bottlenose run` judges them)".into(),
    );
    v
}

/// What a run's verdict needs beyond the report.
pub struct RunContext<'a> {
    /// The run's loops with their instructions (attribution order: most cycles first).
    pub loops: &'a [LoopInfo],
    /// The function and `file:line` of an address.
    pub locate: &'a dyn Fn(u64) -> (Option<String>, Option<String>),
    /// The address objdump shows for a guest address, and the file it is in.
    pub objdump: &'a dyn Fn(u64) -> (u64, Option<String>),
    /// The guest address of the head of the report's hottest loop.
    pub hottest_loop: Option<u64>,
    /// The run's static instructions and their per-instruction totals.
    pub statics: &'a [StaticInstruction],
    pub cost: &'a InstructionCost,
}

/// For each miss-rate knob (`l1_`, `l2_`, `l3_miss_rate`), the level beyond
/// its own with the most miss stall cycles in the stacks (largest stage); the
/// next level when none has any.
fn rate_levels(a: &AccountingReport) -> [CacheLevel; 3] {
    let w = |l: CacheLevel| {
        let name = match l {
            CacheLevel::L2 => "dcache_l2",
            CacheLevel::L3 => "dcache_l3",
            CacheLevel::Dram => "dcache_dram",
        };
        stack_shares(a, &[name]).map(|s| s.iter().copied().fold(0.0, f64::max)).unwrap_or(0.0)
    };
    let beyond = |n: usize| {
        let levels = &CacheLevel::ALL[n..];
        levels.iter().copied().filter(|&l| w(l) > 0.0).max_by(|a, b| w(*a).total_cmp(&w(*b))).unwrap_or(levels[0])
    };
    [beyond(0), beyond(1), beyond(2)]
}

/// What the instructions at one address did over the run.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Totals {
    pub executions: u64,
    pub mispredicts: u64,
    /// Cycles charged at retirement.
    pub cycles: f64,
}

/// Static instructions by address (QEMU may translate one address several
/// times: the first translation stands for all), with their totals summed.
pub(crate) struct ByAddress<'r> {
    pub first: HashMap<u64, usize>,
    pub totals: HashMap<u64, Totals>,
    pub statics: &'r [StaticInstruction],
    objdump: &'r dyn Fn(u64) -> (u64, Option<String>),
    /// The code's instruction set (the machine's), to decode it again.
    isa: bottlenose_decode::Isa,
}

impl<'r> ByAddress<'r> {
    pub fn new(statics: &'r [StaticInstruction], cost: &InstructionCost, objdump: &'r dyn Fn(u64) -> (u64, Option<String>), isa: bottlenose_decode::Isa) -> Self {
        let mut first = HashMap::new();
        let mut totals: HashMap<u64, Totals> = HashMap::new();
        for (i, s) in statics.iter().enumerate() {
            first.entry(s.inst.address).or_insert(i);
            let c = cost.get(i);
            let e = totals.entry(s.inst.address).or_default();
            e.executions += c.executions;
            e.mispredicts += c.mispredicts;
            e.cycles += c.cycles;
        }
        ByAddress { first, totals, statics, objdump, isa }
    }

    /// The totals of the instructions at `addresses`.
    pub fn sum(&self, addresses: &[u64]) -> Totals {
        let mut t = Totals::default();
        for a in addresses {
            if let Some(x) = self.totals.get(a) {
                t.executions += x.executions;
                t.mispredicts += x.mispredicts;
                t.cycles += x.cycles;
            }
        }
        t
    }

    /// The instruction as objdump shows it: decoded again at its file address.
    pub(crate) fn shown(&self, inst: &DecodedInst) -> DecodedInst {
        let (at, _) = (self.objdump)(inst.address);
        bottlenose_decode::decode_one_for(self.isa, &inst.bytes, at).unwrap_or_else(|_| inst.clone())
    }

    /// The loop's instructions as a body to name in actions (at the addresses
    /// objdump shows).
    pub fn body(&self, machine: &Machine, place: String, addresses: &[u64], cycles_per_iteration: Option<f64>) -> Body {
        let code: Vec<(DecodedInst, &InstrTiming)> =
            addresses.iter().filter_map(|a| self.first.get(a)).map(|&i| (self.shown(&self.statics[i].inst), &self.statics[i].timing)).collect();
        Body::new(machine, place, code.iter().map(|(d, t)| (d, *t)), cycles_per_iteration)
    }

    /// Branches among `addresses` (all when `None`) that mispredicted, most first.
    pub fn branches(&self, addresses: Option<&[u64]>, locate: &dyn Fn(u64) -> (Option<String>, Option<String>)) -> Vec<BranchSite> {
        let mut v: Vec<BranchSite> = self
            .totals
            .iter()
            .filter(|(a, t)| t.mispredicts > 0 && addresses.is_none_or(|list| list.binary_search(a).is_ok()))
            .map(|(&a, t)| BranchSite {
                address: a,
                shown: {
                    let (at, file) = (self.objdump)(a);
                    format!("{at:#x}{}", file.map(|f| format!(" in {f}")).unwrap_or_default())
                },
                asm: self.shown(&self.statics[self.first[&a]].inst).asm,
                executions: t.executions,
                mispredicts: t.mispredicts,
                source: locate(a).1,
            })
            .collect();
        v.sort_by(|a, b| b.mispredicts.cmp(&a.mispredicts).then(a.address.cmp(&b.address)));
        v.truncate(5);
        v
    }
}

/// The run's mispredictions × the penalty it charged for each (its cycle
/// accounting's, else the machine's): no overlap, an upper bound.
fn run_mispredictions(machine: &Machine, r: &DynamicReport, index: &ByAddress) -> super::CounterEvidence {
    let count: u64 = index.totals.values().map(|t| t.mispredicts).sum();
    let penalty = super::hotspots::mispredict_penalty(machine, r);
    let share = count as f64 * penalty / r.cycles.max(1e-9);
    super::CounterEvidence { event: super::CountedEvent::Mispredictions, count, penalty, share, supports: share >= super::SIGNIFICANT }
}

/// `loop 0x1020 in prog!kernel (kernel.c:12)`: the head as objdump shows it.
pub(crate) fn loop_place(head: u64, objdump: &dyn Fn(u64) -> (u64, Option<String>), locate: &dyn Fn(u64) -> (Option<String>, Option<String>)) -> String {
    let (function, source) = locate(head);
    let head = objdump(head).0;
    format!(
        "loop {head:#x}{}{}",
        function.map(|f| format!(" in {f}")).unwrap_or_default(),
        source.map(|s| format!(" ({})", s.rsplit('/').next().unwrap_or(&s))).unwrap_or_default()
    )
}

/// The verdict of a whole run; actions point at its hottest loop and its most
/// mispredicted branch.
pub fn of_run(machine: &Machine, r: &DynamicReport, ctx: &RunContext) -> Verdict {
    let index = ByAddress::new(ctx.statics, ctx.cost, ctx.objdump, machine.isa);
    let hottest = ctx.hottest_loop.and_then(|h| ctx.loops.iter().find(|l| l.head == h));
    let body = hottest.map(|l| {
        let per_iteration = (l.iterations > 0).then(|| l.cycles / l.iterations as f64);
        index.body(machine, loop_place(l.head, ctx.objdump, ctx.locate), &l.instructions, per_iteration)
    });
    let mut usage: Vec<(String, f64)> = Vec::new();
    for row in &r.hottest_loop {
        for (g, u) in &row.usage {
            match usage.iter_mut().find(|(x, _)| x == g) {
                Some(e) => e.1 += u,
                None => usage.push((g.clone(), *u)),
            }
        }
    }
    let branches = index.branches(None, ctx.locate);
    let views = Views {
        sensitivity: &r.sensitivity,
        accounting: &r.accounting,
        cycles: r.cycles,
        usage,
        inputs: RuleInputs {
            rate_level: rate_levels(&r.accounting),
            divider_groups: body.as_ref().map(|b| group_names(machine, &b.divider_groups(machine))).unwrap_or_default(),
        },
        // the run's mispredictions, counted exactly whatever the views
        counters: vec![(super::Cause::BranchMispredictions, run_mispredictions(machine, r, &index))],
        idealization_absent: "not run (--no-idealize or --no-views)".into(),
        recurrence: body.as_ref().and_then(|b| b.recurrence.clone()),
    };
    let mut v = verdict_of(machine, format!("run of {}", r.program), &views, true, body.as_ref(), &branches);
    match (r.accounting.topdown.is_empty(), r.sensitivity.is_empty()) {
        (true, true) => v.notes.push("no sensitivity, Top-Down, stacks or idealizations (--no-sensitivity, --no-views): the verdict rests on the mispredictions counted and the hotspots' static analyses".into()),
        (true, false) => v.notes.push("no Top-Down, stacks or idealizations (--no-views): the verdict rests on sensitivity and the mispredictions counted".into()),
        (false, true) => v.notes.push("no sensitivity (--no-sensitivity)".into()),
        (false, false) => {}
    }
    if r.sensitivity_sampling.is_some() {
        v.notes.push("sensitivity timed on sampled windows (--sample-every)".into());
    }
    if !r.acceleration.is_empty() {
        v.notes.push("a what-if core (--accelerate): every figure is for that core".into());
    }
    if hottest.is_none() {
        v.notes.push("no loop found: actions cannot name one".into());
    }
    // what the run's experiments measure for a cause, for the hotspots to stay within
    let measured = |c: &super::Cause| {
        let j = judge(c.clone(), &views);
        matches!(j.gain.source, GainSource::Idealization | GainSource::Sensitivity | GainSource::SensitivitySet).then_some(j.gain.share)
    };
    v.hotspots = super::hotspots::hotspots(machine, r, ctx, &index, &v, &measured);
    // a cause's action names the hottest loop; where the loops' verdicts put
    // more of the cause in another loop, name that one (its chain, its ports)
    for f in v.causes.iter_mut().filter(|f| f.gain.share >= super::SIGNIFICANT) {
        let best = v
            .hotspots
            .iter()
            .filter(|h| h.kind == super::HotspotKind::Loop)
            .filter_map(|h| h.verdict.causes.iter().find(|c| c.cause == f.cause).map(|c| (c.gain.share * h.share, c)))
            .filter(|(w, _)| *w > 0.0)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((_, c)) = best {
            f.action = c.action.clone();
        }
    }
    v
}
