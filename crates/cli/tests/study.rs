//! `bottlenose study` end to end: the bundled example on the local pool and on a
//! real one-node Slurm cluster (scripts/slurm-test-cluster.sh), retries, resume,
//! reports, diffs, and the errors of bad study files and an unreachable Slurm.
mod common;
use common::{compile, ensure_plugin};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/study.toml");
const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");

fn bn() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bottlenose"));
    c.env_remove("BOTTLENOSE_MACHINE");
    c
}

fn study(args: &[&str], store: &Path) -> Output {
    bn().arg("study").args(args).arg("--store").arg(store).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "stderr: {}", stderr(&o));
    o
}

/// The study report as JSON rows.
fn rows(file: &str, store: &Path) -> Vec<Value> {
    let o = ok(bn().args(["study", "report", file, "--format", "json", "--store"]).arg(store).output().unwrap());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema"], "bottlenose/study/v1");
    v["rows"].as_array().unwrap().clone()
}

fn row<'a>(rows: &'a [Value], program: &str, machine: &str, variant: &str) -> &'a Value {
    rows.iter().find(|r| r["program"] == program && r["machine"] == machine && r["variant"] == variant).unwrap_or_else(|| panic!("no row {program}/{machine}/{variant}"))
}

/// The SLURM_CONF of the local test cluster, started if needed; `None` (the test
/// is skipped, saying why) only when Slurm is not installed and we are not root.
fn slurm() -> Option<String> {
    static CONF: OnceLock<Result<String, String>> = OnceLock::new();
    let conf = CONF.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/slurm-test-cluster.sh");
        let o = Command::new("bash").arg(script).output().map_err(|e| e.to_string())?;
        if o.status.success() {
            Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
        } else {
            Err(String::from_utf8_lossy(&o.stderr).trim().to_string())
        }
    });
    match conf {
        Ok(c) => Some(c.clone()),
        Err(e) => {
            let root = unsafe { libc::geteuid() } == 0;
            let installed = Command::new("sbatch").arg("--version").output().is_ok();
            if !root && !installed {
                eprintln!("SKIPPED: Slurm is not installed and this user cannot start a test cluster (scripts/install-deps.sh as root installs it): {e}");
                return None;
            }
            panic!("the local Slurm test cluster did not start: {e}");
        }
    }
}

fn slurm_study(conf: &str, args: &[&str], store: &Path) -> Output {
    bn().env("SLURM_CONF", conf).arg("study").args(args).args(["--slurm", "--poll", "0.3"]).arg("--store").arg(store).output().unwrap()
}

#[test]
fn the_example_runs_locally_then_is_skipped_and_slurm_gives_identical_results() {
    let d = tempfile::tempdir().unwrap();
    let local = d.path().join("local");
    let o = ok(study(&["run", EXAMPLE, "--local", "2"], &local));
    // `host` is the same job as `zen4` on a Zen 4 host without a calibration overlay
    let summary = stderr(&o).lines().last().unwrap_or_default().to_string();
    assert!(summary.starts_with("study example: 36 jobs") && summary.contains(" 0 skipped (already done), ") && summary.ends_with(" ran, 0 failed"), "{}", stderr(&o));
    let r = rows(EXAMPLE, &local);
    assert_eq!(r.len(), 36);
    assert!(r.iter().all(|x| x["status"] == "done"), "{r:?}");
    // vaddsd's latency: 4 cycles on Skylake, 3 on Zen 4 (Agner Fog's tables, uops.info);
    // the loop's 3 instructions per iteration give the IPC; the chain is the bottleneck
    for (machine, latency) in [("skylake", 4.0), ("zen4", 3.0)] {
        let x = row(&r, "fp-add-chain", machine, "default");
        assert_eq!(x["cycles"].as_f64(), Some(latency), "{x}");
        assert_eq!(x["ipc"].as_f64(), Some(3.0 / latency), "{x}");
        assert_eq!(x["bottleneck"], "latency", "{x}");
        assert_eq!(x["top_cause"], "dependency chain (latency)", "{x}");
        // doubling the latency resource halves a pure latency chain: twice as fast
        let doubled = row(&r, "fp-add-chain", machine, "doubled");
        assert_eq!(doubled["weight"].as_f64(), Some(2.0));
        assert!((doubled["speedup"].as_f64().unwrap() - 1.0).abs() < 0.02, "{doubled}");
    }
    // a second run finds everything in the store
    let o = ok(study(&["run", EXAMPLE, "--local", "2"], &local));
    assert!(stderr(&o).contains("skipped (already done), 0 ran, 0 failed"), "{}", stderr(&o));

    let Some(conf) = slurm() else { return };
    let on_slurm = d.path().join("slurm");
    let o = slurm_study(&conf, &["run", EXAMPLE, "--throttle", "4"], &on_slurm);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("submitted Slurm job array") && err.contains("%4)"), "{err}");
    assert!(err.contains(" 0 skipped (already done), ") && err.contains(" ran, 0 failed"), "{err}");
    let csv = |store: &Path| ok(bn().args(["study", "report", EXAMPLE, "--format", "csv", "--store"]).arg(store).output().unwrap()).stdout;
    assert_eq!(String::from_utf8(csv(&local)).unwrap(), String::from_utf8(csv(&on_slurm)).unwrap());
}

