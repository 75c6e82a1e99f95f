//! Form keys: the text that names an instruction *form* (mnemonic plus operand
//! classes) in a machine's instruction table, e.g. `vaddsd xmm, xmm, m64`.
//! The importer and the decoder both derive keys here, so they always agree.

use iced_x86::{Instruction, OpKind, Register};

pub fn form_key(instr: &Instruction) -> String {
    let mut key = format!("{:?}", instr.mnemonic()).to_lowercase();
    for i in 0..instr.op_count() {
        key.push_str(if i == 0 { " " } else { ", " });
        key.push_str(&operand_class(instr, i));
    }
    key
}

fn operand_class(instr: &Instruction, i: u32) -> String {
    match instr.op_kind(i) {
        OpKind::Register => reg_class(instr.op_register(i)).to_string(),
        OpKind::Memory => {
            let ms = instr.memory_size();
            if instr.is_broadcast() {
                format!("m{}bcst", ms.element_size() * 8)
            } else if ms.size() == 0 {
                "m".to_string()
            } else {
                format!("m{}", ms.size() * 8)
            }
        }
        OpKind::NearBranch16 | OpKind::NearBranch32 | OpKind::NearBranch64 => "rel".into(),
        OpKind::FarBranch16 | OpKind::FarBranch32 => "far".into(),
        OpKind::MemorySegSI | OpKind::MemorySegESI | OpKind::MemorySegRSI | OpKind::MemorySegDI
        | OpKind::MemorySegEDI | OpKind::MemorySegRDI | OpKind::MemoryESDI | OpKind::MemoryESEDI
        | OpKind::MemoryESRDI => "mstr".into(),
        _ => "imm".into(),
    }
}

fn reg_class(r: Register) -> &'static str {
    if r.is_gpr8() {
        "r8"
    } else if r.is_gpr16() {
        "r16"
    } else if r.is_gpr32() {
        "r32"
    } else if r.is_gpr64() {
        "r64"
    } else if r.is_xmm() {
        "xmm"
    } else if r.is_ymm() {
        "ymm"
    } else if r.is_zmm() {
        "zmm"
    } else if r.is_k() {
        "k"
    } else if r.is_mm() {
        "mm"
    } else if r.is_st() {
        "st"
    } else if r.is_segment_register() {
        "sreg"
    } else if r.is_tmm() {
        "tmm"
    } else {
        "reg"
    }
}
