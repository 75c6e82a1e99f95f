//! The core model on a small hand-written machine: two ALU ports, one load
//! port, one store port; dispatch and commit width 2; ROB 8.
use bottlenose_decode::decode_block;
use bottlenose_machine::Machine;
use bottlenose_inputs::{assemble, AsmSyntax};
use bottlenose_timing::*;
use std::num::NonZeroU64;

const MACHINE: &str = r#"
name = "tiny"
forms = "tiny.forms.toml"
[core]
dispatch_width = 2
commit_width = 2
rob = 8
scheduler = 8
load_buffer = 4
store_buffer = 4
[memory]
load_latency = 4
store_forward_latency = 5
load_groups = ["ld"]
store_address_groups = ["st"]
store_data_groups = ["st"]
[branch]
mispredict_penalty = 10
[default_form]
uops = 1
latency = 1
use = { alu = 1 }
"#;

const FORMS: &str = r#"
[units]
a0 = "alu0"
a1 = "alu1"
ld = "load"
st = "store"
[groups]
alu = ["a0", "a1"]
[forms]
"add r64, r64" = { uops = 1, latency = 1, use = { alu = 1 } }
"imul r64, r64" = { uops = 1, latency = 3, use = { a1 = 1 } }
"mov r64, m64" = { uops = 1, latency = 4, load = true, use = { ld = 1 } }
"mov m64, r64" = { uops = 1, latency = 1, store = true, use = { st = 1 } }
"add r64, m64" = { uops = 2, latency = 5, load = true, use = { ld = 1, alu = 1 } }
"jne rel" = { uops = 1, latency = 1, use = { a0 = 1 } }
"#;

fn machine() -> Machine {
    Machine::from_strs("tiny.toml", MACHINE, FORMS).expect("tiny machine")
}

fn block(m: &Machine, src: &str) -> Vec<InstrTiming> {
    let code = &assemble(&format!(".intel_syntax noprefix\n{src}"), "t.s", AsmSyntax::Intel).unwrap()[0];
    let insts = decode_block(&code.bytes, 0).unwrap();
    let (b, unknown) = resolve_block(m, &insts);
    assert!(unknown.is_empty(), "{unknown:?}");
    b
}

fn run(m: &Machine, acc: &Acceleration, b: &[InstrTiming], dyns: &[DynInfo]) -> Vec<StageTimes> {
    run_detailed(m, acc, b, dyns).into_iter().map(|(t, _)| t).collect()
}

/// The details of the detailed step.
fn run_details(m: &Machine, acc: &Acceleration, b: &[InstrTiming], dyns: &[DynInfo]) -> Vec<StageDetails> {
    run_detailed(m, acc, b, dyns).into_iter().map(|(_, d)| d).collect()
}

/// The stage times and the details of the detailed step.
fn run_detailed(m: &Machine, acc: &Acceleration, b: &[InstrTiming], dyns: &[DynInfo]) -> Vec<(StageTimes, StageDetails)> {
    let mut core = Core::new(CoreConfig::new(m, acc));
    b.iter()
        .enumerate()
        .map(|(i, it)| {
            let mut d = StageDetails::default();
            let t = core.step(it, dyns.get(i).unwrap_or(&DynInfo::default()), &mut d);
            (t, d)
        })
        .collect()
}

#[test]
fn dependency_chain_follows_latency() {
    let m = machine();
    let b = block(&m, "imul rax, rbx\nimul rax, rcx\nimul rax, rdx");
    let t = run(&m, &Acceleration::nominal(&m), &b, &[]);
    assert_eq!(t.iter().map(|s| s.issue).collect::<Vec<_>>(), vec![0.0, 3.0, 6.0]);
    assert_eq!(t[2].ready, 9.0);
    assert_eq!(t[2].commit, 8.0, "retires in its last execution cycle");
    assert_eq!(t[1].issue_cause, IssueCause::Register);
}

#[test]
fn fractional_latency_acceleration_shortens_chains() {
    let m = machine();
    let b = block(&m, "imul rax, rbx\nimul rax, rcx\nimul rax, rdx");
    let mut acc = Acceleration::nominal(&m);
    acc.scale(CoreKnob::Latency, 1.5);
    let t = run(&m, &acc, &b, &[]);
    assert!((t[2].issue - 4.0).abs() < 1e-9, "issue {}", t[2].issue);
}

