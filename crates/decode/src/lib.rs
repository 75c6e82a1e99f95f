//! Decoded instruction stream of bottlenose.
//!
//! Everything downstream (functional layer, timing model, listeners) works on
//! [`DecodedInst`], whichever the [`Isa`] (x86-64 through iced-x86, AArch64 through
//! yaxpeax-arm and disarm64 for SVE, see [`aarch64`]): what an instruction reads and writes (implicit operands
//! and flags included), its memory operands, branch kind, vector width, FP class,
//! FMA and masking, plus the *form key* used to look its timing up in a machine
//! description. Decoding happens once per static instruction (at translation time
//! for dynamic runs), so this layer may allocate; the per-execution hot path does not.

pub mod aarch64;
mod classify;
mod form;
mod isa;
pub mod regs;
mod requirements;

pub use isa::Isa;

use iced_x86::{Decoder, DecoderOptions, Formatter, Instruction, IntelFormatter};
use serde::Serialize;

pub use form::form_key;
pub use requirements::{isa_needs, Encoding, IsaNeeds};
pub use regs::{reg_id, reg_name, RegId, NUM_REGS};

/// How an instruction changes control flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BranchKind {
    None,
    Conditional,
    DirectJump,
    IndirectJump,
    DirectCall,
    IndirectCall,
    Return,
    /// syscall, int, ud2 and friends: leave the modelled code.
    Other,
}

/// Floating-point class of an instruction's arithmetic (not of mere FP moves).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FpClass {
    None,
    ScalarHalf,
    ScalarSingle,
    ScalarDouble,
    PackedHalf,
    PackedSingle,
    PackedDouble,
    X87,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemAccess {
    Load,
    Store,
    LoadStore,
}

/// Which string instruction an instruction is (`movs`, `stos`, `lods`, `cmps`, `scas`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StringKind {
    /// Copies `[rsi]` to `[rdi]`.
    Movs,
    /// Stores `al`/`ax`/`eax`/`rax` to `[rdi]`.
    Stos,
    /// Loads `[rsi]` into `al`/`ax`/`eax`/`rax`.
    Lods,
    /// Compares `[rsi]` with `[rdi]`.
    Cmps,
    /// Compares `al`/`ax`/`eax`/`rax` with `[rdi]`.
    Scas,
}

/// The repeat prefix of a string instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Repeat {
    /// One element.
    Once,
    /// `rep`: `rcx` elements.
    Count,
    /// `repe`/`repz` (cmps, scas): at most `rcx` elements, stops at the first difference.
    WhileEqual,
    /// `repne`/`repnz` (cmps, scas): at most `rcx` elements, stops at the first match.
    WhileNotEqual,
}

/// A string instruction: what it does per element, the element size and its repeat prefix.
/// Its timing is per executed instruction, from the element count (see the machine's `[strings]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StringOp {
    pub kind: StringKind,
    /// Bytes per element: 1, 2, 4 or 8.
    pub element_bytes: u8,
    pub repeat: Repeat,
}

impl StringOp {
    /// Whether it repeats (a prefix that runs it `rcx` times at most).
    pub fn repeats(&self) -> bool {
        self.repeat != Repeat::Once
    }
}

/// A memory operand as encoded (addresses are only known at run time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemOperand {
    pub base: Option<RegId>,
    pub index: Option<RegId>,
    pub scale: u8,
    pub displacement: i64,
    /// Access size in bytes (0 when the form does not fix it, e.g. `lea`-like or string ops).
    pub size: u32,
    pub access: MemAccess,
    pub rip_relative: bool,
    /// Gathers/scatters: one element access per lane.
    pub vsib: bool,
}

