//! Source-line lookup: the DWARF line table of the main executable, read with
//! `gimli` and queried through `addr2line::Context::find_location`.
//!
//! A missing or unreadable `.debug_*` set is not an error: every lookup then
//! answers `None`. Answers are cached per (file) address because the same
//! instruction addresses are asked about again and again while aggregating.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use object::{Object, ObjectSection};

type Reader = gimli::EndianArcSlice<gimli::RunTimeEndian>;

/// The DWARF line information of one ELF file, keyed by *file* addresses.
pub(crate) struct LineTable {
    ctx: Option<addr2line::Context<Reader>>,
    cache: RefCell<HashMap<u64, Option<(String, u32)>>>,
}

impl std::fmt::Debug for LineTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineTable")
            .field("has_dwarf", &self.ctx.is_some())
            .field("cached", &self.cache.borrow().len())
            .finish()
    }
}

impl LineTable {
    /// A table that knows no lines.
    pub(crate) fn empty() -> LineTable {
        LineTable {
            ctx: None,
            cache: RefCell::new(HashMap::new()),
        }
    }

    /// Reads the DWARF sections of `file`. Files without `.debug_info` or
    /// `.debug_line`, or whose DWARF cannot be parsed, give an empty table.
    pub(crate) fn load(file: &object::File<'_>) -> LineTable {
        let has_debug = |name: &str| file.section_by_name(name).is_some_and(|s| s.size() > 0);
        if !has_debug(".debug_info") || !has_debug(".debug_line") {
            return LineTable::empty();
        }
        let endian = if file.is_little_endian() {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let load_section = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
            let data: Cow<'_, [u8]> = file
                .section_by_name(id.name())
                .and_then(|s| s.uncompressed_data().ok())
                .unwrap_or(Cow::Borrowed(&[]));
            Ok(gimli::EndianReader::new(Arc::<[u8]>::from(&*data), endian))
        };
        let ctx = gimli::Dwarf::load(load_section)
            .ok()
            .and_then(|dwarf| addr2line::Context::from_dwarf(dwarf).ok());
        LineTable {
            ctx,
            cache: RefCell::new(HashMap::new()),
        }
    }

    /// Whether DWARF line information was found.
    pub(crate) fn has_dwarf(&self) -> bool {
        self.ctx.is_some()
    }

    /// `(file, line)` of a file address; `None` when unknown (no DWARF, no row
    /// for the address, or a row with line 0 / no file).
    pub(crate) fn lookup(&self, file_addr: u64) -> Option<(String, u32)> {
        let ctx = self.ctx.as_ref()?;
        // addr2line probes `[addr, addr + 1)`, which overflows at the top of
        // the address space; no code lives there.
        if file_addr == u64::MAX {
            return None;
        }
        if let Some(hit) = self.cache.borrow().get(&file_addr) {
            return hit.clone();
        }
        let found = match ctx.find_location(file_addr) {
            Ok(Some(loc)) => match (loc.file, loc.line) {
                (Some(f), Some(l)) if l != 0 => Some((f.to_string(), l)),
                _ => None,
            },
            _ => None,
        };
        self.cache.borrow_mut().insert(file_addr, found.clone());
        found
    }

    /// The declaration line (`DW_AT_decl_line`) of the subprogram starting at
    /// `file_addr`, following `DW_AT_specification` / `DW_AT_abstract_origin`
    /// within its unit. `None` without DWARF or when no subprogram has that
    /// `DW_AT_low_pc`.
    pub(crate) fn decl_line(&self, file_addr: u64) -> Option<u32> {
        use gimli::{AttributeValue, DW_AT_abstract_origin, DW_AT_decl_line, DW_AT_low_pc};
        use gimli::{DW_AT_specification, DW_TAG_subprogram};
        let ctx = self.ctx.as_ref()?;
        if file_addr == u64::MAX {
            return None; // see `lookup`
        }
        let unit = ctx.find_dwarf_and_unit(file_addr).skip_all_loads()?;
        let mut entries = unit.entries();
        while let Ok(Some((_, die))) = entries.next_dfs() {
            if die.tag() != DW_TAG_subprogram {
                continue;
            }
            let low = match die.attr_value(DW_AT_low_pc) {
                Ok(Some(AttributeValue::Addr(a))) => a,
                Ok(Some(AttributeValue::DebugAddrIndex(i))) => match unit.address(i) {
                    Ok(a) => a,
                    Err(_) => continue,
                },
                _ => continue,
            };
            if low != file_addr {
                continue;
            }
            // The line may sit on the declaration this DIE refers to.
            let mut die = die.clone();
            for _ in 0..4 {
                if let Some(line) = die
                    .attr(DW_AT_decl_line)
                    .ok()
                    .flatten()
                    .and_then(|a| a.udata_value())
                {
                    return u32::try_from(line).ok().filter(|&l| l != 0);
                }
                let next = [DW_AT_specification, DW_AT_abstract_origin]
                    .into_iter()
                    .find_map(|at| match die.attr_value(at) {
                        Ok(Some(AttributeValue::UnitRef(off))) => unit.entry(off).ok(),
                        _ => None,
                    });
                match next {
                    Some(d) => die = d,
                    None => return None,
                }
            }
            return None;
        }
        None
    }
}
