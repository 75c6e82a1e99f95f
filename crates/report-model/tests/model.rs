//! The few computations the report types carry with them: expected values are
//! worked out by hand in each test.

use bottlenose_report_model::verdict::{Gain, GainSource};
use bottlenose_report_model::{CpiStacks, Interval, Roi, CPI_COMPONENTS};

#[test]
fn a_component_group_sums_its_members_and_nothing_that_only_shares_the_prefix() {
    // components in CPI_COMPONENTS order: base 10, icache 1, bpred 2,
    // dcache_l2 3, dcache_l3 4, dcache_dram 5, dcache_stores 6, the rest 0
    let mut dispatch = [0.0; 13];
    for (i, v) in [10.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0].iter().enumerate() {
        dispatch[i] = *v;
    }
    let s = CpiStacks::new(31.0, 20, 4.0, &[dispatch, [0.0; 13], [0.0; 13]]);
    assert_eq!(CPI_COMPONENTS[3], "dcache_l2");
    // dcache = dcache_l2 + dcache_l3 + dcache_dram + dcache_stores = 3 + 4 + 5 + 6
    assert_eq!(s.component("dispatch", "dcache"), 18.0);
    assert_eq!(s.component("dispatch", "dcache_l3"), 4.0);
    // "dcache_l" is no component and no group (no `dcache_l_...`)
    assert_eq!(s.component("dispatch", "dcache_l"), 0.0);
    assert_eq!(s.component("issue", "dcache"), 0.0);
    assert_eq!(s.component("fetch", "base"), 0.0, "no such stage");
}

#[test]
fn a_gain_is_a_share_of_the_cycles_and_the_speedup_it_buys() {
    // saving half the cycles doubles the speed: 1 / (1 - 0.5) - 1 = 1
    let g = Gain::new(0.5, GainSource::Sensitivity, String::new());
    assert!((g.speedup - 1.0).abs() < 1e-12);
    // a share beyond the cycles is cut to 99.9 % (speedup 1 / 0.001 - 1 = 999)
    let g = Gain::new(1.7, GainSource::TopDown, String::new());
    assert_eq!(g.share, 0.999);
    assert!((g.speedup - 999.0).abs() < 1e-6);
    assert_eq!(Gain::new(-0.2, GainSource::Counters, String::new()).share, 0.0);
}

#[test]
fn an_interval_knows_whether_it_has_a_width() {
    let i = Interval { value: 200.0, half_width: 10.0 };
    assert_eq!(i.relative(), 0.05);
    assert!(i.contains(190.0) && i.contains(210.0) && !i.contains(210.5));
    assert!(!Interval::unknown(3.0).known());
    assert!(Interval::exact(3.0).known());
    assert_eq!(Interval { value: 0.0, half_width: 1.0 }.relative(), 0.0);
}

#[test]
fn a_region_of_interest_shows_its_addresses_in_hex() {
    let roi = Roi::Function { name: "dot".into(), dso: None, start: 0x1380, end: 0x13b0 };
    assert_eq!(roi.describe(), "function dot (0x1380) and its callees");
    let json = serde_json::to_value(&roi).unwrap();
    // hex digits without 0x, as every address of the reports
    assert_eq!(json["kind"], "function");
    assert_eq!(json["start"], "1380");
    assert_eq!(json["end"], "13b0");
    assert!(json.get("dso").is_none(), "an absent file is left out");
}
