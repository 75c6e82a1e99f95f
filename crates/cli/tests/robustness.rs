//! Defined behaviour of `bottlenose run` for threads, fork, exec, instruction
//! limits and Ctrl-C (README "Dynamic runs").
mod common;
use common::{compile, ensure_plugin};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;



fn run(args: &[&str], prog: &Path) -> (std::process::Output, Value) {
    // no assertion reads the sweep or the idealizations (each times the run again)
    common::run_report(&[args, &["--no-sensitivity", "--no-idealize"]].concat(), prog, &[])
}

#[test]
fn threads_are_simulated_in_one_core() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "thr", "#include <pthread.h>\n#include <stdio.h>\nstatic long r[2];\nstatic void *w(void *a) { long s = 0; for (long i = 0; i < 200000; i++) s += i ^ (long)a; r[(long)a] = s; return 0; }\nint main(void) { pthread_t t[2]; for (long i = 0; i < 2; i++) pthread_create(&t[i], 0, w, (void *)i); for (int i = 0; i < 2; i++) pthread_join(t[i], 0); printf(\"%ld\\n\", r[0] + r[1]); return 0; }\n", &["-O1", "-pthread"]);
    let (out, v) = run(&["--roi", "function:w"], &exe);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "39999800000");
    assert_eq!(v["complete"], true);
    assert_eq!(v["roi"]["entries"], 2, "both threads' calls of w");
    assert!(v["instructions_simulated"].as_u64().unwrap() > 2 * 200_000 * 3);
}

#[test]
fn forked_children_are_traced_unless_no_inherit() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "fk", "#include <unistd.h>\n#include <stdio.h>\n#include <sys/wait.h>\nint main(void) { volatile long s = 0; pid_t p = fork(); if (p == 0) { for (long i = 0; i < 1000000; i++) s += i; return 4; } int st; waitpid(p, &st, 0); printf(\"child %d\\n\", WEXITSTATUS(st)); return 0; }\n", &["-O1"]);
    let (out, v) = run(&[], &exe);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "child 4\n");
    assert_eq!(out.status.code(), Some(0), "the parent's status");
    let procs = v["processes"].as_array().unwrap();
    assert_eq!(procs.len(), 2, "{procs:?}");
    let child = &procs[1];
    assert_eq!(child["origin"], "fork");
    assert_eq!(child["parent"], procs[0]["pid"]);
    assert_eq!(child["exit"], "exited with code 4");
    // the loop: 10^6 iterations of at least a load, an add, a store, an increment and a branch
    assert!(child["instructions_simulated"].as_u64().unwrap() > 5_000_000, "{child}");
    assert_eq!(child["detailed"], true, "the child has the most cycles");
    assert_eq!(v["total"]["instructions_simulated"], procs[0]["instructions_simulated"].as_u64().unwrap() + child["instructions_simulated"].as_u64().unwrap());
    // --no-inherit: the parent alone, and the report says so
    let (out, v) = run(&["--no-inherit"], &exe);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "child 4\n");
    assert_eq!(v["complete"], true);
    assert_eq!(v["processes"].as_array().unwrap().len(), 1);
    assert!(v["instructions_simulated"].as_u64().unwrap() < 1_000_000, "the child's loop is not simulated");
    assert!(v["untraced"][0].as_str().unwrap().contains("--no-inherit"));
}

