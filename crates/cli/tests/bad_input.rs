//! Bad input gets a one-line error naming the problem and a non-zero exit, never a panic.

use std::process::{Command, Output};

fn bn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(args).output().expect("run bottlenose")
}

fn bn_env(args: &[&str], key: &str, val: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(args).env(key, val).output().expect("run bottlenose")
}

/// Asserts failure with exactly one stderr line containing every `needle`.
fn fails_with(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "expected failure, got success; stderr: {err}");
    assert_ne!(out.status.code(), Some(101), "panicked: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line, got: {err}");
    for n in needles {
        assert!(lines[0].contains(n), "'{}' does not mention '{n}'", lines[0]);
    }
}

fn tmp(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join(name);
    std::fs::write(&p, text).unwrap();
    (d, p.display().to_string())
}

#[test]
fn malformed_hex() {
    fails_with(&bn(&["analyze", "--hex", "48 01 zz"]), &["invalid character 'z'"]);
    fails_with(&bn(&["analyze", "--hex", "480"]), &["odd number of hex digits"]);
}

#[test]
fn invalid_instruction_bytes() {
    fails_with(&bn(&["analyze", "--hex", "06 90 90"]), &["invalid instruction bytes at 0x0"]);
    fails_with(&bn(&["analyze", "--hex", "48"]), &["truncated"]);
}

#[test]
fn unknown_mnemonic() {
    let (_d, p) = tmp("k.s", "add %rax, %rbx\nfrobnicate %rax\n");
    fails_with(&bn(&["analyze", &p]), &["k.s:2", "frobnicate"]);
}

#[test]
fn empty_block() {
    let (_d, p) = tmp("empty.s", "# nothing here\n");
    fails_with(&bn(&["analyze", &p]), &["no instructions"]);
}

#[test]
fn missing_assembler() {
    let (_d, p) = tmp("k.s", "add %rax, %rbx\n");
    fails_with(&bn_env(&["analyze", &p], "PATH", "/nonexistent"), &["GNU as not found", "binutils"]);
}

#[test]
fn broken_machine_files() {
    let (_d, p) = tmp("k.s", "add %rax, %rbx\n");
    let dir = tempfile::tempdir().unwrap();
    let forms = dir.path().join("m.forms.toml");
    std::fs::write(&forms, "[units]\np0 = \"x\"\n[forms]\n\"add r64, r64\" = { uops = 1, latency = 1, use = { p0 = 1 } }\n").unwrap();
    let good = "name = \"m\"\nforms = \"m.forms.toml\"\n[core]\ndispatch_width = 4\ncommit_width = 4\nrob = 64\nscheduler = 32\nload_buffer = 8\nstore_buffer = 8\n[memory]\nload_latency = 4\nstore_forward_latency = 4\nload_groups = [\"p0\"]\nstore_address_groups = [\"p0\"]\nstore_data_groups = [\"p0\"]\n[default_form]\nuops = 1\nlatency = 1\nuse = { p0 = 1 }\n";
    let m = dir.path().join("m.toml");
    std::fs::write(&m, good).unwrap();
    let ok = bn(&["analyze", &p, "--machine", m.to_str().unwrap(), "--no-sensitivity"]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));

    std::fs::write(&m, good.replace("rob = 64", "rob = 0")).unwrap();
    fails_with(&bn(&["analyze", &p, "--machine", m.to_str().unwrap()]), &["m.toml:6", "core.rob", "must be > 0"]);

    std::fs::write(&m, good.replace("rob = 64", "rob = \"big\"")).unwrap();
    fails_with(&bn(&["analyze", &p, "--machine", m.to_str().unwrap()]), &["m.toml:6", "invalid type"]);

    std::fs::write(&m, good.replace("[core]", "[core]\nwidht = 3")).unwrap();
    fails_with(&bn(&["analyze", &p, "--machine", m.to_str().unwrap()]), &["m.toml", "unknown field `widht`"]);

    std::fs::write(&m, good.replace("load_groups = [\"p0\"]", "load_groups = [\"p9\"]")).unwrap();
    fails_with(&bn(&["analyze", &p, "--machine", m.to_str().unwrap()]), &["m.toml:13", "memory.load_groups", "p9"]);

    std::fs::write(&m, good.replace("store_data_groups", "indexed_store_address_groups = [\"p23\"]\nstore_data_groups")).unwrap();
    fails_with(&bn(&["analyze", &p, "--machine", m.to_str().unwrap()]), &["m.toml:15", "memory.indexed_store_address_groups", "p23"]);

    std::fs::write(&m, good.replace("name = \"m\"", "name = \"m\"\n[[[")).unwrap();
    fails_with(&bn(&["analyze", &p, "--machine", m.to_str().unwrap()]), &["m.toml:2"]);

    std::fs::write(&forms, "[units]\np0 = \"x\"\n[forms]\n\"add r64, r64\" = { uops = 1, latency = 1, use = { p7 = 1 } }\n").unwrap();
    std::fs::write(&m, good).unwrap();
    fails_with(&bn(&["analyze", &p, "--machine", m.to_str().unwrap()]), &["m.forms.toml:4", "add r64, r64", "p7"]);
}

