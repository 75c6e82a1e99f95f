//! The study file (TOML): programs, machines, variants, options, Slurm settings.
//!
//! Every setting is typed and checked when the file is read, so that a typo or a
//! bad value is one error naming the file and line before any job starts.

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A study as written in its file, paths already made absolute.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    pub name: String,
    /// Result store directory (relative to the study file); `--store` overrides it.
    pub store: Option<PathBuf>,
    /// Built-in names or aliases, machine or calibration files, or `host`.
    pub machines: Vec<String>,
    /// Settings of every job; a variant's own settings take precedence.
    #[serde(default)]
    pub options: Settings,
    #[serde(rename = "program")]
    pub programs: Vec<Program>,
    /// Without variants a study has one, `default`, with the options alone.
    #[serde(rename = "variant", default)]
    pub variants: Vec<Variant>,
    #[serde(default)]
    pub slurm: SlurmSettings,
    /// Times a failed job is run again (both backends); `--retries` overrides it.
    pub retries: Option<u32>,
    /// The directory of the study file: relative paths in it start there.
    #[serde(skip)]
    pub dir: PathBuf,
}

/// One program: a binary to `run` under QEMU, or code to `analyze` statically.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Program {
    pub name: String,
    /// An executable to run (`bottlenose run`), with `args`.
    pub run: Option<PathBuf>,
    /// An assembly file, or an ELF file with `function`/`range` (`bottlenose analyze`).
    pub analyze: Option<PathBuf>,
    /// Raw instruction bytes to analyze (`bottlenose analyze --hex`).
    pub hex: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// Region of interest of a run (`--roi`).
    pub roi: Option<String>,
    /// ELF input of analyze: this function, or this address range.
    pub function: Option<String>,
    pub range: Option<String>,
}

/// Which bottlenose command a program's jobs are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    Run,
    Analyze,
}

impl JobKind {
    pub fn command(self) -> &'static str {
        match self {
            JobKind::Run => "run",
            JobKind::Analyze => "analyze",
        }
    }
}

impl Program {
    pub fn kind(&self) -> JobKind {
        if self.run.is_some() {
            JobKind::Run
        } else {
            JobKind::Analyze
        }
    }
}

/// A named set of settings: weights, idealizations, what-if accelerations...
#[derive(Debug, Deserialize)]
#[serde(try_from = "toml::Table")]
pub struct Variant {
    pub name: String,
    pub settings: Settings,
}

// By hand rather than `#[serde(flatten)]`, which would let unknown keys through.
impl TryFrom<toml::Table> for Variant {
    type Error = String;
    fn try_from(mut t: toml::Table) -> Result<Variant, String> {
        let name = match t.remove("name") {
            Some(toml::Value::String(s)) => s,
            Some(_) => return Err("a variant's `name` must be a string".into()),
            None => return Err("a [[variant]] has no `name`".into()),
        };
        let settings: Settings = toml::Value::Table(t).try_into().map_err(|e| format!("variant '{name}': {}", e.message().trim()))?;
        Ok(Variant { name, settings })
    }
}

/// The job settings a study can give, each one a flag of `bottlenose run` or `analyze`.
#[derive(Debug, Default, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<String>>,
    /// Sets of resources accelerated together, each comma separated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub combine: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_sensitivity: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub whole: Option<bool>,
    /// What-if runs: `RESOURCE=WEIGHT` applied to the baseline itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accelerate: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idealize: Option<Idealize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefetcher: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_instructions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_every: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cold: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_views: Option<bool>,
}

/// Idealization experiments of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Idealize {
    Off,
    Singles,
    Pairs,
}

/// The settings only one command has (the others are flags of both).
const ONLY: &[(&str, JobKind)] = &[
    ("iterations", JobKind::Analyze),
    ("whole", JobKind::Analyze),
    ("accelerate", JobKind::Run),
    ("idealize", JobKind::Run),
    ("prefetcher", JobKind::Run),
    ("max_instructions", JobKind::Run),
    ("sample_every", JobKind::Run),
    ("cold", JobKind::Run),
    ("no_views", JobKind::Run),
];

