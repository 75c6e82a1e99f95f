//! A timer that runs nothing: it models the ticks a machine with known parameters would
//! take for each bench (with a clock that can change, call overhead and noise), so tests can
//! check that the calibration recovers the parameters.

use crate::bench::{Bench, ChaseLoad, Mix, WongKind};
use crate::forms::Features;
use crate::{BenchError, Timer};

/// The "true" machine behind a [`SyntheticTimer`].
#[derive(Debug, Clone)]
pub struct TrueMachine {
    pub tsc_hz: f64,
    /// TSC ticks per core cycle, and after `clock_change_at` timed runs, `ticks_per_cycle_after`.
    pub ticks_per_cycle: f64,
    pub ticks_per_cycle_after: f64,
    pub clock_change_at: u64,
    /// Each run's tick count is also multiplied by 1 + this fraction times a uniform [-1, 1]
    /// draw per run (a clock that wanders within a bench).
    pub clock_jitter: f64,
    /// Ticks every run costs besides its iterations (call, timer).
    pub overhead_ticks: f64,
    /// Mean of the exponential slowdown of a run (fraction), and the chance of a +25 % outlier.
    pub noise: f64,
    pub outlier_rate: f64,
    pub seed: u64,
    /// Cache sizes in bytes and load-to-use latencies (integer loads), DRAM latency with huge
    /// pages, and what 4 KiB pages add to a DRAM access.
    pub sizes: [u64; 3],
    pub latency: [f64; 3],
    pub dram_latency: f64,
    pub tlb_miss: f64,
    /// DRAM latency is multiplied by this during every other `dram_burst_calls` timed runs
    /// (a neighbour's memory traffic); 1: steady.
    pub dram_burst: f64,
    pub dram_burst_calls: u64,
    /// Vector load-to-use and the xmm -> GPR move (the GPR -> xmm move takes the same).
    pub vector_load: f64,
    pub xmm_to_gpr: f64,
    /// Read bandwidth per level and DRAM, bytes per cycle.
    pub bandwidth: [f64; 4],
    /// The model's mispredict penalty (after the branch resolves) and a learnable branch's cost.
    pub mispredict_penalty: f64,
    pub branch_cycles: f64,
    /// Cycles per taken jump.
    pub taken_cycles: f64,
    pub rob: u32,
    pub scheduler: u32,
    pub load_buffer: u32,
    pub store_buffer: u32,
    pub dispatch: f64,
    pub alu_ports: f64,
    /// (form, latency, reciprocal throughput, port): pairs on the same port add up.
    pub forms: Vec<(String, f64, f64, String)>,
    /// Store-to-load forwarding as the model charges it: a load-add-store round through
    /// memory takes this + 1 (the add) + 1 (the store writing its data).
    pub store_forward_latency: f64,
    /// Memory renaming: a load naming the same address expression as the store gets its
    /// data this long after the add (a round: this + 1); `None`: no renaming.
    pub renamed_forward_latency: Option<f64>,
    /// The renaming also catches a store that names the address another way (as the Zen 5
    /// these sessions ran on does): both chains run at the renamed pace.
    pub renames_any_naming: bool,
    /// L1I size and latency; cycles per 64-byte line of straight-line code in the L1I
    /// (decode), and the L1I misses the front end keeps in flight streaming code from L2
    /// (then a line takes the L2's extra latency over the L1I's divided by them).
    pub l1i_bytes: u64,
    pub l1i_latency: f64,
    pub code_l1_line_cycles: f64,
    pub icache_misses_in_flight: f64,
}

impl Default for TrueMachine {
    fn default() -> Self {
        let f = |k: &str, l: f64, t: f64, p: &str| (k.to_string(), l, t, p.to_string());
        TrueMachine {
            tsc_hz: 2.6e9,
            ticks_per_cycle: 2.5,
            ticks_per_cycle_after: 2.5,
            clock_change_at: u64::MAX,
            clock_jitter: 0.0,
            overhead_ticks: 200.0,
            noise: 0.01,
            outlier_rate: 0.05,
            seed: 1,
            sizes: [48 << 10, 2 << 20, 32 << 20],
            latency: [5.0, 14.0, 50.0],
            dram_latency: 400.0,
            tlb_miss: 220.0,
            dram_burst: 1.0,
            dram_burst_calls: 100,
            vector_load: 7.0,
            xmm_to_gpr: 3.0,
            bandwidth: [96.0, 32.0, 16.0, 8.0],
            mispredict_penalty: 13.0,
            branch_cycles: 1.5,
            taken_cycles: 2.0,
            rob: 256,
            scheduler: 97,
            load_buffer: 88,
            store_buffer: 64,
            dispatch: 6.0,
            alu_ports: 4.0,
            forms: vec![
                f("add r64, r64", 1.0, 0.25, "alu"),
                f("imul r64, r64", 3.0, 1.0, "mul"),
                f("vaddpd ymm, ymm, ymm", 3.0, 0.5, "fadd"),
                f("vmulpd ymm, ymm, ymm", 4.0, 0.5, "fmul"),
                f("vfmadd231pd ymm, ymm, ymm", 4.0, 0.5, "fmul"),
                f("vdivpd ymm, ymm, ymm", 13.0, 5.0, "fdiv"),
                f("add r64, m64", 1.0, 0.33, "alu"),
                f("mov r64, m64", 5.0, 0.33, "load"),
                f("mov m64, r64", 1.0, 1.0, "store"),
                f("div r64", 13.0, 7.5, "div"),
                f("idiv r64", 14.0, 8.0, "div"),
                f("div r32", 11.0, 6.0, "div"),
                f("idiv r32", 11.0, 6.0, "div"),
            ],
            store_forward_latency: 7.0,
            renamed_forward_latency: Some(0.0),
            renames_any_naming: false,
            l1i_bytes: 32 << 10,
            l1i_latency: 1.0,
            code_l1_line_cycles: 2.0,
            icache_misses_in_flight: 3.0,
        }
    }
}

