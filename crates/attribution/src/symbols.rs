//! One ELF file (main executable or shared library): function symbols (module
//! `symtab`, with its separate debug file's), loaded segments, entry point,
//! PIE-ness and load bias, plus its DWARF line table (module `lines`).
//!
//! All public lookups take and give *runtime* addresses (file address + load
//! bias) unless they say otherwise; the bias is 0 until
//! [`Program::set_load_bias`] is called (a run's [`crate::AddressSpace`]
//! sets it from the guest's mappings).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use object::{Object, ObjectKind, ObjectSection, ObjectSegment, SegmentFlags};

use crate::lines::LineTable;
use crate::symtab::{NamedFunction, Sym};
use crate::AttributionError;

/// Name given to instructions outside the main executable (libc, ld.so, vDSO…).
pub const SHARED: &str = "[shared]";
/// Name given to every instruction when no [`Program`] is known.
pub const UNKNOWN: &str = "[unknown]";

/// Code at most this far past a symbol's end, with no other function
/// between, is alignment padding of that symbol.
const PADDING: u64 = 64;

/// One `PT_LOAD` segment: file address, memory size, file offset and its
/// file-backed bytes.
#[derive(Debug, Clone)]
struct Segment {
    addr: u64,
    memsz: u64,
    offset: u64,
    bytes: Vec<u8>,
    executable: bool,
}

/// Parsed ELF file: the main executable or a shared library.
///
/// `Program` is `Send` but not `Sync` (line lookups fill a cache behind a
/// `RefCell`).
#[derive(Debug)]
pub struct Program {
    path: PathBuf,
    /// The file name, which labels name the file by (`libc.so.6`).
    name: String,
    entry: u64,
    pie: bool,
    bias: u64,
    /// Sorted by start, one per start address, non-overlapping starts.
    syms: Vec<Sym>,
    by_name: HashMap<String, NamedFunction>,
    /// `.eh_frame` function ranges, sorted.
    fdes: Vec<(u64, u64)>,
    /// PLT sections (`.plt`, `.plt.got`, `.plt.sec`): `[start, end)` and name.
    plts: Vec<(u64, u64, String)>,
    segments: Vec<Segment>,
    lines: LineTable,
    /// Whether the symbols or lines came (partly) from a separate debug file.
    debug_file: bool,
}