impl Settings {
    /// `self` with `over`'s settings where it has them.
    pub fn overridden_by(&self, over: &Settings) -> Settings {
        macro_rules! pick {
            ($($f:ident),*) => { Settings { $($f: over.$f.clone().or_else(|| self.$f.clone())),* } };
        }
        pick!(weights, resources, combine, no_sensitivity, iterations, whole, accelerate, idealize, prefetcher, max_instructions, sample_every, cold, no_views)
    }

    /// The names of the settings given.
    fn names(&self) -> Vec<String> {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// The first setting given that a `kind` job does not have, and the command that has it.
    fn foreign(&self, kind: JobKind) -> Option<(String, JobKind)> {
        self.names().into_iter().find_map(|n| ONLY.iter().find(|(o, k)| *o == n && *k != kind).map(|(_, k)| (n, *k)))
    }

    /// The settings a `kind` job has: [options] apply where they mean something.
    pub fn only_for(&self, kind: JobKind) -> Settings {
        let Ok(serde_json::Value::Object(mut m)) = serde_json::to_value(self) else { return self.clone() };
        m.retain(|n, _| !ONLY.iter().any(|(o, k)| o == n && *k != kind));
        serde_json::from_value(serde_json::Value::Object(m)).unwrap_or_default()
    }

    /// The command-line flags of these settings for a job of `kind`; a setting the
    /// command does not have is an error naming it.
    pub fn flags(&self, kind: JobKind) -> Result<Vec<String>> {
        if let Some((name, k)) = self.foreign(kind) {
            bail!("`{name}` is a setting of {} jobs only", k.command());
        }
        let mut flags = Vec::new();
        let mut add = |name: &str, value: Option<String>| {
            let Some(value) = value else { return };
            flags.push(format!("--{}", name.replace('_', "-")));
            if !value.is_empty() {
                flags.push(value);
            }
        };
        let list = |v: &Option<Vec<String>>| v.as_ref().map(|v| v.join(","));
        let switch = |b: Option<bool>| b.filter(|&b| b).map(|_| String::new());
        add("weights", self.weights.as_ref().map(|w| w.iter().map(f64::to_string).collect::<Vec<_>>().join(",")));
        add("resources", list(&self.resources));
        for set in self.combine.iter().flatten() {
            add("combine", Some(set.clone()));
        }
        add("no_sensitivity", switch(self.no_sensitivity));
        add("iterations", self.iterations.map(|n| n.to_string()));
        add("whole", switch(self.whole));
        for a in self.accelerate.iter().flatten() {
            add("accelerate", Some(a.clone()));
        }
        match self.idealize {
            Some(Idealize::Off) => add("no_idealize", Some(String::new())),
            Some(Idealize::Pairs) => add("idealize", Some(String::new())),
            // the default of run
            Some(Idealize::Singles) | None => {}
        }
        add("prefetcher", self.prefetcher.clone());
        add("max_instructions", self.max_instructions.map(|n| n.to_string()));
        add("sample_every", self.sample_every.map(|n| n.to_string()));
        add("cold", switch(self.cold));
        add("no_views", switch(self.no_views));
        Ok(flags)
    }

    /// Checks the values (the rules are those of the commands themselves).
    fn check(&self) -> Result<()> {
        for &w in self.weights.iter().flatten() {
            bottlenose_analysis::check_weight(w)?;
        }
        for a in self.accelerate.iter().flatten() {
            bottlenose_analysis::parse_acceleration(a)?;
        }
        if let Some(p) = &self.prefetcher {
            p.parse::<bottlenose_functional::Prefetcher>().map_err(|e| anyhow!("prefetcher: {e}"))?;
        }
        if self.iterations == Some(0) || self.max_instructions == Some(0) {
            bail!("iterations and max_instructions must be at least 1");
        }
        if self.sample_every.is_some_and(|n| n < 2) {
            bail!("sample_every must be at least 2");
        }
        Ok(())
    }
}

/// How the Slurm backend submits; flags of `study run` override these.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlurmSettings {
    pub partition: Option<String>,
    /// `sbatch --time` of each task (e.g. "00:10:00").
    pub time_limit: Option<String>,
    /// At most this many array tasks at once (`--array=...%N`).
    pub throttle: Option<u32>,
    pub cpus_per_task: Option<u32>,
    /// Jobs per array task: short jobs in chunks spend less time being scheduled.
    pub chunk: Option<u32>,
}

