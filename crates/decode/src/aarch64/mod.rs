//! AArch64 (A64 with Advanced SIMD, SVE and SVE2) decoding into the same [`DecodedInst`]
//! as x86-64.
//!
//! Two decoders share the work. `yaxpeax-arm` (pure Rust, structured operands with
//! pre/post-index writeback, Arm-syntax text) decodes everything but SVE, which it does not
//! cover; the SVE encoding space (`op0` = 0010, SVE and SVE2) goes to `disarm64`
//! (pure Rust, binutils' opcode tables, [`sve`]). The comparison behind that choice
//! (coverage of a `gcc -march=armv9-a+sve2` build and decode speed of yaxpeax-arm,
//! disarm64 and bad64) is in `crates/decode/BENCH.md`. SME words are reported as
//! [`DecodeError::NotCovered`] ([`extension_of`]) and runs time them with the default form.
//!
//! Which operands an instruction reads and writes is not in the decoders' output; it
//! follows from the operation ([`roles`], and [`sve`] for SVE): operand 0 is the
//! destination except for stores, compares and branches, and accumulating or inserting
//! operations read it too.
//!
//! The width of SVE's z registers is the vector length the program runs with, which
//! the encoding does not say: the `*_vl` entry points take it in bits
//! ([`crate::DEFAULT_SVE_BITS`] elsewhere).

mod form;
mod roles;
mod sve;
mod sve_operands;

use crate::regs::{self, RegId};
use crate::{BranchKind, DecodeError, DecodedInst, FpClass, MemAccess, MemOperand};
use roles::Semantics;
use yaxpeax_arch::{Decoder, U8Reader};
use yaxpeax_arm::armv8::a64::{InstDecoder, Instruction, Opcode, Operand, SIMDSizeCode, ShiftStyle, SizeCode};

/// Every A64 instruction is one little-endian 32-bit word.
pub const INSTRUCTION_BYTES: usize = 4;

pub(crate) fn decode_block(bytes: &[u8], address: u64, sve_bits: u16) -> Result<Vec<DecodedInst>, DecodeError> {
    if bytes.is_empty() {
        return Err(DecodeError::Empty);
    }
    let decoder = InstDecoder::default();
    let mut out = Vec::with_capacity(bytes.len() / INSTRUCTION_BYTES);
    for (i, word) in bytes.chunks(INSTRUCTION_BYTES).enumerate() {
        let at = address.wrapping_add((i * INSTRUCTION_BYTES) as u64);
        if word.len() < INSTRUCTION_BYTES {
            return Err(DecodeError::Truncated { address: at });
        }
        out.push(decode_word(&decoder, word, at, sve_bits)?);
    }
    Ok(out)
}

/// Decodes every word of a code section, skipping those that do not decode (data in
/// text, SME): for surveys of the forms a program contains, not for timing.
pub(crate) fn decode_lenient(bytes: &[u8], address: u64, sve_bits: u16) -> Vec<DecodedInst> {
    let decoder = InstDecoder::default();
    bytes
        .chunks_exact(INSTRUCTION_BYTES)
        .enumerate()
        .filter_map(|(i, w)| decode_word(&decoder, w, address.wrapping_add((i * INSTRUCTION_BYTES) as u64), sve_bits).ok())
        .collect()
}

pub(crate) fn decode_one(bytes: &[u8], address: u64, sve_bits: u16) -> Result<DecodedInst, DecodeError> {
    if bytes.len() < INSTRUCTION_BYTES {
        return Err(DecodeError::Truncated { address });
    }
    decode_word(&InstDecoder::default(), &bytes[..INSTRUCTION_BYTES], address, sve_bits)
}

