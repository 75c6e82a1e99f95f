//! x86-64 decoding of arbitrary bytes (`bottlenose_decode::decode_block`,
//! `decode_one`), then resolution of the decoded block against the built-in
//! machines (`bottlenose_timing::resolve_block`).
//!
//! Input: 8 bytes of start address (LE), then the code. Shorter inputs are
//! code at address 0.

use std::sync::OnceLock;

use bottlenose_machine::Machine;

static MACHINES: OnceLock<Vec<Machine>> = OnceLock::new();

pub fn run(data: &[u8]) {
    let machines = MACHINES.get_or_init(|| {
        ["skylake", "zen4", "gus-fig4"]
            .iter()
            .map(|m| Machine::resolve(m).expect("built-in machine"))
            .collect()
    });
    let (address, code) = if data.len() > 8 {
        (
            u64::from_le_bytes(data[..8].try_into().unwrap()),
            &data[8..],
        )
    } else {
        (0, data)
    };
    let _ = bottlenose_decode::decode_one(code, address);
    let Ok(insts) = bottlenose_decode::decode_block(code, address) else {
        return;
    };
    let total: usize = insts.iter().map(|i| i.len as usize).sum();
    assert_eq!(total, code.len(), "decoded lengths cover the block");
    for m in machines {
        let (timings, _unknown) = bottlenose_timing::resolve_block(m, &insts);
        assert_eq!(timings.len(), insts.len());
    }
}