#[test]
fn port_contention_delays_issue_and_names_the_port() {
    let m = machine();
    // imul only on a1: three independent imuls take cycles 0, 1, 2
    let b = block(&m, "imul rax, rbx\nimul rcx, rbx\nimul rdx, rbx");
    let t = run(&m, &Acceleration::nominal(&m), &b, &[]);
    assert_eq!(t.iter().map(|s| s.issue).collect::<Vec<_>>(), vec![0.0, 1.0, 2.0]);
    let a1 = m.group_id("a1").unwrap();
    assert_eq!(t[2].issue_cause, IssueCause::Port(a1));
    // doubling a1 lets two go per cycle
    let mut acc = Acceleration::nominal(&m);
    acc.scale_unit(a1 as usize, 2.0);
    let t = run(&m, &acc, &b, &[]);
    assert_eq!(t.iter().map(|s| s.issue).collect::<Vec<_>>(), vec![0.0, 0.0, 1.0]);
}

#[test]
fn dispatch_width_and_rob_limit() {
    let m = machine();
    // a long chain head followed by independent adds: the ROB (8) fills
    let mut src = String::from("imul rax, rbx\nimul rax, rbx\nimul rax, rbx\n");
    for r in ["rcx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"] {
        src.push_str(&format!("add {r}, rdx\n"));
    }
    let b = block(&m, &src);
    let t = run(&m, &Acceleration::nominal(&m), &b, &[]);
    // two per cycle while there is room
    assert_eq!(t[0].dispatch, 0.0);
    assert_eq!(t[1].dispatch, 0.0);
    assert_eq!(t[2].dispatch, 1.0);
    assert_eq!(t[8].dispatch, 4.0);
    assert_eq!(t[8].dispatch_cause, DispatchCause::Width);
    // the 10th waits for the second imul to retire (cycle 5 -> free at 6): ROB full
    assert_eq!(t[1].commit, 5.0);
    assert_eq!(t[9].dispatch, 6.0);
    assert_eq!(t[9].dispatch_cause, DispatchCause::Rob);
    // in-order commit behind the chain
    assert!(t[3].commit >= t[2].commit);
    assert_eq!(t[3].commit_cause, CommitCause::InOrder);
}

#[test]
fn store_to_load_dependency_through_shadow_memory() {
    let m = machine();
    let b = block(&m, "imul rax, rbx\nmov [rdi], rax\nmov rcx, [rsi]");
    let addr = 0x1000;
    let dyns = [
        DynInfo::default(),
        DynInfo { store_addr: NonZeroU64::new(addr), ..Default::default() },
        DynInfo { load_addr: NonZeroU64::new(addr), ..Default::default() },
    ];
    let t = run(&m, &Acceleration::nominal(&m), &b, &dyns);
    // store data ready at 3, written at 4, forwarded after 5 more cycles
    assert_eq!(t[2].ready, 9.0);
    assert_eq!(t[2].issue_cause, IssueCause::Memory);
    // different address: no dependency
    let dyns2 = [dyns[0], dyns[1], DynInfo { load_addr: NonZeroU64::new(0x2000), ..Default::default() }];
    let t = run(&m, &Acceleration::nominal(&m), &b, &dyns2);
    assert_eq!(t[2].dispatch, 1.0);
    assert_eq!(t[2].ready, 5.0);
}

#[test]
fn a_load_of_a_prefetched_line_waits_until_it_arrives() {
    let m = machine();
    let b = block(&m, "mov rcx, [rsi]\nmov rdx, [rdi]");
    let cfg = CoreConfig::new(&m, &Acceleration::nominal(&m));
    let line = 0x4000u64;
    // the first load (an L1 hit) starts a prefetch of `line` from DRAM; the second loads from it
    let with = [
        DynInfo { load_addr: NonZeroU64::new(0x1000), prefetch_line: NonZeroU64::new(line), prefetch_level: 3, ..Default::default() },
        DynInfo { load_addr: NonZeroU64::new(line + 8), ..Default::default() },
    ];
    let without = [DynInfo { load_addr: NonZeroU64::new(0x1000), ..Default::default() }, with[1]];
    let plain: Vec<StageDetails> = run_detailed(&m, &Acceleration::nominal(&m), &b, &without).into_iter().map(|(_, d)| d).collect();
    let t: Vec<StageDetails> = run_detailed(&m, &Acceleration::nominal(&m), &b, &with).into_iter().map(|(_, d)| d).collect();
    let dram = cfg.level_extra_latency[3];
    assert!(dram > 0.0);
    // the line arrives a DRAM access after the first load started: the second load waits for it
    assert!(t[1].load_done >= t[0].load_start + dram, "{} vs {} + {dram}", t[1].load_done, t[0].load_start);
    assert!(t[1].load_done > plain[1].load_done + 0.5 * dram);
    assert_eq!(t[1].load_level, 3, "a late prefetch counts as a miss at the level the line comes from");
    assert_eq!(plain[1].load_level, 0);
    // the first load itself is not delayed by the prefetch it started
    assert_eq!(t[0].load_done, plain[0].load_done);
}

