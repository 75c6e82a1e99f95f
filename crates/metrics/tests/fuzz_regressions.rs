//! Inputs that crashed the fuzz targets (`fuzz/`, `scripts/fuzz.sh`: the
//! `metric_expr` and `counters_import` targets), minimized: each must now
//! give a clean result or a clean one-line error.

use bottlenose_metrics::expr::{self, Expr};
use bottlenose_metrics::Counts;

fn round_trip(src: &str) -> Expr {
    let e = expr::parse(src).unwrap_or_else(|err| panic!("{src:?}: {err}"));
    let printed = e.to_string();
    let again =
        expr::parse(&printed).unwrap_or_else(|err| panic!("{src:?} printed as {printed:?}: {err}"));
    assert_eq!(again, e, "{src:?} printed as {printed:?}");
    e
}

/// metric_expr, counters_import: an empty modifier in perf's `@...@` form
/// (`@x:@`, or `cpu/x,,/` in a perf stat file) panicked in `split_at(1)`.
#[test]
fn empty_modifier_is_dropped() {
    let Expr::Name(n) = round_trip("@x:@") else {
        panic!()
    };
    assert_eq!(n.key, "x");
    let mut counts = Counts::new();
    counts.set("cpu@x:@", 1.0);
    assert_eq!(counts.get_str("x"), Some(1.0));
}

/// metric_expr: a modifier starting with a multi-byte character panicked
/// (`split_at(1)` inside the character).
#[test]
fn modifier_starting_with_a_multibyte_character() {
    let Expr::Name(n) = round_trip("@x:\u{7b6}y@") else {
        panic!()
    };
    assert_eq!(n.key, "x:\u{7b6}y");
}

/// metric_expr (an out-of-memory report): a `\` at the very end made the
/// lexer read an empty name forever, pushing tokens until memory ran out.
#[test]
fn trailing_backslash_is_an_error() {
    for src in ["\\", "a + b\\", "tma_l1_bound - tma_lo\\bound * x\\"] {
        let err = expr::parse(src).unwrap_err();
        assert_eq!(err.pos, src.len() - 1, "{src}");
        assert!(err.msg.contains("escapes nothing"), "{err}");
    }
    // An event name in an imported file goes through the same lexer.
    let mut counts = Counts::new();
    counts.set("cycles\\", 1.0);
    assert_eq!(counts.len(), 1);
}

/// Deep nesting used to overflow the stack (parser, printer, evaluator and
/// drop are recursive); a thousand `(` were enough on a test thread.
#[test]
fn deep_nesting_is_an_error() {
    for src in [
        format!("{}1{}", "(".repeat(1000), ")".repeat(1000)),
        format!("{}1", "-".repeat(1000)),
        format!("{}1", "+".repeat(1000)),
        format!("{}x", "!".repeat(1000)),
        format!("x{}", " + x".repeat(2000)),
        format!("{}0", "1 if 0 else ".repeat(1000)),
        format!("x{}", " + x".repeat(100_000)),
    ] {
        let err = expr::parse(&src).unwrap_err();
        assert!(
            err.msg.contains("too deeply") || err.msg.contains("too long"),
            "{err}"
        );
    }
    // Real formulas stay well inside the limits.
    round_trip(&format!("{}1{}", "(".repeat(40), ")".repeat(40)));
    round_trip(&format!("x{}", " + x".repeat(200)));
}

/// metric_expr: `parse(print(e)) == e` broke for names printed inside
/// perf's `pmu@...@` form (they were quoted there), for names holding `"`,
/// for modifiers the `:mod` syntax cannot carry, for literals too large for
/// f64, and for `strcmp_cpuid_str` text with a `)`.
#[test]
fn printing_round_trips() {
    let Expr::Binary(_, _, rhs) = round_trip(
        "cpu@de_no_dispatch_per_slot.no_ops_from_frontend\\,cmask\\=0x6@ / (6 * cpu_core@CP\u{15}_CLK_UNHALTED.THREAD@)",
    ) else {
        panic!()
    };
    let Expr::Binary(_, _, name) = *rhs else {
        panic!()
    };
    let Expr::Name(n) = *name else { panic!() };
    assert_eq!(n.name, "CP\u{15}_CLK_UNHALTED.THREAD");
    assert_eq!(n.pmu.as_deref(), Some("cpu_core"));
    for src in [
        "cpu_core@INST_RETIRED.ANY@",
        "cpu_core@a\\@b:c1@",
        "a\\ b@x@",
        "x\\\"y + 1",
        "@x\\\"y@",
        "@x\\,a b@",
        "@x,a:b@",
        "\"\":c1",
        "1e999 - -1e999",
        "strcmp_cpuid_str(\"a)\")",
        "strcmp_cpuid_str(a\"b\"c)",
        "strcmp_cpuid_str()",
        "strcmp_cpuid_str( 0x410fd493 )",
    ] {
        round_trip(src);
    }
    assert_eq!(
        expr::parse("cpu_core@INST_RETIRED.ANY@")
            .unwrap()
            .to_string(),
        "cpu_core@INST_RETIRED.ANY@"
    );
    assert_eq!(
        expr::parse("ICACHE_16B.IFDATA_STALL:e1:c1")
            .unwrap()
            .to_string(),
        "ICACHE_16B.IFDATA_STALL:c1:e1"
    );
}

/// metric_expr (second campaign): a `#constant` whose name holds an escaped
/// backslash (`#zz\\\6`: `\\` keeps a `\`, `\6` a `6`) was printed without
/// escapes (`#zz\6`), which reads back as `zz6`.
#[test]
fn constant_with_an_escaped_backslash() {
    assert_eq!(round_trip(r"#zz\\\6"), Expr::Const(r"zz\6".to_string()));
    assert_eq!(expr::parse(r"#zz\\\6").unwrap().to_string(), r"#zz\\6");
    // any character a constant name cannot hold comes back escaped
    assert_eq!(round_trip(r"#a\ b\-c\@"), Expr::Const("a b-c@".to_string()));
}
