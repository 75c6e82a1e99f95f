//! ELF input: cuts the bytes of one function (by symbol name) or of an
//! address range out of an x86-64 ELF executable, shared library or object
//! file, using the `object` crate. Lets users analyze compiler output as it
//! really is, without disassembling and re-assembling it.

use object::{
    Architecture, BinaryFormat, FileKind, Object, ObjectSection, ObjectSymbol, SectionIndex,
    SectionKind, SymbolKind,
};

use crate::{CodeBlock, SourceError};

/// Which code to take from an ELF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElfSelector {
    /// The function with this exact symbol name.
    Function(String),
    /// Addresses `start..end` (end exclusive), inside one executable section.
    Range { start: u64, end: u64 },
}

/// A defined function symbol, with its size resolved.
#[derive(Debug, Clone)]
struct FuncSym {
    name: String,
    address: u64,
    size: u64,
    section: SectionIndex,
}

/// Returns `(name, address, size)` of the function symbols, sorted by address.
///
/// Uses the symbol table, or the dynamic symbol table if the file has no
/// function in the former (stripped files). A size of 0 in the file is
/// replaced by the distance to the next function symbol or to the end of
/// the section, like [`from_elf`] does.
pub fn elf_function_symbols(data: &[u8]) -> Result<Vec<(String, u64, u64)>, SourceError> {
    let file = open(data, "input")?;
    Ok(function_symbols(&file, false)
        .into_iter()
        .map(|s| (s.name, s.address, s.size))
        .collect())
}

/// The instruction set of an ELF file, from its header (`None` for other files and
/// machines).
pub fn elf_isa(data: &[u8]) -> Option<crate::Isa> {
    let file = object::File::parse(data).ok()?;
    (file.format() == BinaryFormat::Elf).then(|| arch_isa(file.architecture())).flatten()
}

fn arch_isa(arch: Architecture) -> Option<crate::Isa> {
    match arch {
        Architecture::X86_64 | Architecture::X86_64_X32 => Some(crate::Isa::X86_64),
        Architecture::Aarch64 => Some(crate::Isa::Aarch64),
        _ => None,
    }
}

fn isa_of(file: &object::File<'_>) -> crate::Isa {
    arch_isa(file.architecture()).expect("open() accepts only known ISAs")
}

/// Extracts the selected code from an x86-64 or AArch64 ELF file.
///
/// `file_name` is used in the block name (for ranges) and in error messages.
pub fn from_elf(
    data: &[u8],
    file_name: &str,
    selector: &ElfSelector,
) -> Result<CodeBlock, SourceError> {
    let file = open(data, file_name)?;
    match selector {
        ElfSelector::Function(name) => function(&file, file_name, name),
        ElfSelector::Range { start, end } => range(&file, file_name, *start, *end),
    }
}

/// Parses `data` and checks that it is x86-64 or AArch64 ELF.
fn open<'d>(data: &'d [u8], file_name: &str) -> Result<object::File<'d>, SourceError> {
    let not_elf = |what: String| SourceError::NotX86_64Elf {
        file: file_name.to_string(),
        what,
    };
    if !data.starts_with(b"\x7fELF") {
        return Err(not_elf(describe_non_elf(data)));
    }
    let file = object::File::parse(data).map_err(|e| SourceError::BadObject {
        file: file_name.to_string(),
        message: e.to_string(),
    })?;
    if file.format() != BinaryFormat::Elf {
        return Err(not_elf(format!("{:?} file", file.format())));
    }
    match file.architecture() {
        Architecture::X86_64 | Architecture::X86_64_X32 | Architecture::Aarch64 => Ok(file),
        arch => Err(not_elf(format!(
            "{}-bit ELF for {arch:?}",
            if file.is_64() { 64 } else { 32 }
        ))),
    }
}

