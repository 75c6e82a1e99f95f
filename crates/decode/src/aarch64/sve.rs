//! SVE and SVE2 (the A64 encoding space with `op0` = 0010) through `disarm64`, whose
//! tables are binutils' and cover the whole SVE/SVE2 space; yaxpeax-arm decodes the rest
//! of A64. Operands come from disarm64's definition of the encoding
//! ([`sve_operands`](super::sve_operands)), what the operation does with them from its
//! mnemonic (the Arm ARM's pseudocode, summarised here).
//!
//! A z register is as wide as the vector length (VL) the program runs with, which is not
//! in the encoding: callers pass it (QEMU's `-cpu ...,sve128=on` gives 128 bits). FLOPs
//! and access sizes count every lane as active: the governing predicate's value is a run
//! time fact the decoder does not see.

use super::sve_operands::{self, AddrReg, Governing, SveOperand};
use super::{gpr, push_unique, vreg, INSTRUCTION_BYTES};
use crate::regs::{self, RegId};
use crate::{BranchKind, DecodedInst, FpClass, MemAccess, MemOperand};
use disarm64::InsnOpcode;

/// What an SVE load or store moves, from its mnemonic (`ld1d`, `ldff1sw`, `ld1rqw`, `st4d`, `ldr`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Transfer {
    access: MemAccess,
    /// Bytes of one memory element (`ld1b` 1, `ld1sw` 4, `ld1d` 8).
    element_bytes: u32,
    registers: u32,
    /// A fixed access size: `ld1rq*` 16 bytes, `ld1ro*` 32, `ld1r*` one element.
    fixed_bytes: Option<u32>,
    /// `ldr`/`str` of a whole z (VL/8 bytes) or p (VL/64 bytes) register.
    whole_register: bool,
    /// First-fault and non-fault loads (`ldff1*`, `ldnf1*`) read and update the FFR.
    first_fault: bool,
}

fn transfer(m: &str) -> Option<Transfer> {
    let whole = |access| Transfer {
        access,
        element_bytes: 1,
        registers: 1,
        fixed_bytes: None,
        whole_register: true,
        first_fault: false,
    };
    match m {
        "ldr" => return Some(whole(MemAccess::Load)),
        "str" => return Some(whole(MemAccess::Store)),
        _ => {}
    }
    let (access, rest) = match (m.strip_prefix("ld"), m.strip_prefix("st")) {
        (Some(r), _) => (MemAccess::Load, r),
        (_, Some(r)) => (MemAccess::Store, r),
        _ => return None,
    };
    let (first_fault, rest) = match (rest.strip_prefix("ff"), rest.strip_prefix("nf")) {
        (Some(r), _) | (_, Some(r)) => (true, r),
        _ => (false, rest.strip_prefix("nt").unwrap_or(rest)),
    };
    let registers = rest.chars().next()?.to_digit(10)?;
    let rest = &rest[1..];
    let (fixed, rest) = if let Some(r) = rest.strip_prefix("rq") {
        (Some(16), r)
    } else if let Some(r) = rest.strip_prefix("ro") {
        (Some(32), r)
    } else if let Some(r) = rest.strip_prefix('r') {
        (Some(0), r) // one element, set below
    } else {
        (None, rest)
    };
    let element_bytes = match rest.trim_start_matches('s') {
        "b" => 1,
        "h" => 2,
        "w" => 4,
        "d" => 8,
        "q" => 16,
        _ => return None,
    };
    let fixed_bytes = fixed.map(|b| if b == 0 { element_bytes } else { b });
    Some(Transfer { access, element_bytes, registers, fixed_bytes, whole_register: false, first_fault })
}

/// Operations that set NZCV: integer compares, `while*`, predicate tests, and the
/// flag-setting predicate operations (the `s` forms).
fn sets_flags(m: &str) -> bool {
    m.starts_with("cmp")
        || m.starts_with("while")
        || matches!(
            m,
            "ptest" | "ptrues" | "pfirst" | "pnext" | "rdffrs" | "ands" | "bics" | "eors" | "nands" | "nors" | "orns"
                | "orrs" | "movs" | "nots" | "brkas" | "brkbs" | "brkns" | "brkpas" | "brkpbs" | "ctermeq"
                | "ctermne" | "match" | "nmatch"
        )
}

/// Operations without a destination register.
fn no_destination(m: &str) -> bool {
    matches!(m, "ptest" | "ctermeq" | "ctermne" | "wrffr" | "setffr")
}

