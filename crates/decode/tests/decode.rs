use bottlenose_decode::{decode_block, regs, BranchKind, DecodeError, FpClass, MemAccess};

fn one(bytes: &[u8]) -> bottlenose_decode::DecodedInst {
    let mut v = decode_block(bytes, 0x1000).unwrap();
    assert_eq!(v.len(), 1, "expected one instruction");
    v.remove(0)
}

#[test]
fn add_reads_both_writes_dest_and_flags() {
    let i = one(&[0x48, 0x01, 0xd8]); // add rax, rbx
    assert_eq!(i.mnemonic, "add");
    assert_eq!(i.form, "add r64, r64");
    assert!(i.data_reads.contains(&0) && i.data_reads.contains(&3));
    assert!(i.writes.contains(&0));
    assert!(i.writes.contains(&regs::FLAGS_CF) && i.writes.contains(&regs::FLAGS_OTHER));
    assert!(!i.writes.contains(&3));
}

#[test]
fn load_op_separates_address_and_data_registers() {
    // vaddsd xmm0, xmm0, [rdx+rax+8]
    let i = one(&[0xc5, 0xfb, 0x58, 0x44, 0x02, 0x08]);
    assert_eq!(i.form, "vaddsd xmm, xmm, m64");
    assert_eq!(i.mem.len(), 1);
    let m = &i.mem[0];
    assert_eq!((m.base, m.index, m.scale, m.displacement, m.size), (Some(2), Some(0), 1, 8, 8));
    assert_eq!(m.access, MemAccess::Load);
    assert_eq!(i.addr_reads, vec![2, 0]);
    assert_eq!(i.data_reads, vec![regs::VEC_BASE]);
    assert_eq!(i.fp, FpClass::ScalarDouble);
    assert_eq!(i.flops, 1);
}

#[test]
fn fma_and_vector_width() {
    // vfmadd231pd ymm3, ymm2, ymm1
    let i = one(&[0xc4, 0xe2, 0xed, 0xb8, 0xd9]);
    assert!(i.fma);
    assert_eq!(i.vector_bits, 256);
    assert_eq!(i.fp, FpClass::PackedDouble);
    assert_eq!(i.flops, 8); // 4 lanes x 2
    assert!(i.data_reads.contains(&(regs::VEC_BASE + 3)), "accumulator is read");
}

#[test]
fn zero_idiom_has_no_sources() {
    let i = one(&[0x31, 0xc0]); // xor eax, eax
    assert!(i.zero_idiom && i.dep_breaking);
    assert!(i.data_reads.is_empty());
    let j = one(&[0x31, 0xd8]); // xor eax, ebx
    assert!(!j.zero_idiom);
}

#[test]
fn branches_and_stack_ops() {
    let v = decode_block(&[0x75, 0xfe, 0xc3, 0x50], 0x2000).unwrap(); // jne self; ret; push rax
    assert_eq!(v[0].branch, BranchKind::Conditional);
    assert_eq!(v[0].branch_target, Some(0x2000));
    assert_eq!(v[1].branch, BranchKind::Return);
    assert!(v[2].stack_op);
    assert!(!v[2].writes.contains(&regs::RSP), "stack engine hides rsp updates");
    assert!(v[2].stores());
}

#[test]
fn partial_register_write_merges() {
    let i = one(&[0xb0, 0x01]); // mov al, 1
    assert!(i.data_reads.contains(&0), "8-bit write reads the old rax");
}

#[test]
fn masked_avx512_reads_mask_and_merges() {
    // vaddpd zmm1{k1}, zmm2, zmm3
    let i = one(&[0x62, 0xf1, 0xed, 0x49, 0x58, 0xcb]);
    assert_eq!(i.mask, Some(1));
    assert_eq!(i.vector_bits, 512);
    assert!(i.data_reads.contains(&(regs::MASK_BASE + 1)));
    assert!(i.data_reads.contains(&(regs::VEC_BASE + 1)), "merge-masking reads the destination");
    assert_eq!(i.flops, 8);
}

#[test]
fn invalid_and_truncated_bytes_are_errors() {
    assert!(matches!(decode_block(&[0x48], 0), Err(DecodeError::Truncated { .. })));
    let r = decode_block(&[0x0f, 0x0b, 0x06, 0x90, 0x90, 0x90], 0); assert!(matches!(r, Err(DecodeError::Invalid { .. })), "{r:?}");
    assert_eq!(decode_block(&[], 0).unwrap_err(), DecodeError::Empty);
}

#[test]
fn divide_is_flagged() {
    let i = one(&[0x48, 0xf7, 0xf1]); // div rcx
    assert!(i.is_divide);
    assert!(i.data_reads.contains(&0) && i.data_reads.contains(&2) && i.writes.contains(&2));
}