#[test]
fn a_store_to_a_prefetched_line_drains_after_it_arrives() {
    let m = machine();
    // a load that starts a DRAM prefetch of `line`, then more stores into that line than the
    // store buffer (4) holds: the fifth can dispatch only when the first has drained
    let b = block(&m, "mov rcx, [rsi]\nmov [rdi], rax\nmov [rdi], rax\nmov [rdi], rax\nmov [rdi], rax\nmov [rdi], rax");
    let cfg = CoreConfig::new(&m, &Acceleration::nominal(&m));
    let line = 0x4000u64;
    let store = DynInfo { store_addr: NonZeroU64::new(line + 8), ..Default::default() };
    let mut with = vec![DynInfo { load_addr: NonZeroU64::new(0x1000), prefetch_line: NonZeroU64::new(line), prefetch_level: 3, ..Default::default() }];
    with.extend([store; 5]);
    let mut without = with.clone();
    without[0] = DynInfo { load_addr: NonZeroU64::new(0x1000), ..Default::default() };
    let plain = run(&m, &Acceleration::nominal(&m), &b, &without);
    let t = run(&m, &Acceleration::nominal(&m), &b, &with);
    let dram = cfg.level_extra_latency[3];
    assert!(dram > 20.0, "{dram}");
    // without the prefetch the stores drain one a cycle and the fifth barely waits
    assert!(plain[5].dispatch < 10.0, "{}", plain[5].dispatch);
    // with it the first store's entry frees only when the line has come from DRAM
    assert!(t[5].dispatch >= t[0].dispatch + dram, "{} vs {} + {dram}", t[5].dispatch, t[0].dispatch);
    assert_eq!(t[5].dispatch_cause, DispatchCause::StoreBuffer);
}

#[test]
fn load_op_waits_for_its_load() {
    let m = machine();
    let b = block(&m, "add rax, [rsi]");
    let t = run(&m, &Acceleration::nominal(&m), &b, &[]);
    // load 4 cycles then the add (1): latency 5 split as load 4 + op 1
    assert_eq!(t[0].ready, 5.0);
    assert_eq!(t[0].issue_cause, IssueCause::Load);
    let slow = [DynInfo { load_extra_latency: 10.0, ..Default::default() }];
    let t = run(&m, &Acceleration::nominal(&m), &b, &slow);
    assert_eq!(t[0].ready, 15.0);
}

#[test]
fn mispredicted_branch_resteers_the_frontend() {
    let m = machine();
    let b = block(&m, "l: add rax, rbx\njne l\nadd rcx, rdx");
    let dyns = [DynInfo::default(), DynInfo { mispredicted: true, ..Default::default() }, DynInfo::default()];
    let t = run(&m, &Acceleration::nominal(&m), &b, &dyns);
    // the branch resolves at 1+1=2 (waits for flags), then 10 cycles of penalty
    assert_eq!(t[2].dispatch, t[1].ready + 10.0);
    assert_eq!(t[2].dispatch_cause, DispatchCause::Mispredict);
}

#[test]
fn fetch_stall_delays_dispatch() {
    let m = machine();
    let b = block(&m, "add rax, rbx\nadd rcx, rdx");
    let dyns = [DynInfo::default(), DynInfo { fetch_stall: 7.0, ..Default::default() }];
    let t = run(&m, &Acceleration::nominal(&m), &b, &dyns);
    assert_eq!(t[1].dispatch, 7.0);
    assert_eq!(t[1].dispatch_cause, DispatchCause::Fetch);
}