/// One decoded x86-64 instruction with the facts the model needs.
#[derive(Debug, Clone, Serialize)]
pub struct DecodedInst {
    pub address: u64,
    pub len: u8,
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// Lower-case mnemonic, e.g. `vaddsd`.
    pub mnemonic: String,
    /// Intel-syntax text, e.g. `vaddsd xmm0, xmm0, qword ptr [rdx+rax+8]`.
    pub asm: String,
    /// Lookup key into a machine's instruction-form table, e.g. `vaddsd xmm, xmm, m64`.
    pub form: String,
    /// Registers read as data (including flags and implicit operands).
    pub data_reads: Vec<RegId>,
    /// Registers read only to compute memory addresses.
    pub addr_reads: Vec<RegId>,
    pub writes: Vec<RegId>,
    /// Base registers updated by pre/post-index writeback (AArch64): ready one cycle
    /// after the address is computed, not when the load's data arrives.
    pub address_writes: Vec<RegId>,
    pub mem: Vec<MemOperand>,
    pub branch: BranchKind,
    pub branch_target: Option<u64>,
    /// Widest vector register or memory operand in bits: 0 (scalar GPR), 64, 128, 256, 512.
    pub vector_bits: u16,
    pub fp: FpClass,
    /// Floating-point operations performed (lanes × 2 for FMA), 0 for non-FP-arithmetic.
    pub flops: u16,
    pub fma: bool,
    /// The register an FMA accumulates into when it is also its destination and
    /// no multiplicand (`fmla v0.2d, v1.2d, v2.2d`, `fmadd d0, d1, d2, d0`): the
    /// operand cores forward late between chained FMAs. None elsewhere (and on x86-64).
    pub accumulator: Option<RegId>,
    /// An AVX-512 instruction: EVEX-encoded, or one that works on mask registers.
    pub avx512: bool,
    /// AVX-512 write mask register number (1..7), if any.
    pub mask: Option<u8>,
    pub zeroing_mask: bool,
    /// Result does not depend on sources (xor r,r; pcmpeq x,x; ...).
    pub dep_breaking: bool,
    /// A zeroing idiom that a renamer can execute without a port (xor r,r; vxorps x,x,x).
    pub zero_idiom: bool,
    /// Register-to-register move a renamer may eliminate.
    pub move_candidate: bool,
    /// ALU op that can macro-fuse with a following conditional branch (cmp/test/add/...).
    pub macro_fusible: bool,
    pub is_nop: bool,
    /// Integer or FP divide / square root (uses a divider unit on most cores).
    pub is_divide: bool,
    /// The stack pointer update of push/pop/call/ret is done by a stack engine, so it is not
    /// a data dependency here (the implicit RSP accesses are left out of reads/writes).
    pub stack_op: bool,
    /// A string instruction (`movs`, `stos`, `lods`, `cmps`, `scas`, repeated or not).
    pub string_op: Option<StringOp>,
}

impl DecodedInst {
    pub fn loads(&self) -> bool {
        self.mem.iter().any(|m| m.access != MemAccess::Store)
    }
    pub fn stores(&self) -> bool {
        self.mem.iter().any(|m| m.access != MemAccess::Load)
    }
    pub fn is_branch(&self) -> bool {
        self.branch != BranchKind::None
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    #[error("invalid instruction bytes at 0x{address:x} ({bytes})")]
    Invalid { address: u64, bytes: String },
    /// A valid word of an extension the decoder does not cover (AArch64 SME).
    #[error("{extension} instruction {word:#010x} at 0x{address:x} is not decoded (no SME decoding): build without +sme to analyze this code")]
    NotCovered { address: u64, word: u32, extension: aarch64::A64Extension },
    #[error("truncated instruction at 0x{address:x}: block ends in the middle of an instruction")]
    Truncated { address: u64 },
    #[error("no instructions to decode")]
    Empty,
}

/// The form name of bytes the decoder cannot decode: the uncovered A64 extension
/// they belong to ([`aarch64::A64Extension::form`]), else `(undecodable)`.
pub fn undecodable_form(isa: Isa, bytes: &[u8]) -> &'static str {
    match (isa, bytes) {
        (Isa::Aarch64, [a, b, c, d, ..]) => aarch64::extension_of(u32::from_le_bytes([*a, *b, *c, *d])).map_or(UNDECODABLE, aarch64::A64Extension::form),
        _ => UNDECODABLE,
    }
}

/// The form name of bytes no decoder of ours covers.
pub const UNDECODABLE: &str = "(undecodable)";

/// The SVE vector length in bits the `*_for` entry points assume: that of the
/// Neoverse V2 and N2 (the `*_vl` ones take the length the program runs with).
pub const DEFAULT_SVE_BITS: u16 = 128;

/// Decodes a whole block of code of `isa` starting at `address`.
pub fn decode_block_for(isa: Isa, bytes: &[u8], address: u64) -> Result<Vec<DecodedInst>, DecodeError> {
    decode_block_vl(isa, bytes, address, DEFAULT_SVE_BITS)
}

/// [`decode_block_for`] with SVE registers `sve_bits` wide (ignored on x86-64).
pub fn decode_block_vl(isa: Isa, bytes: &[u8], address: u64, sve_bits: u16) -> Result<Vec<DecodedInst>, DecodeError> {
    match isa {
        Isa::X86_64 => decode_block(bytes, address),
        Isa::Aarch64 => aarch64::decode_block(bytes, address, sve_bits),
    }
}

/// [`decode_lenient`] for any ISA.
pub fn decode_lenient_for(isa: Isa, bytes: &[u8], address: u64) -> Vec<DecodedInst> {
    decode_lenient_vl(isa, bytes, address, DEFAULT_SVE_BITS)
}

/// [`decode_lenient_for`] with SVE registers `sve_bits` wide (ignored on x86-64).
pub fn decode_lenient_vl(isa: Isa, bytes: &[u8], address: u64, sve_bits: u16) -> Vec<DecodedInst> {
    match isa {
        Isa::X86_64 => decode_lenient(bytes, address),
        Isa::Aarch64 => aarch64::decode_lenient(bytes, address, sve_bits),
    }
}

