//! Group construction respects the counter limits and every event's counter
//! constraint for each shipped microarchitecture's full tree.

use bottlenose_counters::cpu::supported_uarchs;
use bottlenose_counters::event::{Resolved, Resolver, Vendor};
use bottlenose_counters::groups::{check, schedule, Counter, PmuLimits};
use bottlenose_counters::plan::{plan, Method, Selection};
use bottlenose_counters::Placement;
use bottlenose_metrics::MetricEngine;

#[test]
fn every_shipped_tree_packs_within_the_limits() {
    let all = Selection { level: None, nodes: vec![] };
    for u in supported_uarchs().into_iter().chain(["yasin2014"]) {
        if u == "zen3" {
            continue; // no tree; see zen3_metric_events_pack
        }
        for smt in [false, true] {
            let p = plan(u, Method::Tma, &all, smt).unwrap_or_else(|e| panic!("{u}: {e}"));
            check(&p.groups, &p.events, &p.limits).unwrap_or_else(|e| panic!("{u} smt={smt}: {e}\n{}", p.describe()));
            let l = &p.limits;
            for g in &p.groups {
                let general = g.counters.iter().filter(|c| matches!(c, Counter::General(_))).count() as u32;
                let fixed = g.counters.iter().filter(|c| matches!(c, Counter::Fixed(_))).count() as u32;
                assert!(general <= l.general && fixed <= l.fixed, "{u}: {g:?}");
            }
            // Only events the tables cannot encode are left out: TSC is programmable, uncore is not in trees.
            assert!(p.skipped.is_empty(), "{u}: {:?}", p.skipped);
            match u {
                "icl" | "spr" | "adl" => {
                    let g0 = &p.groups[0];
                    assert!(p.events[g0.events[0]].is_slots(), "{u}: slots leads the metrics group");
                    let metrics = g0.counters.iter().filter(|c| **c == Counter::Metric).count() as u32;
                    assert!(metrics >= 4 && metrics <= l.metrics, "{u}: {metrics} PERF_METRICS events");
                    assert!(p.groups[1..].iter().all(|g| !g.counters.contains(&Counter::Metric)));
                }
                "skl" | "skx" | "hsw" | "ivb" => {
                    assert_eq!(l.general, if smt { 4 } else { 8 });
                    assert_eq!(l.fixed, 3);
                }
                "zen4" | "zen5" => assert_eq!((l.general, l.fixed), (6, 0)),
                _ => {}
            }
            let level3 = plan(u, Method::Tma, &Selection { level: Some(3), nodes: vec![] }, smt).unwrap();
            check(&level3.groups, &level3.events, &level3.limits).unwrap();
        }
    }
}

#[test]
fn counter_constraints_from_the_tables_are_kept() {
    // Haswell has events restricted to one counter (e.g. CYCLE_ACTIVITY.* on counter 2).
    let p = plan("hsw", Method::Tma, &Selection::default(), true).unwrap();
    let restricted: Vec<_> = p.events.iter().enumerate().filter(|(_, e)| matches!(&e.placement, Placement::General(c) if c.len() == 1)).collect();
    assert!(!restricted.is_empty(), "{}", p.describe());
    for (i, e) in restricted {
        let Placement::General(c) = &e.placement else { unreachable!() };
        let g = p.groups.iter().find(|g| g.events.contains(&i)).unwrap();
        let k = g.events.iter().position(|&x| x == i).unwrap();
        assert_eq!(g.counters[k], Counter::General(c[0]), "{}", e.name);
    }
}

#[test]
fn zen3_metric_events_pack() {
    // zen3 has no pipeline metrics: pack every core event of its table instead.
    let e = MetricEngine::for_uarch("zen3").unwrap();
    let r = Resolver { hw: None, vendor: Vendor::Amd, smt: false, core_pmu: "cpu" };
    let events: Vec<_> = e
        .table()
        .events
        .iter()
        .map(|d| e.spec(&bottlenose_metrics::NameRef::plain(&d.name)))
        .filter_map(|s| match r.resolve(&s) {
            Resolved::Event(ev) => Some(ev),
            Resolved::Skipped { .. } => None,
        })
        .filter(|ev| ev.pmu == "cpu")
        .collect();
    assert!(events.len() > 12, "{}", events.len());
    let l = PmuLimits::for_uarch("zen3", false);
    let groups = schedule(&events, &l).unwrap();
    check(&groups, &events, &l).unwrap();
    assert!(groups.iter().all(|g| g.events.len() <= 6) && groups.len() >= 3);
    // And the CLI-level plan says why there is no tree.
    let err = plan("zen3", Method::Tma, &Selection::default(), false).err().unwrap().to_string();
    assert!(err.contains("zen3 table has no Top-Down tree"), "{err}");
}

#[test]
fn unknown_nodes_and_node_selection() {
    let sel = Selection { level: Some(1), nodes: vec!["L1_Bound".into()] };
    let p = plan("skl", Method::Tma, &sel, false).unwrap();
    let m = sel.metrics(&p.engine).unwrap();
    for n in ["tma_l1_bound", "tma_memory_bound", "tma_backend_bound", "tma_frontend_bound"] {
        assert!(m.iter().any(|x| x == n), "{n} in {m:?}");
    }
    let err = plan("skl", Method::Tma, &Selection { level: Some(1), nodes: vec!["Nope".into()] }, false).err().unwrap().to_string();
    assert!(err.starts_with("unknown node 'Nope' in the skl tree"), "{err}");
}
