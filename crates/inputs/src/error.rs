//! The single error type of this crate. Every variant renders as one line
//! that names the input (file, line, column, byte offset or address) so the
//! CLI can print it as is.

use std::path::PathBuf;

/// Why an input could not be turned into code blocks.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Hex input contained no bytes at all.
    #[error("no bytes in hex input")]
    NoBytes,

    /// A run of hex digits had an odd length, so it cannot be split into bytes.
    #[error("odd number of hex digits ({digits}) in `{token}` at line {line}, column {column} of hex input")]
    OddHexDigits {
        token: String,
        digits: usize,
        line: usize,
        column: usize,
    },

    /// A character that is neither a hex digit, a separator nor a comment.
    #[error("invalid character {ch:?} at line {line}, column {column} (byte offset {offset}) of hex input")]
    BadHexChar {
        ch: char,
        line: usize,
        column: usize,
        offset: usize,
    },

    /// The GNU assembler could not be found or started.
    #[error("GNU as not found: install binutils (apt-get install binutils){}", detail_suffix(.path))]
    AssemblerNotFound { path: Option<PathBuf> },

    /// The assembler of another ISA (`aarch64-linux-gnu-as`) is not installed.
    #[error("{program} not found: install {package} (apt-get install {package})")]
    CrossAssemblerNotFound { program: String, package: String },

    /// `as` rejected the source; `line` is the user's line number when known.
    #[error("{file}:{}{message}", line_prefix(.line))]
    Assembler {
        file: String,
        line: Option<usize>,
        message: String,
    },

    /// `# LLVM-MCA-BEGIN` / `# LLVM-MCA-END` markers that do not pair up.
    #[error("{file}:{line}: {message}")]
    Region {
        file: String,
        line: usize,
        message: String,
    },

    /// The assembled source produced no code.
    #[error("no instructions in {file}")]
    NoInstructions { file: String },

    /// The file is not an object we can read code from.
    #[error("{file} is not an x86-64 or AArch64 ELF file ({what})")]
    NotX86_64Elf { file: String, what: String },

    /// A malformed ELF file, or an object `as` produced that we could not read.
    #[error("{file}: malformed object file: {message}")]
    BadObject { file: String, message: String },

    /// No function symbol of that name.
    #[error("no function `{name}` in {file}{hint}")]
    SymbolNotFound {
        file: String,
        name: String,
        /// Already formatted, e.g. " (similar: foo_a, foo_b)".
        hint: String,
    },

    /// A symbol or range whose bytes cannot be read.
    #[error("{file}: {message}")]
    BadRange { file: String, message: String },

    /// An I/O error while talking to the assembler or writing temp files.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

fn detail_suffix(path: &Option<PathBuf>) -> String {
    match path {
        Some(p) => format!(" (tried {})", p.display()),
        None => String::new(),
    }
}

fn line_prefix(line: &Option<usize>) -> String {
    match line {
        Some(l) => format!("{l}: "),
        None => " ".to_string(),
    }
}
