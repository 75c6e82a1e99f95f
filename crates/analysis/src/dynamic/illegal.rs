//! A guest that dies of SIGILL under QEMU: which instruction, and why, in one
//! line. QEMU reports only the bytes it consumed before giving up (a lone
//! `62` for an EVEX instruction), so the whole instruction is read from the
//! program file when QEMU's bytes do not decode.

use bottlenose_attribution::Symbolize;
use bottlenose_decode::aarch64::{extension_of, A64Extension};
use bottlenose_decode::{isa_needs, DecodedInst, Encoding, Isa};

/// The QEMU that `run` drives (Debian 12's `qemu-user`).
const QEMU: &str = "QEMU 7.2";

/// Explains the last instruction QEMU executed before the guest's SIGILL.
pub(crate) fn explain_illegal(last: &DecodedInst, code: &impl Symbolize, isa: Isa) -> String {
    let addr = last.address;
    if isa == Isa::Aarch64 {
        return explain_a64(last, code);
    }
    let from_qemu = isa_needs(&last.bytes, addr).filter(|n| n.len == last.bytes.len());
    let from_file = || code.bytes_at(addr, 15).and_then(|b| isa_needs(b, addr));
    let place = match code.dso_address(addr) {
        Some((file, at)) => format!("{at:#x} in {file}"),
        None => format!("{addr:#x}"),
    };
    let Some(needs) = from_qemu.or_else(from_file) else {
        let hex: Vec<String> = last.bytes.iter().map(|b| format!("{b:02x}")).collect();
        let evex = last.bytes.first() == Some(&0x62);
        return format!(
            "{QEMU} could not decode the bytes {} at {place}{}",
            hex.join(" "),
            if evex { " (an EVEX prefix: AVX-512, which it does not implement): rebuild with -march=x86-64-v3, or use `analyze` for this code" } else { "" }
        );
    };
    if needs.deliberate_trap {
        return format!("the program trapped on purpose with `{}` at {place} (__builtin_trap, abort paths, failed checks)", needs.asm);
    }
    let features = needs.features.join(", ");
    match needs.encoding {
        Encoding::Evex => format!(
            "`{}` at {place} is AVX-512 ({features}), which {QEMU} does not implement: rebuild with -march=x86-64-v3, or use `analyze` for this code",
            needs.asm
        ),
        _ => format!(
            "`{}` at {place} ({features}) is not implemented by {QEMU}: rebuild for an older -march, or use `analyze` for this code",
            needs.asm
        ),
    }
}

/// Where `addr` is, as objdump shows it, with its symbol.
fn place_a64(addr: u64, code: &impl Symbolize) -> String {
    match code.dso_address(addr) {
        Some((file, at)) => format!("{at:#x} in {file} ({})", code.label(addr)),
        None => format!("{addr:#x}"),
    }
}

/// AArch64: QEMU runs as the machine's core (`-cpu`, see the machine's
/// `qemu_cpu`), so a word of an extension that core lacks (SVE on a Neoverse
/// N1) is the usual cause.
fn explain_a64(last: &DecodedInst, code: &impl Symbolize) -> String {
    let at = place_a64(last.address, code);
    let word = match last.bytes[..] {
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
        _ => return format!("the instruction at {at} is not implemented by the core {QEMU} runs as"),
    };
    match extension_of(word) {
        Some(A64Extension::Sve) => format!(
            "the SVE instruction {word:#010x} at {at} does not run on this machine's core, which has no SVE: build without +sve (e.g. -march=armv8.2-a), or choose a machine with SVE (neoverse-v2)"
        ),
        Some(A64Extension::Sme) => format!("the SME instruction {word:#010x} at {at} does not run on this machine's core, which has no SME: build without +sme"),
        None => format!("the instruction {word:#010x} at {at} is not implemented by the core {QEMU} runs as (objdump -d names it): build for an older -march"),
    }
}
