//! Helpers shared by the integration tests: compiling C with gcc and reading
//! `nm` / `objdump` output.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A C program with known line numbers (see the asserts in the tests).
pub const PROG_C: &str = r#"#include <stdio.h>

__attribute__((noinline)) long work(long n) {
    long s = 0;
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < i; j++) {
            s += i ^ j;
        }
    }
    return s;
}

__attribute__((noinline)) long fact(long n) {
    if (n <= 1)
        return 1;
    return n * fact(n - 1) + 1;
}

int main(int argc, char **argv) {
    long r = work(argc * 100);
    r += fact(argc + 5);
    printf("%ld\n", r);
    return 0;
}
"#;
/// Line spans `[first, last]` of the functions in [`PROG_C`].
pub const WORK_LINES: (u32, u32) = (3, 11);
pub const FACT_LINES: (u32, u32) = (13, 17);
pub const MAIN_LINES: (u32, u32) = (19, 24);

/// Compiles `src` with gcc and `flags` into a fresh temporary directory.
pub fn compile(src: &str, flags: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let c = dir.path().join("prog.c");
    std::fs::write(&c, src).expect("write C source");
    let out = dir.path().join("prog");
    let status = Command::new("gcc")
        .args(flags)
        .arg(&c)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("gcc must be installed to run these tests");
    assert!(status.success(), "gcc {flags:?} failed");
    (dir, out)
}

/// `(start, size)` of a defined symbol according to `nm -S`.
pub fn nm(path: &Path, name: &str) -> (u64, u64) {
    let out = Command::new("nm")
        .args(["-S", "--defined-only"])
        .arg(path)
        .output()
        .expect("nm");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() == 4 && f[3] == name {
            return (
                u64::from_str_radix(f[0], 16).unwrap(),
                u64::from_str_radix(f[1], 16).unwrap(),
            );
        }
    }
    panic!("nm: no symbol {name} in\n{text}");
}

/// One instruction of `objdump -d`.
#[derive(Debug, Clone)]
pub struct Disasm {
    pub addr: u64,
    pub len: u8,
    pub function: String,
    pub mnemonic: String,
    /// Direct branch / call target.
    pub target: Option<u64>,
}

impl Disasm {
    pub fn is_branch(&self) -> bool {
        let m = self.mnemonic.as_str();
        m.starts_with('j') || m.starts_with("call") || m.starts_with("ret") || m.starts_with("loop")
    }
}

/// The instructions of the named functions, per `objdump -d`.
pub fn objdump(path: &Path, functions: &[&str]) -> Vec<Disasm> {
    let out = Command::new("objdump")
        .args(["-d", "--insn-width=16"])
        .arg(path)
        .output()
        .expect("objdump");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut current: Option<String> = None;
    let mut insns = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_suffix(">:") {
            let name = rest.split('<').nth(1).unwrap_or("").to_string();
            current = functions.contains(&name.as_str()).then_some(name);
            continue;
        }
        let Some(func) = &current else { continue };
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            continue;
        }
        let addr = u64::from_str_radix(cols[0].trim().trim_end_matches(':'), 16).unwrap();
        let len = cols[1].split_whitespace().count() as u8;
        let mut words = cols[2].split_whitespace();
        let mut mnemonic = words.next().unwrap_or("").to_string();
        while matches!(
            mnemonic.as_str(),
            "bnd" | "notrack" | "rep" | "repz" | "repnz" | "lock"
        ) {
            mnemonic = words.next().unwrap_or("").to_string();
        }
        let target = words.next().and_then(|w| u64::from_str_radix(w, 16).ok());
        insns.push(Disasm {
            addr,
            len,
            function: func.clone(),
            mnemonic,
            target,
        });
    }
    insns
}