/// The tiny machine with extra lines spliced into its `[core]` and `[memory]` tables.
fn tiny_with(core: &str, memory: &str) -> Machine {
    let text = MACHINE.replace("store_buffer = 4\n", &format!("store_buffer = 4\n{core}\n")).replace(
        "store_forward_latency = 5\n",
        &format!("store_forward_latency = 5\n{memory}\n"),
    );
    Machine::from_strs("tiny.toml", &text, FORMS).expect("tiny machine variant")
}

#[test]
fn memory_renaming_needs_the_same_address_expression() {
    let m = tiny_with("", "memory_renaming = true\nrenamed_forward_latency = 0");
    let addr = 0x1000;
    let dyns = [
        DynInfo::default(),
        DynInfo { store_addr: NonZeroU64::new(addr), ..Default::default() },
        DynInfo { load_addr: NonZeroU64::new(addr), ..Default::default() },
    ];
    // same base and displacement: the load is renamed to the store's data, so it is
    // ready with the imul (3), a cycle before the store writes it (4)
    let b = block(&m, "imul rax, rbx\nmov [rdi+8], rax\nmov rcx, [rdi+8]");
    let t = run(&m, &Acceleration::nominal(&m), &b, &dyns);
    assert_eq!(t[2].ready, 3.0);
    assert_eq!(t[2].issue_cause, IssueCause::Memory);
    // another base register naming the same address: plain forwarding (4 + 5)
    let b = block(&m, "imul rax, rbx\nmov [rdi+8], rax\nmov rcx, [rsi+8]");
    let t = run(&m, &Acceleration::nominal(&m), &b, &dyns);
    assert_eq!(t[2].ready, 9.0);
    // a machine without renaming forwards both the same way
    let plain = machine();
    let b = block(&plain, "imul rax, rbx\nmov [rdi+8], rax\nmov rcx, [rdi+8]");
    assert_eq!(run(&plain, &Acceleration::nominal(&plain), &b, &dyns)[2].ready, 9.0);
}

#[test]
fn one_fetch_block_per_cycle() {
    let m = tiny_with("fetch_block_bytes = 64\nfetch_blocks_per_cycle = 1\nfetch_runahead_cycles = 0", "");
    let b = block(&m, "add rax, rbx\nadd rcx, rdx\nadd rsi, rdi\nadd r8, r9");
    let new_block = DynInfo { new_fetch_block: true, ..Default::default() };
    // every instruction after a taken branch: one per cycle although dispatch is 2 wide
    let t = run(&m, &Acceleration::nominal(&m), &b, &[new_block; 4]);
    assert_eq!(t.iter().map(|s| s.dispatch).collect::<Vec<_>>(), vec![0.0, 1.0, 2.0, 3.0]);
    assert_eq!(t[1].dispatch_cause, DispatchCause::Fetch);
    let details = run_detailed(&m, &Acceleration::nominal(&m), &b, &[new_block; 4]);
    assert_eq!(details[1].1.fetch_block_stall, 0.5);
    assert_eq!(details[1].1.btb_stall, 0.5, "charged with branch handling, not the icache");
    // a 2-cycle bubble (say, after a return) before the third block
    let mut bubbled = [new_block; 4];
    bubbled[2].fetch_bubble = 2.0;
    let t = run(&m, &Acceleration::nominal(&m), &b, &bubbled);
    assert_eq!(t.iter().map(|s| s.dispatch).collect::<Vec<_>>(), vec![0.0, 1.0, 4.0, 5.0]);
    // blocks of two: the dispatch width is the limit again
    let two = [new_block, DynInfo::default(), new_block, DynInfo::default()];
    let t = run(&m, &Acceleration::nominal(&m), &b, &two);
    assert_eq!(t.iter().map(|s| s.dispatch).collect::<Vec<_>>(), vec![0.0, 0.0, 1.0, 1.0]);
    // the frontend knob scales the block rate with the dispatch width
    let mut fast = Acceleration::nominal(&m);
    fast.scale(CoreKnob::Frontend, 2.0);
    let t = run(&m, &fast, &b, &[new_block; 4]);
    assert_eq!(t[3].dispatch, 1.0);
    // a machine without the limit ignores block starts
    let plain = machine();
    let b = block(&plain, "add rax, rbx\nadd rcx, rdx");
    assert_eq!(run(&plain, &Acceleration::nominal(&plain), &b, &[new_block; 2])[1].dispatch, 0.0);
}

