//! `analyze` on AArch64 code: assembly through aarch64-linux-gnu-as, hex with --isa, ELF
//! functions cross-compiled with aarch64-linux-gnu-gcc (the ISA read from the header).
//! Expected cycles come from the Neoverse SWOGs' figures: FMUL latency 3 (N1 and V2),
//! two FP/ASIMD pipes on N1 and four on V2.

use std::process::{Command, Output};

fn bn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bottlenose")).env_remove("BOTTLENOSE_MACHINE").args(args).output().expect("run bottlenose")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

fn tmp(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join(name);
    std::fs::write(&p, text).unwrap();
    (d, p.display().to_string())
}

/// A loop whose only recurrence is `fmul d0, d0, d1`: one FMUL latency per iteration.
const FMUL_CHAIN: &str = "
.L1:
    fmul d0, d0, d1
    subs x2, x2, #1
    b.ne .L1
";

/// 24 independent `fmla v.2d` accumulators: more than latency x pipes (4 x 4 on V2), so the
/// FP pipes bound it: 24 / pipes cycles per iteration.
const FMA_THROUGHPUT: &str = include_str!("../../../bench/blocks/aarch64/fma_throughput.s");

fn cycles(machine: &str, src: &str) -> serde_json::Value {
    let (_d, path) = tmp("k.s", src);
    json(&bn(&["analyze", &path, "--isa", "aarch64", "--machine", machine, "--format", "json", "--no-sensitivity"]))
}

#[test]
fn fmul_chain_runs_at_the_fmul_latency() {
    for m in ["neoverse-n1", "neoverse-v2"] {
        let r = cycles(m, FMUL_CHAIN);
        assert_eq!(r["machine"], m);
        assert_eq!(r["cycles_per_iteration"].as_f64().unwrap(), 3.0, "{m}: SWOG FMUL latency 3");
        assert_eq!(r["verdict"]["causes"][0]["cause"]["kind"], "dependency_chain", "{m}: {}", r["verdict"]);
    }
}

#[test]
fn fma_throughput_follows_the_fp_pipes() {
    let n1 = cycles("neoverse-n1", FMA_THROUGHPUT);
    assert_eq!(n1["cycles_per_iteration"].as_f64().unwrap(), 12.0, "N1: 24 FMLA on V0/V1");
    let v2 = cycles("neoverse-v2", FMA_THROUGHPUT);
    assert_eq!(v2["cycles_per_iteration"].as_f64().unwrap(), 6.0, "V2: 24 FMLA on V0-V3");
    // with the sensitivity sweep, the verdict names the FP pipes
    let (_d, path) = tmp("k.s", FMA_THROUGHPUT);
    let r = json(&bn(&["analyze", &path, "--isa", "aarch64", "--machine", "neoverse-v2", "--format", "json", "--weights", "1.15,2"]));
    assert_eq!(r["verdict"]["causes"][0]["cause"], serde_json::json!({"kind": "port_pressure", "ports": "v0123"}), "{}", r["verdict"]);
}

#[test]
fn hex_input_takes_the_isa_flag() {
    // fmul d0, d0, d1 (1e610800): one instruction whose result it reads again
    let r = json(&bn(&["analyze", "--hex", "00 08 61 1e", "--isa", "aarch64", "--machine", "neoverse-v2", "--format", "json", "--no-sensitivity"]));
    assert_eq!(r["instructions"][0]["asm"], "fmul d0, d0, d1");
    assert_eq!(r["cycles_per_iteration"].as_f64().unwrap(), 3.0);
}

