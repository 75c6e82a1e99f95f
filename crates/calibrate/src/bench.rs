//! Benchmark descriptions: what a [`Timer`](crate::Timer) runs. A description says what one
//! loop iteration does and how many *units* (the thing measured: instructions, loads, bytes,
//! branches, iterations) it holds; the timer turns it into code and data (or, for the
//! synthetic timer, into a modelled tick count). Everything here is plain data so the
//! arithmetic that turns ticks into machine parameters can be tested without hardware.

use serde::Serialize;

/// Instructions of the clock chains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ChainOp {
    /// `add %r, %r` (never `add $imm`: Golden Cove and later fold immediate adds at rename): 1 cycle.
    Add,
    /// `imul %r, %r`: 3 cycles on every x86-64 core since Nehalem / Zen.
    Imul,
}

impl ChainOp {
    /// Latency in core cycles that the calibration assumes.
    pub fn cycles(self) -> f64 {
        match self {
            ChainOp::Add => 1.0,
            ChainOp::Imul => 3.0,
        }
    }
}

/// How a pointer chase loads its next pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ChaseLoad {
    /// `mov rax, [rax]`: general-purpose load, base addressing.
    Int,
    /// `vmovq xmm0, [rax]; vmovq rax, xmm0`: vector load plus the move back to a GPR.
    Vector,
}

/// Which structure a Wong test fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum WongKind {
    /// `nop` fillers: one ROB entry each, no register, no port (Intel; on Zen 4 nops hold
    /// no entry of their own and show no step).
    Rob,
    /// Eliminated `mov rN, r12` fillers: a ROB entry, no port and (eliminated) no new
    /// register; the ROB on Zen 4, the register file where moves are not eliminated.
    RobMove,
    /// `add rN, rax` fillers that depend on the first miss: they wait in the scheduler.
    Scheduler,
    /// Independent L1-hit loads: they complete but hold their load-queue entries until retirement.
    LoadBuffer,
    /// Stores to an L1 line: they hold store-queue entries until retirement.
    StoreBuffer,
}

impl WongKind {
    /// Every kind, in the order the calibration sweeps them.
    pub const ALL: [WongKind; 5] = [WongKind::Rob, WongKind::RobMove, WongKind::Scheduler, WongKind::LoadBuffer, WongKind::StoreBuffer];
    /// Entries of the structure taken besides the N fillers between the two misses: the
    /// largest N whose two misses still overlap plus this is the structure's size.
    /// ROB and load queue: both missing loads; scheduler: the second load (the first has
    /// issued); store queue: none (the misses are loads).
    pub fn extra_entries(self) -> u32 {
        match self {
            WongKind::Rob | WongKind::RobMove | WongKind::LoadBuffer => 2,
            WongKind::Scheduler => 1,
            WongKind::StoreBuffer => 0,
        }
    }
    pub fn key(self) -> &'static str {
        match self {
            WongKind::Rob | WongKind::RobMove => "core.rob",
            WongKind::Scheduler => "core.scheduler",
            WongKind::LoadBuffer => "core.load_buffer",
            WongKind::StoreBuffer => "core.store_buffer",
        }
    }
    pub fn filler(self) -> &'static str {
        match self {
            WongKind::Rob => "nop",
            WongKind::RobMove => "mov rN, r12",
            WongKind::Scheduler => "add rN, rax (waits for the first miss; the integer register file may be the first limit)",
            WongKind::LoadBuffer => "mov rN, [L1 line]",
            WongKind::StoreBuffer => "mov [L1 line], rN",
        }
    }
}

/// Instruction mixes of the dispatch-width test (independent 1-cycle ops, no zero idioms or
/// eliminated moves).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Mix {
    /// Integer `add rN, r13` over 10 destinations: limited by the integer ALUs.
    Alu,
    /// Two integer adds per `paddd xmmN, xmm15`.
    AluVec,
    /// `add`, `paddd`, `add`, `paddd`, `add`, L1 load: ALU, vector and load pipes together.
    AluVecLoad,
    /// `nop` only: dispatch/rename slots, no port.
    Nop,
}

impl Mix {
    pub const ALL: [Mix; 4] = [Mix::Alu, Mix::AluVec, Mix::AluVecLoad, Mix::Nop];
    /// Counts for the dispatch width: nops do not (Zen 4 runs 12 per cycle, two per slot).
    pub fn counts(self) -> bool {
        self != Mix::Nop
    }
    pub fn name(self) -> &'static str {
        match self {
            Mix::Alu => "add",
            Mix::AluVec => "add+paddd",
            Mix::AluVecLoad => "add+paddd+load",
            Mix::Nop => "nop",
        }
    }
}

/// Instructions per iteration of a dispatch-mix loop (before the fused `dec/jnz`).
pub const DISPATCH_BODY: u32 = 120;
/// Chain instructions per iteration of the clock chains.
pub const CHAIN_BODY: u32 = 200;
/// Loads per iteration of a pointer chase.
pub const CHASE_BODY: u32 = 16;
/// Branches per iteration of the branch tests (one pass over the pattern array).
pub const BRANCH_ARRAY: u32 = 4 << 20;
/// Taken jumps per iteration of the taken-branch test (including the loop branch).
pub const TAKEN_BODY: u32 = 64;
/// Copies of a form per iteration of its latency or throughput loop.
pub const FORM_BODY: u32 = 96;
/// Load-add-store rounds per iteration of the store-forwarding chains.
pub const FORWARD_BODY: u32 = 32;
/// Bytes of the instructions of the code-streaming test (8-byte nops: eight per 64-byte line,
/// few enough that decoding them is not the limit).
pub const CODE_INSTRUCTION_BYTES: u64 = 8;
/// Cache line of the code-streaming test, bytes (its unit).
pub const CODE_LINE_BYTES: u64 = 64;

