//! The counter-file importers of `bottlenose topdown --import`
//! (`bottlenose_counters::import::parse`: perf stat CSV, perf stat JSON,
//! likwid-perfctr CSV, detected from the content), then the same steps as
//! the CLI: name mapping and summing (`Parsed::counts` with a `Namer`) and
//! the Top-Down report.

use std::sync::OnceLock;

use bottlenose_counters::import::{self, names::Namer};
use bottlenose_counters::plan::{self, Method, Selection};
use bottlenose_counters::report::Report;
use bottlenose_metrics::MetricEngine;

struct Setup {
    method: Method,
    engine: MetricEngine,
    namer: Namer,
}

static SETUPS: OnceLock<Vec<Setup>> = OnceLock::new();

fn setups() -> Vec<Setup> {
    [
        ("skl", Method::Tma),
        ("zen4", Method::Tma),
        ("skl", Method::FiveEvent),
    ]
    .into_iter()
    .map(|(hw, method)| {
        let engine = method.engine(hw, false).expect("engine");
        let hw_engine = MetricEngine::for_uarch(hw).expect("hw table");
        let namer = Namer::new(Some(&hw_engine), &engine, false);
        Setup {
            method,
            engine,
            namer,
        }
    })
    .collect()
}

pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = match import::parse(text, "fuzz.csv") {
        Ok(p) => p,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for s in SETUPS.get_or_init(setups) {
        let imported = parsed.counts(&s.namer, &plan::constants(false));
        let sel = Selection::default();
        for sample in imported
            .samples
            .iter()
            .chain(std::iter::once(&imported.total))
        {
            let _ = Report::new(&s.engine, s.method, &sample.counts, &sel);
        }
    }
}
