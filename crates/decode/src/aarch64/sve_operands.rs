//! The operands of an SVE instruction from disarm64's definition (binutils' operand
//! kinds, bit fields and qualifier rows) and the word: registers with their element
//! sizes, addresses, immediates, and their Arm-syntax text (disarm64 0.2 prints no SVE
//! operands). Field positions are the Arm ARM's encodings.

use disarm64::{Insn, InsnOperand};
use disarm64_defn::{InsnClass, InsnOperandClass, InsnOperandQualifier as Q};

/// How a predicate operand governs: `/m` keeps inactive lanes (the destination is read),
/// `/z` zeroes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Governing {
    Merging,
    Zeroing,
    /// `p1.d` or a bare `p0`: a predicate value or an unqualified governing predicate.
    Plain,
}

/// A register component of an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AddrReg {
    /// x0..x30, or 31 for sp.
    Scalar(u8),
    /// A vector of addresses or offsets (gathers and scatters).
    Vector(u8),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SveOperand {
    /// z registers: `first`, `count` consecutive (mod 32); element bits (0 when unqualified).
    Z { first: u8, count: u8, elem_bits: u16, list: bool, indexed: bool },
    P { n: u8, governing: Governing, elem_bits: u16 },
    /// x/w registers (None: the zero register); sp is `Some(31)`.
    Gpr { n: Option<u8>, bits: u16 },
    /// b/h/s/d/q scalar views of a vector register.
    Fp { n: u8, bits: u16 },
    Mem { base: Option<AddrReg>, index: Option<AddrReg>, shift: u8 },
    /// Immediates, patterns (`all`, `vl4`), prefetch operations.
    Other,
}

fn field(w: u32, lsb: u32, width: u32) -> u32 {
    (w >> lsb) & ((1 << width) - 1)
}

fn sign_extend(v: u32, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v as i64) << shift) >> shift
}

/// Index of the highest set bit (0 for 0: reserved size encodings decode as the smallest).
fn highest_bit(v: u32) -> u32 {
    31u32.saturating_sub(v.leading_zeros())
}

fn qual_bits(q: Q) -> u16 {
    match q {
        Q::S_B => 8,
        Q::S_H => 16,
        Q::S_S => 32,
        Q::S_D => 64,
        Q::S_Q => 128,
        Q::W => 32,
        Q::X | Q::SP | Q::WSP => 64,
        _ => 0,
    }
}

fn suffix(bits: u16) -> &'static str {
    match bits {
        8 => "b",
        16 => "h",
        32 => "s",
        64 => "d",
        128 => "q",
        _ => "",
    }
}

/// The qualifier row the encoding selects: binutils lists one row per element size (or
/// per size and merging/zeroing) and the class says which field picks it.
fn row(class: InsnClass, w: u32) -> usize {
    let size = field(w, 22, 2) as usize;
    let bit22 = field(w, 22, 1) as usize;
    match class {
        InsnClass::SVE_SIZE_BHSD | InsnClass::SVE_SIZE_BHS => size,
        InsnClass::SVE_SIZE_HSD => size.saturating_sub(1),
        InsnClass::SVE_SIZE_HSD2 => (field(w, 17, 2) as usize).saturating_sub(1),
        InsnClass::SVE_SIZE_SD | InsnClass::SVE_SIZE_BH => bit22,
        InsnClass::SVE_CPY => size * 2 + field(w, 14, 1) as usize,
        InsnClass::SVE_MOVPRFX => size * 2 + field(w, 16, 1) as usize,
        InsnClass::SVE_PRED_ZM => field(w, 4, 1) as usize,
        InsnClass::SVE_INDEX => field(w, 16, 5).trailing_zeros().min(4) as usize,
        InsnClass::SVE_SHIFT_UNPRED | InsnClass::SVE_SHIFT_TSZ_BHSD => {
            highest_bit(field(w, 22, 2) << 2 | field(w, 19, 2)) as usize
        }
        // the element of a logical immediate: N = 1 is 64-bit, else the leading ones of imms
        InsnClass::SVE_LIMM => {
            if field(w, 17, 1) == 1 {
                3
            } else {
                2usize.saturating_sub((field(w, 5, 6) << 26).leading_ones() as usize)
            }
        }
        InsnClass::SVE_SHIFT_PRED => highest_bit(field(w, 22, 2) << 2 | field(w, 8, 2)) as usize,
        InsnClass::SVE_SHIFT_TSZ_HSD | InsnClass::SVE_SIZE_TSZ_BHS => {
            highest_bit(field(w, 22, 1) << 2 | field(w, 19, 2)) as usize
        }
        _ => 0,
    }
}

