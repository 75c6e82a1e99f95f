//! Raw events: what one `perf_event_open` call programs, resolved from the
//! metric engine's [`EventSpec`]s.
//!
//! * Intel general counters: `config = event | umask<<8 | edge<<18 | any<<21 | inv<<23 | cmask<<24`,
//!   offcore/frontend/ldlat MSR values in `config1`.
//! * AMD (family 17h+): `event[7:0] | umask<<8 | edge<<18 | inv<<23 | cmask<<24 | event[11:8]<<32`.
//! * Intel fixed counters use Linux's pseudo-encodings: `0x00c0` instructions
//!   (fixed 0), `0x003c` core cycles (fixed 1; `any` for `THREAD_ANY`), `0x0300`
//!   reference cycles (fixed 2), `0x0400` slots (fixed 3). The first two may
//!   also run on a general counter; the others only on their fixed counter.
//! * Ice Lake and later: `PERF_METRICS.*` are read from the PERF_METRICS MSR
//!   through perf's `topdown-*` events (`event=0x00,umask=0x80..0x87`). They
//!   take no counter but **must be in a group whose leader is `slots`**
//!   (`TOPDOWN.SLOTS`, fixed counter 3); [`crate::groups`] builds that group.
//! * `TSC` is the free-running `msr/tsc/` event.

use bottlenose_metrics::{EventDef, EventSpec, MetricEngine, NameRef};

/// Which config layout a table's encodings use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// Intel core PMU.
    Intel,
    /// AMD core PMU (family 17h and later).
    Amd,
    /// Arm PMUv3 (Neoverse): `config` is the 16-bit event number alone.
    Arm,
    /// A model table (`yasin2014`): events have names but no hardware encoding.
    Model,
}

impl Vendor {
    /// From a table's `vendor` field.
    pub fn of(table_vendor: &str) -> Vendor {
        match table_vendor.to_ascii_lowercase().as_str() {
            "intel" => Vendor::Intel,
            "amd" => Vendor::Amd,
            "arm" => Vendor::Arm,
            _ => Vendor::Model,
        }
    }
}

/// Where an event may be counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// A fixed counter; `gp`: may also run on a general counter.
    Fixed {
        /// Fixed counter index.
        index: u32,
        /// Also allowed on any general counter.
        gp: bool,
    },
    /// General counters allowed (empty: any).
    General(Vec<u32>),
    /// An Ice Lake+ Top-Down metric: no counter, but only in the `slots` group.
    Metric,
    /// A free-running counter outside the core PMU (`msr/tsc/`): a group of its own.
    FreeRunning,
}

/// One event to program.
#[derive(Clone, Debug, PartialEq)]
pub struct RawEvent {
    /// The [`bottlenose_metrics::Counts`] key its value is stored under.
    pub key: String,
    /// Display name (`UOPS_ISSUED.ANY`, `UOPS_EXECUTED.CORE:c1`).
    pub name: String,
    /// PMU (`cpu`, `cpu_core`, `msr`; `model` for model tables).
    pub pmu: String,
    /// `perf_event_attr.config`; `None` when the table gives no hardware encoding.
    pub config: Option<u64>,
    /// `perf_event_attr.config1` (offcore response, frontend, load latency MSR value).
    pub config1: u64,
    /// How perf spells it (`cpu/event=0x0e,umask=0x01/`, `slots`, `topdown-fe-bound`, `msr/tsc/`).
    pub perf: String,
    /// Counter constraint.
    pub placement: Placement,
    /// `:sup` (kernel only) / `:user` (user only) modifiers of the formula.
    pub exclude_user: bool,
    /// See `exclude_user`.
    pub exclude_kernel: bool,
}

impl RawEvent {
    /// A model event (no hardware encoding), e.g. for `yasin2014` and tests.
    pub fn model(name: &str) -> RawEvent {
        RawEvent {
            key: bottlenose_metrics::event::event_key(name).unwrap_or_else(|| name.to_ascii_lowercase()),
            name: name.into(),
            pmu: "model".into(),
            config: None,
            config1: 0,
            perf: name.into(),
            placement: Placement::General(vec![]),
            exclude_user: false,
            exclude_kernel: false,
        }
    }

    /// True for the `slots` event that leads a Top-Down metrics group.
    pub fn is_slots(&self) -> bool {
        self.placement == (Placement::Fixed { index: 3, gp: false }) && self.config == Some(0x0400)
    }

