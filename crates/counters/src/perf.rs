//! The real backend: Linux `perf_event_open`.
//!
//! A group is a leader plus members (`group_fd` = the leader), opened
//! disabled (or `enable_on_exec`) with `read_format =
//! PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING`, so one `read`
//! returns every member with the group's enabled/running times. Kernels before
//! 4.13 refuse `PERF_FORMAT_GROUP` together with `inherit` (EINVAL): the group
//! is then reopened without it and each member is read on its own.
//!
//! The PMU type comes from `/sys/bus/event_source/devices/<pmu>/type`
//! (`cpu_core`/`cpu_atom` on hybrid parts, `msr` for `TSC`); `cpu` falls back to
//! `PERF_TYPE_RAW`.

use crate::backend::{CounterBackend, GroupHandle, GroupOptions, OpenError, Reading, Target};
use crate::errors::SysInfo;
use crate::event::RawEvent;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

#[cfg(target_os = "linux")]
use perf_event_open_sys as sys;

struct Group {
    fds: Vec<OwnedFd>,
    group_read: bool,
}

/// `perf_event_open` counters.
#[derive(Default)]
pub struct PerfEventBackend {
    groups: Vec<Option<Group>>,
}

impl PerfEventBackend {
    /// A backend with no open group.
    pub fn new() -> PerfEventBackend {
        PerfEventBackend::default()
    }
}

fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

fn pmu_type(pmu: &str) -> Option<u32> {
    let t = std::fs::read_to_string(format!("/sys/bus/event_source/devices/{pmu}/type")).ok().and_then(|s| s.trim().parse().ok());
    match (t, pmu) {
        (Some(t), _) => Some(t),
        (None, "cpu") => Some(4), // PERF_TYPE_RAW
        _ => None,
    }
}

/// The `perf_event_attr` that opens `e` (`type_`: its PMU's type): what is
/// programmed, testable without a PMU.
#[cfg(target_os = "linux")]
fn attr_for(e: &RawEvent, type_: u32, opts: &GroupOptions, is_leader: bool, group_read: bool) -> Result<sys::bindings::perf_event_attr, i32> {
    let config = e.config.ok_or(libc::EINVAL)?;
    // SAFETY: perf_event_attr is plain old data; all-zero is its documented default.
    let mut attr: sys::bindings::perf_event_attr = unsafe { std::mem::zeroed() };
    attr.type_ = type_;
    attr.size = std::mem::size_of::<sys::bindings::perf_event_attr>() as u32;
    attr.config = config;
    attr.__bindgen_anon_3.config1 = e.config1;
    let mut fmt = (sys::bindings::PERF_FORMAT_TOTAL_TIME_ENABLED | sys::bindings::PERF_FORMAT_TOTAL_TIME_RUNNING) as u64;
    if group_read {
        fmt |= sys::bindings::PERF_FORMAT_GROUP as u64;
    }
    attr.read_format = fmt;
    attr.set_disabled(is_leader as u64);
    attr.set_enable_on_exec((is_leader && opts.enable_on_exec) as u64);
    attr.set_inherit((opts.inherit && matches!(opts.target, Target::Task(_))) as u64);
    attr.set_exclude_kernel((opts.exclude_kernel || e.exclude_kernel) as u64);
    attr.set_exclude_user((opts.exclude_user || e.exclude_user) as u64);
    attr.set_exclude_hv(1);
    Ok(attr)
}

#[cfg(target_os = "linux")]
fn open_one(e: &RawEvent, opts: &GroupOptions, leader: Option<i32>, group_read: bool) -> Result<OwnedFd, i32> {
    let type_ = pmu_type(&e.pmu).ok_or(libc::ENOENT)?;
    let mut attr = attr_for(e, type_, opts, leader.is_none(), group_read)?;
    let (pid, cpu) = match opts.target {
        Target::Task(p) => (p, -1),
        Target::Cpu(c) => (-1, c as i32),
    };
    // SAFETY: attr is initialized and outlives the call; the fd is checked below.
    let fd = unsafe { sys::perf_event_open(&mut attr, pid, cpu, leader.unwrap_or(-1), sys::bindings::PERF_FLAG_FD_CLOEXEC as libc::c_ulong) };
    if fd < 0 {
        return Err(last_errno());
    }
    // SAFETY: fd is a fresh descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(not(target_os = "linux"))]
fn open_one(_: &RawEvent, _: &GroupOptions, _: Option<i32>, _: bool) -> Result<OwnedFd, i32> {
    Err(libc::ENOSYS)
}

fn open_group_with(events: &[RawEvent], opts: &GroupOptions, group_read: bool) -> Result<Vec<OwnedFd>, OpenError> {
    let mut fds: Vec<OwnedFd> = Vec::with_capacity(events.len());
    for (index, e) in events.iter().enumerate() {
        let leader = fds.first().map(|f| f.as_raw_fd());
        fds.push(open_one(e, opts, leader, group_read).map_err(|errno| OpenError { index, errno })?);
    }
    Ok(fds)
}

fn read_u64s(fd: i32, n: usize) -> Result<Vec<u64>, i32> {
    let mut buf = vec![0u64; n];
    // SAFETY: buf has room for n u64 values.
    let r = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, n * 8) };
    if r < 0 {
        return Err(last_errno());
    }
    buf.truncate(r as usize / 8);
    Ok(buf)
}

impl CounterBackend for PerfEventBackend {
    fn sys_info(&self) -> SysInfo {
        SysInfo::probe()
    }

