//! A block run as a loop through the engine: the steady state of every variant
//! from the commit cycles that end marked iterations.

use crate::engine::VariantEngine;
use crate::source::{drive, LoopSource};
use bottlenose_timing::{CoreConfig, InstrTiming, Listener};

/// One variant's run of a block.
#[derive(Debug, Clone)]
pub struct BlockRun {
    pub iterations: u32,
    pub total_cycles: f64,
    /// The commit cycle of the last instruction of each iteration in [`steady_marks`].
    ends: Vec<(u32, f64)>,
}

impl BlockRun {
    /// The commit cycle that ends iteration `i` (0-based), one of [`steady_marks`].
    fn end(&self, i: usize) -> f64 {
        let k = self.ends.binary_search_by_key(&(i as u32), |e| e.0).expect("a marked iteration");
        self.ends[k].1
    }

    /// Steady-state cycles per iteration: measured over the second half of the
    /// run so that the ramp-up of an empty pipeline does not count.
    pub fn cycles_per_iteration(&self) -> f64 {
        let n = self.iterations as usize;
        if n < 4 {
            return self.total_cycles / n.max(1) as f64;
        }
        let half = n / 2;
        (self.end(n - 1) - self.end(half - 1)) / (n - half) as f64
    }

    /// Whether the last two quarters of the run agree on cycles per iteration
    /// (within 0.5 %, or within the resolution of whole cycles over a quarter).
    pub fn is_steady(&self) -> bool {
        let n = self.iterations as usize;
        if n < 8 {
            return true;
        }
        let q = n / 4;
        let q3 = (self.end(n - q - 1) - self.end(n - 2 * q - 1)) / q as f64;
        let q4 = (self.end(n - 1) - self.end(n - q - 1)) / q as f64;
        (q3 - q4).abs() <= (0.005 * q4).max(2.0 / q as f64)
    }
}

/// The iterations whose end the steady state reads: the end of the first half,
/// of the second and third quarter, and of the run.
pub fn steady_marks(iterations: u32) -> Vec<u32> {
    let n = iterations;
    let mut m = Vec::new();
    if n >= 4 {
        m.extend([n / 2 - 1, n - 1]);
    }
    if n >= 8 {
        let q = n / 4;
        m.extend([n - 2 * q - 1, n - q - 1]);
    }
    m.sort_unstable();
    m.dedup();
    m
}

/// Runs `block` `iterations` times on every config (`configs[0]` with
/// `listener`): `threads` worker threads, or the caller's thread when 0.
/// Variants that see the loop differently (a call's bubble depends on the
/// fetch rate) get a stream of their own.
pub fn run_loop<L: Listener + Send + 'static>(block: &[InstrTiming], configs: Vec<CoreConfig>, listener: L, iterations: u32, threads: usize) -> (Vec<BlockRun>, L) {
    assert!(!configs.is_empty(), "at least the baseline variant");
    let facts: Vec<_> = configs.iter().map(|c| LoopSource::facts(block, c)).collect();
    let key = |k: usize| facts[k].iter().map(|d| d.fetch_bubble.to_bits()).collect::<Vec<u32>>();
    // streams: the configs that share one stream's facts, the baseline's first
    let mut streams: Vec<(Vec<u32>, Vec<usize>)> = Vec::new();
    for k in 0..configs.len() {
        let kk = key(k);
        match streams.iter_mut().find(|s| s.0 == kk) {
            Some(s) => s.1.push(k),
            None => streams.push((kk, vec![k])),
        }
    }
    let marks = steady_marks(iterations);
    let mut runs: Vec<Option<BlockRun>> = vec![None; configs.len()];
    let mut listener = Some(listener);
    let mut finished = None;
    for (_, members) in &streams {
        let cfgs: Vec<CoreConfig> = members.iter().map(|&k| configs[k].clone()).collect();
        let mut source = LoopSource::new(block, facts[members[0]].clone(), iterations, marks.clone());
        let outcomes = match listener.take() {
            Some(l) => {
                let mut engine = engine(cfgs, l, threads);
                drive(&mut source, &mut engine);
                let (o, l) = engine.finish();
                finished = Some(l);
                o
            }
            None => {
                let mut engine = engine(cfgs, (), threads);
                drive(&mut source, &mut engine);
                engine.finish().0
            }
        };
        for (&k, o) in members.iter().zip(outcomes) {
            runs[k] = Some(BlockRun { iterations, total_cycles: o.cycles, ends: marks.iter().copied().zip(o.marks).collect() });
        }
    }
    (runs.into_iter().map(|r| r.expect("every variant ran")).collect(), finished.expect("the baseline's stream"))
}

