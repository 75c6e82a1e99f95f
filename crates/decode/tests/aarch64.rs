//! AArch64 decoding. Encodings are GNU as's (aarch64-linux-gnu-as 2.40, checked with
//! objdump); the expected facts are the Arm ARM's semantics of each instruction.

use bottlenose_decode::regs::{ARM_LR, ARM_NZCV, ARM_SP, ARM_V_BASE, ARM_X_BASE};
use bottlenose_decode::{decode_block_for, decode_one_for, BranchKind, DecodeError, DecodedInst, FpClass, Isa, MemAccess};
use bottlenose_decode::aarch64::{extension_of, A64Extension};

fn one(word: u32, address: u64) -> DecodedInst {
    decode_one_for(Isa::Aarch64, &word.to_le_bytes(), address).unwrap()
}
fn x(n: u8) -> u8 {
    ARM_X_BASE + n
}
fn v(n: u8) -> u8 {
    ARM_V_BASE + n
}

#[test]
fn post_index_load_writes_its_base_as_an_address_write() {
    let i = one(0xfc408420, 0x1000); // ldr d0, [x1], #8
    assert_eq!(i.asm, "ldr d0, [x1], #0x8");
    assert_eq!(i.writes, vec![v(0)]);
    assert_eq!(i.addr_reads, vec![x(1)]);
    assert_eq!(i.address_writes, vec![x(1)], "the base is updated by the writeback");
    assert_eq!(i.mem.len(), 1);
    assert_eq!((i.mem[0].size, i.mem[0].access, i.mem[0].displacement), (8, MemAccess::Load, 0), "post-index accesses the old base");
    assert_eq!(i.form, "ldr d, m64 post");
    assert!(i.vector_bits > 0, "an FP register load");
}

#[test]
fn pre_index_pair_load_through_sp() {
    let i = one(0xa9ff13e3, 0); // ldp x3, x4, [sp, #-16]!
    assert_eq!(i.writes, vec![x(3), x(4)]);
    assert_eq!(i.address_writes, vec![ARM_SP]);
    assert_eq!((i.mem[0].size, i.mem[0].displacement), (16, -16), "two 8-byte registers at sp-16");
    assert_eq!(i.form, "ldp x, x, m128 pre");
}

#[test]
fn pair_store_and_register_offset_store() {
    let stp = one(0x6c820400, 0); // stp d0, d1, [x0], #32
    assert_eq!(stp.data_reads, vec![v(0), v(1)]);
    assert!(stp.writes.is_empty());
    assert_eq!(stp.address_writes, vec![x(0)]);
    assert_eq!((stp.mem[0].size, stp.mem[0].access), (16, MemAccess::Store));
    let str_ = one(0xb8227825, 0); // str w5, [x1, x2, lsl #2]
    assert_eq!(str_.data_reads, vec![x(5)]);
    assert_eq!(str_.addr_reads, vec![x(1), x(2)]);
    assert_eq!((str_.mem[0].size, str_.mem[0].scale), (4, 4));
    assert!(str_.address_writes.is_empty());
}

#[test]
fn byte_and_sign_extending_loads_have_their_element_size() {
    assert_eq!(one(0x39400020, 0).mem[0].size, 1); // ldrb w0, [x1]
    assert_eq!(one(0xb9800420, 0).mem[0].size, 4); // ldrsw x0, [x1, #4]
    assert_eq!(one(0xad400400, 0).mem[0].size, 32); // ldp q0, q1, [x0]
}

#[test]
fn structure_loads_and_lane_loads() {
    let ld1 = one(0x4cdfa800, 0); // ld1 {v0.4s, v1.4s}, [x0], #32
    assert_eq!(ld1.writes, vec![v(0), v(1)]);
    assert_eq!(ld1.mem[0].size, 32);
    assert_eq!(ld1.address_writes, vec![x(0)]);
    let lane = one(0x0d409022, 0); // ld1 {v2.s}[1], [x1]
    assert_eq!(lane.mem[0].size, 4);
    assert!(lane.data_reads.contains(&v(2)) && lane.writes.contains(&v(2)), "the other lanes are kept");
}

