//! `run --roi`: the region of interest, with its addresses in the file that
//! holds it (the main executable or one of its libraries) and where that
//! file is, so that the run moves the region to where the guest maps it.

use anyhow::{anyhow, bail, Result};
use bottlenose_analysis::dynamic::{Roi, RoiPlacement};
use bottlenose_attribution::Program;
use std::path::{Path, PathBuf};

/// Parses `--roi` for `program` (already resolved to a path).
pub fn parse_roi(spec: &str, program: &Path) -> Result<(Roi, Option<RoiPlacement>)> {
    let num = |s: &str| -> Result<u64> {
        let s = s.trim();
        let v = if let Some(h) = s.strip_prefix("0x") { u64::from_str_radix(h, 16) } else { s.parse() };
        v.map_err(|_| anyhow!("bad address '{s}' in --roi"))
    };
    match spec.split_once(':').map(|(k, v)| (k, Some(v))).unwrap_or((spec, None)) {
        ("whole", None) => Ok((Roi::Whole, None)),
        ("markers", None) => Ok((Roi::Markers, None)),
        ("range", Some(r)) => {
            let (s, e) = r.split_once(':').ok_or_else(|| anyhow!("bad --roi '{spec}': expected range:START:END"))?;
            let (start, end) = (num(s)?, num(e)?);
            if end <= start {
                bail!("bad --roi '{spec}': empty range");
            }
            let exe = open(program)?;
            let file_offset = exe
                .offset_of_address(start)
                .ok_or_else(|| anyhow!("bad --roi '{spec}': 0x{start:x} is not in {}'s code (give addresses as objdump shows them)", program.display()))?;
            Ok((Roi::Range { start, end }, Some(placement(program, file_offset, start))))
        }
        ("function", Some(name)) if !name.is_empty() => function(name, program),
        _ => bail!("bad --roi '{spec}': use whole, function:NAME, function:LIBRARY!NAME, range:START:END or markers"),
    }
}

fn open(path: &Path) -> Result<Program> {
    Program::open(path).map_err(|e| anyhow!("{e}"))
}

fn placement(file: &Path, file_offset: u64, file_address: u64) -> RoiPlacement {
    // the guest's mappings name files by their canonical path
    let file = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    RoiPlacement { file, file_offset, file_address }
}

/// `function:NAME` (the main executable or the one library that has it) or
/// `function:LIBRARY!NAME`.
fn function(spec: &str, program: &Path) -> Result<(Roi, Option<RoiPlacement>)> {
    let (library, name) = match spec.split_once('!') {
        Some((l, n)) if !l.is_empty() && !n.is_empty() => (Some(l), n),
        Some(_) => bail!("bad --roi 'function:{spec}': expected function:NAME or function:LIBRARY!NAME"),
        None => (None, spec),
    };
    let libraries = libraries_of(program);
    let mut files: Vec<PathBuf> = vec![program.to_path_buf()];
    match library {
        Some(l) => {
            let named = libraries.iter().find(|p| file_name(p) == l || p.ends_with(l)).cloned();
            // not loaded at start: a library the program dlopens, by its path or
            // where dlopen looks for a bare name
            let Some(found) = named.or_else(|| dlopen_candidate(l, program)) else {
                let known: Vec<String> = libraries.iter().map(|p| file_name(p)).collect();
                bail!(
                    "--roi function:{spec}: {} does not load a library '{l}' at start (it loads: {}), and dlopen would not find one (LD_LIBRARY_PATH, its run path, the ld.so cache, the system directories): name a library it dlopens by its path, function:/path/to/{l}!{name}",
                    program.display(),
                    if known.is_empty() { "none".to_string() } else { known.join(", ") }
                );
            };
            files = vec![found];
        }
        None => files.extend(libraries),
    }
    let mut hits: Vec<(PathBuf, Program)> = Vec::new();
    let mut similar: Vec<String> = Vec::new();
    for f in files {
        let Ok(p) = Program::open(&f) else { continue };
        if p.named_function(name).is_some() {
            hits.push((f, p));
        } else if similar.len() < 5 {
            similar.extend(p.names_containing(name, 5 - similar.len()).into_iter().map(|n| format!("{}!{n}", p.name())));
        }
    }
    match hits.len() {
        0 => bail!(
            "--roi function:{spec}: no function '{name}' in {}{}{}",
            program.display(),
            if library.is_some() { "" } else { " or the libraries it loads at start (for a library it dlopens, name it: function:LIBRARY!NAME)" },
            if similar.is_empty() { String::new() } else { format!(" (similar: {})", similar.join(", ")) }
        ),
        1 => {}
        _ => {
            let names: Vec<String> = hits.iter().map(|(_, p)| p.name().to_string()).collect();
            bail!(
                "--roi function:{spec}: '{name}' is in several files ({}): name one, e.g. --roi function:{}!{name}",
                names.join(", "),
                names[0]
            );
        }
    }
    let (path, p) = hits.pop().expect("one hit");
    let f = p.named_function(name).expect("found above");
    if f.ifunc {
        let impls: Vec<&str> = p.names_containing(name, 6).into_iter().filter(|n| *n != name).collect();
        bail!(
            "--roi function:{spec}: {}!{name} is a GNU indirect function (the library picks its implementation when it loads): name the implementation instead{}",
            p.name(),
            if impls.is_empty() { String::new() } else { format!(" (candidates: {})", impls.join(", ")) }
        );
    }
    let offset = p
        .offset_of_address(f.start)
        .ok_or_else(|| anyhow!("--roi function:{spec}: '{name}' at 0x{:x} is not in {}'s loaded code", f.start, path.display()))?;
    let is_main = path.as_path() == program;
    let roi = Roi::Function { name: name.to_string(), dso: (!is_main).then(|| p.name().to_string()), start: f.start, end: f.end };
    Ok((roi, Some(placement(&path, offset, f.start))))
}

