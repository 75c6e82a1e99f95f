//! Our own table format: one per microarchitecture (or built-in model), with
//! events, metrics (formulas in the normalized syntax of [`crate::expr`]),
//! default constants and provenance. The converted tables are JSON files under
//! `crates/metrics/data/`, written by `tools/convert-perfmon` and embedded here.

use crate::unit::Unit;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Current schema version of the data files.
pub const SCHEMA: u32 = 1;

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// Everything the engine knows about one microarchitecture.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct UarchTable {
    /// Schema version ([`SCHEMA`]).
    pub schema: u32,
    /// Short id (`skl`, `zen4`, `yasin2014`).
    pub uarch: String,
    /// Human name.
    pub name: String,
    /// `intel`, `amd` or `model`.
    pub vendor: String,
    /// Sources, versions and conversion notes.
    pub provenance: Provenance,
    /// Default values of `#constants` (overridden by the counts' constants).
    #[serde(default)]
    pub constants: BTreeMap<String, f64>,
    #[serde(default)]
    /// Hardware events with their encodings.
    pub events: Vec<EventDef>,
    #[serde(default)]
    /// Metrics in source order (parents before children).
    pub metrics: Vec<MetricDef>,
}

/// Where the data came from.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Provenance {
    /// What produced the table (`convert-perfmon 0.1.0`, `built-in`).
    pub generator: String,
    #[serde(default)]
    /// Input files.
    pub sources: Vec<SourceFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// TMA version of the metrics, when known.
    pub tma_version: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Choices and anything skipped or defaulted.
    pub notes: Vec<String>,
}

/// One input file with the version strings found in it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SourceFile {
    /// Path relative to the data directory.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Version string found in the file.
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Publication date found in the file.
    pub date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// License of the source.
    pub license: Option<String>,
}

/// A hardware event and its encoding.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EventDef {
    /// Event name as in the source (`UOPS_ISSUED.ANY`).
    pub name: String,
    /// PMU (`cpu_core` for the Alder Lake P-core, `l3` for AMD L3PMC ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmu: Option<String>,
    /// Event select code(s) as in the source (`0x3C`, `0xB7,0xBB`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Unit mask.
    pub umask: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    /// Counter mask (count cycles with at least this many occurrences).
    pub cmask: u32,
    #[serde(default, skip_serializing_if = "is_false")]
    /// Invert the counter-mask comparison.
    pub inv: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    /// Count rising edges.
    pub edge: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    /// Count for all SMT threads of the core.
    pub any_thread: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Auxiliary MSR(s) to program (offcore response).
    pub msr_index: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Value for the auxiliary MSR.
    pub msr_value: Option<String>,
    /// Counter constraint (`0,1,2,3`, `Fixed counter 1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<String>,
    /// Counter constraint with SMT off, when different.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters_ht_off: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    /// Supports precise (PEBS) sampling.
    pub precise: bool,
    /// Short description (one line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Short description.
    pub desc: Option<String>,
}

impl EventDef {
    /// The fixed counter this event is bound to, if any.
    pub fn fixed_counter(&self) -> Option<u32> {
        let c = self.counters.as_deref()?;
        c.strip_prefix("Fixed counter ").and_then(|n| n.trim().parse().ok())
    }
}

/// A metric: a formula plus its place in the Top-Down tree, if any.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricDef {
    /// Lookup name (`tma_frontend_bound`, `frontend_bound`).
    pub name: String,
    /// Display name (`Frontend_Bound`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Formula in the normalized syntax.
    pub expr: String,
    /// Display scaling in perf's ScaleUnit spelling (`100%` = fraction shown as percent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// For Top-Down nodes: what the value is a fraction of (Intel's
    /// `CountDomain`: slots, clocks, retired uops ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<Unit>,
    /// Short description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Metric groups (`TmaL1`, `Frontend`, ...).
    pub groups: Vec<String>,
    /// A node of the Top-Down tree.
    #[serde(default, skip_serializing_if = "is_false")]
    pub tma: bool,
    /// Tree level (1 = Frontend Bound / Bad Speculation / Retiring / Backend Bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Parent node (metric name).
    pub parent: Option<String>,
    /// Top-level area (`FE`, `BAD`, `RET`, `BE/Mem`, `BE/Core`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    /// Boolean formula: is this node's own value significant? (The parent
    /// condition is applied by the tree, see [`crate::tree`].)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<String>,
}

/// Intel perfmon data is BSD-3-Clause; its notice travels with the converted data.
pub const INTEL_LICENSE: &str = include_str!("../data/LICENSE.intel-perfmon");

macro_rules! embedded {
    ($($id:literal),* $(,)?) => {
        /// The converted tables embedded in the crate: (uarch id, JSON text).
        pub const EMBEDDED: &[(&str, &str)] = &[$(($id, include_str!(concat!("../data/", $id, ".json")))),*];
    };
}
embedded!("skl", "skx", "icl", "spr", "adl", "hsw", "ivb", "zen3", "zen4", "zen5");

/// The CPU-id → uarch mapping file (see [`crate::cpuid`]).
pub const CPUID_JSON: &str = include_str!("../data/cpuid.json");

impl UarchTable {
    /// Parses a table from JSON.
    pub fn from_json(text: &str) -> Result<UarchTable, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The metric with this name or label (case-insensitive).
    pub fn metric(&self, name: &str) -> Option<&MetricDef> {
        self.metrics.iter().find(|m| {
            m.name.eq_ignore_ascii_case(name) || m.label.as_deref().is_some_and(|l| l.eq_ignore_ascii_case(name))
        })
    }

    /// The event with this name (case-insensitive).
    pub fn event(&self, name: &str) -> Option<&EventDef> {
        self.events.iter().find(|e| e.name.eq_ignore_ascii_case(name))
    }
}