fn engine<L: Listener + Send + 'static>(configs: Vec<CoreConfig>, listener: L, threads: usize) -> VariantEngine<L> {
    if threads == 0 {
        VariantEngine::inline(configs, listener)
    } else {
        VariantEngine::new(configs, listener, threads)
    }
}

/// Iterates `block` `iterations` times on one core, on the caller's thread.
pub fn run_block<L: Listener + Send + 'static>(block: &[InstrTiming], cfg: CoreConfig, iterations: u32, listener: L) -> (BlockRun, L) {
    let (mut runs, l) = run_loop(block, vec![cfg], listener, iterations, 0);
    (runs.remove(0), l)
}

/// Default number of iterations: enough dynamic instructions that a 1 %
/// acceleration is measurable (≥ 50 000), at least 100 iterations.
pub fn default_iterations(block_len: usize) -> u32 {
    (50_000usize.div_ceil(block_len.max(1))).clamp(100, 100_000) as u32
}

/// Iterations needed for a steady state: start from [`default_iterations`] and
/// double (at most 8x) until the last two quarters of the run agree.
pub fn steady_iterations(block: &[InstrTiming], cfg: &CoreConfig) -> u32 {
    let mut n = default_iterations(block.len());
    for _ in 0..3 {
        if run_block(block, cfg.clone(), n, ()).0.is_steady() {
            break;
        }
        n = n.saturating_mul(2);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knob::{accelerate, Knob};
    use bottlenose_machine::Machine;
    use bottlenose_timing::{resolve_block, Acceleration, Core};

    /// The iteration ends of a core stepped by hand through the loop's facts.
    fn by_hand(block: &[InstrTiming], cfg: CoreConfig, iterations: u32) -> (Vec<f64>, f64) {
        let facts = LoopSource::facts(block, &cfg);
        let mut core = Core::new(cfg);
        let mut ends = Vec::new();
        for _ in 0..iterations {
            let mut last = 0.0;
            for (it, dy) in block.iter().zip(&facts) {
                last = core.step_fast(it, dy).commit;
            }
            ends.push(last);
        }
        (ends, core.cycles())
    }

    #[test]
    fn every_variant_marks_its_own_iteration_ends() {
        let m = Machine::resolve("skylake").unwrap();
        // imul %rax,%rax; add %rbx,%rcx; add %rbx,%rdx: a 3-cycle recurrence beside two adds
        let insts = bottlenose_decode::decode_block(&[0x48, 0x0f, 0xaf, 0xc0, 0x48, 0x01, 0xd9, 0x48, 0x01, 0xda], 0).unwrap();
        let (block, _) = resolve_block(&m, &insts);
        let nominal = CoreConfig::new(&m, &Acceleration::nominal(&m));
        let faster = CoreConfig::new(&m, &accelerate(&m, &[Knob::parse(&m, "latency").unwrap()], 2.0));
        let iterations = 1000;
        for threads in [0, 2] {
            let (runs, ()) = run_loop(&block, vec![nominal.clone(), faster.clone()], (), iterations, threads);
            for (run, cfg) in runs.iter().zip([&nominal, &faster]) {
                let (ends, cycles) = by_hand(&block, cfg.clone(), iterations);
                assert_eq!(run.total_cycles, cycles);
                let n = ends.len();
                assert_eq!(run.cycles_per_iteration(), (ends[n - 1] - ends[n / 2 - 1]) / (n - n / 2) as f64);
            }
            // the imul chain: 3 cycles per iteration, 1.5 at half the latency
            assert_eq!(runs[0].cycles_per_iteration(), 3.0);
            assert_eq!(runs[1].cycles_per_iteration(), 1.5);
        }
    }

    #[test]
    fn steady_marks_are_the_ends_the_steady_state_reads() {
        assert_eq!(steady_marks(3), Vec::<u32>::new());
        assert_eq!(steady_marks(4), [1, 3]);
        // 100 iterations: half 50 -> iteration 49; quarters of 25 -> 49, 74; the last, 99
        assert_eq!(steady_marks(100), [49, 74, 99]);
        // 10: half 5 -> 4; quarters of 2 -> 5, 7; last 9
        assert_eq!(steady_marks(10), [4, 5, 7, 9]);
    }
}
