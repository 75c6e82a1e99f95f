//! Inputs that crashed the fuzz targets (`fuzz/`, `scripts/fuzz.sh`),
//! minimized: each must now give a clean result. The crashing inputs
//! themselves are in `fuzz/regressions/TARGET/`, replayed by the fuzz
//! workspace's tests.

use bottlenose_decode::decode_block;
use bottlenose_machine::Machine;
use bottlenose_timing::resolve_block;

/// decode_resolve: `div edi` at the last address (2 bytes: its second byte is
/// at address 0 once the address wraps, as the decoder's addresses do) overflowed
/// `address + len - 1` working out its fetch window on a machine with
/// fetch blocks (zen4: 64-byte windows).
#[test]
fn fetch_window_of_an_instruction_that_wraps_the_address_space() {
    let zen4 = Machine::resolve("zen4").unwrap();
    assert_eq!(zen4.params.core.fetch_block_bytes, 64);
    let insts = decode_block(&[0xf7, 0xf7, 0x12, 0x12], u64::MAX).unwrap();
    assert_eq!(insts.iter().map(|i| i.address).collect::<Vec<_>>(), [u64::MAX, 1]);
    let (timings, _) = resolve_block(&zen4, &insts);
    // last bytes at 0 and 2: both in the window [0, 64)
    assert_eq!(timings.iter().map(|t| t.fetch_window).collect::<Vec<_>>(), [0, 0]);
}

/// Just below the top, nothing wraps: the last byte's window as before.
#[test]
fn fetch_window_at_the_top_of_the_address_space() {
    let zen4 = Machine::resolve("zen4").unwrap();
    let insts = decode_block(&[0x90], u64::MAX - 1).unwrap();
    let (timings, _) = resolve_block(&zen4, &insts);
    assert_eq!(timings[0].fetch_window, (u64::MAX - 1) / 64);
}