/// The element size the class's size field gives, for operands listed without a
/// qualifier (`sel z0.d, p0, z1.d, z2.d`, `saddv d0, p0, z1.s`).
fn natural_bits(class: InsnClass, w: u32) -> u16 {
    let size = field(w, 22, 2);
    match class {
        InsnClass::SVE_SIZE_BHSD | InsnClass::SVE_SIZE_BHS | InsnClass::SVE_SIZE_HSD => 8 << size,
        InsnClass::SVE_SIZE_SD => 32 << field(w, 22, 1),
        InsnClass::SVE_SIZE_BH => 8 << field(w, 22, 1),
        _ => 0,
    }
}

fn qualifier(op: &InsnOperand, row: usize) -> Option<Q> {
    op.qualifiers.get(row.min(op.qualifiers.len().saturating_sub(1))).copied()
}

/// The value of the operand's first bit field (its register number for registers).
fn first_field(op: &InsnOperand, w: u32) -> u32 {
    op.bit_fields.first().map_or(0, |b| field(w, b.lsb as u32, b.width as u32))
}

const PATTERNS: [&str; 14] =
    ["pow2", "vl1", "vl2", "vl3", "vl4", "vl5", "vl6", "vl7", "vl8", "vl16", "vl32", "vl64", "vl128", "vl256"];

fn pattern(p: u32) -> String {
    match p {
        0..=13 => PATTERNS[p as usize].into(),
        29 => "mul4".into(),
        30 => "mul3".into(),
        31 => "all".into(),
        _ => format!("#{p}"),
    }
}

fn prefetch_op(p: u32) -> String {
    const OPS: [&str; 6] = ["l1keep", "l1strm", "l2keep", "l2strm", "l3keep", "l3strm"];
    match p {
        0..=5 => format!("pld{}", OPS[p as usize]),
        8..=13 => format!("pst{}", OPS[p as usize - 8]),
        _ => format!("#{p}"),
    }
}

/// VFPExpandImm of an 8-bit FP immediate: ±(16 + efgh)/16 × 2^n.
fn fp_imm8(imm8: u32) -> f64 {
    let sign = if imm8 & 0x80 != 0 { -1.0 } else { 1.0 };
    let b = (imm8 >> 6) & 1;
    let cd = ((imm8 >> 4) & 3) as i32;
    let n = if b == 0 { 1 + cd } else { -3 + cd };
    sign * (16 + (imm8 & 15)) as f64 / 16.0 * 2f64.powi(n)
}

fn fp_text(v: f64) -> String {
    format!("#{v:?}")
}

/// DecodeBitMasks of a logical immediate (N:immr:imms), as a 64-bit replicated value.
fn bitmask(n: u32, immr: u32, imms: u32) -> Option<u64> {
    let top = (n << 6) | (!imms & 0x3f);
    if top == 0 {
        return None;
    }
    let len = highest_bit(top);
    let esize = 1u32 << len;
    let levels = esize - 1;
    let s = imms & levels;
    let r = immr & levels;
    if s == levels {
        return None;
    }
    let ones = (1u64 << (s + 1)) - 1;
    let mask = if esize == 64 { u64::MAX } else { (1u64 << esize) - 1 };
    let elem = ((ones >> r) | (ones << ((esize - r) % esize))) & mask;
    let mut v = 0u64;
    let mut k = 0;
    while k < 64 {
        v |= elem << k;
        k += esize;
    }
    Some(v)
}

fn gpr_text(n: u8, bits: u16, sp: bool) -> String {
    let p = if bits == 32 { "w" } else { "x" };
    match (n, sp) {
        (31, true) => if bits == 32 { "wsp".into() } else { "sp".into() },
        (31, false) => format!("{p}zr"),
        _ => format!("{p}{n}"),
    }
}

