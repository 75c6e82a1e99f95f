//! `bottlenose run` on real programs compiled by the test with gcc, under QEMU.
mod common;
use common::{compile, ensure_plugin};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// A run's output and report. The runs whose assertions do not read the
/// idealizations pass `--no-idealize`: each idealization times the region on a
/// core of its own.
fn run(args: &[&str], prog: &Path, prog_args: &[&str]) -> (Output, Value) {
    common::run_report(args, prog, prog_args)
}

fn top(v: &Value) -> String {
    v["bottlenecks"][0]["resources"].as_array().map(|a| a.iter().map(|x| x.as_str().unwrap()).collect::<Vec<_>>().join("+")).unwrap_or_default()
}

fn speedup(v: &Value, res: &str) -> f64 {
    v["sensitivity"].as_array().unwrap().iter().find(|p| p["resources"][0] == res).map(|p| p["speedup"].as_f64().unwrap()).unwrap()
}

const MEMORY_KNOBS: &[&str] = &["miss_latency", "l2_bw", "l3_bw", "dram_bw"];

#[test]
fn roi_instruction_count_is_exact_and_io_passes_through() {
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("k.s");
    // 1 + 3*1000 + 1 instructions per call
    std::fs::write(&s, ".globl spin\n.type spin, @function\nspin:\n mov $1000, %ecx\n1: add $1, %rax\n dec %ecx\n jnz 1b\n ret\n.size spin, .-spin\n.section .note.GNU-stack,\"\",@progbits\n").unwrap();
    let c = d.path().join("m.c");
    std::fs::write(&c, "#include <stdio.h>\nlong spin(void);\nint main(){ spin(); spin(); printf(\"hello\\n\"); return 7; }\n").unwrap();
    let exe = d.path().join("m");
    assert!(Command::new("gcc").args(["-O1"]).arg(&c).arg(&s).arg("-o").arg(&exe).status().unwrap().success());
    let (out, v) = run(&["--roi", "function:spin", "--no-sensitivity"], &exe, &[]);
    assert_eq!(out.status.code(), Some(7), "exit status passes through");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello\n");
    assert_eq!(v["instructions_simulated"], 2 * 3002);
    assert_eq!(v["roi"]["entries"], 2);
    assert!(v["cycles"].as_f64().unwrap() > 2000.0);
}


#[test]
fn pointer_chasing_beyond_l2_is_memory_latency_bound() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "chase", common::CHASE_C, &["-O2"]);
    let steps = 200000.0;
    let (_, big) = run(&["--roi", "function:chase", "--warm"], &exe, &["4194304", "200000"]);
    assert_eq!(top(&big), "miss_latency", "{:?}", big["bottlenecks"]);
    // Skylake (machines/skylake.toml): L1D 5 cycles, L2 256 KiB, L3 42 cycles, DTLB miss 9. Of
    // 4 MiB chased at random, 94 % of the steps miss L2 and the DTLB: about 0.94 x (42 + 9) =
    // 48 cycles a step. A perfect dcache leaves the chain of L1 hits, 5 cycles a step (the
    // loop's other two instructions run beside it): most of the cycles go. The loop is one
    // line, warm, and its branch is taken every time: a perfect icache or predictor saves nothing.
    let ideal = |what: &str| big["idealization"].as_array().unwrap().iter().find(|i| i["what"] == what).unwrap_or_else(|| panic!("no {what} row"))["cycles"].as_f64().unwrap();
    let base = big["cycles"].as_f64().unwrap();
    let per_step = ideal("perfect_dcache") / steps;
    assert!((4.5..6.0).contains(&per_step), "perfect dcache: {per_step:.2} cycles a step, expected 5 (an L1 hit)");
    assert!(base / steps > 35.0, "{:.1} cycles a step", base / steps);
    for what in ["perfect_icache", "perfect_branch"] {
        assert!((base - ideal(what)).abs() < 0.01 * base, "{what}: {} of {base} cycles", ideal(what));
    }
    let (_, small) = run(&["--roi", "function:chase", "--warm", "--no-idealize"], &exe, &["16384", "200000"]);
    assert!(speedup(&small, "miss_latency") < 0.01, "{:?}", small["bottlenecks"]);
    assert_eq!(top(&small), "latency", "{:?}", small["bottlenecks"]);
    assert!(big["cycles"].as_f64().unwrap() > 5.0 * small["cycles"].as_f64().unwrap());
}

