//! The Top-Down nodes' intervals (`super::topdown`): worked by hand on four
//! windows of two phases, and covering the population's value as often as they
//! say on random-phase populations sampled as a run samples them.

use super::estimator::{Interval, Series, Z_99_7};
use super::schedule::{WindowSchedule, WindowStep};
use super::topdown::node_intervals;
use super::synthetic_tests::salted_noise as noise;
use bottlenose_report_model::accounting::TopDownNode;
use bottlenose_report_model::sampling::TopDownDerivation;
use bottlenose_views::{TopDownTally as T, WindowTally};

fn node(name: &str, value: Option<f64>, children: Vec<TopDownNode>) -> TopDownNode {
    TopDownNode { name: name.into(), value, unit: None, normalized: None, reason: None, flagged: true, children }
}

/// A window of `cycles` with frontend, backend gaps and load stalls, uop cycles.
fn window(cycles: f64, frontend: f64, backend: f64, load_stalls: f64, ops3: f64) -> WindowTally {
    let mut t = WindowTally { weight: 1.0, cycles, gaps: [0.0, 0.0, frontend, backend], ..Default::default() };
    t.topdown[T::LoadStalls as usize] = load_stalls;
    t.topdown[T::OpsAtLeast3 as usize] = ops3;
    t
}

/// The worked example's two window kinds, alternating, its tree and its cycles
/// (the test below works it by hand).
fn worked_example() -> ([WindowTally; 4], Vec<TopDownNode>, Interval) {
    let a = window(100.0, 20.0, 10.0, 30.0, 40.0);
    let b = window(300.0, 30.0, 120.0, 150.0, 30.0);
    let tree = vec![
        node("Frontend_Bound", Some(0.125), vec![]),
        node("Bad_Speculation", Some(0.0), vec![node("Branch_Mispredicts", None, vec![]), node("Machine_Clears", Some(0.0), vec![])]),
        node("Retiring", Some(0.55), vec![]),
        node("Backend_Bound", Some(0.325), vec![node("Memory_Bound", Some(0.45), vec![node("Vendor_Thing", Some(0.1), vec![]), node("Stores_Bound", Some(0.01), vec![])]), node("Core_Bound", Some(0.375), vec![])]),
    ];
    ([a, b, a, b], tree, Interval { value: 800.0, half_width: 40.0 })
}

