//! The metric engine: loads a table, resolves names (metric > event), lists the
//! events a set of metrics needs and evaluates every metric on a set of counts.

use crate::counts::{builtin_constant, Counts};
use crate::event::NameRef;
use crate::expr::{self, eval, Env, EvalError, Expr};
pub use crate::evaluation::{Evaluation, MetricResult};
pub use crate::event::EventSpec;
use crate::table::{MetricDef, UarchTable, EMBEDDED};
use crate::tree::Tree;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

/// Errors when loading a table.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("unknown microarchitecture '{0}' (known: {1})")]
    /// No table of this name (name, known names).
    UnknownUarch(String, String),
    #[error("no table matches CPU id '{0}'")]
    /// No rule maps this CPU id to a table.
    UnknownCpuid(String),
    #[error("table {uarch}: {what}")]
    /// The table is inconsistent (e.g. duplicate metric names).
    BadTable {
        /// The table.
        uarch: String,
        /// What is wrong.
        what: String,
    },
    #[error("{uarch}: metric {metric}: {err}")]
    /// A formula or threshold does not parse.
    Formula {
        /// The table.
        uarch: String,
        /// The metric whose formula or threshold is bad.
        metric: String,
        /// The syntax error.
        err: expr::ParseError,
    },
}

struct Compiled {
    expr: Expr,
    threshold: Option<Expr>,
}

/// Evaluates the metrics of one table.
pub struct MetricEngine {
    table: Arc<UarchTable>,
    compiled: Vec<Compiled>,
    /// Lower-case metric names (formula resolution).
    names: HashMap<String, usize>,
    /// Names and labels (user lookups).
    index: Arc<HashMap<String, usize>>,
    events: HashMap<String, usize>,
}

/// Names of the built-in (non-converted) tables.
pub const BUILTIN: &[&str] = &[crate::yasin::UARCH, crate::methods::TOPDOWN5, crate::methods::TOPDOWN5_SMT, crate::methods::LEVINTHAL];

/// Names of the built-in hardware tables (Arm's Neoverse telemetry metrics, see [`crate::neoverse`]).
pub const BUILTIN_HW: &[&str] = &[crate::neoverse::NEOVERSE_N1, crate::neoverse::NEOVERSE_V2];

fn embedded_table(name: &str) -> Option<Arc<UarchTable>> {
    static CACHE: OnceLock<Vec<OnceLock<Arc<UarchTable>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| EMBEDDED.iter().map(|_| OnceLock::new()).collect());
    let i = EMBEDDED.iter().position(|(id, _)| id.eq_ignore_ascii_case(name))?;
    Some(
        cache[i]
            .get_or_init(|| Arc::new(UarchTable::from_json(EMBEDDED[i].1).expect("embedded table parses")))
            .clone(),
    )
}

impl MetricEngine {
    /// The engine for a shipped uarch (`skl`, `skx`, `icl`, `spr`, `adl`, `hsw`,
    /// `ivb`, `zen3`, `zen4`, `zen5`, `neoverse-n1`, `neoverse-v2`) or a built-in model (`yasin2014`,
    /// `topdown5`, `topdown5-smt`, `levinthal-core2`).
    pub fn for_uarch(name: &str) -> Result<MetricEngine, MetricsError> {
        let lower = name.to_ascii_lowercase();
        if let Some(t) = embedded_table(&lower) {
            return MetricEngine::from_arc(t);
        }
        let table = match lower.as_str() {
            crate::yasin::UARCH | "yasin" => crate::yasin::table(&crate::yasin::YasinParams::default()),
            crate::methods::TOPDOWN5 => crate::methods::topdown5(false),
            crate::methods::TOPDOWN5_SMT => crate::methods::topdown5(true),
            crate::methods::LEVINTHAL => crate::methods::levinthal_core2(),
            crate::neoverse::NEOVERSE_N1 => crate::neoverse::neoverse_n1(),
            crate::neoverse::NEOVERSE_V2 => crate::neoverse::neoverse_v2(),
            _ => return Err(MetricsError::UnknownUarch(name.into(), MetricEngine::available().join(", "))),
        };
        MetricEngine::from_table(table)
    }