/// A few words on what a non-ELF input is, for the error message.
fn describe_non_elf(data: &[u8]) -> String {
    if data.is_empty() {
        return "it is empty".to_string();
    }
    if data.starts_with(b"!<arch>\n") || data.starts_with(b"!<thin>\n") {
        return "it is an ar archive; extract its object files first".to_string();
    }
    match FileKind::parse(data) {
        Ok(FileKind::Archive) => "it is an ar archive; extract its object files first".to_string(),
        Ok(kind) => format!("it is a {kind:?} file"),
        Err(_) => {
            let head = &data[..data.len().min(512)];
            let texty = std::str::from_utf8(head)
                .is_ok_and(|s| s.chars().all(|c| !c.is_control() || c.is_whitespace()));
            if texty {
                "it looks like text".to_string()
            } else {
                "unrecognized format".to_string()
            }
        }
    }
}

/// Defined function symbols sorted by address, with zero sizes resolved.
/// With `labels`, untyped labels (ELF `STT_NOTYPE`) in executable sections
/// count too: hand-written assembly often lacks `.type f, @function`.
fn function_symbols(file: &object::File<'_>, labels: bool) -> Vec<FuncSym> {
    let wanted = |kind: SymbolKind, section: SectionIndex| {
        kind == SymbolKind::Text
            || (labels
                && matches!(kind, SymbolKind::Label | SymbolKind::Unknown)
                && file
                    .section_by_index(section)
                    .is_ok_and(|s| s.kind() == SectionKind::Text))
    };
    let collect = |syms: &mut dyn Iterator<Item = object::Symbol<'_, '_>>| {
        syms.filter_map(|s| {
            // A section index means the symbol is defined in this file.
            let section = s.section_index()?;
            let name = s.name().ok().filter(|n| !n.is_empty())?;
            wanted(s.kind(), section).then(|| FuncSym {
                name: name.to_string(),
                address: s.address(),
                size: s.size(),
                section,
            })
        })
        .collect::<Vec<_>>()
    };
    let mut syms = collect(&mut file.symbols());
    if syms.is_empty() {
        syms = collect(&mut file.dynamic_symbols());
    }
    syms.sort_by(|a, b| (a.address, &a.name).cmp(&(b.address, &b.name)));
    syms.dedup_by(|a, b| a.address == b.address && a.name == b.name);

    // Resolve size 0: up to the next symbol of any kind in the same section
    // (functions, labels, data), or the section end.
    let mut starts: Vec<(usize, u64)> = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| !matches!(s.kind(), SymbolKind::Section | SymbolKind::File))
        .filter_map(|s| Some((s.section_index()?.0, s.address())))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    for s in syms.iter_mut().filter(|s| s.size == 0) {
        let next = starts
            .iter()
            .filter(|&&(sec, addr)| sec == s.section.0 && addr > s.address)
            .map(|&(_, addr)| addr)
            .min();
        let section_end = file
            .section_by_index(s.section)
            .ok()
            .map(|sec| sec.address().saturating_add(sec.size()));
        if let Some(end) = next.or(section_end) {
            s.size = end.saturating_sub(s.address);
        }
    }
    syms
}

fn function(
    file: &object::File<'_>,
    file_name: &str,
    name: &str,
) -> Result<CodeBlock, SourceError> {
    let syms = function_symbols(file, false);
    let found = match syms.iter().find(|s| s.name == name) {
        Some(s) => s.clone(),
        None => match function_symbols(file, true)
            .into_iter()
            .find(|s| s.name == name)
        {
            Some(s) => s,
            None => {
                return Err(SourceError::SymbolNotFound {
                    file: file_name.to_string(),
                    name: name.to_string(),
                    hint: not_found_hint(&syms, name),
                })
            }
        },
    };
    let bad = |message: String| SourceError::BadRange {
        file: file_name.to_string(),
        message,
    };
    let section = file
        .section_by_index(found.section)
        .map_err(|e| bad(format!("function `{name}`: {e}")))?;
    if found.size == 0 {
        return Err(bad(format!("function `{name}` is empty")));
    }
    let bytes = section_slice(&section, found.address, found.size)
        .map_err(|why| bad(format!("function `{name}` at {:#x}: {why}", found.address)))?;
    Ok(CodeBlock {
        isa: isa_of(file),
        address: found.address,
        bytes: bytes.to_vec(),
        name: name.to_string(),
        source_lines: Vec::new(),
        functions: vec![(0, name.to_string())],
    })
}

