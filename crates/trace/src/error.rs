//! Errors of the QEMU runner and trace reader. Every message is one line.

use std::io;
use std::path::PathBuf;

use super::process::GuestExit;
use super::runner::PLUGIN_FILE_NAME;

/// Why a program could not be run under QEMU, or its trace not read.
#[derive(Debug, thiserror::Error)]
pub enum QemuError {
    /// No `qemu-x86_64` (`qemu-aarch64`) on PATH, or `$BOTTLENOSE_QEMU`
    /// (`$BOTTLENOSE_QEMU_AARCH64`) names nothing runnable.
    #[error(
        "{program} not found: install the Debian package qemu-user (apt-get install qemu-user){}",
        qemu_tried(.tried)
    )]
    QemuNotFound { program: &'static str, tried: Option<PathBuf> },

    /// The plugin shared object is not where we looked.
    #[error(
        "QEMU plugin {PLUGIN_FILE_NAME} not found ({}): build it with `cargo build -p bottlenose-qemu-plugin` (or with --release)",
        plugin_tried(.tried, *.from_env)
    )]
    PluginNotFound {
        tried: Vec<PathBuf>,
        /// The one path tried came from `$BOTTLENOSE_QEMU_PLUGIN`.
        from_env: bool,
    },

    /// The program to run does not exist.
    #[error("program not found: {}", .0.display())]
    ProgramNotFound(PathBuf),

    /// The program exists but is not an x86-64 or AArch64 ELF executable.
    #[error("{} is not an x86-64 or AArch64 ELF executable", .0.display())]
    NotX86_64Executable(PathBuf),

    /// A `#!` script whose interpreter does not exist.
    #[error("{}: its interpreter {} was not found", .script.display(), .interpreter.display())]
    InterpreterNotFound { script: PathBuf, interpreter: PathBuf },

    /// The program is an x86-64 ELF file without execute permission (QEMU
    /// refuses it without a word).
    #[error("{} is not executable: permission denied", .0.display())]
    PermissionDenied(PathBuf),

    /// `qemu-x86_64` could not be started at all.
    #[error("cannot start {}: {source}", .qemu.display())]
    Spawn {
        qemu: PathBuf,
        #[source]
        source: io::Error,
    },

    /// QEMU ended before the program ran a single block: it could not load
    /// the plugin or the program (QEMU's own message, if any, is on stderr).
    #[error("{} failed before the program ran ({exit}); see its message above", .qemu.display())]
    QemuFailed { qemu: PathBuf, exit: GuestExit },

    /// End of file inside a record.
    #[error("trace stream truncated at byte offset {offset} (inside a {record} record starting at byte offset {record_offset})")]
    Truncated {
        offset: u64,
        record_offset: u64,
        record: &'static str,
    },

    /// Bytes that do not follow the wire format.
    #[error("corrupt trace stream at byte offset {offset}: {message}")]
    Corrupt { offset: u64, message: String },

    /// An I/O error (reading the stream, waiting for QEMU, ...).
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },
}

fn qemu_tried(tried: &Option<PathBuf>) -> String {
    match tried {
        Some(p) => format!(
            " (BOTTLENOSE_QEMU={} is not an executable file)",
            p.display()
        ),
        None => String::new(),
    }
}

fn plugin_tried(tried: &[PathBuf], from_env: bool) -> String {
    let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    if from_env {
        format!("BOTTLENOSE_QEMU_PLUGIN={} does not exist", list.join(", "))
    } else if list.is_empty() {
        "cannot locate the current executable".to_string()
    } else {
        format!("looked for {}", list.join(" and "))
    }
}