/// An FMA's accumulator when it is the destination and no multiplicand: operand 0
/// for the vector forms (`fmla v0, v1, v2`), operand 3 = operand 0 for the scalar
/// four-operand ones (`fmadd d0, d1, d2, d0`).
fn accumulator(sem: &Semantics, ops: &[Operand]) -> Option<RegId> {
    if !sem.fma {
        return None;
    }
    let reg = |op: &Operand| registers(op).ids().next();
    let dest = reg(ops.first()?)?;
    let four = !matches!(ops.get(3), None | Some(Operand::Nothing));
    if four && reg(&ops[3]) != Some(dest) {
        return None;
    }
    let multiplicands = [ops.get(1), ops.get(2)];
    multiplicands.iter().flatten().all(|op| reg(op) != Some(dest)).then_some(dest)
}

/// An A64 extension with an encoding space of its own (SVE's is decoded by [`sve`],
/// SME's is not decoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum A64Extension {
    /// The Scalable Vector Extension (SVE and SVE2 share its encoding space).
    Sve,
    /// The Scalable Matrix Extension.
    Sme,
}

impl A64Extension {
    /// The form name runs give such an instruction (timed as the machine's default form).
    pub fn form(self) -> &'static str {
        match self {
            A64Extension::Sve => "(SVE, not decoded)",
            A64Extension::Sme => "(SME, not decoded)",
        }
    }
}

impl std::fmt::Display for A64Extension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            A64Extension::Sve => "SVE",
            A64Extension::Sme => "SME",
        })
    }
}

/// The extension an A64 word belongs to, from the Arm ARM's top-level
/// decode table: `op0` (bits 28:25) = 0010 is the SVE space, and `op0` = 0000 with
/// bit 31 set is SME's.
pub fn extension_of(word: u32) -> Option<A64Extension> {
    match (word >> 25) & 0xf {
        0b0010 => Some(A64Extension::Sve),
        0b0000 if word >> 31 == 1 => Some(A64Extension::Sme),
        _ => None,
    }
}

fn decode_word(decoder: &InstDecoder, word: &[u8], address: u64, sve_bits: u16) -> Result<DecodedInst, DecodeError> {
    let w = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
    if extension_of(w) == Some(A64Extension::Sve) {
        return sve::decode(w, word, address, sve_bits).ok_or_else(|| DecodeError::Invalid { address, bytes: crate::hex(word) });
    }
    let mut reader = U8Reader::new(word);
    let mut instr = decoder.decode(&mut reader).map_err(|_| {
        match extension_of(w) {
            Some(extension) => DecodeError::NotCovered { address, word: w, extension },
            None => DecodeError::Invalid { address, bytes: crate::hex(word) },
        }
    })?;
    fix_word_extend(&mut instr);
    Ok(convert(&instr, word, address))
}

/// yaxpeax-arm 0.5 reports the `uxtw` extend of a 32-bit index register as `lsl` in
/// 64-bit adds and subtracts (`add x1, x2, w3, uxtw #2`): it tests the index register's
/// size where the Arm ARM's alias rule tests the operation's. A 64-bit operation on a
/// `w` register always extends it.
fn fix_word_extend(instr: &mut Instruction) {
    if !matches!(instr.opcode, Opcode::ADD | Opcode::SUB | Opcode::ADDS | Opcode::SUBS) {
        return;
    }
    let wide = matches!(instr.operands[0], Operand::Register(SizeCode::X, _) | Operand::RegisterOrSP(SizeCode::X, _));
    if let Operand::RegShift(style @ ShiftStyle::LSL, _, SizeCode::W, _) = &mut instr.operands[2] {
        if wide {
            *style = ShiftStyle::UXTW;
        }
    }
}

/// The operands that are present (yaxpeax pads the array with `Nothing`).
fn operands(instr: &Instruction) -> &[Operand] {
    let n = instr.operands.iter().position(|o| matches!(o, Operand::Nothing)).unwrap_or(4);
    &instr.operands[..n]
}

