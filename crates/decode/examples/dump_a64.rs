//! Prints what the AArch64 decoder makes of a raw code file (e.g. `objcopy -O binary -j .text`):
//! text, form key, registers read / address / written / written back, memory, branch, FP facts.
//! `cargo run -p bottlenose-decode --example dump_a64 code.bin`
fn main() {
    let bytes = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    for i in bottlenose_decode::decode_lenient_for(bottlenose_decode::Isa::Aarch64, &bytes, 0x1000) {
        let n = |v: &[u8]| v.iter().map(|&r| bottlenose_decode::reg_name(r)).collect::<Vec<_>>().join(",");
        println!("{:<40} | {:<34} | r={} a={} w={} aw={} mem={:?} br={:?} {:?} vb={} fp={:?}/{} fma={} mv={} db={}", i.asm, i.form, n(&i.data_reads), n(&i.addr_reads), n(&i.writes), n(&i.address_writes),
          i.mem.iter().map(|m| (m.size, m.access, m.displacement)).collect::<Vec<_>>(), i.branch, i.branch_target, i.vector_bits, i.fp, i.flops, i.fma, i.move_candidate, i.dep_breaking);
    }
}
