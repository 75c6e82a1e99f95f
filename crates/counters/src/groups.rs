//! Scheduling events into groups that fit the PMU.
//!
//! Counter limits per thread ([`PmuLimits::for_uarch`]):
//!
//! | uarch | general | fixed | PERF_METRICS |
//! | --- | --- | --- | --- |
//! | ivb, hsw, skl, skx | 4 with SMT on, 8 with SMT off | 3 (instructions, cycles, ref-cycles) | – |
//! | icl | 8 | 4 (+ slots) | 4 (level 1) |
//! | spr, adl (P-core) | 8 | 4 (+ slots) | 8 (levels 1–2) |
//! | zen3, zen4, zen5 | 6 | – | – |
//! | models (`yasin2014`) | 4 (Yasin's "small set of general counters") | – | – |
//!
//! Each event has a constraint: a fixed counter (instructions and cycles may
//! also use a general counter), a list of general counters from the table
//! (`"Counter": "0,1,2,3"`; with SMT off `CounterHTOff`), a PERF_METRICS field
//! or a free-running counter. Groups are filled first-fit in the plan's order
//! (events of one metric stay together); an event joins a group only if the
//! group still has a complete assignment of events to distinct counters, found
//! by bipartite matching. PERF_METRICS events form one group led by `slots`;
//! free-running events (`msr/tsc/`) get a group each.

use crate::errors::CountersError;
use crate::event::{Placement, RawEvent};

/// The counters of one hardware thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmuLimits {
    /// General-purpose counters.
    pub general: u32,
    /// Fixed counters.
    pub fixed: u32,
    /// PERF_METRICS fields readable in the `slots` group (0: none).
    pub metrics: u32,
    /// How this was decided.
    pub note: String,
}

impl PmuLimits {
    /// The limits of a table's hardware (`smt`: SMT on).
    pub fn for_uarch(uarch: &str, smt: bool) -> PmuLimits {
        let (general, fixed, metrics, note) = match uarch.to_ascii_lowercase().as_str() {
            "ivb" | "hsw" | "skl" | "skx" => {
                let g = if smt { 4 } else { 8 };
                (g, 3, 0, format!("{g} general counters per thread (SMT {}) + 3 fixed", if smt { "on" } else { "off" }))
            }
            "icl" => (8, 4, 4, "8 general + 4 fixed counters, PERF_METRICS level 1".to_string()),
            "spr" | "adl" => (8, 4, 8, "8 general + 4 fixed counters, PERF_METRICS levels 1-2".to_string()),
            "zen3" | "zen4" | "zen5" => (6, 0, 0, "6 general counters".to_string()),
            // PMUv3: 6 event counters + the cycle counter (Neoverse N1/V2 TRMs)
            "neoverse-n1" | "neoverse-v2" => (6, 0, 0, "6 event counters (PMUv3)".to_string()),
            _ => (4, 0, 0, "4 general counters (generic PMU)".to_string()),
        };
        PmuLimits { general, fixed, metrics, note }
    }
}

/// The counter an event is assigned to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// Fixed counter N.
    Fixed(u32),
    /// General counter N.
    General(u32),
    /// A PERF_METRICS field (no counter).
    Metric,
    /// A free-running counter.
    Free,
}

impl std::fmt::Display for Counter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Counter::Fixed(n) => write!(f, "fixed{n}"),
            Counter::General(n) => write!(f, "pmc{n}"),
            Counter::Metric => f.write_str("metrics"),
            Counter::Free => f.write_str("free"),
        }
    }
}

/// One group: event indexes (the first is the leader) and their counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Indexes into the plan's events.
    pub events: Vec<usize>,
    /// The counter of each event.
    pub counters: Vec<Counter>,
}

fn allowed(e: &RawEvent, l: &PmuLimits) -> Vec<Counter> {
    let all_general = || (0..l.general).map(Counter::General);
    match &e.placement {
        Placement::General(list) if list.is_empty() => all_general().collect(),
        Placement::General(list) => list.iter().filter(|c| **c < l.general).map(|c| Counter::General(*c)).collect(),
        Placement::Fixed { index, gp } => {
            let mut v: Vec<Counter> = if *index < l.fixed { vec![Counter::Fixed(*index)] } else { vec![] };
            if *gp {
                v.extend(all_general());
            }
            v
        }
        Placement::Metric => vec![Counter::Metric],
        Placement::FreeRunning => vec![Counter::Free],
    }
}

