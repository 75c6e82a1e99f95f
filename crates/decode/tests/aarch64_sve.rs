//! SVE/SVE2 decoding: words assembled with `aarch64-linux-gnu-as -march=armv9-a+sve2`
//! (tools/import-llvm-mca/corpus/aarch64-sve.s), text checked against GNU objdump, and
//! the facts of hand-picked encodings against the Arm ARM's description of each
//! instruction (which registers it reads and writes, how many bytes it moves, its lanes).

use bottlenose_decode::regs::{ARM_FFR, ARM_NZCV, ARM_P_BASE, ARM_SP, ARM_V_BASE, ARM_X_BASE};
use bottlenose_decode::{decode_block_vl, decode_one_vl, DecodedInst, FpClass, Isa, MemAccess, RegId};

fn at(word: u32, vl: u16) -> DecodedInst {
    decode_one_vl(Isa::Aarch64, &word.to_le_bytes(), 0x1000, vl).unwrap()
}

fn z(n: u8) -> RegId {
    ARM_V_BASE + n
}
fn p(n: u8) -> RegId {
    ARM_P_BASE + n
}
fn x(n: u8) -> RegId {
    ARM_X_BASE + n
}

fn sorted(mut v: Vec<RegId>) -> Vec<RegId> {
    v.sort();
    v
}

#[track_caller]
fn regs(i: &DecodedInst, reads: &[RegId], writes: &[RegId]) {
    assert_eq!(sorted(i.data_reads.clone()), sorted(reads.to_vec()), "reads of {}", i.asm);
    assert_eq!(sorted(i.writes.clone()), sorted(writes.to_vec()), "writes of {}", i.asm);
}

/// Every word of the corpus decodes, to objdump's text (patterns objdump leaves out when
/// they are the default, `all`, are printed).
#[test]
fn text_matches_objdump() {
    let fixture = include_str!("fixtures/sve_objdump.txt");
    let mut n = 0;
    for line in fixture.lines().filter(|l| !l.starts_with('#')) {
        let (word, objdump) = line.split_once('\t').unwrap();
        let word = u32::from_str_radix(word, 16).unwrap();
        let i = at(word, 128);
        let ours = i.asm.trim_end_matches(", all");
        // objdump writes consecutive lists of three or four as ranges and FP immediates in full
        let theirs = objdump.replace("{z1.d-z3.d}", "{z1.d, z2.d, z3.d}").replace("{z1.s-z3.s}", "{z1.s, z2.s, z3.s}");
        let theirs = theirs.replace("{z1.s-z4.s}", "{z1.s, z2.s, z3.s, z4.s}").replace("{z1.d-z4.d}", "{z1.d, z2.d, z3.d, z4.d}");
        let theirs = theirs.replace(", xzr]", "]");
        assert_eq!(ours, theirs, "{word:#010x}");
        n += 1;
    }
    assert!(n > 300, "{n} lines");
}

#[test]
fn predicated_fma() {
    // fmla z1.d, p0/m, z2.d, z3.d: z1 += z2 * z3 in the active lanes, inactive lanes keep z1
    for (vl, lanes) in [(128u16, 2u16), (256, 4), (512, 8)] {
        let i = at(0x65e30041, vl);
        assert_eq!(i.asm, "fmla z1.d, p0/m, z2.d, z3.d");
        regs(&i, &[z(1), p(0), z(2), z(3)], &[z(1)]);
        assert_eq!((i.fp, i.flops, i.fma, i.vector_bits), (FpClass::PackedDouble, 2 * lanes, true, vl));
        assert_eq!(i.accumulator, Some(z(1)));
        assert!(i.mem.is_empty());
    }
    // fmad z1.d, p0/m, z2.d, z3.d: z1 = z1 * z2 + z3, the destination is a multiplicand
    let i = at(0x65e38041, 128);
    assert_eq!((i.fma, i.accumulator), (true, None));
    // fmla z1.d, z2.d, z3.d[1]: unpredicated by-element, still accumulates
    let i = at(0x64f30041, 256);
    regs(&i, &[z(1), z(2), z(3)], &[z(1)]);
    assert_eq!(i.flops, 8);
}

#[test]
fn contiguous_loads_and_stores() {
    // ld1d {z1.d}, p0/z, [x2, x3, lsl #3]: VL/64 doublewords from x2 + x3*8
    for vl in [128u16, 256] {
        let i = at(0xa5e34041, vl);
        regs(&i, &[p(0)], &[z(1)]);
        assert_eq!(i.addr_reads, vec![x(2), x(3)]);
        let m = &i.mem[0];
        assert_eq!((m.access, m.size, m.base, m.index, m.scale, m.vsib), (MemAccess::Load, vl as u32 / 8, Some(x(2)), Some(x(3)), 8, false));
        assert_eq!(i.form, "ld1d {z.d}x1, p/z, m reg");
    }
    // st1w {z1.d}, p0, [x2, x3, lsl #2]: the low word of each doubleword lane: VL/64 * 4 bytes
    let i = at(0xe5634041, 256);
    regs(&i, &[z(1), p(0)], &[]);
    assert_eq!((i.mem[0].access, i.mem[0].size), (MemAccess::Store, 16));
    // ld2d {z1.d, z2.d}, p0/z, [x2]: two registers' worth
    let i = at(0xa5a0e041, 128);
    regs(&i, &[p(0)], &[z(1), z(2)]);
    assert_eq!(i.mem[0].size, 32);
    // ld1rd broadcasts one doubleword; ld1rqd replicates a quadword, whatever the VL
    assert_eq!(at(0x85c0e041, 512).mem[0].size, 8);
    assert_eq!(at(0xa5802041, 512).mem[0].size, 16);
    // ldr p1, [x2]: a predicate register is VL/8 bits
    let i = at(0x85800041, 256);
    regs(&i, &[], &[p(1)]);
    assert_eq!(i.mem[0].size, 4);
}

