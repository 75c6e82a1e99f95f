//! Where `analyze` gets its code: an assembly file (GNU as), hex bytes, or an ELF function/range.

use anyhow::{anyhow, bail, Context, Result};
use bottlenose_attribution::Program;
use bottlenose_inputs::{assemble_for, elf_isa, from_elf, from_hex, AsmSyntax, CodeBlock, ElfSelector, Isa};
use std::io::Read;
use std::path::Path;

pub struct InputSpec<'a> {
    pub file: Option<&'a Path>,
    pub hex: Option<&'a str>,
    pub function: Option<&'a str>,
    pub range: Option<&'a str>,
    pub syntax: AsmSyntax,
    /// The instruction set of assembly and hex input (an ELF file says its own).
    pub isa: Isa,
}

/// The code to analyze, and the ELF program it was cut from (its symbols and
/// DWARF lines name the loops found in it).
pub struct Loaded {
    pub blocks: Vec<CodeBlock>,
    pub program: Option<Program>,
}

pub fn load(spec: &InputSpec) -> Result<Loaded> {
    let blocks = |blocks| Loaded { blocks, program: None };
    if let Some(h) = spec.hex {
        let text = if h == "-" { read_stdin()? } else { h.to_string() };
        let mut block = from_hex(&text)?;
        block.isa = spec.isa;
        return Ok(blocks(vec![block]));
    }
    let Some(file) = spec.file else {
        bail!("no input: give an assembly file, an ELF file with --function/--range, or --hex BYTES");
    };
    let data = if file == Path::new("-") {
        read_stdin()?.into_bytes()
    } else {
        std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?
    };
    let name = file.display().to_string();
    if data.starts_with(b"\x7fELF") {
        let selector = match (spec.function, spec.range) {
            (Some(f), _) => ElfSelector::Function(f.to_string()),
            (None, Some(r)) => parse_range(r)?,
            (None, None) => bail!("{name} is an ELF file: choose code with --function NAME or --range START:END"),
        };
        let block = from_elf(&data, &name, &selector)?;
        // Names and lines for the loops found in it. A relocatable object's
        // DWARF points at its sections only once relocated, which we do not do.
        let relocatable = object::File::parse(&*data).is_ok_and(|f| object::Object::kind(&f) == object::ObjectKind::Relocatable);
        let program = if relocatable { None } else { Program::parse(file, &data).ok() };
        return Ok(Loaded { blocks: vec![block], program });
    }
    if spec.function.is_some() || spec.range.is_some() {
        bail!("--function/--range need an ELF file, but {name} is not one");
    }
    let text = String::from_utf8(data).map_err(|_| anyhow!("{name} is neither an ELF file nor UTF-8 assembly text"))?;
    Ok(blocks(assemble_for(spec.isa, &text, &name, spec.syntax)?))
}

/// The instruction set of the input: an ELF file's header, else `--isa`, else the
/// machine's. An ELF file whose header contradicts `--isa` is an error.
pub fn input_isa(file: Option<&Path>, requested: Option<Isa>, machine: Isa) -> Result<Isa> {
    let from_elf = file
        .filter(|f| *f != Path::new("-"))
        .and_then(|f| std::fs::read(f).ok())
        .filter(|d| d.starts_with(b"\x7fELF"))
        .and_then(|d| elf_isa(&d));
    match (from_elf, requested) {
        (Some(e), Some(r)) if e != r => bail!("{} is {e} code, not {r} (--isa)", file.map(|f| f.display().to_string()).unwrap_or_default()),
        (Some(e), _) => Ok(e),
        (None, Some(r)) => Ok(r),
        (None, None) => Ok(machine),
    }
}

/// The built-in machine `--machine host` stands for when the code is of another ISA
/// than the host's (there is no Arm host to identify here).
pub fn default_machine_for(isa: Isa) -> &'static str {
    match isa {
        Isa::X86_64 => "skylake",
        Isa::Aarch64 => "neoverse-v2",
    }
}

/// The machine for `--machine NAME` and code of the input's ISA: `host` stands for
/// the default model of the ISA when the host runs another one (with a note); an
/// explicit machine of another ISA is an error.
pub fn choose_for_input(name: &str, file: Option<&Path>, requested: Option<Isa>) -> Result<(crate::machine_choice::Choice, Isa)> {
    let choice = crate::machine_choice::choose(name)?;
    let isa = input_isa(file, requested, choice.machine.isa)?;
    if choice.machine.isa == isa {
        return Ok((choice, isa));
    }
    if name.eq_ignore_ascii_case("host") {
        let other = default_machine_for(isa);
        eprintln!("note: {isa} code on an {} host: using --machine {other}", choice.machine.isa);
        let mut alt = crate::machine_choice::choose(other)?;
        alt.host.identified = Some(format!("{isa} code: {other} instead of the host's model"));
        return Ok((alt, isa));
    }
    bail!(
        "{} is {isa} code, but machine {} models an {} core: choose a machine for {isa} ({})",
        file.map(|f| f.display().to_string()).unwrap_or_else(|| "the input".into()),
        choice.machine.name,
        choice.machine.isa,
        machines_of(isa).join(", ")
    )
}