#[test]
fn sequential_icache_misses_stream() {
    let m = tiny_with("icache_misses_in_flight = 4", "");
    let b = block(&m, "add rax, rbx\nadd rcx, rdx\nadd rsi, rdi");
    let first = DynInfo { fetch_stall: 12.0, ..Default::default() };
    let next = DynInfo { fetch_stall: 12.0, fetch_stream: true, ..Default::default() };
    // the first miss pays its latency, each following line a quarter of it
    let t = run(&m, &Acceleration::nominal(&m), &b, &[first, next, next]);
    assert_eq!(t.iter().map(|s| s.dispatch).collect::<Vec<_>>(), vec![12.0, 15.0, 18.0]);
    // not a stream: one miss after the other (each after the previous one's half slot)
    let t = run(&m, &Acceleration::nominal(&m), &b, &[first, first, first]);
    assert_eq!(t.iter().map(|s| s.dispatch).collect::<Vec<_>>(), vec![12.0, 24.0, 37.0]);
}

#[test]
fn a_load_spanning_two_lines_takes_the_load_port_twice() {
    // one load port: independent loads issue one per cycle; with split_load_slots = 2 a
    // split load books the port for two cycles, so four of them issue at 0, 2, 4, 6
    let m = tiny_with("", "split_load_slots = 2");
    let b = block(&m, "mov rax, [rsi]\nmov rbx, [rsi+64]\nmov rcx, [rsi+128]\nmov rdx, [rsi+192]");
    let mut split = DynInfo::default();
    split.lines.set_load_split();
    let plain = run_details(&m, &Acceleration::nominal(&m), &b, &[]);
    let t = run_details(&m, &Acceleration::nominal(&m), &b, &[split; 4]);
    let starts = |t: &[StageDetails]| t.iter().map(|s| s.load_start).collect::<Vec<_>>();
    assert_eq!(starts(&plain), vec![0.0, 1.0, 2.0, 3.0]);
    assert_eq!(starts(&t), vec![0.0, 2.0, 4.0, 6.0]);
    // a machine without the penalty times them as plain loads
    let t1 = run_details(&machine(), &Acceleration::nominal(&machine()), &b, &[split; 4]);
    assert_eq!(starts(&t1), vec![0.0, 1.0, 2.0, 3.0]);
}

/// The tiny machine with large windows, an L1D and an L2 that fills 32 B (half a line)
/// per cycle, and `l2_extra` in the L2's section.
fn tiny_with_l2(l2_extra: &str) -> Machine {
    let caches = format!(
        "[[cache]]\nname = \"L1D\"\nlevel = 1\nkind = \"data\"\nsize_kib = 32\nways = 8\nline_bytes = 64\nlatency = 4\nbytes_per_cycle = 64\nreplacement = \"lru\"\n\
         [[cache]]\nname = \"L2\"\nlevel = 2\nkind = \"unified\"\nsize_kib = 1024\nways = 8\nline_bytes = 64\nlatency = 14\nbytes_per_cycle = 32\nreplacement = \"lru\"\n{l2_extra}\n"
    );
    // windows big enough that bandwidth, not the 4-entry load buffer, sets the pace
    let core = MACHINE.replace("rob = 8", "rob = 256").replace("scheduler = 8", "scheduler = 128").replace("load_buffer = 4", "load_buffer = 128");
    let text = format!("{core}\n{caches}");
    Machine::from_strs("tiny.toml", &text, FORMS).expect("tiny machine with an L2")
}

