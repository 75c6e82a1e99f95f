//! Turns an iced instruction plus its `InstructionInfo` into a [`DecodedInst`]:
//! dependency sets, memory operands, branch kind and the FP/vector facts.

use crate::regs::{self, reg_id, RegId};
use crate::{form::form_key, BranchKind, DecodedInst, FpClass, MemAccess, MemOperand, Repeat, StringKind, StringOp};
use iced_x86::{
    FlowControl, Instruction, InstructionInfo, Mnemonic, OpAccess, OpKind, Register, RflagsBits,
};

pub(crate) fn build(instr: &Instruction, info: &InstructionInfo, bytes: &[u8], asm: String) -> DecodedInst {
    let mnemonic = format!("{:?}", instr.mnemonic()).to_lowercase();
    let stack_op = is_stack_op(instr.mnemonic());

    // Memory operands first: their base/index registers are address reads.
    let mut mem = Vec::new();
    let mut addr_reads: Vec<RegId> = Vec::new();
    let is_lea = instr.mnemonic() == Mnemonic::Lea;
    for m in info.used_memory() {
        let access = match m.access() {
            OpAccess::Read | OpAccess::CondRead => MemAccess::Load,
            OpAccess::Write | OpAccess::CondWrite => MemAccess::Store,
            OpAccess::ReadWrite | OpAccess::ReadCondWrite => MemAccess::LoadStore,
            _ => continue, // NoMemAccess (lea, prefetch-like hints)
        };
        let base = if stack_op && m.base() == Register::RSP { None } else { reg_id(m.base()) };
        let index = reg_id(m.index());
        for r in [base, index].into_iter().flatten() {
            push_unique(&mut addr_reads, r);
        }
        mem.push(MemOperand {
            base,
            index,
            scale: m.scale() as u8,
            displacement: m.displacement() as i64,
            size: m.memory_size().size() as u32,
            access,
            // iced reports a RIP-relative operand with no base and the absolute target as displacement
            rip_relative: instr.is_ip_rel_memory_operand()
                && m.base() == Register::None
                && m.displacement() == instr.ip_rel_memory_address(),
            vsib: m.index().is_xmm() || m.index().is_ymm() || m.index().is_zmm(),
        });
    }

    let mut data_reads: Vec<RegId> = Vec::new();
    let mut writes: Vec<RegId> = Vec::new();
    // A gather merges its loaded elements into the destination under the mask; the old
    // destination is only needed at the very end, so it is not modelled as an input
    // (on the host, gathers chained through their destination still run at their
    // throughput: bench/kernels/gather, bench/microbench).
    let gather_dest = mem.iter().any(|m| m.vsib && m.access == MemAccess::Load).then(|| instr.op0_register());
    for u in info.used_registers() {
        let reg = u.register();
        if stack_op && reg.full_register() == Register::RSP && !explicit_operand(instr, reg) {
            continue; // the stack engine handles implicit RSP updates
        }
        let Some(id) = reg_id(reg) else { continue };
        // A register that is only an address component shows up as Read; keep it
        // out of data reads unless an explicit operand also reads it as data.
        let address_only = addr_reads.contains(&id) && !explicit_operand(instr, reg);
        // 8/16-bit GPR writes merge into the full register: they also read it.
        let partial = reg.is_gpr() && reg.size() < 4;
        match u.access() {
            OpAccess::Read | OpAccess::CondRead if gather_dest == Some(reg) => {}
            OpAccess::Read | OpAccess::CondRead => {
                if !address_only || is_lea {
                    push_unique(&mut data_reads, id)
                }
            }
            OpAccess::Write => {
                if partial {
                    push_unique(&mut data_reads, id);
                }
                push_unique(&mut writes, id)
            }
            OpAccess::CondWrite | OpAccess::ReadWrite | OpAccess::ReadCondWrite => {
                if gather_dest != Some(reg) {
                    push_unique(&mut data_reads, id);
                }
                push_unique(&mut writes, id);
            }
            _ => {}
        }
    }
    if is_lea {
        // lea computes from its "address" registers: they are data inputs.
        for r in addr_reads.drain(..) {
            push_unique(&mut data_reads, r);
        }
    }

    // Flags, split in CF and the rest.
    let fr = instr.rflags_read();
    let fw = instr.rflags_modified();
    if fr & RflagsBits::CF != 0 {
        push_unique(&mut data_reads, regs::FLAGS_CF);
    }
    if fr & (RflagsBits::OF | RflagsBits::SF | RflagsBits::ZF | RflagsBits::AF | RflagsBits::PF) != 0 {
        push_unique(&mut data_reads, regs::FLAGS_OTHER);
    }
    if fw & RflagsBits::CF != 0 {
        push_unique(&mut writes, regs::FLAGS_CF);
    }
    if fw & (RflagsBits::OF | RflagsBits::SF | RflagsBits::ZF | RflagsBits::AF | RflagsBits::PF) != 0 {
        push_unique(&mut writes, regs::FLAGS_OTHER);
    }

    let (branch, branch_target) = branch_of(instr);
    let vector_bits = vector_bits(instr);
    let (fp, flops, fma) = fp_facts(&mnemonic, vector_bits, instr);
    let dep_breaking = is_dep_breaking(instr);
    let zero_idiom = dep_breaking && is_zeroing(instr.mnemonic());
    if dep_breaking {
        // the idiom's only sources are the destination itself: nothing is really read
        data_reads.clear();
    }
    let mask = match instr.op_mask() {
        Register::None => None,
        k => Some(k.number() as u8),
    };
    if let Some(k) = mask {
        push_unique(&mut data_reads, regs::MASK_BASE + k);
        if !instr.zeroing_masking() {
            // merge masking keeps old destination lanes: the destination is a source
            for w in writes.clone() {
                if (regs::VEC_BASE..regs::MASK_BASE).contains(&w) {
                    push_unique(&mut data_reads, w);
                }
            }
        }
    }
    let m = instr.mnemonic();
    DecodedInst {
        address: instr.ip(),
        len: instr.len() as u8,
        bytes: bytes.to_vec(),
        asm,
        form: form_key(instr),
        data_reads,
        addr_reads,
        writes,
        address_writes: Vec::new(),
        mem,
        branch,
        branch_target,
        vector_bits,
        fp,
        flops,
        fma,
        accumulator: None,
        avx512: instr.encoding() == iced_x86::EncodingKind::EVEX
            || (0..instr.op_count()).any(|i| instr.op_kind(i) == iced_x86::OpKind::Register && instr.op_register(i).is_k()),
        mask,
        zeroing_mask: instr.zeroing_masking(),
        dep_breaking,
        zero_idiom,
        move_candidate: is_move_candidate(instr),
        macro_fusible: matches!(
            m,
            Mnemonic::Cmp | Mnemonic::Test | Mnemonic::Add | Mnemonic::Sub | Mnemonic::And | Mnemonic::Inc | Mnemonic::Dec
        ),
        is_nop: matches!(m, Mnemonic::Nop | Mnemonic::Endbr64 | Mnemonic::Endbr32 | Mnemonic::Pause)
            || mnemonic.starts_with("prefetch"),
        is_divide: is_divide(&mnemonic),
        stack_op,
        string_op: string_op(instr),
        mnemonic,
    }
}

