//! Agreement between two passes of a calibration. On a shared host a neighbour can
//! slow a whole bench, repetitions included (a thrashed L3, a busy SMT sibling that
//! halves the ROB), so one pass cannot tell such a value from the truth; a second pass
//! at another moment can. A value is kept only where the passes agree.

use crate::{Calibration, MeasuredForm};

/// Relative disagreement of two values, with an absolute floor for values near zero
/// (a bubble of 0.00 against 0.04 cycles agrees).
fn disagree(a: f64, b: f64, tolerance: f64) -> bool {
    let diff = (a - b).abs();
    diff > 0.1 && diff > tolerance * a.abs().max(b.abs())
}

/// `first` with every value that `second` does not confirm (missing there, or further
/// apart than `tolerance`, a fraction) marked unstable, saying both values.
pub fn combine_passes(mut first: Calibration, second: &Calibration, tolerance: f64) -> Calibration {
    for e in &mut first.entries {
        match second.get(&e.key) {
            Some(o) if !disagree(e.value, o.value, tolerance) => {
                e.unstable |= o.unstable;
                e.spread_pct = e.spread_pct.max(o.spread_pct).max(100.0 * (e.value - o.value).abs() / e.value.abs().max(1e-9));
            }
            Some(o) => {
                e.unstable = true;
                e.method = format!("{}; passes disagree: {:.2} then {:.2}", e.method, e.value, o.value);
            }
            None => {
                e.unstable = true;
                e.method = format!("{}; not measured in the second pass", e.method);
            }
        }
    }
    keep_pairs_together(&mut first);
    first.settle_dependencies();
    for f in &mut first.forms {
        let o = second.forms.iter().find(|x| x.form == f.form);
        confirm_form(f, o, tolerance);
    }
    first.seconds += second.seconds;
    first.notes.extend(second.notes.iter().filter(|n| !first.notes.contains(n)).cloned().collect::<Vec<_>>());
    first
}

/// DRAM latency and the page walk add up to what a program with 4 KiB pages sees: one
/// written without the other would pair a measurement with the base model's guess.
fn keep_pairs_together(cal: &mut Calibration) {
    let is_walk = |k: &str| k.starts_with("tlb.") && k.ends_with(".miss_latency");
    let shaky = cal.entries.iter().any(|e| e.unstable && (e.key == "memory.dram_latency" || is_walk(&e.key)));
    if shaky {
        for e in cal.entries.iter_mut().filter(|e| !e.unstable && (e.key == "memory.dram_latency" || is_walk(&e.key))) {
            e.unstable = true;
            e.method.push_str("; left out with its pair (DRAM latency and page walk), which was unstable");
        }
    }
}

fn confirm_form(f: &mut MeasuredForm, o: Option<&MeasuredForm>, tolerance: f64) {
    let Some(o) = o else {
        f.unstable |= f.latency.is_some() || f.rthroughput.is_some();
        return;
    };
    f.unstable |= o.unstable;
    for (what, a, b) in [("latency", f.latency, o.latency), ("throughput", f.rthroughput, o.rthroughput)] {
        match (a, b) {
            (Some(a), Some(b)) if disagree(a, b, tolerance) => {
                f.unstable = true;
                f.method = format!("{}; passes disagree on {what}: {a:.2} then {b:.2}", f.method);
            }
            (Some(_), None) => f.unstable = true,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Measured;

    fn cal(values: &[(&str, f64)]) -> Calibration {
        Calibration {
            entries: values
                .iter()
                .map(|&(key, value)| Measured { key: key.into(), value, base: None, method: "m".into(), spread_pct: 0.5, unstable: false, depends_on: vec![] })
                .collect(),
            ..Calibration::default()
        }
    }

    #[test]
    fn only_confirmed_values_stay_stable() {
        let a = cal(&[("core.rob", 318.0), ("cache.L3.latency", 49.0), ("branch.taken_bubble", 0.0), ("memory.dram_latency", 600.0)]);
        // a thrashed L3 in the second pass, a bubble within the absolute floor, DRAM missing
        let b = cal(&[("core.rob", 320.0), ("cache.L3.latency", 123.0), ("branch.taken_bubble", 0.05)]);
        let c = combine_passes(a, &b, 0.05);
        let get = |k: &str| c.get(k).unwrap();
        assert!(!get("core.rob").unstable);
        assert_eq!(get("core.rob").value, 318.0);
        // the spread reports how far apart the passes were (2/318)
        assert!((get("core.rob").spread_pct - 100.0 * 2.0 / 318.0).abs() < 1e-9);
        assert!(get("cache.L3.latency").unstable);
        assert!(get("cache.L3.latency").method.contains("49.00 then 123.00"));
        assert!(!get("branch.taken_bubble").unstable);
        assert!(get("memory.dram_latency").unstable);
    }

    #[test]
    fn dram_latency_and_page_walk_go_together() {
        let a = cal(&[("memory.dram_latency", 600.0), ("tlb.STLB.miss_latency", 40.0)]);
        let b = cal(&[("memory.dram_latency", 603.0), ("tlb.STLB.miss_latency", 90.0)]);
        let c = combine_passes(a, &b, 0.05);
        assert!(c.get("tlb.STLB.miss_latency").unwrap().unstable);
        assert!(c.get("memory.dram_latency").unwrap().unstable, "DRAM agreed, but its pair did not");
    }

    #[test]
    fn forms_need_both_passes() {
        let form = |lat: f64, rt: f64| MeasuredForm {
            form: "vaddpd ymm, ymm, ymm".into(),
            latency: Some(lat),
            rthroughput: Some(rt),
            base_latency: None,
            base_rthroughput: None,
            method: "m".into(),
            unstable: false,
        };
        let mut a = Calibration { forms: vec![form(3.0, 0.5)], ..Calibration::default() };
        let b = Calibration { forms: vec![form(3.02, 1.0)], ..Calibration::default() };
        a = combine_passes(a, &b, 0.05);
        assert!(a.forms[0].unstable, "throughput 0.5 vs 1.0 must not be written");
        let c = combine_passes(Calibration { forms: vec![form(3.0, 0.5)], ..Calibration::default() }, &Calibration { forms: vec![form(3.02, 0.51)], ..Calibration::default() }, 0.05);
        assert!(!c.forms[0].unstable);
    }
}
