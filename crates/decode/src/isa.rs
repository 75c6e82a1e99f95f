//! The instruction set a code stream is in. Only what differs between ISAs is keyed
//! on it: the decoder, the assembler and emulator to run, and rules that exist on one
//! ISA only (x86 string instructions, the x86 stack engine).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Isa {
    X86_64,
    Aarch64,
}

impl Isa {
    /// The name used on the command line and in machine files.
    pub fn name(self) -> &'static str {
        match self {
            Isa::X86_64 => "x86-64",
            Isa::Aarch64 => "aarch64",
        }
    }

    /// Parses a name or a common alias (`x86_64`, `amd64`, `arm64`).
    pub fn parse(s: &str) -> Option<Isa> {
        match s.to_ascii_lowercase().as_str() {
            "x86-64" | "x86_64" | "amd64" | "x64" => Some(Isa::X86_64),
            "aarch64" | "arm64" | "armv8" | "a64" => Some(Isa::Aarch64),
            _ => None,
        }
    }
}

impl std::fmt::Display for Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