/// A program that kills itself the first time it runs (when MARKER does not exist
/// yet), as a flaky job does, and runs a short loop after that.
const FLAKY_C: &str = r#"
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
int main(int argc, char **argv) {
    if (argc > 1 && access(argv[1], F_OK) != 0) {
        close(open(argv[1], O_CREAT | O_WRONLY, 0644));
        raise(SIGKILL);
    }
    volatile long s = 0;
    for (long i = 0; i < 20000; i++) s += i;
    return 0;
}
"#;

fn flaky_study(dir: &Path, retries: u32) -> PathBuf {
    let exe = compile(dir, "flaky", FLAKY_C, &["-O1"]);
    let file = dir.join("flaky.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"flaky\"\nmachines = [\"skylake\"]\nretries = {retries}\n[options]\nno_sensitivity = true\n\
             [[program]]\nname = \"flaky\"\nrun = \"{}\"\nargs = [\"{}\"]\n",
            exe.display(),
            dir.join("marker").display()
        ),
    )
    .unwrap();
    file
}

fn assert_retried(o: &Output, file: &str, store: &Path) {
    let err = stderr(o);
    assert!(o.status.success(), "{err}");
    // the first attempt's partial report is a failure, the retry's is the result
    assert!(err.contains("partial report (killed by signal 9"), "{err}");
    assert!(err.contains("retry 1: 1 failed jobs again"), "{err}");
    assert!(err.contains("1 ran, 0 failed"), "{err}");
    let r = rows(file, store);
    assert_eq!(r[0]["status"], "done");
    assert!(r[0]["cycles"].as_f64().unwrap() > 20000.0, "{:?}", r[0]);
}

#[test]
fn a_task_that_fails_once_is_retried_locally_and_on_slurm() {
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let file = flaky_study(d.path(), 1);
    let f = file.to_str().unwrap();
    let o = study(&["run", f, "--local", "1"], &d.path().join("local"));
    assert_retried(&o, f, &d.path().join("local"));

    let Some(conf) = slurm() else { return };
    std::fs::remove_file(d.path().join("marker")).unwrap();
    let store = d.path().join("slurm");
    let o = slurm_study(&conf, &["run", f], &store);
    assert_retried(&o, f, &store);
    // each attempt is its own array: the retry submitted only the failed task
    assert_eq!(stderr(&o).matches("submitted Slurm job array").count(), 2, "{}", stderr(&o));
}

#[test]
fn without_retries_a_failed_job_fails_the_study_in_one_line() {
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let file = flaky_study(d.path(), 0);
    let o = study(&["run", file.to_str().unwrap(), "--local", "1"], &d.path().join("s"));
    assert!(!o.status.success());
    let last = stderr(&o).lines().last().unwrap_or_default().to_string();
    assert!(last.starts_with("error: 1 of 1 jobs failed, first flaky on skylake (default)"), "{}", stderr(&o));
    let r = rows(file.to_str().unwrap(), &d.path().join("s"));
    assert_eq!(r[0]["status"], "failed");
    assert!(r[0]["error"].as_str().unwrap().contains("partial report"), "{:?}", r[0]);
}

