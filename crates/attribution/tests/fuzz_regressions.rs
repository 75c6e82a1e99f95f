//! Inputs that crashed the fuzz targets (`fuzz/`, `scripts/fuzz.sh`: the
//! `elf_attribution` target), minimized: each must now give a clean answer.

mod common;

use bottlenose_attribution::Program;
use common::*;

/// elf_attribution: a line lookup at the last address of the address space
/// (file address `u64::MAX`) overflowed inside addr2line, which probes
/// `[addr, addr + 1)`, in every build with overflow checks (the test
/// profile). Any ELF with DWARF did it; here one gcc builds.
#[test]
fn line_lookup_at_the_top_of_the_address_space() {
    let (_dir, exe) = compile(PROG_C, &["-O1", "-g"]);
    let mut program = Program::open(&exe).unwrap();
    assert!(program.has_lines());
    assert_eq!(program.line_at(u64::MAX), None);
    // The same file address reached through a load bias.
    program.set_load_bias(0x1000);
    assert_eq!(program.line_at(u64::MAX), None);
    assert_eq!(program.line_at(0xfff), None, "below the bias");
    // Ordinary lookups still work.
    program.set_load_bias(0);
    let (start, _) = program.function_range("work").unwrap();
    let (file, line) = program.line_at(start).unwrap();
    assert!(file.ends_with("prog.c"), "{file}");
    assert!((WORK_LINES.0..=WORK_LINES.1).contains(&line), "{line}");
}

/// Returns `exe`'s bytes with the `st_size` of the `.symtab` symbol `name`
/// replaced by `size` (ELF64 little-endian: 24-byte entries, size at +16).
fn with_symbol_size(exe: &std::path::Path, name: &str, size: u64) -> Vec<u8> {
    use object::{Object, ObjectSection, ObjectSymbol};
    let mut data = std::fs::read(exe).unwrap();
    let (symtab_off, index) = {
        let file = object::File::parse(&*data).unwrap();
        let (off, _) = file
            .section_by_name(".symtab")
            .unwrap()
            .file_range()
            .unwrap();
        let sym = file.symbols().find(|s| s.name() == Ok(name)).unwrap();
        (off as usize, sym.index().0)
    };
    let at = symtab_off + index * 24 + 16;
    data[at..at + 8].copy_from_slice(&size.to_le_bytes());
    data
}

/// elf_attribution: a function symbol whose `st_size` reaches past the end
/// of the address space overflowed `start + size` while its aliases were
/// named.
#[test]
fn symbol_size_past_the_address_space() {
    let (_dir, exe) = compile(PROG_C, &["-O1", "-g"]);
    let data = with_symbol_size(&exe, "work", u64::MAX - 8);
    let program = Program::parse(&exe, &data).unwrap();
    let (start, end) = program.function_range("work").unwrap();
    assert_eq!(end, u64::MAX, "clamped at the top");
    assert_eq!(program.function_at(start), Some("work"));
    assert!(program.function_range("fact").is_some());
}
