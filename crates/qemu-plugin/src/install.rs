//! Installation: the plugin's arguments (`fd`, `shm`, `pause`, `hub`), the
//! descriptor and sink they name, the writer, then the callbacks.

use std::ffi::{c_char, c_int, CStr};
use std::sync::atomic::Ordering;

use bottlenose_trace_format::record as wire;
use qemu_plugin_sys::{qemu_plugin_id_t, qemu_plugin_outs};

use crate::callbacks::register;
use crate::writer::{map_shm, Sink, Writer, BUF_CAP, DISABLED, OUT_FD, WRITER};
use crate::{fastforward, follow, maps};

/// Reports a setup problem. `qemu_plugin_outs` only reaches QEMU's log
/// (`-d plugin`), so the message also goes to stderr.
pub(crate) fn say(msg: &str) {
    eprint!("{msg}");
    if let Ok(c) = std::ffi::CString::new(msg) {
        // SAFETY: valid NUL-terminated string.
        unsafe { qemu_plugin_outs(c.as_ptr()) };
    }
}

fn parse_fd(key: &str, v: &str) -> Result<c_int, String> {
    match v.trim().parse::<c_int>() {
        Ok(n) if n >= 0 => Ok(n),
        _ => Err(format!("bad {key} value `{v}`")),
    }
}

pub(crate) unsafe fn install(id: qemu_plugin_id_t, argc: c_int, argv: *mut *mut c_char) -> Result<(), String> {
    let mut fd: Option<c_int> = None;
    let mut shm: Option<c_int> = None;
    let mut hub: Option<Vec<u8>> = None;
    let mut pause: Option<u64> = None;
    for i in 0..argc.max(0) as usize {
        let raw = CStr::from_ptr(*argv.add(i)).to_bytes();
        if let Some(path) = raw.strip_prefix(b"hub=") {
            hub = Some(path.to_vec());
            continue;
        }
        let arg = String::from_utf8_lossy(raw);
        match arg.split_once('=') {
            Some(("fd", v)) => fd = Some(parse_fd("fd", v)?),
            Some(("shm", v)) => shm = Some(parse_fd("shm", v)?),
            Some(("pause", v)) => match v.trim().parse::<u64>() {
                Ok(n) => pause = Some(n),
                Err(_) => return Err(format!("bad pause value `{v}` (a number of instructions)")),
            },
            _ => return Err(format!("unknown argument `{arg}` (expected fd=N, shm=M, pause=N or hub=PATH)")),
        }
    }
    if pause.is_some() && (shm.is_none() || fd.is_none()) {
        return Err("pause=N needs fd=N and shm=M (the reader answers pauses on the control socket)".into());
    }
    if let Some(h) = &hub {
        follow::init(h)?;
    }
    // an exec'd process of a followed program: its trace goes to the hub
    let exec_connection = match (fd, &hub) {
        (None, Some(_)) => match follow::connect_exec() {
            Ok(c) => Some(c),
            // bottlenose is gone (a process that outlived the traced program):
            // the program runs on untraced rather than not at all
            Err(_) => return Ok(()),
        },
        _ => None,
    };
    let fd = match (&exec_connection, fd) {
        (Some((c, _)), _) => *c,
        (None, Some(fd)) => fd,
        (None, None) => return Err("missing argument fd=N".into()),
    };
    if libc::fcntl(fd, libc::F_GETFD) < 0 {
        return Err(format!("fd {fd} is not open (run through bottlenose)"));
    }
    // The guest must not hand the stream to programs it executes.
    libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);

    let sink = match (exec_connection, shm) {
        (Some((_, sink)), _) => sink,
        (None, None) => Sink::Fd {
            buf: Vec::with_capacity(BUF_CAP),
            is_socket: true,
        },
        (None, Some(m)) => {
            let (base, region_size, n_regions) = map_shm(m)?;
            // The mapping stays; the descriptor is not needed any more.
            libc::close(m);
            Sink::Shm {
                base,
                region_size,
                n_regions,
                cur: 0,
                len: 0,
                sent: 0,
                acked: 0,
                inbox: Default::default(),
            }
        }
    };
    OUT_FD.store(fd, Ordering::Relaxed);
    follow::register_fork_handlers();

    let mut w = Writer {
        fd,
        sink,
        next_tb: 0,
        last_vcpu: 0,
        defs: Vec::new(),
        maps: maps::Snapshot::default(),
        defined: Default::default(),
    };
    w.put(&wire::hello());
    *WRITER.lock().unwrap_or_else(|p| p.into_inner()) = Some(w);
    DISABLED.store(false, Ordering::Relaxed);
    if let Some(n) = pause {
        fastforward::enable(id, n);
    }
    register(id);
    Ok(())
}