    /// The engine for a CPU identifier such as `GenuineIntel-6-55-4` (see [`crate::cpuid`]).
    pub fn for_cpuid(id: &str) -> Result<MetricEngine, MetricsError> {
        let u = crate::cpuid::uarch_for_cpuid(id).ok_or_else(|| MetricsError::UnknownCpuid(id.into()))?;
        MetricEngine::for_uarch(u)
    }

    /// Every name [`MetricEngine::for_uarch`] accepts.
    pub fn available() -> Vec<&'static str> {
        EMBEDDED.iter().map(|(id, _)| *id).chain(BUILTIN_HW.iter().copied()).chain(BUILTIN.iter().copied()).collect()
    }

    /// An engine over any table (parses every formula and threshold).
    pub fn from_table(table: UarchTable) -> Result<MetricEngine, MetricsError> {
        MetricEngine::from_arc(Arc::new(table))
    }

    fn from_arc(table: Arc<UarchTable>) -> Result<MetricEngine, MetricsError> {
        let mut index = HashMap::new();
        let mut compiled = Vec::with_capacity(table.metrics.len());
        for (i, m) in table.metrics.iter().enumerate() {
            let perr = |err| MetricsError::Formula { uarch: table.uarch.clone(), metric: m.name.clone(), err };
            let expr = expr::parse(&m.expr).map_err(perr)?;
            let threshold = m.threshold.as_deref().map(expr::parse).transpose().map_err(perr)?;
            compiled.push(Compiled { expr, threshold });
            if index.insert(m.name.to_ascii_lowercase(), i).is_some() {
                return Err(MetricsError::BadTable { uarch: table.uarch.clone(), what: format!("duplicate metric {}", m.name) });
            }
        }
        let names = index.clone();
        for (i, m) in table.metrics.iter().enumerate() {
            if let Some(l) = &m.label {
                index.entry(l.to_ascii_lowercase()).or_insert(i);
            }
        }
        let mut events = HashMap::new();
        for (i, e) in table.events.iter().enumerate() {
            events.entry(e.name.to_ascii_lowercase()).or_insert(i);
        }
        Ok(MetricEngine { table, compiled, names, index: Arc::new(index), events })
    }

    /// The table behind this engine.
    pub fn table(&self) -> &UarchTable {
        &self.table
    }

    /// The uarch id.
    pub fn uarch(&self) -> &str {
        &self.table.uarch
    }

    /// A metric by name or label (case-insensitive).
    pub fn metric(&self, name: &str) -> Option<&MetricDef> {
        self.index.get(&name.to_ascii_lowercase()).map(|&i| &self.table.metrics[i])
    }

    /// The parsed formula of a metric.
    pub fn formula(&self, name: &str) -> Option<&Expr> {
        self.index.get(&name.to_ascii_lowercase()).map(|&i| &self.compiled[i].expr)
    }

    /// All metrics, in table order.
    pub fn metrics(&self) -> &[MetricDef] {
        &self.table.metrics
    }

    /// Names of the Top-Down nodes up to `max_level` (all levels for `None`).
    pub fn tree_metrics(&self, max_level: Option<u32>) -> Vec<&str> {
        self.table
            .metrics
            .iter()
            .filter(|m| m.tma && m.level.unwrap_or(1) <= max_level.unwrap_or(u32::MAX))
            .map(|m| m.name.as_str())
            .collect()
    }

    fn metric_index(&self, r: &NameRef) -> Option<usize> {
        if r.is_plain() {
            self.names.get(&r.key).copied()
        } else {
            None
        }
    }

    /// The events the given metrics need, transitively through referenced
    /// metrics, in first-use order. Both branches of every ternary count;
    /// `has_event(...)` arguments are optional and not listed; unknown metric
    /// names are ignored.
    pub fn events_needed(&self, metrics: &[&str]) -> Vec<EventSpec> {
        self.collect_events(metrics, None, false)
    }

    /// Like [`MetricEngine::events_needed`], but ternaries whose condition only
    /// uses constants (`#smt_on`) are decided with `counts`' constants, and the
    /// metrics referenced by thresholds are included when `thresholds` is set.
    pub fn events_needed_with(&self, metrics: &[&str], counts: &Counts, thresholds: bool) -> Vec<EventSpec> {
        self.collect_events(metrics, Some(counts), thresholds)
    }

    /// The events needed to build the tree down to `max_level` with its flags.
    pub fn events_for_tree(&self, max_level: Option<u32>, counts: &Counts) -> Vec<EventSpec> {
        let names = self.tree_metrics(max_level);
        self.events_needed_with(&names, counts, true)
    }

    fn collect_events(&self, metrics: &[&str], consts: Option<&Counts>, thresholds: bool) -> Vec<EventSpec> {
        let mut out = Vec::new();
        let mut seen_ev = HashSet::new();
        let mut seen_m = HashSet::new();
        let mut stack: Vec<usize> = metrics.iter().rev().filter_map(|m| self.index.get(&m.to_ascii_lowercase()).copied()).collect();
        while let Some(i) = stack.pop() {
            if !seen_m.insert(i) {
                continue;
            }
            let mut names = Vec::new();
            self.walk(&self.compiled[i].expr, consts, &mut names);
            if thresholds {
                if let Some(t) = &self.compiled[i].threshold {
                    self.walk(t, consts, &mut names);
                }
            }
            let mut sub = Vec::new();
            for n in names {
                match self.metric_index(n) {
                    Some(j) => sub.push(j),
                    None => {
                        if seen_ev.insert(n.key.clone()) {
                            out.push(self.spec(n));
                        }
                    }
                }
            }
            stack.extend(sub.into_iter().rev());
        }
        out
    }

    fn walk<'e>(&self, e: &'e Expr, consts: Option<&Counts>, out: &mut Vec<&'e NameRef>) {
        if let (Expr::If(then, cond, els), Some(c)) = (e, consts) {
            let mut env = ConstEnv { engine: self, counts: c };
            if let Ok(v) = eval(cond, &mut env) {
                return self.walk(if v != 0.0 { then } else { els }, consts, out);
            }
        }
        match e {
            Expr::If(a, c, b) => {
                self.walk(a, consts, out);
                self.walk(c, consts, out);
                self.walk(b, consts, out);
            }
            Expr::Binary(_, a, b) => {
                self.walk(a, consts, out);
                self.walk(b, consts, out);
            }
            Expr::Unary(_, a) => self.walk(a, consts, out),
            Expr::Call(crate::expr::Func::HasEvent, _) => {}
            Expr::Call(_, args) => args.iter().for_each(|a| self.walk(a, consts, out)),
            Expr::Name(n) => out.push(n),
            _ => {}
        }
    }

    /// The [`EventSpec`] for an event reference.
    pub fn spec(&self, n: &NameRef) -> EventSpec {
        let def = self.events.get(&n.name.to_ascii_lowercase()).map(|&i| {
            let mut d = self.table.events[i].clone();
            for m in &n.mods {
                if let Some(c) = m.strip_prefix('c').and_then(|v| v.parse::<u32>().ok()) {
                    d.cmask = c;
                } else if m == "i1" {
                    d.inv = true;
                } else if m == "e1" {
                    d.edge = true;
                } else if m == "any" {
                    d.any_thread = true;
                } else if let Some(u) = m.strip_prefix('u').filter(|u| u.starts_with("0x")) {
                    d.umask = Some(u.to_string());
                } else if let Some(v) = m.strip_prefix("ocr_msr_val=") {
                    // an offcore-response event with another MSR value than the table's
                    d.msr_value = Some(v.to_string());
                }
            }
            d
        });
        EventSpec {
            key: n.key.clone(),
            name: def.as_ref().map(|d| d.name.clone()).unwrap_or_else(|| n.name.clone()),
            pmu: n.pmu.clone().or_else(|| def.as_ref().and_then(|d| d.pmu.clone())),
            modifiers: n.mods.clone(),
            def,
        }
    }

    /// Evaluates every metric and threshold on `counts`. Metrics whose inputs
    /// are missing (or that divide by zero) get `None` with a reason.
    pub fn evaluate(&self, counts: &Counts) -> Result<Evaluation, MetricsError> {
        let mut ctx = Ctx { engine: self, counts, memo: vec![Memo::Todo; self.compiled.len()] };
        for i in 0..self.compiled.len() {
            ctx.metric(i).ok();
        }
        let mut results = Vec::with_capacity(self.compiled.len());
        for (i, m) in self.table.metrics.iter().enumerate() {
            let r = match &ctx.memo[i] {
                Memo::Done(r) => r.clone(),
                _ => Err(EvalError::Cycle(m.name.clone())),
            };
            let above = self.compiled[i].threshold.as_ref().and_then(|t| eval(t, &mut ctx).ok().map(|v| v != 0.0));
            results.push(MetricResult {
                name: m.name.clone(),
                value: r.as_ref().ok().copied(),
                error: r.err(),
                above_threshold: above,
            });
        }
        Ok(Evaluation::new(self.table.uarch.clone(), results, self.index.clone()))
    }

    /// Evaluates one formula (in the normalized syntax) against this table and `counts`.
    pub fn evaluate_expr(&self, formula: &str, counts: &Counts) -> Result<Result<f64, EvalError>, expr::ParseError> {
        let e = expr::parse(formula)?;
        let mut ctx = Ctx { engine: self, counts, memo: vec![Memo::Todo; self.compiled.len()] };
        Ok(eval(&e, &mut ctx))
    }

    /// The Top-Down tree of an evaluation (see [`crate::tree`]).
    pub fn tree(&self, ev: &Evaluation) -> Tree {
        Tree::build(self, ev)
    }

    fn constant(&self, counts: &Counts, name: &str) -> Result<f64, EvalError> {
        // Spellings used by different sources for the same quantity.
        let alias = match name {
            "num_cpus" => "num_cpus_online",
            "num_cpus_online" => "num_cpus",
            "threads" => "threads_per_core",
            "slots" => "pipeline_width",
            other => other,
        };
        counts
            .constant(name)
            .or_else(|| counts.constant(alias))
            .or_else(|| self.table.constants.get(name).copied())
            .or_else(|| self.table.constants.get(alias).copied())
            .or_else(|| builtin_constant(name))
            .ok_or_else(|| EvalError::MissingConstant(name.into()))
    }
}