#[test]
fn write_backs_share_the_fill_link_unless_the_level_has_a_path_of_its_own() {
    // 200 loads that each bring a line from L2 (0.5 lines per cycle) and push a dirty line
    // back: on a shared link every load moves two lines, 4 cycles each, 800 cycles in all;
    // with a 64 B/cycle write path of its own the fills alone set the pace, 2 cycles each
    const N: usize = 200;
    let src: String = (0..N).map(|i| format!("mov rax, [rsi+{}]\n", 64 * i)).collect();
    let mut dy = DynInfo { load_level: 1, ..Default::default() };
    dy.lines.set_writebacks([1, 0, 0]);
    let last_done = |m: &Machine| {
        let b = block(m, &src);
        run_details(m, &Acceleration::nominal(m), &b, &vec![dy; N]).last().unwrap().load_done
    };
    let shared = last_done(&tiny_with_l2(""));
    let own = last_done(&tiny_with_l2("writeback_bytes_per_cycle = 64"));
    let no_writebacks = {
        let m = tiny_with_l2("");
        let b = block(&m, &src);
        let plain = DynInfo { load_level: 1, ..Default::default() };
        run_details(&m, &Acceleration::nominal(&m), &b, &vec![plain; N]).last().unwrap().load_done
    };
    assert!((shared / (4.0 * N as f64) - 1.0).abs() < 0.05, "shared link: {shared} cycles for {N} loads");
    assert!((own / (2.0 * N as f64) - 1.0).abs() < 0.05, "own write path: {own} cycles");
    assert!((own - no_writebacks).abs() < 2.0, "own path {own} vs no write-backs {no_writebacks}");
}

/// The records of `iterations` passes over a load, store and multiply block whose
/// loads read what an earlier pass stored, with a miss and a prefetch now and then.
fn looped_records(iterations: usize) -> Vec<(usize, DynInfo)> {
    let mut out = Vec::new();
    for k in 0..iterations {
        let addr = 0x1000 + 8 * (k % 7) as u64;
        let load = DynInfo {
            load_addr: NonZeroU64::new(addr),
            load_level: if k % 5 == 0 { 2 } else { 0 },
            prefetch_line: if k % 9 == 0 { NonZeroU64::new((addr >> 6) + 3) } else { None },
            prefetch_level: if k % 9 == 0 { 1 } else { 0 },
            ..Default::default()
        };
        let store = DynInfo { store_addr: NonZeroU64::new(0x1000 + 8 * ((k + 3) % 7) as u64), ..Default::default() };
        let none = DynInfo::default();
        out.extend([(0, load), (1, none), (2, none), (5, none), (3, store), (4, load), (6, none)]);
    }
    out
}

/// A variant forked into a core it kept from an earlier fork (`Core::fork_into`, which
/// reuses the kept core's memory and redoes only what its configuration changes) times
/// every instruction after the fork exactly as a fresh fork of the same state does,
/// whatever the kept core held before: a field the fork did not copy, or a calendar
/// left under the wrong capacity, shows up as a different stage time.
#[test]
fn a_fork_into_a_kept_core_times_as_a_fresh_fork() {
    let m = machine();
    // the independent multiplies keep the one port that takes them busy
    let b = block(&m, "mov rcx, [rsi]\nadd rax, rcx\nimul rbx, rax\nmov [rdi], rbx\nadd rdx, [rsi]\nimul r8, r9\nimul r10, r11");
    let nominal = CoreConfig::new(&m, &Acceleration::nominal(&m));
    let mut wider = nominal.clone();
    wider.group_capacity.iter_mut().for_each(|c| *c *= 2.0);
    let mut faster = nominal.clone();
    faster.latency_scale = 0.5;
    let mut smaller = nominal.clone();
    smaller.rob = 4;
    let records = looped_records(400);
    let (first, rest) = records.split_at(800);
    let (second, third) = rest.split_at(1000);
    let mut base = Core::new(nominal);
    for &(i, dy) in first {
        base.step_fast(&b[i], &dy);
    }
    for cfg in [wider, faster, smaller] {
        // the kept core: far ahead of the baseline, its own bookings everywhere
        let mut kept = Core::new(cfg.clone());
        for &(i, dy) in records.iter().chain(&records) {
            kept.step_fast(&b[i], &dy);
        }
        let mut base = base.clone();
        for (round, part) in [second, third].into_iter().enumerate() {
            let mut fresh = base.fork(cfg.clone());
            base.fork_into(&mut kept);
            for (n, &(i, dy)) in part.iter().enumerate() {
                let want = fresh.step_fast(&b[i], &dy);
                let got = kept.step_fast(&b[i], &dy);
                assert_eq!(format!("{got:?}"), format!("{want:?}"), "round {round}, instruction {n} after the fork");
                base.step_fast(&b[i], &dy);
            }
            assert_eq!(kept.cycles(), fresh.cycles());
        }
    }
}
