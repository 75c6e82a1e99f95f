//! Gathers each view's evidence for a cause, estimates its gain, ranks the
//! causes and says where the views disagree (rules: `rules.rs`, documented in
//! the module above).

use super::rules::{rule, saved, Rule, RuleInputs, MAX_SET, SATURATED, SIGNIFICANT};
use super::{
    Agreement, Cause, CounterEvidence, Evidence, Finding, Gain, GainSource, IdealizationEvidence, SensitivityEvidence,
    StackEvidence, TopDownEvidence, UsageEvidence, View,
};
use crate::accounting::{find_node, AccountingReport, Ideal};
use bottlenose_simulate::{reference_weight, THRESHOLD};
use bottlenose_simulate::SensitivityPoint;
use bottlenose_timing::CoreKnob;

/// The views of one scope.
pub(crate) struct Views<'a> {
    pub sensitivity: &'a [SensitivityPoint],
    pub accounting: &'a AccountingReport,
    /// The scope's cycles: idealized runs are measured against them.
    pub cycles: f64,
    /// Port-group usage of the scope's loop: (group, fraction of capacity).
    pub usage: Vec<(String, f64)>,
    pub inputs: RuleInputs,
    /// Per hotspot: what its own instructions' events cost, by cause.
    pub counters: Vec<(Cause, CounterEvidence)>,
    /// Why an idealization the rules name did not run.
    pub idealization_absent: String,
    /// The longest register recurrence of the scope's loop.
    pub recurrence: Option<super::Recurrence>,
}

/// A cause with its evidence, before ranking.
pub(crate) struct Judged {
    pub cause: Cause,
    pub gain: Gain,
    pub evidence: Evidence,
    /// Each view present and whether it supports the cause.
    pub support: Vec<(View, bool)>,
    /// The set of knobs that helps when no single knob of the cause does.
    pub co_limited: Option<SensitivityEvidence>,
    /// Where the accounting views put most of the cycles instead (the largest
    /// other issue-stack component, the largest level-1 Top-Down node).
    pub elsewhere: Option<String>,
}

impl Judged {
    fn supported_by(&self) -> usize {
        self.support.iter().filter(|s| s.1).count()
    }

    fn agreement(&self) -> Agreement {
        let any = self.support.iter().any(|s| s.1);
        let all = self.support.iter().all(|s| s.1);
        if any && !all {
            Agreement::Disagree
        } else {
            Agreement::Agree
        }
    }

    /// Every accounting view present supports it, every experiment present does not.
    fn refuted(&self) -> bool {
        let accounting: Vec<bool> = self.support.iter().filter(|s| !s.0.measured()).map(|s| s.1).collect();
        let measured: Vec<bool> = self.support.iter().filter(|s| s.0.measured()).map(|s| s.1).collect();
        !accounting.is_empty() && accounting.iter().all(|&s| s) && !measured.is_empty() && measured.iter().all(|&s| !s)
    }
}

/// The sensitivity points of one knob set at the reference and the largest weight.
struct Sweep<'a> {
    points: &'a [SensitivityPoint],
    wref: f64,
    wmax: f64,
}

