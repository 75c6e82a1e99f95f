//! Numeric arguments that would mislead or hang are refused with a one-line
//! error naming the bad value (issue 16): accelerations and weights outside
//! 0.1..=100 (zero capacity made the model wait forever; NaN gave an IPC of
//! 4.8 on a 4-wide core), zero iterations, instruction limits or worker
//! threads (silently taken as one).
mod common;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs bottlenose and fails the test if it has not ended after `limit`.
fn bn_within(args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
        .env("BOTTLENOSE_MACHINE", "skylake")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run bottlenose");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("bottlenose {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Failure with an error line containing every needle, no panic. Argument
/// errors from clap add a "For more information" hint after the error line.
fn refused(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "accepted; stderr: {err}");
    assert_ne!(out.status.code(), Some(101), "panicked: {err}");
    let first = err.lines().next().unwrap_or("");
    assert!(first.starts_with("error: "), "{err}");
    for n in needles {
        assert!(first.contains(n), "'{first}' does not mention '{n}'");
    }
    assert!(err.lines().filter(|l| !l.trim().is_empty()).all(|l| l == first || l.starts_with("For more information")), "{err}");
}

const JACOBI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/jacobi.s");

#[test]
fn accelerations_outside_the_weight_range_are_refused_before_the_program_runs() {
    let t = Duration::from_secs(20);
    for (spec, shown) in [("p23=0", "bad weight 0"), ("latency=-1", "bad weight -1"), ("latency=inf", "bad weight inf"), ("latency=NaN", "bad weight NaN"), ("frontend=1000", "bad weight 1000"), ("p23=0.01", "bad weight 0.01")] {
        refused(&bn_within(&["run", "--accelerate", spec, "--", "/bin/true"], t), &[spec, shown]);
    }
    refused(&bn_within(&["run", "--accelerate", "p23", "--", "/bin/true"], t), &["'p23'", "RESOURCE=WEIGHT"]);
    refused(&bn_within(&["run", "--accelerate", "p23=fast", "--", "/bin/true"], t), &["'p23=fast'", "not a number"]);
    refused(&bn_within(&["run", "--accelerate", "=2", "--", "/bin/true"], t), &["'=2'", "no resource"]);
    refused(&bn_within(&["run", "--accelerate", "p23=2", "--accelerate", "p23=1.5", "--", "/bin/true"], t), &["p23 twice"]);
    refused(&bn_within(&["run", "--accelerate", "p99=2", "--", "/bin/true"], t), &["unknown resource 'p99'"]);
    // a resource list is checked with or without a sweep, as `analyze` checks it
    refused(&bn_within(&["run", "--no-sensitivity", "--resources", "p99", "--", "/bin/true"], t), &["unknown resource 'p99'"]);
    refused(&bn_within(&["run", "--no-sensitivity", "--combine", "p0,p99", "--", "/bin/true"], t), &["unknown resource 'p99'"]);
}

#[test]
fn sensitivity_weights_follow_the_same_rule() {
    let t = Duration::from_secs(20);
    for w in ["0", "-1", "NaN", "inf", "1000"] {
        refused(&bn_within(&["analyze", JACOBI, "--weights", &format!("1.1,{w}")], t), &[&format!("bad weight {w}")]);
        refused(&bn_within(&["run", &format!("--weights={w}"), "--", "/bin/true"], t), &[&format!("bad weight {w}")]);
    }
    // the ends of the range are weights
    let ok = bn_within(&["analyze", JACOBI, "--weights", "0.1,100", "--resources", "p23", "--format", "json"], t);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
}

#[test]
fn zero_counts_are_refused_not_rounded_up() {
    let t = Duration::from_secs(20);
    refused(&bn_within(&["analyze", JACOBI, "--iterations", "0"], t), &["'0'", "--iterations"]);
    refused(&bn_within(&["run", "--max-instructions", "0", "--", "/bin/true"], t), &["'0'", "--max-instructions"]);
    refused(&bn_within(&["run", "--threads", "0", "--", "/bin/true"], t), &["'0'", "--threads"]);
    refused(&bn_within(&["analyze", JACOBI, "--iterations=-1"], t), &["--iterations"]);
    // one is a count: jacobi.s has 17 instructions per iteration
    let one = bn_within(&["analyze", JACOBI, "--iterations", "1", "--no-sensitivity", "--format", "json"], t);
    let v: serde_json::Value = serde_json::from_slice(&one.stdout).expect("json");
    assert_eq!(v["iterations"], 1);
}

#[test]
fn a_what_if_report_says_which_core_it_is_for() {
    common::ensure_plugin();
    let out = bn_within(&["run", "-q", "--no-sensitivity", "--no-views", "--accelerate", "p23=2", "--accelerate", "latency=0.5", "--", "/bin/true"], Duration::from_secs(120));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("what-if core: p23 x2, latency x0.5"), "{text}");
    let plain = bn_within(&["run", "-q", "--no-sensitivity", "--no-views", "--", "/bin/true"], Duration::from_secs(120));
    assert!(!String::from_utf8_lossy(&plain.stderr).contains("what-if"));
}

#[test]
fn an_instruction_limit_of_one_simulates_one_instruction() {
    common::ensure_plugin();
    let (out, v) = common::run_report(&["--no-sensitivity", "--no-views", "--max-instructions", "1"], std::path::Path::new("/bin/true"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(v["instructions_simulated"], 1);
    assert_eq!(v["complete"], false);
}