    /// The placement as text (`fixed 1`, `pmc 0-3`, `perf-metrics`, `free-running`).
    pub fn placement_text(&self) -> String {
        match &self.placement {
            Placement::Fixed { index, gp: true } => format!("fixed {index} (or pmc)"),
            Placement::Fixed { index, .. } => format!("fixed {index}"),
            Placement::General(c) if c.is_empty() => "pmc any".into(),
            Placement::General(c) => format!("pmc {}", c.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")),
            Placement::Metric => "perf-metrics".into(),
            Placement::FreeRunning => "free-running".into(),
        }
    }
}

/// The perf `topdown-*` names of Intel's PERF_METRICS fields, with their umask.
pub const PERF_METRICS: &[(&str, &str, u64)] = &[
    ("RETIRING", "topdown-retiring", 0x80),
    ("BAD_SPECULATION", "topdown-bad-spec", 0x81),
    ("FRONTEND_BOUND", "topdown-fe-bound", 0x82),
    ("BACKEND_BOUND", "topdown-be-bound", 0x83),
    ("HEAVY_OPERATIONS", "topdown-heavy-ops", 0x84),
    ("BRANCH_MISPREDICTS", "topdown-br-mispredict", 0x85),
    ("FETCH_LATENCY", "topdown-fetch-lat", 0x86),
    ("MEMORY_BOUND", "topdown-mem-bound", 0x87),
];

/// Encoding fields of one event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// Event select (up to 12 bits on AMD).
    pub event: u64,
    /// Unit mask.
    pub umask: u64,
    /// Counter mask.
    pub cmask: u64,
    /// Invert cmask comparison.
    pub inv: bool,
    /// Edge detect.
    pub edge: bool,
    /// Any thread (Intel, pre-Ice Lake).
    pub any: bool,
}

impl Fields {
    /// The `config` value for `vendor`.
    pub fn config(&self, vendor: Vendor) -> u64 {
        let common = (self.umask & 0xff) << 8 | (self.edge as u64) << 18 | (self.inv as u64) << 23 | (self.cmask & 0xff) << 24;
        match vendor {
            Vendor::Arm => self.event & 0xffff,
            Vendor::Amd => (self.event & 0xff) | ((self.event >> 8) & 0xf) << 32 | common,
            _ => (self.event & 0xff) | (self.any as u64) << 21 | common,
        }
    }

    /// Decodes a `config` value.
    pub fn from_config(config: u64, vendor: Vendor) -> Fields {
        if vendor == Vendor::Arm {
            return Fields { event: config & 0xffff, ..Fields::default() };
        }
        let mut event = config & 0xff;
        if vendor == Vendor::Amd {
            event |= ((config >> 32) & 0xf) << 8;
        }
        Fields {
            event,
            umask: (config >> 8) & 0xff,
            edge: config >> 18 & 1 == 1,
            any: vendor != Vendor::Amd && config >> 21 & 1 == 1,
            inv: config >> 23 & 1 == 1,
            cmask: (config >> 24) & 0xff,
        }
    }

    /// perf's term list (`event=0x3c,umask=0x00,cmask=1,inv`).
    pub fn terms(&self) -> String {
        let mut s = format!("event={:#04x}", self.event);
        if self.umask != 0 {
            s.push_str(&format!(",umask={:#04x}", self.umask));
        }
        if self.cmask != 0 {
            s.push_str(&format!(",cmask={}", self.cmask));
        }
        for (on, t) in [(self.inv, "inv"), (self.edge, "edge"), (self.any, "any")] {
            if on {
                s.push(',');
                s.push_str(t);
            }
        }
        s
    }
}

pub(crate) fn parse_num(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The encoding fields of a table event (first code of `0xB7,0xBB`).
pub fn fields_of(def: &EventDef) -> Option<Fields> {
    Some(Fields {
        event: parse_num(def.code.as_deref()?.split(',').next()?)?,
        umask: def.umask.as_deref().and_then(parse_num).unwrap_or(0),
        cmask: def.cmask as u64,
        inv: def.inv,
        edge: def.edge,
        any: def.any_thread,
    })
}

fn parse_counters(list: &str) -> Vec<u32> {
    list.split(',').filter_map(|c| c.trim().parse().ok()).collect()
}

/// Turns [`EventSpec`]s into [`RawEvent`]s.
pub struct Resolver<'a> {
    /// The table of the hardware (encodings), when it differs from the method's table.
    pub hw: Option<&'a MetricEngine>,
    /// Layout of the encodings.
    pub vendor: Vendor,
    /// SMT on: Intel pre-Ice Lake events are limited to their SMT-on counter lists.
    pub smt: bool,
    /// The core PMU for events the tables give none (`cpu`; `cpu_core` on hybrid parts).
    pub core_pmu: &'a str,
}

/// The outcome of resolving one spec.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    /// Programmable.
    Event(RawEvent),
    /// Not programmable, with the reason.
    Skipped {
        /// Counts key.
        key: String,
        /// Event name.
        name: String,
        /// Why.
        reason: String,
    },
}