/// Operations whose destination is also an input though the text names it once:
/// accumulations, inserts, counts added to a register, and the narrowing `*nt` forms
/// (they write the odd elements and keep the even ones).
fn reads_destination(m: &str) -> bool {
    let inc_dec = {
        let core = m.trim_start_matches("sq").trim_start_matches("uq");
        (core.starts_with("inc") || core.starts_with("dec")) && core.len() == 4
    };
    let narrow_top = m.ends_with("nt") && !m.ends_with("cnt");
    inc_dec
        || narrow_top
        || is_fma(m)
        || matches!(
            m,
            "insr" | "mla" | "mls" | "sdot" | "udot" | "usdot" | "sudot" | "smmla" | "ummla" | "usmmla" | "cdot"
                | "cmla" | "sqrdcmlah" | "sqdmlalb" | "sqdmlalt" | "sqdmlalbt" | "sqdmlslb" | "sqdmlslt"
                | "sqdmlslbt" | "sqrdmlah" | "sqrdmlsh" | "smlalb" | "smlalt" | "smlslb" | "smlslt" | "umlalb"
                | "umlalt" | "umlslb" | "umlslt" | "saba" | "uaba" | "sabalb" | "sabalt" | "uabalb" | "uabalt"
                | "ssra" | "usra" | "srsra" | "ursra" | "sri" | "sli" | "tbx" | "adclb" | "adclt" | "sbclb"
                | "sbclt" | "bfdot" | "bfmmla" | "bfmlalb" | "bfmlalt" | "fcmla"
        )
}

/// Floating-point multiply-adds: two operations a lane.
fn is_fma(m: &str) -> bool {
    matches!(
        m,
        "fmla" | "fmls" | "fnmla" | "fnmls" | "fmad" | "fmsb" | "fnmad" | "fnmsb" | "fmlalb" | "fmlalt" | "fmlslb"
            | "fmlslt" | "fmmla"
    )
}

/// Floating-point arithmetic other than FMA (not moves, conversions or compares).
fn is_fp_arith(m: &str) -> bool {
    is_fma(m)
        || m.starts_with("frint")
        || matches!(
            m,
            "fadd" | "fsub" | "fsubr" | "fmul" | "fmulx" | "fdiv" | "fdivr" | "fsqrt" | "fmax" | "fmin" | "fmaxnm"
                | "fminnm" | "fabd" | "fadda" | "faddv" | "fmaxv" | "fminv" | "fmaxnmv" | "fminnmv" | "faddp"
                | "fmaxp" | "fminp" | "fmaxnmp" | "fminnmp" | "fcadd" | "fcmla" | "frecpe" | "frecps" | "frecpx"
                | "frsqrte" | "frsqrts" | "fscale" | "ftsmul" | "fexpa"
        )
}

/// The FMAs whose destination is the addend (`fmla z0.d, p0/m, z1.d, z2.d`), not a
/// multiplicand (`fmad`): the operand chained FMAs forward late.
fn accumulates_into_destination(m: &str) -> bool {
    matches!(m, "fmla" | "fmls" | "fnmla" | "fnmls" | "fmlalb" | "fmlalt" | "fmlslb" | "fmlslt")
}

fn is_divide(m: &str) -> bool {
    matches!(m, "fdiv" | "fdivr" | "fsqrt" | "sdiv" | "sdivr" | "udiv" | "udivr")
}

/// The registers a register operand names (none for memory and immediates).
fn operand_regs(o: &SveOperand) -> impl Iterator<Item = RegId> + '_ {
    let (first, count, fixed): (u8, u8, Option<RegId>) = match *o {
        SveOperand::Z { first, count, .. } => (first, count, None),
        SveOperand::P { n, .. } => (0, 0, Some(regs::ARM_P_BASE + n)),
        SveOperand::Gpr { n: Some(n), .. } => (0, 0, gpr(n as u16, true)),
        SveOperand::Fp { n, .. } => (0, 0, Some(vreg(n as u16))),
        _ => (0, 0, None),
    };
    (0..count).map(move |k| vreg(((first + k) % 32) as u16)).chain(fixed)
}

fn addr_reg(r: AddrReg) -> RegId {
    match r {
        AddrReg::Scalar(n) => gpr(n as u16, true).expect("x0..x30 or sp"),
        AddrReg::Vector(n) => vreg(n as u16),
    }
}