const BRANCHY: &str = r#"
#include <stdlib.h>
#include <stdio.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
__attribute__((noinline)) long kernel(const int *a, int n) {
    long s = 0;
    for (int r = 0; r < 10; r++)
        for (int i = 0; i < n; i++)
            if (a[i] >= 128) s += a[i] * 3; else s -= 1;
    return s;
}
int main(int argc, char **argv) {
    int n = 20000; int *a = malloc(n * sizeof(int));
    srand(1); for (int i = 0; i < n; i++) a[i] = rand() % 256;
    if (argc > 1) qsort(a, n, sizeof(int), cmp);
    printf("%ld\n", kernel(a, n));
    return 0;
}
"#;

#[test]
fn random_branches_are_dominated_by_mispredictions() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "branchy", BRANCHY, &["-O1", "-g", "-fno-if-conversion", "-fno-if-conversion2", "-fno-tree-vectorize"]);
    let (_, random) = run(&["--roi", "function:kernel"], &exe, &[]);
    // hotspots come from DWARF: the kernel's lines in branchy.c
    let h = &random["hotspots"][0];
    assert_eq!(h["function"], "branchy!kernel", "{h}");
    assert!(h["file"].as_str().unwrap().ends_with("branchy.c"), "{h}");
    assert!((8..=10).contains(&h["line"].as_u64().unwrap()), "{h}");
    assert_eq!(random["functions"][0]["function"], "branchy!kernel");
    let head = random["hottest_loop_head"].as_str().unwrap();
    let inner = random["loops"].as_array().unwrap().iter().find(|l| l["head"] == head).unwrap();
    assert!(inner["iterations"].as_u64().unwrap() >= 10 * 20000 - 20, "{inner}");
    assert!(!random["hottest_loop"].as_array().unwrap().is_empty());
    let top_random = top(&random);
    assert!(top_random.starts_with("mispredict_"), "{:?}", random["bottlenecks"]);
    // the rate knob speaks of what idealization removes: halving the
    // mispredictions (weight 2) buys about half of what the perfect predictor
    // buys. Perfect: cycles B - R; half the rate: about B - R/2
    let (_, half) = run(&["--roi", "function:kernel", "--weights", "2", "--resources", "mispredict_rate", "--no-idealize"], &exe, &[]);
    let base = random["cycles"].as_f64().unwrap();
    let ideal = random["idealization"].as_array().unwrap().iter().find(|i| i["what"] == "perfect_branch").expect("perfect_branch row");
    let r = base - ideal["cycles"].as_f64().unwrap();
    assert!(r > 0.3 * base, "a perfect predictor saves {r} of {base} cycles");
    let expected = base / (base - r / 2.0) - 1.0;
    let got = speedup(&half, "mispredict_rate");
    assert!((got - expected).abs() < 0.25 * expected, "mispredict_rate x2: {got:.3}, expected {expected:.3} from the idealization");
    let (_, sorted) = run(&["--roi", "function:kernel", "--no-idealize"], &exe, &["sorted"]);
    assert!(speedup(&sorted, "mispredict_penalty") < 0.01, "{:?}", sorted["bottlenecks"]);
    let mis = |v: &Value| v["functional"]["branches"]["mispredicts"].as_u64().unwrap();
    assert!(mis(&random) > 50 * mis(&sorted).max(1), "{} vs {}", mis(&random), mis(&sorted));
    assert!(random["cycles"].as_f64().unwrap() > 2.0 * sorted["cycles"].as_f64().unwrap());
}

