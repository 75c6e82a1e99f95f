//! Static inputs of bottlenose: turns what the user gives us (assembly text, hex
//! bytes, an ELF file plus a function name or address range) into raw machine
//! code blocks, x86-64 or AArch64 (each block says which).
//!
//! This crate does not decode instructions; that is the decoder crate's job.
//! It only produces bytes, the address of the first byte and a name, plus
//! (for assembly) the source line of each listed offset when known.
//!
//! The dynamic input (a program run under QEMU with the bottlenose plugin,
//! streaming the executed instructions) is crate `bottlenose-trace`.

mod asm;
mod elf;
mod error;
mod hex;

pub use asm::{assemble, assemble_for, assemble_with, find_gnu_as};
#[doc(hidden)]
pub use asm::{assemble_offline, OFFLINE_INPUT_NAME};
pub use elf::{elf_function_symbols, elf_isa, from_elf, ElfSelector};
pub use error::SourceError;
pub use bottlenose_decode::Isa;
pub use hex::from_hex;

/// One contiguous piece of machine code to analyze.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    /// Address of the first byte (0 for assembled snippets and hex unless the user gave one).
    pub address: u64,
    /// The instruction set of the bytes: from the ELF header, the assembler used, or the
    /// caller for hex.
    pub isa: Isa,
    pub bytes: Vec<u8>,
    /// Human name: region name from `# LLVM-MCA-BEGIN name`, the ELF symbol, or "hex"/the file name.
    pub name: String,
    /// The source line of each instruction start offset we know of (from the
    /// assembler listing), in offset order. May be empty.
    pub source_lines: Vec<SourceLine>,
    /// Function symbols that start inside the block: (offset from `address`,
    /// name), in offset order. An assembly file's `.type f, @function`
    /// symbols; for an ELF function, the function itself at 0.
    pub functions: Vec<(u64, String)>,
}

/// Where an instruction of an assembled block came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    /// Offset of the instruction from the block's start.
    pub offset: u64,
    /// 1-based line of the user's source.
    pub line: usize,
    /// The line's text, trimmed.
    pub text: String,
}

/// Which assembly dialect a snippet is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsmSyntax {
    /// AT&T (GNU default): `addq %rbx, %rax`.
    Att,
    /// Intel without register prefixes: `add rax, rbx`.
    Intel,
    /// Guess from the text: Intel if it says `.intel_syntax` or uses no `%` registers.
    Auto,
}
