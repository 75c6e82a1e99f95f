//! A traced process's stream read on demand: [`ProcessTrace::read`] hands
//! records to a visitor until the visitor has what it wants (see
//! [`TraceVisitor::yield_now`]) and returns, so that a consumer pulls the
//! trace (a batch at a time) instead of being called for all of it.
//! [`ProcessTrace::finish`] then says how the process ended, as
//! [`trace_run`](crate::trace_run) does.

use super::error::QemuError;
use super::process::GuestExit;
use super::runner::{QemuRun, TraceStream};
use super::shm::Answerer;
use super::stream::{Reading, StreamReader, StreamSummary, TraceVisitor};

/// The stream of one traced process, being read.
pub struct ProcessTrace {
    reader: StreamReader<TraceStream>,
    /// Where the answers to the plugin's pauses go (none: nobody waits for them).
    answerer: Option<Answerer>,
    /// The program bottlenose started (`None`: a process that connected to the hub).
    run: Option<QemuRun>,
}

impl ProcessTrace {
    /// The program bottlenose started: QEMU is our child.
    pub fn root(mut run: QemuRun) -> Self {
        let stream = run.take_stream().expect("fresh run has its stream");
        let answerer = stream.answerer();
        ProcessTrace { reader: StreamReader::new(stream), answerer, run: Some(run) }
    }

    /// A process that connected to the hub: its trace ends with END, an exec,
    /// or its death (mid-record when killed).
    pub fn child(stream: TraceStream) -> Self {
        ProcessTrace { reader: StreamReader::new(stream), answerer: None, run: None }
    }

    /// QEMU's process id when the process is bottlenose's own child.
    pub fn root_pid(&self) -> Option<u32> {
        self.run.as_ref().map(QemuRun::id)
    }

    /// Reads records into `visitor` until it yields or the stream ends.
    #[inline]
    pub fn read<V: TraceVisitor + ?Sized>(&mut self, visitor: &mut V) -> Result<Reading, QemuError> {
        let answerer = &self.answerer;
        self.reader.read(visitor, &mut |r| {
            if let Some(a) = answerer {
                a.send(r);
            }
        })
    }

    /// How the process ended (`None` for a child, whose end is in its
    /// stream's events) and what the stream held, given how reading ended:
    /// for the program we started, QEMU is waited for (killed first if its
    /// stream is corrupt); a stream cut off by a signal is not an error.
    pub fn finish(self, read: Result<(), QemuError>) -> Result<(Option<GuestExit>, StreamSummary), QemuError> {
        let mut summary = self.reader.summary();
        let Some(mut run) = self.run else {
            return match read {
                Ok(()) => Ok((None, summary)),
                Err(QemuError::Truncated { .. }) => Ok((None, StreamSummary { started: true, ..Default::default() })),
                Err(e) => Err(e),
            };
        };
        drop(self.reader);
        let qemu = run.qemu().to_path_buf();
        match read {
            Ok(()) => {
                let exit = run.wait()?;
                if summary.tb_execs == 0 {
                    return Err(QemuError::QemuFailed { qemu, exit });
                }
                Ok((Some(exit), summary))
            }
            Err(e @ QemuError::Truncated { .. }) => {
                let exit = run.wait()?;
                if exit.signal().is_some() && summary.started {
                    // `summary.bytes` stops at the last whole record.
                    summary.complete = false;
                    Ok((Some(exit), summary))
                } else {
                    Err(e)
                }
            }
            Err(e) => {
                let _ = run.kill();
                let _ = run.wait();
                Err(e)
            }
        }
    }

    /// Reads the whole stream into `visitor`, then [`ProcessTrace::finish`].
    pub fn read_all<V: TraceVisitor + ?Sized>(mut self, visitor: &mut V) -> Result<(Option<GuestExit>, StreamSummary), QemuError> {
        let read = loop {
            match self.read(visitor) {
                Ok(Reading::Yielded) => {}
                Ok(Reading::Ended) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.finish(read)
    }
}