impl<'a> Sweep<'a> {
    fn new(points: &'a [SensitivityPoint]) -> Option<Sweep<'a>> {
        let mut weights: Vec<f64> = points.iter().map(|p| p.weight).collect();
        weights.sort_by(f64::total_cmp);
        weights.dedup();
        let wref = reference_weight(&weights)?;
        let wmax = *weights.last()?;
        Some(Sweep { points, wref, wmax })
    }

    fn at(&self, set: &[String], w: f64) -> Option<f64> {
        self.points.iter().find(|p| p.resources == set && (p.weight - w).abs() < 1e-9).map(|p| p.speedup)
    }

    fn evidence(&self, set: &[String]) -> Option<SensitivityEvidence> {
        let speedup = self.at(set, self.wref)?;
        let max_speedup = self.at(set, self.wmax).unwrap_or(speedup);
        Some(SensitivityEvidence {
            resources: set.to_vec(),
            weight: self.wref,
            speedup,
            max_weight: self.wmax,
            max_speedup,
            supports: speedup >= THRESHOLD || saved(max_speedup) >= SIGNIFICANT,
        })
    }

    /// The sets of two or three knobs that contain one of `knobs`.
    fn sets_with(&self, knobs: &[String]) -> Vec<Vec<String>> {
        let mut v: Vec<Vec<String>> = Vec::new();
        for p in self.points {
            let r = &p.resources;
            if r.len() > 1 && r.len() <= MAX_SET && r.iter().any(|k| knobs.contains(k)) && !v.contains(r) {
                v.push(r.clone());
            }
        }
        v
    }
}

/// The share of the cycles an idealization removes, or `None` when it did not run.
fn ideal_share(a: &AccountingReport, ideal: Ideal, cycles: f64) -> Option<(f64, f64)> {
    let row = a.idealization.iter().find(|r| r.what == ideal.name())?;
    Some((row.cpi_reduction, if cycles > 0.0 { (cycles - row.cycles) / cycles } else { 0.0 }))
}

/// The stack components of `names` as fractions of the cycles, per stage.
pub(crate) fn stack_shares(a: &AccountingReport, names: &[&str]) -> Option<[f64; 3]> {
    let st = a.cpi_stacks.as_ref()?;
    let c = st.cycles.max(1e-9);
    let part = |stage: &str| names.iter().map(|n| st.stage(stage).and_then(|s| s.get(*n)).copied().unwrap_or(0.0)).sum::<f64>() / c;
    Some([part("dispatch"), part("issue"), part("commit")])
}

/// How much of a perfect dcache's gain is `level`'s: its largest stack component
/// over the sum of every level's (1 when it is the only level with misses).
fn dcache_apportion(a: &AccountingReport, cause: &Cause) -> f64 {
    let Cause::CacheMisses { level } = cause else { return 1.0 };
    let weight = |l: super::CacheLevel| {
        let name = match l {
            super::CacheLevel::L2 => "dcache_l2",
            super::CacheLevel::L3 => "dcache_l3",
            super::CacheLevel::Dram => "dcache_dram",
        };
        stack_shares(a, &[name]).map(|s| s.iter().copied().fold(0.0, f64::max)).unwrap_or(0.0)
    };
    let total: f64 = super::CacheLevel::ALL.iter().map(|&l| weight(l)).sum();
    if total > 0.0 {
        weight(*level) / total
    } else {
        0.0
    }
}

pub(crate) fn judge(cause: Cause, v: &Views) -> Judged {
    let r: Rule = rule(&cause, &v.inputs);
    let mut e = Evidence::default();
    let mut support: Vec<(View, bool)> = Vec::new();
    let mut measured: Vec<Gain> = Vec::new();
    let mut co_limited = None;

    // sensitivity
    match Sweep::new(v.sensitivity) {
        None => e.missing.push("sensitivity: not run".into()),
        Some(sweep) => {
            for k in &r.knobs {
                if let Some(s) = sweep.evidence(std::slice::from_ref(k)) {
                    measured.push(Gain::new(saved(s.max_speedup), GainSource::Sensitivity, format!("{k} x{}: {:+.1} %", trim(s.max_weight), s.max_speedup * 100.0)));
                    e.sensitivity.push(s);
                }
            }
            let single = e.sensitivity.iter().any(|s| s.supports);
            if e.sensitivity.is_empty() {
                e.missing.push(match r.no_knob {
                    Some(why) if r.knobs.is_empty() => format!("sensitivity: {why}"),
                    _ => format!("sensitivity: no knob for it in this report ({})", if r.knobs.is_empty() { "none".to_string() } else { r.knobs.join(", ") }),
                });
            }
            if !single {
                let best = sweep
                    .sets_with(&r.knobs)
                    .iter()
                    .filter_map(|s| sweep.evidence(s))
                    .filter(|s| s.supports)
                    .max_by(|a, b| a.max_speedup.total_cmp(&b.max_speedup));
                if let Some(s) = best {
                    measured.push(Gain::new(
                        saved(s.max_speedup),
                        GainSource::SensitivitySet,
                        format!("{} together x{}: {:+.1} %", s.resources.join("+"), trim(s.max_weight), s.max_speedup * 100.0),
                    ));
                    // a set of the cause's own knobs (frontend+commit) is the cause alone
                    if s.resources.iter().any(|k| !r.knobs.contains(k)) {
                        co_limited = Some(s.clone());
                    }
                    e.sensitivity.push(s);
                }
            }
            if !e.sensitivity.is_empty() {
                support.push((View::Sensitivity, e.sensitivity.iter().any(|s| s.supports)));
            }
        }
    }

    // Top-Down
    if v.accounting.topdown.is_empty() {
        e.missing.push("Top-Down: not computed".into());
    } else if let Some(n) = r.topdown.iter().find_map(|name| find_node(&v.accounting.topdown, name).filter(|n| n.value.is_some())) {
        e.topdown = Some(TopDownEvidence { node: n.name.clone(), value: n.value, unit: n.unit, normalized: n.normalized, flagged: n.flagged, supports: n.flagged });
        support.push((View::TopDown, n.flagged));
    } else {
        e.missing.push("Top-Down: no node for it".into());
    }

    // CPI stacks
    match (r.stack.is_empty(), stack_shares(v.accounting, r.stack)) {
        (true, _) => e.missing.push("CPI stacks: no component for it".into()),
        (false, None) => e.missing.push("CPI stacks: not computed".into()),
        (false, Some([dispatch, issue, commit])) => {
            let supports = dispatch.max(issue).max(commit) >= r.stack_threshold;
            e.stacks = Some(StackEvidence { components: r.stack.iter().map(|s| s.to_string()).collect(), dispatch, issue, commit, supports });
            support.push((View::CpiStacks, supports));
        }
    }

    // idealization
    match r.ideal {
        None => e.missing.push("idealization: none removes it".into()),
        Some(ideal) => match ideal_share(v.accounting, ideal, v.cycles) {
            None => e.missing.push(format!("idealization: {} {}", ideal.name(), v.idealization_absent)),
            Some((reduction, share)) => {
                let part = if ideal == Ideal::Dcache { dcache_apportion(v.accounting, &cause) } else { 1.0 };
                let share = share * part;
                let supports = share >= SIGNIFICANT;
                let what = if part < 1.0 { format!("{} ({:.0} % of its gain, by the stacks' share of this level)", ideal.name(), part * 100.0) } else { ideal.name().to_string() };
                measured.push(Gain::new(share, GainSource::Idealization, format!("{what}: {:.1} % fewer cycles", share * 100.0)));
                e.idealization = Some(IdealizationEvidence { what: ideal.name().into(), cpi_reduction: reduction * part, share, apportioned: part, supports });
                support.push((View::Idealization, supports));
            }
        },
    }

    // resource usage (port pressure)
    if let Cause::PortPressure { ports } = &cause {
        if let Some((_, u)) = v.usage.iter().find(|(g, _)| g == ports) {
            let supports = *u >= SATURATED;
            e.usage = Some(UsageEvidence { resource: ports.clone(), usage: *u, supports });
            support.push((View::ResourceUsage, supports));
        }
    }

    if cause == Cause::DependencyChain {
        e.recurrence = v.recurrence.clone();
    }

    // per-hotspot counters
    for (c, ev) in &v.counters {
        if *c == cause {
            support.push((View::Counters, ev.supports));
            e.counters.push(ev.clone());
        }
    }

    let gain = measured
        .into_iter()
        .max_by(|a, b| a.share.total_cmp(&b.share))
        .or_else(|| {
            let share: f64 = e.counters.iter().map(|c| c.share).sum();
            (!e.counters.is_empty()).then(|| Gain::new(share, GainSource::Counters, "events x penalty (no overlap)".into()))
        })
        // with nothing measured, the accounting's share is a gain only where every
        // accounting view supports the cause (a Top-Down node that several causes
        // share, Ports_Utilization, says nothing of one port group alone)
        .or_else(|| {
            let accounting: Vec<bool> = support.iter().filter(|s| !s.0.measured() && s.0 != View::Counters).map(|s| s.1).collect();
            if !r.accounting_gain || accounting.is_empty() || !accounting.iter().all(|&s| s) {
                return None;
            }
            match (&e.stacks, &e.topdown) {
                (Some(s), _) => Some(Gain::new(
                    s.dispatch.max(s.issue).max(s.commit),
                    GainSource::CpiStacks,
                    "the largest stack component (nothing measured: an upper bound)".into(),
                )),
                (None, Some(t)) => t.normalized.map(|n| Gain::new(n, GainSource::TopDown, "the Top-Down share (nothing measured)".into())),
                _ => None,
            }
        })
        .unwrap_or_else(|| Gain::new(0.0, GainSource::TopDown, "no view speaks of it".into()));
    let elsewhere = elsewhere(v.accounting, r.stack);
    Judged { cause, gain, evidence: e, support, co_limited, elsewhere }
}

/// The largest issue-stack component other than `own`, and the largest
/// level-1 Top-Down node: where accounting put the cycles.
fn elsewhere(a: &AccountingReport, own: &[&str]) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(st) = &a.cpi_stacks {
        let best = st.issue.iter().filter(|(k, _)| !own.contains(&k.as_str())).max_by(|x, y| x.1.total_cmp(y.1));
        if let Some((k, c)) = best {
            parts.push(format!("the stacks to {k} ({:.0} % at issue)", c * 100.0 / st.cycles.max(1e-9)));
        }
    }
    let share = |n: &crate::accounting::TopDownNode| n.normalized.or(n.value).unwrap_or(0.0);
    if let Some(n) = a.topdown.iter().max_by(|x, y| share(x).total_cmp(&share(y))) {
        parts.push(format!("Top-Down to {} ({:.0} %)", n.name, share(n) * 100.0));
    }
    (!parts.is_empty()).then(|| parts.join(" and "))
}

