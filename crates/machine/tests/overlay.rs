//! Calibration overlays over built-in machines: settings reach the parameters,
//! forms get the measured timing, and bad overlays are one-line errors.

use bottlenose_machine::{load_builtin, Machine, Overlay};

const HEADER: &str = r#"
[calibration]
base = "zen4"
cpu = "Test CPU"
signature = "AuthenticAMD-25-17-1"
date = "2026-11-24"
tool = "test"
"#;

fn apply(body: &str) -> Result<Machine, String> {
    let text = format!("{HEADER}{body}");
    Overlay::parse(&text, "o.toml").and_then(|o| o.apply("o.toml", &text)).map_err(|e| e.to_string())
}

#[test]
fn settings_reach_the_parameters() {
    let m = apply(
        r#"
[[set]]
key = "core.rob"
value = 100
note = "n"

[[set]]
key = "cache.L2.latency"
value = 17.5
note = "n"

[[set]]
key = "branch.mispredict_penalty"
value = 11
note = "n"
"#,
    )
    .unwrap();
    assert_eq!(m.params.core.rob, 100);
    let l2 = m.params.caches.iter().find(|c| c.name == "L2").unwrap();
    assert_eq!(l2.latency, 17.5);
    assert_eq!(m.params.branch.mispredict_penalty, 11.0);
    // untouched values keep the base's
    let base = load_builtin("zen4").unwrap().unwrap();
    assert_eq!(m.params.core.dispatch_width, base.params.core.dispatch_width);
    assert_eq!(m.param("cache.L2.latency"), Some(17.5));
    assert_eq!(m.param("core.rob"), Some(100.0));
    assert_eq!(base.param("cache.L1D.latency"), Some(4.0));
    assert_eq!(base.param("core.nonsense"), None);
    assert!(m.calibration.as_ref().is_some_and(|c| c.signature == "AuthenticAMD-25-17-1"));
    assert!(m.provenance.iter().any(|p| p.starts_with("core.rob = 100: n")), "{:?}", m.provenance);
}

#[test]
fn true_false_parameters_are_set_by_1_and_0() {
    // zen4 renames memory; a host that does not turns it off
    let m = apply("[[set]]\nkey = \"memory.memory_renaming\"\nvalue = 0\nnote = \"n\"\n").unwrap();
    assert!(!m.params.memory.memory_renaming);
    assert_eq!(m.param("memory.memory_renaming"), Some(0.0));
    // skylake's file leaves it at its default (false): the overlay adds it, with the latency
    let text = HEADER.replace("base = \"zen4\"", "base = \"skylake\"")
        + "[[set]]\nkey = \"memory.memory_renaming\"\nvalue = 1\nnote = \"n\"\n\n[[set]]\nkey = \"memory.renamed_forward_latency\"\nvalue = 0.5\nnote = \"n\"\n";
    let m = Overlay::parse(&text, "o.toml").and_then(|o| o.apply("o.toml", &text)).unwrap();
    assert!(m.params.memory.memory_renaming);
    assert_eq!(m.params.memory.renamed_forward_latency, 0.5);
    let e = apply("[[set]]\nkey = \"memory.memory_renaming\"\nvalue = 0.5\nnote = \"n\"\n").unwrap_err();
    assert!(e.contains("memory.memory_renaming") && e.contains("1 or 0"), "{e}");
}

#[test]
fn a_form_gets_its_measured_latency_and_throughput() {
    let base = load_builtin("zen4").unwrap().unwrap();
    let key = "vaddpd ymm, ymm, ymm";
    let bound = |m: &Machine| {
        let f = m.form(key).unwrap();
        f.uses.iter().map(|&(g, n)| n / m.group_capacity(g)).fold(0.0, f64::max)
    };
    // Zen 4 runs vaddpd ymm on two FP pipes: one every half cycle.
    assert_eq!(bound(&base), 0.5);
    let m = apply(
        r#"
[[form]]
form = "vaddpd ymm, ymm, ymm"
latency = 5
rthroughput = 1.0
note = "n"
"#,
    )
    .unwrap();
    assert_eq!(m.form(key).unwrap().latency, 5.0);
    assert!((bound(&m) - 1.0).abs() < 1e-12, "{}", bound(&m));
    // the same ports as before, each used twice as long
    let groups = |m: &Machine| m.form(key).unwrap().uses.iter().map(|u| u.0).collect::<Vec<_>>();
    assert_eq!(groups(&m), groups(&base));
}