#[test]
fn elf_functions_say_their_isa_and_pick_an_arm_model() {
    let d = tempfile::tempdir().unwrap();
    let c = d.path().join("k.c");
    std::fs::write(&c, "double dot(const double *a, const double *b, long n) { double s = 0; for (long i = 0; i < n; i++) s += a[i] * b[i]; return s; }\n").unwrap();
    let obj = d.path().join("k.o");
    let st = Command::new("aarch64-linux-gnu-gcc").args(["-O2", "-c", "-o"]).arg(&obj).arg(&c).status().expect("aarch64-linux-gnu-gcc (scripts/install-deps.sh)");
    assert!(st.success());
    let obj = obj.display().to_string();
    // the default machine (`host`, an x86-64 host) gives way to the AArch64 default, with a note
    let out = bn(&["analyze", &obj, "--function", "dot", "--format", "json", "--no-sensitivity"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("using --machine neoverse-v2"));
    let r = json(&out);
    assert_eq!(r["machine"], "neoverse-v2");
    assert!(r["instructions"].as_array().unwrap().iter().any(|i| i["asm"].as_str().unwrap().starts_with("fmadd")), "{}", r["instructions"]);
    // an explicit x86-64 machine is an error naming the AArch64 machines
    let out = bn(&["analyze", &obj, "--function", "dot", "--machine", "zen4"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is aarch64 code, but machine zen4 models an x86-64 core") && err.contains("neoverse-v2"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // --isa contradicting the header
    let out = bn(&["analyze", &obj, "--function", "dot", "--isa", "x86-64", "--machine", "zen4"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is aarch64 code, not x86-64"));
}

/// SVE decodes (objdump: 0x65e28401 is `fmad z1.d, p1/m, z0.d, z2.d`), and gcc's SVE axpy
/// loop (`-O3 -march=armv8.2-a+sve`: 2 ld1d, fmad, st1d, add, whilelo, b.ne) is timed
/// like bench/blocks/aarch64/sve_daxpy.s: 9 uops (st1d and whilelo two each) on the V2's
/// 8-wide rename, 9 / 8 = 1.125 cycles an iteration. SME still is one line naming the word.
#[test]
fn sve_code_decodes_and_sme_is_one_line_naming_the_instruction() {
    let r = json(&bn(&["analyze", "--hex", "01 84 e2 65", "--isa", "aarch64", "--machine", "neoverse-v2", "--format", "json", "--no-sensitivity"]));
    assert_eq!(r["instructions"][0]["asm"], "fmad z1.d, p1/m, z0.d, z2.d");
    assert_eq!(r["instructions"][0]["unknown_form"], false);
    let out = bn(&["analyze", "--hex", "00 00 80 80", "--isa", "aarch64", "--machine", "neoverse-v2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("SME instruction 0x80800000 at 0x0 is not decoded"), "{err}");
    let d = tempfile::tempdir().unwrap();
    let c = d.path().join("axpy.c");
    std::fs::write(&c, "void axpy(double *y, const double *x, double a, long n) { for (long i = 0; i < n; i++) y[i] += a * x[i]; }\n").unwrap();
    let obj = d.path().join("axpy.o");
    let st = std::process::Command::new("aarch64-linux-gnu-gcc").args(["-O3", "-march=armv8.2-a+sve", "-c", "-o"]).arg(&obj).arg(&c).status().unwrap();
    assert!(st.success());
    let r = json(&bn(&["analyze", obj.to_str().unwrap(), "--function", "axpy", "--machine", "neoverse-v2", "--format", "json", "--no-sensitivity"]));
    let loops = r["loops"].as_array().unwrap_or_else(|| panic!("{r}"));
    let sve = loops
        .iter()
        .find(|l| l["report"]["instructions"].as_array().unwrap().iter().any(|i| i["asm"].as_str().unwrap().starts_with("whilelo")))
        .unwrap_or_else(|| panic!("no SVE loop in {r}"));
    let c = sve["cycles_per_iteration"].as_f64().unwrap();
    assert!((c - 1.125).abs() < 0.01, "{c}");
}

/// Neoverse V2 SWOG, FP tables: FMADD/FMLA latency "4 (2)", the 2 being the accumulate
/// latency between chained multiply-accumulates ("late-forwarding of accumulate operands
/// from similar uOPs"). Only the accumulator is forwarded: a chain through a multiplicand
/// keeps the full 4, and an FMUL (not a similar uOP) feeding the accumulator gets 3 + 4.
#[test]
fn chained_fmas_forward_the_accumulator_on_v2() {
    let per_iteration = |m: &str, body: &str| cycles(m, &format!(".L1:\n{body}\n    subs x2, x2, #1\n    b.ne .L1\n"))["cycles_per_iteration"].as_f64().unwrap();
    assert_eq!(per_iteration("neoverse-v2", "    fmla v0.2d, v1.2d, v2.2d"), 2.0, "FMLA accumulate chain");
    assert_eq!(per_iteration("neoverse-v2", "    fmadd d0, d1, d2, d0"), 2.0, "FMADD accumulate chain");
    assert_eq!(per_iteration("neoverse-v2", "    fmla v0.2d, v0.2d, v2.2d"), 4.0, "a chain through the multiplicand");
    assert_eq!(per_iteration("neoverse-v2", "    fmul v0.2d, v0.2d, v2.2d\n    fmla v0.2d, v1.2d, v2.2d"), 7.0, "FMUL 3 + FMLA 4");
    // the N1 machine does not claim the forwarding: the full FMLA latency
    assert_eq!(per_iteration("neoverse-n1", "    fmla v0.2d, v1.2d, v2.2d"), 4.0);
}

/// SVE loops at the V2's 128-bit vector length (bench/blocks/aarch64/sve_*.s).
/// - an accumulation chain of `fmla z0.d, p0/m, ...`: the SWOG's accumulate latency, 2;
/// - 24 independent SVE FMLA: the four V pipes, 24 / 4 = 6;
/// - daxpy with `whilelo` loop control: 9 uops an iteration (the LLVM/SWOG model gives
///   `whilelo` and `st1d` two uops each), so the 8-wide rename (machine file) bounds it at
///   9 / 8 = 1.125; the next bounds are 1.0 (ld1d, ld1d and the st1d's address uop on the
///   three load pipes; whilelo's two uops on M0 and M1). llvm-mca-19 says 1.017: its V2
///   model dispatches 16 uops a cycle.
#[test]
fn sve_loops_on_the_v2() {
    let chain = cycles("neoverse-v2", include_str!("../../../bench/blocks/aarch64/sve_fmla_acc_chain.s"));
    assert_eq!(chain["cycles_per_iteration"].as_f64().unwrap(), 2.0, "{}", chain["verdict"]);
    let tput = cycles("neoverse-v2", include_str!("../../../bench/blocks/aarch64/sve_fma_throughput.s"));
    assert_eq!(tput["cycles_per_iteration"].as_f64().unwrap(), 6.0);
    let daxpy = include_str!("../../../bench/blocks/aarch64/sve_daxpy.s");
    let r = cycles("neoverse-v2", daxpy);
    let c = r["cycles_per_iteration"].as_f64().unwrap();
    assert!((c - 1.125).abs() < 0.01, "daxpy {c}");
    // every SVE form is in the V2's table (no default-form timing)
    for i in r["instructions"].as_array().unwrap() {
        assert_ne!(i["unknown_form"], true, "{i}");
    }
    // the N1 has no SVE: one line saying so
    let (_d, path) = tmp("k.s", daxpy);
    let out = bn(&["analyze", &path, "--isa", "aarch64", "--machine", "neoverse-n1", "--no-sensitivity"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is SVE") && err.contains("neoverse-n1 does not execute (its core has no SVE)") && err.contains("neoverse-v2"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
