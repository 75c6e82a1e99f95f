//! `--machine`: a built-in name or alias, a machine or overlay file, or `host`.
//!
//! `host` identifies the running CPU (CPUID, through `bottlenose-host`), takes
//! the closest built-in model and lays this host's calibration over it when
//! `bottlenose calibrate` has written one to the cache directory. Every report
//! carries the host line, so a figure always says which CPU it was made on.

use anyhow::{bail, Context, Result};
use bottlenose_host::{identify, HostCpu, Identification, Match};
use bottlenose_machine::{Machine, Overlay};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The model `host` falls back to when the CPU cannot be identified.
const FALLBACK: &str = "skylake";

/// The machine a command runs with and how it was chosen.
pub struct Choice {
    pub machine: Machine,
    pub host: HostNote,
}

/// What the report says about the host and the choice of model.
#[derive(Debug, Clone, Serialize)]
pub struct HostNote {
    /// The running CPU in one line (brand, signature, hypervisor, caches).
    pub cpu: String,
    pub signature: String,
    /// How `--machine host` chose its model (absent for an explicit machine).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identified: Option<String>,
    /// The calibration overlay applied, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibration: Option<String>,
}

impl HostNote {
    /// One line for text reports.
    pub fn line(&self, machine: &str) -> String {
        let mut s = format!("Host: {}; model: {machine}", self.cpu);
        if let Some(i) = &self.identified {
            s.push_str(&format!(" ({i})"));
        }
        if let Some(c) = &self.calibration {
            s.push_str(&format!("; calibration: {c}"));
        }
        s
    }
}

/// The running CPU, or an error naming why it cannot be read.
pub fn host_cpu() -> Result<HostCpu> {
    HostCpu::detect().context("cannot identify the host CPU (CPUID is not available here); name a machine with --machine")
}

/// Where `bottlenose calibrate` keeps this CPU's overlay.
pub fn calibration_path(cpu: &HostCpu) -> Option<PathBuf> {
    let base = std::env::var_os("BOTTLENOSE_CACHE_DIR").map(PathBuf::from).or_else(|| dirs::cache_dir().map(|d| d.join("bottlenose")))?;
    Some(base.join("calibration").join(format!("{}.toml", cpu.signature())))
}

/// Resolves `--machine NAME`.
pub fn choose(name: &str) -> Result<Choice> {
    let cpu = HostCpu::detect();
    let note = |identified: Option<String>, calibration: Option<String>| HostNote {
        cpu: cpu.as_ref().map(HostCpu::describe).unwrap_or_else(|| format!("unknown ({})", std::env::consts::ARCH)),
        signature: cpu.as_ref().map(HostCpu::signature).unwrap_or_default(),
        identified,
        calibration,
    };
    if name.eq_ignore_ascii_case("host") {
        let Some(cpu) = cpu.as_ref() else {
            // no CPUID (not x86-64): say so in the report and use the default model
            let machine = Machine::resolve(FALLBACK)?;
            let why = format!("CPUID is not available on this {} host: fell back to {FALLBACK}; name a machine with --machine", std::env::consts::ARCH);
            return Ok(Choice { machine, host: note(Some(why), None) });
        };
        let id = identify(cpu);
        let identified = describe_identification(&id);
        let Some(path) = calibration_path(cpu).filter(|p| p.exists()) else {
            let machine = Machine::resolve(id.machine)?;
            return Ok(Choice { machine, host: note(Some(identified), None) });
        };
        let machine = load_overlay(&path, cpu, Some(id.machine))?;
        let when = machine.calibration.as_ref().map(|c| c.date.clone()).unwrap_or_default();
        return Ok(Choice { machine, host: note(Some(identified), Some(format!("{} ({when})", path.display()))) });
    }
    let path = Path::new(name);
    if path.is_file() {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
        if Overlay::is_overlay(&text) {
            let Some(cpu) = cpu.as_ref() else { bail!("{name} is a calibration overlay, but this host's CPU cannot be identified to check it") };
            let machine = load_overlay(path, cpu, None)?;
            return Ok(Choice { machine, host: note(None, Some(name.to_string())) });
        }
    }
    Ok(Choice { machine: Machine::resolve(name)?, host: note(None, None) })
}

fn describe_identification(id: &Identification) -> String {
    match id.how {
        Match::Fallback => format!("host not recognized, fell back to {}: {}", id.machine, id.reason),
        _ => id.reason.clone(),
    }
}

/// Loads an overlay measured on this CPU; one from another CPU is an error
/// (its values describe that CPU, not this one).
fn load_overlay(path: &Path, cpu: &HostCpu, expected_base: Option<&str>) -> Result<Machine> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {file}"))?;
    let overlay = Overlay::parse(&text, &file)?;
    // a broken overlay is reported as such before anything else is said about it
    let machine = overlay.apply(&file, &text)?;
    let c = &overlay.calibration;
    if c.signature != cpu.signature() {
        bail!(
            "{file} was measured on {} ({}), but this host is {}: run `bottlenose calibrate` here, or use its base model with --machine {}",
            c.cpu,
            c.signature,
            cpu.signature(),
            c.base
        );
    }
    if let Some(base) = expected_base {
        if bottlenose_machine::canonical_name(&c.base) != Some(base) {
            bail!("{file} calibrates {}, but this host is identified as {base}: run `bottlenose calibrate` again", c.base);
        }
    }
    Ok(machine)
}

/// A study's machine: the `--machine` argument its jobs get and the text their
/// results depend on (hashed into each job's key). A built-in stands for its
/// machine and form files; a machine file for its content and the form table
/// beside it; an overlay for itself and its base. `host` becomes this CPU's
/// calibration overlay, or the model chosen for it, so that a job that runs on
/// another node of a cluster computes the same thing (an overlay refuses to run
/// on another CPU). A name that does not resolve is an error, as for a job.
pub fn for_study(name: &str) -> Result<bottlenose_study::expand::ResolvedMachine> {
    choose(name)?;
    let builtin = |n: &str| -> Result<String> {
        let (machine, forms) = bottlenose_machine::builtin_text(n).with_context(|| format!("no built-in machine {n}"))?;
        Ok(format!("builtin {n}\n{machine}\n{forms}\n"))
    };
    let resolved = |argument: &str, fingerprint: String| Ok(bottlenose_study::expand::ResolvedMachine { argument: argument.to_string(), fingerprint });
    if name.eq_ignore_ascii_case("host") {
        let Some(cpu) = HostCpu::detect() else { return resolved(FALLBACK, builtin(FALLBACK)?) };
        let id = identify(&cpu);
        if let Some(path) = calibration_path(&cpu).filter(|p| p.exists()) {
            let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
            return resolved(&path.display().to_string(), format!("host {}\n{}{text}", cpu.signature(), builtin(id.machine)?));
        }
        return resolved(id.machine, builtin(id.machine)?);
    }
    if bottlenose_machine::canonical_name(name).is_some() {
        return resolved(name, builtin(name)?);
    }
    let path = Path::new(name);
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
    let mut print = format!("file\n{text}\n");
    if Overlay::is_overlay(&text) {
        print.push_str(&builtin(&Overlay::parse(&text, name)?.calibration.base)?);
    } else if let Some(forms) = text.parse::<toml::Table>().ok().and_then(|t| t.get("forms")?.as_str().map(str::to_string)) {
        let forms_path = path.parent().unwrap_or(Path::new(".")).join(forms);
        print.push_str(&std::fs::read_to_string(&forms_path).with_context(|| format!("cannot read {}", forms_path.display()))?);
    }
    resolved(name, print)
}