/// Instructions of `prog args` run alone under bottlenose.
fn alone(prog: &str, args: &[&str], dir: &Path) -> u64 {
    let (out, v) = common::run_report(&["--no-sensitivity", "--no-views", "--no-inherit"], Path::new(prog), &args.iter().map(|a| dir.join(a).to_str().unwrap().to_string()).collect::<Vec<_>>().iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    v["instructions_simulated"].as_u64().unwrap()
}

#[test]
fn a_pipeline_is_traced_process_by_process() {
    let d = tempfile::tempdir().unwrap();
    let words: String = (0..600).map(|i| format!("w{}\n", (i * 7919) % 41)).collect();
    std::fs::write(d.path().join("words.txt"), &words).unwrap();
    let native = Command::new("sh").current_dir(d.path()).args(["-c", "sort words.txt | uniq -c"]).output().unwrap();
    std::fs::write(d.path().join("sorted.txt"), Command::new("sort").arg(d.path().join("words.txt")).output().unwrap().stdout).unwrap();
    let script = format!("sort {0}/words.txt | uniq -c", d.path().display());
    let (out, v) = common::run_report(&["--no-sensitivity", "--no-views"], Path::new("/bin/sh"), &["-c", &script]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, native.stdout, "the pipeline's output is unchanged");
    let procs = v["processes"].as_array().unwrap();
    let find = |name: &str| procs.iter().find(|p| p["origin"] == "exec" && p["program"].as_str().unwrap().ends_with(name)).unwrap_or_else(|| panic!("{name} in {procs:?}"));
    let (sort, uniq) = (find("/sort"), find("/uniq"));
    for p in [sort, uniq] {
        assert_eq!(p["complete"], true);
        assert_eq!(p["exit"], "exited with code 0");
        assert_eq!(p["parent"], procs[0]["pid"], "children of sh");
    }
    // each child does the work it does alone (uniq reads a pipe instead of a file: a few more reads)
    let sort_alone = alone("/usr/bin/sort", &["words.txt"], d.path()) as f64;
    let uniq_alone = {
        let (_, v) = common::run_report(&["--no-sensitivity", "--no-views"], Path::new("/usr/bin/uniq"), &["-c", d.path().join("sorted.txt").to_str().unwrap()]);
        v["instructions_simulated"].as_u64().unwrap() as f64
    };
    let n = |p: &Value| p["instructions_simulated"].as_u64().unwrap() as f64;
    assert!((n(sort) - sort_alone).abs() < 0.02 * sort_alone, "sort {} vs alone {sort_alone}", n(sort));
    assert!((n(uniq) - uniq_alone).abs() < 0.02 * uniq_alone, "uniq {} vs alone {uniq_alone}", n(uniq));
    // the sh forks that became them are rows too, and the total adds up every row
    assert!(procs.iter().filter(|p| p["origin"] == "fork").count() >= 2);
    let sum: u64 = procs.iter().map(|p| p["instructions_simulated"].as_u64().unwrap()).sum();
    assert_eq!(v["total"]["instructions_simulated"].as_u64().unwrap(), sum);
    assert_eq!(v["total"]["processes"].as_u64().unwrap() as usize, procs.len());
}

#[test]
fn exec_ends_the_trace_and_the_new_program_is_traced() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "ex", "#include <unistd.h>\n#include <stdio.h>\nint main(void) { volatile long s = 0; for (long i = 0; i < 100000; i++) s += i; printf(\"before exec\\n\"); fflush(stdout); execl(\"/bin/echo\", \"echo\", \"after exec\", (char *)0); return 9; }\n", &["-O1"]);
    let (out, v) = run(&[], &exe);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "before exec\nafter exec\n");
    assert_eq!(out.status.code(), Some(0), "the exec'd program's status");
    assert_eq!(v["complete"], false);
    assert!(v["stop_reason"].as_str().unwrap().contains("exec"));
    assert!(v["instructions_simulated"].as_u64().unwrap() > 300_000);
    // the exec'd program is traced as a process of its own
    let procs = v["processes"].as_array().unwrap();
    assert!(procs.iter().any(|p| p["origin"] == "exec" && p["program"] == "/bin/echo" && p["complete"] == true), "{procs:?}");
}

#[test]
fn instruction_limit_stops_with_a_partial_report() {
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "lp", "#include <stdio.h>\nint main(void) { volatile long s = 0; for (long i = 0; i < 50000000; i++) s += i; printf(\"%ld\\n\", s); return 0; }\n", &["-O1"]);
    let (out, v) = run(&["--max-instructions", "200000"], &exe);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(v["complete"], false);
    assert_eq!(v["stop_reason"], "instruction limit");
    assert_eq!(v["instructions_simulated"], 200000);
    assert!(v["cycles"].as_f64().unwrap() > 0.0);
}

#[test]
fn ctrl_c_writes_the_partial_report() {
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "long", "#include <stdio.h>\nint main(void) { volatile long s = 0; for (long i = 0; i < 4000000000L; i++) s += i; printf(\"%ld\\n\", s); return 0; }\n", &["-O1"]);
    let json = d.path().join("r.json");
    let child = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "--quiet", "--no-sensitivity", "--format", "json", "--output"])
        .arg(&json)
        .arg("--")
        .arg(&exe)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("report written")).unwrap();
    assert_eq!(v["interrupted"], true);
    assert_eq!(v["complete"], false);
    assert!(v["instructions_simulated"].as_u64().unwrap() > 1_000_000);
}

/// `bottlenose run` of `exe` with the report to `json`, signalled `sig` after 3 s:
/// its exit status, stderr and report.
fn signalled_run(exe: &Path, json: &Path, sig: i32) -> (Option<i32>, String, Value) {
    ensure_plugin();
    let child = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "--quiet", "--no-sensitivity", "--format", "json", "--output"])
        .arg(json)
        .arg("--")
        .arg(exe)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let started = std::time::Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, sig) };
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(30), "the report came {:?} after the signal", started.elapsed());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let v: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap_or_else(|_| panic!("report written: {err}"))).unwrap();
    (out.status.code(), err, v)
}

