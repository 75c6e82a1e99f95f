//! A run and the processes it starts: the program under QEMU, and, unless
//! `--no-inherit`, every process it forks or execs, each simulated by its
//! own pipeline (its own caches, predictors and core, as separate processes
//! have) on its own thread, as it runs. The processes connect to a hub
//! (`bottlenose_trace::Hub`, which says how the plugin follows forks
//! and execs); the report details the process with the most cycles and lists
//! every one with the total.

use super::simulate;
use crate::dynamic::options::DynamicOptions;
use crate::dynamic::report::{DynamicError, DynamicReport};
use bottlenose_trace_source::Roi;
use crate::dynamic::sampling::Warming;

use bottlenose_machine::Machine;
use bottlenose_trace::{resolve_command, ChildTrace, Hub, Killer, Origin, ProcessEvents, ProcessTrace, QemuCommand};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
pub use bottlenose_report_model::run::{ProcessRow, ProcessTotal};

/// What a process runs: shown name and arguments (its code is named from the
/// guest's mappings).
#[derive(Debug, Clone)]
struct Image {
    program: String,
    args: Vec<String>,
}

struct ChildRun {
    pid: u32,
    parent: u32,
    origin: Origin,
    image: Image,
    result: Result<(DynamicReport, ProcessEvents), DynamicError>,
}

/// Runs the program (and, unless `opts.follow_children` is false, its children)
/// and returns the report.
pub fn run_program(machine: &Machine, mut opts: DynamicOptions) -> Result<DynamicReport, DynamicError> {
    // a script runs through its interpreter, whose code is what executes and is attributed
    let (executable, exe_args) = resolve_command(&opts.program, &opts.args)?;
    let hub = if opts.follow_children { Some(Hub::new()?) } else { None };
    let mut cmd = QemuCommand::new(&executable);
    cmd.args(&exe_args);
    if let Some(cpu) = &machine.peers.qemu_cpu {
        cmd.cpu(cpu);
    }
    if let Some(h) = &hub {
        cmd.hub(h.path());
    }
    // fast-forward between windows: the plugin pauses first where the exact prefix ends
    // (the region of interest needs every instruction: it is found in the stream)
    if let (Some(s), Roi::Whole) = (&opts.sampling, &opts.roi) {
        if let Warming::Window { .. } = s.warming {
            cmd.fast_forward(s.exact_below);
        }
    }
    let run = cmd.spawn()?;
    let root_pid = run.id();
    let killers = Arc::new(Mutex::new(vec![run.killer()?]));
    let watcher = opts.interrupt.clone().map(|f| InterruptWatcher::start(f, killers.clone()));
    let root_image = Image {
        program: opts.program.display().to_string(),
        args: opts.args.iter().map(|a| a.to_string_lossy().into_owned()).collect(),
    };
    let template = opts.for_child();
    let root_done = AtomicBool::new(false);
    let (root, children, mut untraced) = std::thread::scope(|scope| {
        let collector = hub.as_ref().map(|hub| {
            let (killers, root_done, image) = (&killers, &root_done, root_image.clone());
            scope.spawn(move || collect_children(scope, machine, hub, template, killers, root_done, (root_pid, image)))
        });
        // a panic in the root's simulation must still end the collector (which waits for
        // `root_done`), or the scope would wait for it forever: it becomes an error
        let root = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| simulate(machine, &mut opts, ProcessTrace::root(run))))
            .unwrap_or_else(|_| Err(thread_panicked(root_pid)));
        root_done.store(true, Ordering::Relaxed);
        let (children, untraced) = collector.map(|c| c.join().unwrap_or_default()).unwrap_or_default();
        (root, children, untraced)
    });
    drop(watcher);
    let (root, root_events) = root?;
    if !opts.follow_children {
        untraced.push("children (forks and execs) are not traced: --no-inherit".to_string());
    }
    Ok(combine(root_pid, root_image, root, root_events, children, untraced))
}

/// Accepts the processes that connect to the hub until the first process has
/// ended, each simulated on a thread of its own; then cuts the trace of those
/// still running and collects every result.
fn collect_children<'scope, 'env>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    machine: &'env Machine,
    hub: &'env Hub,
    template: DynamicOptions,
    killers: &'env Mutex<Vec<Killer>>,
    root_done: &'env AtomicBool,
    root: (u32, Image),
) -> (Vec<ChildRun>, Vec<String>) {
    let mut images: HashMap<u32, Image> = HashMap::from([root]);
    let mut started = Vec::new();
    let mut untraced = Vec::new();
    loop {
        let done = root_done.load(Ordering::Relaxed);
        let child = match hub.accept(if done { Duration::ZERO } else { Duration::from_millis(50) }) {
            Ok(Some(c)) => c,
            Ok(None) if done => break,
            Ok(None) => continue,
            Err(e) => {
                untraced.push(format!("a process could not be traced: {e}"));
                continue;
            }
        };
        let ChildTrace { pid, parent, origin, command, stream, control, killer } = child;
        let image = match origin {
            Origin::Exec if !command.is_empty() => Image {
                program: command[0].clone(),
                args: command[1..].to_vec(),
            },
            _ => images.get(&parent).or_else(|| images.get(&pid)).cloned().unwrap_or(Image {
                program: "?".into(),
                args: Vec::new(),
            }),
        };
        images.insert(pid, image.clone());
        if let Some(k) = killer {
            killers.lock().unwrap_or_else(|p| p.into_inner()).push(k);
        }
        let mut opts = template.for_child();
        opts.program = PathBuf::from(&image.program);
        opts.args = image.args.iter().map(Into::into).collect();
        let handle = scope.spawn(move || simulate(machine, &mut opts, ProcessTrace::child(stream)));
        started.push((pid, parent, origin, image, control, Killer::of(pid).ok(), handle));
    }
    // processes still running when the first one ended (daemons, background
    // jobs) run on untraced; what they ran until now is reported
    for (pid, _, _, image, control, alive, _) in &started {
        if alive.as_ref().is_some_and(|k| !k.ended()) {
            let _ = control.shutdown(std::net::Shutdown::Both);
            untraced.push(format!("pid {pid} ({}) was still running when the first process ended: traced until then", image.program));
        }
    }
    let runs = started
        .into_iter()
        .map(|(pid, parent, origin, image, _, _, handle)| ChildRun {
            pid,
            parent,
            origin,
            image,
            result: handle.join().unwrap_or_else(|_| Err(thread_panicked(pid))),
        })
        .collect();
    (runs, untraced)
}