#[test]
fn unknown_machine_and_resource() {
    let (_d, p) = tmp("k.s", "add %rax, %rbx\n");
    fails_with(&bn(&["analyze", &p, "--machine", "pentium9"]), &["unknown machine 'pentium9'", "skylake"]);
    fails_with(&bn(&["analyze", &p, "--resources", "p99"]), &["unknown resource 'p99'"]);
    fails_with(&bn(&["analyze", &p, "--weights", "0"]), &["bad weight"]);
}

#[test]
fn elf_inputs() {
    let (_d, p) = tmp("k.s", "add %rax, %rbx\n");
    fails_with(&bn(&["analyze", &p, "--function", "main"]), &["need an ELF file"]);
    fails_with(&bn(&["analyze", "/nonexistent/prog", "--function", "main"]), &["cannot read /nonexistent/prog"]);
    let exe = std::env::current_exe().unwrap();
    fails_with(&bn(&["analyze", exe.to_str().unwrap()]), &["is an ELF file", "--function"]);
    fails_with(&bn(&["analyze", exe.to_str().unwrap(), "--function", "no_such_function_xyz"]), &["no_such_function_xyz"]);
}

#[test]
fn avx512_on_a_machine_without_it() {
    let (_d, p) = tmp("z.s", "vaddpd %zmm1, %zmm2, %zmm3\ndec %ecx\njnz .-8\n");
    fails_with(&bn(&["analyze", &p, "--machine", "skylake"]), &["vaddpd zmm3, zmm2, zmm1", "AVX-512", "skylake does not execute", "zen4"]);
    assert!(bn(&["analyze", &p, "--machine", "zen4"]).status.success());
}

#[test]
fn broken_calibration_overlay() {
    let (_d, p) = tmp("o.toml", "[calibration]\nbase = \"zen4\"\ncpu = \"c\"\nsignature = \"s\"\ndate = \"d\"\ntool = \"t\"\n\n[[set]]\nkey = \"core.robb\"\nvalue = 1\nnote = \"n\"\n");
    fails_with(&bn(&["analyze", "examples/jacobi.s", "--machine", &p]), &["o.toml:9", "core.robb", "no such parameter"]);
    let (_d2, p2) = tmp("o.toml", "[calibration]\nbase = \"zen4\"\n[[set]\n");
    fails_with(&bn(&["analyze", "examples/jacobi.s", "--machine", &p2]), &["o.toml:3"]);
}

#[test]
fn calibration_from_another_cpu() {
    let (_d, p) = tmp("other.toml", "[calibration]\nbase = \"zen4\"\ncpu = \"Some Other CPU\"\nsignature = \"GenuineIntel-6-999-0\"\ndate = \"d\"\ntool = \"t\"\n");
    fails_with(
        &bn(&["analyze", "examples/jacobi.s", "--machine", &p]),
        &["other.toml was measured on Some Other CPU (GenuineIntel-6-999-0), but this host is", "bottlenose calibrate", "--machine zen4"],
    );
}

#[test]
fn unknown_machine_names_the_aliases() {
    fails_with(&bn(&["analyze", "examples/jacobi.s", "--machine", "pentium9"]), &["unknown machine 'pentium9'", "skylake (skl"]);
    // every alias works wherever a machine is named
    for alias in ["skl", "SKYLAKE", "znver4"] {
        let out = bn(&["machines", "show", alias]);
        assert!(out.status.success(), "{alias}: {}", String::from_utf8_lossy(&out.stderr));
    }
}
