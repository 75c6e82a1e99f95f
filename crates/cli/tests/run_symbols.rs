//! `bottlenose run` names code like perf: a stripped PIE calling a shared
//! library built here, C++ and Rust programs, and `--roi function:NAME` on a
//! library function. Expected names and addresses come from nm, c++filt and
//! the sources, which do not go through bottlenose.
mod common;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Elements lib_sum adds per call, and calls of it.
const N: u64 = 20_000;
const CALLS: u64 = 3;

const LIB_C: &str = "long lib_sum(const long *a, long n) { long s = 0; for (long i = 0; i < n; i++) s += a[i] * 3; return s; }\n";
const OTHER_C: &str = "long lib_sum(const long *a, long n) { return n ? a[0] : 0; }\n";
const MAIN_C: &str = r#"
#include <stdio.h>
long lib_sum(const long *a, long n);
__attribute__((noinline)) static void fill(long *a, long n) { for (long i = 0; i < n; i++) a[i] = i ^ 5; }
int main(void) {
    static long a[20000];
    fill(a, 20000);
    long s = 0;
    for (int r = 0; r < 3; r++) s += lib_sum(a, 20000);
    printf("%ld\n", s);
    return 0;
}
"#;

fn sh(cmd: &mut Command) {
    let out = cmd.output().expect("tool runs");
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// `(start, size)` of `name` by nm.
fn nm(path: &Path, name: &str) -> (u64, u64) {
    let out = Command::new("nm").args(["-S", "--defined-only"]).arg(path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() == 4 && f[3] == name)
        .map(|f| (u64::from_str_radix(f[0], 16).unwrap(), u64::from_str_radix(f[1], 16).unwrap()))
        .unwrap_or_else(|| panic!("nm: no {name} in {}", path.display()))
}

/// `libdemo.so` (stripped), `prog` (stripped PIE linked to it, found through
/// its run path) and `prog.full`, the unstripped copy for nm. With `twice`,
/// `libother.so` defines `lib_sum` too and is linked as well.
fn build(dir: &Path, twice: bool) -> (PathBuf, PathBuf, PathBuf) {
    std::fs::write(dir.join("lib.c"), LIB_C).unwrap();
    std::fs::write(dir.join("other.c"), OTHER_C).unwrap();
    std::fs::write(dir.join("main.c"), MAIN_C).unwrap();
    let lib = dir.join("libdemo.so");
    sh(Command::new("gcc").args(["-O1", "-shared", "-fPIC", "-o"]).arg(&lib).arg(dir.join("lib.c")));
    let mut link = Command::new("gcc");
    link.args(["-O1", "-pie", "-fPIE", "-Wl,-rpath,$ORIGIN", "-Wl,--no-as-needed", "-o"]).arg(dir.join("prog")).arg(dir.join("main.c")).arg(&lib);
    if twice {
        let other = dir.join("libother.so");
        sh(Command::new("gcc").args(["-O1", "-shared", "-fPIC", "-o"]).arg(&other).arg(dir.join("other.c")));
        link.arg(&other);
    }
    sh(&mut link);
    let exe = dir.join("prog");
    let full = dir.join("prog.full");
    std::fs::copy(&exe, &full).unwrap();
    std::fs::copy(&lib, dir.join("libdemo.so.full")).unwrap();
    sh(Command::new("strip").arg("-s").arg(&exe));
    sh(Command::new("strip").arg("-s").arg(&lib));
    (exe, lib, full)
}

fn run(args: &[&str], prog: &Path) -> Value {
    common::run_json(&[args, &["--no-idealize", "--no-views"]].concat(), prog, &[])
}

fn hex(v: &Value) -> u64 {
    let s = v.as_str().unwrap_or_else(|| panic!("address is a hex string: {v}"));
    u64::from_str_radix(s, 16).unwrap_or_else(|_| panic!("hex digits: {s}"))
}

#[test]
fn stripped_pie_and_its_library_are_named_by_file() {
    let d = tempfile::tempdir().unwrap();
    let (exe, _lib, full) = build(d.path(), false);
    let v = run(&[], &exe);
    let (sum, sum_size) = nm(&d.path().join("libdemo.so.full"), "lib_sum");
    let (fill, _) = nm(&full, "fill");
    let functions = v["functions"].as_array().unwrap();
    let row = |name: &str| functions.iter().find(|f| f["function"] == name).unwrap_or_else(|| panic!("no {name} in {functions:#?}"));
    // the library's function by its .dynsym name: every element of every call at least once
    assert!(row("libdemo.so!lib_sum")["instructions"].as_u64().unwrap() >= CALLS * N);
    // the stripped executable's function by its .eh_frame range, named by where nm saw it
    assert!(row(&format!("prog+{fill:#x}"))["instructions"].as_u64().unwrap() >= N);
    assert!(functions.iter().any(|f| f["function"].as_str().unwrap().starts_with("libc.so.6!")), "{functions:#?}");
    for f in functions {
        let name = f["function"].as_str().unwrap();
        assert!(!["[unknown]", "[shared]", "[unmapped]", "[jit]"].contains(&name), "{name}");
    }
    // addresses are objdump's, in the file named beside them
    let hot = &v["hot_instructions"][0];
    assert_eq!(hot["dso"], "libdemo.so", "{hot}");
    assert!((sum..sum + sum_size).contains(&hex(&hot["address"])), "{hot} vs lib_sum at {sum:#x}");
    let l = &v["loops"][0];
    assert_eq!((l["dso"].as_str(), l["function"].as_str()), (Some("libdemo.so"), Some("libdemo.so!lib_sum")), "{l}");
    assert!((sum..sum + sum_size).contains(&hex(&l["head"])), "{l}");
    assert_eq!(v["hottest_loop_head"], l["head"]);
    // by file: every cycle is in a file (no JIT here); the stripped executable's
    // code has no symbol but what .dynsym keeps; libdemo's runs in lib_sum
    // (.dynsym) but for its few start-up instructions (_init, frame_dummy: .symtab
    // only); libc's in its functions (glibc's debug file, libc6-dbg)
    let files = v["files"].as_array().unwrap();
    let file = |name: &str| files.iter().find(|f| f["dso"] == name).unwrap_or_else(|| panic!("no {name} in {files:#?}"));
    let share = |f: &Value, k: &str| f[k].as_f64().unwrap();
    assert!((files.iter().map(|f| share(f, "share")).sum::<f64>() - 1.0).abs() < 1e-9, "{files:#?}");
    assert!(files.iter().all(|f| f["dso"].is_string()), "{files:#?}");
    let lib = file("libdemo.so");
    assert!(share(lib, "named_share") > 0.95 * share(lib, "share"), "{lib}");
    let libc = file("libc.so.6");
    assert!(share(libc, "share") > 0.0 && share(libc, "named_share") == share(libc, "share"), "{libc}");
    let prog = file("prog");
    assert!(share(prog, "named_share") < 0.5 * share(prog, "share"), "{prog}");
}

#[test]
fn roi_on_a_library_function() {
    let d = tempfile::tempdir().unwrap();
    let (exe, _, _) = build(d.path(), false);
    let (sum, _) = nm(&d.path().join("libdemo.so.full"), "lib_sum");
    for spec in ["function:lib_sum", "function:libdemo.so!lib_sum"] {
        let v = run(&["--roi", spec], &exe);
        assert_eq!(v["roi"]["entries"], CALLS, "{spec}: {}", v["roi"]);
        assert_eq!(v["roi"]["dso"], "libdemo.so");
        assert_eq!(hex(&v["roi"]["start"]), sum);
        let n = v["instructions_simulated"].as_u64().unwrap();
        // the loop body is a few instructions per element; nothing of main or fill
        assert!((CALLS * N..CALLS * N * 8).contains(&n), "{spec}: {n}");
        assert!(v["functions"].as_array().unwrap().iter().all(|f| f["function"] == "libdemo.so!lib_sum"), "{}", v["functions"]);
    }
}

const PLUGIN_MAIN_C: &str = r#"
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    static long a[20000];
    for (long i = 0; i < 20000; i++) a[i] = i ^ 5;
    void *h = dlopen(argc > 1 ? argv[1] : "libplug.so", RTLD_NOW);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    long (*sum)(const long *, long) = (long (*)(const long *, long))dlsym(h, "lib_sum");
    long s = 0;
    for (int r = 0; r < 3; r++) s += sum(a, 20000);
    printf("%ld\n", s);
    return 0;
}
"#;

