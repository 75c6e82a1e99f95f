//! `import-llvm-mca`: builds a bottlenose instruction-form table
//! (`machines/<name>.forms.toml`) from an LLVM scheduling model.
//!
//! # Why LLVM
//! LLVM's per-CPU scheduling models (`X86SchedSkylakeClient.td`, `X86ScheduleZnver4.td`,
//! ...) are the most complete public per-instruction-form source of uop counts,
//! latencies and port assignments, maintained against measurements (uops.info,
//! vendor guides). `llvm-mca -instruction-tables` prints them for any assembly we
//! feed it, without building LLVM or parsing TableGen.
//!
//! # Pipeline
//! 1. **Corpus** ([`corpus`]): decode the executable sections of real ELF files
//!    (libc, libm, libstdc++, ... by default) and of assembled `.s` files
//!    (`corpus/vector.s`, which lists SSE..AVX-512, FMA, BMI, x87 and scalar integer
//!    forms that libraries rarely contain, plus `examples/` and `bench/` sources).
//!    Each instruction is keyed by `bottlenose_decode::form_key` — the very key the
//!    decoder gives `DecodedInst::form`, so the table matches what the analyzer looks
//!    up — and a few plain representatives per key are kept (no lock/rep/segment
//!    prefix, no rip-relative operand, VEX rather than EVEX when both exist, no
//!    repeated register: `xor eax, eax` is a zero idiom LLVM gives no resources).
//!    Representatives using ISA extensions the CPU lacks ([`isa`]) are dropped:
//!    llvm-mca would time them anyway, since the X86 models share classes.
//! 2. **Printing** ([`gas`]): each representative in AT&T syntax (iced's GAS
//!    formatter), branch targets replaced by a label the batch file defines.
//! 3. **Measuring** ([`mca`], [`measure`]): batches through `llvm-mca
//!    -instruction-tables`, a marker instruction after every line so that rows map
//!    back to lines even when llvm-mca skips what it cannot parse (`movsxd r32`,
//!    `ud0`) or has no scheduling data for; a rejected line is retried with another
//!    spelling or another representative of its form.
//! 4. **Decomposing** ([`decompose`]): llvm-mca reports pressure per port *unit*;
//!    the models are written in port *groups* (`SKLPort0156`), which the report does
//!    not name. The groups are recovered from the rows themselves (equal pressure of
//!    one uop over several units is one group), then every row is split greedily into
//!    (group, uops-or-cycles) pairs — the Palmed-style resource mapping bottlenose uses.
//! 5. **Naming and writing** ([`names`], [`write`]): `SKLPort0` → `p0`, groups
//!    `p0156`, `alu0123`, `fp45`; a sorted, deterministic TOML file.
//!
//! ```text
//! cargo run --release -p import-llvm-mca -- --mcpu skylake --name skylake
//! cargo run --release -p import-llvm-mca -- --mcpu znver4 --name zen4
//! ```

mod corpus;
mod decompose;
mod gas;
mod isa;
mod mca;
mod measure;
mod names;
mod write;

use anyhow::{anyhow, bail, Context, Result};
use bottlenose_decode::Isa;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const USAGE: &str = "\
usage: import-llvm-mca --mcpu CPU [--isa ISA] [--name NAME] [--out FILE] [--llvm-mca PATH]
                       [--asm FILE]... [--batch N] [--all-isa] [--verbose] [ELF...]

Builds machines/NAME.forms.toml from LLVM's scheduling model for CPU (as in
llvm-mca -mcpu=CPU). Forms come from the code of the ELF files (default: system
libraries and a few /usr/bin programs), from corpus/vector.s and from the .s
files under examples/ and bench/, plus any --asm files.

  --mcpu CPU       LLVM CPU name: skylake, znver4, neoverse-v2, ...
  --isa ISA        x86-64 or aarch64 (default: aarch64 for neoverse-*/cortex-*
                   CPUs, else x86-64); AArch64 forms come from the arm64 cross
                   libraries and corpus/aarch64.s (and corpus/aarch64-sve.s for cores
                   with SVE, run with -mattr=+sve2), assembled with aarch64-linux-gnu-as
  --name NAME      machine name for the default output path (default: CPU)
  --out FILE       output (default: machines/NAME.forms.toml)
  --llvm-mca PATH  llvm-mca executable (default: llvm-mca-19)
  --asm FILE       extra AT&T assembly corpus (repeatable)
  --batch N        lines per llvm-mca run (default: 500)
  --all-isa        keep forms of ISA extensions the CPU lacks (default: drop them
                   for CPUs with a feature list in src/isa.rs)
  --verbose        list every rejected form and every row whose counts differ from its uops";

