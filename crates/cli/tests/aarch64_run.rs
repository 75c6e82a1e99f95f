//! `bottlenose run` on AArch64 programs cross-compiled with aarch64-linux-gnu-gcc (static),
//! run under qemu-aarch64 with the same plugin. Expected values: instruction counts from the
//! code and from QEMU's own single-step execution log; cycles from the Neoverse V2 SWOG's
//! figures (FMUL latency 3; four FP/ASIMD pipes; three load pipes); bottlenecks from what
//! each kernel is built to stress.
mod common;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const KERNELS_S: &str = r#".text
.globl fmul_chain
.type fmul_chain, %function
fmul_chain:
    fmov d0, #1.0
    fmov d1, #1.0
1:  fmul d0, d0, d1
    subs x0, x0, #1
    b.ne 1b
    ret
.size fmul_chain, .-fmul_chain

.globl fma_tput
.type fma_tput, %function
fma_tput:
1:
    fmla v0.2d, v24.2d, v25.2d
    fmla v1.2d, v24.2d, v25.2d
    fmla v2.2d, v24.2d, v25.2d
    fmla v3.2d, v24.2d, v25.2d
    fmla v4.2d, v24.2d, v25.2d
    fmla v5.2d, v24.2d, v25.2d
    fmla v6.2d, v24.2d, v25.2d
    fmla v7.2d, v24.2d, v25.2d
    fmla v8.2d, v24.2d, v25.2d
    fmla v9.2d, v24.2d, v25.2d
    fmla v10.2d, v24.2d, v25.2d
    fmla v11.2d, v24.2d, v25.2d
    fmla v12.2d, v24.2d, v25.2d
    fmla v13.2d, v24.2d, v25.2d
    fmla v14.2d, v24.2d, v25.2d
    fmla v15.2d, v24.2d, v25.2d
    fmla v16.2d, v24.2d, v25.2d
    fmla v17.2d, v24.2d, v25.2d
    fmla v18.2d, v24.2d, v25.2d
    fmla v19.2d, v24.2d, v25.2d
    fmla v20.2d, v24.2d, v25.2d
    fmla v21.2d, v24.2d, v25.2d
    fmla v22.2d, v24.2d, v25.2d
    fmla v23.2d, v24.2d, v25.2d
    subs x0, x0, #1
    b.ne 1b
    ret
.size fma_tput, .-fma_tput

.globl load_ports
.type load_ports, %function
load_ports:
    .p2align 5