/// Two windows of each phase: A (100 cycles: frontend gaps 20, backend 10, load
/// stalls 30, 40 cycles with ≥ 3 uops) and B (300: 30, 120, 150, 30). Sums:
/// cycles 800, gaps 360, frontend 100, load stalls 360. The run's cycles
/// 800 ± 40 (5 %); what the gaps leave, 440, retired: Retiring 0.55.
///
/// One stratum of 4 windows (unbounded population): a ratio's variance is
/// `s²(r) / (n · b̄²)`, `r_i = a_i − R b_i` (z = 1 here).
/// * Frontend_Bound: `Q = 100 / 360`; `r = ±(20 − 30 Q) = ±35/3`, `s² = 4 (35/3)² / 3
///   = 4900/27`, `b̄ = 90`: `h_Q = sqrt(4900/27 / (4 · 8100)) = 0.0748417`.
///   The value `(1 − 0.55) Q = 0.125`; half-width `0.45 h_Q + 0.55 · Q · 0.05 = 0.0413177`.
/// * Memory_Bound: `R = 360 / 800 = 0.45`; `r = ±15`, `s² = 300`, `b̄ = 200`:
///   `sqrt(300 / (4 · 40000)) = 0.0433013`.
/// * Core_Bound: cycles − ≥3 uops − load stalls = 30 and 120: `R = 0.375`, `r = ±7.5`,
///   `s² = 75`: `sqrt(75 / 160000) = 0.0216506`.
/// * Stores_Bound at 1 % though no window saw a store stall (the views' exact
///   prefix did): `R = 0 ± 0`, half-width `|0.01 − 0| · 0.05 = 0.0005`.
/// * Retiring: exact slots over the cycles: `0.55 · 0.05 = 0.0275`.
/// * Machine_Clears: 0 ± 0. Branch_Mispredicts without a value, and a node no
///   derivation knows: left out.
#[test]
fn two_phases_worked_by_hand() {
    let (windows, tree, cycles) = worked_example();
    let out = node_intervals(&windows, &tree, &cycles, 0.0, 1.0);
    let paths: Vec<&str> = out.iter().map(|n| n.path.as_str()).collect();
    assert_eq!(
        paths,
        ["Frontend_Bound", "Bad_Speculation", "Bad_Speculation.Machine_Clears", "Retiring", "Backend_Bound", "Backend_Bound.Memory_Bound", "Backend_Bound.Memory_Bound.Stores_Bound", "Backend_Bound.Core_Bound"]
    );
    let get = |p: &str| out.iter().find(|n| n.path == p).unwrap();
    let close = |x: f64, y: f64| (x - y).abs() < 1e-6;
    let fe = get("Frontend_Bound");
    assert_eq!((fe.level, fe.derivation), (1, TopDownDerivation::DispatchGapShare));
    assert!(fe.value.value == 0.125 && close(fe.value.half_width, 0.0413177), "{fe:?}");
    let mem = get("Backend_Bound.Memory_Bound");
    assert_eq!((mem.level, mem.derivation), (2, TopDownDerivation::CycleShare));
    assert!(mem.value.value == 0.45 && close(mem.value.half_width, 0.0433013), "{mem:?}");
    assert!(close(get("Backend_Bound.Core_Bound").value.half_width, 0.0216506));
    // stores stalls seen only before the windows (the value 1 %, the windows' ratio 0):
    // no spread, only the cycles' part |V − R| h_C / C = 0.01 · 0.05
    assert!(close(get("Backend_Bound.Memory_Bound.Stores_Bound").value.half_width, 0.0005));
    let ret = get("Retiring");
    assert_eq!(ret.derivation, TopDownDerivation::ExactOverCycles);
    assert!(close(ret.value.half_width, 0.0275));
    let mc = get("Bad_Speculation.Machine_Clears");
    assert_eq!((mc.value, mc.derivation), (Interval { value: 0.0, half_width: 0.0 }, TopDownDerivation::Exact));
    // no gaps of the kind on any window: the ratio is 0 and so is its spread; what is left is the cycles' part (Q = 0)
    assert_eq!(get("Bad_Speculation").value.half_width, 0.0);
    // one window has no spread: the window-based nodes have no interval, the exact ones keep theirs
    let one = node_intervals(&windows[..1], &tree, &cycles, 0.0, 1.0);
    assert!(!one.iter().find(|n| n.path == "Backend_Bound.Memory_Bound").unwrap().value.known());
    assert!(close(one.iter().find(|n| n.path == "Retiring").unwrap().value.half_width, 0.0275));
}

/// One batch of a population with two phases alternating (37 batches of A, 53
/// of B, at an offset drawn per seed): A at 1000 cycles, frontend 25 %, backend
/// 15 %, load stalls 10 % (2 % past L1), 50 % of cycles with ≥ 3 uops; B at
/// 3000, 5 %, 60 %, 50 % (40 %), 5 %; every count ±20 % of noise, the cycles ±10 %.
/// A start-up phase S before them (`start_up`): 5000 cycles, 40 %, 30 %, 20 %
/// (10 %), 10 %, and the only store stalls (5 %). What the gaps leave is retired.
fn batch(b: u64, seed: u64, start_up: bool) -> (WindowTally, f64) {
    let a = (b + seed * 7919) % 90 < 37;
    let n = |k: u64| 1.0 + 0.2 * noise(b, seed * 16 + k);
    let pick = |s: f64, x: f64, y: f64| if start_up { s } else if a { x } else { y };
    let cycles = pick(5000.0, 1000.0, 3000.0) * (1.0 + 0.1 * noise(b, seed * 16 + 15));
    let share = |s: f64, x: f64, y: f64, k: u64| cycles * pick(s, x, y) * n(k);
    let mut t = window(cycles, share(0.4, 0.25, 0.05, 1), share(0.3, 0.15, 0.6, 2), share(0.2, 0.1, 0.5, 3), share(0.1, 0.5, 0.05, 4));
    t.topdown[T::LoadStallsL1Miss as usize] = t.topdown[T::LoadStalls as usize] * pick(0.5, 0.2, 0.8);
    t.topdown[T::StoreStalls as usize] = share(0.05, 0.0, 0.0, 5);
    let retired = cycles - t.gaps.iter().sum::<f64>();
    (t, retired)
}

