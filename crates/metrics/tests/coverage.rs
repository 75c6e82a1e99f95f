//! Every formula of every shipped table parses, loads, and evaluates on
//! synthetic counts without panicking; most evaluate to finite numbers.

use bottlenose_metrics::{Counts, MetricEngine};
use std::collections::BTreeMap;

/// Every referenced event = 1000 × a hash-derived factor in [1, 2); clock
/// events (the largest counts) = 1e6.
fn synthetic(engine: &MetricEngine, smt: bool) -> Counts {
    let mut c = Counts::new()
        .with_smt(smt)
        .with_duration(2.0)
        .with_const("num_cpus", 8.0)
        .with_const("socket_count", 1.0)
        .with_const("system_tsc_freq", 2.0e9)
        .with_const("cores_per_socket", 4.0)
        .with_const("chas_per_socket", 4.0);
    let names: Vec<&str> = engine.metrics().iter().map(|m| m.name.as_str()).collect();
    for spec in engine.events_needed(&names) {
        let h = spec.key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x1000_0000_01b3));
        let k = spec.key.as_str();
        let clock = k.starts_with("cpu_clk_unhalted.") && !k.contains("one_thread") && !k.contains(':')
            || k == "ls_not_halted_cyc"
            || k == "clocks"
            || k == "tsc"
            || k.starts_with("topdown.slots");
        c.set(k, if clock { 1e6 } else { 1000.0 * (1.0 + (h % 1000) as f64 / 1000.0) });
    }
    c
}

#[test]
fn every_formula_parses_and_evaluates() {
    let mut total = 0;
    let mut finite = 0;
    let mut report = Vec::new();
    for (name, smt) in MetricEngine::available().into_iter().flat_map(|n| [(n, false), (n, true)]) {
        let engine = MetricEngine::for_uarch(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let t = engine.table();
        assert!(!t.metrics.is_empty(), "{name} has metrics");
        for m in &t.metrics {
            bottlenose_metrics::expr::parse(&m.expr).unwrap_or_else(|e| panic!("{name} {}: {e}", m.name));
        }
        let counts = synthetic(&engine, smt);
        let ev = engine.evaluate(&counts).unwrap();
        let n = ev.results().len();
        let ok = ev.available();
        let mut why: BTreeMap<String, usize> = BTreeMap::new();
        for r in ev.results().iter().filter(|r| r.value.is_none()) {
            let mut e = r.error.clone().unwrap();
            while let bottlenose_metrics::expr::EvalError::Dependency { reason, .. } = e {
                e = *reason;
            }
            *why.entry(format!("{e}")).or_default() += 1;
        }
        report.push(format!("{name} (smt {}): {ok}/{n} finite; unavailable: {why:?}", if smt { "on" } else { "off" }));
        total += n;
        finite += ok;
        // Each table on its own: at least 90 % of its formulas give a number.
        assert!(ok * 10 >= n * 9, "{name}: only {ok}/{n} finite: {why:?}");
        // Every Top-Down node evaluates.
        for m in t.metrics.iter().filter(|m| m.tma) {
            assert!(ev.get(&m.name).is_some(), "{name}: node {} = {:?}", m.name, ev.result(&m.name));
        }
    }
    println!("{}", report.join("\n"));
    println!("total: {finite}/{total} formulas finite ({:.1} %)", 100.0 * finite as f64 / total as f64);
    assert!(finite * 100 >= total * 95, "{finite}/{total}");
}

#[test]
fn shipped_tables_have_trees_and_provenance() {
    let expect = [
        ("skl", 4, 6),
        ("skx", 4, 6),
        ("icl", 4, 6),
        ("spr", 4, 6),
        ("adl", 4, 6),
        ("hsw", 4, 6),
        ("ivb", 4, 6),
        ("zen4", 5, 2),
        ("zen5", 5, 2),
    ];
    for (u, roots, depth) in expect {
        let e = MetricEngine::for_uarch(u).unwrap();
        let t = e.table();
        assert!(!t.provenance.sources.is_empty(), "{u} provenance");
        let ev = e.evaluate(&synthetic(&e, false)).unwrap();
        let tree = e.tree(&ev);
        assert_eq!(tree.roots.len(), roots, "{u} roots");
        assert_eq!(tree.depth(), depth, "{u} depth");
        // Every node has a threshold.
        for (_, n) in tree.walk() {
            assert!(n.threshold.is_some(), "{u}: {} has no threshold", n.name);
        }
    }
    // Zen 3 ships events and metrics but no pipeline tree in the source data.
    let z3 = MetricEngine::for_uarch("zen3").unwrap();
    assert!(z3.tree_metrics(None).is_empty());
    assert!(!z3.table().events.is_empty());
}

#[test]
fn referenced_events_have_encodings() {
    for name in MetricEngine::available() {
        let e = MetricEngine::for_uarch(name).unwrap();
        let names: Vec<&str> = e.metrics().iter().map(|m| m.name.as_str()).collect();
        let specs = e.events_needed(&names);
        let unknown: Vec<&str> = specs.iter().filter(|s| !s.is_known()).map(|s| s.key.as_str()).collect();
        println!("{name}: {}/{} referenced events described; not described: {unknown:?}", specs.len() - unknown.len(), specs.len());
        let tree = e.events_needed(&e.tree_metrics(None));
        let tree_unknown: Vec<&str> = tree.iter().filter(|s| !s.is_known()).map(|s| s.key.as_str()).collect();
        if e.table().vendor == "intel" && e.table().provenance.generator.starts_with("convert-perfmon") {
            // Every event of the Intel trees is in the events file (except TSC and the PERF_METRICS.* pseudo-events).
            assert!(tree_unknown.iter().all(|k| k.starts_with("perf_metrics.") || *k == "tsc"), "{name}: {tree_unknown:?}");
        }
    }
}

#[test]
fn data_size_is_reasonable() {
    let total: usize = bottlenose_metrics::table::EMBEDDED.iter().map(|(_, j)| j.len()).sum();
    assert!(total < 3_000_000, "{total} bytes");
}