#[test]
fn gather_reads_its_mask_not_its_destination() {
    // vgatherdpd ymm1, [rdx+xmm7*8], ymm6
    let i = one(&[0xc4, 0xe2, 0xcd, 0x92, 0x0c, 0xfa]);
    assert_eq!(i.form, "vgatherdpd ymm, m64, ymm");
    assert!(i.mem[0].vsib);
    let ymm = |n: u8| regs::VEC_BASE + n;
    assert!(!i.data_reads.contains(&ymm(1)), "destination is merged at the end, not an input");
    assert!(i.data_reads.contains(&ymm(6)), "the mask is an input");
    assert!(i.writes.contains(&ymm(1)) && i.writes.contains(&ymm(6)));
}

#[test]
fn rip_relative_operands_are_marked() {
    // mov rax, [rip+0x100] at 0x1000: iced gives no base and the absolute target
    let i = one(&[0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00]);
    assert!(i.mem[0].rip_relative);
    assert_eq!(i.mem[0].displacement, 0x1107);
    let j = one(&[0x48, 0x8b, 0x43, 0x08]); // mov rax, [rbx+8]
    assert!(!j.mem[0].rip_relative);
}

#[test]
fn avx512_is_told_by_encoding_not_width() {
    // vaddpd ymm3, ymm2, ymm1 (VEX): AVX, not AVX-512
    assert!(!one(&[0xc5, 0xed, 0x58, 0xd9]).avx512);
    // vaddpd zmm3, zmm2, zmm1 (EVEX)
    assert!(one(&[0x62, 0xf1, 0xed, 0x48, 0x58, 0xd9]).avx512);
    // vaddpd xmm3, xmm2, xmm1 with an EVEX encoding (AVX-512VL): 128 bits but AVX-512
    assert!(one(&[0x62, 0xf1, 0xed, 0x08, 0x58, 0xd9]).avx512);
    // kmovw eax, k1 (VEX-encoded, mask register)
    assert!(one(&[0xc5, 0xf8, 0x93, 0xc1]).avx512);
    // add rax, rbx
    assert!(!one(&[0x48, 0x01, 0xd8]).avx512);
}

#[test]
fn lenient_decoding_skips_what_does_not_decode() {
    // add rax, rbx; 06 (push es: invalid in 64-bit mode); nop
    let v = bottlenose_decode::decode_lenient(&[0x48, 0x01, 0xd8, 0x06, 0x90], 0x1000);
    assert_eq!(v.iter().map(|i| (i.address, i.mnemonic.as_str())).collect::<Vec<_>>(), vec![(0x1000, "add"), (0x1004, "nop")]);
    // the strict decoder stops there
    assert!(decode_block(&[0x48, 0x01, 0xd8, 0x06, 0x90], 0x1000).is_err());
    assert!(bottlenose_decode::decode_lenient(&[0x06], 0).is_empty());
}

#[test]
fn string_instructions_carry_kind_element_size_and_prefix() {
    use bottlenose_decode::{Repeat, StringKind};
    let s = |b: &[u8]| one(b).string_op.map(|s| (s.kind, s.element_bytes, s.repeat));
    assert_eq!(s(&[0xf3, 0xa4]), Some((StringKind::Movs, 1, Repeat::Count))); // rep movsb
    assert_eq!(s(&[0xf3, 0x48, 0xa5]), Some((StringKind::Movs, 8, Repeat::Count))); // rep movsq
    assert_eq!(s(&[0xf3, 0xab]), Some((StringKind::Stos, 4, Repeat::Count))); // rep stosd
    assert_eq!(s(&[0x66, 0xf3, 0xab]), Some((StringKind::Stos, 2, Repeat::Count))); // rep stosw
    assert_eq!(s(&[0xf3, 0xac]), Some((StringKind::Lods, 1, Repeat::Count))); // rep lodsb
    assert_eq!(s(&[0xf3, 0xa6]), Some((StringKind::Cmps, 1, Repeat::WhileEqual))); // repe cmpsb
    assert_eq!(s(&[0xf2, 0xae]), Some((StringKind::Scas, 1, Repeat::WhileNotEqual))); // repne scasb
    assert_eq!(s(&[0xa4]), Some((StringKind::Movs, 1, Repeat::Once))); // movsb
    // SSE movsd and cmpsd share the mnemonics but are not string instructions
    assert_eq!(s(&[0xf2, 0x0f, 0x10, 0xc1]), None); // movsd xmm0, xmm1
    assert_eq!(s(&[0xf2, 0x0f, 0xc2, 0xc1, 0x00]), None); // cmpeqsd xmm0, xmm1
    assert_eq!(s(&[0x48, 0x01, 0xd8]), None);
    // rep movsb reads and writes rcx, rsi and rdi, loads [rsi] and stores [rdi]
    let i = one(&[0xf3, 0xa4]);
    for r in [1u8, 6, 7] {
        assert!(i.writes.contains(&r), "writes reg {r}: {:?}", i.writes);
    }
    assert!(i.loads() && i.stores());
}