/// The file dlopen would open for `library`: a path (with a `/`) as given;
/// a bare name from LD_LIBRARY_PATH, the program's run path, the ld.so cache
/// and the system directories, in dlopen's order.
fn dlopen_candidate(library: &str, program: &Path) -> Option<PathBuf> {
    if library.contains('/') {
        let p = PathBuf::from(library);
        return p.is_file().then_some(p);
    }
    let env_dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH").map(|v| std::env::split_paths(&v).collect()).unwrap_or_default();
    let system = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"].map(PathBuf::from);
    let in_dirs = |dirs: &[PathBuf]| dirs.iter().map(|d| d.join(library)).find(|p| p.is_file());
    in_dirs(&env_dirs).or_else(|| in_dirs(&run_paths(program))).or_else(|| ld_cache(library)).or_else(|| in_dirs(&system))
}

/// The directories of the program's DT_RUNPATH (or DT_RPATH), `$ORIGIN` replaced.
fn run_paths(program: &Path) -> Vec<PathBuf> {
    use object::read::elf::{Dyn, ElfFile64};
    use object::Endianness;
    let Ok(data) = std::fs::read(program) else { return Vec::new() };
    let Ok(elf) = ElfFile64::<Endianness>::parse(&*data) else { return Vec::new() };
    let (endian, sections) = (elf.endian(), elf.elf_section_table());
    let Ok(Some((entries, link))) = sections.dynamic(endian, &*data) else { return Vec::new() };
    let Ok(strings) = sections.strings(endian, &*data, link) else { return Vec::new() };
    let origin = program.canonicalize().ok().and_then(|p| p.parent().map(Path::to_path_buf)).unwrap_or_default();
    entries
        .iter()
        .filter(|d| matches!(d.tag32(endian), Some(object::elf::DT_RUNPATH | object::elf::DT_RPATH)))
        .filter_map(|d| d.string(endian, strings).ok())
        .flat_map(|s| String::from_utf8_lossy(s).split(':').map(str::to_string).collect::<Vec<_>>())
        .map(|dir| PathBuf::from(dir.replace("$ORIGIN", &origin.to_string_lossy()).replace("${ORIGIN}", &origin.to_string_lossy())))
        .collect()
}

/// `library`'s path in the ld.so cache, as `ldconfig -p` lists it.
fn ld_cache(library: &str) -> Option<PathBuf> {
    // /sbin is not on every user's PATH
    let out = ["ldconfig", "/sbin/ldconfig"]
        .iter()
        .find_map(|c| std::process::Command::new(c).arg("-p").stdin(std::process::Stdio::null()).output().ok().filter(|o| o.status.success()))?;
    // "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1"
    String::from_utf8_lossy(&out.stdout).lines().find_map(|line| {
        let (name, rest) = line.trim().split_once(' ')?;
        (name == library && rest.contains("x86-64")).then(|| rest.rsplit("=> ").next().map(PathBuf::from)).flatten()
    })
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// The shared libraries ld.so loads for `program`, as `ldd` lists them (with
/// this environment, so `LD_LIBRARY_PATH` counts as it will for the run).
/// Empty for a static program, or when `ldd` cannot tell.
fn libraries_of(program: &Path) -> Vec<PathBuf> {
    let Ok(out) = std::process::Command::new("ldd").arg(program).stdin(std::process::Stdio::null()).output() else { return Vec::new() };
    if !out.status.success() {
        return Vec::new();
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            // "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "\t/lib64/ld-linux-x86-64.so.2 (0x...)"
            let line = line.trim();
            let path = line.split_once("=> ").map_or(line, |(_, p)| p);
            let path = path.split(" (").next()?.trim();
            path.starts_with('/').then(|| PathBuf::from(path))
        })
        .collect()
}

/// `program` as the run will start it (a bare name is looked up on PATH); as
/// given when it cannot be run (the run then says why).
pub fn resolve_program(program: &Path) -> PathBuf {
    bottlenose_trace::check_program(program).unwrap_or_else(|_| program.to_path_buf())
}
