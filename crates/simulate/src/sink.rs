//! Where the baseline's stage times go: the listener itself, or a thread that runs it.

use crate::engine::spawn_named;
use bottlenose_timing::{Listener, StageDetails, StageTimes};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Where the baseline's stage times go: the listener itself, or the thread that runs it.
pub(crate) enum Sink<L> {
    Inline(L),
    Thread(ListenerThread<L>),
}

/// A listener on its own thread. Batches of stage times travel to it and the
/// emptied buffers come back, so nothing is allocated per batch in steady state.
pub(crate) struct ListenerThread<L> {
    pub(crate) tx: SyncSender<Vec<(u32, StageTimes, StageDetails)>>,
    spare: Receiver<Vec<(u32, StageTimes, StageDetails)>>,
    handle: JoinHandle<L>,
}

impl<L: Listener + Send + 'static> ListenerThread<L> {
    fn spawn(mut listener: L) -> Self {
        let (tx, rx) = sync_channel::<Vec<(u32, StageTimes, StageDetails)>>(4);
        let (spare_tx, spare) = sync_channel::<Vec<(u32, StageTimes, StageDetails)>>(8);
        let handle = spawn_named("bn-views".into(), move || {
            while let Ok(mut times) = rx.recv() {
                listener.begin_batch(times.len());
                for (id, t, d) in &times {
                    listener.on_detailed(*id as usize, t, d);
                }
                times.clear();
                let _ = spare_tx.try_send(times);
            }
            listener
        });
        Self { tx, spare, handle }
    }

    pub(crate) fn buffer(&self) -> Vec<(u32, StageTimes, StageDetails)> {
        self.spare.try_recv().unwrap_or_default()
    }

    pub(crate) fn finish(self) -> L {
        drop(self.tx);
        self.handle.join().expect("listener thread panicked")
    }
}

impl<L: Listener + Send + 'static> Sink<L> {
    /// The views get a thread of their own only where there is a core for it: QEMU, the
    /// functional layer and the timing worker already keep two busy, and on a 2-core host
    /// handing the stage times over costs more than it overlaps (measured: 8.2 s vs 7.2 s
    /// on bench/programs/speed.c).
    ///
    /// A listener switched off stays inline, and so does one that samples: it decides
    /// batch by batch which step the timing thread takes, and costs little.
    pub(crate) fn new(listener: L, own_thread: Option<bool>) -> Self {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        if L::DETAILS && listener.wants_details() && !listener.samples() && own_thread.unwrap_or(cores >= 4) {
            Sink::Thread(ListenerThread::spawn(listener))
        } else {
            Sink::Inline(listener)
        }
    }

    pub(crate) fn finish(self) -> L {
        match self {
            Sink::Inline(l) => l,
            Sink::Thread(t) => t.finish(),
        }
    }
}

