//! Units and normalized values on imported counts: every fixture file, and a
//! file with every event of every level of each Intel/AMD table (counts that
//! vary per event, so that formulas mixing slots and cycles disagree as they
//! do on real runs). On all of them: each node has its table's unit, the raw
//! value is the formula's, and normalized values never exceed their parent.

use bottlenose_counters::import::{self, names::Namer};
use bottlenose_counters::plan::{constants, plan, Method, Selection};
use bottlenose_counters::report::{Report, View};
use bottlenose_metrics::{MetricEngine, Node, Tree, Unit};

fn check(t: &Tree, engine: &MetricEngine, what: &str) {
    fn walk(nodes: &[Node], frame: Option<f64>, engine: &MetricEngine, what: &str) {
        let sum: f64 = nodes.iter().filter_map(|n| n.normalized).sum();
        if let Some(f) = frame {
            assert!(sum <= f + 1e-9, "{what}: children of a node with share {f} sum to {sum}: {:?}", nodes.iter().map(|n| (&n.label, n.normalized)).collect::<Vec<_>>());
        }
        for n in nodes {
            assert_eq!(n.unit, engine.metric(&n.name).unwrap().domain, "{what}: {}", n.label);
            assert!(n.unit.is_some(), "{what}: {} has no unit", n.label);
            match (n.value, n.normalized, frame) {
                (Some(_), None, Some(_)) => panic!("{what}: {} has a value but no normalized value", n.label),
                (None, Some(_), _) => panic!("{what}: {} has a normalized value but no value", n.label),
                (_, Some(v), _) => assert!(v >= 0.0, "{what}: {} normalized {v}", n.label),
                _ => {}
            }
            walk(&n.children, n.normalized, engine, what);
        }
    }
    walk(&t.roots, Some(1.0), engine, what);
}

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn every_fixture_file() {
    let files = [
        ("perf-skl-l1.csv", "skl", Method::Tma),
        ("perf-skl-l1.json", "skl", Method::Tma),
        ("perf-hsw-interval-percpu.csv", "hsw", Method::Tma),
        ("perf-hsw-topdown-legacy.csv", "hsw", Method::FiveEvent),
        ("perf-adl-hybrid.csv", "adl", Method::Tma),
        ("perf-spr-offcore.csv", "spr", Method::Tma),
        ("likwid-hsw-topdown-1t.csv", "hsw", Method::FiveEvent),
        ("likwid-hsw-topdown-2t.csv", "hsw", Method::Tma),
        ("likwid-icl-tma-regions.csv", "icl", Method::Tma),
    ];
    for (file, hw, method) in files {
        let parsed = import::parse_file(&fixture(file)).unwrap();
        let engine = method.engine(hw, false).unwrap();
        let hw_engine = MetricEngine::for_uarch(hw).unwrap();
        let imported = parsed.counts(&Namer::new(Some(&hw_engine), &engine, false), &constants(false));
        for s in imported.samples.iter().chain([&imported.total]) {
            let ev = engine.evaluate(&s.counts).unwrap();
            let t = engine.tree(&ev);
            check(&t, &engine, file);
            // raw values are the engine's, untouched
            for (_, n) in t.walk() {
                assert_eq!(n.value, ev.get(&n.name), "{file}: {}", n.label);
            }
        }
    }
}

/// A count for each event that differs per event and stays in a plausible
/// range of the cycles (0 .. 1.5 × clocks), from its perf spelling.
fn count(perf: &str, clocks: f64) -> f64 {
    let h = perf.bytes().fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    (h % 1500) as f64 / 1000.0 * clocks
}

#[test]
fn every_level_of_every_table() {
    let clocks = 1e9;
    for u in ["skl", "skx", "hsw", "ivb", "icl", "spr", "adl", "zen4"] {
        let p = plan(u, Method::Tma, &Selection { level: None, nodes: vec![] }, false).unwrap();
        let slots = p.engine.table().constants.get("pipeline_width").copied().unwrap_or(4.0) * clocks;
        let csv: String = p
            .events
            .iter()
            .map(|e| {
                let v = match e.name.as_str() {
                    "CPU_CLK_UNHALTED.THREAD" | "CPU_CLK_UNHALTED.THREAD_ANY" | "CPU_CLK_UNHALTED.REF_TSC" | "TSC" | "ls_not_halted_cyc" => clocks,
                    "TOPDOWN.SLOTS" => slots,
                    _ => count(&e.perf, clocks),
                };
                format!("{v},,{},1000000,100.00,,\n", e.perf)
            })
            .collect::<String>()
            + "1000000000,ns,duration_time,1000000000,100.00,,\n";
        let parsed = import::parse(&csv, "all.csv").unwrap();
        let hw = MetricEngine::for_uarch(u).unwrap();
        let imported = parsed.counts(&Namer::new(Some(&hw), &p.engine, false), &constants(false));
        let r = Report::new(&p.engine, Method::Tma, &imported.total.counts, &Selection::default());
        check(&r.tree, &p.engine, u);
        let with_values = r.tree.walk().iter().filter(|(_, n)| n.value.is_some()).count();
        assert!(with_values * 2 > r.tree.walk().len(), "{u}: only {with_values} of {} nodes have values", r.tree.walk().len());
        // some child exceeds its parent in raw value (units differ) while no normalized one does
        let exceeds = r.tree.walk().iter().any(|(_, n)| n.children.iter().any(|c| c.value.unwrap_or(0.0) > n.value.unwrap_or(f64::MAX)));
        assert!(exceeds || u == "zen4", "{u}: no raw child above its parent in these counts");
        // JSON and CSV carry both
        let j = r.json(View { all: true, hide_missing: false });
        let l1 = &j["tree"]["children"][0];
        assert!(l1["unit"].is_string() && l1.get("normalized").is_some(), "{u}: {l1}");
        let csv = r.csv(View { all: true, hide_missing: false }, true);
        assert!(csv.starts_with("node,level,value,threshold,flagged,unit,normalized\n"));
        assert!(csv.lines().skip(1).all(|l| Unit::ALL.iter().any(|u| l.contains(&format!(",{},", u.name())))), "{u}: {csv}");
    }
}
