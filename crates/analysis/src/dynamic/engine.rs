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

struct Worker {
    tx: SyncSender<Work>,
    handle: JoinHandle<Vec<(usize, VariantOutcome)>>,
}

/// Runs every variant except the baseline on worker threads; the baseline runs
/// on the caller's thread so its listener needs no `Send`.
pub struct VariantEngine<L: Listener> {
    baseline: Core,
    listener: L,
    table: Vec<InstrTiming>,
    workers: Vec<Worker>,
    instructions: u64,
}

impl<L: Listener> VariantEngine<L> {
    /// `configs[0]` is the baseline. `threads` worker threads share the others.
    pub fn new(configs: Vec<CoreConfig>, listener: L, threads: usize) -> Self {
        let mut configs = configs.into_iter();
        let baseline = Core::new(configs.next().expect("at least the baseline variant"));
        let rest: Vec<(usize, CoreConfig)> = configs.enumerate().map(|(i, c)| (i + 1, c)).collect();
        let threads = threads.max(1).min(rest.len().max(1));
        let mut buckets: Vec<Vec<(usize, CoreConfig)>> = (0..threads).map(|_| Vec::new()).collect();
        for (k, v) in rest.into_iter().enumerate() {
            buckets[k % threads].push(v);
        }
        let workers = buckets
            .into_iter()
            .filter(|b| !b.is_empty())
            .map(|bucket| {
                let (tx, rx) = sync_channel::<Work>(4);
                let handle = std::thread::spawn(move || worker(bucket, rx));
                Worker { tx, handle }
            })
            .collect();
        Self { baseline, listener, table: Vec::new(), workers, instructions: 0 }
    }

    /// Feeds one batch to every variant.
    pub fn feed(&mut self, batch: Batch) {
        let batch = Arc::new(batch);
        for w in &self.workers {
            // a worker only stops early by panicking; its result reports that
            let _ = w.tx.send(batch.clone());
        }
        self.table.extend(batch.new_instructions.iter().cloned());
        for r in &batch.records {
            let t = self.baseline.step(&self.table[r.id as usize], &r.info);
            self.listener.on_instruction(r.id as usize, &t);
        }
        self.instructions += batch.records.len() as u64;
    }

    pub fn baseline_cycles(&self) -> f64 {
        self.baseline.cycles()
    }

    pub fn listener(&self) -> &L {
        &self.listener
    }

    /// Closes the stream; returns the outcome of every variant (index order) and the listener.
    pub fn finish(self) -> (Vec<VariantOutcome>, L) {
        let mut out = vec![VariantOutcome { cycles: self.baseline.cycles(), instructions: self.instructions }];
        let mut rest: Vec<(usize, VariantOutcome)> = Vec::new();
        for w in self.workers {
            drop(w.tx);
            rest.extend(w.handle.join().unwrap_or_default());
        }
        rest.sort_by_key(|r| r.0);
        out.extend(rest.into_iter().map(|r| r.1));
        (out, self.listener)
    }
}

fn worker(variants: Vec<(usize, CoreConfig)>, rx: Receiver<Work>) -> Vec<(usize, VariantOutcome)> {
    let mut cores: Vec<(usize, Core)> = variants.into_iter().map(|(i, c)| (i, Core::new(c))).collect();
    let mut table: Vec<InstrTiming> = Vec::new();
    let mut n = 0u64;
    while let Ok(batch) = rx.recv() {
        table.extend(batch.new_instructions.iter().cloned());
        for (_, core) in &mut cores {
            for r in &batch.records {
                core.step(&table[r.id as usize], &r.info);
            }
        }
        n += batch.records.len() as u64;
    }
    cores.into_iter().map(|(i, c)| (i, VariantOutcome { cycles: c.cycles(), instructions: n })).collect()
}
