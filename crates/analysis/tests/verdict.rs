//! The verdict of static blocks: one ranked answer from sensitivity, Top-Down,
//! the CPI stacks, the idealization and resource usage. Expected values come
//! from the blocks' structure and Skylake's documented figures (Agner Fog's
//! instruction tables: vfmadd*ps/pd latency 4 on p0/p1, vpshufb ymm on p5 only,
//! divsd latency 13-14 with the divider busy 4 cycles).
mod common;
use bottlenose_analysis::verdict::{Agreement, Cause, Finding, GainSource, Verdict};
use bottlenose_analysis::StaticOptions;
use common::*;

fn block(name: &str) -> String {
    let path = format!("{}/../../bench/blocks/{name}.s", env!("CARGO_MANIFEST_DIR"));
    format!(".att_syntax prefix\n{}", std::fs::read_to_string(path).unwrap())
}

fn verdict(name: &str) -> Verdict {
    run("skylake", &block(name), &StaticOptions::default()).verdict
}

fn find<'a>(v: &'a Verdict, cause: &Cause) -> &'a Finding {
    v.causes.iter().find(|f| &f.cause == cause).unwrap_or_else(|| panic!("no {cause:?} in {:#?}", v.causes))
}

/// Two dependent FMAs per iteration on one accumulator: 2 x 4 = 8 cycles per
/// iteration, all latency. With 1-cycle operations the chain takes 2 cycles
/// (the two FMAs still fit p0/p1 in one cycle, 3 fused uops in one dispatch
/// cycle), so removing the latency saves 1 - 2/8 = 75 % of the cycles.
#[test]
fn a_dependency_chain_comes_first_and_every_view_agrees() {
    let v = verdict("fma_chain");
    let first = &v.causes[0];
    assert_eq!(first.cause, Cause::DependencyChain, "{:#?}", v.causes);
    assert_eq!(first.agreement, Agreement::Agree, "{:#?}", first);
    assert_eq!(first.gain.source, GainSource::Idealization);
    assert!((first.gain.share - 0.75).abs() < 0.01, "gain {}", first.gain.share);
    let e = &first.evidence;
    // latency x2 halves the chain: +100 %
    let latency = e.sensitivity.iter().find(|s| s.resources == ["latency"]).expect("latency knob");
    assert!((latency.max_speedup - 1.0).abs() < 0.02, "{latency:?}");
    assert!(e.topdown.as_ref().is_some_and(|t| t.supports), "{:?}", e.topdown);
    assert!(e.stacks.as_ref().is_some_and(|s| s.supports), "{:?}", e.stacks);
    assert!(e.idealization.as_ref().is_some_and(|i| i.what == "alu_1cycle" && i.supports));
    // the action names the chain: ymm0, through both FMAs, 8 cycles
    assert!(first.action.contains("ymm0") && first.action.contains("8 cycles per iteration"), "{}", first.action);
    assert!(first.action.contains("accumulators"), "{}", first.action);
    // nothing else takes 3 % of the cycles
    assert_eq!(v.causes.len(), 1, "{:#?}", v.causes);
}

/// dot_1acc: one FMA per iteration into one accumulator (4 cycles) while its
/// two loads need one cycle of the two load ports: latency again, the chain
/// is the FMA alone.
#[test]
fn a_reduction_through_one_accumulator_is_its_chain() {
    let v = verdict("dot_1acc");
    assert_eq!(v.causes[0].cause, Cause::DependencyChain, "{:#?}", v.causes);
    assert_eq!(v.causes[0].agreement, Agreement::Agree);
    assert!(v.causes[0].action.contains("4 cycles per iteration"), "{}", v.causes[0].action);
}

/// Three vpshufb per iteration, p5 only: 3 cycles per iteration on one port,
/// the rest (two adds, the fused dec/jnz) fits p0156 in one. Doubling p5
/// halves the time: +100 %, a gain of 50 % of the cycles.
#[test]
fn a_port_bound_block_names_its_port() {
    let v = verdict("shuffle_bound");
    let first = &v.causes[0];
    assert_eq!(first.cause, Cause::PortPressure { ports: "p5".into() }, "{:#?}", v.causes);
    assert_eq!(first.agreement, Agreement::Agree, "{first:#?}");
    assert!((first.gain.share - 0.5).abs() < 0.01, "gain {}", first.gain.share);
    let u = first.evidence.usage.as_ref().expect("usage");
    assert!(u.usage > 0.99, "{u:?}");
    assert!(first.action.contains("vpshufb") && first.action.contains("3.0 uops per iteration"), "{}", first.action);
    // no other port group repeats it (p5 is in p05, p15, p0156)
    assert_eq!(v.causes.iter().filter(|f| matches!(f.cause, Cause::PortPressure { .. })).count(), 1, "{:#?}", v.causes);
}