/// The string instruction facts of `instr` (`None` for any other instruction, and for
/// `ins`/`outs`, which user programs do not run). SSE `movsd`/`cmpsd` share the mnemonic
/// but have register or ModRM memory operands, not the implicit `[rsi]`/`[rdi]` ones.
fn string_op(instr: &Instruction) -> Option<StringOp> {
    use Mnemonic::*;
    let implicit = (0..instr.op_count()).any(|i| {
        matches!(
            instr.op_kind(i),
            OpKind::MemorySegSI
                | OpKind::MemorySegESI
                | OpKind::MemorySegRSI
                | OpKind::MemoryESDI
                | OpKind::MemoryESEDI
                | OpKind::MemoryESRDI
        )
    });
    if !implicit {
        return None;
    }
    let kind = match instr.mnemonic() {
        Movsb | Movsw | Movsd | Movsq => StringKind::Movs,
        Stosb | Stosw | Stosd | Stosq => StringKind::Stos,
        Lodsb | Lodsw | Lodsd | Lodsq => StringKind::Lods,
        Cmpsb | Cmpsw | Cmpsd | Cmpsq => StringKind::Cmps,
        Scasb | Scasw | Scasd | Scasq => StringKind::Scas,
        _ => return None,
    };
    let compares = matches!(kind, StringKind::Cmps | StringKind::Scas);
    // movs/stos/lods repeat rcx times under either prefix; cmps/scas also test ZF
    let repeat = match (instr.has_rep_prefix(), instr.has_repne_prefix()) {
        (true, _) if compares => Repeat::WhileEqual,
        (_, true) if compares => Repeat::WhileNotEqual,
        (true, _) | (_, true) => Repeat::Count,
        _ => Repeat::Once,
    };
    Some(StringOp { kind, element_bytes: instr.memory_size().size().clamp(1, 8) as u8, repeat })
}