/// The AArch64 libraries of Debian's cross toolchain (libc6-arm64-cross, libstdc++6-arm64-cross).
const DEFAULT_AARCH64_ELVES: &[&str] = &[
    "/usr/aarch64-linux-gnu/lib/libc.so.6",
    "/usr/aarch64-linux-gnu/lib/libm.so.6",
    "/usr/aarch64-linux-gnu/lib/libstdc++.so.6",
    "/usr/aarch64-linux-gnu/lib/libgomp.so.1",
];

fn default_elves(isa: Isa) -> Vec<PathBuf> {
    let list = match isa {
        Isa::X86_64 => DEFAULT_ELVES,
        Isa::Aarch64 => DEFAULT_AARCH64_ELVES,
    };
    list.iter().map(PathBuf::from).filter(|p| p.exists()).collect()
}

const DEFAULT_ELVES: &[&str] = &[
    "/lib/x86_64-linux-gnu/libc.so.6",
    "/lib/x86_64-linux-gnu/libm.so.6",
    "/lib/x86_64-linux-gnu/libstdc++.so.6",
    "/lib/x86_64-linux-gnu/libgomp.so.1",
    "/lib/x86_64-linux-gnu/libcrypto.so.3",
    "/lib/x86_64-linux-gnu/libgmp.so.10",
    "/lib/x86_64-linux-gnu/libzstd.so.1",
    "/lib/x86_64-linux-gnu/libz.so.1",
    "/usr/bin/python3",
    "/usr/bin/perl",
    "/usr/bin/git",
    // every dynamically linked program runs the loader (its lazy-binding
    // trampoline saves and restores the vector state with xsave/xrstor); last, so
    // that a form the others have keeps the instance it was measured on
    "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
];

struct Args {
    mcpu: String,
    isa: Isa,
    name: String,
    out: PathBuf,
    llvm_mca: PathBuf,
    asm: Vec<PathBuf>,
    elves: Vec<PathBuf>,
    batch: usize,
    all_isa: bool,
    verbose: bool,
}

fn parse_args() -> Result<Args> {
    let mut it = std::env::args().skip(1);
    let (mut mcpu, mut name, mut out) = (None, None, None);
    let mut llvm_mca = PathBuf::from("llvm-mca-19");
    let (mut asm, mut elves) = (Vec::new(), Vec::new());
    let mut batch = 500;
    let mut verbose = false;
    let mut all_isa = false;
    let mut isa = None;
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().ok_or_else(|| anyhow!("{flag} needs a value"));
        match a.as_str() {
            "--mcpu" => mcpu = Some(value("--mcpu")?),
            "--isa" => {
                let v = value("--isa")?;
                isa = Some(Isa::parse(&v).ok_or_else(|| anyhow!("unknown ISA '{v}' (x86-64 or aarch64)"))?);
            }
            "--name" => name = Some(value("--name")?),
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--llvm-mca" => llvm_mca = PathBuf::from(value("--llvm-mca")?),
            "--asm" => asm.push(PathBuf::from(value("--asm")?)),
            "--batch" => {
                batch = value("--batch")?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| anyhow!("--batch needs N > 0"))?
            }
            "--verbose" | "-v" => verbose = true,
            "--all-isa" => all_isa = true,
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            s if s.starts_with('-') => bail!("unknown option {s} (see --help)"),
            _ => elves.push(PathBuf::from(a)),
        }
    }
    let mcpu = mcpu.ok_or_else(|| anyhow!("--mcpu is required (see --help)"))?;
    let name = name.unwrap_or_else(|| mcpu.clone());
    let isa = isa.unwrap_or(if mcpu.starts_with("neoverse") || mcpu.starts_with("cortex") { Isa::Aarch64 } else { Isa::X86_64 });
    let out = out.unwrap_or_else(|| PathBuf::from(format!("machines/{name}.forms.toml")));
    Ok(Args {
        mcpu,
        isa,
        name,
        out,
        llvm_mca,
        asm,
        elves,
        batch,
        all_isa,
        verbose,
    })
}

