//! `bottlenose analyze` end to end: inputs, JSON fields, regions.
use std::process::{Command, Output};

fn bn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(args).output().expect("run bottlenose")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

const FIG4: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/gus-fig4.s");

#[test]
fn json_has_the_documented_fields() {
    let v = json(&bn(&["analyze", FIG4, "--machine", "gus-fig4", "--iterations", "1", "--weights", "2", "--format", "json"]));
    for k in ["machine", "total_cycles", "cycles_per_iteration", "ipc", "resources", "sensitivity", "bottlenecks", "instructions", "unsupported_instructions"] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert_eq!(v["machine"], "gus-fig4");
    assert_eq!(v["total_cycles"], 4.0);
    let row = &v["instructions"][0];
    for k in ["address", "asm", "uops", "latency", "usage"] {
        assert!(row.get(k).is_some(), "instruction row lacks {k}");
    }
    assert_eq!(row["asm"], "mul rbx");
    let p = &v["sensitivity"][0];
    assert!(p["resources"].is_array() && p["weight"].is_number() && p["speedup"].is_number());
    assert_eq!(v["bottlenecks"][0]["resources"][0], "p1");
}

#[test]
fn text_report_names_the_bottleneck() {
    let out = bn(&["analyze", FIG4, "--machine", "gus-fig4", "--iterations", "1", "--weights", "2"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(s.contains("cycles/iteration 4.00"), "{s}");
    assert!(s.lines().any(|l| l.trim_start().starts_with("p1") && l.contains("+33.3%")), "{s}");
}

#[test]
fn hex_input_and_combined_resources() {
    // mul rbx; sbb rcx, rdx ; as bytes
    let v = json(&bn(&[
        "analyze", "--hex", "48 f7 e3 48 19 d1", "--machine", "gus-fig4", "--weights", "2", "--combine", "p1,p06", "--format", "json",
    ]));
    assert_eq!(v["instructions"].as_array().unwrap().len(), 2);
    assert!(v["sensitivity"].as_array().unwrap().iter().any(|p| p["resources"].as_array().unwrap().len() == 2));
}

#[test]
fn llvm_mca_regions_give_one_report_each() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("r.s");
    std::fs::write(
        &p,
        ".intel_syntax noprefix\n# LLVM-MCA-BEGIN first\nmul rbx\n# LLVM-MCA-END\nsahf\n# LLVM-MCA-BEGIN second\nsbb rcx, rdx\nsahf\n# LLVM-MCA-END\n",
    )
    .unwrap();
    let v = json(&bn(&["analyze", p.to_str().unwrap(), "--machine", "gus-fig4", "--no-sensitivity", "--format", "json"]));
    let regions = v.as_array().expect("an array for several regions");
    assert_eq!(regions.len(), 2);
    assert_eq!(regions[0]["block"], "first");
    assert_eq!(regions[1]["instructions"].as_array().unwrap().len(), 2);
}

#[test]
fn elf_function_input() {
    let d = tempfile::tempdir().unwrap();
    let c = d.path().join("k.c");
    std::fs::write(&c, "long mulsum(long a, long b) { return a * b; }\n").unwrap();
    let o = d.path().join("k.o");
    let st = Command::new("gcc").args(["-O2", "-c", c.to_str().unwrap(), "-o", o.to_str().unwrap()]).status().unwrap();
    assert!(st.success());
    let v = json(&bn(&["analyze", o.to_str().unwrap(), "--function", "mulsum", "--machine", "gus-fig4", "--no-sensitivity", "--format", "json"]));
    let asm: Vec<String> = v["instructions"].as_array().unwrap().iter().map(|r| r["asm"].as_str().unwrap().to_string()).collect();
    assert!(asm.iter().any(|a| a.starts_with("imul")), "{asm:?}");
    assert!(asm.last().unwrap().starts_with("ret"), "{asm:?}");
}

#[test]
fn completions_and_man_page_come_from_the_cli_definition() {
    let c = bn(&["completions", "bash"]);
    assert!(c.status.success());
    let s = String::from_utf8_lossy(&c.stdout);
    assert!(s.contains("_bottlenose()") && s.contains("analyze") && s.contains("--roi"), "bash completion");
    let m = bn(&["man"]);
    let s = String::from_utf8_lossy(&m.stdout);
    assert!(s.contains(".TH bottlenose 1") && s.contains("analyze"), "man page");
    for sub in ["analyze", "run", "machines", "report", "topdown"] {
        let h = bn(&[sub, "--help"]);
        assert!(String::from_utf8_lossy(&h.stdout).contains("Example"), "{sub} --help has examples");
    }
}

#[test]
fn csv_table_output() {
    let out = bn(&["analyze", FIG4, "--machine", "gus-fig4", "--iterations", "1", "--no-sensitivity", "--format", "csv"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..5], &["block", "address", "asm", "uops", "latency"]);
    assert!(header.contains(&"usage_p06"));
    assert_eq!(lines.count(), 12, "one row per instruction");
    assert!(text.contains("\"sbb rcx, rdx\""), "fields with commas are quoted");
}

#[test]
fn colour_only_on_a_terminal_and_not_with_no_color() {
    let cmd = format!("{} analyze {FIG4} --machine gus-fig4 --iterations 1 --weights 2", env!("CARGO_BIN_EXE_bottlenose"));
    let tty = |env: &str, extra: &str| {
        let out = Command::new("script").args(["-qc", &format!("{env} {cmd} {extra}"), "/dev/null"]).output().expect("script(1) from bsdutils");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(tty("", "").contains("\x1b[1;31m  p1"), "top bottleneck in red on a terminal");
    assert!(!tty("NO_COLOR=1", "").contains('\x1b'));
    assert!(!tty("", "--no-color").contains('\x1b'));
    let piped = bn(&["analyze", FIG4, "--machine", "gus-fig4", "--iterations", "1", "--weights", "2"]);
    assert!(!String::from_utf8_lossy(&piped.stdout).contains('\x1b'), "no colour when not a terminal");
}

/// Without --machine (and without BOTTLENOSE_MACHINE) analyze uses the model
/// `machines host` names for this CPU, and the report says which host it ran on.
#[test]
fn default_machine_is_the_host_model() {
    let cache = tempfile::tempdir().unwrap();
    let plain = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_bottlenose"))
            .env_remove("BOTTLENOSE_MACHINE")
            .env("BOTTLENOSE_CACHE_DIR", cache.path())
            .args(args)
            .output()
            .unwrap()
    };
    let host = json(&plain(&["machines", "host", "--format", "json"]));
    let block = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/jacobi.s");
    let r = json(&plain(&["analyze", block, "--format", "json"]));
    assert_eq!(r["machine"], host["machine"]);
    assert_eq!(r["host"]["signature"], host["signature"]);
    assert!(r["host"]["identified"].as_str().unwrap().contains(host["machine"].as_str().unwrap()));
    assert!(r["host"].get("calibration").is_none(), "no calibration in an empty cache: {}", r["host"]);
    // an explicit machine still says which host the figure was made on
    let skl = json(&bn(&["analyze", block, "--machine", "skl", "--format", "json"]));
    assert_eq!(skl["machine"], "skylake");
    assert_eq!(skl["host"]["signature"], host["signature"]);
    assert!(skl["host"].get("identified").is_none());
}

/// A calibration overlay in the cache directory is picked up by --machine host.
#[test]
fn host_uses_the_calibration_in_the_cache() {
    let cache = tempfile::tempdir().unwrap();
    let plain = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_bottlenose")).env_remove("BOTTLENOSE_MACHINE").env("BOTTLENOSE_CACHE_DIR", cache.path()).args(args).output().unwrap()
    };
    let host = json(&plain(&["machines", "host", "--format", "json"]));
    let file = std::path::PathBuf::from(host["calibration_file"].as_str().unwrap());
    assert!(file.starts_with(cache.path()));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    // a deliberately narrow core: one instruction dispatched per cycle
    let overlay = format!(
        "[calibration]\nbase = \"{}\"\ncpu = \"this host\"\nsignature = \"{}\"\ndate = \"2026-11-24\"\ntool = \"test\"\n\n[[set]]\nkey = \"core.dispatch_width\"\nvalue = 1\nnote = \"test\"\n",
        host["machine"].as_str().unwrap(),
        host["signature"].as_str().unwrap()
    );
    std::fs::write(&file, overlay).unwrap();
    let block = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/jacobi.s");
    let calibrated = json(&plain(&["analyze", block, "--format", "json", "--no-sensitivity"]));
    assert!(calibrated["host"]["calibration"].as_str().unwrap().contains(file.to_str().unwrap()));
    let json_h = json(&plain(&["machines", "host", "--format", "json"]));
    assert_eq!(json_h["calibration"].as_str(), file.to_str());
    std::fs::remove_file(&file).unwrap();
    let plain_model = json(&plain(&["analyze", block, "--format", "json", "--no-sensitivity"]));
    let cpi = |r: &serde_json::Value| r["cycles_per_iteration"].as_f64().unwrap();
    // 17 instructions per iteration (examples/jacobi.s), the closing compare and
    // branch fused into one: 16 dispatch slots, one per cycle
    assert!((cpi(&calibrated) - 16.0).abs() < 0.05, "{}", cpi(&calibrated));
    assert!(cpi(&plain_model) < 10.0, "{}", cpi(&plain_model));
}