    fn probe(&mut self) -> Result<(), i32> {
        // PERF_TYPE_HARDWARE / PERF_COUNT_HW_CPU_CYCLES, user mode, this process.
        let cycles = RawEvent { pmu: "hw".into(), config: Some(0), ..RawEvent::model("cycles") };
        let opts = GroupOptions { inherit: false, exclude_kernel: true, ..GroupOptions::task(0) };
        probe_open(&cycles, &opts)
    }

    fn open_group(&mut self, events: &[RawEvent], opts: &GroupOptions) -> Result<GroupHandle, OpenError> {
        if events.is_empty() {
            return Err(OpenError { index: 0, errno: libc::EINVAL });
        }
        let inherit = opts.inherit && matches!(opts.target, Target::Task(_));
        let (fds, group_read) = match open_group_with(events, opts, true) {
            Ok(f) => (f, true),
            Err(OpenError { index: 0, errno: libc::EINVAL }) if inherit && events.len() > 1 => (open_group_with(events, opts, false)?, false),
            Err(e) => return Err(e),
        };
        self.groups.push(Some(Group { fds, group_read }));
        Ok(GroupHandle(self.groups.len() - 1))
    }

    fn enable(&mut self, g: GroupHandle) -> Result<(), i32> {
        ioctl_group(self.group(g)?, true)
    }

    fn disable(&mut self, g: GroupHandle) -> Result<(), i32> {
        ioctl_group(self.group(g)?, false)
    }

    fn read(&mut self, g: GroupHandle) -> Result<Vec<Reading>, i32> {
        let grp = self.group(g)?;
        if grp.group_read {
            // { nr, time_enabled, time_running, value[nr] }
            let n = grp.fds.len();
            let v = read_u64s(grp.fds[0].as_raw_fd(), 3 + n)?;
            if v.len() < 3 + n || v[0] as usize != n {
                return Err(libc::EIO);
            }
            return Ok((0..n).map(|i| Reading { value: v[3 + i], time_enabled: v[1], time_running: v[2] }).collect());
        }
        grp.fds
            .iter()
            .map(|fd| {
                let v = read_u64s(fd.as_raw_fd(), 3)?;
                if v.len() < 3 {
                    return Err(libc::EIO);
                }
                Ok(Reading { value: v[0], time_enabled: v[1], time_running: v[2] })
            })
            .collect()
    }

    fn close(&mut self, g: GroupHandle) {
        if let Some(slot) = self.groups.get_mut(g.0) {
            *slot = None;
        }
    }
}

impl PerfEventBackend {
    fn group(&self, g: GroupHandle) -> Result<&Group, i32> {
        self.groups.get(g.0).and_then(|g| g.as_ref()).ok_or(libc::EBADF)
    }
}

#[cfg(target_os = "linux")]
fn ioctl_group(g: &Group, on: bool) -> Result<(), i32> {
    let fd = g.fds[0].as_raw_fd();
    let flag = sys::bindings::PERF_IOC_FLAG_GROUP;
    // SAFETY: fd is an open perf event descriptor.
    let r = unsafe {
        if on {
            sys::ioctls::ENABLE(fd, flag)
        } else {
            sys::ioctls::DISABLE(fd, flag)
        }
    };
    if r < 0 {
        return Err(last_errno());
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn ioctl_group(_: &Group, _: bool) -> Result<(), i32> {
    Err(libc::ENOSYS)
}

#[cfg(target_os = "linux")]
fn probe_open(e: &RawEvent, opts: &GroupOptions) -> Result<(), i32> {
    // SAFETY: as in open_one.
    let mut attr: sys::bindings::perf_event_attr = unsafe { std::mem::zeroed() };
    attr.type_ = sys::bindings::PERF_TYPE_HARDWARE;
    attr.size = std::mem::size_of::<sys::bindings::perf_event_attr>() as u32;
    attr.config = e.config.unwrap_or(0);
    attr.set_disabled(1);
    attr.set_exclude_kernel(opts.exclude_kernel as u64);
    attr.set_exclude_hv(1);
    // SAFETY: attr is initialized; the fd is closed at once.
    let fd = unsafe { sys::perf_event_open(&mut attr, 0, -1, -1, sys::bindings::PERF_FLAG_FD_CLOEXEC as libc::c_ulong) };
    if fd < 0 {
        return Err(last_errno());
    }
    // SAFETY: fd is ours.
    drop(unsafe { OwnedFd::from_raw_fd(fd) });
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn probe_open(_: &RawEvent, _: &GroupOptions) -> Result<(), i32> {
    Err(libc::ENOSYS)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::plan::{plan, Method, Selection};

    /// SPR's False_Sharing counts `OCR.DEMAND_RFO.L3_MISS:ocr_msr_val=0x103b800002`:
    /// the attribute carries that MSR value, not the table's 0x3F3FC00002 of the base event.
    #[test]
    fn an_offcore_event_is_programmed_with_its_own_msr_value() {
        let p = plan("spr", Method::Tma, &Selection { level: Some(1), nodes: vec!["False_Sharing".into()] }, false).unwrap();
        let find = |key: &str| p.events.iter().find(|e| e.key == key).unwrap_or_else(|| panic!("{key} not planned"));
        let opts = GroupOptions::task(0);
        let ocr = find("ocr.demand_rfo.l3_miss:ocr_msr_val=0x103b800002");
        let attr = attr_for(ocr, 4, &opts, false, true).unwrap();
        assert_eq!(attr.config, 0x012a);
        // SAFETY: config1 is the active member of this union for raw events.
        assert_eq!(unsafe { attr.__bindgen_anon_3.config1 }, 0x10_3b80_0002);
        let hitm = find("ocr.demand_rfo.l3_hit.snoop_hitm");
        assert_eq!(unsafe { attr_for(hitm, 4, &opts, false, true).unwrap().__bindgen_anon_3.config1 }, 0x10_003c_0002);
    }
}