/// The error of a process whose simulation panicked (a bug of ours, reported in one line).
fn thread_panicked(pid: u32) -> DynamicError {
    DynamicError::Qemu(bottlenose_trace::QemuError::Io {
        context: format!("simulating pid {pid}"),
        source: std::io::Error::other("the simulation thread panicked (a bug in bottlenose: please report it)"),
    })
}

fn row(pid: u32, parent: Option<u32>, origin: Origin, image: &Image, r: &DynamicReport) -> ProcessRow {
    ProcessRow {
        pid,
        parent,
        origin: origin.name(),
        program: image.program.clone(),
        args: image.args.clone(),
        instructions_simulated: r.instructions_simulated,
        cycles: r.cycles,
        ipc: r.ipc,
        exit: r.exit.clone(),
        complete: r.complete,
        detailed: false,
    }
}

/// The run's report: the process with the most cycles in detail, every
/// process in `processes`, the total, and the first process's exit status.
fn combine(
    root_pid: u32,
    root_image: Image,
    root: DynamicReport,
    root_events: ProcessEvents,
    children: Vec<ChildRun>,
    mut untraced: Vec<String>,
) -> DynamicReport {
    let mut rows = vec![row(root_pid, None, Origin::Start, &root_image, &root)];
    untraced.extend(root_events.notes.iter().map(|n| format!("pid {root_pid}: {n}")));
    let mut reports = vec![root];
    for c in children {
        match c.result {
            Ok((r, events)) => {
                untraced.extend(events.notes.iter().map(|n| format!("pid {}: {n}", c.pid)));
                rows.push(row(c.pid, Some(c.parent), c.origin, &c.image, &r));
                reports.push(r);
            }
            Err(e) => untraced.push(format!("pid {} ({}): {e}", c.pid, c.image.program)),
        }
    }
    let detailed = (0..reports.len()).max_by(|&a, &b| reports[a].cycles.total_cmp(&reports[b].cycles)).unwrap_or(0);
    rows[detailed].detailed = true;
    let instructions: u64 = rows.iter().map(|r| r.instructions_simulated).sum();
    let cycles: f64 = rows.iter().map(|r| r.cycles).sum();
    let total = ProcessTotal { processes: rows.len(), instructions_simulated: instructions, cycles, ipc: if cycles > 0.0 { instructions as f64 / cycles } else { 0.0 } };
    let all_complete = rows.iter().all(|r| r.complete || r.exit.starts_with("exec'd"));
    let (exit, exit_code, signal, interrupted, root_stop) =
        (reports[0].exit.clone(), reports[0].exit_code, reports[0].signal, reports[0].interrupted, reports[0].stop_reason.clone());
    let mut report = reports.swap_remove(detailed);
    report.exit = exit;
    report.exit_code = exit_code;
    report.signal = signal;
    report.interrupted = interrupted;
    if detailed != 0 {
        report.complete = report.complete && all_complete;
        if report.stop_reason.is_none() {
            report.stop_reason = root_stop;
        }
    }
    report.processes = rows;
    report.total = total;
    report.untraced = untraced;
    report
}

impl DynamicOptions {
    /// The options of a child process's simulation: the same model and
    /// experiments, no progress callback (the first process reports it) and no
    /// load-bias probe (a `function:` region of the first program applies as is).
    fn for_child(&self) -> DynamicOptions {
        DynamicOptions {
            program: self.program.clone(),
            args: self.args.clone(),
            roi: self.roi.clone(),
            warm: self.warm,
            weights: self.weights.clone(),
            resources: self.resources.clone(),
            combine: self.combine.clone(),
            sensitivity: self.sensitivity,
            max_instructions: self.max_instructions,
            threads: self.threads,
            prefetcher: self.prefetcher,
            idealization: self.idealization,
            interrupt: self.interrupt.clone(),
            progress: None,
            roi_placement: self.roi_placement.clone(),
            baseline: self.baseline.clone(),
            idealize: self.idealize,
            sample_every: self.sample_every,
            accounting_views: self.accounting_views,
            sample_views: self.sample_views,
            follow_children: self.follow_children,
            // a child is sampled as the program is; the progress line shows the first process
            sampling: self.sampling.clone(),
            on_estimate: None,
        }
    }
}

/// A thread that kills every traced process once the interrupt flag is set
/// (Ctrl-C, SIGTERM, SIGHUP), even while they execute nothing (blocked in a
/// read, asleep), which the stream callbacks alone would wait out; it ends
/// when dropped.
struct InterruptWatcher {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl InterruptWatcher {
    fn start(flag: Arc<AtomicBool>, processes: Arc<std::sync::Mutex<Vec<Killer>>>) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        let d = done.clone();
        let thread = std::thread::spawn(move || {
            while !d.load(Ordering::Relaxed) {
                if flag.load(Ordering::Relaxed) {
                    for k in processes.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                        k.kill();
                    }
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
        InterruptWatcher { done, thread: Some(thread) }
    }
}

impl Drop for InterruptWatcher {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
