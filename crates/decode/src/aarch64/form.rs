//! AArch64 form keys: the operation and its operand classes, e.g. `fmla v.2d, v.2d, v.2d`,
//! `ldr d, m64 post`, `add x, x, x lsl`. Registers are classed by their view (`x`, `w`,
//! `d`, `v.4s`), memory by its access size and addressing mode (base + offset, pre-index,
//! post-index, register offset), which is what the scheduling models distinguish.

use yaxpeax_arm::armv8::a64::{Operand, SIMDSizeCode, SizeCode};

pub(crate) fn form_key(mnemonic: &str, ops: &[Operand]) -> String {
    let mut key = mnemonic.to_string();
    // memory is classed by mode here and sized by `sized_memory` (the access size
    // depends on the operation and all its transfer registers)
    for (i, o) in ops.iter().enumerate() {
        key.push_str(if i == 0 { " " } else { ", " });
        key.push_str(&operand_class(o));
    }
    key
}

fn gpr(s: SizeCode) -> &'static str {
    match s {
        SizeCode::X => "x",
        SizeCode::W => "w",
    }
}

fn scalar(s: SIMDSizeCode) -> &'static str {
    match s {
        SIMDSizeCode::B => "b",
        SIMDSizeCode::H => "h",
        SIMDSizeCode::S => "s",
        SIMDSizeCode::D => "d",
        SIMDSizeCode::Q => "q",
    }
}

/// `v.4s`, `v.8b`: the arrangement of a vector of `elem` in a `v`-sized register.
fn arrangement(v: SIMDSizeCode, e: SIMDSizeCode) -> String {
    let bytes = |s: SIMDSizeCode| match s {
        SIMDSizeCode::B => 1,
        SIMDSizeCode::H => 2,
        SIMDSizeCode::S => 4,
        SIMDSizeCode::D => 8,
        SIMDSizeCode::Q => 16,
    };
    format!("v.{}{}", bytes(v) / bytes(e), scalar(e))
}

fn operand_class(o: &Operand) -> String {
    match *o {
        Operand::Register(s, _) | Operand::RegisterOrSP(s, _) => gpr(s).into(),
        Operand::RegisterPair(s, _) => format!("{}pair", gpr(s)),
        Operand::RegShift(style, amount, s, _) => {
            let style = format!("{style:?}").to_lowercase();
            if amount == 0 && style == "lsl" {
                gpr(s).into()
            } else {
                format!("{} {style}", gpr(s))
            }
        }
        Operand::SIMDRegister(s, _) => scalar(s).into(),
        Operand::SIMDRegisterElements(v, _, e) => arrangement(v, e),
        Operand::SIMDRegisterElementsLane(_, _, e, _) | Operand::SIMDRegisterElementsMultipleLane(_, _, e, _, _) => {
            format!("v.{}[]", scalar(e))
        }
        Operand::SIMDRegisterGroup(v, _, e, n) => format!("{{{}}}x{n}", arrangement(v, e)),
        Operand::SIMDRegisterGroupLane(_, e, n, _) => format!("{{v.{}[]}}x{n}", scalar(e)),
        Operand::RegPreIndex(_, _, false) => "m".into(),
        Operand::RegPreIndex(_, _, true) => "m pre".into(),
        Operand::RegPostIndex(..) | Operand::RegPostIndexReg(..) => "m post".into(),
        Operand::RegRegOffset(..) => "m reg".into(),
        Operand::PCOffset(_) => "label".into(),
        Operand::ConditionCode(_) => "cond".into(),
        Operand::PrefetchOp(_) => "prfop".into(),
        Operand::SystemReg(_) => "sysreg".into(),
        _ => "imm".into(),
    }
}

/// Puts the access size into the memory classes of a key (`m` → `m64`), once the
/// transfer size is known.
pub(crate) fn sized_memory(key: &str, bytes: u32) -> String {
    if bytes == 0 {
        return key.to_string();
    }
    let Some((mnemonic, ops)) = key.split_once(' ') else { return key.to_string() };
    let ops: Vec<String> = ops
        .split(", ")
        .map(|o| match o.strip_prefix('m') {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => format!("m{}{rest}", bytes * 8),
            _ => o.to_string(),
        })
        .collect();
    format!("{mnemonic} {}", ops.join(", "))
}