#[test]
fn sigterm_and_sighup_write_the_partial_report_like_ctrl_c() {
    let d = tempfile::tempdir().unwrap();
    // busy: stopped from the stream
    let busy = compile(d.path(), "busy", "#include <stdio.h>\nint main(void) { volatile long s = 0; for (long i = 0; i < 4000000000L; i++) s += i; printf(\"%ld\\n\", s); return 0; }\n", &["-O1"]);
    let (code, err, v) = signalled_run(&busy, &d.path().join("t.json"), libc::SIGTERM);
    assert_eq!(code, Some(128 + libc::SIGTERM), "{err}");
    assert_eq!(v["interrupted"], true);
    assert_eq!(v["complete"], false);
    assert!(v["instructions_simulated"].as_u64().unwrap() > 1_000_000);
    // blocked in a system call: nothing executes, and the run still stops at once
    let idle = compile(d.path(), "idle", "#include <unistd.h>\nint main(void) { volatile long s = 0; for (long i = 0; i < 100000; i++) s += i; sleep(600); return 0; }\n", &["-O1"]);
    let (code, err, v) = signalled_run(&idle, &d.path().join("h.json"), libc::SIGHUP);
    assert_eq!(code, Some(128 + libc::SIGHUP), "{err}");
    assert_eq!(v["interrupted"], true);
    assert!(v["instructions_simulated"].as_u64().unwrap() > 300_000, "the loop before the sleep");
}

#[test]
fn an_avx512_instruction_is_named_with_the_reason() {
    // QEMU 7.2 implements no EVEX instruction, whatever the host CPU
    let d = tempfile::tempdir().unwrap();
    let exe = compile(d.path(), "avx512", "#include <stdio.h>\nint main(void) { volatile long s = 0; for (long i = 0; i < 100000; i++) s += i; printf(\"before\\n\"); fflush(stdout); __asm__ volatile(\"vpaddd %%zmm1, %%zmm2, %%zmm3\" ::: \"xmm3\"); printf(\"after\\n\"); return 0; }\n", &["-O1"]);
    let (out, v) = run(&[], &exe);
    assert_eq!(out.status.code(), Some(128 + libc::SIGILL));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "before\n");
    assert_eq!(v["complete"], false);
    assert!(v["instructions_simulated"].as_u64().unwrap() > 300_000, "the loop before it is reported");
    let reason = v["stop_reason"].as_str().unwrap();
    // iced's Intel syntax of 62 f1 6d 48 fe d9, the bytes gas makes of the instruction above
    for want in ["SIGILL", "`vpaddd zmm3,zmm2,zmm1`", "AVX-512", "QEMU 7.2", "-march=x86-64-v3", "analyze"] {
        assert!(reason.contains(want), "{want} in {reason}");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.lines().any(|l| l.starts_with("warning: partial report") && l.contains("vpaddd zmm3,zmm2,zmm1") && l.contains("AVX-512")), "one line: {stderr}");
}