/// One benchmark loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Bench {
    /// `CHAIN_BODY` dependent `op` per iteration; unit: one instruction.
    Chain { op: ChainOp },
    /// Pointer chase over a random cyclic permutation of 64-byte nodes filling `bytes`
    /// (`huge`: MADV_HUGEPAGE); unit: one load.
    Chase { bytes: u64, load: ChaseLoad, huge: bool },
    /// `vmovq xmm0, rax; vmovq rax, xmm0` chain; unit: one round trip.
    MovqRoundTrip,
    /// Sequential read of `bytes` with 32-byte (16 without AVX) vector loads spread over
    /// `streams` pointers; iteration: one pass; unit: one byte.
    Stream { bytes: u64, streams: u32, huge: bool },
    /// `movzx eax, byte [p+k]; test; jz` over a `BRANCH_ARRAY`-byte pattern, random (50 %
    /// taken; long enough that no predictor memorizes it: Zen 4 learns a 32 KiB one) or a
    /// learnable period-8 pattern with the same taken ratio; unit: one branch.
    Branch { random: bool },
    /// `TAKEN_BODY` taken jumps in a row (the last is the loop branch); unit: one taken branch.
    Taken,
    /// Wong's test: two independent DRAM pointer chases (huge pages), N fillers after each
    /// load; unit: one iteration (one load of each chase).
    Wong { kind: WongKind, fillers: u32 },
    /// `DISPATCH_BODY` independent instructions plus the loop branch; unit: one instruction.
    Dispatch { mix: Mix },
    /// `FORM_BODY` copies of an instruction form chained through its destination; unit: one instance.
    FormLatency { form: String },
    /// `FORM_BODY` independent copies of an instruction form; unit: one instance.
    FormThroughput { form: String },
    /// `FORM_BODY/2` copies of each of two forms interleaved, independent; unit: one pair.
    FormPair { a: String, b: String },
    /// `FORWARD_BODY` rounds of a load-add-store chain through one L1 quadword:
    /// `mov rax, [rdi+520]; add rax, r13; mov [X], rax`, where X names the same address as
    /// the load (`renamed`: `[rdi+520]`, so a core that renames memory can take the stored
    /// value straight from the add) or another expression for it (`[rcx+528]` with
    /// rcx = rdi - 8: only store-to-load forwarding can serve it); unit: one round.
    StoreForward { renamed: bool },
    /// A loop over `bytes` of straight-line code (`CODE_INSTRUCTION_BYTES`-byte nops): with
    /// the code larger than the L1I, the front end streams it from L2; unit: one 64-byte line.
    CodeStream { bytes: u64 },
}

impl Bench {
    /// Units of work in one iteration.
    pub fn units_per_iteration(&self) -> f64 {
        match self {
            Bench::Chain { .. } => CHAIN_BODY as f64,
            Bench::Chase { .. } => CHASE_BODY as f64,
            Bench::MovqRoundTrip => CHAIN_BODY as f64 / 2.0,
            Bench::Stream { bytes, .. } => *bytes as f64,
            Bench::Branch { .. } => BRANCH_ARRAY as f64,
            Bench::Taken => TAKEN_BODY as f64,
            Bench::Wong { .. } => 1.0,
            Bench::Dispatch { .. } => DISPATCH_BODY as f64 + 1.0,
            Bench::FormLatency { .. } | Bench::FormThroughput { .. } => FORM_BODY as f64,
            Bench::FormPair { .. } => FORM_BODY as f64 / 2.0,
            Bench::StoreForward { .. } => FORWARD_BODY as f64,
            Bench::CodeStream { bytes } => (*bytes / CODE_LINE_BYTES).max(1) as f64,
        }
    }

    /// TSC ticks one timed run should last (longer for the tests that sample memory).
    pub fn target_ticks(&self) -> f64 {
        match self {
            Bench::Chase { bytes, .. } if *bytes > (64 << 20) => 4.0e6,
            Bench::Chase { .. } => 1.0e6,
            Bench::Stream { .. } => 1.0e6,
            Bench::Branch { .. } => 2.0e6,
            Bench::Wong { .. } => 4.0e5,
            _ => 2.0e5,
        }
    }

    /// Short text for progress lines and errors.
    pub fn label(&self) -> String {
        match self {
            Bench::Chain { op } => format!("{op:?} chain"),
            Bench::Chase { bytes, load, huge } => {
                format!("{load:?} chase {} {}", human_bytes(*bytes), if *huge { "huge pages" } else { "4 KiB pages" })
            }
            Bench::MovqRoundTrip => "vmovq round trip".into(),
            Bench::Stream { bytes, streams, .. } => format!("read {} x{streams}", human_bytes(*bytes)),
            Bench::Branch { random } => format!("branch {}", if *random { "random" } else { "periodic" }),
            Bench::Taken => "taken jumps".into(),
            Bench::Wong { kind, fillers } => format!("Wong {kind:?} N={fillers}"),
            Bench::Dispatch { mix } => format!("dispatch {}", mix.name()),
            Bench::FormLatency { form } => format!("latency `{form}`"),
            Bench::FormThroughput { form } => format!("throughput `{form}`"),
            Bench::FormPair { a, b } => format!("pair `{a}` + `{b}`"),
            Bench::StoreForward { renamed } => {
                format!("load-add-store chain, {}", if *renamed { "same address expression" } else { "aliasing address expressions" })
            }
            Bench::CodeStream { bytes } => format!("straight-line code {}", human_bytes(*bytes)),
        }
    }
}

pub fn human_bytes(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{} MiB", b >> 20)
    } else if b >= 1 << 10 {
        format!("{} KiB", b >> 10)
    } else {
        format!("{b} B")
    }
}
