//! A study expanded to jobs: every program on every machine under every variant,
//! each one ordinary `bottlenose run` or `analyze` command line, named by the
//! hash of everything its result depends on.

use crate::spec::{JobKind, Study};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The version that goes into every job's identity: results of another
/// bottlenose version are other results.
pub const BOTTLENOSE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// One job: a bottlenose command line and its place in the study.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Job {
    /// Hex SHA-256 of the job's inputs ([`identity`]): the store's key.
    pub hash: String,
    pub program: String,
    pub machine: String,
    pub variant: String,
    pub kind: JobKind,
    /// The arguments after the executable (`run ... -- PROG ARGS` or `analyze ...`),
    /// without the output options, which the executor adds.
    pub argv: Vec<String>,
}

impl Job {
    pub fn label(&self) -> String {
        format!("{} on {} ({})", self.program, self.machine, self.variant)
    }
}

/// A machine of a study as its jobs name it, and what it stands for.
pub struct ResolvedMachine {
    /// The `--machine` argument of its jobs: `host` becomes the model (or this
    /// CPU's calibration overlay) it means on the machine that expands the study,
    /// so that a job run on another node computes what its key says.
    pub argument: String,
    /// The text its results depend on: a built-in's files, a file's content,
    /// for `host` the CPU signature and its overlay.
    pub fingerprint: String,
}

/// Resolves a machine name of the study (an unknown one is an error).
pub type MachineResolver<'a> = &'a dyn Fn(&str) -> Result<ResolvedMachine>;

/// The jobs of a study, in the order programs x machines x variants.
pub fn expand(study: &Study, resolve: MachineResolver) -> Result<Vec<Job>> {
    let mut machines = Vec::new();
    for m in &study.machines {
        // a machine file is named relative to the study file
        let name = if study.path(m.as_ref()).is_file() { study.path(m.as_ref()).display().to_string() } else { m.clone() };
        let r = resolve(&name).with_context(|| format!("machine '{m}'"))?;
        machines.push((m, r.argument, sha256_hex(r.fingerprint.as_bytes())));
    }
    let mut jobs = Vec::new();
    for p in &study.programs {
        let kind = p.kind();
        let (code_hash, input_args) = program_input(study, p)?;
        for (machine, machine_arg, machine_hash) in &machines {
            for v in &study.variants {
                let settings = study.job_settings(v, kind);
                let mut argv = vec![kind.command().to_string(), "--machine".into(), machine_arg.clone()];
                argv.extend(settings.flags(kind)?);
                argv.extend(input_args.iter().cloned());
                let identity = serde_json::json!({
                    "bottlenose": BOTTLENOSE_VERSION,
                    "kind": kind,
                    "code": code_hash,
                    "args": p.args,
                    "roi": p.roi,
                    "function": p.function,
                    "range": p.range,
                    "machine": machine_hash,
                    "settings": settings,
                });
                jobs.push(Job {
                    hash: sha256_hex(identity.to_string().as_bytes()),
                    program: p.name.clone(),
                    machine: (*machine).clone(),
                    variant: v.name.clone(),
                    kind,
                    argv,
                });
            }
        }
    }
    Ok(jobs)
}

