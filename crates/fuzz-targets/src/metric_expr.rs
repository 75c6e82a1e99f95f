//! The metric formula language (`bottlenose_metrics::expr`): parse, print
//! (documented as `parse(print(e)) == e`), evaluate over synthetic counts,
//! and use the text as an event name (`Counts::set`, `event_key`) and as a
//! metric of a table (`MetricEngine::from_table` + `evaluate`, which follows
//! metric references and detects cycles).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use bottlenose_metrics::expr::{self, Env, EvalError};
use bottlenose_metrics::{Counts, MetricDef, MetricEngine, NameRef, UarchTable};

/// Deterministic synthetic counts: a value per name, some names missing.
struct Synth;

fn h(s: &str) -> u64 {
    let mut x = DefaultHasher::new();
    s.hash(&mut x);
    x.finish()
}

impl Env for Synth {
    fn name(&mut self, n: &NameRef) -> Result<f64, EvalError> {
        match h(&n.key) % 8 {
            0 => Err(EvalError::MissingEvent(n.key.clone())),
            1 => Ok(0.0),
            k => Ok((h(&n.key) % 10_000) as f64 * k as f64),
        }
    }
    fn constant(&mut self, c: &str) -> Result<f64, EvalError> {
        match h(c) % 4 {
            0 => Err(EvalError::MissingConstant(c.to_string())),
            1 => Ok(0.0),
            _ => Ok(2.0),
        }
    }
    fn source_count(&mut self, n: &NameRef) -> f64 {
        (h(&n.key) % 3) as f64
    }
    fn cpuid_matches(&mut self, text: &str) -> bool {
        h(text).is_multiple_of(2)
    }
}

static YASIN: OnceLock<UarchTable> = OnceLock::new();

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match expr::parse(&text) {
        Ok(e) => {
            let printed = e.to_string();
            match expr::parse(&printed) {
                Ok(again) => assert_eq!(
                    again, e,
                    "parse(print(e)) != e for {text:?}, printed {printed:?}"
                ),
                Err(err) => {
                    panic!("printed formula does not parse: {text:?} -> {printed:?}: {err}")
                }
            }
            let _ = expr::eval(&e, &mut Synth).map_err(|err| err.to_string());
            e.visit_names(&mut |n| {
                let _ = n.to_string();
            });
        }
        Err(err) => {
            assert!(
                err.pos <= text.len(),
                "error position {} past the end",
                err.pos
            );
            let _ = err.to_string();
        }
    }

    let mut counts = Counts::new();
    counts.set(&text, 1.0);
    counts.set_const(&text, 1.0);
    counts.set_source_count(&text, 2.0);
    let _ = bottlenose_metrics::event::event_key(&text);

    let base = YASIN.get_or_init(|| {
        MetricEngine::for_uarch("yasin2014")
            .unwrap()
            .table()
            .clone()
    });
    let mut table = base.clone();
    table.metrics.push(MetricDef {
        name: "Fuzz_Metric".into(),
        expr: text.to_string(),
        threshold: Some(format!("Fuzz_Metric > 0.5 & ({text})")),
        ..MetricDef::default()
    });
    if let Ok(engine) = MetricEngine::from_table(table) {
        let _ = engine.events_needed(&["Fuzz_Metric"]);
        let counts = counts
            .with("Clocks", 1000.0)
            .with("SlotsIssued", 2400.0)
            .with("SlotsRetired", 2000.0)
            .with("RecoveryBubbles", 200.0)
            .with("FetchBubbles", 400.0);
        let _ = engine.evaluate(&counts);
    }
}