/// A library the program dlopens (not mapped at start, so ldd does not list
/// it) is named by its path, or by its file name where dlopen finds it (here
/// through the program's run path).
#[test]
fn roi_on_a_function_of_a_dlopened_library() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("lib.c"), LIB_C).unwrap();
    std::fs::write(d.path().join("main.c"), PLUGIN_MAIN_C).unwrap();
    let lib = d.path().join("libplug.so");
    sh(Command::new("gcc").args(["-O1", "-shared", "-fPIC", "-o"]).arg(&lib).arg(d.path().join("lib.c")));
    let exe = d.path().join("host");
    sh(Command::new("gcc").args(["-O1", "-Wl,-rpath,$ORIGIN", "-o"]).arg(&exe).arg(d.path().join("main.c")).arg("-ldl"));
    let ldd = Command::new("ldd").arg(&exe).output().unwrap();
    assert!(!String::from_utf8_lossy(&ldd.stdout).contains("libplug"), "loaded by dlopen only");
    let (sum, _) = nm(&lib, "lib_sum");
    let by_path = format!("function:{}!lib_sum", lib.display());
    for spec in ["function:libplug.so!lib_sum", by_path.as_str()] {
        let v = run(&["--roi", spec], &exe);
        assert_eq!(v["roi"]["entries"], CALLS, "{spec}: {}", v["roi"]);
        assert_eq!(v["roi"]["dso"], "libplug.so");
        assert_eq!(hex(&v["roi"]["start"]), sum);
        let n = v["instructions_simulated"].as_u64().unwrap();
        assert!(n >= CALLS * N && n < CALLS * N * 8, "{spec}: {n}");
        assert!(v["functions"].as_array().unwrap().iter().all(|f| f["function"] == "libplug.so!lib_sum"), "{}", v["functions"]);
    }
    // without the library's name the function is not found, and the error says how to name it
    let e = roi_error("function:lib_sum", &exe);
    assert!(e.contains("no function 'lib_sum'") && e.contains("dlopen"), "{e}");
    let e = roi_error("function:libnoplug.so!lib_sum", &exe);
    assert!(e.contains("'libnoplug.so'") && e.contains("function:/path/to/libnoplug.so!lib_sum"), "{e}");
}