/// The hash of a program's code (the binary or assembly file's bytes, or the hex
/// text) and the arguments that give it to the command.
fn program_input(study: &Study, p: &crate::spec::Program) -> Result<(String, Vec<String>)> {
    if let Some(hex) = &p.hex {
        return Ok((sha256_hex(hex.as_bytes()), vec!["--hex".into(), hex.clone()]));
    }
    let file = study.path(p.run.as_ref().or(p.analyze.as_ref()).expect("checked when the study was read"));
    let bytes = std::fs::read(&file).with_context(|| format!("program '{}': cannot read {}", p.name, file.display()))?;
    let path = file.display().to_string();
    let args = match p.kind() {
        JobKind::Run => {
            let mut a = Vec::new();
            if let Some(roi) = &p.roi {
                a.extend(["--roi".into(), roi.clone()]);
            }
            a.extend(["--".into(), path]);
            a.extend(p.args.iter().cloned());
            a
        }
        JobKind::Analyze => {
            let mut a = vec![path];
            if let Some(f) = &p.function {
                a.extend(["--function".into(), f.clone()]);
            }
            if let Some(r) = &p.range {
                a.extend(["--range".into(), r.clone()]);
            }
            a
        }
    };
    Ok((sha256_hex(&bytes), args))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Built-in names stand for themselves; `same-as-zen4` for zen4's text.
    fn resolve(name: &str) -> Result<ResolvedMachine> {
        let print = if name == "same-as-zen4" { "zen4" } else { name };
        Ok(ResolvedMachine { argument: name.to_string(), fingerprint: format!("text of {print}") })
    }

    fn study(dir: &Path, text: &str) -> Study {
        let f = dir.join("s.toml");
        std::fs::write(&f, text).unwrap();
        Study::load(&f).unwrap()
    }

    const RUN: &str = "name = \"t\"\nmachines = [\"skylake\", \"zen4\", \"same-as-zen4\"]\n[options]\nmax_instructions = 1000\n\
        [[program]]\nname = \"p\"\nrun = \"prog\"\nargs = [\"7\"]\nroi = \"function:kernel\"\n\
        [[variant]]\nname = \"base\"\n[[variant]]\nname = \"what-if\"\naccelerate = [\"p23=1.15\"]\n";

    fn jobs(dir: &Path, text: &str) -> Vec<Job> {
        expand(&study(dir, text), &resolve).unwrap()
    }

    #[test]
    fn the_bundled_example_is_3_programs_by_3_machines_by_4_variants() {
        let s = Study::load(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/study.toml"))).unwrap();
        let jobs = expand(&s, &resolve).unwrap();
        assert_eq!(jobs.len(), 36);
        let first = &jobs[0];
        assert_eq!((first.program.as_str(), first.machine.as_str(), first.variant.as_str()), ("jacobi", "skylake", "default"));
        assert_eq!(first.argv[..5], ["analyze", "--machine", "skylake", "--iterations", "400"]);
        assert!(first.argv[5].ends_with("examples/jacobi.s"));
        // variants vary fastest, then machines
        assert_eq!(jobs[1].variant, "fine-weights");
        assert_eq!(jobs[4].machine, "zen4");
        let combined = jobs.iter().find(|j| j.variant == "frontend+latency").unwrap();
        assert!(combined.argv.windows(2).any(|w| w == ["--combine", "frontend,latency"]));
    }

    #[test]
    fn a_run_job_is_the_command_line_of_bottlenose_run() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("prog"), b"\x7fELF binary").unwrap();
        let j = jobs(d.path(), RUN);
        let what_if = &j[1];
        let prog = d.path().join("prog").display().to_string();
        let want = ["run", "--machine", "skylake", "--accelerate", "p23=1.15", "--max-instructions", "1000", "--roi", "function:kernel", "--", &prog, "7"];
        assert_eq!(what_if.argv, want);
    }

    #[test]
    fn the_key_is_the_inputs_and_not_the_names() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("prog"), b"\x7fELF binary").unwrap();
        let base = jobs(d.path(), RUN);
        // a machine under another name with the same text is the same job
        assert_eq!(base[2].hash, base[4].hash);
        assert_ne!(base[0].hash, base[2].hash, "other machine text");
        assert_ne!(base[0].hash, base[1].hash, "other variant settings");
        // renaming the variant and the program keeps the keys
        let renamed = jobs(d.path(), &RUN.replace("name = \"what-if\"", "name = \"p23-faster\"").replace("name = \"p\"", "name = \"q\""));
        assert_eq!(base.iter().map(|j| &j.hash).collect::<Vec<_>>(), renamed.iter().map(|j| &j.hash).collect::<Vec<_>>());
        // other arguments, options or program bytes are other jobs
        let args = jobs(d.path(), &RUN.replace("args = [\"7\"]", "args = [\"8\"]"));
        let opts = jobs(d.path(), &RUN.replace("max_instructions = 1000", "max_instructions = 2000"));
        std::fs::write(d.path().join("prog"), b"\x7fELF binary, rebuilt").unwrap();
        let rebuilt = jobs(d.path(), RUN);
        for other in [&args, &opts, &rebuilt] {
            assert!(base.iter().zip(other.iter()).all(|(a, b)| a.hash != b.hash));
        }
    }

    #[test]
    fn options_apply_to_the_jobs_whose_command_has_them() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("prog"), b"\x7fELF binary").unwrap();
        let mixed = RUN.replace("max_instructions = 1000\n", "max_instructions = 1000\niterations = 50\n").replace("[[variant]]\nname = \"base\"", "[[program]]\nname = \"k\"\nhex = \"90\"\n[[variant]]\nname = \"base\"")
            // a variant's own settings must fit every program: no what-if here
            .replace("[[variant]]\nname = \"what-if\"\naccelerate = [\"p23=1.15\"]\n", "");
        let j = jobs(d.path(), &mixed);
        let run = j.iter().find(|j| j.program == "p").unwrap();
        let analyze = j.iter().find(|j| j.program == "k" && j.variant == "base").unwrap();
        assert!(run.argv.contains(&"--max-instructions".to_string()) && !run.argv.contains(&"--iterations".to_string()), "{:?}", run.argv);
        assert_eq!(analyze.argv, ["analyze", "--machine", "skylake", "--iterations", "50", "--hex", "90"]);
        // but an option no program has is a mistake
        let f = d.path().join("s.toml");
        std::fs::write(&f, "name = \"t\"\nmachines = [\"skylake\"]\n[options]\nmax_instructions = 5\n[[program]]\nname = \"k\"\nhex = \"90\"\n").unwrap();
        let e = format!("{:#}", Study::load(&f).unwrap_err());
        assert!(e.ends_with("[options]: `max_instructions` is a setting of run jobs only, and no program is one"), "{e}");
    }

    #[test]
    fn a_variant_setting_the_command_lacks_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("k.s"), "add %rax, %rax\n").unwrap();
        let f = d.path().join("s.toml");
        std::fs::write(&f, "name = \"t\"\nmachines = [\"skylake\"]\n[[program]]\nname = \"k\"\nanalyze = \"k.s\"\n[[variant]]\nname = \"v\"\nidealize = \"pairs\"\n").unwrap();
        let e = format!("{:#}", Study::load(&f).unwrap_err());
        assert!(e.contains("variant 'v' with program 'k': `idealize` is a setting of run jobs only"), "{e}");
    }
}