/// [`decode_one`] for any ISA.
pub fn decode_one_for(isa: Isa, bytes: &[u8], address: u64) -> Result<DecodedInst, DecodeError> {
    decode_one_vl(isa, bytes, address, DEFAULT_SVE_BITS)
}

/// [`decode_one_for`] with SVE registers `sve_bits` wide (ignored on x86-64).
pub fn decode_one_vl(isa: Isa, bytes: &[u8], address: u64, sve_bits: u16) -> Result<DecodedInst, DecodeError> {
    match isa {
        Isa::X86_64 => decode_one(bytes, address),
        Isa::Aarch64 => aarch64::decode_one(bytes, address, sve_bits),
    }
}

/// Decodes a whole block of x86-64 code starting at `address`.
pub fn decode_block(bytes: &[u8], address: u64) -> Result<Vec<DecodedInst>, DecodeError> {
    if bytes.is_empty() {
        return Err(DecodeError::Empty);
    }
    decode_all(bytes, address, |decoder, offset| {
        // Addresses wrap like the decoder's instruction pointer does.
        let ip = address.wrapping_add(offset as u64);
        if decoder.last_error() == iced_x86::DecoderError::NoMoreBytes {
            return Err(DecodeError::Truncated { address: ip });
        }
        Err(DecodeError::Invalid { address: ip, bytes: hex(&bytes[offset..(offset + 15).min(bytes.len())]) })
    })
}

/// Decodes a whole code section, skipping bytes that do not decode (padding,
/// data in text): for surveys of the forms a program contains, not for timing.
pub fn decode_lenient(bytes: &[u8], address: u64) -> Vec<DecodedInst> {
    let resync = |decoder: &mut Decoder<'_>, offset: usize| {
        // resynchronise one byte further on
        let next = (offset + 1).min(bytes.len());
        let _ = decoder.set_position(next);
        decoder.set_ip(address.wrapping_add(next as u64));
        Ok(())
    };
    decode_all(bytes, address, resync).unwrap_or_default()
}

/// The decode loop of a block; `on_invalid` decides what an undecodable
/// instruction at `offset` does: an error ends the block, `Ok` goes on from
/// wherever it left the decoder.
fn decode_all(
    bytes: &[u8],
    address: u64,
    mut on_invalid: impl FnMut(&mut Decoder<'_>, usize) -> Result<(), DecodeError>,
) -> Result<Vec<DecodedInst>, DecodeError> {
    let mut decoder = Decoder::with_ip(64, bytes, address, DecoderOptions::NONE);
    let mut out = Vec::new();
    let mut ctx = DecodeContext::new();
    let mut instr = Instruction::default();
    while decoder.can_decode() {
        let offset = decoder.position();
        decoder.decode_out(&mut instr);
        if instr.is_invalid() {
            on_invalid(&mut decoder, offset)?;
            continue;
        }
        out.push(ctx.convert(&instr, &bytes[offset..offset + instr.len()]));
    }
    Ok(out)
}

/// Decodes one instruction at the start of `bytes` (used by the dynamic frontend,
/// which sees instructions one at a time at translation).
pub fn decode_one(bytes: &[u8], address: u64) -> Result<DecodedInst, DecodeError> {
    let mut decoder = Decoder::with_ip(64, bytes, address, DecoderOptions::NONE);
    let instr = decoder.decode();
    if instr.is_invalid() {
        if decoder.last_error() == iced_x86::DecoderError::NoMoreBytes {
            return Err(DecodeError::Truncated { address });
        }
        return Err(DecodeError::Invalid { address, bytes: hex(&bytes[..bytes.len().min(15)]) });
    }
    Ok(DecodeContext::new().convert(&instr, &bytes[..instr.len()]))
}

pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

/// Reusable iced helpers (formatter, info factory) so a block decodes without
/// rebuilding them per instruction.
pub struct DecodeContext {
    formatter: IntelFormatter,
    info: iced_x86::InstructionInfoFactory,
}

impl Default for DecodeContext {
    fn default() -> Self {
        Self::new()
    }
}

impl DecodeContext {
    pub fn new() -> Self {
        let mut formatter = IntelFormatter::new();
        formatter.options_mut().set_space_after_operand_separator(true);
        formatter.options_mut().set_rip_relative_addresses(true);
        Self { formatter, info: iced_x86::InstructionInfoFactory::new() }
    }

    pub fn convert(&mut self, instr: &Instruction, bytes: &[u8]) -> DecodedInst {
        let mut asm = String::new();
        self.formatter.format(instr, &mut asm);
        let info = self.info.info(instr);
        classify::build(instr, info, bytes, asm)
    }
}
