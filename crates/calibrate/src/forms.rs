//! Instruction-form keys (`vaddpd ymm, ymm, ymm`, `add r64, m64`, as produced by
//! `bottlenose-decode`'s `form_key`) turned into Intel-syntax code for a latency chain or a
//! throughput block, and the base machine's reciprocal throughput of a form.
//!
//! Register plan of the generated loops: `rsi` points at an L1-resident buffer of 1.0
//! doubles (loads read `[rsi + 64k]`, stores write `[rsi + 4096 + 64k]`), `r15` counts
//! iterations. Destinations rotate over [`GPR_DEST`] / vector registers 0..11; sources that
//! are not on the chain are constants (`r13`, `r14`, `rdi`, vector 12..15), so throughput
//! copies only depend on themselves through read-modify-write destinations.

use crate::divide;
use bottlenose_machine::{Form, Machine};

/// Operand class of a form key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    Gpr(u32),
    Vec(u32),
    Imm,
    /// Memory of that many bits (0: no size, e.g. `lea`).
    Mem(u32),
}

impl Operand {
    fn family(self) -> Option<u8> {
        match self {
            Operand::Gpr(_) => Some(0),
            Operand::Vec(_) => Some(1),
            _ => None,
        }
    }
}

/// A parsed form key.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedForm {
    pub mnemonic: String,
    pub operands: Vec<Operand>,
}

/// Parses a key; `Err` says why it cannot be generated.
pub fn parse(key: &str) -> Result<ParsedForm, String> {
    let key = key.trim();
    let (mnemonic, rest) = key.split_once(' ').unwrap_or((key, ""));
    let mnemonic = mnemonic.to_ascii_lowercase();
    let mut operands = Vec::new();
    for op in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let o = match op {
            "r8" => Operand::Gpr(8),
            "r16" => Operand::Gpr(16),
            "r32" => Operand::Gpr(32),
            "r64" => Operand::Gpr(64),
            "xmm" => Operand::Vec(128),
            "ymm" => Operand::Vec(256),
            "zmm" => Operand::Vec(512),
            "imm" => Operand::Imm,
            "m" => Operand::Mem(0),
            m if m.starts_with('m') && m[1..].chars().all(|c| c.is_ascii_digit()) => {
                Operand::Mem(m[1..].parse().map_err(|_| format!("operand `{m}`"))?)
            }
            other => return Err(format!("operand class `{other}` is not generated (mask, MMX, x87, broadcast, string or branch operand)")),
        };
        operands.push(o);
    }
    const IMPLICIT: &[&str] = &[
        "mul", "div", "idiv", "push", "pop", "call", "ret", "jmp", "loop", "cpuid", "rdtsc", "rdtscp", "syscall", "int",
        "hlt", "xchg", "cmpxchg", "xadd", "cbw", "cwde", "cdqe", "cwd", "cdq", "cqo", "lahf", "sahf", "pushf", "popf",
        "pushfq", "popfq", "xlat", "enter", "leave", "in", "out", "movs", "stos", "lods", "scas", "cmps", "nop", "pause",
        "lfence", "mfence", "sfence", "vzeroupper", "vzeroall", "ud2", "endbr64", "rdrand", "rdseed", "clflush",
        "prefetcht0", "prefetchnta", "vmaskmovps", "vmaskmovpd", "maskmovdqu", "vpmaskmovd", "vpmaskmovq",
    ];
    if matches!(mnemonic.as_str(), "div" | "idiv") {
        return match operands.as_slice() {
            [Operand::Gpr(32 | 64)] => Ok(ParsedForm { mnemonic, operands }),
            _ => Err(format!("`{mnemonic}` is generated with a 32- or 64-bit register divisor only")),
        };
    }
    if IMPLICIT.contains(&mnemonic.as_str())
        || (mnemonic == "imul" && operands.len() == 1)
        || (mnemonic.starts_with('j') && mnemonic != "jmp")
        || mnemonic.starts_with("rep")
        || mnemonic.starts_with("lock")
        || mnemonic.contains("gather")
        || mnemonic.contains("scatter")
    {
        return Err(format!("`{mnemonic}` has implicit operands, is a branch, or touches memory it names no operand for"));
    }
    if operands.iter().filter(|o| matches!(o, Operand::Mem(_))).count() > 1 {
        return Err("two memory operands".into());
    }
    Ok(ParsedForm { mnemonic, operands })
}

