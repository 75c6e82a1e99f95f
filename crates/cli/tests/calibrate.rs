//! `bottlenose calibrate` end to end: the forms of a block measured on this host,
//! written as an overlay that `--machine FILE` then uses; bad input.

use std::process::{Command, Output};

fn bn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_CACHE_DIR", std::env::temp_dir().join("bn-cal-test-cache")).args(args).output().expect("run bottlenose")
}

#[test]
fn forms_of_a_block_become_an_overlay() {
    let d = tempfile::tempdir().unwrap();
    let block = d.path().join("k.s");
    // a dependent FP add chain and an integer multiply chain
    std::fs::write(&block, "addsd %xmm0, %xmm0\nimul %rax, %rax\ndec %ecx\njnz .-12\n").unwrap();
    let out_file = d.path().join("cal.toml");
    let o = bn(&["calibrate", "-q", "--base", "skylake", "--forms-only", "--for", block.to_str().unwrap(), "-o", out_file.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["base"], "skylake");
    let forms = v["calibration"]["forms"].as_array().unwrap();
    let get = |k: &str| forms.iter().find(|f| f["form"] == k).unwrap_or_else(|| panic!("{k} not measured: {forms:?}"));
    // every x86-64 core of the last decade: imul r64 3 cycles; scalar FP add 2-5
    let imul = get("imul r64, r64")["latency"].as_f64().unwrap();
    assert!((imul - 3.0).abs() < 0.3, "imul latency {imul}");
    let add = get("addsd xmm, xmm")["latency"].as_f64().unwrap();
    assert!((2.0..=5.2).contains(&add), "addsd latency {add}");
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert!(text.contains("[calibration]") && text.contains("base = \"skylake\""), "{text}");
    assert!(text.contains("form = \"imul r64, r64\""), "{text}");
    assert!(text.contains("measured on "), "{text}");
    // the overlay loads as a machine and times the block with the measured latencies
    let a = bn(&["analyze", block.to_str().unwrap(), "--machine", out_file.to_str().unwrap(), "--format", "json", "--no-sensitivity"]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let r: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(r["machine"], "skylake");
    let cpi = r["cycles_per_iteration"].as_f64().unwrap();
    // the two chains run side by side: the longer one sets the pace
    assert!((cpi - add.max(imul)).abs() < 0.35, "{cpi} vs {}", add.max(imul));
}

#[test]
fn bad_calibrate_input() {
    let one_line = |o: &Output, needle: &str| {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success());
        assert_ne!(o.status.code(), Some(101), "panicked: {err}");
        assert_eq!(err.lines().filter(|l| !l.trim().is_empty()).count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
    };
    one_line(&bn(&["calibrate", "-q", "--base", "pentium9", "--forms-only", "--dry-run"]), "unknown machine 'pentium9'");
    one_line(&bn(&["calibrate", "-q", "--forms-only", "--for", "/nonexistent/k.s", "--dry-run"]), "cannot read /nonexistent/k.s");
}