#[test]
fn scripts_run_through_their_interpreter() {
    let d = tempfile::tempdir().unwrap();
    // shell builtins only: the interpreter is the one process that runs
    let body = "i=0\nwhile [ $i -lt 300 ]; do i=$((i+1)); done\necho \"counted $i $1\"\n";
    let direct = d.path().join("direct.sh");
    let via_env = d.path().join("via_env.sh");
    std::fs::write(&direct, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::write(&via_env, format!("#!/usr/bin/env sh\n{body}")).unwrap();
    for s in [&direct, &via_env] {
        std::fs::set_permissions(s, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let (out, v) = common::run_report(&["--no-sensitivity", "--no-views"], &direct, &["x"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "counted 300 x\n");
    assert_eq!(v["complete"], true);
    let script = v["instructions_simulated"].as_u64().unwrap();
    // the same work as the interpreter run on the script by hand (its argv[0] and
    // the script's name are the only differences)
    let sh = std::path::Path::new("/bin/sh");
    let (_, by_hand) = common::run_report(&["--no-sensitivity", "--no-views"], sh, &[direct.to_str().unwrap(), "x"]);
    let by_hand = by_hand["instructions_simulated"].as_u64().unwrap();
    assert!((script as f64 - by_hand as f64).abs() < 0.01 * by_hand as f64, "{script} vs {by_hand}");
    // `#!/usr/bin/env sh` runs sh found on PATH, not env (which would exec it untraced)
    let (out, v) = common::run_report(&["--no-sensitivity", "--no-views"], &via_env, &["y"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "counted 300 y\n");
    assert_eq!(v["complete"], true, "no exec: {}", v["stop_reason"]);
    let via = v["instructions_simulated"].as_u64().unwrap();
    assert!((via as f64 - by_hand as f64).abs() < 0.01 * by_hand as f64, "{via} vs {by_hand}");
    // a script whose interpreter is missing: one line naming both
    let broken = d.path().join("broken.sh");
    std::fs::write(&broken, "#!/no/such/interp\necho\n").unwrap();
    std::fs::set_permissions(&broken, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (out, _) = common::run_report(&[], &broken, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("broken.sh") && err.contains("/no/such/interp"), "{err}");
}

#[test]
fn the_text_report_lists_the_processes() {
    ensure_plugin();
    let out = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "-q", "--no-sensitivity", "--no-views", "--", "sh", "-c", "/bin/true | /bin/true"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stderr);
    let head = text.lines().find(|l| l.starts_with("Processes: ")).unwrap_or_else(|| panic!("{text}"));
    let n: usize = head["Processes: ".len()..].split(' ').next().unwrap().parse().unwrap();
    let rows: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("Processes: ")).skip(2).take(n).collect();
    assert_eq!(rows.iter().filter(|r| r.contains(" exec ") && r.contains("/bin/true") && r.ends_with("exited with code 0")).count(), 2, "{text}");
    assert_eq!(rows.iter().filter(|r| r.starts_with('*')).count(), 1, "one process detailed: {text}");
    assert!(rows[0].contains(" start ") && rows[0].contains(" sh "), "{text}");
}

/// The HTML page and the CSV table of a run that started others say which
/// process they detail: the page has the process table with that one marked,
/// the CSV rows carry its pid and program.
#[test]
fn html_and_csv_name_the_process_they_detail() {
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let (csv_path, html_path) = (d.path().join("r.csv"), d.path().join("r.html"));
    let out = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
        .env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "-q", "--no-sensitivity", "--no-views", "--format", "csv", "-o"])
        .arg(&csv_path)
        .arg("--html")
        .arg(&html_path)
        .args(["--", "sh", "-c", "/bin/true | /bin/true"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&html_path).unwrap();
    let at = html.find("<section id=\"processes\">").unwrap_or_else(|| panic!("no processes section"));
    let section = &html[at..at + html[at..].find("</section>").unwrap()];
    let rows: Vec<Vec<String>> = section
        .split("<tr>")
        .skip(2)
        .map(|r| r.split("<td").skip(1).map(|c| c[c.find('>').unwrap() + 1..c.find("</td>").unwrap()].to_string()).collect())
        .collect();
    // sh, its two forks and the two /bin/true they exec
    assert!(rows.len() >= 3, "{section}");
    assert_eq!(rows.iter().filter(|r| r[3] == "exec" && r[4] == "/bin/true").count(), 2, "{section}");
    let marked: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == "*").collect();
    assert_eq!(marked.len(), 1, "{section}");
    let (pid, program) = (&marked[0][1], &marked[0][4]);
    assert!(section.contains(&format!("are process {pid} ({program})")), "{section}");
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(&reader.headers().unwrap().iter().take(2).collect::<Vec<_>>(), &["pid", "program"]);
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert!(!records.is_empty(), "{csv}");
    assert!(records.iter().all(|r| &r[0] == pid && &r[1] == program), "{csv}");
}

/// The pids of `parent`'s children whose command name starts with `comm`.
fn children_named(parent: u32, comm: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // pid (comm) state ppid ...: comm may hold spaces, so split after its closing parenthesis
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        let ppid = stat[close + 1..].split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(parent) && stat[open + 1..close].starts_with(comm) {
            out.push(pid);
        }
    }
    out
}

/// Whether `pid` still runs (a zombie waiting for a reaper does not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.rfind(')').and_then(|c| s[c + 1..].split_whitespace().next().map(|st| st != "Z" && st != "X")).unwrap_or(false))
        .unwrap_or(false)
}

#[test]
fn a_killed_run_takes_its_qemu_with_it() {
    // SIGKILL (the OOM killer, a `pkill`) gives bottlenose no chance to stop QEMU itself; the
    // guest must not be left running, or blocked forever on a trace nobody reads
    ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let busy = compile(d.path(), "busy", "#include <stdio.h>\nint main(void) { volatile long s = 0; for (long i = 0; i < 4000000000L; i++) s += i; printf(\"%ld\\n\", s); return 0; }\n", &["-O1"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "--quiet", "--no-sensitivity", "--no-idealize", "--format", "json", "--output"])
        .arg(d.path().join("k.json"))
        .arg("--")
        .arg(&busy)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let qemu = loop {
        if let Some(&q) = children_named(child.id(), "qemu").first() {
            break q;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no QEMU child appeared");
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_secs(2));
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = std::time::Instant::now();
    while alive(qemu) {
        if killed.elapsed() > Duration::from_secs(10) {
            // SAFETY: our grandchild, which the test must not leave behind.
            unsafe { libc::kill(qemu as i32, libc::SIGKILL) };
            panic!("QEMU (pid {qemu}) still ran 10 s after bottlenose was killed");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