/// Over 100 random-phase populations sampled one window in 16 (the run's
/// schedule, a random offset in each period), without and with a start-up
/// counted exactly first: each node's tree value, as the views compute it
/// (`super::topdown`'s docs: the prefix's counts, the windows' shares of the
/// rest, gap shares fitted into what the exact retired slots leave of the
/// estimated cycles), and its 99.7 % interval cover the population's share in
/// at least 97 — Stores_Bound too, whose stalls only the prefix saw.
#[test]
fn the_intervals_cover_the_population_as_often_as_they_say() {
    const BATCH: u64 = 4096;
    let batches = 90 * 300;
    let nodes = [
        "Frontend_Bound",
        "Retiring",
        "Backend_Bound",
        "Backend_Bound.Memory_Bound",
        "Backend_Bound.Memory_Bound.L1_Bound",
        "Backend_Bound.Memory_Bound.Stores_Bound",
        "Backend_Bound.Core_Bound",
    ];
    for prefix in [0, 3000] {
        let mut covered = [0; 7];
        let mut widest = [0.0f64; 7];
        for seed in 0..100 {
            let population: Vec<(WindowTally, f64)> = (0..batches).map(|b| batch(b, seed, b < prefix)).collect();
            let load = |t: &WindowTally| t.topdown[T::LoadStalls as usize];
            let stores = |t: &WindowTally| t.topdown[T::StoreStalls as usize];
            let l1 = |t: &WindowTally| load(t) - t.topdown[T::LoadStallsL1Miss as usize];
            let core = |t: &WindowTally| t.cycles - t.topdown[T::OpsAtLeast3 as usize] - load(t) - stores(t);
            let counts: [&dyn Fn(&WindowTally) -> f64; 5] = [&|t| t.gaps[2], &|t| t.gaps[3], &|t| load(t) + stores(t), &l1, &core];
            let sum = |p: &[(WindowTally, f64)], f: &dyn Fn(&WindowTally) -> f64| p.iter().map(|x| f(&x.0)).sum::<f64>();
            let total = sum(&population, &|t| t.cycles);
            let base: f64 = population.iter().map(|p| p.1).sum();
            let truth = [
                sum(&population, counts[0]) / total,
                base / total,
                sum(&population, counts[1]) / total,
                sum(&population, counts[2]) / total,
                sum(&population, counts[3]) / total,
                sum(&population, &stores) / total,
                sum(&population, counts[4]) / total,
            ];
            let (head, rest) = population.split_at(prefix as usize);
            let mut s = WindowSchedule::new(1, 1, 16, seed, BATCH, 0);
            let mut windows = Vec::new();
            for p in rest {
                let step = s.next();
                if step == WindowStep::Unit {
                    windows.push(p.0);
                }
                s.record(BATCH, step == WindowStep::Unit);
            }
            let unit_cycles: Vec<f64> = windows.iter().map(|t| t.cycles).collect();
            let prefix_cycles = sum(head, &|t| t.cycles);
            let cycles = s.design().total_interval(Series { prefix: prefix_cycles, units: &unit_cycles }, Z_99_7);
            // the tree's values, as the views scale the windows to the run
            let c = cycles.value;
            let w = |f: &dyn Fn(&WindowTally) -> f64| windows.iter().map(f).sum::<f64>();
            let retiring = base / c;
            let rest_gaps = c - base - sum(head, &|t| t.gaps.iter().sum());
            let gap_share = |f: &dyn Fn(&WindowTally) -> f64| (sum(head, f) + rest_gaps * w(f) / w(&|t| t.gaps.iter().sum())) / c;
            let cycle_share = |f: &dyn Fn(&WindowTally) -> f64| (sum(head, f) + (c - prefix_cycles) * w(f) / w(&|t| t.cycles)) / c;
            let tree = vec![
                node("Frontend_Bound", Some(gap_share(counts[0])), vec![]),
                node("Retiring", Some(retiring), vec![]),
                node(
                    "Backend_Bound",
                    Some(gap_share(counts[1])),
                    vec![
                        node(
                            "Memory_Bound",
                            Some(cycle_share(counts[2])),
                            vec![node("L1_Bound", Some(cycle_share(counts[3])), vec![]), node("Stores_Bound", Some(cycle_share(&stores)), vec![])],
                        ),
                        node("Core_Bound", Some(cycle_share(counts[4])), vec![]),
                    ],
                ),
            ];
            let out = node_intervals(&windows, &tree, &cycles, 0.0, Z_99_7);
            for (k, path) in nodes.iter().enumerate() {
                let iv = out.iter().find(|n| n.path == *path).unwrap().value;
                covered[k] += iv.contains(truth[k]) as u32;
                widest[k] = widest[k].max(iv.half_width);
            }
        }
        for (k, path) in nodes.iter().enumerate() {
            // a 99.7 % interval misses about 0.3 times in 100; 3 misses are already unlikely
            assert!(covered[k] >= 97, "prefix {prefix}, {path}: covered {} of 100", covered[k]);
            // and not by being wide: ~1700 windows of two phases give a few points at most
            assert!(widest[k] < 0.03, "prefix {prefix}, {path}: half-width up to {}", widest[k]);
        }
    }
}