/// Assigns distinct counters to `events` (bipartite matching), or `None`.
pub fn assign(events: &[&RawEvent], l: &PmuLimits) -> Option<Vec<Counter>> {
    let options: Vec<Vec<Counter>> = events.iter().map(|e| allowed(e, l)).collect();
    let mut owner: Vec<(Counter, usize)> = Vec::new();
    fn augment(i: usize, options: &[Vec<Counter>], owner: &mut Vec<(Counter, usize)>, seen: &mut Vec<Counter>) -> bool {
        // A free counter first (keeps the lowest counters in order), then augmenting paths.
        if let Some(&c) = options[i].iter().find(|c| matches!(c, Counter::Metric | Counter::Free) || !owner.iter().any(|(k, _)| k == *c)) {
            if !matches!(c, Counter::Metric | Counter::Free) {
                owner.push((c, i));
            }
            return true;
        }
        for &c in &options[i] {
            if seen.contains(&c) {
                continue;
            }
            seen.push(c);
            match owner.iter().position(|(k, _)| *k == c) {
                None => {
                    owner.push((c, i));
                    return true;
                }
                Some(p) => {
                    let j = owner[p].1;
                    if augment(j, options, owner, seen) {
                        // j moved to another counter (pushed last); c is now free for i.
                        if let Some(p) = owner.iter().position(|(k, o)| *k == c && *o == j) {
                            owner[p].1 = i;
                        }
                        return true;
                    }
                }
            }
        }
        false
    }
    for i in 0..events.len() {
        if !augment(i, &options, &mut owner, &mut Vec::new()) {
            return None;
        }
    }
    Some(
        (0..events.len())
            .map(|i| match options[i].first() {
                Some(c @ (Counter::Metric | Counter::Free)) => *c,
                _ => owner.iter().find(|(_, o)| *o == i).map(|(c, _)| *c).unwrap_or(Counter::Free),
            })
            .collect(),
    )
}

fn unschedulable(e: &RawEvent, l: &PmuLimits) -> CountersError {
    CountersError::Plan(format!("event {} ({}) needs counter {} but the PMU has {}: it cannot be scheduled", e.name, e.perf, e.placement_text(), l.note))
}

/// Packs `events` into groups that respect `limits` and every event's constraint.
pub fn schedule(events: &[RawEvent], limits: &PmuLimits) -> Result<Vec<Group>, CountersError> {
    let mut groups: Vec<Group> = Vec::new();
    let mut done = vec![false; events.len()];
    let metric: Vec<usize> = (0..events.len()).filter(|&i| events[i].placement == Placement::Metric).collect();
    if !metric.is_empty() {
        let first = &events[metric[0]];
        if limits.metrics == 0 {
            return Err(CountersError::Plan(format!("event {} ({}) is an Ice Lake+ Top-Down metric but the PMU has {}", first.name, first.perf, limits.note)));
        }
        if metric.len() as u32 > limits.metrics {
            return Err(CountersError::Plan(format!("{} Top-Down metric events requested but the PMU reads {} (PERF_METRICS)", metric.len(), limits.metrics)));
        }
        let slots = events.iter().position(RawEvent::is_slots).ok_or_else(|| {
            CountersError::Plan(format!("event {} needs the slots event (TOPDOWN.SLOTS) as its group leader, and the plan has none", first.name))
        })?;
        let mut g = Group { events: vec![slots], counters: vec![Counter::Fixed(3)] };
        for &i in &metric {
            g.events.push(i);
            g.counters.push(Counter::Metric);
            done[i] = true;
        }
        done[slots] = true;
        groups.push(g);
    }
    let reserved = groups.len();
    for i in 0..events.len() {
        if done[i] {
            continue;
        }
        let e = &events[i];
        if e.placement == Placement::FreeRunning {
            groups.push(Group { events: vec![i], counters: vec![Counter::Free] });
            continue;
        }
        let mut placed = false;
        for g in groups.iter_mut().skip(reserved).filter(|g| g.counters.first() != Some(&Counter::Free)) {
            let mut trial: Vec<&RawEvent> = g.events.iter().map(|&j| &events[j]).collect();
            trial.push(e);
            if let Some(c) = assign(&trial, limits) {
                g.events.push(i);
                g.counters = c;
                placed = true;
                break;
            }
        }
        if !placed {
            let c = assign(&[e], limits).ok_or_else(|| unschedulable(e, limits))?;
            groups.push(Group { events: vec![i], counters: c });
        }
    }
    Ok(groups)
}