#[test]
fn fma_accumulates_and_counts_two_flops_per_lane() {
    let i = one(0x4e62cc20, 0); // fmla v0.2d, v1.2d, v2.2d
    assert_eq!(i.data_reads, vec![v(0), v(1), v(2)], "the accumulator is read");
    assert_eq!(i.writes, vec![v(0)]);
    assert!(i.fma);
    assert_eq!((i.fp, i.flops, i.vector_bits), (FpClass::PackedDouble, 4, 128));
    let by_elem = one(0x4fa21020, 0); // fmla v0.4s, v1.4s, v2.s[1]
    assert_eq!((by_elem.fp, by_elem.flops), (FpClass::PackedSingle, 8));
    let fmadd = one(0x1f420c20, 0); // fmadd d0, d1, d2, d3: d0 = d3 + d1*d2
    assert_eq!(fmadd.data_reads, vec![v(1), v(2), v(3)], "the destination is not an input");
    assert_eq!((fmadd.fp, fmadd.flops, fmadd.fma), (FpClass::ScalarDouble, 2, true));
    let fadd = one(0x1e222820, 0); // fadd s0, s1, s2
    assert_eq!((fadd.fp, fadd.flops, fadd.fma), (FpClass::ScalarSingle, 1, false));
    let fdiv = one(0x1e621820, 0); // fdiv d0, d1, d2
    assert!(fdiv.is_divide);
    // conversions are not FP arithmetic
    assert_eq!(one(0x1e780020, 0).fp, FpClass::None); // fcvtzs w0, d1
}

#[test]
fn flags_are_one_register_written_by_compares_and_read_by_conditions() {
    let cmp = one(0xeb01001f, 0); // cmp x0, x1 (subs xzr, x0, x1)
    assert_eq!(cmp.writes, vec![ARM_NZCV], "the zero register is not a destination");
    assert_eq!(cmp.data_reads, vec![x(0), x(1)]);
    assert!(cmp.macro_fusible);
    let bne = one(0x54000001, 0x1000); // b.ne . (at 0x100c in the listing)
    assert_eq!((bne.branch, bne.branch_target), (BranchKind::Conditional, Some(0x1000)));
    assert_eq!(bne.data_reads, vec![ARM_NZCV]);
    assert_eq!(bne.asm, "b.ne 0x1000");
    let csel = one(0x9a85b083, 0); // csel x3, x4, x5, lt
    assert!(csel.data_reads.contains(&ARM_NZCV));
    let ccmp = one(0xfa411000, 0); // ccmp x0, x1, #0, ne
    assert!(ccmp.data_reads.contains(&ARM_NZCV) && ccmp.writes == vec![ARM_NZCV]);
    let fcmp = one(0x1e612000, 0); // fcmp d0, d1
    assert_eq!((fcmp.data_reads.clone(), fcmp.writes.clone()), (vec![v(0), v(1)], vec![ARM_NZCV]));
    assert!(one(0x8b020020, 0).writes == vec![x(0)], "add does not set flags");
}

#[test]
fn branch_kinds() {
    let bl = one(0x94000000, 0x2000); // bl .
    assert_eq!((bl.branch, bl.branch_target, bl.writes.clone()), (BranchKind::DirectCall, Some(0x2000), vec![ARM_LR]));
    let blr = one(0xd63f0060, 0); // blr x3
    assert_eq!((blr.branch, blr.data_reads.clone(), blr.writes.clone()), (BranchKind::IndirectCall, vec![x(3)], vec![ARM_LR]));
    let ret = one(0xd65f03c0, 0);
    assert_eq!((ret.branch, ret.data_reads.clone()), (BranchKind::Return, vec![ARM_LR]));
    assert_eq!(one(0xd61f0080, 0).branch, BranchKind::IndirectJump); // br x4
    let cbz = one(0xb4000000, 0x84); // cbz x0, .
    assert_eq!((cbz.branch, cbz.branch_target, cbz.data_reads.clone()), (BranchKind::Conditional, Some(0x84), vec![x(0)]));
    let tbnz = one(0x37180001, 0x88); // tbnz w1, #3, .
    assert_eq!((tbnz.branch, tbnz.data_reads.clone()), (BranchKind::Conditional, vec![x(1)]));
    assert_eq!(one(0xd4000001, 0).branch, BranchKind::Other); // svc #0
}

