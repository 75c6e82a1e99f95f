//! Helpers shared by the CLI's integration tests.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Compiles one C file with gcc into `dir/name`.
pub fn compile(dir: &Path, name: &str, src: &str, flags: &[&str]) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let exe = dir.join(name);
    let out = Command::new("gcc").args(flags).arg(&c).arg("-o").arg(&exe).output().unwrap();
    assert!(out.status.success(), "gcc: {}", String::from_utf8_lossy(&out.stderr));
    exe
}