/// Machines of `isa`, for messages.
pub fn machines_of(isa: Isa) -> Vec<String> {
    bottlenose_machine::builtin_names()
        .into_iter()
        .filter(|n| bottlenose_machine::load_builtin(n).and_then(|m| m.ok()).is_some_and(|m| m.isa == isa))
        .map(str::to_string)
        .collect()
}

fn parse_range(r: &str) -> Result<ElfSelector> {
    let (a, b) = r.split_once(':').or_else(|| r.split_once('-')).ok_or_else(|| anyhow!("bad --range '{r}': expected START:END (hex with 0x or decimal)"))?;
    let num = |s: &str| -> Result<u64> {
        let s = s.trim();
        let v = if let Some(h) = s.strip_prefix("0x") { u64::from_str_radix(h, 16) } else { s.parse() };
        v.map_err(|_| anyhow!("bad address '{s}' in --range"))
    };
    Ok(ElfSelector::Range { start: num(a)?, end: num(b)? })
}

fn read_stdin() -> Result<String> {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).context("cannot read standard input")?;
    Ok(s)
}

/// Checks `--weights` before anything runs (the rule is the analysis crate's).
pub fn check_weights(weights: Option<&[f64]>) -> Result<()> {
    for &w in weights.unwrap_or_default() {
        bottlenose_analysis::check_weight(w)?;
    }
    Ok(())
}

/// Rejects AVX-512 instructions on a machine without AVX-512: timing them as a
/// default form would be a number for code that cannot run there.
pub fn check_isa(machine: &bottlenose_machine::Machine, block: &str, insts: &[bottlenose_decode::DecodedInst]) -> Result<()> {
    check_sve(machine, block, insts)?;
    if machine.params.vector.avx512 {
        return Ok(());
    }
    let Some(first) = insts.iter().find(|i| i.avx512) else { return Ok(()) };
    let n = insts.iter().filter(|i| i.avx512).count();
    let with: Vec<String> = bottlenose_machine::builtin_names()
        .into_iter()
        .filter(|name| bottlenose_machine::load_builtin(name).and_then(|m| m.ok()).is_some_and(|m| m.params.vector.avx512))
        .map(str::to_string)
        .collect();
    anyhow::bail!(
        "{block}: `{}` at {:#x} is AVX-512 ({n} such instruction(s)), which {} does not execute; choose a machine with AVX-512 ({})",
        first.asm,
        first.address,
        machine.name,
        with.join(", ")
    )
}

/// SVE code on a core without SVE (the Neoverse N1): QEMU would stop it, and the
/// machine's table has no SVE forms.
fn check_sve(machine: &bottlenose_machine::Machine, block: &str, insts: &[bottlenose_decode::DecodedInst]) -> Result<()> {
    use bottlenose_decode::aarch64::{extension_of, A64Extension};
    if machine.isa != bottlenose_decode::Isa::Aarch64 || machine.peers.sve_vector_bits().is_some() {
        return Ok(());
    }
    let is_sve = |i: &&bottlenose_decode::DecodedInst| match i.bytes[..] {
        [a, b, c, d] => extension_of(u32::from_le_bytes([a, b, c, d])) == Some(A64Extension::Sve),
        _ => false,
    };
    let Some(first) = insts.iter().find(is_sve) else { return Ok(()) };
    let n = insts.iter().filter(is_sve).count();
    let with: Vec<String> = bottlenose_machine::builtin_names()
        .into_iter()
        .filter(|name| {
            bottlenose_machine::load_builtin(name)
                .and_then(|m| m.ok())
                .is_some_and(|m| m.isa == bottlenose_decode::Isa::Aarch64 && m.peers.sve_vector_bits().is_some())
        })
        .map(str::to_string)
        .collect();
    anyhow::bail!(
        "{block}: `{}` at {:#x} is SVE ({n} such instruction(s)), which {} does not execute (its core has no SVE); choose a machine with SVE ({})",
        first.asm,
        first.address,
        machine.name,
        with.join(", ")
    )
}

/// The one warning for instruction forms the machine's table lacks (timed as
/// its default form), naming each form once however many blocks, loops or
/// addresses have it: `xsave m, xrstor m`.
pub fn warn_unsupported<'a>(machine: &bottlenose_machine::Machine, forms: impl IntoIterator<Item = &'a bottlenose_timing::UnknownForm>, executed: bool) {
    let mut names: Vec<&str> = Vec::new();
    for f in forms {
        if !names.contains(&f.form.as_str()) {
            names.push(&f.form);
        }
    }
    if names.is_empty() {
        return;
    }
    let sve = names.iter().any(|n| *n == bottlenose_decode::aarch64::A64Extension::Sve.form());
    eprintln!(
        "warning: {} instruction form(s){} not in the {} table, timed as its default form ({} uop, latency {}): {}{}",
        names.len(),
        if executed { " executed are" } else { " are" },
        machine.name,
        machine.default_form.uops,
        machine.default_form.latency,
        names.join(", "),
        if sve { " (words of the SVE encoding space that do not decode: timed without their registers and memory operands)" } else { "" }
    );
}
