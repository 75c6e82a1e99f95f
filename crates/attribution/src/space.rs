//! The guest's address space of a run: the mappings QEMU reported (main
//! executable, ld.so, every shared library, anonymous memory), and for each
//! executed address the file it came from, the symbol or code region in it,
//! and the address objdump shows for it there.
//!
//! Labels are perf's: `libc.so.6!memcpy` for a symbol, `gzip+0x4a20` for
//! code no symbol covers (the start of its `.eh_frame` function, or of the
//! gap between known functions), [`JIT`] for code in anonymous memory and
//! [`UNMAPPED`] for code outside every mapping.

use std::collections::HashMap;
use std::path::Path;

use crate::symbols::Program;
use crate::Symbolize;

/// Label of code in anonymous executable memory (JIT compilers).
pub const JIT: &str = "[jit]";
/// Label of code at an address no mapping covers.
pub const UNMAPPED: &str = "[unmapped]";

/// One mapping of the guest, as `/proc/PID/maps` shows it: `[start, end)`
/// maps the file at `path` from `offset` on (`path` empty for anonymous
/// memory, or a pseudo name such as `[heap]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestMapping {
    pub start: u64,
    pub end: u64,
    pub offset: u64,
    pub path: String,
}

impl GuestMapping {
    /// Whether the mapping is backed by a file (not anonymous, not `[heap]`).
    pub fn is_file(&self) -> bool {
        self.path.starts_with('/')
    }

    /// The file name (`libc.so.6`), or the pseudo name.
    pub fn file_name(&self) -> &str {
        let p = self.path.strip_suffix(" (deleted)").unwrap_or(&self.path);
        p.rsplit('/').next().unwrap_or(p)
    }
}

/// What holds an executed address.
#[derive(Debug, Clone, Copy)]
enum Owner {
    /// A parsed ELF file (index into `programs`).
    Program(usize),
    /// A file that could not be parsed as ELF: mapping index.
    File(usize),
    Jit,
    Unmapped,
}

/// The mappings of a run and the ELF files behind the executed code.
#[derive(Debug)]
pub struct AddressSpace {
    mappings: Vec<GuestMapping>,
    programs: Vec<Program>,
    owner: HashMap<u64, Owner>,
}

impl AddressSpace {
    /// `mappings` in the order the run reported them (a later mapping
    /// replaces what it overlaps); `executed` lists each executed address
    /// with how many mappings had been reported when it was first seen, so
    /// code that ran before a library was replaced keeps its first owner.
    /// The ELF file of every mapping that holds executed code is read once
    /// here (with its separate debug file, if installed).
    pub fn new(mappings: Vec<GuestMapping>, executed: impl IntoIterator<Item = (u64, usize)>) -> AddressSpace {
        let mut programs: Vec<Program> = Vec::new();
        // path -> the programs loaded from it (one per load bias); empty: not ELF
        let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
        // whether programs[k] has had its load bias set
        let mut placed: Vec<bool> = Vec::new();
        let mut owner = HashMap::new();
        for (addr, known) in executed {
            if owner.contains_key(&addr) {
                continue;
            }
            let m = mappings[..known.min(mappings.len())]
                .iter()
                .enumerate()
                .rev()
                .find(|(_, m)| m.start <= addr && addr < m.end);
            let o = match m {
                None => Owner::Unmapped,
                Some((_, m)) if !m.is_file() => Owner::Jit,
                Some((i, m)) => {
                    let offset = addr - m.start + m.offset;
                    let path = m.path.strip_suffix(" (deleted)").unwrap_or(&m.path);
                    let loaded = by_path.entry(m.path.clone()).or_insert_with(|| match Program::open(Path::new(path)) {
                        Ok(p) => {
                            programs.push(p);
                            placed.push(false);
                            vec![programs.len() - 1]
                        }
                        Err(_) => Vec::new(),
                    });
                    let file_addr = loaded.first().and_then(|&k| programs[k].address_of_offset(offset));
                    match file_addr {
                        None => Owner::File(i),
                        Some(file_addr) => {
                            let bias = addr.wrapping_sub(file_addr);
                            let k = loaded[0];
                            if !placed[k] {
                                programs[k].set_load_bias(bias);
                                placed[k] = true;
                                Owner::Program(k)
                            } else if let Some(&same) = loaded.iter().find(|&&k| programs[k].load_bias() == bias) {
                                Owner::Program(same)
                            } else {
                                // the same file again at another address (reloaded library)
                                match Program::open(Path::new(path)) {
                                    Ok(mut p) => {
                                        p.set_load_bias(bias);
                                        programs.push(p);
                                        placed.push(true);
                                        loaded.push(programs.len() - 1);
                                        Owner::Program(programs.len() - 1)
                                    }
                                    Err(_) => Owner::File(i),
                                }
                            }
                        }
                    }
                }
            };
            owner.insert(addr, o);
        }
        AddressSpace { mappings, programs, owner }
    }

    /// The mappings, in the order they were reported.
    pub fn mappings(&self) -> &[GuestMapping] {
        &self.mappings
    }

    /// The ELF files behind executed code, each with its load bias set.
    pub fn programs(&self) -> &[Program] {
        &self.programs
    }

    fn owner(&self, addr: u64) -> Owner {
        self.owner.get(&addr).copied().unwrap_or(Owner::Unmapped)
    }

    fn program(&self, addr: u64) -> Option<&Program> {
        match self.owner(addr) {
            Owner::Program(i) => Some(&self.programs[i]),
            _ => None,
        }
    }
}

impl Symbolize for AddressSpace {
    fn label(&self, addr: u64) -> String {
        match self.owner(addr) {
            Owner::Program(i) => {
                let p = &self.programs[i];
                match p.locate(addr) {
                    Some(l) => match l.name {
                        Some(n) => format!("{}!{n}", p.name()),
                        None => format!("{}+{:#x}", p.name(), p.file_address(l.start)),
                    },
                    // in the file, outside its executable segments and symbols
                    None => p.name().to_string(),
                }
            }
            Owner::File(m) => self.mappings[m].file_name().to_string(),
            Owner::Jit => JIT.to_string(),
            Owner::Unmapped => UNMAPPED.to_string(),
        }
    }

    fn symbol_start(&self, addr: u64) -> Option<u64> {
        self.program(addr)?.locate(addr).filter(|l| l.name.is_some()).map(|l| l.start)
    }

    fn line_at(&self, addr: u64) -> Option<(String, u32)> {
        self.program(addr)?.line_at(addr)
    }

    fn function_line(&self, addr: u64) -> Option<(String, u32)> {
        Symbolize::function_line(self.program(addr)?, addr)
    }

    fn bytes_at(&self, addr: u64, max_len: usize) -> Option<&[u8]> {
        self.program(addr)?.bytes_at(addr, max_len)
    }

    fn dso_address(&self, addr: u64) -> Option<(&str, u64)> {
        match self.owner(addr) {
            Owner::Program(i) => Some((self.programs[i].name(), self.programs[i].file_address(addr))),
            Owner::File(i) => {
                let m = &self.mappings[i];
                Some((m.file_name(), addr - m.start + m.offset))
            }
            Owner::Jit | Owner::Unmapped => None,
        }
    }
}