/// Writes a counting loop into anonymous executable memory, runs it and
/// prints where the loop starts (the guest's address: the program's own
/// pointer). Its 3-instruction body runs `JIT_N` times.
const JIT_C: &str = r#"
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
int main(void) {
    /* xor eax,eax; mov ecx,JIT_N; L: add eax,ecx; dec ecx; jnz L; ret */
    unsigned char code[] = {0x31, 0xc0, 0xb9, 0xa0, 0x86, 0x01, 0x00, 0x01, 0xc8, 0xff, 0xc9, 0x75, 0xfa, 0xc3};
    unsigned char *p = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 2;
    memcpy(p, code, sizeof code);
    int r = ((int (*)(void))p)();
    printf("%lx %d\n", (unsigned long)(p + 7), r);
    return 0;
}
"#;
/// The loop count in JIT_C's `mov ecx` (0x186a0).
const JIT_N: u64 = 100_000;

#[test]
fn code_in_anonymous_memory_is_jit() {
    let d = tempfile::tempdir().unwrap();
    let exe = common::compile(d.path(), "jit", JIT_C, &["-O1"]);
    let (out, v) = common::run_report(&["--no-sensitivity", "--no-idealize", "--no-views"], &exe, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (loop_at, sum) = stdout.trim().split_once(' ').unwrap();
    // the sum of 1..=JIT_N, truncated to 32 bits as eax holds it
    assert_eq!(sum.parse::<i64>().unwrap(), (JIT_N * (JIT_N + 1) / 2) as u32 as i32 as i64);
    let loop_at = u64::from_str_radix(loop_at, 16).unwrap();
    let functions = v["functions"].as_array().unwrap();
    let jit = functions.iter().find(|f| f["function"] == "[jit]").unwrap_or_else(|| panic!("no [jit] in {functions:#?}"));
    assert!(jit["instructions"].as_u64().unwrap() >= 3 * JIT_N, "{jit}");
    // its loop has no file: the guest address the program printed
    let l = v["loops"].as_array().unwrap().iter().find(|l| l["function"] == "[jit]").unwrap_or_else(|| panic!("{}", v["loops"]));
    assert_eq!(l["dso"], Value::Null, "{l}");
    assert_eq!(hex(&l["head"]), loop_at, "{l}");
    assert!(l["iterations"].as_u64().unwrap() >= JIT_N - 1, "{l}");
    // nothing else is left without a name
    for f in functions {
        let name = f["function"].as_str().unwrap();
        assert!(!["[unknown]", "[shared]", "[unmapped]"].contains(&name), "{name}");
    }
    // the text report names the file column of a JIT instruction [jit]
    let text = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
        .env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "-q", "--no-sensitivity", "--no-idealize", "--no-views", "--"])
        .arg(&exe)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stderr);
    // the loop's jnz (after the 2-byte add and dec) takes its cycles at retirement
    let jnz = ["[jit]".to_string(), format!("{:x}", loop_at + 4), "jne".into()];
    assert!(text.lines().any(|l| l.split_whitespace().take(3).eq(jnz.iter().map(String::as_str))), "{jnz:?} in\n{text}");
    assert!(text.contains(&format!("Hottest loop at 0x{loop_at:x} in [jit], function [jit]")), "{text}");
    // and its share of the cycles by file as the JSON's files have it
    let jit_share = v["files"].as_array().unwrap().iter().find(|f| f["dso"].is_null()).unwrap()["share"].as_f64().unwrap();
    let by_file = text.lines().find(|l| l.starts_with("  by file: ")).unwrap_or_else(|| panic!("{text}"));
    assert!(by_file.contains(&format!("[jit] {:.1}%", jit_share * 100.0)), "{by_file}");
}