/// Every example of `analyze --help` and `machines --help` runs as shown, in a
/// directory holding the files they name (jacobi.s from the examples, kernel.s
/// as `gcc -S` writes it for examples/dot.c, k.s a loop body, ./prog with dot,
/// my-core.toml a machine file), and writes what it says.
#[test]
fn analyze_and_machines_help_examples_run_as_shown() {
    let d = tempfile::tempdir().unwrap();
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::create_dir(d.path().join("examples")).unwrap();
    std::fs::copy(repo.join("examples/jacobi.s"), d.path().join("examples/jacobi.s")).unwrap();
    let dot = repo.join("examples/dot.c");
    let gcc = |args: &[&str]| assert!(Command::new("gcc").current_dir(d.path()).args(args).arg(&dot).status().unwrap().success());
    gcc(&["-O2", "-S", "-o", "kernel.s"]);
    gcc(&["-O2", "-g", "-o", "prog"]);
    std::fs::write(d.path().join("k.s"), "loop:\n  vmulpd %ymm1, %ymm2, %ymm3\n  vaddpd (%rdi), %ymm3, %ymm0\n  addq $32, %rdi\n  decq %rcx\n  jnz loop\n").unwrap();
    // a machine file and the form table it names beside it
    std::fs::copy(repo.join("machines/skylake.toml"), d.path().join("my-core.toml")).unwrap();
    std::fs::copy(repo.join("machines/skylake.forms.toml"), d.path().join("skylake.forms.toml")).unwrap();
    let mut examples = Vec::new();
    for sub in ["analyze", "machines"] {
        let help = bn(&[sub, "--help"]);
        let help = String::from_utf8_lossy(&help.stdout).into_owned();
        let mine: Vec<String> = help
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix(&format!("bottlenose {sub}")))
            .map(|l| format!("{sub}{}", l.split(" # ").next().unwrap().trim_end()))
            .collect();
        assert!(mine.len() >= 5, "{sub}: {help}");
        examples.extend(mine);
    }
    for ex in &examples {
        let args = shlex::split(ex).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_bottlenose")).current_dir(d.path()).env("BOTTLENOSE_MACHINE", "skylake").args(&args).output().unwrap();
        assert!(out.status.success(), "`bottlenose {ex}`: {}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8_lossy(&out.stdout);
        if ex.contains("--format json") {
            serde_json::from_str::<serde_json::Value>(&stdout).unwrap_or_else(|e| panic!("`bottlenose {ex}` writes JSON ({e})"));
        } else {
            assert!(stdout.lines().count() > 2, "`bottlenose {ex}`: {stdout}");
        }
    }
}