/// Keeps the causes worth showing and ranks them: by gain, ties by the number
/// of views that support them, then by port usage. Port pressure on a group
/// nested with a ranked group (containing it or inside it) with the same gain
/// is that group's pressure again (a unit's knob grows every group it is in):
/// dropped, the busier group stays.
pub(crate) fn rank(mut judged: Vec<Judged>, contains: &dyn Fn(&str, &str) -> bool) -> Vec<Judged> {
    judged.retain(|j| j.gain.share >= SIGNIFICANT || j.refuted());
    let usage = |j: &Judged| j.evidence.usage.as_ref().map_or(0.0, |u| u.usage);
    judged.sort_by(|a, b| {
        let key = |x: f64| (x * 1000.0).round();
        key(b.gain.share)
            .total_cmp(&key(a.gain.share))
            .then(b.supported_by().cmp(&a.supported_by()))
            .then(usage(b).total_cmp(&usage(a)))
    });
    let mut out: Vec<Judged> = Vec::new();
    for j in judged {
        if let Cause::PortPressure { ports } = &j.cause {
            let repeated = out.iter().any(|o| match &o.cause {
                Cause::PortPressure { ports: other } => {
                    (contains(ports, other) || contains(other, ports)) && o.gain.share >= j.gain.share - 1e-3
                }
                _ => false,
            });
            if repeated {
                continue;
            }
        }
        out.push(j);
    }
    out
}

