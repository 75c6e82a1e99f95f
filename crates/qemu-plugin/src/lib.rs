//! QEMU TCG plugin (plugin API version 1, QEMU 7.2 and later) that streams
//! what the guest executes to bottlenose over an inherited file descriptor.
//!
//! It is deliberately tiny: it decodes nothing and models nothing, it only
//! writes facts. All decoding happens in the bottlenose process
//! (`bottlenose_trace`).
//!
//! Usage: `qemu-x86_64 -plugin ./libbottlenose_qemu_plugin.so,fd=3[,shm=4] ./prog`.
//!
//! - `pause=N` (with `shm`): fast-forward steered by the reader; the first
//!   pause after N instructions (module `fastforward`).
//! - `hub=PATH` (with `fd`, or alone in a QEMU this plugin exec'd): follow
//!   forks and execs, each process writing its own stream to the hub socket
//!   at PATH (module `follow`).
//!
//! - `fd=N`: the stream goes to inherited descriptor N, in writes of up to
//!   256 KiB (a file, a pipe, or a Unix stream socket). With a socket, writes
//!   use `MSG_NOSIGNAL`, so when the reader goes away the plugin silently
//!   stops writing and the guest runs on; with a pipe the kernel would raise
//!   SIGPIPE. What is still buffered when QEMU dies by a signal is lost
//!   (QEMU 7.2 does not run the plugin's exit hook for a guest's fatal
//!   signal).
//! - `fd=N,shm=M` (what bottlenose uses): M is a shared memory file (memfd):
//!   a 4 KiB header page, then `n` regions of `size` bytes (the reader puts
//!   `n` and `size` in the header as u64 at offsets 2048 and 2056); N is a
//!   Unix stream socket for control messages. Records are written straight
//!   into the current region, and its committed length (u64 at offset
//!   64 * region in the header) is updated after every record, so nothing
//!   written is lost if QEMU dies. When a region is full the plugin sends an
//!   8-byte message (u32 region index, u32 length) and goes on in the next
//!   region (round robin), first waiting, if all regions are announced and
//!   unacknowledged, for the reader's one-byte acknowledgements (one per
//!   message, in order). At exit the last region is announced the same way.
//!   The reader, at end of file on the socket, takes the committed length of
//!   the region after the last announced one as the tail of the stream.
//!
//! # Wire format
//!
//! The records, their tags and layouts are defined (and documented) in crate
//! `bottlenose-trace-format`, which the reader uses too.
//!
//! # Modules
//!
//! `install` (arguments, sink and writer set-up), `callbacks` (what QEMU
//! calls per block, instruction and syscall), `writer` (the stream's
//! buffer and sinks), `fastforward` (pauses and switching between counting
//! and tracing), `follow` (forks and execs), `maps` (guest mappings).

use std::ffi::{c_char, c_int};

use qemu_plugin_sys::{qemu_info_t, qemu_plugin_id_t, QEMU_PLUGIN_VERSION};

mod callbacks;
mod fastforward;
mod follow;
mod install;
mod maps;
mod writer;

use install::{install, say};

/// The plugin API version this plugin was built for; QEMU refuses to load
/// a plugin without this symbol.
#[no_mangle]
pub static qemu_plugin_version: c_int = QEMU_PLUGIN_VERSION as c_int;

/// Entry point called by QEMU when the plugin is loaded. Arguments arrive as
/// `key=value` strings: `fd=N` (required) and `shm=M` (optional).
///
/// # Safety
/// Called by QEMU with valid `argc`/`argv`.
#[no_mangle]
pub unsafe extern "C" fn qemu_plugin_install(
    id: qemu_plugin_id_t,
    _info: *const qemu_info_t,
    argc: c_int,
    argv: *mut *mut c_char,
) -> c_int {
    match install(id, argc, argv) {
        Ok(()) => 0,
        Err(msg) => {
            say(&format!("bottlenose plugin: {msg}\n"));
            -1
        }
    }
}
