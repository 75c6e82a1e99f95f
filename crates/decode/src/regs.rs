//! A compact register namespace for dependency tracking.
//!
//! The timing model keeps one "ready time" per architectural location, so we fold
//! iced-x86's hundreds of register names onto a small dense index: partial GPRs
//! map to their full register, xmm/ymm map to zmm, and RFLAGS is split in two
//! groups (CF and the rest) because that split is what removes most false flag
//! dependencies (inc/dec vs. adc) on real cores.
//!
//! AArch64 registers have their own ids after the x86 ones, so that one shadow
//! register file and one `reg_name` serve both ISAs: x0..x30 and sp, NZCV (one
//! group: every flag-setting instruction writes all four), v0..v31 (the SIMD/FP
//! registers; b/h/s/d/q are views of them), the SVE predicates p0..p15 and the
//! first-fault register FFR (SVE's z registers extend the v registers: z0 is v0).

use iced_x86::Register;

/// Dense index of an architectural location tracked for dependencies.
pub type RegId = u8;

pub const GPR_BASE: RegId = 0; // rax..r15 = 0..15
pub const FLAGS_CF: RegId = 16;
pub const FLAGS_OTHER: RegId = 17; // OF SF ZF AF PF
pub const VEC_BASE: RegId = 18; // zmm0..zmm31 = 18..49
pub const MASK_BASE: RegId = 50; // k0..k7 = 50..57
pub const X87_BASE: RegId = 58; // st0..st7 / mm0..mm7 = 58..65
pub const X87_STATUS: RegId = 66;
pub const MXCSR: RegId = 67;
pub const ARM_X_BASE: RegId = 68; // x0..x30 = 68..98
pub const ARM_SP: RegId = 99;
pub const ARM_NZCV: RegId = 100;
pub const ARM_V_BASE: RegId = 101; // v0..v31 = 101..132
pub const ARM_P_BASE: RegId = 133; // p0..p15 = 133..148
/// The SVE first-fault register: written by `setffr`/`wrffr` and by first-fault and
/// non-fault loads, read by `rdffr` and by those loads (they clear lanes of it).
pub const ARM_FFR: RegId = 149;
/// Number of tracked locations; shadow register files are arrays of this size.
pub const NUM_REGS: usize = 150;

/// AArch64 link register (x30), written by `bl`/`blr` and read by `ret`.
pub const ARM_LR: RegId = ARM_X_BASE + 30;

pub const RSP: RegId = GPR_BASE + 4;

/// Maps an iced register to our dense id; `None` for registers we do not track
/// (segment registers, RIP, control/debug registers, the zero register).
pub fn reg_id(reg: Register) -> Option<RegId> {
    if reg == Register::None {
        return None;
    }
    if reg.is_gpr() {
        let full = reg.full_register();
        let n = full as u32 - Register::RAX as u32;
        return (n < 16).then_some(GPR_BASE + n as u8);
    }
    if reg.is_xmm() || reg.is_ymm() || reg.is_zmm() {
        return Some(VEC_BASE + reg.number() as u8);
    }
    if reg.is_k() {
        return Some(MASK_BASE + reg.number() as u8);
    }
    if reg.is_st() || reg.is_mm() {
        return Some(X87_BASE + reg.number() as u8);
    }
    None
}

/// Human name of a tracked location (for reports and debugging).
pub fn reg_name(id: RegId) -> String {
    const GPR: [&str; 16] = [
        "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12",
        "r13", "r14", "r15",
    ];
    match id {
        0..=15 => GPR[id as usize].to_string(),
        FLAGS_CF => "cf".into(),
        FLAGS_OTHER => "flags".into(),
        18..=49 => format!("zmm{}", id - VEC_BASE),
        50..=57 => format!("k{}", id - MASK_BASE),
        58..=65 => format!("st{}", id - X87_BASE),
        X87_STATUS => "fpsw".into(),
        MXCSR => "mxcsr".into(),
        ARM_X_BASE..=98 => format!("x{}", id - ARM_X_BASE),
        ARM_SP => "sp".into(),
        ARM_NZCV => "nzcv".into(),
        ARM_V_BASE..=132 => format!("v{}", id - ARM_V_BASE),
        ARM_P_BASE..=148 => format!("p{}", id - ARM_P_BASE),
        ARM_FFR => "ffr".into(),
        _ => format!("r?{id}"),
    }
}