fn convert(instr: &Instruction, word: &[u8], address: u64) -> DecodedInst {
    let ops = operands(instr);
    let sem = roles::semantics(instr.opcode, ops);
    let mut data_reads: Vec<RegId> = Vec::new();
    let mut addr_reads: Vec<RegId> = Vec::new();
    let mut writes: Vec<RegId> = Vec::new();
    let mut address_writes: Vec<RegId> = Vec::new();
    let mut mem = Vec::new();
    let mut branch_target = None;
    let mut transfer_bytes = 0u32;
    let mut transfer_regs = 0u32;

    for (i, op) in ops.iter().enumerate() {
        let role = sem.role(i);
        if let Some(m) = memory_operand(op) {
            if sem.access.is_none() {
                continue; // a prefetch: no access the model waits for
            }
            for r in [m.base, m.index].into_iter().flatten() {
                push_unique(&mut addr_reads, r);
            }
            if m.writeback {
                push_unique(&mut address_writes, m.base.expect("writeback has a base"));
            }
            mem.push(MemOperand {
                base: m.base,
                index: m.index,
                scale: m.scale,
                displacement: m.displacement,
                size: 0, // set below from the transfer registers
                access: sem.access.unwrap_or(MemAccess::Load),
                rip_relative: false,
                vsib: false,
            });
            continue;
        }
        if let Operand::PCOffset(off) = op {
            let target = address.wrapping_add_signed(*off);
            if sem.access.is_some() {
                // a literal load: `ldr x0, label`
                mem.push(MemOperand {
                    base: None,
                    index: None,
                    scale: 1,
                    displacement: target as i64,
                    size: 0,
                    access: MemAccess::Load,
                    rip_relative: true,
                    vsib: false,
                });
            } else if sem.branch != BranchKind::None {
                branch_target = Some(target);
            }
            continue;
        }
        let regs = registers(op);
        if role.transfers() {
            transfer_bytes += regs.bytes;
            transfer_regs += regs.ids().count().max(1) as u32;
        }
        for r in regs.ids() {
            if role.reads() {
                push_unique(&mut data_reads, r);
            }
            if role.writes() {
                push_unique(&mut writes, r);
            }
        }
    }
    let size = match sem.access {
        Some(_) => sem.element_bytes.map_or(transfer_bytes, |b| b * transfer_regs.max(1)),
        None => 0,
    };
    for m in &mut mem {
        m.size = size;
    }
    for &r in sem.implicit_reads {
        push_unique(&mut data_reads, r);
    }
    for &r in sem.implicit_writes {
        push_unique(&mut writes, r);
    }

    let vector_bits = ops.iter().map(vector_bits).max().unwrap_or(0);
    let (fp, flops) = fp_facts(&sem, ops);
    let dep_breaking = sem.dep_breaking_if_same && same_sources(ops);
    if dep_breaking {
        data_reads.clear();
    }
    let mnemonic = format!("{:?}", instr.opcode).to_lowercase();
    let mnemonic = mnemonic.split('(').next().unwrap_or_default().to_string();
    DecodedInst {
        address,
        len: INSTRUCTION_BYTES as u8,
        bytes: word.to_vec(),
        asm: text(instr, address),
        form: form::sized_memory(&form::form_key(&mnemonic, ops), size),
        data_reads,
        addr_reads,
        writes,
        address_writes,
        mem,
        branch: sem.branch,
        branch_target,
        vector_bits,
        fp,
        flops,
        fma: sem.fma && fp != FpClass::None,
        accumulator: accumulator(&sem, ops),
        avx512: false,
        mask: None,
        zeroing_mask: false,
        dep_breaking,
        zero_idiom: false,
        move_candidate: is_move(instr.opcode, ops),
        macro_fusible: sem.sets_flags && !matches!(instr.opcode, Opcode::CCMP | Opcode::CCMN | Opcode::FCCMP | Opcode::FCCMPE),
        is_nop: matches!(instr.opcode, Opcode::HINT | Opcode::PRFM | Opcode::PRFUM),
        is_divide: matches!(instr.opcode, Opcode::UDIV | Opcode::SDIV | Opcode::FDIV | Opcode::FSQRT),
        stack_op: false,
        string_op: None,
        mnemonic,
    }
}