/// Builds the operands of `def` for word `w` with their text; `registers` is the
/// number of registers of an `ld2`..`ld4`/`st2`..`st4` list.
pub(crate) fn operands(def: &Insn, w: u32, registers: u8) -> Vec<(SveOperand, String)> {
    let row = row(def.class, w);
    let natural = natural_bits(def.class, w);
    // element size of the first register operand, for addresses listed without one,
    // and of the first predicate, for predicate operands listed without one
    let mut lane_bits = 0u16;
    let mut pred_bits = 0u16;
    let mut out = Vec::with_capacity(def.operands.len());
    for op in def.operands {
        let name: &'static str = op.kind.into();
        let q = qualifier(op, row);
        let bits = q.map(qual_bits).filter(|&b| b > 0).unwrap_or(natural);
        let reg = first_field(op, w) as u8;
        let item = match op.class {
            InsnOperandClass::SVE_REG | InsnOperandClass::SVE_REGLIST => {
                z_operand(name, op, w, reg, bits, registers, def)
            }
            InsnOperandClass::PRED_REG => {
                let (governing, text) = match q {
                    Some(Q::P_M) => (Governing::Merging, format!("p{reg}/m")),
                    Some(Q::P_Z) => (Governing::Zeroing, format!("p{reg}/z")),
                    Some(q) if qual_bits(q) > 0 => (Governing::Plain, format!("p{reg}.{}", suffix(qual_bits(q)))),
                    // a governing predicate is untyped; other predicates without a qualifier
                    // take the size field's element or the first predicate's
                    _ if !name.starts_with("SVE_Pg") && !matches!(name, "SVE_Pt") => {
                        let b = if natural > 0 { natural } else if pred_bits > 0 { pred_bits } else { 8 };
                        (Governing::Plain, format!("p{reg}.{}", suffix(b)))
                    }
                    _ => (Governing::Plain, format!("p{reg}")),
                };
                let elem_bits = match (governing, text.split_once('.')) {
                    (Governing::Plain, Some((_, s))) => 8 << "bhsd".find(s).unwrap_or(0),
                    _ => 0,
                };
                if pred_bits == 0 {
                    pred_bits = elem_bits;
                }
                (SveOperand::P { n: reg & 15, governing, elem_bits }, text)
            }
            InsnOperandClass::INT_REG => {
                let bits = q.map(qual_bits).filter(|&b| b > 0).unwrap_or(64);
                let sp = name.ends_with("_SP");
                let n = if reg == 31 && !sp { None } else { Some(reg) };
                (SveOperand::Gpr { n, bits }, gpr_text(reg, bits, sp))
            }
            InsnOperandClass::SIMD_REG | InsnOperandClass::FP_REG | InsnOperandClass::SISD_REG => {
                let bits = if bits == 0 { 64 } else { bits };
                (SveOperand::Fp { n: reg, bits }, format!("{}{reg}", suffix(bits)))
            }
            InsnOperandClass::ADDRESS => address(name, op, w, lane_bits),
            _ => (SveOperand::Other, immediate(name, op, w, bits)),
        };
        if lane_bits == 0 {
            if let SveOperand::Z { elem_bits, .. } = item.0 {
                lane_bits = elem_bits;
            }
        }
        out.push(item);
    }
    out
}