/// See the module documentation.
pub struct SyntheticTimer {
    pub machine: TrueMachine,
    pub calls: u64,
    rng: u64,
}

impl SyntheticTimer {
    pub fn new(machine: TrueMachine) -> SyntheticTimer {
        let rng = machine.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        SyntheticTimer { machine, calls: 0, rng }
    }

    fn uniform(&mut self) -> f64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn form(&self, key: &str) -> Result<&(String, f64, f64, String), BenchError> {
        self.machine.forms.iter().find(|f| f.0 == key).ok_or_else(|| BenchError::Unsupported("not in the synthetic machine".into()))
    }

    /// Core cycles per unit of a bench on the true machine.
    pub fn cycles_per_unit(&self, bench: &Bench) -> Result<f64, BenchError> {
        let mut m = self.machine.clone();
        if (self.calls / m.dram_burst_calls.max(1)) % 2 == 1 {
            m.dram_latency *= m.dram_burst;
        }
        let m = &m;
        let level = |bytes: u64| m.sizes.iter().position(|&s| bytes <= s).unwrap_or(3);
        Ok(match bench {
            Bench::Chain { op } => op.cycles(),
            Bench::Chase { bytes, load, huge } => {
                // a cyclic chase larger than a level misses it every time (LRU)
                let l = level(*bytes);
                let base = if l < 3 { m.latency[l] } else { m.dram_latency + if *huge { 0.0 } else { m.tlb_miss } };
                match load {
                    ChaseLoad::Int => base,
                    ChaseLoad::Vector => base - m.latency[0] + m.vector_load + m.xmm_to_gpr,
                }
            }
            Bench::MovqRoundTrip => 2.0 * m.xmm_to_gpr,
            Bench::Stream { bytes, .. } => 1.0 / m.bandwidth[level(*bytes)],
            Bench::Branch { random } => {
                m.branch_cycles + if *random { 0.5 * (m.mispredict_penalty + m.latency[0] + 1.0) } else { 0.0 }
            }
            Bench::Taken => m.taken_cycles,
            Bench::Wong { kind, fillers } => {
                let (size, extra) = match kind {
                    WongKind::Rob => (m.rob * 2, 2), // nops two per entry (a core that packs them)
                    WongKind::RobMove => (m.rob, 2),
                    WongKind::Scheduler => (m.scheduler, 1),
                    WongKind::LoadBuffer => (m.load_buffer, 2),
                    WongKind::StoreBuffer => (m.store_buffer, 0),
                };
                if fillers + extra <= size {
                    m.dram_latency.max((2 * fillers + 2) as f64 / m.dispatch)
                } else {
                    2.0 * m.dram_latency
                }
            }
            Bench::Dispatch { mix } => 1.0 / if *mix == Mix::Alu { m.dispatch.min(m.alu_ports) } else { m.dispatch },
            // for load forms: the operation alone (the load is off the chain); a divide's
            // chain closes through `or rax, r14` (1 cycle) to keep the dividend wide
            Bench::FormLatency { form } => {
                let divide = form.starts_with("div ") || form.starts_with("idiv ");
                self.form(form)?.1 + if divide { 1.0 } else { 0.0 }
            }
            Bench::FormThroughput { form } => self.form(form)?.2,
            Bench::FormPair { a, b } => {
                let (fa, fb) = (self.form(a)?, self.form(b)?);
                if fa.3 == fb.3 {
                    fa.2 + fb.2
                } else {
                    fa.2.max(fb.2)
                }
            }
            Bench::StoreForward { renamed } => match (*renamed || m.renames_any_naming, m.renamed_forward_latency) {
                (true, Some(r)) => r + 1.0,
                _ => m.store_forward_latency + 2.0,
            },
            Bench::CodeStream { bytes } if *bytes <= m.l1i_bytes => m.code_l1_line_cycles,
            Bench::CodeStream { .. } => m.code_l1_line_cycles.max((m.latency[1] - m.l1i_latency) / m.icache_misses_in_flight),
        })
    }
}

impl Timer for SyntheticTimer {
    fn tsc_hz(&mut self) -> f64 {
        self.machine.tsc_hz
    }

    fn ticks(&mut self, bench: &Bench, iterations: u64) -> Result<f64, BenchError> {
        let c = self.cycles_per_unit(bench)? * bench.units_per_iteration() * iterations as f64;
        let tpc = if self.calls < self.machine.clock_change_at { self.machine.ticks_per_cycle } else { self.machine.ticks_per_cycle_after };
        self.calls += 1;
        let jitter = 1.0 + self.machine.clock_jitter * (2.0 * self.uniform() - 1.0);
        let mut slow = -self.machine.noise * (1.0 - self.uniform()).ln();
        if self.uniform() < self.machine.outlier_rate {
            slow += 0.25;
        }
        Ok((c * tpc * jitter + self.machine.overhead_ticks) * (1.0 + slow))
    }

    fn features(&self) -> Features {
        Features::all()
    }
}