/// Turns ranked causes into findings: agreement, reason, action.
pub(crate) fn findings(ranked: Vec<Judged>, action: &dyn Fn(&Judged) -> String) -> Vec<Finding> {
    let top = ranked.first().map(|j| j.cause.title());
    let reasons: Vec<Option<String>> = ranked.iter().map(|j| reason(j, top.as_deref().filter(|t| *t != j.cause.title()))).collect();
    ranked
        .into_iter()
        .zip(reasons)
        .enumerate()
        .map(|(i, (j, reason))| Finding {
            rank: i + 1,
            title: j.cause.title(),
            agreement: j.agreement(),
            reason,
            action: match &top {
                Some(t) if j.gain.share < SIGNIFICANT => format!("nothing now: its cycles hide behind the {t}; look again once that is fixed"),
                _ => action(&j),
            },
            cause: j.cause,
            gain: j.gain,
            evidence: j.evidence,
        })
        .collect()
}

fn pct(x: f64) -> String {
    format!("{:.0} %", x * 100.0)
}

fn trim(w: f64) -> String {
    if w.fract() == 0.0 {
        format!("{w:.0}")
    } else {
        format!("{w:.2}")
    }
}

/// What each present view says, in a few words: `Top-Down L3_Bound 36 %`.
fn says(j: &Judged, view: View) -> String {
    let e = &j.evidence;
    match view {
        View::Sensitivity => {
            let best = e.sensitivity.iter().max_by(|a, b| a.max_speedup.total_cmp(&b.max_speedup));
            best.map(|s| format!("{} {:+.1} % at x{}", s.resources.join("+"), s.max_speedup * 100.0, trim(s.max_weight))).unwrap_or_default()
        }
        View::TopDown => e.topdown.as_ref().map(|t| format!("Top-Down {} {}", t.node, pct(t.normalized.or(t.value).unwrap_or(0.0)))).unwrap_or_default(),
        View::CpiStacks => e
            .stacks
            .as_ref()
            .map(|s| format!("stacks {} {}/{}/{}", s.components.join("+"), pct(s.dispatch), pct(s.issue), pct(s.commit)))
            .unwrap_or_default(),
        View::Idealization => e.idealization.as_ref().map(|i| format!("{} {}", i.what, pct(i.share))).unwrap_or_default(),
        View::ResourceUsage => e.usage.as_ref().map(|u| format!("{} {} busy", u.resource, pct(u.usage))).unwrap_or_default(),
        View::Counters => e.counters.iter().map(|c| format!("{} x {} cycles = {}", c.count, c.penalty, pct(c.share))).collect::<Vec<_>>().join(", "),
    }
}

