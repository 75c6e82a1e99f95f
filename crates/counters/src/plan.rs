//! The event plan: which tree nodes, which events (resolved to encodings),
//! and the groups they are programmed in.

use crate::errors::CountersError;
use crate::event::{Resolved, Resolver, Vendor};
use crate::groups::{schedule, Group, PmuLimits};
use crate::RawEvent;
use bottlenose_metrics::{Counts, MetricEngine};

/// How the Top-Down breakdown is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The full TMA tree of the table (Yasin's hierarchy with Intel/AMD formulas).
    Tma,
    /// Levinthal's cycle accounting (Core 2: `levinthal-core2`).
    CycleAccounting,
    /// The 5-event level-1 recipe (`topdown5`, `topdown5-smt` with SMT on).
    FiveEvent,
}

impl Method {
    /// The CLI spelling.
    pub fn name(self) -> &'static str {
        match self {
            Method::Tma => "tma",
            Method::CycleAccounting => "cycle-accounting",
            Method::FiveEvent => "5-event",
        }
    }

    /// Parses the CLI spelling.
    pub fn parse(s: &str) -> Option<Method> {
        match s.to_ascii_lowercase().as_str() {
            "tma" => Some(Method::Tma),
            "cycle-accounting" | "levinthal" => Some(Method::CycleAccounting),
            "5-event" | "topdown5" | "five-event" => Some(Method::FiveEvent),
            _ => None,
        }
    }

    /// The metric table that evaluates this method on hardware `hw`.
    pub fn table(self, hw: &str, smt: bool) -> String {
        match self {
            Method::Tma => hw.to_ascii_lowercase(),
            Method::CycleAccounting => bottlenose_metrics::methods::LEVINTHAL.into(),
            Method::FiveEvent if smt => bottlenose_metrics::methods::TOPDOWN5_SMT.into(),
            Method::FiveEvent => bottlenose_metrics::methods::TOPDOWN5.into(),
        }
    }

    /// The engine of this method on `hw`.
    pub fn engine(self, hw: &str, smt: bool) -> Result<MetricEngine, CountersError> {
        MetricEngine::for_uarch(&self.table(hw, smt)).map_err(|e| CountersError::Plan(e.to_string()))
    }
}

/// Which nodes to show and measure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Deepest level (`None`: all).
    pub level: Option<u32>,
    /// Extra nodes (names or labels), measured with their ancestors.
    pub nodes: Vec<String>,
}

impl Selection {
    /// The metric names selected in `engine`'s tree; an error names an unknown node.
    pub fn metrics(&self, engine: &MetricEngine) -> Result<Vec<String>, CountersError> {
        let tree: Vec<&str> = engine.tree_metrics(None);
        if tree.is_empty() {
            return Err(CountersError::Plan(format!("the {} table has no Top-Down tree (its source data has no pipeline metrics)", engine.uarch())));
        }
        let mut out: Vec<String> = engine.tree_metrics(self.level).into_iter().map(str::to_string).collect();
        for n in &self.nodes {
            let m = engine.metric(n).filter(|m| m.tma).ok_or_else(|| {
                let some: Vec<&str> = tree.iter().take(8).copied().collect();
                CountersError::Plan(format!("unknown node '{n}' in the {} tree (nodes: {}, ...)", engine.uarch(), some.join(", ")))
            })?;
            let mut cur = Some(m);
            while let Some(m) = cur {
                if !out.iter().any(|o| o.eq_ignore_ascii_case(&m.name)) {
                    out.push(m.name.clone());
                }
                cur = m.parent.as_deref().and_then(|p| engine.metric(p)).filter(|p| p.tma);
            }
        }
        Ok(out)
    }

    /// Whether a node is shown: within the level, or a requested node or one of its ancestors.
    pub fn shows(&self, engine: &MetricEngine, name: &str, level: u32) -> bool {
        if self.level.is_none_or(|l| level <= l) {
            return true;
        }
        self.metrics(engine).map(|m| m.iter().any(|x| x.eq_ignore_ascii_case(name))).unwrap_or(false)
    }
}

/// An event that cannot be programmed, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Counts key.
    pub key: String,
    /// Event name.
    pub name: String,
    /// Why.
    pub reason: String,
}

/// Everything needed to program and evaluate one measurement.
pub struct EventPlan {
    /// The hardware table (`skl`, `zen4`, `yasin2014`).
    pub hw: String,
    /// The method.
    pub method: Method,
    /// The engine that evaluates the method.
    pub engine: MetricEngine,
    /// SMT on.
    pub smt: bool,
    /// The selected tree nodes.
    pub selection: Selection,
    /// Events to program.
    pub events: Vec<RawEvent>,
    /// Events that cannot be programmed.
    pub skipped: Vec<Skipped>,
    /// The groups (indexes into `events`).
    pub groups: Vec<Group>,
    /// The PMU's limits.
    pub limits: PmuLimits,
    /// Notes (borrowed encodings ...).
    pub notes: Vec<String>,
}

/// Constants every evaluation gets: SMT (`#smt_on`, `#threads`).
pub fn constants(smt: bool) -> Counts {
    Counts::new().with_smt(smt)
}

/// Zen 5 events of its pipeline metrics that the zen4 table lacks (encodings
/// from Linux's `amdzen5` pmu-events).
pub const ZEN5_EXTRA: &[(&str, u64, u64)] = &[("bp_redirects.resync", 0x9f, 0x01)];

