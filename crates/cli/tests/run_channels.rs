//! Where `bottlenose run` puts its report (README "Dynamic runs"): the program
//! owns stdout and stderr; the report goes to `-o FILE`, or after everything
//! else on stderr, or on stdout with `-o -`. And every example of `run --help`
//! runs as shown.
mod common;
use common::{compile, ensure_plugin};
use std::path::Path;
use std::process::{Command, Output};

const BN: &str = env!("CARGO_BIN_EXE_bottlenose");

/// Prints three lines on stdout and two on stderr.
const TALKER_C: &str = r#"
#include <stdio.h>
int main(void) {
    volatile long s = 0;
    for (long i = 0; i < 20000; i++) s += i;
    printf("out 1\nout 2 %ld\n", (long)s); fflush(stdout);
    fprintf(stderr, "err 1\nerr 2\n");
    printf("out 3\n");
    return 0;
}
"#;
const TALKER_STDOUT: &str = "out 1\nout 2 199990000\nout 3\n";
const TALKER_STDERR: &str = "err 1\nerr 2\n";

fn bn_run(dir: &Path, args: &[&str], prog: &Path) -> Output {
    Command::new(BN)
        .current_dir(dir)
        .env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "--quiet", "--no-sensitivity", "--no-views", "--no-idealize"])
        .args(args)
        .arg("--")
        .arg(prog)
        .output()
        .unwrap()
}

/// What follows the program's own stderr: the report (warnings may come first).
fn report_on_stderr(stderr: &str) -> &str {
    let rest = stderr.strip_prefix(TALKER_STDERR).unwrap_or_else(|| panic!("the program's stderr comes first, unchanged: {stderr}"));
    rest.lines().position(|l| !l.starts_with("warning:")).map_or("", |skip| {
        let at: usize = rest.lines().take(skip).map(|l| l.len() + 1).sum();
        &rest[at..]
    })
}

fn check_report(format: &str, text: &str) {
    match format {
        "json" => {
            let v: serde_json::Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("JSON report parses ({e}): {text}"));
            assert_eq!(v["schema"], "bottlenose/run/v2");
            assert_eq!(v["complete"], true);
        }
        "csv" => {
            let mut rows = csv::Reader::from_reader(text.as_bytes());
            assert!(rows.headers().unwrap().iter().any(|h| h == "cycles"), "CSV header: {text}");
            assert!(rows.records().count() > 0, "CSV rows: {text}");
        }
        _ => assert!(text.contains("machine: skylake") || text.contains("skylake"), "text report names the machine: {text}"),
    }
}

#[test]
fn every_format_on_every_channel_keeps_the_programs_output_apart() {
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let prog = compile(d.path(), "talker", TALKER_C, &["-O1"]);
    for format in ["text", "json", "csv"] {
        // default: stderr, after the program's own stderr
        let out = bn_run(d.path(), &["--format", format], &prog);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), TALKER_STDOUT, "{format} on stderr: stdout is the program's alone");
        let stderr = String::from_utf8_lossy(&out.stderr);
        check_report(format, report_on_stderr(&stderr));

        // -o FILE: both streams are the program's alone
        let file = d.path().join(format!("r.{format}"));
        let out = bn_run(d.path(), &["--format", format, "-o", file.to_str().unwrap()], &prog);
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout), TALKER_STDOUT, "{format} to a file");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("Hotspots"), "{format} to a file: nothing of it on stderr");
        check_report(format, &std::fs::read_to_string(&file).unwrap());

        // -o -: after the program's stdout (a program that prints shares it, as asked)
        let out = bn_run(d.path(), &["--format", format, "-o", "-"], &prog);
        assert!(out.status.success());
        let stdout = String::from_utf8_lossy(&out.stdout);
        let report = stdout.strip_prefix(TALKER_STDOUT).unwrap_or_else(|| panic!("{format} on stdout follows the program's: {stdout}"));
        check_report(format, report);
    }
    // /dev/stdout as a file name is written in place, not replaced
    let out = bn_run(d.path(), &["--format", "json", "-o", "/dev/stdout"], &prog);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    check_report("json", String::from_utf8_lossy(&out.stdout).strip_prefix(TALKER_STDOUT).unwrap());
    assert!(Path::new("/dev/stdout").exists());
}

#[test]
fn json_to_stderr_by_default_while_the_program_prints() {
    // the README's rule, as a user would pipe it: stdout to one file, the report to another
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let prog = compile(d.path(), "talker", TALKER_C, &["-O1"]);
    let cmd = format!("{BN} run -q --no-sensitivity --no-views --format json -- {} > out.txt 2> report.json", prog.display());
    let st = Command::new("sh").current_dir(d.path()).env("BOTTLENOSE_MACHINE", "skylake").args(["-c", &cmd]).status().unwrap();
    assert!(st.success());
    assert_eq!(std::fs::read_to_string(d.path().join("out.txt")).unwrap(), TALKER_STDOUT);
    let err = std::fs::read_to_string(d.path().join("report.json")).unwrap();
    check_report("json", report_on_stderr(&err));
}

