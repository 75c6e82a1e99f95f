//! Where the executed-instruction stream comes from. A [`Source`] hands out
//! batches for the engine; [`LoopSource`] is a static block repeated, with the
//! dynamic facts a loop implies (its fetch blocks, the bubble after a call, a
//! string instruction's assumed count). A dynamic run's trace is the other
//! source (`bottlenose_trace_source::TraceSource`): it reads the trace until a
//! batch is full.

use crate::engine::{Batch, DynRecord, Records, VariantEngine};
use bottlenose_decode::BranchKind;
use bottlenose_timing::{CoreConfig, DynInfo, InstrTiming, Listener};
use std::sync::Arc;

/// A stream of executed instructions in batches.
pub trait Source {
    /// The next batch, `None` at the end of the stream.
    fn next_batch(&mut self) -> Option<Arc<Batch>>;
}

/// Feeds every batch of `source` to `engine`.
pub fn drive<L: Listener + Send + 'static>(source: &mut impl Source, engine: &mut VariantEngine<L>) {
    while let Some(batch) = source.next_batch() {
        engine.feed_shared(batch);
    }
}

/// Records per batch of a loop (whole iterations, at least one).
const LOOP_BATCH_RECORDS: usize = 4096;

/// A block executed `iterations` times. Marked iterations end a batch with
/// [`Batch::mark_end`], so every variant records their end's commit cycle.
pub struct LoopSource {
    block: Vec<InstrTiming>,
    /// One iteration's records.
    iteration: Vec<DynRecord>,
    iterations: u32,
    /// Iterations (0-based, ascending) whose end is marked.
    marked: Vec<u32>,
    /// The first iteration of the next batch.
    next: u32,
    per_batch: u32,
    /// A full, unmarked batch after the first: the same records every time, fed again and again.
    full: Option<Arc<Batch>>,
}

impl LoopSource {
    /// `facts` as [`LoopSource::facts`] gives them for the configs the stream is timed on.
    pub fn new(block: &[InstrTiming], facts: Vec<DynInfo>, iterations: u32, marked: Vec<u32>) -> Self {
        assert_eq!(block.len(), facts.len(), "one fact per instruction");
        let iteration = facts.into_iter().enumerate().map(|(i, info)| DynRecord { id: i as u32, info }).collect();
        let per_batch = (LOOP_BATCH_RECORDS / block.len().max(1)).max(1) as u32;
        debug_assert!(marked.windows(2).all(|w| w[0] < w[1]), "marks ascending");
        Self { block: block.to_vec(), iteration, iterations, marked, next: 0, per_batch, full: None }
    }

    /// What each instruction of the block does dynamically when the block runs
    /// as a loop on a core built from `cfg`. The back edge is taken, so each
    /// iteration starts a fetch block; so does each new fetch window. A call
    /// leaves the block: the callee (at least its `ret`, one fetch block) and the
    /// return's bubble come before the instruction after the call, which starts
    /// a block. A string instruction's count is a run-time value: timed as the
    /// stated assumption.
    pub fn facts(block: &[InstrTiming], cfg: &CoreConfig) -> Vec<DynInfo> {
        block
            .iter()
            .enumerate()
            .map(|(i, it)| {
                let after_call = i > 0 && matches!(block[i - 1].branch, BranchKind::DirectCall | BranchKind::IndirectCall);
                let fetch_bubble = if after_call {
                    let indirect = if block[i - 1].branch == BranchKind::IndirectCall { cfg.indirect_bubble } else { 0.0 };
                    cfg.fetch_block_gap + cfg.return_bubble + indirect
                } else {
                    0.0
                };
                DynInfo {
                    new_fetch_block: i == 0 || after_call || it.fetch_window != block[i - 1].fetch_window,
                    fetch_bubble: fetch_bubble as f32,
                    string: it.string.map(|s| s.assumed_work()).unwrap_or_default(),
                    ..Default::default()
                }
            })
            .collect()
    }

    fn batch(&self, iterations: u32, with_table: bool, mark_end: bool) -> Batch {
        let mut records = Records::with_capacity(self.iteration.len() * iterations as usize);
        for _ in 0..iterations {
            records.extend(self.iteration.iter().copied());
        }
        Batch { new_instructions: if with_table { self.block.clone() } else { Vec::new() }, records, mark_end, ..Default::default() }
    }
}

