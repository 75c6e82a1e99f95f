//! Every JSON output validates against its published schema (schemas/KIND.vN.json:
//! analyze and run are at version 2, topdown at 1).
mod common;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn schemas_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../schemas"))
}

/// Resolves `https://bottlenose.dev/schemas/NAME` to the file in schemas/.
struct LocalSchemas;

impl jsonschema::Retrieve for LocalSchemas {
    fn retrieve(&self, uri: &jsonschema::Uri<&str>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let name = uri.path().as_str().rsplit('/').next().unwrap_or("").to_string();
        let text = std::fs::read_to_string(schemas_dir().join(&name))?;
        Ok(serde_json::from_str(&text)?)
    }
}

/// The current schema file of a report kind.
fn schema_file(kind: &str) -> PathBuf {
    let version = if kind == "topdown" || kind == "study" { 1 } else { 2 };
    schemas_dir().join(format!("{kind}.v{version}.json"))
}

fn validator(kind: &str) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(schema_file(kind)).unwrap()).unwrap();
    jsonschema::options().with_retriever(LocalSchemas).build(&schema).expect("schema compiles")
}

fn validate(kind: &str, instance: &Value) {
    let errors: Vec<String> = validator(kind).iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "{kind} output does not match its schema: {errors:#?}");
}

fn json_of(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn study_report_validates() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("s.toml");
    // one job done, one failed (a program that is not machine code), one machine with nothing run
    std::fs::write(
        &f,
        "name = \"s\"\nmachines = [\"skylake\"]\n[options]\niterations = 100\n[[program]]\nname = \"chain\"\nhex = \"48 01 c0 ff c9 75 f9\"\n\
         [[program]]\nname = \"not-code\"\nrun = \"s.toml\"\n",
    )
    .unwrap();
    let store = d.path().join("store");
    let st = store.to_str().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_bottlenose")).args(["study", "run", f.to_str().unwrap(), "--retries", "0", "--store", st]).output().unwrap();
    assert!(!out.status.success());
    let v = json_of(&["study", "report", f.to_str().unwrap(), "--store", st, "--format", "json"]);
    assert_eq!(v["rows"][0]["status"], "done");
    assert_eq!(v["rows"][1]["status"], "failed");
    validate("study", &v);
}

#[test]
fn analyze_outputs_validate() {
    let v = json_of(&["analyze", concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/jacobi.s"), "--format", "json"]);
    assert_eq!(v["schema"], "bottlenose/analyze/v2");
    validate("analyze", &v);
    let v = json_of(&["analyze", concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/gus-fig4.s"), "--machine", "gus-fig4", "--iterations", "1", "--format", "json"]);
    validate("analyze", &v);
    // code with loops: the hottest loop's report plus every loop
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("two.s");
    std::fs::write(&s, ".type f, @function\nf:\n.L2: imul %rax, %rax\n dec %rcx\n jnz .L2\n ret\n.type g, @function\ng:\n.L5: add %rbx, %rdx\n dec %rcx\n jnz .L5\n ret\n").unwrap();
    let v = json_of(&["analyze", s.to_str().unwrap(), "--format", "json"]);
    assert_eq!(v["loops"].as_array().map(Vec::len), Some(2));
    validate("analyze", &v);
}

#[test]
fn run_output_validates() {
    common::ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let exe = common::compile(d.path(), "p", "#include <stdio.h>\nint main(void){ volatile long s = 0; for (long i = 0; i < 20000; i++) s += i; printf(\"%ld\\n\", s); return 0; }\n", &["-O1", "-g"]);
    let json = d.path().join("r.json");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(["run", "-q", "--format", "json", "-o"]).arg(&json).arg("--").arg(&exe).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["schema"], "bottlenose/run/v2");
    validate("run", &v);
}

#[test]
fn sampled_run_output_validates() {
    common::ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let exe = common::compile(d.path(), "p", "#include <stdio.h>\nint main(void){ volatile double s = 0; for (long i = 0; i < 300000; i++) s += i * 0.5; printf(\"%f\\n\", s); return 0; }\n", &["-O1"]);
    let json = d.path().join("r.json");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "-q", "--no-idealize", "--format", "json", "--resources", "latency,frontend", "--weights", "1.15", "--sample-every", "2", "-o"])
        .arg(&json)
        .arg("--")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    validate("run", &v);
    assert_eq!(v["sensitivity_sampling"]["every"], 2);
    // the FP add chain through a volatile is latency bound, sampled or not
    assert_eq!(v["bottlenecks"][0]["resources"][0], "latency", "{}", v["bottlenecks"]);
    // --sample-every 1 would not sample: rejected with a one-line error
    let bad = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(["run", "--sample-every", "1", "--"]).arg(&exe).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--sample-every"));
}

/// A SMARTS-sampled run (`--sample`): its `sampling` section validates.
#[test]
fn smarts_sampled_run_output_validates() {
    common::ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let exe = common::compile(d.path(), "p", "#include <stdio.h>\nint main(void){ volatile double s = 0; for (long i = 0; i < 300000; i++) s += i * 0.5; printf(\"%f\\n\", s); return 0; }\n", &["-O1"]);
    let json = d.path().join("r.json");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "-q", "--sample", "--sample-period", "4", "--format", "json", "--resources", "latency,frontend", "--weights", "1.15", "-o"])
        .arg(&json)
        .arg("--")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    validate("run", &v);
    assert!(v["sampling"]["units"].as_u64().unwrap() > 0);
    assert_eq!(v["sampling"]["sensitivity"].as_array().unwrap().len(), 2);
}

