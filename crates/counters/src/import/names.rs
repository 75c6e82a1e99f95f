//! Event names as perf and likwid print them → [`bottlenose_metrics::Counts`] keys.
//!
//! Accepted (case-insensitive): table names (`INST_RETIRED.ANY`,
//! `uops_executed.core:c1`), PMU forms (`cpu/event=0x3c/`, `cpu_core/topdown-retiring/`,
//! `cpu/UOPS_EXECUTED.CORE,cmask=1/`, `r01c2`), perf's generic names
//! (`cycles`, `instructions`, `ref-cycles`, `slots`, `topdown-*` including the
//! pre-Ice Lake `topdown-total-slots`/`-slots-issued`/`-slots-retired`/
//! `-fetch-bubbles`/`-recovery-bubbles`, which perf prints already scaled by 4),
//! `msr/tsc/`, `duration_time`, and likwid's names (`UOPS_ISSUED_ANY`,
//! `INSTR_RETIRED_ANY`, `CPU_CLK_UNHALTED_CORE`, the ICL `TMA0..3` fields,
//! likwid's Zen names). Raw encodings are matched through the hardware
//! table's own encodings (fixed-counter pseudo-encodings included) and
//! `config1` (all 64 bits: offcore-response MSR values differ above bit 24);
//! a cmask, inv, edge or any beyond the table's becomes a modifier
//! (`NAME:c1`). An offcore event named with another MSR value than the
//! table's (`OCR.X:ocr_msr_val=0x103b800002`, as formulas write it) is that
//! event with its modifier, by name or by its raw encoding with that `config1`.
//! `cpu_atom/...` (hybrid E-core) rows are ignored: no table describes them.

use crate::event::{parse_num, Fields, Resolved, Resolver, Vendor, PERF_METRICS};
use bottlenose_metrics::{MetricEngine, NameRef};
use std::collections::{HashMap, HashSet};

/// What a printed event name means.
#[derive(Clone, Debug, PartialEq)]
pub enum Mapped {
    /// Counts keys with the factor to apply to the printed value.
    Keys(Vec<(String, f64)>),
    /// A run constant (`duration_time`, in seconds).
    Const(String),
    /// Not used by any table (software events, E-core events ...), with why when worth saying.
    Ignore(Option<String>),
    /// A name no table knows (kept under its own key).
    Unknown(String),
}

/// A table event with the formula modifiers that select its encoding
/// (`ocr_msr_val=...`; none for the table's own encoding).
type Named = (String, Vec<String>);

/// Maps names using the hardware table (encodings) and the method's table (names).
pub struct Namer {
    vendor: Vendor,
    /// (`config`, `config1`) → events with exactly this encoding.
    by_config: HashMap<(u64, u64), Vec<Named>>,
    /// Event select code → names, for umask overrides (`NAME:u0xfc`).
    by_code: HashMap<u64, Vec<(String, u64)>>,
    by_norm: HashMap<String, Vec<String>>,
    known: HashSet<String>,
    smt: bool,
}

const PERF_SUFFIX: &str = "ukhGHpPSDWIe";

fn norm(name: &str) -> String {
    name.to_ascii_lowercase().replace(['.', '-'], "_")
}

fn key_of(name: &str, mods: &[String]) -> String {
    NameRef::new(None, name, mods).key
}