fn push_unique(v: &mut Vec<RegId>, r: RegId) {
    if !v.contains(&r) {
        v.push(r);
    }
}

fn explicit_operand(instr: &Instruction, reg: Register) -> bool {
    (0..instr.op_count()).any(|i| {
        instr.op_kind(i) == OpKind::Register && instr.op_register(i).full_register() == reg.full_register()
    })
}

fn is_stack_op(m: Mnemonic) -> bool {
    matches!(
        m,
        Mnemonic::Push | Mnemonic::Pop | Mnemonic::Call | Mnemonic::Ret | Mnemonic::Pushfq | Mnemonic::Popfq
    )
}

fn branch_of(instr: &Instruction) -> (BranchKind, Option<u64>) {
    let direct_target = match instr.op0_kind() {
        OpKind::NearBranch64 | OpKind::NearBranch32 | OpKind::NearBranch16 => Some(instr.near_branch_target()),
        _ => None,
    };
    let kind = match instr.flow_control() {
        FlowControl::Next => BranchKind::None,
        FlowControl::ConditionalBranch => BranchKind::Conditional,
        FlowControl::UnconditionalBranch => BranchKind::DirectJump,
        FlowControl::IndirectBranch => BranchKind::IndirectJump,
        FlowControl::Call => BranchKind::DirectCall,
        FlowControl::IndirectCall => BranchKind::IndirectCall,
        FlowControl::Return => BranchKind::Return,
        _ => BranchKind::Other,
    };
    (kind, direct_target)
}

fn vector_bits(instr: &Instruction) -> u16 {
    let mut bits = 0u16;
    for i in 0..instr.op_count() {
        if instr.op_kind(i) == OpKind::Register {
            let r = instr.op_register(i);
            let b = if r.is_zmm() {
                512
            } else if r.is_ymm() {
                256
            } else if r.is_xmm() {
                128
            } else if r.is_mm() {
                64
            } else {
                0
            };
            bits = bits.max(b);
        }
    }
    bits
}

/// FP arithmetic mnemonic stems; moves, shuffles and logic are not FP work.
const FP_STEMS: &[&str] = &[
    "add", "sub", "mul", "div", "sqrt", "min", "max", "hadd", "hsub", "addsub", "dp", "rcp", "rsqrt",
    "round", "rndscale", "scalef", "fmadd", "fmsub", "fnmadd", "fnmsub", "fmaddsub", "fmsubadd",
];