/// Runs `bottlenose run --roi SPEC` and returns its stderr, which must be one
/// line, with a failing status.
fn roi_error(spec: &str, exe: &Path) -> String {
    let (out, _) = common::run_report(&["--roi", spec], exe, &[]);
    assert!(!out.status.success(), "{spec} should fail");
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn roi_names_that_are_missing_ambiguous_or_indirect_are_one_line_errors() {
    let d = tempfile::tempdir().unwrap();
    let (exe, _, _) = build(d.path(), true);
    let e = roi_error("function:no_such_fn", &exe);
    assert!(e.contains("no function 'no_such_fn'"), "{e}");
    let e = roi_error("function:lib_sum", &exe);
    assert!(e.contains("libdemo.so") && e.contains("libother.so") && e.contains("several files"), "{e}");
    let e = roi_error("function:libnothere.so!lib_sum", &exe);
    assert!(e.contains("does not load a library 'libnothere.so'"), "{e}");
    // memcpy is a GNU indirect function in glibc (STT_GNU_IFUNC in its .dynsym)
    let e = roi_error("function:libc.so.6!memcpy", &exe);
    assert!(e.contains("indirect function"), "{e}");
}

#[test]
fn cpp_and_rust_names_are_demangled() {
    let d = tempfile::tempdir().unwrap();
    let cpp = d.path().join("p.cpp");
    std::fs::write(
        &cpp,
        "#include <vector>\nnamespace geo { template <typename T> __attribute__((noinline)) T dot(const std::vector<T>& a, const std::vector<T>& b) { T s = 0; for (std::size_t i = 0; i < a.size(); i++) s += a[i] * b[i]; return s; } }\nint main() { std::vector<long> v(20000, 3); return (int)(geo::dot(v, v) & 1); }\n",
    )
    .unwrap();
    let exe = d.path().join("p");
    sh(Command::new("g++").args(["-O1", "-o"]).arg(&exe).arg(&cpp));
    let out = Command::new("nm").arg("--defined-only").arg(&exe).output().unwrap();
    let mangled = String::from_utf8(out.stdout).unwrap().lines().find_map(|l| l.split_whitespace().nth(2).filter(|n| n.contains("3dot")).map(str::to_string)).unwrap();
    let filt = Command::new("c++filt").arg(&mangled).output().unwrap();
    let want = format!("p!{}", String::from_utf8(filt.stdout).unwrap().trim());
    let v = run(&[], &exe);
    assert!(v["functions"].as_array().unwrap().iter().any(|f| f["function"] == want.as_str()), "{want} in {}", v["functions"]);
    // the ROI takes the demangled name as the tables show it
    let name = want.trim_start_matches("p!");
    let roi = run(&["--roi", &format!("function:{name}")], &exe);
    assert_eq!(roi["roi"]["entries"], 1, "{}", roi["roi"]);

    let rs = d.path().join("demo.rs");
    std::fs::write(
        &rs,
        "mod kernels { #[inline(never)] pub fn hot_loop(n: u64) -> u64 { (0..n).fold(0, |s, i| s ^ (i * 7)) } }\nfn main() { std::process::exit((kernels::hot_loop(std::env::args().count() as u64 * 20000) & 1) as i32); }\n",
    )
    .unwrap();
    let demo = d.path().join("demo");
    sh(Command::new("rustc").args(["-O", "--crate-name", "demo", "-o"]).arg(&demo).arg(&rs));
    let v = run(&[], &demo);
    assert!(v["functions"].as_array().unwrap().iter().any(|f| f["function"] == "demo!demo::kernels::hot_loop"), "{}", v["functions"]);
}