/// Checks groups against the limits: every event in exactly one group,
/// distinct counters allowed for each event, at most `general`/`fixed`
/// counters, PERF_METRICS only in a group led by `slots`.
pub fn check(groups: &[Group], events: &[RawEvent], l: &PmuLimits) -> Result<(), String> {
    let mut seen = vec![0; events.len()];
    for (n, g) in groups.iter().enumerate() {
        if g.events.len() != g.counters.len() || g.events.is_empty() {
            return Err(format!("group {n}: malformed"));
        }
        let mut used = Vec::new();
        for (&i, &c) in g.events.iter().zip(&g.counters) {
            seen[i] += 1;
            let e = &events[i];
            if !allowed(e, l).contains(&c) {
                return Err(format!("group {n}: {} on {c} violates {}", e.name, e.placement_text()));
            }
            match c {
                Counter::General(k) if k >= l.general => return Err(format!("group {n}: pmc{k} beyond {}", l.general)),
                Counter::Fixed(k) if k >= l.fixed => return Err(format!("group {n}: fixed{k} beyond {}", l.fixed)),
                Counter::Metric if !events[g.events[0]].is_slots() => return Err(format!("group {n}: {} not led by slots", e.name)),
                Counter::General(_) | Counter::Fixed(_) if used.contains(&c) => return Err(format!("group {n}: {c} used twice")),
                _ => used.push(c),
            }
        }
        let general = g.counters.iter().filter(|c| matches!(c, Counter::General(_))).count() as u32;
        if general > l.general {
            return Err(format!("group {n}: {general} general counters"));
        }
    }
    match seen.iter().position(|&s| s != 1) {
        Some(i) => Err(format!("{} is in {} groups", events[i].name, seen[i])),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(name: &str, placement: Placement) -> RawEvent {
        RawEvent { placement, config: Some(1), ..RawEvent::model(name) }
    }

    #[test]
    fn matching_moves_flexible_events() {
        let l = PmuLimits::for_uarch("hsw", true);
        // a can use 0-3, b only 2, c only 2 → b and c cannot share a group.
        let events = vec![ev("a", Placement::General(vec![2, 3])), ev("b", Placement::General(vec![2])), ev("c", Placement::General(vec![2]))];
        let groups = schedule(&events, &l).unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].counters, vec![Counter::General(3), Counter::General(2)]);
        let free = vec![ev("p", Placement::General(vec![])), ev("q", Placement::General(vec![]))];
        assert_eq!(schedule(&free, &l).unwrap()[0].counters, vec![Counter::General(0), Counter::General(1)]);
        check(&groups, &events, &l).unwrap();
        // Two cycles events: fixed 1, then a general counter.
        let cyc = || ev("cycles", Placement::Fixed { index: 1, gp: true });
        let ref_ = || ev("ref", Placement::Fixed { index: 2, gp: false });
        let g = schedule(&[cyc(), cyc(), ref_(), ref_()], &l).unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].events, vec![0, 1, 2]);
        assert!(g[0].counters.contains(&Counter::Fixed(1)) && g[0].counters.contains(&Counter::General(0)));
        check(&g, &[cyc(), cyc(), ref_(), ref_()], &l).unwrap();
        let too_high = ev("x", Placement::General(vec![4, 5]));
        assert!(schedule(&[too_high], &l).unwrap_err().to_string().contains("cannot be scheduled"));
    }
}