1:
    ldr x3, [x1, #0]
    ldr x4, [x1, #8]
    ldr x5, [x1, #16]
    ldr x6, [x1, #24]
    ldr x7, [x1, #32]
    ldr x8, [x1, #40]
    subs x0, x0, #1
    b.ne 1b
    ret
.size load_ports, .-load_ports
.section .note.GNU-stack,"",%progbits
"#;

const MAIN_C: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void fmul_chain(long n);
void fma_tput(long n);
void load_ports(long n, const long *p);
/* one load per 64-byte line of a 256 KiB buffer, `passes` times: L2-resident */
__attribute__((noinline)) long stream(const long *a, long n, long passes) {
    long s = 0;
    for (long p = 0; p < passes; p++)
        for (long i = 0; i < n; i += 8) s += a[i];
    return s;
}
/* a branch on random bits: taken half the time, unpredictably */
__attribute__((noinline)) long branchy(const unsigned char *a, long n) {
    long s = 0;
    for (long i = 0; i < n; i++) {
        /* the asm keeps gcc from turning the branch into a csel */
        if (a[i] & 1) { __asm__ volatile("" : "+r"(s)); s += a[i]; } else s -= 3;
    }
    return s;
}
int main(int argc, char **argv) {
    const char *k = argc > 1 ? argv[1] : "chain";
    long n = argc > 2 ? atol(argv[2]) : 10000;
    static long buf[64];
    if (!strcmp(k, "chain")) fmul_chain(n);
    else if (!strcmp(k, "fma")) fma_tput(n);
    else if (!strcmp(k, "loads")) load_ports(n, buf);
    else if (!strcmp(k, "stream")) {
        long words = 256 * 1024 / 8;
        long *a = malloc(words * sizeof(long));
        for (long i = 0; i < words; i++) a[i] = i;
        printf("%ld\n", stream(a, words, n));
    } else if (!strcmp(k, "branchy")) {
        unsigned char *a = malloc(n);
        unsigned x = 12345;
        for (long i = 0; i < n; i++) { x = x * 1103515245u + 12345u; a[i] = x >> 16; }
        printf("%ld\n", branchy(a, n));
    }
    return 0;
}
"#;

/// The kernels program, static (no sysroot needed to run it).
fn kernels(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("kern.s"), KERNELS_S).unwrap();
    std::fs::write(dir.join("main.c"), MAIN_C).unwrap();
    let exe = dir.join("kern");
    let out = Command::new("aarch64-linux-gnu-gcc")
        .args(["-O2", "-static", "-o"])
        .arg(&exe)
        .arg(dir.join("main.c"))
        .arg(dir.join("kern.s"))
        .output()
        .expect("aarch64-linux-gnu-gcc (scripts/install-deps.sh)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// Runs kernel `name` with `n` on neoverse-v2, its function as the region, with a short sweep.
fn kernel(function: &str, name: &str, n: u64) -> (Value, f64) {
    let d = tempfile::tempdir().unwrap();
    let exe = kernels(d.path());
    let (out, v) = common::run_report(&["--machine", "neoverse-v2", "--roi", &format!("function:{function}"), "--weights", "1.15,2"], &exe, &[name, &n.to_string()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(v["machine"], "neoverse-v2");
    let per_iteration = v["cycles"].as_f64().unwrap() / n as f64;
    (v, per_iteration)
}

/// A node of the run's Arm telemetry Top-Down (the simulated counters named as the V2 PMU names them).
fn arm_node<'a>(v: &'a Value, label: &str) -> &'a Value {
    fn find<'a>(nodes: &'a Value, label: &str) -> Option<&'a Value> {
        nodes.as_array()?.iter().find_map(|n| if n["name"] == label { Some(n) } else { find(&n["children"], label) })
    }
    assert_eq!(v["vendor_topdown"]["table"], "neoverse-v2");
    find(&v["vendor_topdown"]["topdown"], label).unwrap_or_else(|| panic!("{label} not in {}", v["vendor_topdown"]))
}

fn first_cause(v: &Value) -> Value {
    v["verdict"]["causes"][0]["cause"].clone()
}

#[test]
fn instruction_counts_match_the_code_and_qemu() {
    let d = tempfile::tempdir().unwrap();
    // 1 + 3 * 1000 + 1 instructions per call of spin
    std::fs::write(d.path().join("spin.s"), ".globl spin\n.type spin, %function\nspin:\n mov w1, #1000\n1: add x0, x0, #1\n subs w1, w1, #1\n b.ne 1b\n ret\n.size spin, .-spin\n.section .note.GNU-stack,\"\",%progbits\n").unwrap();
    std::fs::write(d.path().join("m.c"), "#include <stdio.h>\nlong spin(long);\nint main(){ long s = spin(0); s = spin(s); printf(\"hello %ld\\n\", s); return 7; }\n").unwrap();
    let exe = d.path().join("m");
    assert!(Command::new("aarch64-linux-gnu-gcc").args(["-O1", "-static"]).arg(d.path().join("m.c")).arg(d.path().join("spin.s")).arg("-o").arg(&exe).status().unwrap().success());
    let (out, v) = common::run_report(&["--machine", "neoverse-v2", "--roi", "function:spin", "--no-sensitivity"], &exe, &[]);
    assert_eq!(out.status.code(), Some(7), "exit status passes through");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello 2000\n");
    assert_eq!(v["instructions_simulated"], 2 * 3002);
    assert_eq!(v["roi"]["entries"], 2);
    // the whole program against QEMU's own count: with one instruction per block and
    // chaining off, `-d exec` logs one line per executed instruction. Both get the same
    // environment, sysroot (glibc's start-up scans the environment) and CPU (neoverse-v2's
    // qemu_cpu: glibc's ifuncs pick SVE string functions by it)
    let path = std::env::var_os("PATH").unwrap_or_default();
    let report = d.path().join("whole.json");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
        .env_clear()
        .env("PATH", &path)
        .args(["run", "--machine", "neoverse-v2", "--no-sensitivity", "--no-views", "--quiet", "--format", "json", "-o"])
        .arg(&report)
        .arg("--")
        .arg(&exe)
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(7), "{}", String::from_utf8_lossy(&st.stderr));
    let whole: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let log = d.path().join("exec.log");
    let st = Command::new("qemu-aarch64")
        .env_clear()
        .env("PATH", &path)
        .args(["-L", "/usr/aarch64-linux-gnu", "-cpu", "max,sve128=on", "-singlestep", "-d", "nochain,exec", "-D"])
        .arg(&log)
        .arg(&exe)
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(7));
    let qemu = std::fs::read_to_string(&log).unwrap().lines().filter(|l| l.starts_with("Trace")).count() as f64;
    let ours = whole["instructions_simulated"].as_f64().unwrap();
    // QEMU's log misses the few instructions it runs outside translated blocks (exclusive
    // load/store pairs in glibc's start-up): 25 of 28,900 here
    assert!((ours - qemu).abs() / qemu < 0.002, "bottlenose {ours} vs QEMU {qemu}");
}

#[test]
fn latency_chain_runs_at_the_fmul_latency() {
    let (v, c) = kernel("fmul_chain", "chain", 20_000);
    assert!((c - 3.0).abs() < 0.1, "{c} cycles per fmul, SWOG latency 3");
    assert_eq!(first_cause(&v)["kind"], "dependency_chain", "{}", v["verdict"]);
}

#[test]
fn fma_throughput_fills_the_four_fp_pipes() {
    // 24 FMLA per iteration on V0-V3: 6 cycles
    let (v, c) = kernel("fma_tput", "fma", 5_000);
    assert!((c - 6.0).abs() < 0.3, "{c} cycles per iteration, 24 FMLA / 4 pipes = 6");
    assert_eq!(first_cause(&v), serde_json::json!({"kind": "port_pressure", "ports": "v0123"}), "{}", v["verdict"]);
    // 24 FMLA per iteration; the peak is 4 pipes x 2 lanes x 2 flops
    assert_eq!(v["flops"]["fp_instructions"], 24 * 5_000);
    assert_eq!(v["flops"]["peak_flops_per_cycle"], 16.0);
}

#[test]
fn independent_loads_are_load_port_bound() {
    // 6 loads per iteration on the three load pipes (L01 x 2, L2): 2 cycles
    let (v, c) = kernel("load_ports", "loads", 20_000);
    assert!((c - 2.0).abs() < 0.1, "{c} cycles per iteration, 6 loads / 3 pipes = 2");
    assert_eq!(first_cause(&v), serde_json::json!({"kind": "port_pressure", "ports": "l2+l01.0+l01.1"}), "{}", v["verdict"]);
}

#[test]
fn an_l2_resident_stream_waits_for_the_l2() {
    // 256 KiB: beyond the 64 KiB L1D, inside the 1 MiB L2
    let (v, _) = kernel("stream", "stream", 20);
    assert_eq!(first_cause(&v), serde_json::json!({"kind": "cache_misses", "level": "l2"}), "{}", v["verdict"]);
    // Arm's tree says the same: backend bound on memory
    assert_eq!(arm_node(&v, "Backend_Bound")["flagged"], true, "{}", v["vendor_topdown"]);
    assert_eq!(arm_node(&v, "Backend_Mem_Bound")["flagged"], true, "{}", v["vendor_topdown"]);
}

#[test]
fn an_unpredictable_branch_is_dominated_by_mispredictions() {
    let (v, _) = kernel("branchy", "branchy", 50_000);
    assert_eq!(first_cause(&v)["kind"], "branch_mispredictions", "{}", v["verdict"]);
    // the action names the branch as objdump shows it (A64, not bytes read as x86)
    let actions = v["verdict"].to_string();
    assert!(actions.contains("the branch `tb"), "{actions}");
    // a random bit: any predictor misses half of the 50,000 `tbnz`
    let m = v["functional"]["branches"]["conditional"]["mispredicts"].as_f64().unwrap();
    assert!((m / 50_000.0 - 0.5).abs() < 0.05, "{m} mispredictions");
    // Arm's tree: Bad_Speculation flagged. Against the model's own slot classes: the
    // resteer after a mispredict is frontend stall slots to the PMU (the model counts it
    // as bad speculation), and Arm's formulas move 1 + 3 slot-cycles per BR_MIS_PRED from
    // Frontend and Backend Bound to Bad Speculation
    let bad = arm_node(&v, "Bad_Speculation");
    assert_eq!(bad["flagged"], true, "{}", v["vendor_topdown"]);
    let ev = &v["vendor_topdown"]["events"];
    let per_cycle = ev["BR_MIS_PRED"].as_f64().unwrap() / ev["CPU_CYCLES"].as_f64().unwrap();
    let arm = |n: &str| arm_node(&v, n)["value"].as_f64().unwrap();
    let direct = |n: &str| v["slot_accounting"][n].as_f64().unwrap();
    let pairs = [
        (arm("Retiring"), direct("retiring"), "Retiring"),
        (arm("Backend_Bound"), direct("backend_bound") - 3.0 * per_cycle, "Backend_Bound"),
        (arm("Bad_Speculation") + arm("Frontend_Bound"), direct("bad_speculation") + direct("frontend_bound") + 3.0 * per_cycle, "Bad_Speculation + Frontend_Bound"),
    ];
    for (a, d, what) in pairs {
        assert!((a - d).abs() < 1e-9, "{what}: Arm {a} vs model {d}");
    }
}

/// SVE under QEMU as the machine's core: the V2's vectors are 128 bits (QEMU runs
/// `-cpu max,sve128=on`), so an SVE axpy over 1000 doubles loops 1000 / 2 times; the N1
/// has no SVE (`-cpu neoverse-n1`): the program dies of SIGILL, said in one line.
#[test]
fn sve_runs_at_the_v2_vector_length_and_not_on_the_n1() {
    let d = tempfile::tempdir().unwrap();
    let c = d.path().join("sve.c");
    std::fs::write(
        &c,
        "#include <stdlib.h>\n__attribute__((noinline)) void axpy(double *y, const double *x, double a, long n) { for (long i = 0; i < n; i++) y[i] += a * x[i]; }\n\
         int main(int c, char **v) { long n = atol(v[1]); double *x = calloc(n, 8), *y = calloc(n, 8); axpy(y, x, 2.0, n); return y[0] != 0; }\n",
    )
    .unwrap();
    let exe = d.path().join("sve");
    let st = Command::new("aarch64-linux-gnu-gcc").args(["-O3", "-march=armv8.2-a+sve", "-static", "-o"]).arg(&exe).arg(&c).status().unwrap();
    assert!(st.success());
    let (out, v) = common::run_report(&["--machine", "neoverse-v2", "--roi", "function:axpy", "--no-sensitivity", "--no-views"], &exe, &["1000"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // gcc's SVE loop is 7 instructions (2 ld1d, fmad, st1d, add, whilelo, b.ne) after 16 of
    // set-up and before the ret: 16 + 7 x 500 + 1 with two doubles per vector
    assert_eq!(v["instructions_simulated"], 16 + 7 * 500 + 1, "{}", v["roi"]);
    // every SVE form decodes and is in the V2's table: a warning about missing forms, if
    // any, names no SVE form
    assert!(!err.contains("(SVE, not decoded)"), "{err}");
    if let Some(w) = err.lines().find(|l| l.contains("not in the neoverse-v2 table")) {
        for sve in ["z.", "p/z", "p/m", "whilelo", "cntd", "ptrue", "ld1d", "st1d", "fmad"] {
            assert!(!w.contains(sve), "{w}");
        }
    }
    // the whole program against QEMU's own count (see instruction_counts_match_the_code_and_qemu)
    let path = std::env::var_os("PATH").unwrap_or_default();
    let report = d.path().join("whole.json");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
        .env_clear()
        .env("PATH", &path)
        .args(["run", "--machine", "neoverse-v2", "--no-sensitivity", "--no-views", "--quiet", "--format", "json", "-o"])
        .arg(&report)
        .arg("--")
        .arg(&exe)
        .arg("1000")
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let whole: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let log = d.path().join("exec.log");
    let st = Command::new("qemu-aarch64")
        .env_clear()
        .env("PATH", &path)
        .args(["-L", "/usr/aarch64-linux-gnu", "-cpu", "max,sve128=on", "-singlestep", "-d", "nochain,exec", "-D"])
        .arg(&log)
        .arg(&exe)
        .arg("1000")
        .output()
        .unwrap();
    assert!(st.status.success());
    let qemu = std::fs::read_to_string(&log).unwrap().lines().filter(|l| l.starts_with("Trace")).count() as f64;
    let ours = whole["instructions_simulated"].as_f64().unwrap();
    assert!((ours - qemu).abs() / qemu < 0.002, "bottlenose {ours} vs QEMU {qemu}");
    let (out, v) = common::run_report(&["--machine", "neoverse-n1", "--no-sensitivity", "--no-views"], &exe, &["1000"]);
    assert_eq!(out.status.code(), Some(128 + 4), "SIGILL passes through");
    let why = v["stop_reason"].as_str().unwrap_or_default();
    assert!(why.contains("the SVE instruction 0x") && why.contains("which has no SVE") && why.contains("neoverse-v2"), "{why}");
}
