//! `bottlenose calibrate`: measure this host natively (no PMU needed) and write
//! a calibration overlay over its closest model (or `--base`), which
//! `--machine host` then uses automatically.

use crate::machine_choice::{calibration_path, host_cpu};
use anyhow::{bail, Context, Result};
use bottlenose_calibrate::{CacheGeometry, Calibration, Plan};
use bottlenose_machine::{CalibrationInfo, FormSetting, Machine, Overlay, Setting};
use clap::{Args, ValueEnum};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum Format {
    Text,
    Json,
}

#[derive(Args)]
#[command(after_help = "Examples:
  bottlenose calibrate                         # standard set; then --machine host uses it
  bottlenose calibrate --base skylake -o skl-here.toml
  bottlenose calibrate --for ./prog            # also every instruction form ./prog contains
  bottlenose calibrate --for kernel.s --forms-only
  bottlenose analyze k.s --machine skl-here.toml

Cycles come from rdtsc, converted with a dependent add-register chain (1 cycle each) and
checked against an imul chain (3 cycles), re-measured around every timed region.")]
pub struct CalibrateArgs {
    /// The model to correct (default: the one `--machine host` picks for this CPU).
    #[arg(long)]
    pub base: Option<String>,
    /// Write the overlay here instead of this CPU's file in the cache directory (where `--machine host` finds it).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Also measure every instruction form of this program (ELF) or block (assembly file); repeatable.
    #[arg(long = "for", value_name = "PROGRAM|BLOCK")]
    pub for_: Vec<PathBuf>,
    /// Only the instruction forms (of --for and the built-in set), not the standard set.
    #[arg(long)]
    pub forms_only: bool,
    /// Infer port conflicts from pairwise mixes of the measured forms (slower).
    #[arg(long)]
    pub conflicts: bool,
    /// Print what was measured without writing an overlay.
    #[arg(long)]
    pub dry_run: bool,
    /// Passes over the measurements; with 2 (the default) a value is written only where both agree within 5 %.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=2))]
    pub passes: u32,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Two passes further apart than this (fraction) leave a value out of the overlay.
const PASS_TOLERANCE: f64 = 0.05;

pub fn run(a: CalibrateArgs) -> Result<i32> {
    let cpu = host_cpu()?;
    let identified = bottlenose_host::identify(&cpu);
    let base_name = a.base.clone().unwrap_or_else(|| identified.machine.to_string());
    let base = Machine::resolve(&base_name)?;
    if base.calibration.is_some() {
        bail!("--base {base_name} is already a calibration overlay: name the built-in model it corrects ({})", base.name);
    }
    if bottlenose_machine::canonical_name(&base.name).is_none() {
        bail!("--base {base_name}: an overlay corrects a built-in machine; {} is not one (see `bottlenose machines`)", base.name);
    }
    let mut forms = Vec::new();
    for p in &a.for_ {
        forms.extend(forms_of(p)?);
    }
    forms.sort();
    forms.dedup();
    let l1i = cpu.cache(1, bottlenose_host::Kind::Instruction).map(|c| c.size);
    let geometry = CacheGeometry { l1d_bytes: cpu.l1d(), l1i_bytes: l1i, l2_bytes: cpu.l2(), l3_bytes: cpu.l3() };
    let mut plan = if a.forms_only { Plan::forms_only(forms) } else { Plan { forms, ..Plan::standard(geometry) } };
    plan.conflicts = a.conflicts;

    let stop = Arc::new(AtomicBool::new(false));
    {
        let s = stop.clone();
        let _ = ctrlc::set_handler(move || s.store(true, Ordering::Relaxed));
    }
    let show = !a.quiet && std::io::stderr().is_terminal();
    if !a.quiet {
        eprintln!("calibrating {} against {} ({})", cpu.describe(), base.name, identified.reason);
    }
    let bar = show.then(|| {
        let b = indicatif::ProgressBar::new(1);
        b.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed}]").unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()));
        b
    });
    let mut last_step = String::new();
    let mut progress = |step: &str, done: usize, total: usize| match &bar {
        Some(b) => {
            b.set_length(total as u64);
            b.set_position(done as u64);
            b.set_message(step.to_string());
        }
        None if !a.quiet && step != last_step => {
            // a log, not a bar: one line when a step starts (short steps run in rounds)
            let _ = (done, total);
            eprintln!("  {step}");
            last_step = step.to_string();
        }
        None => {}
    };
    // two passes at different moments: a value the second does not confirm is not written
    let result = bottlenose_calibrate::calibrate(&plan, &base, &mut progress, &stop).and_then(|first| match a.passes {
        1 => Ok(first),
        _ => bottlenose_calibrate::calibrate(&plan, &base, &mut progress, &stop).map(|second| bottlenose_calibrate::combine_passes(first, &second, PASS_TOLERANCE)),
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let cal = match result {
        Ok(c) => c,
        Err(bottlenose_calibrate::CalibrateError::Stopped) => {
            eprintln!("calibration stopped: nothing written");
            return Ok(130);
        }
        Err(e) => return Err(e.into()),
    };

    let date = today();
    let mut overlay = to_overlay(&cal, &base, &cpu.describe(), &cpu.signature(), &date);
    let geometry = geometry_settings(&cpu, &base, &date);
    overlay.settings.extend(geometry.iter().cloned());
    let target = match &a.output {
        Some(p) => Some(p.clone()),
        None if a.dry_run => None,
        None => Some(calibration_path(&cpu).context("no cache directory (set $HOME or $BOTTLENOSE_CACHE_DIR), use -o FILE")?),
    };
    match a.format {
        Format::Json => {
            let v = serde_json::json!({
                "schema": "bottlenose/calibrate/v1",
                "host": { "cpu": cpu.describe(), "signature": cpu.signature(), "identified": identified.reason },
                "base": base.name,
                "calibration": cal,
                "geometry": geometry,
                "derived_forms": bottlenose_calibrate::derive::derived_forms(&cal.forms, &base),
                "overlay": target.as_ref().filter(|_| !a.dry_run).map(|p| p.display().to_string()),
            });
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        Format::Text => {
            print!("{}", render(&cal, &base, &cpu.describe()));
            for g in &geometry {
                println!("geometry: {} {} -> {} (from CPUID)", g.key, g.base.unwrap_or(f64::NAN), g.value);
            }
        }
    }
    if let (Some(path), false) = (&target, a.dry_run) {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        // check that what we write loads back as a machine before anyone uses it
        let text = overlay.to_toml();
        Overlay::parse(&text, &path.display().to_string())
            .and_then(|o| o.apply(&path.display().to_string(), &text))
            .context("the measured values do not make a valid machine")?;
        crate::output::write_atomic(path, &text)?;
        if !a.quiet {
            let how = if a.output.is_some() { format!("use it with --machine {}", path.display()) } else { "--machine host now uses it".to_string() };
            eprintln!("wrote {} ({} values, {} forms); {how}", path.display(), overlay.settings.len(), overlay.forms.len());
        }
    }
    Ok(0)
}

/// The overlay of a calibration: every measured machine parameter the base has,
/// and every measured form, each with a note saying where, when and how.
pub fn to_overlay(cal: &Calibration, base: &Machine, cpu: &str, signature: &str, date: &str) -> Overlay {
    let on = |method: &str, spread: Option<f64>| match spread {
        Some(s) => format!("measured on {cpu}, {date}, {method} (spread {s:.1} %)"),
        None => format!("measured on {cpu}, {date}, {method}"),
    };
    let settings = cal
        .entries
        .iter()
        .filter(|e| !e.key.starts_with("info.") && !e.unstable && base.param(&e.key).is_some())
        .map(|e| Setting { key: e.key.clone(), value: round3(e.value), base: e.base, note: on(&e.method, Some(e.spread_pct)) })
        .collect();
    // the measured forms, then those the base table times like them (FMA orders, memory operands)
    let derived = bottlenose_calibrate::derive::derived_forms(&cal.forms, base);
    let forms = cal
        .forms
        .iter()
        .chain(&derived)
        .filter(|f| !f.unstable && (f.latency.is_some() || f.rthroughput.is_some()))
        .map(|f| FormSetting { form: f.form.clone(), latency: f.latency.map(round3), rthroughput: f.rthroughput.map(round3), note: on(&f.method, None) })
        .collect();
    Overlay {
        calibration: CalibrationInfo {
            base: base.name.clone(),
            cpu: cpu.to_string(),
            signature: signature.to_string(),
            date: date.to_string(),
            tool: format!("bottlenose {} calibrate", env!("CARGO_PKG_VERSION")),
            tsc_ghz: Some(round3(cal.clock.tsc_ghz)),
            core_ghz: Some(round3(cal.clock.core_ghz)),
        },
        settings,
        forms,
    }
}

/// The host's cache and TLB geometry (CPUID facts, not measurements) where the
/// base model's differs: a model of another core keeps its timing but gets this
/// host's capacities, so a working set hits where it hits here.
pub fn geometry_settings(cpu: &bottlenose_host::HostCpu, base: &Machine, date: &str) -> Vec<Setting> {
    use bottlenose_host::Kind;
    use bottlenose_machine::CacheKind;
    let mut out = Vec::new();
    let source = format!("{:?}", cpu.cache_source);
    let note = |what: String| format!("CPUID on {}, {date}: {what} ({source})", cpu.describe());
    for c in &base.params.caches {
        let kind = match c.kind {
            CacheKind::Data => Kind::Data,
            CacheKind::Instruction => Kind::Instruction,
            CacheKind::Unified => Kind::Unified,
        };
        // Under a hypervisor the last level is the socket's, shared with other guests: on an
        // Emerald Rapids VM, CPUID says 260 MiB, yet a pointer chase over 256 MiB runs at DRAM
        // latency and a copy over 16 MiB at close to DRAM bandwidth (bench/kernels
        // ptr_chase_dram -68 %, stream_copy -56 % with it, against -27 % and -8 % with the
        // model's 60 MiB). How much of it a guest gets is not known, so the model keeps its own.
        if c.level >= 3 && cpu.hypervisor {
            continue;
        }
        let Some(h) = cpu.cache(c.level, kind).or_else(|| (c.level > 1).then(|| cpu.cache(c.level, Kind::Data)).flatten()) else { continue };
        let kib = (h.size / 1024) as u32;
        let lines = h.size / u64::from(c.line_bytes.max(1));
        // the cache model needs a whole number of sets, and caps the size it allocates
        let fits = h.ways > 0 && lines % u64::from(h.ways) == 0 && h.size / 1024 <= u64::from(bottlenose_machine::MAX_CACHE_KIB);
        if !fits || (kib == c.size_kib && h.ways == c.ways) {
            continue;
        }
        let what = format!("{} {} KiB {}-way", c.name, kib, h.ways);
        out.push(Setting { key: format!("cache.{}.size_kib", c.name), value: kib as f64, base: Some(c.size_kib as f64), note: note(what.clone()) });
        out.push(Setting { key: format!("cache.{}.ways", c.name), value: h.ways as f64, base: Some(c.ways as f64), note: note(what) });
    }
    for t in &base.params.tlbs {
        let (level, kind) = match t.kind {
            CacheKind::Data => (1, Kind::Data),
            CacheKind::Instruction => (1, Kind::Instruction),
            CacheKind::Unified => (2, Kind::Unified),
        };
        let Some(h) = cpu.tlbs.iter().find(|x| x.level == level && x.kind == kind && x.pages.contains(&"4K")) else { continue };
        if h.entries == 0 || h.ways == 0 || h.ways > h.entries || (h.entries == t.entries && h.ways == t.ways) {
            continue;
        }
        let what = format!("{} {} entries, {}-way, 4 KiB pages", t.name, h.entries, h.ways);
        out.push(Setting { key: format!("tlb.{}.entries", t.name), value: h.entries as f64, base: Some(t.entries as f64), note: note(what.clone()) });
        out.push(Setting { key: format!("tlb.{}.ways", t.name), value: h.ways as f64, base: Some(t.ways as f64), note: note(what) });
    }
    out
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// Base model next to measured, one row per value.
fn render(cal: &Calibration, base: &Machine, cpu: &str) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let c = &cal.clock;
    let _ = writeln!(o, "Calibration of {cpu} against {} ({:.0} s)", base.name, cal.seconds);
    let _ = writeln!(
        o,
        "clock: TSC {:.3} GHz, core ~{:.3} GHz; TSC ticks per cycle {:.4} (add chain) / {:.4} (imul chain), drift {:+.2} %",
        c.tsc_ghz, c.core_ghz, c.ticks_per_cycle_add, c.ticks_per_cycle_imul, c.drift_pct
    );
    let num = |v: Option<f64>| v.map(|v| if v >= 100.0 { format!("{v:.0}") } else { format!("{v:.2}") }).unwrap_or_else(|| "-".into());
    let _ = writeln!(o, "\n{:<32} {:>9} {:>9}  how", "parameter", "model", "measured");
    for e in &cal.entries {
        let flag = if e.unstable { "  UNSTABLE (not written)" } else if e.key.starts_with("info.") { "  (information)" } else { "" };
        let _ = writeln!(o, "{:<32} {:>9} {:>9}  {}{flag}", e.key, num(e.base), num(Some(e.value)), e.method);
    }
    if !cal.forms.is_empty() {
        let _ = writeln!(o, "\n{:<36} {:>15} {:>15}  how", "instruction form", "latency m/meas", "rthru m/meas");
        for f in &cal.forms {
            let flag = if f.unstable { "  UNSTABLE (not written)" } else { "" };
            let _ = writeln!(
                o,
                "{:<36} {:>7}/{:<7} {:>7}/{:<7}  {}{flag}",
                f.form,
                num(f.base_latency),
                num(f.latency),
                num(f.base_rthroughput),
                num(f.rthroughput),
                f.method
            );
        }
    }
    let derived = bottlenose_calibrate::derive::derived_forms(&cal.forms, base);
    if !derived.is_empty() {
        let _ = writeln!(o, "\n{} more forms of the {} table timed like measured ones (other FMA orders and signs, memory-operand variants) go into the overlay", derived.len(), base.name);
    }
    if !cal.conflicts.is_empty() {
        let _ = writeln!(o, "\nport conflicts (0 = disjoint, 1 = one shared resource):");
        for (x, y, d) in &cal.conflicts {
            let _ = writeln!(o, "  {x}  +  {y}: {d:.2}");
        }
    }
    for n in &cal.notes {
        let _ = writeln!(o, "note: {n}");
    }
    o
}

/// The instruction forms a program (every executable section of an ELF file) or
/// an assembly block contains, most frequent first, at most 200.
fn forms_of(path: &Path) -> Result<Vec<String>> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = path.display().to_string();
    let insts = if data.starts_with(b"\x7fELF") {
        use object::{Object, ObjectSection, SectionKind};
        let file = object::File::parse(&*data).map_err(|e| anyhow::anyhow!("{name}: not a readable ELF file: {e}"))?;
        let mut all = Vec::new();
        for s in file.sections().filter(|s| s.kind() == SectionKind::Text) {
            let bytes = s.data().with_context(|| format!("{name}: cannot read section {}", s.name().unwrap_or("?")))?;
            all.extend(bottlenose_decode::decode_lenient(bytes, s.address()));
        }
        all
    } else {
        let text = String::from_utf8(data).map_err(|_| anyhow::anyhow!("{name} is neither an ELF file nor UTF-8 assembly text"))?;
        let mut all = Vec::new();
        for b in bottlenose_inputs::assemble(&text, &name, bottlenose_inputs::AsmSyntax::Auto)? {
            all.extend(bottlenose_decode::decode_block(&b.bytes, b.address).with_context(|| format!("cannot decode {name}"))?);
        }
        all
    };
    if insts.is_empty() {
        bail!("no instructions in {name}");
    }
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for i in insts.iter().filter(|i| !i.is_nop && i.branch == bottlenose_decode::BranchKind::None) {
        *count.entry(i.form.clone()).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = count.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(v.into_iter().take(200).map(|x| x.0).collect())
}

/// Today's date (UTC), `YYYY-MM-DD`.
fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::geometry_settings;
    use bottlenose_host::{CpuidDump, HostCpu};
    use bottlenose_machine::{CalibrationInfo, Machine, Overlay};

    fn cpu(dump: &str) -> HostCpu {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/tests/data").join(dump);
        HostCpu::from_dump(&CpuidDump::from_file(&path).unwrap()).unwrap()
    }

    fn cache_settings(cpu: &HostCpu, base: &Machine) -> Vec<(String, f64, Option<f64>)> {
        geometry_settings(cpu, base, "2026-12-08").into_iter().filter(|s| s.key.starts_with("cache.")).map(|s| (s.key, s.value, s.base)).collect()
    }

    /// A bare-metal Sapphire Rapids workstation (Xeon w7-2475X, recorded in crates/host/tests/data):
    /// its 37.5 MiB 15-way L3 (40960 sets, not a power of two, which calibration used to drop)
    /// replaces goldencove's 60 MiB, and the overlay loads as a machine with that many sets.
    #[test]
    fn a_bare_metal_hosts_l3_reaches_the_overlay_whatever_its_set_count() {
        let cpu = cpu("sapphire-rapids.txt");
        assert!(!cpu.hypervisor);
        let base = Machine::resolve("goldencove").unwrap();
        let settings = geometry_settings(&cpu, &base, "2026-12-08");
        // L1D (48 KiB 12-way) and L2 (2 MiB 16-way) are goldencove's already
        assert_eq!(cache_settings(&cpu, &base), [("cache.L3.size_kib".to_string(), 38_400.0, Some(61_440.0)), ("cache.L3.ways".to_string(), 15.0, Some(15.0))]);
        let overlay = Overlay {
            calibration: CalibrationInfo {
                base: "goldencove".into(),
                cpu: cpu.describe(),
                signature: cpu.signature(),
                date: "2026-12-08".into(),
                tool: "test".into(),
                tsc_ghz: None,
                core_ghz: None,
            },
            settings,
            forms: vec![],
        };
        let text = overlay.to_toml();
        let m = Overlay::parse(&text, "o.toml").and_then(|o| o.apply("o.toml", &text)).unwrap();
        let described = bottlenose_functional::CacheHierarchy::new(&m.params).describe();
        assert!(described.contains("L3 40960x15-way"), "{described}");
    }

    /// Under KVM the L3 CPUID reports is the socket's (260 MiB on the Emerald Rapids host):
    /// the model keeps its own.
    #[test]
    fn a_guests_l3_stays_the_models() {
        let cpu = cpu("emerald-rapids-kvm-live.txt");
        assert!(cpu.hypervisor);
        let base = Machine::resolve("goldencove").unwrap();
        assert_eq!(cache_settings(&cpu, &base), []);
    }
}