impl Resolver<'_> {
    /// Resolves one spec: the method table's encoding, else the hardware table's.
    pub fn resolve(&self, spec: &EventSpec) -> Resolved {
        let upper = spec.name.to_ascii_uppercase();
        if upper == "TSC" {
            return Resolved::Event(RawEvent {
                key: spec.key.clone(),
                name: spec.name.clone(),
                pmu: "msr".into(),
                config: Some(0),
                config1: 0,
                perf: "msr/tsc/".into(),
                placement: Placement::FreeRunning,
                exclude_user: false,
                exclude_kernel: false,
            });
        }
        let pmu = spec.pmu.clone().unwrap_or_else(|| self.core_pmu.to_string());
        if let Some(field) = upper.strip_prefix("PERF_METRICS.") {
            return match PERF_METRICS.iter().find(|(f, ..)| *f == field) {
                Some((_, perf, umask)) => Resolved::Event(RawEvent {
                    key: spec.key.clone(),
                    name: spec.name.clone(),
                    config: Some(umask << 8),
                    perf: if pmu == "cpu" { perf.to_string() } else { format!("{pmu}/{perf}/") },
                    pmu,
                    config1: 0,
                    placement: Placement::Metric,
                    exclude_user: false,
                    exclude_kernel: false,
                }),
                None => self.skip(spec, "no perf topdown event for this PERF_METRICS field"),
            };
        }
        // The method table's encoding, else the hardware table's (method tables such as
        // topdown5 name their events without encodings).
        let hw_def = || {
            let hw = self.hw?;
            hw.spec(&NameRef::new(spec.pmu.as_deref(), &spec.name, &spec.modifiers)).def
        };
        let def = spec.def.clone().filter(|d| d.code.is_some()).or_else(hw_def).or_else(|| spec.def.clone());
        let Some(def) = def else {
            let table = self.hw.map(|h| h.uarch().to_string()).unwrap_or_else(|| "event".into());
            return self.skip(spec, &format!("not in the {table} table"));
        };
        let pmu = def.pmu.clone().or(spec.pmu.clone()).unwrap_or_else(|| self.core_pmu.to_string());
        let exclude_user = spec.modifiers.iter().any(|m| m == "sup");
        let exclude_kernel = spec.modifiers.iter().any(|m| m == "user");
        let Some(mut f) = fields_of(&def) else {
            if self.vendor == Vendor::Model {
                let mut e = RawEvent::model(&spec.name);
                e.key = spec.key.clone();
                e.name = display_name(spec);
                return Resolved::Event(e);
            }
            return self.skip(spec, "the table gives no event code");
        };
        let config1 = def.msr_value.as_deref().and_then(parse_num).unwrap_or(0);
        let mut placement = match (&self.smt, &def.counters_ht_off) {
            (false, Some(c)) => Placement::General(parse_counters(c)),
            _ => Placement::General(def.counters.as_deref().map(parse_counters).unwrap_or_default()),
        };
        if let Some(n) = def.fixed_counter() {
            // Linux's pseudo-encodings for the fixed counters; cmask/inv/edge need a general counter.
            let qualified = f.cmask != 0 || f.inv || f.edge;
            let (code, umask) = match n {
                0 => (0xc0, 0),
                1 => (0x3c, 0),
                2 => (0x00, 0x03),
                3 => (0x00, 0x04),
                _ => return self.skip(spec, &format!("fixed counter {n} is unknown to this tool")),
            };
            if qualified && n >= 2 {
                return self.skip(spec, &format!("fixed counter {n} takes no cmask/inv/edge"));
            }
            f.event = code;
            f.umask = umask;
            placement = if qualified { Placement::General(vec![]) } else { Placement::Fixed { index: n, gp: n <= 1 } };
        }
        let config = f.config(self.vendor);
        let mut terms = f.terms();
        if config1 != 0 {
            terms.push_str(&format!(",config1={config1:#x}"));
        }
        let perf = if config == 0x0400 && matches!(placement, Placement::Fixed { index: 3, .. }) {
            if pmu == "cpu" { "slots".to_string() } else { format!("{pmu}/slots/") }
        } else {
            format!("{pmu}/{terms}/")
        };
        Resolved::Event(RawEvent {
            key: spec.key.clone(),
            name: display_name(spec),
            pmu,
            config: Some(config),
            config1,
            perf,
            placement,
            exclude_user,
            exclude_kernel,
        })
    }

    fn skip(&self, spec: &EventSpec, reason: &str) -> Resolved {
        Resolved::Skipped { key: spec.key.clone(), name: display_name(spec), reason: reason.into() }
    }
}

/// `NAME:mod:mod` (the table's spelling with the formula's modifiers).
pub fn display_name(spec: &EventSpec) -> String {
    let mut s = spec.name.clone();
    for m in &spec.modifiers {
        s.push(':');
        s.push_str(m);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_layouts() {
        let f = Fields { event: 0x9c, umask: 0x01, cmask: 4, inv: false, edge: false, any: false };
        assert_eq!(f.config(Vendor::Intel), 0x0400_019c);
        let any = Fields { event: 0x3c, any: true, ..Fields::default() };
        assert_eq!(any.config(Vendor::Intel), 0x20_003c);
        let amd = Fields { event: 0x1a0, umask: 0x01, cmask: 6, ..Fields::default() };
        assert_eq!(amd.config(Vendor::Amd), 0x1_0600_01a0);
        assert_eq!(Fields::from_config(0x1_0600_01a0, Vendor::Amd), amd);
        let e = Fields { event: 0x0d, umask: 0x03, cmask: 1, inv: true, edge: true, any: true };
        assert_eq!(Fields::from_config(e.config(Vendor::Intel), Vendor::Intel), e);
        assert_eq!(e.terms(), "event=0x0d,umask=0x03,cmask=1,inv,edge,any");
    }
}