impl Source for LoopSource {
    fn next_batch(&mut self) -> Option<Arc<Batch>> {
        if self.next >= self.iterations || self.iteration.is_empty() {
            return None;
        }
        let mut end = (self.next + self.per_batch).min(self.iterations);
        // a marked iteration ends its batch
        let mark = self.marked.iter().copied().find(|&m| m >= self.next && m < end);
        if let Some(m) = mark {
            end = m + 1;
        }
        let count = end - self.next;
        let first = self.next == 0;
        self.next = end;
        if first || mark.is_some() || count != self.per_batch {
            return Some(Arc::new(self.batch(count, first, mark.is_some())));
        }
        let full = match &self.full {
            Some(b) => b.clone(),
            None => self.full.insert(Arc::new(self.batch(count, false, false))).clone(),
        };
        Some(full)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_machine::Machine;
    use bottlenose_timing::{resolve_block, Acceleration};

    fn block(machine: &Machine, bytes: &[u8]) -> Vec<InstrTiming> {
        let insts = bottlenose_decode::decode_block(bytes, 0x1000).expect("decodes");
        resolve_block(machine, &insts).0
    }

    #[test]
    fn a_call_costs_the_callee_fetch_block_and_the_return_bubble() {
        let m = Machine::resolve("skylake").unwrap();
        // add %rbx,%rax; call .+5; add %rbx,%rax; call *%rax; add %rbx,%rax
        let b = block(&m, &[0x48, 0x01, 0xd8, 0xe8, 0, 0, 0, 0, 0x48, 0x01, 0xd8, 0xff, 0xd0, 0x48, 0x01, 0xd8]);
        assert_eq!(b.len(), 5);
        let mut cfg = CoreConfig::new(&m, &Acceleration::nominal(&m));
        (cfg.fetch_block_gap, cfg.return_bubble, cfg.indirect_bubble) = (0.5, 2.0, 3.0);
        let f = LoopSource::facts(&b, &cfg);
        let bubbles: Vec<f32> = f.iter().map(|d| d.fetch_bubble).collect();
        // after the direct call: one fetch block of the callee + the return's bubble;
        // after the indirect call also the indirect target's bubble
        assert_eq!(bubbles, [0.0, 0.0, 2.5, 0.0, 5.5]);
        let new_block: Vec<bool> = f.iter().map(|d| d.new_fetch_block).collect();
        // the back edge starts iteration 0's block, each return starts one; all 16 bytes share a window
        assert_eq!(new_block, [true, false, true, false, true]);
    }

    #[test]
    fn a_new_fetch_window_starts_a_fetch_block() {
        let m = Machine::resolve("zen4").unwrap();
        let nops = vec![0x90u8; 70];
        let b = block(&m, &nops);
        let cfg = CoreConfig::new(&m, &Acceleration::nominal(&m));
        let f = LoopSource::facts(&b, &cfg);
        let starts: Vec<usize> = (0..b.len()).filter(|&i| f[i].new_fetch_block).collect();
        // 1-byte nops at 0x1000..: windows begin at multiples of the window size
        let window = (0..b.len()).find(|&i| i > 0 && b[i].fetch_window != b[0].fetch_window).expect("70 bytes span two windows");
        assert!(window == 32 || window == 64, "an aligned window of 32 or 64 bytes: {window}");
        assert_eq!(starts, [0, window]);
    }

    #[test]
    fn marked_iterations_end_their_batch() {
        let m = Machine::resolve("skylake").unwrap();
        let b = block(&m, &[0x48, 0x01, 0xd8, 0x48, 0x01, 0xd8, 0x48, 0x01, 0xd8]); // 3 instructions
        let per_batch = (LOOP_BATCH_RECORDS / 3) as u32; // 1365 iterations
        let cfg = CoreConfig::new(&m, &Acceleration::nominal(&m));
        let mut s = LoopSource::new(&b, LoopSource::facts(&b, &cfg), 3000, vec![1499, 2999]);
        let mut got = Vec::new();
        while let Some(batch) = s.next_batch() {
            got.push((batch.records.len() / 3, batch.new_instructions.len(), batch.mark_end));
        }
        assert_eq!(
            got,
            [
                (per_batch as usize, 3, false),         // iterations 0..1365, with the table
                (1500 - per_batch as usize, 0, true),   // ..1500, ends at mark 1499
                (per_batch as usize, 0, false),         // ..2865
                (3000 - 1500 - per_batch as usize, 0, true), // ..3000, ends at mark 2999
            ]
        );
    }
}