fn z_operand(name: &str, op: &InsnOperand, w: u32, reg: u8, bits: u16, registers: u8, def: &Insn) -> (SveOperand, String) {
    let s = suffix(bits);
    let dot = if s.is_empty() { String::new() } else { format!(".{s}") };
    if name.ends_with("xN") {
        // a list: `{z1.d}`, `{z1.d, z2.d}`; the two-table `tbl` is the only other list of two
        let count = if def.mnemonic == "tbl" && field(w, 10, 6) == 0b001010 { 2 } else { registers.max(1) };
        let regs: Vec<String> = (0..count).map(|k| format!("z{}{dot}", (reg + k) % 32)).collect();
        let z = SveOperand::Z { first: reg, count, elem_bits: bits, list: true, indexed: false };
        return (z, format!("{{{}}}", regs.join(", ")));
    }
    if name.contains("INDEX") {
        let (n, index) = match name {
            // dup z0.d, z1.d[i]: imm2:tsz above the lowest set bit of tsz
            "SVE_Zn_INDEX" => {
                let imm = field(w, 22, 2) << 5 | field(w, 16, 5);
                let lsb = field(w, 16, 5).trailing_zeros();
                (reg, imm.checked_shr(lsb + 1).unwrap_or(0))
            }
            // the by-element forms: 3-bit zm with i2 (bits 20:19) or i3h:i3l, 4-bit zm with i1 (bit 20)
            "SVE_Zm3_INDEX" => {
                let i = if bits == 16 { field(w, 22, 1) << 2 | field(w, 19, 2) } else { field(w, 19, 2) };
                (reg & 7, i)
            }
            "SVE_Zm4_INDEX" => (reg & 15, field(w, 20, 1)),
            _ => (reg, 0),
        };
        let z = SveOperand::Z { first: n, count: 1, elem_bits: bits, list: false, indexed: true };
        return (z, format!("z{n}{dot}[{index}]"));
    }
    let _ = op;
    (SveOperand::Z { first: reg, count: 1, elem_bits: bits, list: false, indexed: false }, format!("z{reg}{dot}"))
}

/// `SVE_ADDR_<mode>`: RI (base + immediate, `xVL` in vector lengths), RR/RX (base + scaled
/// index), RZ (base + vector of offsets), ZI (vector of addresses + immediate), ZX
/// (vector of addresses + scalar offset), ZZ (`adr`, no access).
fn address(name: &str, op: &InsnOperand, w: u32, lane_bits: u16) -> (SveOperand, String) {
    let mode = name.trim_start_matches("SVE_ADDR_");
    let rn = field(w, 5, 5) as u8;
    let rm = field(w, 16, 5) as u8;
    let base = gpr_text(rn, 64, true);
    let elem = op.qualifiers.first().map(|&q| qual_bits(q)).filter(|&b| b > 0).unwrap_or(lane_bits.max(32));
    let es = suffix(elem);
    let lsl = |m: &str| m.rsplit("LSL").next().and_then(|d| d.parse::<u8>().ok()).unwrap_or(0);
    let scaled_imm = |v: i64| if v == 0 { format!("[{base}]") } else { format!("[{base}, #{v}]") };
    if let Some(rest) = mode.strip_prefix("RI_") {
        let mem = SveOperand::Mem { base: Some(AddrReg::Scalar(rn)), index: None, shift: 0 };
        let text = match rest {
            "S4xVL" | "S4x2xVL" | "S4x3xVL" | "S4x4xVL" => {
                let k = rest.as_bytes()[3].wrapping_sub(b'0');
                let k = if rest == "S4xVL" { 1 } else { k as i64 };
                let v = sign_extend(field(w, 16, 4), 4) * k;
                if v == 0 { format!("[{base}]") } else { format!("[{base}, #{v}, mul vl]") }
            }
            "S6xVL" => {
                let v = sign_extend(field(w, 16, 6), 6);
                if v == 0 { format!("[{base}]") } else { format!("[{base}, #{v}, mul vl]") }
            }
            "S9xVL" => {
                let v = sign_extend(field(w, 16, 6) << 3 | field(w, 10, 3), 9);
                if v == 0 { format!("[{base}]") } else { format!("[{base}, #{v}, mul vl]") }
            }
            "S4x16" => scaled_imm(sign_extend(field(w, 16, 4), 4) * 16),
            "S4x32" => scaled_imm(sign_extend(field(w, 16, 4), 4) * 32),
            _ => {
                // U6, U6x2, U6x4, U6x8 (ld1r*)
                let k = rest.rsplit('x').next().and_then(|d| d.parse::<i64>().ok()).filter(|_| rest.contains('x')).unwrap_or(1);
                scaled_imm(field(w, 16, 6) as i64 * k)
            }
        };
        return (mem, text);
    }
    if mode.starts_with("RR") || mode.starts_with("RX") || mode.starts_with("RM") {
        let shift = lsl(mode);
        let index = (rm != 31).then_some(AddrReg::Scalar(rm));
        let idx = gpr_text(rm, 64, false);
        let text = if shift > 0 { format!("[{base}, {idx}, lsl #{shift}]") } else { format!("[{base}, {idx}]") };
        return (SveOperand::Mem { base: Some(AddrReg::Scalar(rn)), index, shift }, text);
    }
    if let Some(rest) = mode.strip_prefix("RZ") {
        let (ext, shift) = if rest.starts_with("_XTW") {
            let xs_bit = if rest.ends_with("_14") { 14 } else { 22 };
            let ext = if field(w, xs_bit, 1) == 1 { "sxtw" } else { "uxtw" };
            let shift = rest.trim_start_matches("_XTW").chars().next().and_then(|c| c.to_digit(10)).unwrap_or(0) as u8;
            (Some(ext), shift)
        } else {
            (None, lsl(rest))
        };
        // 64-bit offsets (`lsl`, none) are .d; extended 32-bit ones follow the transfer's lanes
        let es = match (ext, op.qualifiers.is_empty()) {
            (None, _) => "d",
            (Some(_), true) => suffix(lane_bits.max(32)),
            (Some(_), false) => es,
        };
        let mut text = format!("[{base}, z{rm}.{es}");
        match (ext, shift) {
            (Some(e), 0) => text.push_str(&format!(", {e}")),
            (Some(e), s) => text.push_str(&format!(", {e} #{s}")),
            (None, 0) => {}
            (None, s) => text.push_str(&format!(", lsl #{s}")),
        }
        text.push(']');
        let mem = SveOperand::Mem { base: Some(AddrReg::Scalar(rn)), index: Some(AddrReg::Vector(rm)), shift };
        return (mem, text);
    }
    if let Some(rest) = mode.strip_prefix("ZI_U5") {
        let k = rest.strip_prefix('x').and_then(|d| d.parse::<i64>().ok()).unwrap_or(1);
        let v = field(w, 16, 5) as i64 * k;
        let text = if v == 0 { format!("[z{rn}.{es}]") } else { format!("[z{rn}.{es}, #{v}]") };
        return (SveOperand::Mem { base: Some(AddrReg::Vector(rn)), index: None, shift: 0 }, text);
    }
    if mode == "ZX" {
        let index = (rm != 31).then_some(AddrReg::Scalar(rm));
        let text = if rm == 31 { format!("[z{rn}.{es}]") } else { format!("[z{rn}.{es}, x{rm}]") };
        return (SveOperand::Mem { base: Some(AddrReg::Vector(rn)), index, shift: 0 }, text);
    }
    // ZZ_*: `adr z0.d, [z1.d, z2.d, lsl #1]` computes addresses without an access
    let shift = field(w, 10, 2);
    let ext = match mode {
        "ZZ_SXTW" => ", sxtw",
        "ZZ_UXTW" => ", uxtw",
        _ => ", lsl",
    };
    let tail = if shift == 0 && ext == ", lsl" { String::new() } else if shift == 0 { ext.into() } else { format!("{ext} #{shift}") };
    (SveOperand::Other, format!("[z{rn}.{es}, z{rm}.{es}{tail}]"))
}