#[test]
fn a_killed_study_resumes_without_rerunning_finished_jobs() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("resume.toml");
    // 1 program x 3 machines x 4 variants
    std::fs::write(
        &file,
        format!(
            "name = \"resume\"\nmachines = [\"skylake\", \"zen4\", \"icx\"]\n[options]\niterations = 400\n\
             [[program]]\nname = \"jacobi\"\nanalyze = \"{EXAMPLES}/jacobi.s\"\n\
             [[variant]]\nname = \"a\"\n[[variant]]\nname = \"b\"\nweights = [2.0]\n\
             [[variant]]\nname = \"c\"\nweights = [1.1]\n[[variant]]\nname = \"d\"\nno_sensitivity = true\n"
        ),
    )
    .unwrap();
    let store = d.path().join("s");
    let mut child = bn()
        .args(["study", "run", file.to_str().unwrap(), "--local", "1", "--store"])
        .arg(&store)
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    // kill the driver and its job (the whole process group) after the third job
    let lines = BufReader::new(child.stderr.take().unwrap());
    for line in lines.lines() {
        if line.unwrap().starts_with("[3/12] done") {
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            break;
        }
    }
    child.wait().unwrap();
    let done_before: Vec<String> = rows(file.to_str().unwrap(), &store).iter().filter(|r| r["status"] == "done").map(|r| r["hash"].as_str().unwrap().to_string()).collect();
    assert!((3..12).contains(&done_before.len()), "{done_before:?}");
    let o = ok(study(&["run", file.to_str().unwrap(), "--local", "2"], &store));
    let err = stderr(&o);
    let n = done_before.len();
    assert!(err.contains(&format!("{n} jobs already in the store: skipped")), "{err}");
    assert!(err.contains(&format!("12 jobs, {n} skipped (already done), {} ran, 0 failed", 12 - n)), "{err}");
    assert!(rows(file.to_str().unwrap(), &store).iter().all(|r| r["status"] == "done"));
}

use std::os::unix::process::CommandExt;

#[test]
fn reports_come_as_csv_html_and_a_diff_of_two_studies() {
    let d = tempfile::tempdir().unwrap();
    // the same loop with an add chain (1-cycle latency on Skylake) and with an
    // imul chain (3 cycles): the diff says +200 %
    let write = |name: &str, hex: &str| {
        let f = d.path().join(format!("{name}.toml"));
        std::fs::write(&f, format!("name = \"{name}\"\nmachines = [\"skylake\"]\n[options]\niterations = 400\n[[program]]\nname = \"chain\"\nhex = \"{hex}\"\n")).unwrap();
        f
    };
    let a = write("add", "48 01 c0 ff c9 75 f9");
    let b = write("imul", "48 0f af c0 ff c9 75 f8");
    for f in [&a, &b] {
        ok(bn().args(["study", "run", f.to_str().unwrap()]).output().unwrap());
    }
    // the default store is beside the study file
    assert!(d.path().join("add.store/results.sqlite").is_file());
    let o = ok(bn().args(["study", "diff", a.to_str().unwrap(), b.to_str().unwrap(), "--format", "json"]).output().unwrap());
    let diff: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(diff[0]["cycles_a"].as_f64(), Some(1.0), "{diff}");
    assert_eq!(diff[0]["cycles_b"].as_f64(), Some(3.0), "{diff}");
    assert!((diff[0]["cycles_change"].as_f64().unwrap() - 2.0).abs() < 1e-9);
    // a saved JSON report is a side of a diff too
    let saved = d.path().join("add.json");
    ok(bn().args(["study", "report", a.to_str().unwrap(), "--format", "json", "-o"]).arg(&saved).output().unwrap());
    let o = ok(bn().args(["study", "diff"]).arg(&saved).arg(&b).output().unwrap());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.lines().any(|l| l.starts_with("chain") && l.contains("+200.0%")), "{text}");

    let csv = String::from_utf8(ok(bn().args(["study", "report", b.to_str().unwrap(), "--format", "csv"]).output().unwrap()).stdout).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().starts_with("program,machine,variant,kind,status,cycles,cycles_unit,ipc,top_cause,bottleneck,speedup"));
    assert!(lines.next().unwrap().starts_with("chain,skylake,default,analyze,done,3,cycles/iteration,1,"), "{csv}");
    let html = String::from_utf8(ok(bn().args(["study", "report", b.to_str().unwrap(), "--format", "html"]).output().unwrap()).stdout).unwrap();
    assert!(html.contains("<h2>Per machine</h2>") && html.contains("<h2>Per program</h2>") && html.contains("<h3>skylake</h3>"), "{html}");
}

