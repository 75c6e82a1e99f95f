//! Helpers shared by the CLI's integration tests.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Builds the QEMU plugin next to the `bottlenose` binary if it is not there yet.
pub fn ensure_plugin() {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_bottlenose"));
    if !exe.parent().unwrap().join("libbottlenose_qemu_plugin.so").exists() {
        let mut c = Command::new(env!("CARGO"));
        c.args(["build", "-p", "bottlenose-qemu-plugin"]);
        if exe.to_string_lossy().contains("/release/") {
            c.arg("--release");
        }
        assert!(c.status().unwrap().success(), "building the QEMU plugin");
    }
}

/// `bottlenose run ARGS --quiet --format json -- PROG PROG_ARGS`: its output and
/// its JSON report (`Null` when it wrote none).
pub fn run_report(args: &[&str], prog: &Path, prog_args: &[&str]) -> (Output, serde_json::Value) {
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let out = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake")
        .arg("run")
        .args(args)
        .args(["--quiet", "--format", "json", "--output"])
        .arg(&json)
        .arg("--")
        .arg(prog)
        .args(prog_args)
        .output()
        .unwrap();
    let v = std::fs::read_to_string(&json).map(|s| serde_json::from_str(&s).expect("json")).unwrap_or(serde_json::Value::Null);
    (out, v)
}

/// [`run_report`] without the sensitivity sweep, which must succeed; its report.
pub fn run_json(args: &[&str], prog: &Path, prog_args: &[&str]) -> serde_json::Value {
    let (out, v) = run_report(&[args, &["--no-sensitivity"]].concat(), prog, prog_args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    v
}

/// Compiles one C file with gcc into `dir/name`.
pub fn compile(dir: &Path, name: &str, src: &str, flags: &[&str]) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let exe = dir.join(name);
    let out = Command::new("gcc").args(flags).arg(&c).arg("-o").arg(&exe).output().unwrap();
    assert!(out.status.success(), "gcc: {}", String::from_utf8_lossy(&out.stderr));
    exe
}

/// Pointer chasing over a random cyclic permutation: `chase BYTES STEPS`
/// (defaults: 4 MiB, 50,000 steps); the chase is the function `chase`.
pub const CHASE_C: &str = r#"
#include <stdlib.h>
#include <stdio.h>
__attribute__((noinline)) void *chase(void **p, long n) { while (n--) p = (void **)*p; return p; }
int main(int argc, char **argv) {
    long n = (argc > 1 ? atol(argv[1]) : 4 << 20) / sizeof(void *);
    long steps = argc > 2 ? atol(argv[2]) : 50000;
    void **a = malloc(n * sizeof(void *));
    long *perm = malloc(n * sizeof(long));
    for (long i = 0; i < n; i++) perm[i] = i;
    srand(7);
    for (long i = n - 1; i > 0; i--) { long j = rand() % (i + 1); long t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    for (long i = 0; i < n; i++) a[perm[i]] = &a[perm[(i + 1) % n]];
    printf("%p\n", chase(a, steps));
    return 0;
}
"#;