#[test]
fn a_form_on_nested_port_groups_gets_the_measured_throughput() {
    // skylake's `div r64`: 32 uops on p0156 (19), p05 (11), p5 and p6 (1 each), all of them
    // on the four ports 0, 1, 5, 6: 8 cycles each, as LLVM's table says
    let text = HEADER.replace("base = \"zen4\"", "base = \"skylake\"") + "[[form]]\nform = \"div r64\"\nrthroughput = 7\nnote = \"n\"\n";
    let base = load_builtin("skylake").unwrap().unwrap();
    let key = "div r64";
    assert_eq!(base.rthroughput_bound(&base.form(key).unwrap().uses), Some(8.0));
    let m = Overlay::parse(&text, "o.toml").and_then(|o| o.apply("o.toml", &text)).unwrap();
    let uses = &m.form(key).unwrap().uses;
    assert!((m.rthroughput_bound(uses).unwrap() - 7.0).abs() < 1e-9);
    // 7 cycles on four ports: 28 port-cycles in all (scaling p05 alone to 7 would give 40.7)
    let total: f64 = uses.iter().map(|u| u.1).sum();
    assert!((total - 28.0).abs() < 1e-9, "{uses:?}");
}

#[test]
fn overlays_round_trip_through_their_text() {
    let text = format!("{HEADER}\n[[set]]\nkey = \"core.rob\"\nvalue = 300\nbase = 320\nnote = \"measured\"\n");
    let o = Overlay::parse(&text, "o.toml").unwrap();
    let again = Overlay::parse(&o.to_toml(), "o2.toml").unwrap();
    assert_eq!(o, again);
    assert!(Overlay::is_overlay(&o.to_toml()));
    assert!(!Overlay::is_overlay(include_str!("../../../machines/zen4.toml")));
}

#[test]
fn bad_overlays_are_one_line_errors() {
    let cases = [
        ("[[set]]\nkey = \"core.robb\"\nvalue = 3\nnote = \"n\"\n", "o.toml:9: core.robb: "),
        ("[[set]]\nkey = \"cache.L9.latency\"\nvalue = 3\nnote = \"n\"\n", "no cache named 'L9'"),
        ("[[set]]\nkey = \"rob\"\nvalue = 3\nnote = \"n\"\n", "not a settable parameter"),
        // validation of the patched machine still applies
        ("[[set]]\nkey = \"core.rob\"\nvalue = 0\nnote = \"n\"\n", "core.rob: must be > 0"),
        ("[[set]]\nkey = \"core.rob\"\nvalue = nan\nnote = \"n\"\n", "finite"),
        ("[[form]]\nform = \"vaddpd ymm, ymm, ymm\"\nrthroughput = -1\nnote = \"n\"\n", "must be a finite number >= 0"),
        ("[[set]]\nkey = \"core.rob\"\nnote = \"n\"\n", "missing field `value`"),
    ];
    for (body, expected) in cases {
        let e = apply(body).unwrap_err();
        assert!(e.contains(expected), "{body}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let e = Overlay::parse("[calibration]\nbase = \"pentium\"\ncpu=\"c\"\nsignature=\"s\"\ndate=\"d\"\ntool=\"t\"\n", "x.toml")
        .and_then(|o| o.apply("x.toml", ""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("'pentium' is not a built-in machine"), "{e}");
}

#[test]
fn a_file_on_disk_is_recognized_as_an_overlay() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("host.toml");
    std::fs::write(&p, format!("{HEADER}\n[[set]]\nkey = \"memory.dram_latency\"\nvalue = 444\nnote = \"n\"\n")).unwrap();
    let m = Machine::resolve(p.to_str().unwrap()).unwrap();
    assert_eq!(m.name, "zen4");
    assert_eq!(m.params.memory.dram_latency, 444.0);
}

#[test]
fn string_figures_can_be_calibrated() {
    let m = apply(
        r#"
[[set]]
key = "strings.movs.startup"
value = 30
note = "n"

[[set]]
key = "strings.store_bytes_per_cycle"
value = 48
note = "n"

[[set]]
key = "strings.scas.cycles_per_element"
value = 1.5
note = "n"
"#,
    )
    .unwrap();
    assert_eq!(m.params.strings.movs.startup, 30.0);
    assert_eq!(m.params.strings.store_bytes_per_cycle, 48.0);
    assert_eq!(m.params.strings.scas.cycles_per_element, 1.5);
    assert_eq!(m.param("strings.movs.startup"), Some(30.0));
    // the other kinds keep the base's figures
    let base = load_builtin("zen4").unwrap().unwrap();
    assert_eq!(m.params.strings.stos, base.params.strings.stos);
    let bad = apply("[[set]]\nkey = \"strings.nosuch.startup\"\nvalue = 1\nnote = \"n\"\n").unwrap_err();
    assert!(bad.contains("strings.nosuch.startup"), "{bad}");
}

#[test]
fn the_btb_miss_penalty_is_a_machine_parameter_with_the_former_default() {
    // the value dynamic runs used before it moved into the machine file: 6 cycles,
    // stated in every shipped file that has a [branch] section, assumed by the one without
    assert_eq!(load_builtin("zen4").unwrap().unwrap().params.branch.btb_miss_penalty, 6.0);
    assert_eq!(load_builtin("gus-fig4").unwrap().unwrap().params.branch.btb_miss_penalty, 6.0);
    let m = apply(
        r#"
[[set]]
key = "branch.btb_miss_penalty"
value = 9
note = "n"
"#,
    )
    .unwrap();
    assert_eq!(m.params.branch.btb_miss_penalty, 9.0);
}
