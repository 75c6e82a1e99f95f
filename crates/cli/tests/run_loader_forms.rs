//! Every x86 machine's table has the forms a plain dynamically linked program
//! executes: with lazy binding, the dynamic loader's trampoline saves and
//! restores the vector state (xsave or xsavec, xrstor) at the first call of each
//! library function. A table without them warned on every program and timed
//! them as one 1-cycle uop (they are 31-151 uops in LLVM's models).
mod common;
use common::{compile, ensure_plugin};
use std::process::Command;

const X86_MACHINES: [&str; 7] = ["skylake", "icelake-server", "goldencove", "graniterapids", "zen3", "zen4", "zen5"];

#[test]
fn a_dynamically_linked_program_runs_no_form_an_x86_table_lacks() {
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    // puts through the PLT, bound lazily: the loader's trampoline runs
    let exe = compile(d.path(), "hello", "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n", &["-O2", "-Wl,-z,lazy"]);
    for machine in X86_MACHINES {
        let json = d.path().join(format!("{machine}.json"));
        let out = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
            .args(["run", "--machine", machine, "--exact", "--no-views", "--no-sensitivity", "--no-idealize", "--quiet", "--format", "json", "--output"])
            .arg(&json)
            .arg("--")
            .arg(&exe)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{machine}: {stderr}");
        let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let forms: Vec<&str> = r["unsupported_instructions"]["forms"].as_array().expect("the forms list").iter().map(|f| f["form"].as_str().unwrap()).collect();
        assert!(forms.is_empty(), "{machine} lacks {forms:?}");
        assert!(!stderr.contains("not in the"), "{machine}: {stderr}");
        // the program ran to its end through the loader: a few tens of thousands of instructions at least
        assert!(r["instructions_simulated"].as_u64().unwrap() > 10_000, "{machine}: {}", r["instructions_simulated"]);
    }
}