/// Arm-syntax text with branch targets as absolute addresses (yaxpeax prints `$+0x10`).
fn text(instr: &Instruction, address: u64) -> String {
    let s = instr.to_string();
    let Some(at) = s.find("$+").or_else(|| s.find("$-")) else { return s };
    let (head, tail) = s.split_at(at);
    let end = tail.find(|c: char| c == ',' || c == ' ').unwrap_or(tail.len());
    let off = &tail[2..end];
    let Ok(mag) = i64::from_str_radix(off.trim_start_matches("0x"), 16) else { return s };
    let off = if tail.as_bytes()[1] == b'-' { -mag } else { mag };
    format!("{head}0x{:x}{}", address.wrapping_add_signed(off), &tail[end..])
}

pub(super) fn push_unique(v: &mut Vec<RegId>, r: RegId) {
    if !v.contains(&r) {
        v.push(r);
    }
}

/// A general-purpose register operand: 31 is the zero register (not tracked) unless
/// the encoding means the stack pointer.
pub(super) fn gpr(n: u16, sp: bool) -> Option<RegId> {
    match n {
        0..=30 => Some(regs::ARM_X_BASE + n as u8),
        31 if sp => Some(regs::ARM_SP),
        _ => None,
    }
}

pub(super) fn vreg(n: u16) -> RegId {
    regs::ARM_V_BASE + (n as u8 & 31)
}

/// The registers an operand names and the bytes it transfers to or from memory.
struct Regs {
    ids: [Option<RegId>; 4],
    bytes: u32,
}

impl Regs {
    fn ids(&self) -> impl Iterator<Item = RegId> + '_ {
        self.ids.iter().flatten().copied()
    }
}

fn gpr_bytes(s: SizeCode) -> u32 {
    match s {
        SizeCode::X => 8,
        SizeCode::W => 4,
    }
}

fn simd_bytes(s: SIMDSizeCode) -> u32 {
    match s {
        SIMDSizeCode::B => 1,
        SIMDSizeCode::H => 2,
        SIMDSizeCode::S => 4,
        SIMDSizeCode::D => 8,
        SIMDSizeCode::Q => 16,
    }
}

fn registers(op: &Operand) -> Regs {
    let one = |r: Option<RegId>, bytes| Regs { ids: [r, None, None, None], bytes };
    let group = |first: u16, count: u8, each: u32| {
        let mut ids = [None; 4];
        for (k, id) in ids.iter_mut().enumerate().take(count.min(4) as usize) {
            *id = Some(vreg(first + k as u16));
        }
        Regs { ids, bytes: each * count as u32 }
    };
    match *op {
        Operand::Register(s, n) => one(gpr(n, false), gpr_bytes(s)),
        Operand::RegisterOrSP(s, n) => one(gpr(n, true), gpr_bytes(s)),
        // casp's even/odd pair
        Operand::RegisterPair(s, n) => {
            Regs { ids: [gpr(n, false), gpr(n + 1, false), None, None], bytes: 2 * gpr_bytes(s) }
        }
        Operand::RegShift(_, _, s, n) => one(gpr(n, false), gpr_bytes(s)),
        Operand::SIMDRegister(s, n) => one(Some(vreg(n)), simd_bytes(s)),
        Operand::SIMDRegisterElements(v, n, _) => one(Some(vreg(n)), simd_bytes(v)),
        Operand::SIMDRegisterElementsLane(_, n, e, _) | Operand::SIMDRegisterElementsMultipleLane(_, n, e, _, _) => {
            one(Some(vreg(n)), simd_bytes(e))
        }
        Operand::SIMDRegisterGroup(v, n, _, count) => group(n, count, simd_bytes(v)),
        Operand::SIMDRegisterGroupLane(n, e, count, _) => group(n, count, simd_bytes(e)),
        _ => Regs { ids: [None; 4], bytes: 0 },
    }
}

struct Mem {
    base: Option<RegId>,
    index: Option<RegId>,
    scale: u8,
    displacement: i64,
    writeback: bool,
}