const MATMUL: &str = r#"
#include <stdlib.h>
#include <stdio.h>
#define N 256
#define ROWS 8
static double A[N][N], B[N][N], C[N][N];
/* the first ROWS rows of C = A B: enough for a steady state, short under QEMU */
__attribute__((noinline)) void ijk(void) { for (int i = 0; i < ROWS; i++) for (int j = 0; j < N; j++) { double s = 0; for (int k = 0; k < N; k++) s += A[i][k] * B[k][j]; C[i][j] = s; } }
__attribute__((noinline)) void ikj(void) { for (int i = 0; i < ROWS; i++) for (int k = 0; k < N; k++) { double a = A[i][k]; for (int j = 0; j < N; j++) C[i][j] += a * B[k][j]; } }
int main(int argc, char **argv) {
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = i + j; B[i][j] = i - j; }
    if (argv[1][0] == 'n') ijk(); else ikj();
    printf("%f\n", C[ROWS / 2][N / 3]);
    return 0;
}
"#;

#[test]
fn naive_matmul_is_memory_bound_and_interchange_fixes_it() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "mm", MATMUL, &["-O1", "-fno-tree-vectorize"]);
    // with the machine's prefetchers (the default), as real cores have: streaming rows
    // are prefetched, the 2 KiB column stride of the naive order thrashes two L1 sets
    // and 32 L2 sets
    let (_, naive) = run(&["--roi", "function:ijk", "--no-idealize"], &exe, &["naive"]);
    let (_, inter) = run(&["--roi", "function:ikj", "--no-idealize"], &exe, &["interchanged"]);
    assert!(naive["prefetcher"].as_str().unwrap().starts_with("next-line + stream"), "{}", naive["prefetcher"]);
    assert!(MEMORY_KNOBS.contains(&top(&naive).as_str()), "naive: {:?}", naive["bottlenecks"]);
    assert!(!MEMORY_KNOBS.contains(&top(&inter).as_str()), "interchanged: {:?}", inter["bottlenecks"]);
    assert!(naive["cycles"].as_f64().unwrap() > 1.5 * inter["cycles"].as_f64().unwrap());
}

const ADI: &str = r#"
#include <stdio.h>
#define N 100
double p[N][N], q[N][N], u[N][N];
__attribute__((noinline)) void adi_row(double (*p)[N], double (*q)[N], double (*u)[N], double a, double b, double c, double d, double f) {
    for (int t4 = 1; t4 < N - 1; t4++)
        for (int t6 = 1; t6 < N - 1; t6++) {
            p[t4][t6] = -c / (a * p[t4][t6 - 1] + b);
            q[t4][t6] = (-d * u[t6][t4 - 1] + (1.0 + 2.0 * d) * u[t6][t4] - f * u[t6][t4 + 1] - a * q[t4][t6 - 1]) / (a * p[t4][t6 - 1] + b);
        }
}
int main(void) {
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { p[i][j] = 1; q[i][j] = 2; u[i][j] = i * 0.5 + j; }
    adi_row(p, q, u, 0.1, 2.0, 0.3, 0.4, 0.5);
    printf("%f\n", q[N / 2][N / 2]);
    return 0;
}
"#;

#[test]
fn adi_memory_recurrence_is_latency_bound_not_divider_bound() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "adi", ADI, &["-O2", "-fno-tree-vectorize"]);
    let (_, v) = run(&["--roi", "function:adi_row", "--no-idealize"], &exe, &[]);
    assert_eq!(top(&v), "latency", "{:?}", v["bottlenecks"]);
    assert!(speedup(&v, "fpdiv") < 0.02, "divider speedup {}", speedup(&v, "fpdiv"));
}