/// Where an address is in a [`Program`]: the function symbol covering it, or
/// the code region it belongs to when no symbol does (runtime addresses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located<'a> {
    /// The symbol's (demangled) name; `None` for stripped code.
    pub name: Option<&'a str>,
    /// Start of the symbol, or of the region: the `.eh_frame` function
    /// covering the address, else the code between the nearest symbol or
    /// function boundary below and the next one.
    pub start: u64,
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
                offset: seg.file_range().0,
                bytes: seg.data().map(<[u8]>::to_vec).unwrap_or_default(),
                executable: matches!(seg.flags(), SegmentFlags::Elf { p_flags } if p_flags & object::elf::PF_X != 0),
            })
            .collect();

        // A stripped file's symbols and lines may be in a separate debug file.
        let debug_data = if file.section_by_name(".symtab").is_none() || file.section_by_name(".debug_line").is_none() {
            crate::debugfile::find(path, &file)
        } else {
            None
        };
        let debug = debug_data.as_deref().and_then(|d| object::File::parse(d).ok());
        let mut files = vec![&file];
        files.extend(debug.as_ref());
        let (syms, by_name) = crate::symtab::collect(&files);
        let mut lines = LineTable::load(&file);
        if !lines.has_dwarf() {
            if let Some(d) = &debug {
                lines = LineTable::load(d);
            }
        }

        Ok(Program {
            path: path.to_path_buf(),
            name: path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned()),
            entry: file.entry(),
            pie: file.kind() == ObjectKind::Dynamic,
            bias: 0,
            syms,
            by_name,
            fdes: crate::symtab::fde_ranges(&file),
            plts: file
                .sections()
                .filter_map(|s| {
                    let name = s.name().ok()?;
                    name.starts_with(".plt").then(|| (s.address(), s.address().saturating_add(s.size()), name.to_string()))
                })
                .collect(),
            segments,
            lines,
            debug_file: debug.is_some(),
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

    /// Runtime address range `[start, end)` of the function named `name`
    /// (mangled or demangled).
    pub fn function_range(&self, name: &str) -> Option<(u64, u64)> {
        let f = self.by_name.get(name)?;
        Some((f.start.wrapping_add(self.bias), f.end.wrapping_add(self.bias)))
    }

    /// The function named `name` (mangled or demangled), file addresses.
    pub fn named_function(&self, name: &str) -> Option<NamedFunction> {
        self.by_name.get(name).copied()
    }

    /// Function names containing `part`, sorted, at most `max` of them (for
    /// "did you mean" messages).
    pub fn names_containing(&self, part: &str, max: usize) -> Vec<&str> {
        let mut v: Vec<&str> = self.syms.iter().map(|s| s.name.as_str()).filter(|n| n.contains(part)).collect();
        v.sort_unstable();
        v.dedup();
        v.truncate(max);
        v
    }

    /// The file name, which labels name the file by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether a separate debug file (build id or `.gnu_debuglink`) was found.
    pub fn has_debug_file(&self) -> bool {
        self.debug_file
    }

    /// The file address (what objdump shows) of file offset `offset`, if a
    /// `PT_LOAD` segment maps it.
    pub fn address_of_offset(&self, offset: u64) -> Option<u64> {
        self.segments.iter().find_map(|s| {
            let d = offset.checked_sub(s.offset)?;
            (d < s.bytes.len() as u64 || d < s.memsz).then(|| s.addr.wrapping_add(d))
        })
    }

    /// The file offset of file address `addr` (what objdump shows), if a
    /// `PT_LOAD` segment holds it in the file.
    pub fn offset_of_address(&self, addr: u64) -> Option<u64> {
        self.segments.iter().find_map(|s| {
            let d = addr.checked_sub(s.addr)?;
            (d < s.bytes.len() as u64).then(|| s.offset.wrapping_add(d))
        })
    }

    /// Runtime address → file address (what objdump shows).
    pub fn file_address(&self, runtime_addr: u64) -> u64 {
        runtime_addr.wrapping_sub(self.bias)
    }

    /// The symbol or code region holding `runtime_addr`; `None` outside the
    /// file's executable segments (and outside every symbol).
    pub fn locate(&self, runtime_addr: u64) -> Option<Located<'_>> {
        let a = self.to_file(runtime_addr)?;
        let i = self.syms.partition_point(|s| s.start <= a);
        let below = i.checked_sub(1).map(|k| &self.syms[k]);
        if let Some(s) = below.filter(|s| a < s.end) {
            return Some(Located { name: Some(&s.name), start: s.start.wrapping_add(self.bias) });
        }
        let seg = self.segments.iter().find(|s| s.executable && a >= s.addr && a - s.addr < s.memsz)?;
        // PLT stubs have no symbols: they are named by their section
        if let Some((s, _, name)) = self.plts.iter().find(|&&(s, e, _)| s <= a && a < e) {
            return Some(Located { name: Some(name), start: s.wrapping_add(self.bias) });
        }
        let f = self.fdes.partition_point(|&(s, _)| s <= a);
        let fde_below = f.checked_sub(1).map(|k| self.fdes[k]);
        if let Some((s, _)) = fde_below.filter(|&(_, e)| a < e) {
            return Some(Located { name: None, start: s.wrapping_add(self.bias) });
        }
        // alignment padding right after a function (a fall-through runs its
        // nops) belongs to that function
        if let Some(s) = below.filter(|s| a - s.end < PADDING && fde_below.is_none_or(|f| f.1 <= s.end)) {
            return Some(Located { name: Some(&s.name), start: s.start.wrapping_add(self.bias) });
        }
        // the gap between the nearest function end below and the address
        let start = [below.map(|s| s.end), fde_below.map(|f| f.1), Some(seg.addr)]
            .into_iter()
            .flatten()
            .filter(|&e| e <= a)
            .max()
            .unwrap_or(seg.addr);
        Some(Located { name: None, start: start.wrapping_add(self.bias) })
    }

    /// The label of `runtime_addr`: the symbol name, or `FILE+0xSTART` for
    /// stripped code (the start of its region as objdump shows it).
    pub fn label_at(&self, runtime_addr: u64) -> Option<String> {
        let l = self.locate(runtime_addr)?;
        Some(match l.name {
            Some(n) => n.to_string(),
            None => format!("{}+{:#x}", self.name, self.file_address(l.start)),
        })
    }

    /// Source `(file, line)` of `runtime_addr` from the DWARF line table.
    pub fn line_at(&self, runtime_addr: u64) -> Option<(String, u32)> {
        self.lines.lookup(self.to_file(runtime_addr)?)
    }

    /// Where the function named `name` is declared: the file of its first
    /// address and its `DW_AT_decl_line` (the line of its first address when
    /// DWARF has no declaration line). `None` without DWARF.
    pub fn function_line(&self, name: &str) -> Option<(String, u32)> {
        let start = self.by_name.get(name)?.start;
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