/// Every node of the simulated tree (the `yasin2014` table, as the report builds
/// it) has a derivation: a node added to the table without one would report no
/// interval, and this fails.
#[test]
fn every_node_of_the_simulated_tree_has_a_derivation() {
    let engine = crate::accounting::model_engine(4.0);
    let labels: Vec<String> = engine.metrics().iter().filter(|m| m.tma).map(|m| m.label.clone().unwrap_or_else(|| m.name.clone())).collect();
    assert!(labels.len() >= 25, "{labels:?}");
    let tree: Vec<TopDownNode> = labels.iter().map(|l| node(l, Some(0.1), vec![])).collect();
    let windows = [window(100.0, 20.0, 10.0, 30.0, 40.0), window(300.0, 30.0, 120.0, 150.0, 30.0)];
    let out = node_intervals(&windows, &tree, &Interval { value: 800.0, half_width: 40.0 }, 0.0, Z_99_7);
    let missing: Vec<&String> = labels.iter().filter(|l| !out.iter().any(|n| n.path == **l)).collect();
    assert!(missing.is_empty(), "no derivation for {missing:?}");
}

/// Priced code (2 % of the cycles here) widens every share the windows stand
/// in for by `2 · 0.02 · max(V, 1 − V)`: the worked example's Frontend_Bound
/// (V = 0.125) by 0.035, Memory_Bound (0.45) by 0.022; Retiring, exact counts
/// over the cycles, and Machine_Clears keep theirs.
#[test]
fn priced_code_widens_the_windows_shares() {
    let (windows, tree, cycles) = worked_example();
    let out = node_intervals(&windows, &tree, &cycles, 0.02, 1.0);
    let get = |p: &str| out.iter().find(|n| n.path == p).unwrap().value.half_width;
    let close = |x: f64, y: f64| (x - y).abs() < 1e-6;
    assert!(close(get("Frontend_Bound"), 0.0413177 + 0.035), "{}", get("Frontend_Bound"));
    assert!(close(get("Backend_Bound.Memory_Bound"), 0.0433013 + 0.022), "{}", get("Backend_Bound.Memory_Bound"));
    assert!(close(get("Retiring"), 0.0275));
    assert_eq!(get("Bad_Speculation.Machine_Clears"), 0.0);
    assert_eq!(super::topdown::unmeasured_share(Some(16.0), &cycles), 0.02);
    assert_eq!(super::topdown::unmeasured_share(None, &cycles), 0.0);
}