fn immediate(name: &str, op: &InsnOperand, w: u32, bits: u16) -> String {
    let f = |lsb, width| field(w, lsb, width);
    match name {
        "SIMM5" => format!("#{}", sign_extend(f(16, 5), 5)),
        "SVE_SIMM5" => format!("#{}", sign_extend(f(5, 5), 5)),
        "SVE_SIMM5B" => format!("#{}", sign_extend(f(16, 5), 5)),
        "SVE_SIMM6" => format!("#{}", sign_extend(f(5, 6), 6)),
        "SVE_SIMM8" => format!("#{}", sign_extend(f(5, 8), 8)),
        "SVE_UIMM3" | "SVE_UIMM4" | "SVE_UIMM7" | "SVE_UIMM8" => format!("#{}", first_field(op, w)),
        "SVE_UIMM8_53" => format!("#{}", f(16, 5) << 3 | f(10, 3)),
        "SVE_AIMM" | "SVE_ASIMM" => {
            let v = if name == "SVE_AIMM" { f(5, 8) as i64 } else { sign_extend(f(5, 8), 8) };
            if f(13, 1) == 1 { format!("#{v}, lsl #8") } else { format!("#{v}") }
        }
        "SVE_FPIMM8" => fp_text(fp_imm8(f(5, 8))),
        "FPIMM0" => "#0.0".into(),
        "SVE_I1_HALF_ONE" => fp_text(if f(5, 1) == 1 { 1.0 } else { 0.5 }),
        "SVE_I1_HALF_TWO" => fp_text(if f(5, 1) == 1 { 2.0 } else { 0.5 }),
        "SVE_I1_ZERO_ONE" => fp_text(if f(5, 1) == 1 { 1.0 } else { 0.0 }),
        "SVE_IMM_ROT1" | "SVE_IMM_ROT3" => format!("#{}", if first_field(op, w) == 1 { 270 } else { 90 }),
        "SVE_IMM_ROT2" | "IMM_ROT2" => format!("#{}", first_field(op, w) * 90),
        "SVE_PATTERN" => pattern(f(5, 5)),
        "SVE_PATTERN_SCALED" => {
            let k = f(16, 4) + 1;
            if k == 1 { pattern(f(5, 5)) } else { format!("{}, mul #{k}", pattern(f(5, 5))) }
        }
        "SVE_PRFOP" => prefetch_op(f(0, 4)),
        "SVE_LIMM" | "SVE_INV_LIMM" | "SVE_LIMM_MOV" => match bitmask(f(17, 1), f(11, 6), f(5, 6)) {
            Some(v) => {
                let elem = if bits == 0 { 64 } else { bits as u32 };
                let v = if elem >= 64 { v } else { v & ((1u64 << elem) - 1) };
                format!("#0x{v:x}")
            }
            None => "#?".into(),
        },
        "SVE_SHLIMM_UNPRED" | "SVE_SHRIMM_UNPRED" | "SVE_SHLIMM_PRED" | "SVE_SHRIMM_PRED" => {
            // tsz:imm3 with tsz = tszh:tszl; the element is 8 << the highest set bit of tsz
            let low5 = if name.ends_with("_PRED") && !name.ends_with("UNPRED") { f(5, 5) } else { f(16, 5) };
            let value = f(22, 2) << 5 | low5;
            shift_text(name, value, value >> 3)
        }
        "SVE_SHLIMM_UNPRED_22" | "SVE_SHRIMM_UNPRED_22" => {
            let value = f(22, 1) << 5 | f(19, 2) << 3 | f(16, 3);
            shift_text(name, value, value >> 3)
        }
        _ => "#?".into(),
    }
}