/// Decodes a word of the SVE space, or None when it is not a valid SVE/SVE2 encoding.
pub(crate) fn decode(word: u32, bytes: &[u8], address: u64, vl_bits: u16) -> Option<DecodedInst> {
    let def = disarm64::decoder::decode(word)?.definition();
    let m = def.mnemonic;
    let prefetch = m.starts_with("prf");
    let moved = if prefetch { None } else { transfer(m) };
    let parsed = sve_operands::operands(def, word, moved.map_or(1, |t| t.registers as u8));
    let mnemonic = m.to_string();
    let texts: Vec<&str> = parsed.iter().map(|(_, t)| t.as_str()).collect();
    let asm = if texts.is_empty() { mnemonic.clone() } else { format!("{mnemonic} {}", texts.join(", ")) };
    let ops: Vec<SveOperand> = parsed.into_iter().map(|(o, _)| o).collect();
    let dest = !(prefetch || no_destination(m) || moved.is_some_and(|t| t.access == MemAccess::Store));
    let reads_dest = ops.iter().any(|o| matches!(o, SveOperand::P { governing: Governing::Merging, .. }))
        || (moved.is_none() && reads_destination(m));

    let mut data_reads = Vec::new();
    let mut addr_reads = Vec::new();
    let mut writes = Vec::new();
    let mut mem = Vec::new();
    for (i, o) in ops.iter().enumerate() {
        if let SveOperand::Mem { base, index, shift, .. } = *o {
            for r in [base, index].into_iter().flatten() {
                push_unique(&mut addr_reads, addr_reg(r));
            }
            if let Some(t) = moved {
                let vector = [base, index].iter().any(|r| matches!(r, Some(AddrReg::Vector(_))));
                mem.push(MemOperand {
                    base: base.map(addr_reg),
                    index: index.map(addr_reg),
                    scale: 1u8 << shift.min(7),
                    displacement: 0,
                    size: access_bytes(&t, ops.first(), vl_bits),
                    access: t.access,
                    rip_relative: false,
                    vsib: vector,
                });
            }
            continue;
        }
        let written = dest && i == 0;
        for r in operand_regs(o) {
            if written {
                push_unique(&mut writes, r);
                if reads_dest {
                    push_unique(&mut data_reads, r);
                }
            } else {
                push_unique(&mut data_reads, r);
            }
        }
    }
    if sets_flags(m) {
        push_unique(&mut writes, regs::ARM_NZCV);
    }
    let ffr_read = m.starts_with("rdffr") || moved.is_some_and(|t| t.first_fault);
    let ffr_written = matches!(m, "setffr" | "wrffr") || moved.is_some_and(|t| t.first_fault);
    if ffr_read {
        push_unique(&mut data_reads, regs::ARM_FFR);
    }
    if ffr_written {
        push_unique(&mut writes, regs::ARM_FFR);
    }

    let has_z = ops.iter().any(|o| {
        matches!(o, SveOperand::Z { .. })
            || matches!(o, SveOperand::Mem { base, index, .. } if [base, index].iter().any(|r| matches!(r, Some(AddrReg::Vector(_)))))
    });
    let has_p = ops.iter().any(|o| matches!(o, SveOperand::P { .. }));
    let vector_bits = if has_z { vl_bits } else if has_p { vl_bits / 8 } else { 0 };
    let (fp, flops) = fp_facts(m, &ops, vl_bits);
    let fma = is_fma(m) && fp != FpClass::None;
    let accumulator = match ops.as_slice() {
        [SveOperand::Z { first, list: false, .. }, sources @ ..] if fma && accumulates_into_destination(m) => {
            let multiplicand = sources.iter().any(|s| matches!(s, SveOperand::Z { first: f, .. } if f == first));
            (!multiplicand).then(|| vreg(*first as u16))
        }
        _ => None,
    };
    let form = if ops.is_empty() {
        mnemonic.clone()
    } else {
        format!("{mnemonic} {}", ops.iter().map(sve_operands::class).collect::<Vec<_>>().join(", "))
    };
    Some(DecodedInst {
        address,
        len: INSTRUCTION_BYTES as u8,
        bytes: bytes.to_vec(),
        asm,
        form,
        data_reads,
        addr_reads,
        writes,
        address_writes: Vec::new(),
        mem,
        branch: BranchKind::None,
        branch_target: None,
        vector_bits,
        fp,
        flops,
        fma,
        accumulator,
        avx512: false,
        mask: None,
        zeroing_mask: false,
        dep_breaking: false,
        zero_idiom: false,
        move_candidate: false,
        macro_fusible: false,
        is_nop: prefetch,
        is_divide: is_divide(m),
        stack_op: false,
        string_op: None,
        mnemonic,
    })
}

/// Bytes a load or store moves with every lane active: contiguous and gather/scatter
/// accesses move one memory element per lane of the (first) transfer register.
fn access_bytes(t: &Transfer, first: Option<&SveOperand>, vl_bits: u16) -> u32 {
    let vl_bytes = vl_bits as u32 / 8;
    if t.whole_register {
        return match first {
            Some(SveOperand::P { .. }) => vl_bytes / 8,
            _ => vl_bytes,
        };
    }
    if let Some(b) = t.fixed_bytes {
        return b;
    }
    let lane_bits = match first {
        Some(SveOperand::Z { elem_bits, .. }) if *elem_bits > 0 => *elem_bits as u32,
        _ => t.element_bytes * 8,
    };
    (vl_bits as u32 / lane_bits) * t.element_bytes * t.registers
}

/// FP class and operations of FP arithmetic, from the element size of the destination
/// (or, for reductions into a scalar, of the vector reduced).
fn fp_facts(m: &str, ops: &[SveOperand], vl_bits: u16) -> (FpClass, u16) {
    if !is_fp_arith(m) {
        return (FpClass::None, 0);
    }
    let elem = ops.iter().find_map(|o| match o {
        SveOperand::Z { elem_bits, .. } if *elem_bits > 0 => Some(*elem_bits),
        _ => None,
    });
    let class = match elem {
        Some(16) => FpClass::PackedHalf,
        Some(32) => FpClass::PackedSingle,
        Some(64) => FpClass::PackedDouble,
        _ => return (FpClass::None, 0),
    };
    let lanes = vl_bits / elem.unwrap_or(64);
    // a strictly ordered reduction (`fadda`) or a tree reduction (`faddv`) adds every lane once
    (class, lanes * if is_fma(m) { 2 } else { 1 })
}
