//! Running a program under QEMU user-mode emulation (`qemu-x86_64`) with
//! the bottlenose TCG plugin (crate `bottlenose-qemu-plugin`), and reading
//! the stream of translated blocks, block executions and memory accesses it
//! writes.
//!
//! Layers, from raw to convenient:
//! - [`read_stream`] parses the wire format (below) from any reader into a
//!   [`TraceVisitor`];
//! - [`InstructionStream`] is a visitor that turns that into one
//!   [`ExecutedInsn`] per executed instruction, with its memory accesses and
//!   successor address;
//! - [`QemuRun`] starts `qemu-x86_64 -plugin <so>,fd=3 <prog> <args>` with
//!   the stream on descriptor 3; [`run_program`] does everything at once.
//!
//! # Transport
//!
//! By default the plugin writes into shared memory (a memfd on descriptor
//! 4, a ring of regions announced over the Unix socket on descriptor 3), so
//! that what it wrote survives QEMU dying by a signal: QEMU 7.2 runs no
//! plugin exit hook when the guest is killed by a signal, and a plain
//! buffered stream would lose its last buffer. [`QemuCommand::shared_memory`]
//! switches to plain socket writes. The plugin also accepts a file or pipe
//! (`-plugin libbottlenose_qemu_plugin.so,fd=3` with `3>trace`), readable
//! later with [`read_stream`].
//!
//! # Semantics
//!
//! QEMU reports block entry, not retirement: if a block is left early (a
//! fault in its middle), its remaining instructions are still reported. A
//! `rep`-prefixed string instruction is reported once per iteration plus
//! once for the final count check (`rep stosb` with rcx = 5: six times, the
//! last without memory access). 16-byte SSE accesses show up as two 8-byte
//! accesses (QEMU 7.2). Addresses are guest virtual addresses. Memory records
//! of a vCPU follow its TB_EXEC in program order; a vCPU is a guest thread.
//! Forked and exec'd children are traced through a [`Hub`] when
//! [`QemuCommand::hub`] names one (each child's stream arrives there), and
//! not traced otherwise.
//!
//! # Wire format
//!
//! The records (tags, layouts) are defined and documented in crate
//! `bottlenose-trace-format`, shared with the plugin; [`read_stream`] adds
//! the checks that span records (block ids in sequence, instruction indices
//! inside the executing block).
//!
//! MAP records come from the plugin reading QEMU's `/proc/self/maps` at
//! translation time (QEMU user mode on x86-64 maps the guest at guest base 0,
//! so those lines are the guest's mappings, beside QEMU's own), before the
//! TB_DEF of the block whose translation found them new.
//!
//! MEM records of an instruction come after the TB_EXEC of its block, in
//! program order. They carry no vCPU: they belong to the vCPU of the latest
//! TB_EXEC or MEM_VCPU record, and the parser hands that vCPU to the visitor.

mod error;
mod hub;
mod insn;
mod locate;
mod process;
mod pull;
mod runner;
pub mod shebang;
mod shm;
mod stream;

pub use error::QemuError;
pub use hub::{ChildTrace, Hub, Origin};
pub use insn::{ExecutedInsn, InsnSink, InstructionStream, ProcessEvents, MemAccess, MAX_MEM_PER_INSN};
pub use locate::{check_program, find_plugin, find_qemu, find_qemu_for, program_isa, resolve_command};
pub use process::{GuestExit, Killer};
pub use runner::{run_program, run_program_with, trace_run, QemuCommand, QemuRun, RunOutcome, TraceStream, PLUGIN_FILE_NAME, SHM_FD, STREAM_FD};
pub use bottlenose_trace_format::transport::Resume;
pub use pull::ProcessTrace;
pub use stream::{read_stream, Reading, StreamReader, StreamSummary, TraceVisitor, STREAM_MAGIC, STREAM_VERSION};