fn zen5_extra(hw: &str, key: &str, name: &str) -> Option<RawEvent> {
    let (n, code, umask) = ZEN5_EXTRA.iter().find(|(n, ..)| hw == "zen5" && n.eq_ignore_ascii_case(key))?;
    let f = crate::event::Fields { event: *code, umask: *umask, ..Default::default() };
    Some(RawEvent {
        key: key.to_string(),
        name: if name.is_empty() { n.to_string() } else { name.to_string() },
        pmu: "cpu".into(),
        config: Some(f.config(Vendor::Amd)),
        perf: format!("cpu/{}/", f.terms()),
        placement: crate::event::Placement::General(vec![]),
        ..RawEvent::model(n)
    })
}

/// Plans the measurement of `sel` with `method` on hardware `hw`.
pub fn plan(hw: &str, method: Method, sel: &Selection, smt: bool) -> Result<EventPlan, CountersError> {
    let hw = hw.to_ascii_lowercase();
    let engine = method.engine(&hw, smt)?;
    let mut notes = Vec::new();
    // Zen 5's table has metrics but no event file: its events keep the Zen 4 encodings.
    let enc_table = if hw == "zen5" {
        notes.push("zen5: event encodings borrowed from the zen4 table (the zen5 source data has no event file; these events are unchanged in Zen 5)".into());
        "zen4".to_string()
    } else {
        hw.clone()
    };
    let hw_engine = MetricEngine::for_uarch(&enc_table).map_err(|e| CountersError::Plan(e.to_string()))?;
    let vendor = Vendor::of(&hw_engine.table().vendor);
    let metrics = sel.metrics(&engine)?;
    let names: Vec<&str> = metrics.iter().map(String::as_str).collect();
    let specs = engine.events_needed_with(&names, &constants(smt), true);
    let core_pmu = if hw_engine.table().events.iter().any(|e| e.pmu.as_deref() == Some("cpu_core")) { "cpu_core" } else { "cpu" };
    let resolver = Resolver { hw: (engine.uarch() != hw_engine.uarch()).then_some(&hw_engine), vendor, smt, core_pmu };
    let (mut events, mut skipped) = (Vec::new(), Vec::new());
    for s in &specs {
        match resolver.resolve(s) {
            Resolved::Event(e) => events.push(e),
            Resolved::Skipped { key, name, reason } => match zen5_extra(&hw, &key, &name) {
                Some(e) => events.push(e),
                None => skipped.push(Skipped { key, name, reason }),
            },
        }
    }
    if method != Method::Tma && !skipped.is_empty() {
        let names: Vec<&str> = skipped.iter().map(|s| s.name.as_str()).collect();
        return Err(CountersError::Plan(format!(
            "method {} needs {} which the {hw} table does not describe (the recipe is for {}); use --method tma, or --import counts from such a machine",
            method.name(),
            names.join(", "),
            if method == Method::FiveEvent { "Sandy Bridge to Skylake cores: ivb, hsw, skl, skx" } else { "Core 2" }
        )));
    }
    if events.is_empty() {
        return Err(CountersError::Plan(format!("nothing to count for {} on {hw}", method.name())));
    }
    let limits = PmuLimits::for_uarch(&hw, smt);
    let groups = schedule(&events, &limits)?;
    Ok(EventPlan { hw, method, engine, smt, selection: sel.clone(), events, skipped, groups, limits, notes })
}

impl EventPlan {
    /// `perf stat -e` groups that program the same events (`{a,b},{c}`).
    pub fn perf_events(&self) -> String {
        self.groups
            .iter()
            .map(|g| {
                let evs: Vec<&str> = g.events.iter().map(|&i| self.events[i].perf.as_str()).collect();
                if evs.len() == 1 {
                    evs[0].to_string()
                } else {
                    format!("{{{}}}", evs.join(","))
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The `--print-events` listing: groups, counters and encodings.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "uarch {}, method {} (table {}), SMT {}, PMU: {}\n",
            self.hw,
            self.method.name(),
            self.engine.uarch(),
            if self.smt { "on" } else { "off" },
            self.limits.note
        );
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        s.push_str(&format!("{} in {}\n", plural(self.events.len(), "event"), plural(self.groups.len(), "group")));
        for (n, g) in self.groups.iter().enumerate() {
            s.push_str(&format!("group {}:\n", n + 1));
            for (&i, c) in g.events.iter().zip(&g.counters) {
                let e = &self.events[i];
                let config = e.config.map(|c| format!("config={c:#x}")).unwrap_or_else(|| "no encoding (model)".into());
                let c1 = if e.config1 != 0 { format!(" config1={:#x}", e.config1) } else { String::new() };
                s.push_str(&format!("  {:<48} {:<7} {:<18} {}{c1}\n", e.name, c.to_string(), config, e.perf));
            }
        }
        for k in &self.skipped {
            s.push_str(&format!("not counted: {} ({})\n", k.name, k.reason));
        }
        for n in &self.notes {
            s.push_str(&format!("note: {n}\n"));
        }
        if self.events.iter().all(|e| e.config.is_some()) {
            let mut flags = format!("--cpu {}", self.hw);
            if self.method != Method::Tma {
                flags.push_str(&format!(" --method {}", self.method.name()));
            }
            if self.smt {
                flags.push_str(" --smt on");
            }
            // perf stat prints its counts on stderr and the program keeps stdout:
            // `-o` puts the counts, and only them, in the file
            s.push_str(&format!("perf stat -x, -o out.csv -e '{}' -- CMD; bottlenose topdown --import out.csv {flags}\n", self.perf_events()));
        }
        s
    }
}
