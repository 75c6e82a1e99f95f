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

/// What a machine name stands for, as bytes: the caller resolves built-in names
/// to their files' text, files to their content, `host` to the CPU signature and
/// its calibration overlay. An unknown machine is an error.
pub type MachineFingerprint<'a> = &'a dyn Fn(&str) -> Result<String>;

/// The jobs of a study, in the order programs x machines x variants.
pub fn expand(study: &Study, fingerprint: MachineFingerprint) -> Result<Vec<Job>> {
    let mut machines = Vec::new();
    for m in &study.machines {
        // a machine file is named relative to the study file
        let arg = if study.path(m.as_ref()).is_file() { study.path(m.as_ref()).display().to_string() } else { m.clone() };
        let print = fingerprint(&arg).with_context(|| format!("machine '{m}'"))?;
        machines.push((m, arg, sha256_hex(print.as_bytes())));
    }
    let mut jobs = Vec::new();
    for p in &study.programs {
        let kind = p.kind();
        let (code_hash, input_args) = program_input(study, p)?;
        for (machine, machine_arg, machine_hash) in &machines {
            for v in &study.variants {
                let settings = study.options.overridden_by(&v.settings);
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