fn main() {
    if let Err(e) = run() {
        eprintln!("import-llvm-mca: error: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let args = parse_args()?;
    let (mca, version) = mca::Mca::new(&args.llvm_mca, &args.mcpu, args.isa)?;
    let probe = match args.isa {
        Isa::X86_64 => "addq %rax, %rbx",
        Isa::Aarch64 => "add x0, x1, x2",
    };
    mca.run(&[probe.to_string()]).context("checking llvm-mca")?;

    // 1. Corpus.
    let elves: Vec<PathBuf> = if args.elves.is_empty() {
        default_elves(args.isa)
    } else {
        args.elves.clone()
    };
    let mut asm_files = default_asm_files(args.isa, &args.mcpu);
    asm_files.extend(args.asm.iter().cloned());
    let mut corpus = corpus::Corpus::new(args.isa);
    for e in &elves {
        corpus.add_elf(e)?;
    }
    let vector = default_asm_files(args.isa, &args.mcpu)[0].clone();
    asm_files.retain(|a| match corpus.add_asm(a) {
        Ok(()) => true,
        // The shared examples are someone else's work in progress: skip, do not fail.
        Err(e) if *a != vector && !args.asm.contains(a) => {
            eprintln!("warning: skipping {e:#}");
            false
        }
        Err(e) => {
            eprintln!("import-llvm-mca: error: {e:#}");
            std::process::exit(1);
        }
    });
    eprintln!(
        "corpus: {} ELF files + {} assembly files, {} instructions, {} distinct forms",
        elves.len(),
        asm_files.len(),
        corpus.instructions,
        corpus.forms.len()
    );

    // 2-3. Print and measure, retrying rejected lines with other spellings.
    let allowed = if args.all_isa {
        None
    } else {
        isa::allowed(&args.mcpu)
    };
    if allowed.is_none() && !args.all_isa {
        eprintln!(
            "note: no ISA feature list for -mcpu={}; keeping forms of every extension",
            args.mcpu
        );
    }
    let measured = measure::measure(&mca, &corpus, allowed.as_deref(), args.batch, args.verbose)?;
    let resources = measured.resources;
    let units = names::unit_names(&resources);
    if units.len() > 64 {
        bail!("{} port units; at most 64 are supported", units.len());
    }

    // 4. Groups and decomposition.
    let rows: Vec<(u32, Vec<f64>)> = measured
        .rows
        .values()
        .map(|r| {
            (
                r.uops,
                r.pressure.iter().map(|&x| decompose::snap(x)).collect(),
            )
        })
        .collect();
    let mut multi: BTreeMap<&str, decompose::UnitSet> = BTreeMap::new();
    for (i, u) in units.iter().enumerate() {
        if let Some(m) = &u.multi {
            *multi.entry(m.as_str()).or_default() |= 1 << i;
        }
    }
    let initial: Vec<decompose::UnitSet> = multi.values().copied().collect();
    let groups = decompose::derive_groups(&rows, units.len(), &initial);
    let group_names = name_groups(&groups, &units);

    let mut forms = BTreeMap::new();
    let mut used: Vec<bool> = vec![false; groups.len()];
    let mut odd: Vec<String> = Vec::new();
    for ((key, row), (_, pressure)) in measured.rows.iter().zip(&rows) {
        let parts = decompose::decompose(pressure, &groups);
        let total: f64 = parts.iter().map(|p| p.1).sum();
        if (total - row.uops as f64).abs() > 0.011 {
            let desc: Vec<String> = parts
                .iter()
                .map(|(g, c)| format!("{}={}", group_names[gi(&groups, *g)], write::num(*c)))
                .collect();
            odd.push(format!(
                "{key}: {} uops, counts sum to {} ({})",
                row.uops,
                write::num(total),
                desc.join(" ")
            ));
        }
        let uses = parts
            .iter()
            .map(|(g, c)| {
                let i = gi(&groups, *g);
                used[i] = true;
                (group_names[i].clone(), *c)
            })
            .collect();
        forms.insert(
            key.clone(),
            write::FormEntry {
                uops: row.uops,
                latency: row.latency,
                rthroughput: row.rthroughput,
                load: row.may_load,
                store: row.may_store,
                side_effects: row.side_effects,
                uses,
            },
        );
    }
    let mut group_table = BTreeMap::new();
    for (i, &g) in groups.iter().enumerate() {
        if used[i] && g.count_ones() > 1 {
            let m = decompose::members(g)
                .iter()
                .map(|&u| units[u].name.clone())
                .collect();
            group_table.insert(group_names[i].clone(), m);
        }
    }

    // 5. Write.
    let corpus_desc = describe_corpus(&elves, &asm_files, corpus.instructions);
    let table = write::Table {
        provenance: write::Provenance {
            name: args.name.clone(),
            mcpu: args.mcpu.clone(),
            tool: version,
            generated: write::today(),
            corpus: corpus_desc,
        },
        units: units
            .iter()
            .map(|u| (u.name.clone(), u.llvm.clone()))
            .collect(),
        groups: group_table,
        forms,
    };
    let text = write::render(&table);
    toml::from_str::<toml::Value>(&text)
        .context("internal error: generated TOML does not parse")?;
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&args.out, &text).with_context(|| format!("writing {}", args.out.display()))?;

    // Summary.
    eprintln!(
        "groups: {}",
        table.groups.keys().cloned().collect::<Vec<_>>().join(" ")
    );
    eprintln!(
        "{} rows whose counts do not sum to their uops (multi-cycle units such as dividers, or several resources per uop){}",
        odd.len(),
        if args.verbose || odd.is_empty() { ":" } else { "; first 10 (--verbose for all):" }
    );
    for o in odd.iter().take(if args.verbose { usize::MAX } else { 10 }) {
        eprintln!("  warning: {o}");
    }
    eprintln!(
        "wrote {} forms to {} ({} forms rejected by llvm-mca -mcpu={})",
        table.forms.len(),
        args.out.display(),
        measured.rejected.len(),
        args.mcpu
    );
    Ok(())
}

fn gi(groups: &[decompose::UnitSet], g: decompose::UnitSet) -> usize {
    groups
        .iter()
        .position(|&x| x == g)
        .expect("decomposition uses known groups")
}

/// Names for all groups; a name that would collide falls back to the `+` form.
fn name_groups(groups: &[decompose::UnitSet], units: &[names::Unit]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(groups.len());
    for &g in groups {
        let m = decompose::members(g);
        let mut n = names::group_name(&m, units);
        if m.len() > 1 && (out.contains(&n) || units.iter().any(|u| u.name == n)) {
            n = names::joined_name(&m, units);
        }
        out.push(n);
    }
    out
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn workspace_root() -> PathBuf {
    crate_dir()
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(crate_dir)
}

/// x86-64: `corpus/vector.s` and every `.s` under the workspace's `examples/` and
/// `bench/`; AArch64: `corpus/aarch64.s`, `corpus/aarch64-sve.s` for cores with SVE,
/// and the `.s` files under `examples/aarch64/`.
fn default_asm_files(isa: Isa, mcpu: &str) -> Vec<PathBuf> {
    if isa == Isa::Aarch64 {
        let mut out = vec![crate_dir().join("corpus/aarch64.s")];
        if mca::sve_attr(mcpu).is_some() {
            out.push(crate_dir().join("corpus/aarch64-sve.s"));
        }
        let mut found = Vec::new();
        collect_asm(&workspace_root().join("examples/aarch64"), &mut found);
        found.sort();
        out.extend(found);
        return out;
    }
    let mut out = vec![crate_dir().join("corpus/vector.s")];
    let root = workspace_root();
    for dir in ["examples", "bench"] {
        let mut found = Vec::new();
        collect_asm(&root.join(dir), &mut found);
        found.sort();
        out.extend(found);
    }
    out
}

fn collect_asm(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_asm(&p, out);
        } else if p.extension().is_some_and(|x| x == "s") {
            out.push(p);
        }
    }
}

fn describe_corpus(elves: &[PathBuf], asm: &[PathBuf], instructions: u64) -> String {
    let file = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let root = workspace_root();
    // Assembly files grouped by directory: "corpus/vector.s", "22 .s files in bench/blocks".
    let mut dirs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in asm {
        let rel = p
            .strip_prefix(&root)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| p.clone());
        let dir = rel
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        dirs.entry(dir).or_default().push(file(p));
    }
    let asm_desc: Vec<String> = dirs
        .iter()
        .map(|(d, f)| {
            if f.len() == 1 {
                format!("{d}/{}", f[0])
            } else {
                format!("{} .s files in {d}", f.len())
            }
        })
        .collect();
    format!(
        "{} ELF files ({}) + {}; {} instructions decoded",
        elves.len(),
        elves.iter().map(file).collect::<Vec<_>>().join(", "),
        asm_desc.join(", "),
        instructions
    )
}
