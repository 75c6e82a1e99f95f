#![allow(dead_code)]
use bottlenose_analysis::{analyze_block, BlockReport, StaticOptions};
use bottlenose_decode::{decode_block, DecodedInst};
use bottlenose_machine::Machine;
use bottlenose_inputs::{assemble, AsmSyntax};

pub fn asm(src: &str) -> Vec<DecodedInst> {
    let blocks = assemble(src, "test.s", AsmSyntax::Intel).expect("assemble");
    decode_block(&blocks[0].bytes, blocks[0].address).expect("decode")
}

pub fn machine(name: &str) -> Machine {
    Machine::resolve(name).expect("machine")
}

pub fn run(machine_name: &str, src: &str, opts: &StaticOptions) -> BlockReport {
    analyze_block(&machine(machine_name), "test", &asm(src), opts).expect("analysis")
}

pub fn speedup(r: &BlockReport, resource: &str, weight: f64) -> f64 {
    r.sensitivity
        .iter()
        .find(|p| p.resources == [resource.to_string()] && (p.weight - weight).abs() < 1e-9)
        .unwrap_or_else(|| panic!("no sensitivity point for {resource} at {weight}"))
        .speedup
}
