//! `analyze` on code with loops (an ELF function, a gcc -S file): each loop
//! is found (back edges) and analyzed on its own; the hottest by static
//! estimate is marked; `--whole` keeps the one-loop-body reading. Before,
//! a function was timed as one loop body: prologue, every loop, `ret` and
//! the code after it, once per "iteration".
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(args).output().expect("run bottlenose")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// A dot product and a triple loop nest; lines 3 and 8 are the innermost loops.
const KERNELS: &str = "\
double dot(const double *a, const double *b, long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
void mm(double *c, const double *a, const double *b, long n) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) { double s = 0; for (long k = 0; k < n; k++) s += a[i*n+k] * b[k*n+j]; c[i*n+j] = s; }
}
int main(void) { return 0; }
";

fn gcc(dir: &Path, args: &[&str], out: &str) -> PathBuf {
    let c = dir.join("k.c");
    std::fs::write(&c, KERNELS).unwrap();
    let o = dir.join(out);
    let st = Command::new("gcc").args(["-O2", "-fno-tree-vectorize"]).args(args).arg(&c).arg("-o").arg(&o).status().unwrap();
    assert!(st.success());
    o
}

#[test]
fn a_function_is_split_into_its_loops_and_the_innermost_is_hottest() {
    let d = tempfile::tempdir().unwrap();
    let exe = gcc(d.path(), &["-g"], "k");
    let exe = exe.to_str().unwrap();
    let v = json(&bn(&["analyze", exe, "--function", "mm", "--no-sensitivity", "--format", "json"]));
    let loops = v["loops"].as_array().expect("loops");
    assert_eq!(loops.len(), 3, "{loops:#?}");
    let depths: Vec<u64> = loops.iter().map(|l| l["depth"].as_u64().unwrap()).collect();
    assert_eq!(depths, [0, 1, 2]);
    let inner = &loops[2];
    assert_eq!(inner["hottest"], true);
    assert!(loops.iter().filter(|l| l["hottest"] == true).count() == 1);
    // DWARF puts the innermost loop on line 8, in mm
    assert!(inner["source"].as_str().unwrap().ends_with("k.c:8"), "{}", inner["source"]);
    assert_eq!(inner["function"], "mm");
    // its body: a load, a multiply, the FP add of the reduction, the pointer
    // bumps and the back edge; no ret, no push or pop of the prologue
    let asm: Vec<&str> = inner["report"]["instructions"].as_array().unwrap().iter().map(|r| r["asm"].as_str().unwrap()).collect();
    assert!(asm.iter().any(|a| a.starts_with("addsd")) && asm.iter().any(|a| a.starts_with("mulsd")), "{asm:?}");
    assert!(!asm.iter().any(|a| a.starts_with("ret") || a.starts_with("push") || a.starts_with("pop")), "{asm:?}");
    // the addsd recurrence: 4 cycles per iteration on Skylake (addsd latency 4)
    assert!((inner["cycles_per_iteration"].as_f64().unwrap() - 4.0).abs() < 0.05, "{}", inner["cycles_per_iteration"]);
    // the top level is the hottest loop's report
    assert_eq!(v["block"], inner["report"]["block"]);
    assert_eq!(v["cycles_per_iteration"], inner["cycles_per_iteration"]);
    assert_eq!(v["input"], "mm");
    // outer loops are timed without their inner loops: fewer own instructions
    assert!(loops[0]["own_instructions"].as_u64().unwrap() < loops[0]["instructions"].as_u64().unwrap());
    // the estimate, recomputed from the figures: cycles x 32^(depth+1), normalized
    let w: Vec<f64> = loops.iter().map(|l| l["cycles_per_iteration"].as_f64().unwrap() * 32f64.powi(l["depth"].as_i64().unwrap() as i32 + 1)).collect();
    let total: f64 = w.iter().sum();
    for (l, w) in loops.iter().zip(&w) {
        assert!((l["estimated_share"].as_f64().unwrap() - w / total).abs() < 1e-9);
    }

    // --whole: the function as one loop body, as before (prologue, loops, ret)
    let whole = json(&bn(&["analyze", exe, "--function", "mm", "--whole", "--no-sensitivity", "--format", "json"]));
    assert!(whole.get("loops").is_none());
    let asm: Vec<&str> = whole["instructions"].as_array().unwrap().iter().map(|r| r["asm"].as_str().unwrap()).collect();
    assert!(asm.last().unwrap().starts_with("ret"), "{asm:?}");
    assert!(whole["instructions_per_iteration"].as_u64().unwrap() > loops[0]["instructions"].as_u64().unwrap());
    // same with the longer name
    assert!(json(&bn(&["analyze", exe, "--function", "mm", "--whole-function", "--no-sensitivity", "--format", "json"])).get("loops").is_none());

    // text: the table, the hottest marked, then each loop's report
    let out = bn(&["analyze", exe, "--function", "dot", "--no-sensitivity"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("dot: 1 loop(s)"), "{text}");
    assert!(text.contains("k.c:3") && text.contains("<- hottest"), "{text}");
    assert!(text.contains("Block dot: loop 1 at 0x"), "{text}");
}

#[test]
fn a_gcc_s_file_is_split_into_the_loops_of_its_functions() {
    let d = tempfile::tempdir().unwrap();
    let s = gcc(d.path(), &["-S"], "k.s");
    let src = std::fs::read_to_string(&s).unwrap();
    let v = json(&bn(&["analyze", s.to_str().unwrap(), "--no-sensitivity", "--format", "json"]));
    let loops = v["loops"].as_array().expect("loops");
    let functions: Vec<&str> = loops.iter().map(|l| l["function"].as_str().unwrap()).collect();
    assert_eq!(functions, ["dot", "mm", "mm", "mm"]);
    let hottest: Vec<u64> = loops.iter().filter(|l| l["hottest"] == true).map(|l| l["number"].as_u64().unwrap()).collect();
    assert_eq!(hottest, [4]);
    // each source is a line of the .s file holding the header instruction
    for l in loops {
        let (file, line) = l["source"].as_str().unwrap().rsplit_once(':').unwrap();
        assert!(file.ends_with("k.s"));
        let text = src.lines().nth(line.parse::<usize>().unwrap() - 1).unwrap().trim();
        let first_asm = l["report"]["instructions"][0]["asm"].as_str().unwrap();
        // AT&T in the file, Intel in the report: the mnemonics agree
        assert_eq!(text.split_whitespace().next().unwrap().trim_end_matches(['q', 'l']), first_asm.split_whitespace().next().unwrap(), "{text} / {first_asm}");
    }
}

/// A hand-written file in gcc's layout (directives, two functions): known lines.
#[test]
fn loops_of_an_assembly_file_name_their_lines() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("two.s");
    std::fs::write(
        &p,
        "\t.text\n\t.globl f\n\t.type f, @function\nf:\n\t.cfi_startproc\n\txor %eax, %eax\n.L2:\n\timul %rax, %rax\n\tdec %rcx\n\tjnz .L2\n\tret\n\t.cfi_endproc\n\
         \t.type g, @function\ng:\n\tmov $3, %ecx\n.L5:\n\tadd %rbx, %rdx\n\tdec %rcx\n\tjnz .L5\n\tret\n",
    )
    .unwrap();
    let v = json(&bn(&["analyze", p.to_str().unwrap(), "--no-sensitivity", "--format", "json"]));
    let loops = v["loops"].as_array().unwrap();
    let seen: Vec<(&str, String)> = loops.iter().map(|l| (l["function"].as_str().unwrap(), l["source"].as_str().unwrap().rsplit('/').next().unwrap().to_string())).collect();
    assert_eq!(seen, [("f", "two.s:8".to_string()), ("g", "two.s:17".to_string())]);
    // imul chain 3 cycles against add chain 1: shares 3/4 and 1/4
    assert_eq!(loops[0]["hottest"], true);
    assert!((loops[0]["estimated_share"].as_f64().unwrap() - 0.75).abs() < 0.01, "{}", loops[0]["estimated_share"]);
    // CSV: both loops' rows, told apart by the block column
    let out = bn(&["analyze", p.to_str().unwrap(), "--no-sensitivity", "--format", "csv"]);
    let csv = String::from_utf8_lossy(&out.stdout);
    assert_eq!(csv.lines().filter(|l| l.starts_with("block,")).count(), 1, "{csv}");
    assert_eq!(csv.lines().filter(|l| l.contains("loop 1 at 0x")).count(), 3, "{csv}");
    assert_eq!(csv.lines().filter(|l| l.contains("loop 2 at 0x")).count(), 3, "{csv}");
    // HTML: the loop table, the hottest marked
    let html = d.path().join("two.html");
    assert!(bn(&["analyze", p.to_str().unwrap(), "--no-sensitivity", "--html", html.to_str().unwrap()]).status.success());
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Loops of ") && page.contains("two.s:8") && page.contains("75.0% (hottest)"), "{page}");
}

/// A file that is one loop body (the examples) reads as before: no loops key.
#[test]
fn a_loop_body_file_is_analyzed_as_before() {
    let jacobi = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/jacobi.s");
    let v = json(&bn(&["analyze", jacobi, "--no-sensitivity", "--format", "json"]));
    assert!(v.get("loops").is_none());
    assert_eq!(v["instructions_per_iteration"], 17);
}