/// Eight FMAs into eight accumulators: 8 uops on p0/p1 take 4 cycles, and each
/// chain (one 4-cycle FMA per iteration) takes 4 too. Either limit alone holds
/// the loop at 4 cycles, so neither knob alone buys anything; together they do.
/// The ports come first: they are saturated (usage 100 %), while the 1-cycle
/// ALU, which removes the latency alone, buys nothing.
#[test]
fn co_limited_ports_and_latency_say_so() {
    let v = verdict("fma_throughput");
    let first = &v.causes[0];
    assert_eq!(first.cause, Cause::PortPressure { ports: "p01".into() }, "{:#?}", v.causes);
    assert_eq!(first.gain.source, GainSource::SensitivitySet);
    assert_eq!(first.agreement, Agreement::Disagree);
    assert!(first.reason.as_deref().unwrap_or("").contains("co-limited"), "{:?}", first.reason);
    let single = first.evidence.sensitivity.iter().find(|s| s.resources == ["p01"]).unwrap();
    assert!(single.max_speedup.abs() < 0.005, "{single:?}");
    let chain = find(&v, &Cause::DependencyChain);
    let alu1 = chain.evidence.idealization.as_ref().unwrap();
    assert!(alu1.share.abs() < 0.005 && !alu1.supports, "{alu1:?}");
    assert!(chain.action.contains("co-limited with p01"), "{}", chain.action);
}

/// One divsd per iteration, dependent on the last: the 13-14-cycle latency
/// binds while the divider is busy 4 of those cycles. Top-Down flags Divider
/// (busy over 20 % of the cycles) but a faster divider buys nothing: the
/// verdict keeps it, refuted, and says it hides behind the chain.
#[test]
fn a_busy_divider_behind_a_chain_is_refuted() {
    let v = verdict("div_chain");
    assert_eq!(v.causes[0].cause, Cause::DependencyChain, "{:#?}", v.causes);
    let div = find(&v, &Cause::Divider);
    assert!(div.gain.share < 0.005, "{:?}", div.gain);
    assert_eq!(div.agreement, Agreement::Disagree);
    assert!(div.evidence.topdown.as_ref().is_some_and(|t| t.node == "Divider" && t.flagged), "{:?}", div.evidence.topdown);
    let why = div.reason.as_deref().unwrap_or("");
    assert!(why.contains("overlap with the dependency chain"), "{why}");
    assert!(div.action.starts_with("nothing now"), "{}", div.action);
}

/// Static code has no caches or predictor: the memory causes are not judged,
/// and the verdict says so.
#[test]
fn static_verdicts_say_what_they_cannot_see() {
    let v = verdict("fma_chain");
    assert!(v.causes.iter().all(|f| !matches!(f.cause, Cause::BranchMispredictions | Cause::CacheMisses { .. })));
    assert!(v.notes.iter().any(|n| n.contains("mispredictions are not judged")), "{:?}", v.notes);
}

/// Without sensitivity nothing is measured for the port: the gain comes from
/// the stacks, and only because every accounting view agrees. shuffle_bound
/// takes 3 cycles per iteration (three vpshufb on p5); its 6 fused uops fill
/// 6 / (4 x 3) = 50 % of the slots (base), the other 50 % wait for p5 at issue
/// (structural); usage of p5 is 100 % and Top-Down flags Ports_Utilization.
/// Pipeline width, whose stack component is useful work, never gets a gain
/// from accounting alone.
#[test]
fn without_sensitivity_the_gain_comes_from_agreeing_accounting() {
    let opts = StaticOptions { sensitivity: false, ..StaticOptions::default() };
    let v = run("skylake", &block("shuffle_bound"), &opts).verdict;
    let first = &v.causes[0];
    assert_eq!(first.cause, Cause::PortPressure { ports: "p5".into() }, "{:#?}", v.causes);
    assert_eq!(first.gain.source, GainSource::CpiStacks);
    assert!((first.gain.share - 0.5).abs() < 0.01, "{:?}", first.gain);
    let chain = run("skylake", &block("fma_chain"), &opts).verdict;
    assert!(chain.causes.iter().all(|f| f.cause != Cause::PipelineWidth), "{:#?}", chain.causes);
    assert!(chain.notes.iter().any(|n| n.contains("--no-sensitivity")));
}