#[test]
fn atomics_and_exclusives() {
    let ldadd = one(0xb8200041, 0); // ldadd w0, w1, [x2]
    assert_eq!((ldadd.data_reads.clone(), ldadd.writes.clone()), (vec![x(0)], vec![x(1)]));
    assert_eq!((ldadd.mem[0].access, ldadd.mem[0].size), (MemAccess::LoadStore, 4));
    let cas = one(0xc8a07c41, 0); // cas x0, x1, [x2]: x0 gets the old value
    assert!(cas.data_reads.contains(&x(0)) && cas.data_reads.contains(&x(1)) && cas.writes == vec![x(0)]);
    let stxr = one(0xc8037ca4, 0); // stxr w3, x4, [x5]
    assert_eq!((stxr.writes.clone(), stxr.data_reads.clone()), (vec![x(3)], vec![x(4)]));
    assert_eq!((stxr.mem[0].access, stxr.mem[0].size), (MemAccess::Store, 8));
}

#[test]
fn moves_inserts_and_idioms() {
    assert!(one(0xaa0103e0, 0).move_candidate); // mov x0, x1
    let mov_sp = one(0x910003e0, 0); // mov x0, sp
    assert!(mov_sp.move_candidate && mov_sp.data_reads == vec![ARM_SP]);
    assert!(one(0x4ea11c20, 0).move_candidate); // mov v0.16b, v1.16b
    assert!(!one(0x8b020020, 0).move_candidate); // add x0, x1, x2
    let eor = one(0x6e201c00, 0); // eor v0.16b, v0.16b, v0.16b
    assert!(eor.dep_breaking && eor.data_reads.is_empty());
    let movk = one(0xf2a00020, 0); // movk x0, #1, lsl #16 keeps the other bits
    assert_eq!(movk.data_reads, vec![x(0)]);
    let ins = one(0x4e0c1c20, 0); // mov v0.s[1], w1
    assert_eq!(ins.data_reads, vec![v(0), x(1)]);
    let prfm = one(0xf9802000, 0); // prfm pldl1keep, [x0, #64]
    assert!(prfm.is_nop && prfm.mem.is_empty());
    let lit = one(0x58000000, 0x98); // ldr x0, . (a literal)
    assert_eq!((lit.mem[0].rip_relative, lit.mem[0].displacement), (true, 0x98));
}

#[test]
fn blocks_truncation_and_invalid_words() {
    let mut code = Vec::new();
    for w in [0x8b020020u32, 0xfc408420, 0x54000001] {
        code.extend(w.to_le_bytes());
    }
    let b = decode_block_for(Isa::Aarch64, &code, 0x400000).unwrap();
    assert_eq!(b.iter().map(|i| i.address).collect::<Vec<_>>(), vec![0x400000, 0x400004, 0x400008]);
    assert!(b.iter().all(|i| i.len == 4));
    assert!(matches!(decode_block_for(Isa::Aarch64, &code[..10], 0), Err(DecodeError::Truncated { address: 8 })));
    // SME (smstart, 0xd503477f, is base A64; `fmopa za0.s, p0/m, p0/m, z0.s, z0.s` = 0x80800000)
    // is not decoded: an error naming it, not a panic
    let e = decode_block_for(Isa::Aarch64, &0x8080_0000u32.to_le_bytes(), 0x40).unwrap_err();
    assert!(matches!(e, DecodeError::NotCovered { address: 0x40, word: 0x80800000, extension: A64Extension::Sme }), "{e:?}");
    assert!(e.to_string().starts_with("SME instruction 0x80800000 at 0x40 is not decoded"), "{e}");
    // a word of the unallocated space (op0 = 0001) stays invalid
    assert!(matches!(decode_block_for(Isa::Aarch64, &0x0200_0000u32.to_le_bytes(), 0), Err(DecodeError::Invalid { .. })));
    assert_eq!(decode_block_for(Isa::Aarch64, &[], 0).unwrap_err(), DecodeError::Empty);
    // the lenient decoder skips it
    let mut mixed = 0x8080_0000u32.to_le_bytes().to_vec();
    mixed.extend(0x8b020020u32.to_le_bytes());
    assert_eq!(bottlenose_decode::decode_lenient_for(Isa::Aarch64, &mixed, 0).len(), 1);
}