fn memory_operand(op: &Operand) -> Option<Mem> {
    // the base of an address is the stack pointer when it is register 31
    let base = |n: u16| gpr(n, true);
    Some(match *op {
        Operand::RegPreIndex(b, off, wb) => Mem { base: base(b), index: None, scale: 1, displacement: off as i64, writeback: wb },
        Operand::RegPostIndex(b, _) => Mem { base: base(b), index: None, scale: 1, displacement: 0, writeback: true },
        Operand::RegPostIndexReg(b, i) => {
            Mem { base: base(b), index: gpr(i, false), scale: 1, displacement: 0, writeback: true }
        }
        Operand::RegRegOffset(b, i, _, _, shift) => {
            Mem { base: base(b), index: gpr(i, false), scale: 1u8 << shift.min(7), displacement: 0, writeback: false }
        }
        _ => return None,
    })
}

/// Bits of the widest SIMD/FP register operand: 0 for integer-only instructions.
fn vector_bits(op: &Operand) -> u16 {
    let bytes = match *op {
        Operand::SIMDRegister(s, _) => simd_bytes(s),
        Operand::SIMDRegisterElements(v, _, _)
        | Operand::SIMDRegisterElementsLane(v, _, _, _)
        | Operand::SIMDRegisterElementsMultipleLane(v, _, _, _, _)
        | Operand::SIMDRegisterGroup(v, _, _, _) => simd_bytes(v),
        Operand::SIMDRegisterGroupLane(_, e, _, _) => simd_bytes(e),
        _ => 0,
    };
    (bytes * 8) as u16
}

/// FP class and operations of FP arithmetic, from the destination's shape.
fn fp_facts(sem: &Semantics, ops: &[Operand]) -> (FpClass, u16) {
    if !sem.fp_arith {
        return (FpClass::None, 0);
    }
    let per_lane = if sem.fma { 2 } else { 1 };
    let (class, lanes) = match ops.first() {
        Some(Operand::SIMDRegister(s, _)) => (
            match s {
                SIMDSizeCode::H => FpClass::ScalarHalf,
                SIMDSizeCode::S => FpClass::ScalarSingle,
                SIMDSizeCode::D => FpClass::ScalarDouble,
                _ => return (FpClass::None, 0),
            },
            1,
        ),
        Some(Operand::SIMDRegisterElements(v, _, e)) => (
            match e {
                SIMDSizeCode::H => FpClass::PackedHalf,
                SIMDSizeCode::S => FpClass::PackedSingle,
                SIMDSizeCode::D => FpClass::PackedDouble,
                _ => return (FpClass::None, 0),
            },
            (simd_bytes(*v) / simd_bytes(*e)) as u16,
        ),
        _ => return (FpClass::None, 0),
    };
    (class, lanes * per_lane)
}

fn same_sources(ops: &[Operand]) -> bool {
    ops.len() == 3 && ops[1] == ops[2]
}

/// Register-to-register moves a renamer may eliminate: `mov x, y` (orr from the zero
/// register), `mov x, sp` (add #0), `mov v.16b, w.16b` (orr of a register with itself), `fmov d, d`.
fn is_move(op: Opcode, ops: &[Operand]) -> bool {
    match (op, ops) {
        (Opcode::ORR, [Operand::Register(_, _), Operand::Register(_, 31), Operand::Register(_, m)]) => *m != 31,
        (Opcode::ORR, [Operand::Register(_, _), Operand::Register(_, 31), Operand::RegShift(_, 0, _, m)]) => *m != 31,
        (Opcode::ADD, [Operand::RegisterOrSP(_, _), Operand::RegisterOrSP(_, _), Operand::Immediate(0)]) => true,
        (Opcode::ORR, [Operand::SIMDRegisterElements(..), a, b]) => a == b,
        (Opcode::FMOV, [Operand::SIMDRegister(..), Operand::SIMDRegister(..)]) => true,
        _ => false,
    }
}
