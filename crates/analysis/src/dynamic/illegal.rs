//! A guest that dies of SIGILL under QEMU: which instruction, and why, in one
//! line. QEMU reports only the bytes it consumed before giving up (a lone
//! `62` for an EVEX instruction), so the whole instruction is read from the
//! program file when QEMU's bytes do not decode.

use bottlenose_attribution::Symbolize;
use bottlenose_decode::{isa_needs, DecodedInst, Encoding};

/// The QEMU that `run` drives (Debian 12's `qemu-user`).
const QEMU: &str = "QEMU 7.2";

/// Explains the last instruction QEMU executed before the guest's SIGILL.
pub(super) fn explain_illegal(last: &DecodedInst, code: &impl Symbolize) -> String {
    let addr = last.address;
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
