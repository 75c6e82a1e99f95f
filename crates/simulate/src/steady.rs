//! Running a block repeatedly through one timing variant.

use bottlenose_decode::BranchKind;
use bottlenose_timing::{Core, CoreConfig, DynInfo, InstrTiming, Listener, StageDetails};

/// Result of iterating a block.
#[derive(Debug, Clone)]
pub struct BlockRun {
    pub iterations: u32,
    pub total_cycles: f64,
    /// Commit cycle of each iteration's last instruction.
    pub iteration_ends: Vec<f64>,
}

impl BlockRun {
    /// Steady-state cycles per iteration: measured over the second half of the
    /// run so that the ramp-up of an empty pipeline does not count.
    pub fn cycles_per_iteration(&self) -> f64 {
        let n = self.iteration_ends.len();
        if n < 4 {
            return self.total_cycles / n.max(1) as f64;
        }
        let half = n / 2;
        (self.iteration_ends[n - 1] - self.iteration_ends[half - 1]) / (n - half) as f64
    }
}

/// Iterates `block` `iterations` times on a core built from `cfg`.
pub fn run_block<L: Listener>(block: &[InstrTiming], cfg: CoreConfig, iterations: u32, listener: &mut L) -> BlockRun {
    let (return_bubble, indirect_bubble, fetch_block_gap) = (cfg.return_bubble, cfg.indirect_bubble, cfg.fetch_block_gap);
    let mut core = Core::new(cfg);
    // the back edge is taken, so each iteration starts a fetch block; so does each new fetch
    // window. A call leaves the block: the callee (at least its `ret`, one fetch block) and
    // the return's bubble come before the instruction after the call, which starts a block.
    let dyns: Vec<DynInfo> = block
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let after_call = i > 0 && matches!(block[i - 1].branch, BranchKind::DirectCall | BranchKind::IndirectCall);
            let fetch_bubble = if after_call {
                let indirect = if block[i - 1].branch == BranchKind::IndirectCall { indirect_bubble } else { 0.0 };
                fetch_block_gap + return_bubble + indirect
            } else {
                0.0
            };
            DynInfo {
                new_fetch_block: i == 0 || after_call || it.fetch_window != block[i - 1].fetch_window,
                fetch_bubble: fetch_bubble as f32,
                // a string instruction's count is a run-time value: the stated assumption
                string: it.string.map(|s| s.assumed_work()).unwrap_or_default(),
                ..Default::default()
            }
        })
        .collect();
    let mut ends = Vec::with_capacity(iterations as usize);
    let mut last_commit = 0.0;
    let mut details = StageDetails::default();
    for _ in 0..iterations {
        for (i, (it, dy)) in block.iter().zip(&dyns).enumerate() {
            // read in place: a copy of the whole record would load it in wide
            // pieces right after the model's narrow stores (a store-forwarding stall)
            let t = if L::DETAILS {
                let t = core.step(it, dy, &mut details);
                listener.on_detailed(i, &t, &details);
                t
            } else {
                let t = core.step_fast(it, dy);
                listener.on_instruction(i, &t);
                t
            };
            last_commit = t.commit;
        }
        ends.push(last_commit);
    }
    BlockRun { iterations, total_cycles: core.cycles(), iteration_ends: ends }
}

/// Default number of iterations: enough dynamic instructions that a 1 %
/// acceleration is measurable (≥ 50 000), at least 100 iterations.
pub fn default_iterations(block_len: usize) -> u32 {
    (50_000usize.div_ceil(block_len.max(1))).clamp(100, 100_000) as u32
}

impl BlockRun {
    /// Whether the last two quarters of the run agree on cycles per iteration
    /// (within 0.5 %, or within the resolution of whole cycles over a quarter).
    pub fn is_steady(&self) -> bool {
        let n = self.iteration_ends.len();
        if n < 8 {
            return true;
        }
        let q = n / 4;
        let e = &self.iteration_ends;
        let q3 = (e[n - q - 1] - e[n - 2 * q - 1]) / q as f64;
        let q4 = (e[n - 1] - e[n - q - 1]) / q as f64;
        (q3 - q4).abs() <= (0.005 * q4).max(2.0 / q as f64)
    }
}

/// Iterations needed for a steady state: start from [`default_iterations`] and
/// double (at most 8x) until the last two quarters of the run agree.
pub fn steady_iterations(block: &[InstrTiming], cfg: &CoreConfig) -> u32 {
    let mut n = default_iterations(block.len());
    for _ in 0..3 {
        if run_block(block, cfg.clone(), n, &mut ()).is_steady() {
            break;
        }
        n = n.saturating_mul(2);
    }
    n
}
