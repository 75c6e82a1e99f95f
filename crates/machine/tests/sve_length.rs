//! The SVE vector length a machine's code runs with under QEMU 7.2, from its `qemu_cpu`.
//! Expected values: `rdvl x0, #1` (bytes) × 8 printed by a static test program under
//! `qemu-aarch64 -cpu <option>` (QEMU 7.2.22, Debian 12): max 512, max,sve128=on 128,
//! max,sve256=on 256, max,sve128=on,sve256=on 256, max,sve-default-vector-length=32 256.

use bottlenose_machine::{Machine, PeerNames};

fn bits(cpu: Option<&str>) -> Option<u16> {
    PeerNames { qemu_cpu: cpu.map(str::to_string), ..Default::default() }.sve_vector_bits()
}

#[test]
fn qemu_cpu_options() {
    assert_eq!(bits(Some("max")), Some(512));
    assert_eq!(bits(None), Some(512), "qemu-aarch64's default CPU is max");
    assert_eq!(bits(Some("max,sve128=on")), Some(128));
    assert_eq!(bits(Some("max,sve256=on")), Some(256));
    assert_eq!(bits(Some("max,sve128=on,sve256=on")), Some(256));
    assert_eq!(bits(Some("max,sve-default-vector-length=32")), Some(256));
    assert_eq!(bits(Some("max,sve=off")), None);
    assert_eq!(bits(Some("neoverse-n1")), None, "the N1 has no SVE");
    assert_eq!(bits(Some("cortex-a72")), None);
}

#[test]
fn machines() {
    let v2 = Machine::resolve("neoverse-v2").unwrap();
    assert_eq!(v2.peers.sve_vector_bits(), Some(128), "the V2's SVE is 128 bits wide");
    assert_eq!(v2.sve_decode_bits(), 128);
    let n1 = Machine::resolve("neoverse-n1").unwrap();
    assert_eq!(n1.peers.sve_vector_bits(), None);
}