impl Study {
    /// Reads and checks a study file.
    pub fn load(path: &Path) -> Result<Study> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read study file {file}"))?;
        let mut study: Study = toml::from_str(&text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let at = line.map(|l| format!(" line {l}")).unwrap_or_default();
            anyhow!("{file}{at}: {}", e.message().trim())
        })?;
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        study.dir = std::path::absolute(dir).with_context(|| format!("cannot resolve the directory of {file}"))?;
        study.check().map_err(|e| anyhow!("{file}: {e:#}"))?;
        if study.variants.is_empty() {
            study.variants.push(Variant { name: "default".into(), settings: Settings::default() });
        }
        Ok(study)
    }

    /// The settings of a `kind` job of variant `v`: the options it has, then the variant's.
    pub fn job_settings(&self, v: &Variant, kind: JobKind) -> Settings {
        self.options.only_for(kind).overridden_by(&v.settings)
    }

    /// A path of the study file, relative to its directory.
    pub fn path(&self, p: &Path) -> PathBuf {
        self.dir.join(p)
    }

    fn check(&self) -> Result<()> {
        if self.name.trim().is_empty() {
            bail!("the study has an empty name");
        }
        if self.machines.is_empty() {
            bail!("no machines: list at least one in `machines = [...]`");
        }
        if self.programs.is_empty() {
            bail!("no programs: add a [[program]] table");
        }
        unique("program", self.programs.iter().map(|p| p.name.as_str()))?;
        unique("machine", self.machines.iter().map(String::as_str))?;
        unique("variant", self.variants.iter().map(|v| v.name.as_str()))?;
        self.options.check().context("[options]")?;
        for p in &self.programs {
            let sources = [p.run.is_some(), p.analyze.is_some(), p.hex.is_some()].iter().filter(|&&b| b).count();
            if sources != 1 {
                bail!("program '{}': give exactly one of `run`, `analyze` or `hex`", p.name);
            }
            let kind = p.kind();
            if kind == JobKind::Analyze && (!p.args.is_empty() || p.roi.is_some()) {
                bail!("program '{}': `args` and `roi` are for `run` programs", p.name);
            }
            if kind == JobKind::Run && (p.function.is_some() || p.range.is_some()) {
                bail!("program '{}': `function` and `range` are for `analyze` programs (a run takes `roi`)", p.name);
            }
            if let Some(file) = p.run.as_ref().or(p.analyze.as_ref()) {
                let full = self.path(file);
                if !full.is_file() {
                    bail!("program '{}': {} not found", p.name, full.display());
                }
            }
        }
        // [options] apply to the programs whose command has them, so some program must
        if let Some(name) = self.options.names().into_iter().find(|n| self.programs.iter().all(|p| self.options.only_for(p.kind()).names().iter().all(|m| m != n))) {
            let k = ONLY.iter().find(|(o, _)| *o == name).map(|(_, k)| k.command()).unwrap_or("other");
            bail!("[options]: `{name}` is a setting of {k} jobs only, and no program is one");
        }
        for v in &self.variants {
            v.settings.check().with_context(|| format!("variant '{}'", v.name))?;
            for p in &self.programs {
                self.job_settings(v, p.kind()).flags(p.kind()).with_context(|| format!("variant '{}' with program '{}'", v.name, p.name))?;
            }
        }
        let s = &self.slurm;
        if s.throttle == Some(0) || s.cpus_per_task == Some(0) || s.chunk == Some(0) {
            bail!("[slurm] throttle, cpus_per_task and chunk must be at least 1");
        }
        Ok(())
    }
}

fn unique<'a>(what: &str, names: impl Iterator<Item = &'a str>) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for n in names {
        if n.trim().is_empty() {
            bail!("a {what} has an empty name");
        }
        if !seen.insert(n) {
            bail!("two {what}s are named '{n}'");
        }
    }
    Ok(())
}
