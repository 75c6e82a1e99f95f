//! Helpers shared by the trace crate's integration tests: a visitor that
//! records every call as text, memory access literals, the plugin built by
//! cargo and programs built by gcc.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use bottlenose_trace::{find_plugin, MemAccess, TraceVisitor, PLUGIN_FILE_NAME};

/// Records every visitor call as text.
#[derive(Default)]
pub struct Recorder(pub Vec<String>);

impl TraceVisitor for Recorder {
    fn tb_def(&mut self, id: u32, insns: &[(u64, &[u8])]) {
        let list: Vec<String> = insns
            .iter()
            .map(|(v, b)| format!("{v:#x}:{}", hex(b)))
            .collect();
        self.0.push(format!("def {id} [{}]", list.join(" ")));
    }
    fn tb_exec(&mut self, id: u32, vcpu: u16) {
        self.0.push(format!("exec {id} on {vcpu}"));
    }
    fn mem(&mut self, vcpu: u16, insn_index: u16, vaddr: u64, size: u8, is_store: bool) {
        let kind = if is_store { "store" } else { "load" };
        self.0
            .push(format!("mem {vcpu}/{insn_index} {kind} {size}@{vaddr:#x}"));
    }
    fn map(&mut self, start: u64, end: u64, offset: u64, path: &[u8]) {
        self.0.push(format!("map {start:#x}-{end:#x}@{offset:#x} {}", String::from_utf8_lossy(path)));
    }
    fn end(&mut self) {
        self.0.push("end".to_string());
    }
    fn exit(&mut self, code: i32) {
        self.0.push(format!("exit {code}"));
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn load(size: u8, vaddr: u64) -> MemAccess {
    MemAccess {
        vaddr,
        size,
        is_store: false,
    }
}

pub fn store(size: u8, vaddr: u64) -> MemAccess {
    MemAccess {
        vaddr,
        size,
        is_store: true,
    }
}

/// Builds the plugin with cargo (a no-op when up to date) into this test
/// binary's profile directory, where `find_plugin` looks.
pub fn plugin() -> PathBuf {
    static PLUGIN: OnceLock<PathBuf> = OnceLock::new();
    PLUGIN
        .get_or_init(|| {
            let exe = std::env::current_exe().unwrap();
            // target/<profile>/deps/<test binary>
            let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
            let mut cmd = Command::new(env!("CARGO"));
            cmd.args(["build", "--quiet", "-p", "bottlenose-qemu-plugin"])
                .current_dir(env!("CARGO_MANIFEST_DIR"));
            if profile_dir.file_name() == Some("release".as_ref()) {
                cmd.arg("--release");
            }
            let status = cmd.status().expect("cargo runs");
            assert!(status.success(), "building the plugin failed");
            let so = profile_dir.join(PLUGIN_FILE_NAME);
            assert!(so.is_file(), "{} missing after the build", so.display());
            if std::env::var_os("BOTTLENOSE_QEMU_PLUGIN").is_none() {
                // It finds target/<profile>/deps/ (cargo's own copy, a hard
                // link) or target/<profile>/.
                let found = find_plugin().unwrap();
                assert_eq!(found.file_name(), so.file_name());
                assert!(
                    so.parent().unwrap().starts_with(found.parent().unwrap())
                        || found.parent().unwrap().starts_with(so.parent().unwrap())
                );
            }
            so
        })
        .clone()
}

/// Compiles `files` (name, text) with gcc into `dir/name`.
pub fn gcc(dir: &Path, name: &str, files: &[(&str, &str)], flags: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let mut cmd = Command::new("gcc");
    cmd.args(flags).arg("-o").arg(&out);
    for (file, text) in files {
        let p = dir.join(file);
        std::fs::write(&p, text).unwrap();
        cmd.arg(p);
    }
    let status = cmd.status().expect("gcc must be installed for these tests");
    assert!(status.success(), "gcc failed for {name}");
    out
}
