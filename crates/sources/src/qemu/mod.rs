//! Running a program under QEMU user-mode emulation (`qemu-x86_64`) with
//! the bottlenose TCG plugin (crate `bottlenose-qemu-plugin`), and reading
//! the stream of translated blocks, block executions and memory accesses it
//! writes.
//!
//! Layers, from raw to convenient:
//! - [`read_stream`] parses the wire format (see [`stream`](self::stream)
//!   docs) from any reader into a [`TraceVisitor`];
//! - [`InstructionStream`] is a visitor that turns that into one
//!   [`ExecutedInsn`] per executed instruction, with its memory accesses and
//!   successor address;
//! - [`QemuRun`] starts `qemu-x86_64 -plugin <so>,fd=3 <prog> <args>` with
//!   the stream on descriptor 3; [`run_program`] does everything at once.

mod error;
mod insn;
mod runner;
mod shm;
mod stream;

pub use error::QemuError;
pub use insn::{ExecutedInsn, InstructionStream, MemAccess, MAX_MEM_PER_INSN};
pub use runner::{
    check_program, find_plugin, find_qemu, run_program, run_program_with, trace_run, GuestExit,
    QemuCommand, QemuRun, RunOutcome, TraceStream, PLUGIN_FILE_NAME, SHM_FD, STREAM_FD,
};
pub use stream::{read_stream, StreamSummary, TraceVisitor, STREAM_MAGIC, STREAM_VERSION};