#[test]
fn gathers_and_first_faults() {
    // ld1d {z1.d}, p0/z, [x2, z3.d, lsl #3]: one doubleword per lane at x2 + z3[i]*8
    let i = at(0xc5e3c041, 256);
    assert_eq!(i.addr_reads, vec![x(2), z(3)]);
    let m = &i.mem[0];
    assert_eq!((m.vsib, m.index, m.scale, m.size), (true, Some(z(3)), 8, 32));
    assert_eq!(i.form, "ld1d {z.d}x1, p/z, m vec");
    // ld1d {z1.d}, p0/z, [z3.d, #8]: a vector of addresses
    let i = at(0xc5a1c061, 128);
    assert_eq!((i.mem[0].base, i.mem[0].vsib), (Some(z(3)), true));
    // ldff1d: a first-fault load reads the FFR and clears the lanes from the first fault on
    let i = at(0xa5e36041, 128);
    regs(&i, &[p(0), ARM_FFR], &[z(1), ARM_FFR]);
    // setffr
    regs(&at(0x252c9000, 128), &[], &[ARM_FFR]);
}

#[test]
fn predicates_and_flags() {
    // whilelo p1.d, x2, x3 sets the predicate and NZCV
    let i = at(0x25e31c41, 128);
    regs(&i, &[x(2), x(3)], &[p(1), ARM_NZCV]);
    // integer compares set NZCV, FP compares do not
    regs(&at(0x24c3a041, 128), &[p(0), z(2), z(3)], &[p(1), ARM_NZCV]);
    regs(&at(0x65c34051, 128), &[p(0), z(2), z(3)], &[p(1)]);
    // ptest p0, p1.b: flags only
    regs(&at(0x2550c020, 128), &[p(0), p(1)], &[ARM_NZCV]);
}

#[test]
fn destinations_read_or_not() {
    // incd x1: x1 += VL/64
    regs(&at(0x04f0e3e1, 128), &[x(1)], &[x(1)]);
    // addvl sp, sp, #-2
    regs(&at(0x043f57df, 128), &[ARM_SP], &[ARM_SP]);
    // movprfx z1, z2 is a plain copy; the merging movprfx keeps z1's inactive lanes
    regs(&at(0x0420bc41, 128), &[z(2)], &[z(1)]);
    regs(&at(0x04d12041, 128), &[z(1), p(0), z(2)], &[z(1)]);
    // sdot z1.s, z2.b, z3.b accumulates
    regs(&at(0x44830041, 128), &[z(1), z(2), z(3)], &[z(1)]);
    // fadda d1, p0, d1, z2.d: an ordered sum into d1
    let i = at(0x65d82041, 256);
    regs(&i, &[p(0), z(1), z(2)], &[z(1)]);
    assert_eq!((i.fp, i.flops), (FpClass::PackedDouble, 4));
    // faddv d1, p0, z2.d: a reduction, no accumulator input
    regs(&at(0x65c02041, 128), &[p(0), z(2)], &[z(1)]);
    assert!(at(0x65cd8061, 128).is_divide, "fdiv");
}

#[test]
fn sve_in_a_block_with_base_a64() {
    // whilelo p0.d, xzr, x2; ld1d; fmla; add x3, x3, x4 (base A64, decoded by yaxpeax-arm)
    let mut code = Vec::new();
    for w in [0x25e21fe0u32, 0xa5e34041, 0x65e30041, 0x8b040063] {
        code.extend(w.to_le_bytes());
    }
    let b = decode_block_vl(Isa::Aarch64, &code, 0x400000, 256).unwrap();
    assert_eq!(b.iter().map(|i| i.mnemonic.as_str()).collect::<Vec<_>>(), ["whilelo", "ld1d", "fmla", "add"]);
    assert_eq!(b[1].mem[0].size, 32);
    assert_eq!(b[3].vector_bits, 0);
}

/// Any word of the SVE space decodes or is an error, never a panic (words from a fixed
/// xorshift sequence with op0 = 0010 forced; reserved size fields included).
#[test]
fn arbitrary_sve_words_do_not_panic() {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut decoded = 0;
    for _ in 0..100_000 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let word = (s as u32 & !(0xf << 25)) | (0b0010 << 25);
        for vl in [128, 2048] {
            if let Ok(i) = decode_one_vl(Isa::Aarch64, &word.to_le_bytes(), 0, vl) {
                decoded += 1;
                assert!(!i.asm.is_empty());
            }
        }
    }
    assert!(decoded > 0);
}