/// " (similar: a, b)" with up to 5 names containing `name`, or a word on
/// why there is nothing to suggest.
fn not_found_hint(syms: &[FuncSym], name: &str) -> String {
    if syms.is_empty() {
        return " (the file has no function symbols; is it stripped?)".to_string();
    }
    let needle = name.to_lowercase();
    let mut similar: Vec<&str> = syms
        .iter()
        .map(|s| s.name.as_str())
        .filter(|n| !needle.is_empty() && n.to_lowercase().contains(&needle))
        .collect();
    similar.sort_by(|a, b| (a.len(), *a).cmp(&(b.len(), *b)));
    similar.dedup();
    if similar.is_empty() {
        format!(" ({} function symbols, none similar)", syms.len())
    } else {
        similar.truncate(5);
        format!(" (similar: {})", similar.join(", "))
    }
}

/// The file bytes of `address..address+size` inside `section`.
fn section_slice<'d>(
    section: &object::Section<'d, '_>,
    address: u64,
    size: u64,
) -> Result<&'d [u8], String> {
    let data = section.data().map_err(|e| e.to_string())?;
    let name = section.name().unwrap_or("?");
    if data.is_empty() {
        return Err(format!("section {name} has no bytes in the file"));
    }
    let start = address
        .checked_sub(section.address())
        .and_then(|o| usize::try_from(o).ok());
    let end = start.and_then(|s| usize::try_from(size).ok().and_then(|n| s.checked_add(n)));
    match (start, end) {
        (Some(s), Some(e)) if e <= data.len() => Ok(&data[s..e]),
        _ => Err(format!(
            "{size} bytes do not fit in section {name} ({:#x}..{:#x})",
            section.address(),
            section.address().saturating_add(data.len() as u64)
        )),
    }
}

fn range(
    file: &object::File<'_>,
    file_name: &str,
    start: u64,
    end: u64,
) -> Result<CodeBlock, SourceError> {
    let bad = |message: String| SourceError::BadRange {
        file: file_name.to_string(),
        message,
    };
    if end <= start {
        return Err(bad(format!(
            "empty range {start:#x}..{end:#x}: the end must be above the start"
        )));
    }
    let contains = |s: &object::Section<'_, '_>| {
        s.size() > 0 && start >= s.address() && start - s.address() < s.size()
    };
    let section = match file
        .sections()
        .find(|s| contains(s) && s.kind() == SectionKind::Text)
    {
        Some(s) => s,
        None => {
            return Err(bad(match file.sections().find(|s| contains(s)) {
                Some(s) => format!(
                    "address {start:#x} is in section {}, which is not executable",
                    s.name().unwrap_or("?")
                ),
                None => format!("address {start:#x} is not inside any section"),
            }))
        }
    };
    let section_end = section.address().saturating_add(section.size());
    if end > section_end {
        return Err(bad(format!(
            "range {start:#x}..{end:#x} runs past the end of section {} at {section_end:#x}",
            section.name().unwrap_or("?")
        )));
    }
    let bytes = section_slice(&section, start, end - start)
        .map_err(|why| bad(format!("range {start:#x}..{end:#x}: {why}")))?;
    Ok(CodeBlock {
        isa: isa_of(file),
        address: start,
        bytes: bytes.to_vec(),
        name: file_name.to_string(),
        source_lines: Vec::new(),
        functions: function_symbols(file, false)
            .into_iter()
            .filter(|s| s.address >= start && s.address < end)
            .map(|s| (s.address - start, s.name))
            .collect(),
    })
}