/// `./prog` of the examples: `kernel` (for `--roi function:kernel`), the markers,
/// code in 0x401000..0x401200 (not position independent); it prints only when
/// given arguments, so that `-o -` gets a clean stdout.
const PROG_C: &str = r#"
#include <stdio.h>
#include "bottlenose_roi.h"
__attribute__((noinline)) long kernel(long n) { volatile long s = 0; for (long i = 0; i < n; i++) s += i; return s; }
int main(int argc, char **argv) {
    BOTTLENOSE_ROI_BEGIN();
    long s = kernel(20000);
    BOTTLENOSE_ROI_END();
    if (argc > 1) printf("%ld\n", s);
    return 0;
}
"#;

#[test]
fn help_examples_run_as_shown() {
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include");
    let flags = ["-O1", "-no-pie", "-I", include.to_str().unwrap()];
    compile(d.path(), "prog", PROG_C, &flags);
    // about 2.4 M instructions: past the 1 M of the --max-instructions example,
    // short enough for the examples that time all of it (--exact, the full sweep)
    compile(d.path(), "long_running", &PROG_C.replace("kernel(20000)", "kernel(400000)"), &flags);
    let help = Command::new(BN).args(["run", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let examples: Vec<&str> = help
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("bottlenose run "))
        .map(|l| l.split(" # ").next().unwrap().trim_end())
        .collect();
    assert!(examples.len() >= 6, "{help}");
    let bin_dir = Path::new(BN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    // two at a time (the machine has two cores); each checks what it wrote
    std::thread::scope(|scope| {
        for pair in examples.chunks(2) {
            let runs: Vec<_> = pair.iter().map(|ex| scope.spawn(|| run_example(ex, d.path(), &path))).collect();
            for r in runs {
                r.join().unwrap();
            }
        }
    });
}

fn run_example(ex: &str, dir: &Path, path: &str) {
    let out = Command::new("sh")
        .current_dir(dir)
        .env("PATH", path)
        .env("BOTTLENOSE_MACHINE", "skylake")
        .args(["-c", &format!("bottlenose run -q {ex}")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "`bottlenose run {ex}`: {stderr}");
    // every file an example names was written and is what it says
    let words: Vec<&str> = ex.split_whitespace().collect();
    for w in words.windows(2) {
        let file = match w {
            ["-o" | ">", f] if *f != "-" => dir.join(f),
            ["--html", f] => dir.join(f),
            _ => continue,
        };
        let text = std::fs::read_to_string(&file).unwrap_or_else(|_| panic!("`{ex}` wrote {}", file.display()));
        match file.extension().and_then(|e| e.to_str()) {
            Some("json") => check_report_partial(&text, ex),
            Some("csv") => assert!(text.lines().count() > 1, "{ex}: {text}"),
            Some("html") => assert!(text.contains("<html"), "{ex}"),
            _ => {}
        }
    }
    if !words.contains(&"-o") {
        assert!(stderr.contains("skylake") || stderr.contains("zen4"), "`{ex}`: the report on stderr: {stderr}");
    }
    if ex.contains("--max-instructions") {
        assert!(stderr.contains("partial report"), "`{ex}` stops early: {stderr}");
    }
    if ex.contains("sh -c") && !ex.contains("--no-inherit") {
        assert!(stderr.contains("Processes: "), "`{ex}`: the children's table: {stderr}");
    }
}

fn check_report_partial(text: &str, ex: &str) {
    let v: serde_json::Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("`{ex}`: JSON ({e})"));
    assert!(v["instructions_simulated"].as_u64().unwrap() > 0, "{ex}");
}

/// A pipeline's children exit while the shell that started them still runs, so
/// SIGCHLD arrives between any two of its blocks. QEMU 7.2 writes the signal frame
/// through the memory callbacks generated code last set up, which named an
/// instruction of some earlier block: its stores landed on the block being read, and
/// about one run in twenty failed with a corrupt stream ("MEM record for
/// instruction 7 of block 2908, which has 2 instructions"). The plugin now takes a
/// memory callback only from the block its vCPU executes; 40 runs, two at a time.
#[test]
fn signals_delivered_between_blocks_leave_the_stream_whole() {
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include");
    compile(d.path(), "prog", PROG_C, &["-O1", "-no-pie", "-I", include.to_str().unwrap()]);
    let run = || {
        for _ in 0..20 {
            let out = Command::new(BN)
                .current_dir(d.path())
                .env("BOTTLENOSE_MACHINE", "skylake")
                .args(["run", "-q", "--no-inherit", "--no-sensitivity", "--no-idealize", "--", "sh", "-c", "./prog x | sort"])
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(String::from_utf8_lossy(&out.stdout), "199990000\n");
        }
    };
    std::thread::scope(|s| {
        let a = s.spawn(run);
        run();
        a.join().unwrap();
    });
}
