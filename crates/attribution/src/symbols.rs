//! The main executable: ELF function symbols, loaded segments, entry point,
//! PIE-ness and load bias, plus its DWARF line table (module `lines`).
//!
//! All public lookups take and give *runtime* addresses (file address + load
//! bias); the bias is 0 until [`Program::set_load_bias`] is called.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use object::{Object, ObjectKind, ObjectSection, ObjectSegment, ObjectSymbol, SymbolKind};

use crate::lines::LineTable;
use crate::AttributionError;

/// Name given to instructions outside the main executable (libc, ld.so, vDSO…).
pub const SHARED: &str = "[shared]";
/// Name given to instructions inside the main executable that no function
/// symbol covers (stripped code, PLT stubs…), and to every instruction when no
/// [`Program`] is known.
pub const UNKNOWN: &str = "[unknown]";

/// One function symbol, file addresses `[start, end)`.
#[derive(Debug, Clone)]
struct Sym {
    start: u64,
    end: u64,
    name: String,
}

/// One `PT_LOAD` segment: file address, memory size and its file-backed bytes.
#[derive(Debug, Clone)]
struct Segment {
    addr: u64,
    memsz: u64,
    bytes: Vec<u8>,
}

/// Parsed ELF of the main executable.
///
/// `Program` is `Send` but not `Sync` (line lookups fill a cache behind a
/// `RefCell`).
#[derive(Debug)]
pub struct Program {
    path: PathBuf,
    entry: u64,
    pie: bool,
    bias: u64,
    /// Sorted by start, one per start address, non-overlapping starts.
    syms: Vec<Sym>,
    by_name: HashMap<String, (u64, u64)>,
    segments: Vec<Segment>,
    lines: LineTable,
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

impl Program {
    /// Reads and parses the ELF file at `path`. Missing DWARF is fine (every
    /// [`Program::line_at`] then answers `None`); a file that cannot be read or
    /// is not an ELF file is an error naming it.
    pub fn open(path: &Path) -> Result<Program, AttributionError> {
        let data = std::fs::read(path).map_err(|source| AttributionError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Program::parse(path, &data)
    }

    /// Parses ELF bytes already in memory; `path` is only used for messages.
    pub fn parse(path: &Path, data: &[u8]) -> Result<Program, AttributionError> {
        let not_elf = |detail: String| AttributionError::NotElf {
            path: path.to_path_buf(),
            detail,
        };
        if data.len() < 4 || &data[..4] != b"\x7fELF" {
            return Err(not_elf("no ELF magic".into()));
        }
        let file = object::File::parse(data).map_err(|e| AttributionError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        if file.format() != object::BinaryFormat::Elf {
            return Err(not_elf(format!("format {:?}", file.format())));
        }

        let segments: Vec<Segment> = file
            .segments()
            .map(|seg| Segment {
                addr: seg.address(),
                memsz: seg.size(),
                bytes: seg.data().map(<[u8]>::to_vec).unwrap_or_default(),
            })
            .collect();

        let syms = collect_symbols(&file);
        let mut by_name: HashMap<String, (u64, u64)> = HashMap::new();
        for s in &syms {
            by_name.entry(s.name.clone()).or_insert((s.start, s.end));
        }
        // Aliases that lost the per-address vote are still found by name.
        for (name, start, end) in alias_names(&file, &syms) {
            by_name.entry(name).or_insert((start, end));
        }

        Ok(Program {
            path: path.to_path_buf(),
            entry: file.entry(),
            pie: file.kind() == ObjectKind::Dynamic,
            bias: 0,
            syms,
            by_name,
            segments,
            lines: LineTable::load(&file),
        })
    }

    /// The path the program was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Sets the load bias: runtime address = file address + `bias`.
    pub fn set_load_bias(&mut self, bias: u64) {
        self.bias = bias;
    }

    /// The current load bias.
    pub fn load_bias(&self) -> u64 {
        self.bias
    }

    /// Runtime address → file address (`None` below the bias).
    fn to_file(&self, runtime_addr: u64) -> Option<u64> {
        runtime_addr.checked_sub(self.bias)
    }

    /// Name of the function symbol covering `runtime_addr`.
    pub fn function_at(&self, runtime_addr: u64) -> Option<&str> {
        let a = self.to_file(runtime_addr)?;
        let i = self.syms.partition_point(|s| s.start <= a);
        let s = self.syms.get(i.checked_sub(1)?)?;
        (a < s.end).then_some(s.name.as_str())
    }

    /// Runtime address range `[start, end)` of the function named `name`.
    pub fn function_range(&self, name: &str) -> Option<(u64, u64)> {
        let &(s, e) = self.by_name.get(name)?;
        Some((s.wrapping_add(self.bias), e.wrapping_add(self.bias)))
    }

    /// Source `(file, line)` of `runtime_addr` from the DWARF line table.
    pub fn line_at(&self, runtime_addr: u64) -> Option<(String, u32)> {
        self.lines.lookup(self.to_file(runtime_addr)?)
    }

    /// Where the function named `name` is declared: the file of its first
    /// address and its `DW_AT_decl_line` (the line of its first address when
    /// DWARF has no declaration line). `None` without DWARF.
    pub fn function_line(&self, name: &str) -> Option<(String, u32)> {
        let (start, _) = self.by_name.get(name).copied()?;
        let (file, first) = self.lines.lookup(start)?;
        Some((file, self.lines.decl_line(start).unwrap_or(first)))
    }

    /// Whether DWARF line information was found.
    pub fn has_lines(&self) -> bool {
        self.lines.has_dwarf()
    }

    /// The ELF entry point (file address, `e_entry`).
    pub fn entry(&self) -> u64 {
        self.entry
    }

    /// Whether the executable is position independent (`ET_DYN`).
    pub fn is_pie(&self) -> bool {
        self.pie
    }

    /// Whether `runtime_addr` lies in one of the program's `PT_LOAD` segments.
    pub fn contains(&self, runtime_addr: u64) -> bool {
        self.to_file(runtime_addr).is_some_and(|a| {
            self.segments
                .iter()
                .any(|s| a >= s.addr && a - s.addr < s.memsz)
        })
    }

    /// Up to `max_len` file-backed bytes of the program at `runtime_addr`
    /// (fewer at the end of a segment's file image); `None` outside.
    pub fn bytes_at(&self, runtime_addr: u64, max_len: usize) -> Option<&[u8]> {
        self.file_bytes_at(self.to_file(runtime_addr)?, max_len)
    }

    /// The bytes at the file entry point (up to 32), for [`crate::detect_bias`];
    /// independent of the load bias.
    pub(crate) fn entry_bytes_at_file(&self) -> &[u8] {
        self.file_bytes_at(self.entry, 32).unwrap_or(&[])
    }

    fn file_bytes_at(&self, a: u64, max_len: usize) -> Option<&[u8]> {
        self.segments.iter().find_map(|s| {
            let off = usize::try_from(a.checked_sub(s.addr)?).ok()?;
            if off >= s.bytes.len() {
                return None;
            }
            Some(&s.bytes[off..s.bytes.len().min(off.saturating_add(max_len))])
        })
    }
}

/// Function symbols of `.symtab` (or `.dynsym` when stripped), one per start
/// address, with zero sizes closed at the next symbol or the section end.
fn collect_symbols(file: &object::File<'_>) -> Vec<Sym> {
    let mut raw = function_symbols(file, false);
    if raw.is_empty() {
        raw = function_symbols(file, true);
    }
    // Pick one name per address.
    let mut best: HashMap<u64, (u64, u64, AliasRank)> = HashMap::new();
    for r in raw {
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
    let mut out = Vec::with_capacity(starts.len());
    for i in 0..starts.len() {
        let (start, size, sec_end, ref name) = starts[i];
        let end = if size > 0 {
            start.saturating_add(size)
        } else {
            let next = starts.get(i + 1).map_or(u64::MAX, |n| n.0);
            let limit = if sec_end > start { sec_end } else { u64::MAX };
            let e = next.min(limit);
            if e == u64::MAX {
                start.saturating_add(1)
            } else {
                e
            }
        };
        out.push(Sym {
            start,
            end,
            name: name.clone(),
        });
    }
    out
}

struct RawSym {
    start: u64,
    size: u64,
    section_end: u64,
    name: String,
    global: bool,
    weak: bool,
}

fn function_symbols(file: &object::File<'_>, dynamic: bool) -> Vec<RawSym> {
    let iter: Box<dyn Iterator<Item = object::Symbol<'_, '_>>> = if dynamic {
        Box::new(file.dynamic_symbols())
    } else {
        Box::new(file.symbols())
    };
    iter.filter(|s| s.kind() == SymbolKind::Text && s.is_definition() && s.address() != 0)
        .filter_map(|s| {
            let name = s.name().ok()?.to_string();
            if name.is_empty() {
                return None;
            }
            let section_end = s
                .section_index()
                .and_then(|i| file.section_by_index(i).ok())
                .map_or(0, |sec| sec.address().saturating_add(sec.size()));
            Some(RawSym {
                start: s.address(),
                size: s.size(),
                section_end,
                name,
                global: s.is_global(),
                weak: s.is_weak(),
            })
        })
        .collect()
}

/// Every function symbol name (aliases included) with the range of the symbol
/// chosen for its address.
fn alias_names(file: &object::File<'_>, syms: &[Sym]) -> Vec<(String, u64, u64)> {
    let mut raw = function_symbols(file, false);
    raw.extend(function_symbols(file, true));
    raw.into_iter()
        .filter_map(|r| {
            let i = syms.partition_point(|s| s.start < r.start);
            let s = syms.get(i).filter(|s| s.start == r.start)?;
            let end = if r.size > 0 {
                r.start.saturating_add(r.size)
            } else {
                s.end
            };
            Some((r.name, r.start, end))
        })
        .collect()
}

/// What a branch instruction is, judged from its encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BranchKind {
    /// `call` (direct, indirect or far).
    Call,
    /// `ret` / `retf`.
    Ret,
    /// Unconditional `jmp` (direct, indirect or far): no fall-through.
    Jump,
    /// Anything else (conditional branches, `loop`, `jrcxz`…).
    Other,
}

/// Classifies the x86-64 instruction starting with `bytes` as call, return,
/// unconditional jump or anything else (legacy prefixes and REX skipped).
pub(crate) fn branch_kind(bytes: &[u8]) -> BranchKind {
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            0xF0 | 0xF2 | 0xF3 | 0x2E | 0x36 | 0x3E | 0x26 | 0x64 | 0x65 | 0x66 | 0x67 => i += 1,
            0x40..=0x4F => i += 1,
            _ => break,
        }
    }
    match bytes.get(i) {
        Some(0xE8) | Some(0x9A) => BranchKind::Call,
        Some(0xC3) | Some(0xC2) | Some(0xCB) | Some(0xCA) => BranchKind::Ret,
        Some(0xEB) | Some(0xE9) | Some(0xEA) => BranchKind::Jump,
        Some(0xFF) => match bytes.get(i + 1).map(|m| (m >> 3) & 7) {
            Some(2) | Some(3) => BranchKind::Call,
            Some(4) | Some(5) => BranchKind::Jump,
            _ => BranchKind::Other,
        },
        _ => BranchKind::Other,
    }
}