#[test]
fn one_run_sweep_equals_separate_what_if_runs() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "adi", ADI, &["-O2", "-fno-tree-vectorize"]);
    let (_, sweep) = run(&["--roi", "function:adi_row", "--resources", "latency,p01,miss_latency", "--weights", "1.15,2", "--no-idealize"], &exe, &[]);
    let base = sweep["cycles"].as_f64().unwrap();
    assert_eq!(sweep["acceleration"], serde_json::json!([]));
    for p in sweep["sensitivity"].as_array().unwrap() {
        let name = p["resources"][0].as_str().unwrap();
        let w = p["weight"].as_f64().unwrap();
        let (_, single) = run(&["--roi", "function:adi_row", "--no-sensitivity", "--no-idealize", "--accelerate", &format!("{name}={w}")], &exe, &[]);
        let c = single["cycles"].as_f64().unwrap();
        assert_eq!(single["acceleration"], serde_json::json!([{ "resource": name, "weight": w }]), "the what-if report states its core");
        assert_eq!(c, p["cycles_per_iteration"].as_f64().unwrap(), "{name} at {w}");
        assert!((p["speedup"].as_f64().unwrap() - (base / c - 1.0)).abs() < 1e-12);
    }
}

#[test]
fn bad_programs() {
    ensure_plugin();
    let bn = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(args).output().unwrap();
    let one_line = |o: &Output, needle: &str| {
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success());
        let lines: Vec<&str> = e.lines().collect();
        assert_eq!(lines.len(), 1, "{e}");
        assert!(lines[0].contains(needle), "{e}");
    };
    one_line(&bn(&["run", "--", "/nonexistent/prog"]), "program not found");
    let d = tempfile::tempdir().unwrap();
    let txt = d.path().join("notes.txt");
    std::fs::write(&txt, "hello").unwrap();
    std::fs::set_permissions(&txt, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    one_line(&bn(&["run", "--", txt.to_str().unwrap()]), "not an x86-64 or AArch64 ELF");
    // a crash: partial report, the signal passed on as 128+11
    let exe = compile(d.path(), "crash", "#include <stdio.h>\nint main(){ volatile long s=0; for(int i=0;i<100000;i++) s+=i; printf(\"%ld\\n\", s); fflush(stdout); *(volatile int*)0=1; return 0; }\n", &["-O1"]);
    let (out, v) = run(&["--no-sensitivity", "--no-idealize"], &exe, &[]);
    assert_eq!(out.status.code(), Some(128 + 11));
    assert_eq!(v["complete"], false);
    assert_eq!(v["signal"], 11);
    assert!(v["instructions_simulated"].as_u64().unwrap() > 300_000);
    assert!(String::from_utf8_lossy(&out.stderr).contains("partial report"));
}

/// A loop where the FP add recurrence (4 cycles on skylake) and the 4-wide dispatch and retire
/// (16 fused uops) bind together: no single resource helps, the width+latency set does.
const WIDTH_AND_LATENCY: &str = r#"
#include <stdio.h>
__attribute__((noinline)) double kernel(long n) {
    double s = 0.0, one = 1.0;
    __asm__ volatile(
        "1:\n\t"
        "vaddsd %[one], %[s], %[s]\n\t"
        ".rept 14\n\tnop\n\t.endr\n\t"
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        : [s] "+x"(s), [n] "+r"(n) : [one] "x"(one));
    return s;
}
int main(void) { printf("%f\n", kernel(100000)); return 0; }
"#;

#[test]
fn balanced_loop_names_the_set_that_binds() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "wl", WIDTH_AND_LATENCY, &["-O2"]);
    let (out, v) = run(&["--machine", "skylake", "--roi", "function:kernel", "--weights", "1.15", "--no-idealize"], &exe, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cpi = v["cycles"].as_f64().unwrap() / 100_000.0;
    assert!((cpi - 4.0).abs() < 0.1, "4 cycles per iteration, got {cpi}");
    for single in ["frontend", "commit", "latency"] {
        assert!(speedup(&v, single) < 0.02, "{single} alone: {}", speedup(&v, single));
    }
    assert_eq!(top(&v), "frontend+commit+latency", "{}", v["bottlenecks"]);
    assert!(v["bottlenecks"][0]["speedup"].as_f64().unwrap() > 0.1);
}
