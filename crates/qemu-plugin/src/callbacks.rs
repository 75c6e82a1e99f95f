//! The callbacks QEMU calls: a block's translation (its definition in the
//! stream, and the registration of its execution and memory callbacks), its
//! execution, memory accesses, syscalls and exit; and their registration.

use std::ffi::{c_uint, c_void};
use std::sync::atomic::{AtomicU32, Ordering};

use bottlenose_trace_format::record::{self as wire, MemInfo};
use qemu_plugin_sys::{
    qemu_plugin_cb_flags, qemu_plugin_id_t, qemu_plugin_insn_data,
    qemu_plugin_insn_size, qemu_plugin_insn_vaddr, qemu_plugin_mem_is_store, qemu_plugin_mem_rw,
    qemu_plugin_mem_size_shift, qemu_plugin_meminfo_t,
    qemu_plugin_register_atexit_cb, qemu_plugin_register_vcpu_mem_cb,
    qemu_plugin_register_vcpu_syscall_cb, qemu_plugin_register_vcpu_tb_exec_cb,
    qemu_plugin_register_vcpu_tb_trans_cb, qemu_plugin_tb, qemu_plugin_tb_get_insn, qemu_plugin_tb_n_insns as tb_n_insns,
    qemu_plugin_tb_vaddr,
};

use crate::writer::{stop, with_writer, DISABLED};
use crate::{fastforward, follow, maps};