impl Namer {
    /// `hw`: the hardware table (encodings); `method`: the evaluating table (names); `smt`: SMT on.
    pub fn new(hw: Option<&MetricEngine>, method: &MetricEngine, smt: bool) -> Namer {
        let vendor = Vendor::of(&hw.unwrap_or(method).table().vendor);
        let mut n = Namer { vendor, by_config: HashMap::new(), by_code: HashMap::new(), by_norm: HashMap::new(), known: HashSet::new(), smt };
        for engine in hw.into_iter().chain(std::iter::once(method)) {
            let resolver = Resolver { hw: None, vendor: Vendor::of(&engine.table().vendor), smt: false, core_pmu: "cpu" };
            for def in &engine.table().events {
                n.known.insert(def.name.to_ascii_lowercase());
                let v = n.by_norm.entry(norm(&def.name)).or_default();
                if !v.contains(&def.name) {
                    v.push(def.name.clone());
                }
                if let Resolved::Event(e) = resolver.resolve(&engine.spec(&NameRef::plain(&def.name))) {
                    if let Some(c) = e.config.filter(|_| e.pmu != "msr") {
                        n.add_config((c, e.config1), &def.name, &[]);
                        let f = Fields::from_config(c, n.vendor);
                        let plain = f.cmask == 0 && !f.inv && !f.edge && !f.any;
                        if plain && matches!(e.placement, crate::event::Placement::General(_)) && e.config1 == 0 {
                            let v = n.by_code.entry(f.event).or_default();
                            if !v.iter().any(|(x, _)| *x == def.name) {
                                v.push((def.name.clone(), f.umask));
                            }
                        }
                    }
                }
            }
            // Offcore events the formulas program with their own MSR value.
            let all: Vec<&str> = engine.metrics().iter().map(|m| m.name.as_str()).collect();
            for spec in engine.events_needed(&all).iter().filter(|s| s.modifiers.iter().any(|m| m.starts_with("ocr_msr_val="))) {
                if let Resolved::Event(e) = resolver.resolve(spec) {
                    if let Some(c) = e.config {
                        n.add_config((c, e.config1), &spec.name, &spec.modifiers);
                    }
                }
            }
        }
        if method.uarch() == "zen5" {
            for (name, code, umask) in crate::plan::ZEN5_EXTRA {
                n.known.insert(name.to_string());
                let c = Fields { event: *code, umask: *umask, ..Fields::default() }.config(Vendor::Amd);
                n.add_config((c, 0), name, &[]);
            }
        }
        for (field, _, umask) in PERF_METRICS {
            n.add_config((umask << 8, 0), &format!("PERF_METRICS.{field}"), &[]);
        }
        n
    }

    fn add_config(&mut self, encoding: (u64, u64), name: &str, mods: &[String]) {
        let v = self.by_config.entry(encoding).or_default();
        if !v.iter().any(|(n, m)| n == name && m == mods) {
            v.push((name.to_string(), mods.to_vec()));
        }
    }

    /// Keys for the events of one encoding, each with its own modifiers and `extra`.
    fn encoded(&self, events: &[Named], extra: &[String]) -> Vec<(String, f64)> {
        let mut out: Vec<(String, f64)> = Vec::new();
        for (name, own) in events {
            let mods: Vec<String> = own.iter().chain(extra).cloned().collect();
            if let Mapped::Keys(k) = self.keys(&[name], &mods, 1.0) {
                out.extend(k.into_iter().filter(|(k, _)| !out.iter().any(|(o, _)| o == k)).collect::<Vec<_>>());
            }
        }
        out
    }

    fn is_known(&self, name: &str) -> bool {
        self.known.contains(&name.to_ascii_lowercase())
    }

    /// Keys for table names (adding `TOPDOWN.SLOTS:perf_metrics` beside `TOPDOWN.SLOTS`).
    fn keys(&self, names: &[&str], mods: &[String], factor: f64) -> Mapped {
        let mut out = Vec::new();
        let mut add = |k: String| {
            if !out.iter().any(|(o, _)| *o == k) {
                out.push((k, factor));
            }
        };
        for n in names {
            add(key_of(n, mods));
            if n.eq_ignore_ascii_case("TOPDOWN.SLOTS") && mods.is_empty() {
                add(key_of(n, &["perf_metrics".into()]));
            }
        }
        Mapped::Keys(out)
    }