/// One line on stderr, starting with `error:` and containing `what`; a failure status.
fn one_line_error(o: &Output, what: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(what), "expected '{what}' in: {err}");
}

#[test]
fn bad_study_files_are_one_line_errors_naming_the_problem() {
    let d = tempfile::tempdir().unwrap();
    let jacobi = format!("{EXAMPLES}/jacobi.s");
    let head = "name = \"bad\"\nmachines = [\"skylake\"]\n";
    let prog = format!("[[program]]\nname = \"j\"\nanalyze = \"{jacobi}\"\n");
    let cases: Vec<(String, &str)> = vec![
        (format!("{head}[options]\nweigths = [2.0]\n{prog}"), "line 4: unknown field `weigths`"),
        (format!("{head}{prog}[[variant]]\nname = \"v\"\naccelerate = [\"p23=1.15\"]\n"), "`accelerate` is a setting of run jobs only"),
        (format!("{head}{prog}[[variant]]\nname = \"v\"\nwieghts = [2.0]\n"), "variant 'v': unknown field `wieghts`"),
        (format!("{head}{prog}[[variant]]\nname = \"v\"\nweights = [1000.0]\n"), "1000"),
        (format!("name = \"bad\"\nmachines = [\"pentium9\"]\n{prog}"), "unknown machine"),
        (format!("{head}[[program]]\nname = \"x\"\nrun = \"no/such/prog\"\n"), "program 'x':"),
        (format!("{head}{prog}{prog}"), "two programs are named 'j'"),
        (format!("{head}[[program]]\nname = \"x\"\n"), "give exactly one of `run`, `analyze` or `hex`"),
        (format!("{head}{prog}[[variant]]\nname = \"v\"\nidealize = \"all\"\n"), "unknown variant `all`"),
        (format!("{head}[options]\nmax_instructions = 1000\n{prog}"), "[options]: `max_instructions` is a setting of run jobs only, and no program is one"),
        (format!("machines = [\"skylake\"]\n{prog}"), "missing field `name`"),
        ("name = \"bad\"\nmachines = [\n".to_string(), "bad.toml line"),
    ];
    for (text, what) in cases {
        let f = d.path().join("bad.toml");
        std::fs::write(&f, &text).unwrap();
        let o = study(&["run", f.to_str().unwrap()], &d.path().join("s"));
        one_line_error(&o, what);
        assert!(stderr(&o).contains("bad.toml"), "the error names the file: {}", stderr(&o));
    }
    one_line_error(&study(&["run", "/no/such/study.toml"], &d.path().join("s")), "cannot read study file /no/such/study.toml");
    one_line_error(&study(&["report", EXAMPLE], &d.path().join("empty")), "no result store at");
}

#[test]
fn an_unreachable_slurm_is_a_one_line_error() {
    let d = tempfile::tempdir().unwrap();
    // a controller on a port where nothing listens
    let conf = d.path().join("slurm.conf");
    std::fs::write(
        &conf,
        "ClusterName=nowhere\nSlurmctldHost=localhost\nSlurmctldPort=9\nAuthType=auth/munge\n\
         NodeName=localhost CPUs=1 State=UNKNOWN\nPartitionName=p Nodes=localhost Default=YES State=UP\n",
    )
    .unwrap();
    let o = bn().env("SLURM_CONF", &conf).args(["study", "run", EXAMPLE, "--slurm", "--store"]).arg(d.path().join("s")).output().unwrap();
    let installed = Command::new("scontrol").arg("--version").output().is_ok();
    one_line_error(&o, if installed { "Slurm is unreachable: `scontrol ping` says:" } else { "cannot run scontrol" });
    // nothing was run
    assert!(stderr(&o).lines().count() <= 2);
}