fn shift_text(name: &str, value: u32, tsz: u32) -> String {
    if tsz == 0 {
        return "#?".into();
    }
    let esize = 8u32 << highest_bit(tsz);
    if name.contains("SHL") {
        format!("#{}", value - esize)
    } else {
        format!("#{}", 2 * esize - value)
    }
}

/// The form class of an operand: `z.d`, `z.d[]`, `{z.d}x2`, `p/m`, `p.b`, `x`, `d`, and
/// memory by mode only (`m`, `m reg`, `m vec`, `m zbase`): its size follows from the
/// mnemonic and the vector length, which the scheduling models do not key on.
pub(crate) fn class(o: &SveOperand) -> String {
    let dot = |bits: u16| if bits == 0 { String::new() } else { format!(".{}", suffix(bits)) };
    match o {
        SveOperand::Z { count, elem_bits, list: true, .. } => format!("{{z{}}}x{count}", dot(*elem_bits)),
        SveOperand::Z { elem_bits, indexed, .. } => format!("z{}{}", dot(*elem_bits), if *indexed { "[]" } else { "" }),
        SveOperand::P { governing: Governing::Merging, .. } => "p/m".into(),
        SveOperand::P { governing: Governing::Zeroing, .. } => "p/z".into(),
        SveOperand::P { elem_bits, .. } => format!("p{}", dot(*elem_bits)),
        SveOperand::Gpr { bits: 32, .. } => "w".into(),
        SveOperand::Gpr { .. } => "x".into(),
        SveOperand::Fp { bits, .. } => suffix(*bits).into(),
        SveOperand::Mem { base: Some(AddrReg::Vector(_)), .. } => "m zbase".into(),
        SveOperand::Mem { index: Some(AddrReg::Vector(_)), .. } => "m vec".into(),
        SveOperand::Mem { index: Some(AddrReg::Scalar(_)), .. } => "m reg".into(),
        SveOperand::Mem { .. } => "m".into(),
        SveOperand::Other => "imm".into(),
    }
}
