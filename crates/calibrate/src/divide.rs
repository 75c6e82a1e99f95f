//! Integer divides (`div`/`idiv` with a 32- or 64-bit register divisor): their operands are
//! implicit (`rdx:rax` divided by the named register, quotient in `rax`, remainder in
//! `rdx`), and on current cores their latency and throughput depend on the values (the
//! width of the quotient), so the generated loops fix both: a dividend just under 2^62
//! (2^30 for 32 bits) and a divisor of about 2^20 (2^10), a quotient two thirds as wide as
//! the register, as when a random 64-bit value is divided by a 20-bit one.
//!
//! Register plan (within [`crate::forms`]'): the divisor in `r13`, the dividend in `r14`,
//! `rdx` cleared by `xor edx, edx` (a zero idiom: no dependency) before every divide.
//! The latency chain runs through the quotient, closed by `or rax, r14` so that the next
//! dividend is as wide as the first (the `or`, one cycle, is subtracted); throughput
//! copies restart from `mov rax, r14` (an eliminated or 1-cycle move) each time.

use crate::forms::{Operand, ParsedForm};

/// The 64-bit dividend (positive, so `idiv` sees the same magnitude) and divisor.
const DIVIDEND_64: u64 = 0x3E37_79B9_7F4A_7C15;
const DIVISOR_64: u64 = 1_000_003;
const DIVIDEND_32: u32 = 0x3E37_79B9;
const DIVISOR_32: u32 = 1_009;
// under 2^62 (2^30): positive for `idiv`, and `or`-ing a quotient in keeps it there
const _: () = assert!(DIVIDEND_64 < 1 << 62 && DIVIDEND_32 < 1 << 30);

/// Cycles of the instruction that closes a divide's latency chain (`or`).
pub const CHAIN_CLOSE_CYCLES: f64 = 1.0;

/// Whether a parsed form is a register divide this module generates.
pub fn is_divide(f: &ParsedForm) -> bool {
    matches!(f.mnemonic.as_str(), "div" | "idiv") && matches!(f.operands.as_slice(), [Operand::Gpr(32 | 64)])
}

fn wide(f: &ParsedForm) -> bool {
    f.operands == [Operand::Gpr(64)]
}

/// Register set-up: divisor and dividend.
pub fn init(f: &ParsedForm) -> String {
    if wide(f) {
        format!("mov r13, {DIVISOR_64}\nmov r14, {DIVIDEND_64:#x}\nmov rax, r14\n")
    } else {
        format!("mov r13d, {DIVISOR_32}\nmov r14d, {DIVIDEND_32:#x}\nmov eax, r14d\n")
    }
}

/// One link of the latency chain (quotient -> next dividend).
pub fn latency_copy(f: &ParsedForm) -> String {
    let m = &f.mnemonic;
    if wide(f) {
        format!("xor edx, edx\n{m} r13\nor rax, r14")
    } else {
        format!("xor edx, edx\n{m} r13d\nor eax, r14d")
    }
}

/// One independent divide.
pub fn throughput_copy(f: &ParsedForm) -> String {
    let m = &f.mnemonic;
    if wide(f) {
        format!("mov rax, r14\nxor edx, edx\n{m} r13")
    } else {
        format!("mov eax, r14d\nxor edx, edx\n{m} r13d")
    }
}

/// What the method of a divide's measurement says about its operands.
pub fn operands_note(f: &ParsedForm) -> String {
    if wide(f) {
        format!("dividend {DIVIDEND_64:#x}, divisor {DIVISOR_64} (a 43-bit quotient; the time depends on the operands)")
    } else {
        format!("dividend {DIVIDEND_32:#x}, divisor {DIVISOR_32} (a 20-bit quotient; the time depends on the operands)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forms::parse;

    #[test]
    fn quotients_stay_as_wide_as_the_first() {
        // the chain's arithmetic: (d / s) | d keeps the dividend in [d, 2^62): no #DE
        // (rdx = 0 < divisor) and no shrinking towards a fast zero dividend
        let mut x = DIVIDEND_64;
        for _ in 0..100 {
            x = (x / DIVISOR_64) | DIVIDEND_64;
            assert!((DIVIDEND_64..1 << 62).contains(&x));
        }
        assert_eq!(64 - (DIVIDEND_64 / DIVISOR_64).leading_zeros(), 43);
        assert_eq!(32 - (DIVIDEND_32 / DIVISOR_32).leading_zeros(), 20);
    }

    #[test]
    fn copies_name_the_implicit_registers() {
        let f = parse("idiv r32").unwrap();
        assert!(is_divide(&f));
        assert_eq!(latency_copy(&f), "xor edx, edx\nidiv r13d\nor eax, r14d");
        assert_eq!(throughput_copy(&parse("div r64").unwrap()), "mov rax, r14\nxor edx, edx\ndiv r13");
        assert!(parse("div r16").is_err());
        assert!(parse("div m64").is_err());
    }
}