fn list(j: &Judged, views: &[View]) -> String {
    views.iter().map(|&v| says(j, v)).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(", ")
}

/// One line on why the views disagree, from the pattern of the disagreement.
fn reason(j: &Judged, top: Option<&str>) -> Option<String> {
    if j.agreement() == Agreement::Agree {
        return match &j.cause {
            Cause::BranchMispredictions if !j.evidence.sensitivity.iter().any(|s| s.resources == [CoreKnob::MispredictRate.name()]) => {
                Some("no sensitivity knob in this report changes the misprediction rate (only its penalty)".into())
            }
            _ => None,
        };
    }
    let by = |measured: bool, supports: bool| -> Vec<View> { j.support.iter().filter(|s| s.0.measured() == measured && s.1 == supports).map(|s| s.0).collect() };
    let (m_for, m_against, a_for, a_against) = (by(true, true), by(true, false), by(false, true), by(false, false));
    if let Some(set) = &j.co_limited {
        let own = j.evidence.sensitivity.iter().filter(|s| s.resources.len() == 1).map(|s| format!("{} {:+.1} %", s.resources[0], s.max_speedup * 100.0)).collect::<Vec<_>>();
        return Some(format!(
            "co-limited: alone it buys little ({}), with {} together {:+.1} % at x{}",
            if own.is_empty() { "no knob of its own".to_string() } else { own.join(", ") },
            set.resources.join("+"),
            set.max_speedup * 100.0,
            trim(set.max_weight)
        ));
    }
    let ideal = j.support.iter().find(|s| s.0 == View::Idealization).map(|s| s.1);
    let sens = j.support.iter().find(|s| s.0 == View::Sensitivity).map(|s| s.1);
    if let (Some(i), Some(s)) = (ideal, sens) {
        if i && !s {
            let (what, scaled) = match &j.cause {
                Cause::BranchMispredictions => ("the mispredictions", "their rate or penalty"),
                Cause::CacheMisses { .. } => ("the misses", "their rate, latency or bandwidth"),
                _ => ("the cause", "a part of it"),
            };
            return Some(format!(
                "the knobs scale only {scaled} by their weight ({}); the idealization removes {what} entirely ({}){}",
                list(j, &[View::Sensitivity]),
                list(j, &[View::Idealization]),
                if a_for.is_empty() { String::new() } else { format!("; {} agree with it", list(j, &a_for)) }
            ));
        }
        if s && !i {
            let loads = matches!(j.cause, Cause::DependencyChain);
            return Some(if loads {
                format!(
                    "the latency knob shortens every latency, loads included ({}); the 1-cycle ALU only arithmetic ones ({}): the chain runs through loads or 1-cycle operations",
                    list(j, &[View::Sensitivity]),
                    list(j, &[View::Idealization])
                )
            } else {
                format!("{} where {}", list(j, &[View::Sensitivity]), list(j, &[View::Idealization]))
            });
        }
    }
    if !a_for.is_empty() && !m_against.is_empty() {
        return Some(format!(
            "accounted ({}), but these cycles overlap with the {}: removing them buys little ({})",
            list(j, &a_for),
            top.unwrap_or("other stalls"),
            list(j, &m_against)
        ));
    }
    if !m_for.is_empty() && !a_against.is_empty() {
        return Some(format!(
            "measured ({}), but {} do not show it{}: accounting charges each cycle to one cause (busy slots to useful work), an experiment sees every cause it hides behind",
            list(j, &m_for),
            list(j, &a_against),
            j.elsewhere.as_deref().map(|w| format!(" (they charge the cycles: {w})")).unwrap_or_default()
        ));
    }
    Some(format!("{} for it; {} against", list(j, &[m_for, a_for].concat()), list(j, &[m_against, a_against].concat())))
}