fn fp_facts(mnemonic: &str, vector_bits: u16, instr: &Instruction) -> (FpClass, u16, bool) {
    if mnemonic.starts_with('f') && !mnemonic.starts_with("fx") {
        // x87 arithmetic
        let x87_arith = ["fadd", "fsub", "fmul", "fdiv", "fsqrt", "fsubr", "fdivr", "faddp", "fmulp", "fsubp", "fdivp"];
        if x87_arith.iter().any(|s| mnemonic.starts_with(s)) {
            return (FpClass::X87, 1, false);
        }
        return (FpClass::None, 0, false);
    }
    let body = mnemonic.strip_prefix('v').unwrap_or(mnemonic);
    let (stem, class, elem_bits) = if let Some(s) = body.strip_suffix("ps") {
        (s, FpClass::PackedSingle, 32)
    } else if let Some(s) = body.strip_suffix("pd") {
        (s, FpClass::PackedDouble, 64)
    } else if let Some(s) = body.strip_suffix("ss") {
        (s, FpClass::ScalarSingle, 32)
    } else if let Some(s) = body.strip_suffix("sd") {
        (s, FpClass::ScalarDouble, 64)
    } else if let Some(s) = body.strip_suffix("ph") {
        (s, FpClass::PackedHalf, 16)
    } else if let Some(s) = body.strip_suffix("sh") {
        (s, FpClass::ScalarHalf, 16)
    } else {
        return (FpClass::None, 0, false);
    };
    // vfmadd231pd → stem "fmadd231": strip the operand-order digits
    let stem = stem.trim_end_matches(|c: char| c.is_ascii_digit());
    if !FP_STEMS.contains(&stem) {
        return (FpClass::None, 0, false);
    }
    let fma = stem.starts_with("fm") || stem.starts_with("fnm");
    let lanes: u16 = match class {
        FpClass::ScalarHalf | FpClass::ScalarSingle | FpClass::ScalarDouble => 1,
        _ => {
            let width = if vector_bits > 0 { vector_bits } else { (instr.memory_size().size() * 8) as u16 };
            (width / elem_bits).max(1)
        }
    };
    (class, lanes * if fma { 2 } else { 1 }, fma)
}

fn is_divide(m: &str) -> bool {
    let b = m.strip_prefix('v').unwrap_or(m);
    matches!(m, "div" | "idiv" | "fdiv" | "fdivp" | "fdivr" | "fdivrp" | "fsqrt")
        || b.starts_with("divp")
        || b.starts_with("divs")
        || b.starts_with("sqrtp")
        || b.starts_with("sqrts")
}

fn is_zeroing(m: Mnemonic) -> bool {
    use Mnemonic::*;
    matches!(
        m,
        Xor | Sub | Pxor | Vpxor | Vpxord | Vpxorq | Xorps | Xorpd | Vxorps | Vxorpd | Psubb | Psubw | Psubd | Psubq
            | Vpsubb | Vpsubw | Vpsubd | Vpsubq
    )
}

/// Same-register idioms whose result does not depend on the source value.
fn is_dep_breaking(instr: &Instruction) -> bool {
    use Mnemonic::*;
    let m = instr.mnemonic();
    let same_sources = |a: u32, b: u32| {
        instr.op_count() > b
            && instr.op_kind(a) == OpKind::Register
            && instr.op_kind(b) == OpKind::Register
            && instr.op_register(a) == instr.op_register(b)
    };
    let two_op = matches!(
        m,
        Xor | Sub | Pxor | Xorps | Xorpd | Psubb | Psubw | Psubd | Psubq | Pcmpeqb | Pcmpeqw | Pcmpeqd
            | Pcmpeqq | Pcmpgtb | Pcmpgtw | Pcmpgtd | Pcmpgtq
    );
    let three_op = matches!(
        m,
        Vpxor | Vpxord | Vpxorq | Vxorps | Vxorpd | Vpsubb | Vpsubw | Vpsubd | Vpsubq | Vpcmpeqb | Vpcmpeqw
            | Vpcmpeqd | Vpcmpeqq | Vpcmpgtb | Vpcmpgtw | Vpcmpgtd | Vpcmpgtq
    );
    (two_op && instr.op_count() == 2 && same_sources(0, 1)) || (three_op && instr.op_count() == 3 && same_sources(1, 2))
}

fn is_move_candidate(instr: &Instruction) -> bool {
    use Mnemonic::*;
    let m = instr.mnemonic();
    instr.op_count() == 2
        && instr.op0_kind() == OpKind::Register
        && instr.op1_kind() == OpKind::Register
        && match m {
            Mov => instr.op0_register().size() >= 4,
            Movaps | Movapd | Movdqa | Movdqu | Movups | Movupd | Vmovaps | Vmovapd | Vmovdqa | Vmovdqu
            | Vmovups | Vmovupd => instr.op_mask() == Register::None,
            _ => false,
        }
}