    /// Known names among `candidates` (the first one when none is known).
    fn pick(&self, candidates: &[&'static str]) -> Vec<&'static str> {
        let k: Vec<&str> = candidates.iter().copied().filter(|c| self.is_known(c)).collect();
        if k.is_empty() {
            candidates[..1].to_vec()
        } else {
            k
        }
    }

    /// Maps one printed event name.
    pub fn map(&self, text: &str) -> Mapped {
        let t = text.trim().trim_matches('"');
        let (pmu, body) = match (t.find('/'), t.rfind('/')) {
            (Some(a), Some(b)) if b > a => (Some(t[..a].to_ascii_lowercase()), &t[a + 1..b]),
            _ => (None, t),
        };
        let body = match body.rsplit_once(':') {
            Some((b, m)) if pmu.is_none() && !m.is_empty() && m.chars().all(|c| PERF_SUFFIX.contains(c)) => b,
            _ => body,
        };
        match pmu.as_deref() {
            Some("cpu_atom") => return Mapped::Ignore(Some("cpu_atom (E-core) events: no table describes them".into())),
            Some("msr") if body.eq_ignore_ascii_case("tsc") => return self.keys(&["TSC"], &[], 1.0),
            _ => {}
        }
        let lower = body.to_ascii_lowercase();
        if let Some(m) = self.generic(&lower) {
            return m;
        }
        let terms: Vec<&str> = body.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        let raw_hex = pmu.is_none() && lower.len() > 1 && lower.starts_with('r') && lower[1..].chars().all(|c| c.is_ascii_hexdigit());
        // `event=0x3c,...` is an encoding; `NAME:ocr_msr_val=0x10` a name with a modifier
        let encoding = terms.first().and_then(|t| t.split(':').next()).is_some_and(|head| head.contains('='));
        if raw_hex || encoding {
            return self.raw(&terms, raw_hex.then(|| u64::from_str_radix(&lower[1..], 16).ok()).flatten());
        }
        let Some((first, rest)) = terms.split_first() else { return Mapped::Ignore(None) };
        let (name, mut mods) = match first.split_once(':') {
            Some((n, m)) => (n, m.split(':').map(str::to_string).collect::<Vec<_>>()),
            None => (*first, Vec::new()),
        };
        mods.extend(rest.iter().map(|s| s.to_string()));
        if self.is_known(name) {
            return self.keys(&[name], &mods, 1.0);
        }
        if let Some(m) = self.likwid(name) {
            return m;
        }
        if let Some(v) = self.by_norm.get(&norm(name)) {
            let names: Vec<&str> = v.iter().map(String::as_str).collect();
            return self.keys(&names, &mods, 1.0);
        }
        Mapped::Unknown(key_of(name, &mods))
    }

    fn generic(&self, lower: &str) -> Option<Mapped> {
        let slots_factor = if self.smt { 0.5 } else { 0.25 };
        let (clk, rec) = if self.smt { ("CPU_CLK_UNHALTED.THREAD_ANY", "INT_MISC.RECOVERY_CYCLES_ANY") } else { ("CPU_CLK_UNHALTED.THREAD", "INT_MISC.RECOVERY_CYCLES") };
        if self.vendor == Vendor::Arm {
            // perf's generic hardware events on PMUv3 (armv8_pmuv3_map)
            let arm = match lower {
                "cycles" | "cpu-cycles" => Some("CPU_CYCLES"),
                "instructions" => Some("INST_RETIRED"),
                "branch-misses" => Some("BR_MIS_PRED"),
                "stalled-cycles-frontend" => Some("STALL_FRONTEND"),
                "stalled-cycles-backend" => Some("STALL_BACKEND"),
                _ => None,
            };
            if let Some(name) = arm {
                return Some(self.keys(&[name], &[], 1.0));
            }
        }
        Some(match lower {
            "cycles" | "cpu-cycles" => {
                let c = if self.vendor == Vendor::Amd { vec!["ls_not_halted_cyc"] } else { self.pick(&["CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.CORE"]) };
                self.keys(&c, &[], 1.0)
            }
            "instructions" => self.keys(&[if self.vendor == Vendor::Amd { "ex_ret_instr" } else { "INST_RETIRED.ANY" }], &[], 1.0),
            "ref-cycles" => self.keys(&["CPU_CLK_UNHALTED.REF_TSC"], &[], 1.0),
            "slots" => self.keys(&["TOPDOWN.SLOTS"], &[], 1.0),
            "tsc" | "msr/tsc/" => self.keys(&["TSC"], &[], 1.0),
            "duration_time" => Mapped::Const("duration_time".into()),
            "topdown-total-slots" => self.keys(&[clk], &[], slots_factor),
            "topdown-slots-issued" => self.keys(&["UOPS_ISSUED.ANY"], &[], 1.0),
            "topdown-slots-retired" => self.keys(&["UOPS_RETIRED.RETIRE_SLOTS"], &[], 1.0),
            "topdown-fetch-bubbles" => self.keys(&["IDQ_UOPS_NOT_DELIVERED.CORE"], &[], 1.0),
            "topdown-recovery-bubbles" => self.keys(&[rec], &[], slots_factor),
            "task-clock" | "cpu-clock" | "context-switches" | "cs" | "cpu-migrations" | "page-faults" | "minor-faults" | "major-faults" | "user_time" | "system_time" => Mapped::Ignore(None),
            t => {
                let (field, ..) = PERF_METRICS.iter().find(|(_, p, _)| *p == t)?;
                return Some(self.keys(&[&format!("PERF_METRICS.{field}")], &[], 1.0));
            }
        })
    }

    fn likwid(&self, name: &str) -> Option<Mapped> {
        let names: Vec<&str> = match name.to_ascii_uppercase().as_str() {
            "INSTR_RETIRED_ANY" => vec!["INST_RETIRED.ANY"],
            "CPU_CLK_UNHALTED_CORE" => self.pick(&["CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.CORE"]),
            "CPU_CLK_UNHALTED_REF" => vec!["CPU_CLK_UNHALTED.REF_TSC"],
            "TOPDOWN_SLOTS" => vec!["TOPDOWN.SLOTS"],
            "CPU_CLOCKS_UNHALTED" => vec!["ls_not_halted_cyc"],
            "RETIRED_INSTRUCTIONS" => vec!["ex_ret_instr"],
            "RETIRED_UOPS" => vec!["ex_ret_ops"],
            "UOPS_DISP_FROM_ANY" => vec!["de_src_op_disp.all"],
            "DISPATCH_STALLS_PER_SLOT_FRONTEND" => vec!["de_no_dispatch_per_slot.no_ops_from_frontend"],
            "DISPATCH_STALLS_PER_SLOT_BACKEND" => vec!["de_no_dispatch_per_slot.backend_stalls"],
            "DISPATCH_STALLS_PER_SLOT_OTHER_SMT_THREAD" => vec!["de_no_dispatch_per_slot.smt_contention"],
            u => {
                let (field, ..) = PERF_METRICS.iter().find(|(f, ..)| *f == u)?;
                return Some(self.keys(&[&format!("PERF_METRICS.{field}")], &[], 1.0));
            }
        };
        Some(self.keys(&names, &[], 1.0))
    }

    fn raw(&self, terms: &[&str], hex: Option<u64>) -> Mapped {
        let mut f = Fields::default();
        let mut config = hex;
        let mut config1 = 0u64;
        for t in terms {
            let (k, v) = t.split_once('=').unwrap_or((t, "1"));
            let n = parse_num(v).unwrap_or(0);
            match k.trim().to_ascii_lowercase().as_str() {
                "event" => f.event = n,
                "umask" => f.umask = n,
                "cmask" => f.cmask = n,
                "inv" => f.inv = n != 0,
                "edge" => f.edge = n != 0,
                "any" => f.any = n != 0,
                "config" => config = Some(n),
                "config1" | "offcore_rsp" | "ldlat" | "frontend" => config1 = n,
                _ => {}
            }
        }
        let config = config.unwrap_or_else(|| f.config(self.vendor));
        let f = Fields::from_config(config, self.vendor);
        let base = Fields { cmask: 0, inv: false, edge: false, any: false, ..f };
        let mut mods = Vec::new();
        if f.cmask != 0 {
            mods.push(format!("c{}", f.cmask));
        }
        for (on, m) in [(f.inv, "i1"), (f.edge, "e1"), (f.any, "any")] {
            if on {
                mods.push(m.to_string());
            }
        }
        let mut keys: Vec<(String, f64)> = Vec::new();
        let mut add = |m: Mapped| {
            if let Mapped::Keys(k) = m {
                keys.extend(k.into_iter().filter(|(k, _)| !keys.iter().any(|(o, _)| o == k)).collect::<Vec<_>>());
            }
        };
        // Table events with exactly this encoding.
        if let Some(events) = self.by_config.get(&(config, config1)) {
            add(Mapped::Keys(self.encoded(events, &[])));
        }
        // The table event without cmask/inv/edge/any, plus those as modifiers (`NAME:c1`).
        if let Some(events) = self.by_config.get(&(base.config(self.vendor), config1)).filter(|_| !mods.is_empty()) {
            add(Mapped::Keys(self.encoded(events, &mods)));
        }
        // A formula's umask override (`FP_ARITH_INST_RETIRED.128B_PACKED_DOUBLE:u0xfc`):
        // every event with this code, with the umask as a modifier.
        if let Some(names) = self.by_code.get(&f.event).filter(|_| config1 == 0) {
            let mut m = mods.clone();
            m.push(format!("u{:#x}", f.umask));
            let other: Vec<&str> = names.iter().filter(|(_, u)| *u != f.umask).map(|(n, _)| n.as_str()).collect();
            add(self.keys(&other, &m, 1.0));
        }
        if !keys.is_empty() {
            return Mapped::Keys(keys);
        }
        Mapped::Unknown(format!("raw:{config:#x}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(m: Mapped) -> Vec<String> {
        match m {
            Mapped::Keys(k) => k.into_iter().map(|(k, _)| k).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn perf_spellings() {
        let skl = MetricEngine::for_uarch("skl").unwrap();
        let n = Namer::new(Some(&skl), &skl, false);
        assert_eq!(keys(n.map("INST_RETIRED.ANY")), ["inst_retired.any"]);
        assert!(keys(n.map("cpu/event=0x3c/")).contains(&"cpu_clk_unhalted.thread".to_string()));
        assert!(keys(n.map("cpu/event=0x3c,umask=0x00/u")).contains(&"cpu_clk_unhalted.thread_p".to_string()));
        let k = keys(n.map("cpu/event=0x9c,umask=0x01,cmask=4/"));
        assert_eq!(k[..2], ["idq_uops_not_delivered.cycles_0_uops_deliv.core", "idq_uops_not_delivered.core:c4"]);
        assert!(keys(n.map("cpu/event=0xb1,umask=0x01,cmask=1/")).contains(&"uops_executed.thread:c1".to_string()));
        assert_eq!(keys(n.map("r019c"))[0], "idq_uops_not_delivered.core");
        // A umask override of a formula (`NAME:u0x..`).
        assert!(keys(n.map("cpu/event=0xc7,umask=0xfc/")).contains(&"fp_arith_inst_retired.128b_packed_double:u0xfc".to_string()));
        assert_eq!(keys(n.map("cpu/UOPS_EXECUTED.CORE,cmask=1/")), ["uops_executed.core:c1"]);
        assert_eq!(keys(n.map("uops_executed.core:c1")), ["uops_executed.core:c1"]);
        assert_eq!(keys(n.map("cycles:u")), ["cpu_clk_unhalted.thread"]);
        assert_eq!(n.map("topdown-total-slots"), Mapped::Keys(vec![("cpu_clk_unhalted.thread".into(), 0.25)]));
        assert_eq!(keys(n.map("UOPS_ISSUED_ANY")), ["uops_issued.any"]);
        assert_eq!(n.map("duration_time"), Mapped::Const("duration_time".into()));
        assert!(matches!(n.map("cpu_atom/cycles/"), Mapped::Ignore(Some(_))));
        assert_eq!(n.map("task-clock"), Mapped::Ignore(None));
        let icl = MetricEngine::for_uarch("icl").unwrap();
        let n = Namer::new(Some(&icl), &icl, false);
        assert_eq!(keys(n.map("cpu_core/topdown-retiring/")), ["perf_metrics.retiring"]);
        assert_eq!(keys(n.map("slots")), ["topdown.slots", "topdown.slots:perf_metrics"]);
        assert_eq!(keys(n.map("cpu/event=0x00,umask=0x82/"))[0], "perf_metrics.frontend_bound");
        let z4 = MetricEngine::for_uarch("zen4").unwrap();
        let n = Namer::new(Some(&z4), &z4, false);
        assert_eq!(keys(n.map("cpu/event=0x1a0,umask=0x01,cmask=6/"))[0], "de_no_dispatch_per_slot.no_ops_from_frontend:c6");
        assert_eq!(keys(n.map("cycles")), ["ls_not_halted_cyc"]);
    }
}
