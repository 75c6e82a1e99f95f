//! A faster resource must not make a block slower unless the report says why:
//! every sensitivity sweep that comes out slower than the baseline, or than a
//! smaller weight of the same resources, carries the model's explanation.
mod common;
use bottlenose_analysis::{BlockReport, StaticOptions};
use common::*;

const GUS_FIG4: &str = include_str!("../../../examples/gus-fig4.s");

fn slowdowns(r: &BlockReport) -> Vec<(String, bool)> {
    let mut sets: Vec<&Vec<String>> = Vec::new();
    for p in &r.sensitivity {
        if !sets.contains(&&p.resources) {
            sets.push(&p.resources);
        }
    }
    let mut out = Vec::new();
    for s in sets {
        let mut pts: Vec<_> = r.sensitivity.iter().filter(|p| &p.resources == s).collect();
        pts.sort_by(|a, b| a.weight.total_cmp(&b.weight));
        let mut best = 0.0f64;
        let mut slower = false;
        for p in &pts {
            slower |= p.speedup < best - 0.005;
            best = best.max(p.speedup);
        }
        if slower {
            out.push((s.join("+"), pts.iter().any(|p| p.anomaly.is_some())));
        }
    }
    out
}

/// Gus Fig. 4's block on skylake is bound by the `mul rbx` chain (rax → rax,
/// 3 cycles, plus its second uop). With p06 1 % faster the p06 uops that issue
/// early (sbb, rol, sahf) fill the p0156 group in the cycle the chain's `mul`
/// needs it: mul, which never waited for a port, now waits every iteration.
#[test]
fn a_slower_faster_port_is_explained_by_the_port_the_chain_waits_for() {
    let r = run("skylake", GUS_FIG4, &StaticOptions::default());
    let p = r.sensitivity.iter().find(|p| p.resources == ["p06"] && p.speedup < -0.005).expect("p06 slows the block down");
    let a = p.anomaly.as_ref().expect("explained");
    assert_eq!(r.instructions[a.delayed].asm, "mul rbx");
    assert_eq!(a.port_group, "p0156");
    assert!(a.port_waits_before < 0.05 && a.port_waits_after > 0.5, "{a:?}");
    assert_eq!(a.compared_with_weight, 1.0);
}

#[test]
fn every_slowdown_of_the_bench_blocks_is_explained() {
    let blocks = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/blocks")).unwrap();
    let mut srcs: Vec<(String, String)> = blocks
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "s"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), format!(".att_syntax prefix\n{}", std::fs::read_to_string(&p).unwrap())))
        .collect();
    srcs.push(("gus-fig4.s".into(), GUS_FIG4.into()));
    for machine in ["skylake", "zen4"] {
        for (name, src) in &srcs {
            let r = run(machine, src, &StaticOptions::default());
            for (set, explained) in slowdowns(&r) {
                assert!(explained, "{name} on {machine}: {set} is slower when faster, without an explanation");
            }
        }
    }
}