thread_local! {
    /// Scratch space for TB_DEF records.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// vCPUs whose executing block is tracked (a guest with more threads: those past the
/// last but one are not filtered).
const TRACKED_VCPUS: usize = 1024;

/// The block each vCPU executes, by vCPU index: its memory callbacks are the only
/// ones it takes. A static array, not a thread-local: in a library QEMU loads at run
/// time a thread-local costs a `__tls_get_addr` call, on every memory access.
static EXECUTING: [AtomicU32; TRACKED_VCPUS] = [const { AtomicU32::new(u32::MAX) }; TRACKED_VCPUS];

/// A memory callback's user data: the block's id and the instruction's index in it.
fn mem_userdata(id: u32, index: usize) -> *mut c_void {
    ((id as usize) << 16 | (index & 0xffff)) as *mut c_void
}

unsafe extern "C" fn vcpu_tb_trans(_id: qemu_plugin_id_t, tb: *mut qemu_plugin_tb) {
    if DISABLED.load(Ordering::Relaxed) {
        return;
    }
    let n = tb_n_insns(tb).min(u16::MAX as usize);
    let tb_vaddr = qemu_plugin_tb_vaddr(tb);
    let tb_id = SCRATCH.with(|scratch| {
        let mut rec = scratch.borrow_mut();
        rec.clear();
        wire::push_tb_def_header(&mut rec, 0, n as u16); // id, filled in under the lock
        for i in 0..n {
            let insn = qemu_plugin_tb_get_insn(tb, i);
            let len = qemu_plugin_insn_size(insn).min(u8::MAX as usize);
            let data = qemu_plugin_insn_data(insn).cast::<u8>();
            let bytes = if len > 0 && !data.is_null() {
                // SAFETY: QEMU guarantees `len` bytes at `data` for this insn.
                std::slice::from_raw_parts(data, len)
            } else {
                &[0; u8::MAX as usize][..len]
            };
            wire::push_tb_def_insn(&mut rec, qemu_plugin_insn_vaddr(insn), bytes);
        }
        if n > 0 {
            let first = qemu_plugin_tb_get_insn(tb, 0);
            let len = qemu_plugin_insn_size(first).min(15);
            let data = qemu_plugin_insn_data(first).cast::<u8>();
            if !data.is_null() && follow::enabled() {
                // SAFETY: QEMU guarantees `len` bytes at `data`.
                follow::check_identity(qemu_plugin_insn_vaddr(first), std::slice::from_raw_parts(data, len));
            }
        }
        with_writer(|w| {
            for m in w.maps.changes_for(tb_vaddr) {
                let mut map = Vec::new();
                wire::push_map(&mut map, m.start, m.end, m.offset, &m.path);
                w.put(&map);
                // a forked child replays the definitions: the mappings go with them
                if follow::enabled() {
                    w.defs.extend_from_slice(&map);
                }
            }
            let (id, new) = w.block_id(tb_vaddr, &rec);
            if new {
                wire::set_tb_def_id(&mut rec, id);
                w.put(&rec);
                if follow::enabled() {
                    w.defs.extend_from_slice(&rec);
                }
            }
            id
        })
    });
    let Some(id) = tb_id else { return };
    if fastforward::skipping() {
        // counting only: one callback per block, no memory callbacks
        qemu_plugin_register_vcpu_tb_exec_cb(
            tb,
            Some(fastforward::skip_exec),
            qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
            fastforward::slot(id, n).cast_mut(),
        );
        return;
    }
    // the block's id and length (for fast-forward's count) in the one pointer QEMU passes back
    qemu_plugin_register_vcpu_tb_exec_cb(
        tb,
        Some(vcpu_tb_exec),
        qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
        (id as usize | (n << 32)) as *mut c_void,
    );
    for i in 0..n {
        let insn = qemu_plugin_tb_get_insn(tb, i);
        qemu_plugin_register_vcpu_mem_cb(
            insn,
            Some(vcpu_mem),
            qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS,
            qemu_plugin_mem_rw::QEMU_PLUGIN_MEM_RW,
            mem_userdata(id, i),
        );
    }
}

unsafe extern "C" fn vcpu_tb_exec(vcpu_index: c_uint, userdata: *mut c_void) {
    let id = userdata as usize as u32;
    if fastforward::enabled() {
        fastforward::before_full_block((userdata as usize >> 32) as u64);
    }
    EXECUTING[(vcpu_index as usize).min(TRACKED_VCPUS - 1)].store(id, Ordering::Relaxed);
    let rec = wire::tb_exec(id, vcpu_index.min(u16::MAX as u32) as u16);
    with_writer(|w| {
        w.put(&rec);
        w.last_vcpu = vcpu_index;
    });
}

unsafe extern "C" fn vcpu_mem(
    vcpu_index: c_uint,
    info: qemu_plugin_meminfo_t,
    vaddr: u64,
    userdata: *mut c_void,
) {
    let (block, index) = ((userdata as usize >> 16) as u32, userdata as usize as u16);
    // QEMU 7.2 calls the last memory callbacks set up by generated code for its own
    // accesses to guest memory too (a signal frame written on delivery, between
    // blocks): they are not the block's, and would land on whatever instruction the
    // reader has open (a SIGCHLD arriving mid-run corrupted the stream)
    let v = vcpu_index as usize;
    if v < TRACKED_VCPUS - 1 && block != EXECUTING[v].load(Ordering::Relaxed) {
        return;
    }
    let shift = qemu_plugin_mem_size_shift(info).min(0x7f) as u8;
    let rec = wire::mem(index, MemInfo::new(shift, qemu_plugin_mem_is_store(info)), vaddr);
    with_writer(|w| {
        if vcpu_index != w.last_vcpu {
            w.put(&wire::mem_vcpu(vcpu_index.min(u16::MAX as u32) as u16));
            w.last_vcpu = vcpu_index;
        }
        w.put(&rec);
    });
}

#[allow(clippy::too_many_arguments)]
/// The one syscall callback (QEMU keeps one per plugin and event: a second
/// registration would replace the first): mapping changes, then exit codes and
/// execve for following processes.
unsafe extern "C" fn vcpu_syscall(
    id: qemu_plugin_id_t,
    vcpu_index: c_uint,
    num: i64,
    a1: u64,
    a2: u64,
    a3: u64,
    a4: u64,
    a5: u64,
    a6: u64,
    a7: u64,
    a8: u64,
) {
    maps::on_syscall(num);
    follow::vcpu_syscall(id, vcpu_index, num, a1, a2, a3, a4, a5, a6, a7, a8);
}

unsafe extern "C" fn atexit(_id: qemu_plugin_id_t, _userdata: *mut c_void) {
    fastforward::at_exit();
    with_writer(|w| {
        w.put(&wire::end());
        if !DISABLED.load(Ordering::Relaxed) {
            w.flush(true);
        }
        stop();
    });
}

/// Registers the plugin's callbacks (at install, and again after each
/// fast-forward reset, which drops them all).
pub(crate) fn register(id: qemu_plugin_id_t) {
    // SAFETY: registering this library's callbacks with QEMU's id for it.
    unsafe {
        qemu_plugin_register_vcpu_tb_trans_cb(id, Some(vcpu_tb_trans));
        qemu_plugin_register_vcpu_syscall_cb(id, Some(vcpu_syscall));
        qemu_plugin_register_atexit_cb(id, Some(atexit), std::ptr::null_mut());
    }
}
