//! AArch64 pre/post-index writeback: the base register is ready a cycle after the
//! access's address, not when its data arrives (the Arm ARM's writeback is an add of
//! the offset to the base; the Neoverse SWOGs give it 1 cycle on an integer pipe).
use bottlenose_decode::{decode_block_for, Isa};
use bottlenose_machine::Machine;
use bottlenose_timing::*;

const MACHINE: &str = r#"
name = "tiny-arm"
forms = "tiny-arm.forms.toml"
[core]
dispatch_width = 4
commit_width = 4
rob = 32
scheduler = 16
load_buffer = 8
store_buffer = 8
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
"ldr x, m64 post" = { uops = 2, latency = 4, load = true, use = { ld = 1, alu = 1 } }
"ldr x, m64" = { uops = 1, latency = 4, load = true, use = { ld = 1 } }
"str x, m64 post" = { uops = 2, latency = 1, store = true, use = { st = 1, alu = 1 } }
"#;

fn timed(words: &[u32]) -> Vec<StageTimes> {
    let m = Machine::from_strs("tiny-arm.toml", MACHINE, FORMS).expect("tiny machine");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let insts = decode_block_for(Isa::Aarch64, &bytes, 0).unwrap();
    let (b, unknown) = resolve_block(&m, &insts);
    assert!(unknown.is_empty(), "{unknown:?}");
    let mut core = Core::new(CoreConfig::new(&m, &Acceleration::nominal(&m)));
    b.iter().map(|it| core.step(it, &DynInfo::default(), &mut StageDetails::default())).collect()
}

#[test]
fn post_index_loads_chain_through_the_base_at_one_cycle() {
    // ldr x2, [x1], #8 three times (GNU as: f8408422)
    let t = timed(&[0xf8408422; 3]);
    assert_eq!(t.iter().map(|s| s.issue).collect::<Vec<_>>(), vec![0.0, 1.0, 2.0], "one load per cycle, not one per load latency");
    assert_eq!(t[2].ready, 6.0, "the data still takes the 4-cycle load latency");
}

#[test]
fn a_load_of_the_base_itself_waits_for_the_data() {
    // ldr x1, [x1] three times (f9400021): a pointer chase, 4 cycles per link
    let t = timed(&[0xf9400021; 3]);
    assert_eq!(t.iter().map(|s| s.issue).collect::<Vec<_>>(), vec![0.0, 4.0, 8.0]);
}

#[test]
fn post_index_stores_update_the_base_a_cycle_after_the_address() {
    // str x2, [x1], #8 three times (f8008422): the address uops issue at 0, 1, 2 on the
    // one store port, each base a cycle after the last; each store is written a cycle
    // after its address and data
    let t = timed(&[0xf8008422; 3]);
    assert_eq!(t.iter().map(|s| s.complete).collect::<Vec<_>>(), vec![1.0, 2.0, 3.0]);
}