#[derive(Clone)]
enum Memo {
    Todo,
    Busy,
    Done(Result<f64, EvalError>),
}

struct Ctx<'a> {
    engine: &'a MetricEngine,
    counts: &'a Counts,
    memo: Vec<Memo>,
}

impl Ctx<'_> {
    fn metric(&mut self, i: usize) -> Result<f64, EvalError> {
        match &self.memo[i] {
            Memo::Done(r) => return r.clone(),
            Memo::Busy => return Err(EvalError::Cycle(self.engine.table.metrics[i].name.clone())),
            Memo::Todo => {}
        }
        self.memo[i] = Memo::Busy;
        let engine = self.engine;
        let r = eval(&engine.compiled[i].expr, self).and_then(|v| {
            if v.is_finite() {
                Ok(v)
            } else {
                Err(EvalError::NotFinite(engine.table.metrics[i].name.clone()))
            }
        });
        self.memo[i] = Memo::Done(r.clone());
        r
    }
}

impl Env for Ctx<'_> {
    fn name(&mut self, n: &NameRef) -> Result<f64, EvalError> {
        if let Some(i) = self.engine.metric_index(n) {
            return self.metric(i).map_err(|e| match e {
                EvalError::Cycle(_) => e,
                e => EvalError::Dependency { metric: self.engine.table.metrics[i].name.clone(), reason: Box::new(e) },
            });
        }
        self.counts.get(n).ok_or_else(|| EvalError::MissingEvent(n.to_string()))
    }

    fn constant(&mut self, name: &str) -> Result<f64, EvalError> {
        self.engine.constant(self.counts, name)
    }

    fn has_event(&mut self, n: &NameRef) -> bool {
        self.counts.get(n).is_some()
    }

    fn source_count(&mut self, n: &NameRef) -> f64 {
        self.counts.source_count(n).unwrap_or(1.0)
    }

    fn cpuid_matches(&mut self, text: &str) -> bool {
        match (self.counts.cpuid(), crate::cpuid::Regex::new(text)) {
            (Some(id), Some(re)) => re.is_match(id) || id.eq_ignore_ascii_case(text),
            _ => false,
        }
    }
}

/// Only constants are known (used to decide `#smt_on`-style ternaries statically).
struct ConstEnv<'a> {
    engine: &'a MetricEngine,
    counts: &'a Counts,
}

impl Env for ConstEnv<'_> {
    fn name(&mut self, n: &NameRef) -> Result<f64, EvalError> {
        Err(EvalError::MissingEvent(n.to_string()))
    }
    fn constant(&mut self, name: &str) -> Result<f64, EvalError> {
        self.engine.constant(self.counts, name)
    }
    fn has_event(&mut self, n: &NameRef) -> bool {
        self.counts.get(n).is_some()
    }
}