#[test]
fn isa_names() {
    assert_eq!(Isa::parse("arm64"), Some(Isa::Aarch64));
    assert_eq!(Isa::parse("x86_64"), Some(Isa::X86_64));
    assert_eq!(Isa::parse("riscv"), None);
}

#[test]
fn a_word_index_of_a_64_bit_add_is_extended() {
    // add x1, x2, w3, uxtw #2 (8b234841): yaxpeax-arm 0.5 alone reports it as `lsl #2`
    let i = one(0x8b234841, 0);
    assert_eq!(i.asm, "add x1, x2, w3, uxtw #2");
    assert_eq!(i.form, "add x, x, w uxtw");
}

/// The SVE encoding space (Arm ARM top-level decode, op0 = 0010): words gcc
/// `-march=armv8.2-a+sve` wrote for an axpy loop, as objdump names them, against
/// base A64 words of the same loop.
#[test]
fn sve_words_are_recognized_by_their_encoding_space() {
    for (word, objdump) in [
        (0x04e0e3e4u32, "cntd x4"),
        (0x05282000, "mov z0.d, d0"),
        (0x25e21fe0, "whilelo p0.d, xzr, x2"),
        (0x2518e3e1, "ptrue p1.b"),
        (0xa5e34002, "ld1d {z2.d}, p0/z, [x0, x3, lsl #3]"),
        (0x65e28401, "fmad z1.d, p1/m, z0.d, z2.d"),
        (0xe5e34001, "st1d {z1.d}, p0, [x0, x3, lsl #3]"),
    ] {
        assert_eq!(extension_of(word), Some(A64Extension::Sve), "{objdump}");
        // the name runs give such a word when it does not decode
        assert_eq!(bottlenose_decode::undecodable_form(Isa::Aarch64, &word.to_le_bytes()), "(SVE, not decoded)", "{objdump}");
    }
    for (word, objdump) in [(0x8b040063u32, "add x3, x3, x4"), (0x54ffff41, "b.ne"), (0x1e610800, "fmul d0, d0, d1"), (0xf8637822, "ldr x2, [x1, x3, lsl #3]"), (0xd65f03c0, "ret")] {
        assert_eq!(extension_of(word), None, "{objdump}");
        assert!(decode_block_for(Isa::Aarch64, &word.to_le_bytes(), 0).is_ok(), "{objdump}");
    }
    assert_eq!(bottlenose_decode::undecodable_form(Isa::X86_64, &[0x62]), "(undecodable)");
}

/// The accumulator late forwarding applies to: the destination an FMA also reads, when
/// no multiplicand is that register (encodings from aarch64-linux-gnu-as).
#[test]
fn fma_accumulators() {
    let acc = |word: u32| decode_one_for(Isa::Aarch64, &word.to_le_bytes(), 0).unwrap().accumulator;
    let v = |n: u8| ARM_V_BASE + n;
    assert_eq!(acc(0x4e62cc20), Some(v(0)), "fmla v0.2d, v1.2d, v2.2d");
    assert_eq!(acc(0x4e62cc00), None, "fmla v0.2d, v0.2d, v2.2d: the chain runs through a multiplicand");
    assert_eq!(acc(0x1f420020), Some(v(0)), "fmadd d0, d1, d2, d0");
    assert_eq!(acc(0x1f420023), None, "fmadd d3, d1, d2, d0: another accumulator than the destination");
    assert_eq!(acc(0x1e620820), None, "fmul d0, d1, d2");
}