/// GPR pool: destinations first ([`GPR_DEST`] of them), then the constant sources.
const GPR64: [&str; 13] = ["rax", "rbx", "rcx", "rdx", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "rdi"];
const GPR32: [&str; 13] = ["eax", "ebx", "ecx", "edx", "ebp", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "edi"];
const GPR16: [&str; 13] = ["ax", "bx", "cx", "dx", "bp", "r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "di"];
const GPR8: [&str; 13] = ["al", "bl", "cl", "dl", "bpl", "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "dil"];
pub const GPR_DEST: usize = 10;
pub const VEC_DEST: usize = 12;

fn reg(op: Operand, i: usize) -> String {
    match op {
        Operand::Gpr(64) => GPR64[i].into(),
        Operand::Gpr(32) => GPR32[i].into(),
        Operand::Gpr(16) => GPR16[i].into(),
        Operand::Gpr(_) => GPR8[i].into(),
        Operand::Vec(128) => format!("xmm{i}"),
        Operand::Vec(256) => format!("ymm{i}"),
        Operand::Vec(_) => format!("zmm{i}"),
        _ => unreachable!(),
    }
}

/// Index of the `c`-th constant source register of a family.
fn constant(op: Operand, c: usize) -> usize {
    match op {
        Operand::Gpr(_) => GPR_DEST + c.min(2),
        _ => VEC_DEST + c.min(3),
    }
}

fn mem(bits: u32, addr: &str) -> String {
    let ptr = match bits {
        0 => "",
        8 => "BYTE PTR ",
        16 => "WORD PTR ",
        32 => "DWORD PTR ",
        64 => "QWORD PTR ",
        80 => "TBYTE PTR ",
        128 => "XMMWORD PTR ",
        256 => "YMMWORD PTR ",
        512 => "ZMMWORD PTR ",
        _ => "",
    };
    format!("{ptr}[{addr}]")
}

/// Legacy 2-operand mnemonics whose destination is written without being read.
fn write_only_dest(m: &str) -> bool {
    m.starts_with('v')
        || m.starts_with("mov")
        || m.starts_with("cvt")
        || m.starts_with("pmovzx")
        || m.starts_with("pmovsx")
        || m.starts_with("pshuf") && m != "pshufb"
        || m.starts_with("set")
        || matches!(m, "lea" | "popcnt" | "lzcnt" | "tzcnt" | "bsf" | "bsr" | "rcpps" | "rsqrtps" | "sqrtps" | "sqrtpd" | "roundps" | "roundpd" | "pabsb" | "pabsw" | "pabsd" | "andn" | "blsi" | "blsr" | "blsmsk" | "bextr" | "bzhi" | "pdep" | "pext" | "sarx" | "shlx" | "shrx" | "rorx")
}

/// Mnemonics for which `op r, r` with one register is a zero (or ones) idiom.
fn idiom_when_same(m: &str) -> bool {
    let base = m.strip_prefix('v').unwrap_or(m);
    matches!(base, "xor" | "sub" | "sbb" | "pxor" | "xorps" | "xorpd" | "pandn" | "andnps" | "andnpd" | "pxord" | "pxorq" | "pandnd" | "pandnq")
        || base.starts_with("psub")
        || base.starts_with("pcmpeq")
        || base.starts_with("pcmpgt")
}

/// Is this a pure load (`mov`-like, destination written from memory only)?
fn pure_load(f: &ParsedForm) -> bool {
    let m = f.mnemonic.as_str();
    f.operands.len() == 2
        && f.operands[0].family().is_some()
        && matches!(f.operands[1], Operand::Mem(_))
        && (m.starts_with("mov") || m.starts_with("vmov") || m.starts_with("vbroadcast") || m.starts_with("vpbroadcast") || m == "lddqu" || m == "vlddqu")
}

/// How a latency chain is closed.
#[derive(Debug, Clone, PartialEq)]
pub enum Chain {
    /// Through register operand `j` (set to the destination register).
    Operand(usize),
    /// Through the destination, which the instruction also reads.
    Destination,
    /// `lea`: through the address base.
    Address,
    /// A pure load: latency is the measured load-to-use of its kind (not generated).
    LoadToUse,
    /// An integer divide: through the quotient, closed by an `or` (see [`crate::divide`]).
    Divide,
}

impl Chain {
    /// Cycles per link that are not the form's own (the instruction closing the chain).
    pub fn closing_cycles(&self) -> f64 {
        match self {
            Chain::Divide => divide::CHAIN_CLOSE_CYCLES,
            _ => 0.0,
        }
    }
}

/// How the latency of a form is measured, or why it is not.
pub fn chain_of(f: &ParsedForm) -> Result<Chain, String> {
    let Some(dest) = f.operands.first().copied() else { return Err("no operands".into()) };
    let Some(fam) = dest.family() else {
        return Err("destination is memory: latency runs through store forwarding (not measured); throughput only".into());
    };
    if f.mnemonic == "lea" {
        return Ok(Chain::Address);
    }
    if divide::is_divide(f) {
        return Ok(Chain::Divide);
    }
    if writes_only_flags(&f.mnemonic) {
        // `test rax, rax` chained on itself measures throughput: the result is in the flags
        return Err("the result is in the flags only: no register chain (throughput only)".into());
    }
    if pure_load(f) {
        return Ok(Chain::LoadToUse);
    }
    let same = (1..f.operands.len()).find(|&j| f.operands[j].family() == Some(fam));
    let rmw = !write_only_dest(&f.mnemonic);
    match same {
        Some(_) if f.operands.len() == 2 && idiom_when_same(&f.mnemonic) && rmw => Ok(Chain::Destination),
        Some(j) => Ok(Chain::Operand(j)),
        None if f.operands.iter().skip(1).any(|o| o.family().is_some()) => {
            Err("sources are in another register file (GPR <-> vector): no chain without a second instruction".into())
        }
        None if rmw => Ok(Chain::Destination),
        None => Err("destination is written only from memory or an immediate: no chain".into()),
    }
}

/// Instructions whose only result is the flags (their destination operand is only read).
fn writes_only_flags(mnemonic: &str) -> bool {
    matches!(mnemonic, "test" | "cmp" | "bt" | "ptest" | "vptest" | "comisd" | "comiss" | "ucomisd" | "ucomiss" | "vcomisd" | "vcomiss" | "vucomisd" | "vucomiss" | "vtestps" | "vtestpd")
}

/// Does the form use a memory source (so its model latency includes a load)?
pub fn loads(f: &ParsedForm) -> bool {
    f.operands.iter().skip(1).any(|o| matches!(o, Operand::Mem(_)))
        || (matches!(f.operands.first(), Some(Operand::Mem(_))) && !f.mnemonic.starts_with("mov") && !f.mnemonic.starts_with("vmov"))
}

/// Is the destination a vector register (for choosing the load-to-use latency)?
pub fn vector_dest(f: &ParsedForm) -> bool {
    matches!(f.operands.first(), Some(Operand::Vec(_)))
}

/// Copy `k` of the form in a latency chain (every copy the same).
pub fn latency_copy(f: &ParsedForm, chain: &Chain, k: usize) -> String {
    if *chain == Chain::Divide {
        return divide::latency_copy(f);
    }
    let dest = f.operands[0];
    render(f, |j, o| match o {
        Operand::Mem(bits) if *chain == Chain::Address => Some(mem(bits, &format!("{}+8", reg(Operand::Gpr(64), 0)))),
        Operand::Mem(bits) => Some(mem(bits, &format!("rsi+{}", 64 * (k % 32)))),
        Operand::Imm => None,
        _ if j == 0 => Some(reg(dest, 0)),
        _ if *chain == Chain::Operand(j) => Some(reg(o, 0)),
        _ => None,
    })
}

/// Copy `k` of the form in a throughput block (destination register `k mod pool`).
pub fn throughput_copy(f: &ParsedForm, k: usize) -> String {
    if divide::is_divide(f) {
        return divide::throughput_copy(f);
    }
    render(f, |j, o| match o {
        Operand::Mem(bits) if j == 0 => Some(mem(bits, &format!("rsi+{}", 4096 + 64 * (k % 32)))),
        Operand::Mem(bits) => Some(mem(bits, &format!("rsi+{}", 64 * (k % 32)))),
        Operand::Gpr(_) if j == 0 => Some(reg(o, k % GPR_DEST)),
        Operand::Vec(_) if j == 0 => Some(reg(o, k % VEC_DEST)),
        _ => None,
    })
}

/// The form as one instruction: `place` chooses operand `j`; the rest are immediates
/// (1) and constant source registers, each its own.
fn render(f: &ParsedForm, mut place: impl FnMut(usize, Operand) -> Option<String>) -> String {
    let mut consts = 0;
    let ops: Vec<String> = f
        .operands
        .iter()
        .enumerate()
        .map(|(j, &o)| match (place(j, o), o) {
            (Some(text), _) => text,
            (None, Operand::Imm) => "1".into(),
            (None, _) => {
                consts += 1;
                reg(o, constant(o, consts - 1))
            }
        })
        .collect();
    format!("{} {}", f.mnemonic, ops.join(", "))
}

/// Register initialisation for a loop running these forms: GPRs = 1, vectors = 1.0 (from
/// the buffer at `rsi`), in the encoding family of the forms (legacy SSE or VEX/EVEX).
pub fn init_code(forms: &[&ParsedForm]) -> String {
    let mut s = String::new();
    for r in GPR64 {
        s += &format!("mov {r}, 1\n");
    }
    let widest = forms.iter().flat_map(|f| f.operands.iter()).filter_map(|o| if let Operand::Vec(b) = o { Some(*b) } else { None }).max();
    let vex = forms.iter().any(|f| f.mnemonic.starts_with('v'));
    if let Some(bits) = widest {
        for i in 0..16 {
            s += &match (bits, vex) {
                (512, _) => format!("vbroadcastsd zmm{i}, QWORD PTR [rsi]\n"),
                (256, _) => format!("vbroadcastsd ymm{i}, QWORD PTR [rsi]\n"),
                (_, true) => format!("vmovddup xmm{i}, QWORD PTR [rsi]\n"),
                (_, false) => format!("movddup xmm{i}, QWORD PTR [rsi]\n"),
            };
        }
    }
    // after the common set-up: a divide's operands overwrite its constant registers
    if let Some(d) = forms.iter().find(|f| divide::is_divide(f)) {
        s += &divide::init(d);
    }
    s
}

/// Reciprocal throughput the base machine implies for a form (see [`Machine::rthroughput_bound`]).
pub fn base_rthroughput(machine: &Machine, form: &Form) -> Option<f64> {
    machine.rthroughput_bound(&form.uses)
}

/// The built-in representative set: (form key, what the host needs to run it).
pub const BUILTIN_FORMS: &[(&str, Need)] = &[
    ("add r64, r64", Need::Base),
    ("imul r64, r64", Need::Base),
    ("lea r64, m", Need::Base),
    ("shl r64, imm", Need::Base),
    ("popcnt r64, r64", Need::Popcnt),
    ("lzcnt r64, r64", Need::Lzcnt),
    ("add r64, m64", Need::Base),
    ("mov r64, m64", Need::Base),
    ("mov m64, r64", Need::Base),
    ("div r64", Need::Base),
    ("idiv r64", Need::Base),
    ("div r32", Need::Base),
    ("idiv r32", Need::Base),
    ("addsd xmm, xmm", Need::Base),
    ("mulsd xmm, xmm", Need::Base),
    ("divsd xmm, xmm", Need::Base),
    ("sqrtsd xmm, xmm", Need::Base),
    // the scalar FP of compiled AVX code (VEX encodings: their own entries in the tables)
    ("vaddsd xmm, xmm, xmm", Need::Avx),
    ("vsubsd xmm, xmm, xmm", Need::Avx),
    ("vmulsd xmm, xmm, xmm", Need::Avx),
    ("vfmadd231sd xmm, xmm, xmm", Need::Fma),
    ("vdivsd xmm, xmm, xmm", Need::Avx),
    ("vaddpd ymm, ymm, ymm", Need::Avx),
    ("vmulpd ymm, ymm, ymm", Need::Avx),
    ("vfmadd231pd ymm, ymm, ymm", Need::Fma),
    ("vdivpd ymm, ymm, ymm", Need::Avx),
    ("vsqrtpd ymm, ymm", Need::Avx),
    ("vaddpd ymm, ymm, m256", Need::Avx),
    ("vmovups ymm, m256", Need::Avx),
    ("vmovups m256, ymm", Need::Avx),
    ("vpaddd ymm, ymm, ymm", Need::Avx2),
    ("vpmulld ymm, ymm, ymm", Need::Avx2),
    ("vpshufb ymm, ymm, ymm", Need::Avx2),
    ("vpermps ymm, ymm, ymm", Need::Avx2),
    ("vshufps ymm, ymm, ymm, imm", Need::Avx),
    ("vaddpd zmm, zmm, zmm", Need::Avx512),
    ("vfmadd231pd zmm, zmm, zmm", Need::Avx512),
];

/// CPU features a built-in form needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    Base,
    Popcnt,
    Lzcnt,
    Avx,
    Avx2,
    Fma,
    Avx512,
}

/// What the host can run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Features {
    pub popcnt: bool,
    pub lzcnt: bool,
    pub avx: bool,
    pub avx2: bool,
    pub fma: bool,
    pub avx512f: bool,
}

