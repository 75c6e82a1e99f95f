//! Fan-out of one executed-instruction stream to N timing variants.
//!
//! The producer (QEMU trace + functional layer) fills [`Batch`]es of records,
//! each naming a static instruction by index plus its dynamic facts. New static
//! instructions travel with the first batch that uses them, so workers keep
//! their own append-only copy of the instruction table and never lock. Each
//! worker thread owns a subset of the variants; variant 0 (the baseline) also
//! feeds the caller's listener.

use bottlenose_timing::{Core, CoreConfig, DynInfo, InstrTiming, Listener};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// One executed instruction: static index + dynamic facts.
#[derive(Clone, Copy, Debug)]
pub struct DynRecord {
    pub id: u32,
    pub info: DynInfo,
}

/// A chunk of the stream plus the static instructions first seen in it.
#[derive(Default)]
pub struct Batch {
    pub new_instructions: Vec<InstrTiming>,
    pub records: Vec<DynRecord>,
}

#[derive(Debug, Clone)]
pub struct VariantOutcome {
    pub cycles: f64,
    pub instructions: u64,
}

type Work = Arc<Batch>;

/// Runs every variant on worker threads, so that producing the stream (QEMU,
/// decoding, caches and predictors) overlaps with timing it. The first worker
/// also runs the baseline (variant 0) with the caller's listener.
pub struct VariantEngine<L: Listener + Send + 'static> {
    workers: Vec<Worker<L>>,
    instructions: u64,
}

struct Worker<L> {
    tx: SyncSender<Work>,
    handle: JoinHandle<(Vec<(usize, VariantOutcome)>, Option<L>)>,
}

impl<L: Listener + Send + 'static> VariantEngine<L> {
    /// `configs[0]` is the baseline. `threads` worker threads share the variants.
    pub fn new(configs: Vec<CoreConfig>, listener: L, threads: usize) -> Self {
        let all: Vec<(usize, CoreConfig)> = configs.into_iter().enumerate().collect();
        assert!(!all.is_empty(), "at least the baseline variant");
        let threads = threads.max(1).min(all.len());
        let mut buckets: Vec<Vec<(usize, CoreConfig)>> = (0..threads).map(|_| Vec::new()).collect();
        for (k, v) in all.into_iter().enumerate() {
            buckets[k % threads].push(v);
        }
        let mut listener = Some(listener);
        let workers = buckets
            .into_iter()
            .map(|bucket| {
                let (tx, rx) = sync_channel::<Work>(64);
                let l = if bucket[0].0 == 0 { listener.take() } else { None };
                let handle = std::thread::spawn(move || worker(bucket, l, rx));
                Worker { tx, handle }
            })
            .collect();
        Self { workers, instructions: 0 }
    }

    /// Feeds one batch to every variant.
    pub fn feed(&mut self, batch: Batch) {
        self.instructions += batch.records.len() as u64;
        let batch = Arc::new(batch);
        for w in &self.workers {
            // a worker only stops early by panicking; finish() reports that
            let _ = w.tx.send(batch.clone());
        }
    }

    /// Closes the stream; returns the outcome of every variant (index order) and the listener.
    pub fn finish(self) -> (Vec<VariantOutcome>, L) {
        let mut all: Vec<(usize, VariantOutcome)> = Vec::new();
        let mut listener = None;
        for w in self.workers {
            drop(w.tx);
            let (outcomes, l) = w.handle.join().expect("timing worker panicked");
            all.extend(outcomes);
            if l.is_some() {
                listener = l;
            }
        }
        all.sort_by_key(|r| r.0);
        (all.into_iter().map(|r| r.1).collect(), listener.expect("baseline listener"))
    }

    pub fn instructions(&self) -> u64 {
        self.instructions
    }
}

fn worker<L: Listener>(
    variants: Vec<(usize, CoreConfig)>,
    mut listener: Option<L>,
    rx: Receiver<Work>,
) -> (Vec<(usize, VariantOutcome)>, Option<L>) {
    let mut cores: Vec<(usize, Core)> = variants.into_iter().map(|(i, c)| (i, Core::new(c))).collect();
    let mut table: Vec<InstrTiming> = Vec::new();
    let mut n = 0u64;
    while let Ok(batch) = rx.recv() {
        table.extend(batch.new_instructions.iter().cloned());
        for (i, core) in &mut cores {
            match (&mut listener, *i) {
                (Some(l), 0) => {
                    for r in &batch.records {
                        let t = if L::DETAILS { core.step(&table[r.id as usize], &r.info) } else { core.step_fast(&table[r.id as usize], &r.info) };
                        l.on_instruction(r.id as usize, &t);
                    }
                }
                _ => {
                    for r in &batch.records {
                        core.step_fast(&table[r.id as usize], &r.info);
                    }
                }
            }
        }
        n += batch.records.len() as u64;
    }
    let outcomes = cores.into_iter().map(|(i, c)| (i, VariantOutcome { cycles: c.cycles(), instructions: n })).collect();
    (outcomes, listener)
}