#[test]
fn topdown_output_validates() {
    let v = json_of(&["topdown", "--import", concat!(env!("CARGO_MANIFEST_DIR"), "/../counters/tests/fixtures/perf-skl-l1.csv"), "--cpu", "skl", "--format", "json"]);
    assert_eq!(v["schema"], "bottlenose/topdown/v1");
    validate("topdown", &v);
}

#[test]
fn a_broken_report_is_rejected() {
    let mut v = json_of(&["analyze", "--hex", "48 01 d8", "--format", "json", "--weights", "1.15"]);
    v["instructions"][0]["uops"] = Value::String("one".into());
    assert!(!validator("analyze").is_valid(&v));
}

/// Version 2's verdict: present in a block's report and in each loop's, it
/// validates, and a report without it or with an unknown cause does not.
#[test]
fn the_verdict_validates_and_is_required() {
    let mut v = json_of(&["analyze", concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/blocks/fma_chain.s"), "--format", "json"]);
    validate("analyze", &v);
    // two dependent 4-cycle FMAs per iteration: a dependency chain
    assert_eq!(v["verdict"]["causes"][0]["cause"]["kind"], "dependency_chain", "{}", v["verdict"]);
    assert_eq!(v["verdict"]["causes"][0]["evidence"]["recurrence"]["cycles"], 8.0, "{}", v["verdict"]);
    let mut bogus = v.clone();
    bogus["verdict"]["causes"][0]["cause"]["kind"] = Value::String("bad_luck".into());
    assert!(!validator("analyze").is_valid(&bogus));
    let mut port = v.clone();
    port["verdict"]["causes"][0]["cause"] = serde_json::json!({ "kind": "port_pressure" });
    assert!(!validator("analyze").is_valid(&port), "port pressure needs its ports");
    v.as_object_mut().unwrap().remove("verdict");
    assert!(!validator("analyze").is_valid(&v));
    // a file with two loops: each loop's report has its own verdict
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("two.s");
    std::fs::write(&s, "mov $100, %ecx\n1: imul %rax, %rax\n dec %rcx\n jnz 1b\n mov $100, %ecx\n2: add %rbx, %rbx\n dec %rcx\n jnz 2b\n ret\n").unwrap();
    let v = json_of(&["analyze", s.to_str().unwrap(), "--format", "json"]);
    validate("analyze", &v);
    let loops = v["loops"].as_array().expect("loops");
    assert_eq!(loops.len(), 2);
    for l in loops {
        assert!(l["report"]["verdict"]["causes"].is_array(), "{l}");
    }
}

/// A run's per-hotspot verdicts (its hottest loop and function) validate too.
#[test]
fn run_hotspot_verdicts_validate() {
    common::ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let exe = common::compile(d.path(), "h", "#include <stdio.h>\n__attribute__((noinline)) double f(double x, long n){ double s = 1; for (long i = 0; i < n; i++) s = s * x + 0.5; return s; }\nint main(void){ printf(\"%f\\n\", f(0.9, 50000)); return 0; }\n", &["-O1", "-g"]);
    let json = d.path().join("r.json");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").args(["run", "-q", "--roi", "function:f", "--format", "json", "-o"]).arg(&json).arg("--").arg(&exe).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    validate("run", &v);
    let hotspots = v["verdict"]["hotspots"].as_array().expect("hotspots");
    assert!(hotspots.iter().any(|h| h["kind"] == "loop") && hotspots.iter().any(|h| h["kind"] == "function" && h["name"] == "h!f"), "{hotspots:#?}");
}
