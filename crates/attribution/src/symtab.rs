//! Function symbols of one ELF file and of its separate debug file:
//! `.symtab` and `.dynsym` merged, one demangled name per start address, and
//! the function boundaries `.eh_frame` gives even when every symbol is
//! stripped.

use std::collections::HashMap;

use gimli::UnwindSection;
use object::{Object, ObjectSection, ObjectSymbol, SymbolFlags, SymbolKind};

/// One function symbol, file addresses `[start, end)`.
#[derive(Debug, Clone)]
pub(crate) struct Sym {
    pub start: u64,
    pub end: u64,
    /// Demangled (C++ and Rust); other names as they are.
    pub name: String,
}

/// A name a function can be asked for by (`--roi function:NAME`): mangled and
/// demangled names, aliases included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedFunction {
    pub start: u64,
    pub end: u64,
    /// A GNU indirect function: the symbol is the resolver that picks the
    /// implementation at load time, not the code that runs.
    pub ifunc: bool,
}

/// Demangles a C++ (Itanium) or Rust (legacy or v0) symbol name; other names
/// come back unchanged. Rust's hash suffix is left out, as perf does.
pub fn demangle(name: &str) -> String {
    if let Ok(d) = rustc_demangle::try_demangle(name) {
        return format!("{d:#}");
    }
    if name.starts_with("_Z") {
        if let Ok(sym) = cpp_demangle::Symbol::new(name) {
            if let Ok(d) = sym.demangle() {
                return d;
            }
        }
    }
    name.to_string()
}

struct RawSym {
    start: u64,
    size: u64,
    section_end: u64,
    name: String,
    global: bool,
    weak: bool,
    ifunc: bool,
}

/// Preference among aliases at one address: global over weak over local, then
/// names without a leading underscore, then the shorter, then alphabetical.
/// Sort key of an alias: smaller is preferred.
type AliasRank = (u8, bool, usize, String);

fn alias_rank(global: bool, weak: bool, name: &str) -> AliasRank {
    let binding = if global && !weak {
        0
    } else if weak {
        1
    } else {
        2
    };
    (binding, name.starts_with('_'), name.len(), name.to_string())
}

fn function_symbols(file: &object::File<'_>, dynamic: bool) -> Vec<RawSym> {
    let syms: Vec<object::Symbol<'_, '_>> = if dynamic {
        file.dynamic_symbols().collect()
    } else {
        file.symbols().collect()
    };
    let is_ifunc = |s: &object::Symbol<'_, '_>| matches!(s.flags(), SymbolFlags::Elf { st_info, .. } if st_info & 0xf == object::elf::STT_GNU_IFUNC);
    syms.into_iter()
        // `object` gives indirect functions no kind of their own and does not
        // count them as definitions
        .filter(|s| (s.kind() == SymbolKind::Text && s.is_definition() || is_ifunc(s) && !s.is_undefined()) && s.address() != 0)
        .filter_map(|s| {
            let name = s.name().ok()?.to_string();
            if name.is_empty() {
                return None;
            }
            let section_end = s
                .section_index()
                .and_then(|i| file.section_by_index(i).ok())
                .map_or(0, |sec| sec.address().saturating_add(sec.size()));
            let ifunc = is_ifunc(&s);
            Some(RawSym {
                start: s.address(),
                size: s.size(),
                section_end,
                name,
                global: s.is_global(),
                weak: s.is_weak(),
                ifunc,
            })
        })
        .collect()
}

/// The function symbols of `files` (the ELF file, then its debug file if
/// any; both use the same addresses): one per start address, sizes of zero
/// closed at the next symbol or the section end. Also every name (mangled and
/// demangled, aliases included) with its range.
pub(crate) fn collect(files: &[&object::File<'_>]) -> (Vec<Sym>, HashMap<String, NamedFunction>) {
    let mut raw = Vec::new();
    for f in files {
        raw.extend(function_symbols(f, false));
        raw.extend(function_symbols(f, true));
    }
    // one name per address: the best alias, the largest size seen
    let mut best: HashMap<u64, (u64, u64, AliasRank)> = HashMap::new();
    for r in &raw {
        let rank = alias_rank(r.global, r.weak, &r.name);
        match best.get_mut(&r.start) {
            Some(cur) => {
                cur.1 = cur.1.max(r.size);
                cur.0 = cur.0.max(r.section_end);
                if rank < cur.2 {
                    cur.2 = rank;
                }
            }
            None => {
                best.insert(r.start, (r.section_end, r.size, rank));
            }
        }
    }
    let mut starts: Vec<(u64, u64, u64, String)> = best
        .into_iter()
        .map(|(start, (sec_end, size, rank))| (start, size, sec_end, rank.3))
        .collect();
    starts.sort_by_key(|s| s.0);
    let mut syms = Vec::with_capacity(starts.len());
    for (i, (start, size, sec_end, name)) in starts.iter().enumerate() {
        let (start, size, sec_end) = (*start, *size, *sec_end);
        let end = if size > 0 {
            start.saturating_add(size)
        } else {
            let next = starts.get(i + 1).map_or(u64::MAX, |n| n.0);
            let limit = if sec_end > start { sec_end } else { u64::MAX };
            match next.min(limit) {
                u64::MAX => start.saturating_add(1),
                e => e,
            }
        };
        syms.push(Sym { start, end, name: demangle(name) });
    }
    let mut by_name: HashMap<String, NamedFunction> = HashMap::new();
    for r in raw {
        let i = syms.partition_point(|s| s.start < r.start);
        let Some(s) = syms.get(i).filter(|s| s.start == r.start) else { continue };
        let end = if r.size > 0 { r.start.saturating_add(r.size) } else { s.end };
        let f = NamedFunction { start: r.start, end, ifunc: r.ifunc };
        // glibc keeps old versions of some names beside the indirect function
        // that is the default version (memcpy@GLIBC_2.2.5, memcpy@@GLIBC_2.14):
        // the indirect function is what a call by that name reaches today
        for key in [demangle(&r.name), r.name] {
            let e = by_name.entry(key).or_insert(f);
            if f.ifunc && !e.ifunc {
                *e = f;
            }
        }
    }
    (syms, by_name)
}

/// Function ranges `[start, end)` of the `.eh_frame` FDEs, sorted: the
/// compiler emits one per function, and they stay when symbols are stripped.
pub(crate) fn fde_ranges(file: &object::File<'_>) -> Vec<(u64, u64)> {
    let Some(sec) = file.section_by_name(".eh_frame") else { return Vec::new() };
    let Ok(data) = sec.uncompressed_data() else { return Vec::new() };
    let endian = if file.is_little_endian() { gimli::RunTimeEndian::Little } else { gimli::RunTimeEndian::Big };
    let eh = gimli::EhFrame::new(&data, endian);
    let mut bases = gimli::BaseAddresses::default().set_eh_frame(sec.address());
    if let Some(t) = file.section_by_name(".text") {
        bases = bases.set_text(t.address());
    }
    if let Some(g) = file.section_by_name(".got") {
        bases = bases.set_got(g.address());
    }
    let mut out = Vec::new();
    let mut entries = eh.entries(&bases);
    // a malformed entry ends the walk: what was read before it stays
    while let Ok(Some(entry)) = entries.next() {
        if let gimli::CieOrFde::Fde(partial) = entry {
            if let Ok(fde) = partial.parse(gimli::EhFrame::cie_from_offset) {
                let start = fde.initial_address();
                let end = start.saturating_add(fde.len());
                if end > start {
                    out.push((start, end));
                }
            }
        }
    }
    out.sort_unstable();
    out
}