impl Features {
    pub fn has(&self, n: Need) -> bool {
        match n {
            Need::Base => true,
            Need::Popcnt => self.popcnt,
            Need::Lzcnt => self.lzcnt,
            Need::Avx => self.avx,
            Need::Avx2 => self.avx2,
            Need::Fma => self.fma && self.avx,
            Need::Avx512 => self.avx512f,
        }
    }
    /// Everything (for the synthetic timer).
    pub fn all() -> Features {
        Features { popcnt: true, lzcnt: true, avx: true, avx2: true, fma: true, avx512f: true }
    }
    /// The features of the CPU this runs on.
    pub fn host() -> Features {
        #[cfg(target_arch = "x86_64")]
        {
            Features {
                popcnt: std::arch::is_x86_feature_detected!("popcnt"),
                lzcnt: std::arch::is_x86_feature_detected!("lzcnt"),
                avx: std::arch::is_x86_feature_detected!("avx"),
                avx2: std::arch::is_x86_feature_detected!("avx2"),
                fma: std::arch::is_x86_feature_detected!("fma"),
                avx512f: std::arch::is_x86_feature_detected!("avx512f"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Features::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(k: &str) -> ParsedForm {
        parse(k).unwrap()
    }

    #[test]
    fn chains_follow_the_destination() {
        let f = p("vaddpd ymm, ymm, ymm");
        assert_eq!(chain_of(&f), Ok(Chain::Operand(1)));
        assert_eq!(latency_copy(&f, &Chain::Operand(1), 0), "vaddpd ymm0, ymm0, ymm12");
        assert_eq!(throughput_copy(&f, 13), "vaddpd ymm1, ymm12, ymm13");
        let f = p("add r64, r64");
        assert_eq!(latency_copy(&f, &chain_of(&f).unwrap(), 0), "add rax, rax");
        // `sub rax, rax` would be a zero idiom: chain through the destination instead
        let f = p("sub r64, r64");
        assert_eq!(chain_of(&f), Ok(Chain::Destination));
        assert_eq!(latency_copy(&f, &Chain::Destination, 0), "sub rax, r13");
        let f = p("add r64, m64");
        assert_eq!(chain_of(&f), Ok(Chain::Destination));
        assert_eq!(latency_copy(&f, &Chain::Destination, 1), "add rax, QWORD PTR [rsi+64]");
        assert!(loads(&f));
        let f = p("lea r64, m");
        assert_eq!(latency_copy(&f, &chain_of(&f).unwrap(), 0), "lea rax, [rax+8]");
        assert_eq!(chain_of(&p("mov r64, m64")), Ok(Chain::LoadToUse));
        assert_eq!(chain_of(&p("vpbroadcastd xmm, m32")), Ok(Chain::LoadToUse));
        assert!(chain_of(&p("mov m64, r64")).is_err());
        assert_eq!(throughput_copy(&p("mov m64, r64"), 1), "mov QWORD PTR [rsi+4160], r13");
        assert!(chain_of(&p("vmovq r64, xmm")).is_err());
        assert_eq!(chain_of(&p("shl r64, imm")), Ok(Chain::Destination));
        assert!(chain_of(&p("popcnt r64, m64")).is_err());
        assert_eq!(chain_of(&p("div r64")), Ok(Chain::Divide));
        assert!(parse("div m64").is_err());
        assert!(parse("kmovw k, r32").is_err());
        assert!(parse("jne rel").is_err());
    }
}
