//! Resolution of decoded instructions against a machine: which resources each
//! part of an instruction (load, compute, store address, store data) occupies,
//! with what latency, how many slots it takes in the frontend and ROB, and which
//! registers it waits for. Done once per static instruction; the per-execution
//! model only reads the result.

use crate::ports::group_mask;
use crate::strings::StringTiming;
use bottlenose_decode::{BranchKind, DecodedInst, RegId};
use bottlenose_machine::{Form, GroupId, Machine};
use serde::Serialize;
pub use bottlenose_report_model::UnknownForm;

/// One resource use of an instruction part: `count` uops (or busy cycles) on
/// `group`, each also occupying every group that contains it (`targets`).
#[derive(Debug, Clone, Serialize)]
pub struct Use {
    pub group: GroupId,
    pub count: f64,
    #[serde(skip)]
    pub targets: Vec<GroupId>,
    /// `targets` as a bit mask (0 where a group is beyond what a mask names).
    #[serde(skip)]
    pub mask: u64,
}

/// Per-static-instruction timing facts for one machine.
#[derive(Debug, Clone, Serialize)]
pub struct InstrTiming {
    /// A string instruction, timed per execution from its element count (not by its parts).
    pub string: Option<StringTiming>,
    /// Slots taken at dispatch and in the ROB (after micro/macro fusion).
    pub fused_uops: u32,
    /// Scheduler entries (unfused uops that need a port).
    pub unfused_uops: u32,
    pub load_uses: Vec<Use>,
    pub compute_uses: Vec<Use>,
    pub store_address_uses: Vec<Use>,
    pub store_data_uses: Vec<Use>,
    /// The base update of a pre/post-index access (`address_writes`).
    pub writeback_uses: Vec<Use>,
    pub loads: bool,
    pub stores: bool,
    /// Latency of the load part (L1 hit) and of the compute part.
    pub load_latency: f64,
    pub op_latency: f64,
    /// Total latency from the form table (what a user expects to see).
    pub latency: f64,
    #[serde(skip)]
    pub data_reads: Vec<RegId>,
    #[serde(skip)]
    pub addr_reads: Vec<RegId>,
    #[serde(skip)]
    pub writes: Vec<RegId>,
    /// Base registers a pre/post-index access writes back: ready a cycle after its
    /// address is computed (the AGU's add), whatever the load's latency.
    #[serde(skip)]
    pub address_writes: Vec<RegId>,
    /// An FMA with late accumulator forwarding (`fma_accumulate_latency`): its
    /// accumulator register, and the cycles after its issue at which a chained FMA
    /// may use its result (0: no forwarding).
    #[serde(skip)]
    pub accumulator: Option<RegId>,
    pub accumulate_latency: f64,
    /// Executed at rename (zero idiom, eliminated move): no port, no latency.
    pub eliminated: bool,
    /// A conditional branch fused with the previous instruction.
    pub macro_fused: bool,
    pub branch: BranchKind,
    /// The form was not in the machine's table; the default form was used.
    pub unknown_form: bool,
    pub is_divide: bool,
    pub flops: u16,
    /// Identity of the memory operand's address expression for memory renaming
    /// (base register or RIP target, displacement, size); 0 when it cannot be renamed
    /// (indexed, gather, no fixed size, wider than a register).
    pub mem_key: u64,
    /// The aligned fetch window holding the instruction's last byte (0 without
    /// `fetch_block_bytes`): a change of window starts a new fetch block.
    pub fetch_window: u64,
}

impl InstrTiming {
    /// Every resource use of the instruction, whichever its part.
    pub fn all_uses(&self) -> impl Iterator<Item = &Use> {
        self.load_uses
            .iter()
            .chain(&self.compute_uses)
            .chain(&self.store_address_uses)
            .chain(&self.store_data_uses)
            .chain(&self.writeback_uses)
    }
}

/// Resolves a block (in program order, so macro-fusion can pair neighbours).
pub fn resolve_block(machine: &Machine, insts: &[DecodedInst]) -> (Vec<InstrTiming>, Vec<UnknownForm>) {
    let mut out: Vec<InstrTiming> = Vec::with_capacity(insts.len());
    let mut unknown = Vec::new();
    for (i, inst) in insts.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| &insts[p]);
        let t = resolve(machine, inst, prev);
        if t.unknown_form {
            unknown.push(UnknownForm { form: inst.form.clone(), asm: inst.asm.clone(), address: inst.address });
        }
        if t.macro_fused {
            // the pair runs as one uop on the branch's port: the ALU half keeps its
            // latency but gives up its slot and its port
            if let Some(p) = out.last_mut() {
                p.compute_uses.clear();
                p.unfused_uops = p.unfused_uops.saturating_sub(1);
            }
        }
        out.push(t);
    }
    (out, unknown)
}

/// Resolves one instruction; `prev` is the instruction before it in program order.
pub fn resolve(machine: &Machine, inst: &DecodedInst, prev: Option<&DecodedInst>) -> InstrTiming {
    if let Some(op) = inst.string_op {
        return crate::strings::resolve_string(machine, inst, op);
    }
    let p = &machine.params;
    // An AVX-512 instruction on a core without AVX-512 would fault there: it is
    // timed as the default form and reported, whatever the imported table says.
    let (form, unknown_form) = match machine.form(&inst.form) {
        Some(f) if !inst.avx512 || p.vector.avx512 => (f, false),
        _ => (&machine.default_form, true),
    };
    let loads = inst.loads() || form.load;
    let stores = inst.stores() || form.store;
    let group_in = |names: &[String], g: GroupId| names.iter().any(|n| machine.groups[g as usize].name == *n);
    let mk = |g: GroupId, count: f64| Use { group: g, count, targets: machine.supersets(g).to_vec(), mask: group_mask(machine.supersets(g)) };

    let mut load_uses = Vec::new();
    let mut sta = Vec::new();
    // `indexed_store_address_groups`: an indexed (or VSIB) store's address uop goes there instead
    // (Haswell/Skylake: port 7 only takes base + displacement)
    let isag = &p.memory.indexed_store_address_groups;
    let indexed = !isag.is_empty() && inst.mem.first().is_some_and(|m| m.index.is_some() || m.vsib);
    let sta_group = |g: GroupId| match p.memory.store_address_groups.iter().position(|n| machine.groups[g as usize].name == *n) {
        Some(i) if indexed => machine.group_id(isag.get(i).unwrap_or(&isag[0])).unwrap_or(g),
        _ => g,
    };
    let mut std_ = Vec::new();
    let mut compute = Vec::new();
    let pure_store = stores && !loads;
    for &(g, count) in &form.uses {
        if pure_store && group_in(&p.memory.stores_skip_groups, g) {
            continue;
        }
        if loads && group_in(&p.memory.load_groups, g) && !load_uses.iter().any(|u: &Use| u.group == g) {
            load_uses.push(mk(g, count.min(1.0)));
            if count > 1.0 && !stores {
                compute.push(mk(g, count - 1.0));
            } else if count > 1.0 && group_in(&p.memory.store_address_groups, g) {
                sta.push(mk(sta_group(g), (count - 1.0).min(1.0)));
            }
        } else if stores && group_in(&p.memory.store_address_groups, g) && !sta.iter().any(|u: &Use| u.group == g) {
            sta.push(mk(sta_group(g), count));
        } else if stores && group_in(&p.memory.store_data_groups, g) {
            std_.push(mk(g, count));
        } else {
            compute.push(mk(g, count));
        }
    }

    // A pre/post-index access's integer uop is its base update: it needs the address
    // registers only, not the loaded data (see `address_writes`).
    let mut writeback = Vec::new();
    if !inst.address_writes.is_empty() && (loads || stores) && !compute.is_empty() {
        let first = &mut compute[0];
        if first.count > 1.0 {
            first.count -= 1.0;
            writeback.push(mk(first.group, 1.0));
        } else {
            writeback.push(compute.remove(0));
        }
    }
    let eliminated = (inst.zero_idiom && p.fusion.zero_idioms) || (inst.move_candidate && p.fusion.move_elimination);
    if eliminated {
        compute.clear();
    }
    let (load_latency, op_latency) = split_latency(machine, inst, form, loads, !compute.is_empty());

    let macro_fused = p.fusion.macro_fusion
        && inst.branch == BranchKind::Conditional
        && prev.is_some_and(|q| q.macro_fusible && !q.stores());

    let unfused: f64 = [&load_uses, &compute, &sta, &std_, &writeback].iter().flat_map(|v| v.iter()).map(|u| u.count.ceil()).sum();
    let unfused_uops = unfused as u32;
    let mut fused = form.uops.max(1);
    if p.fusion.micro_fusion && fused >= 2 {
        if loads && !compute.is_empty() {
            fused -= 1;
        }
        if stores && fused >= 2 {
            fused -= 1;
        }
    }
    if macro_fused {
        fused = 0;
    }
    let ignore = p.core.ignore_dependencies;
    let accumulator = inst.accumulator.filter(|_| !ignore);
    let accumulate_latency = p.core.fma_accumulate_latency.filter(|_| accumulator.is_some()).map(|l| l.min(op_latency));
    InstrTiming {
        string: None,
        fused_uops: fused,
        unfused_uops,
        load_uses,
        compute_uses: compute,
        store_address_uses: sta,
        store_data_uses: std_,
        writeback_uses: writeback,
        loads,
        stores,
        load_latency,
        op_latency: if eliminated { 0.0 } else { op_latency },
        latency: form.latency,
        data_reads: if ignore { vec![] } else { inst.data_reads.clone() },
        addr_reads: if ignore { vec![] } else { inst.addr_reads.clone() },
        writes: if ignore { vec![] } else { inst.writes.clone() },
        address_writes: if ignore { vec![] } else { inst.address_writes.clone() },
        accumulator: accumulate_latency.and(accumulator),
        accumulate_latency: accumulate_latency.unwrap_or(0.0),
        eliminated,
        macro_fused,
        branch: inst.branch,
        unknown_form,
        is_divide: inst.is_divide,
        flops: inst.flops,
        mem_key: mem_key(inst),
        fetch_window: match p.core.fetch_block_bytes {
            0 => 0,
            // wrapping like the decoder's addresses: a block may end at the top of the address space
            w => inst.address.wrapping_add(inst.len.max(1) as u64 - 1) / w as u64,
        },
    }
}

/// See [`InstrTiming::mem_key`]: a hash of what names the address, never 0 for a renamable operand.
fn mem_key(inst: &DecodedInst) -> u64 {
    let Some(m) = inst.mem.first() else { return 0 };
    if m.vsib || m.index.is_some() || !(1..=8).contains(&m.size) || inst.vector_bits != 0 {
        return 0;
    }
    let (tag, what) = if m.rip_relative {
        (1u64, m.displacement as u64) // iced gives RIP-relative displacements as the absolute target
    } else if let Some(b) = m.base {
        (2u64 + b as u64, m.displacement as u64)
    } else {
        return 0; // implicit stack accesses (push/pop/call/ret) and rare absolute addresses
    };
    let h = (what ^ (tag << 56) ^ ((m.size as u64) << 48)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h | 1
}

/// Splits a load form's latency into the load (L1 hit) and the operation.
/// The operation's latency is taken from the register form of the same
/// instruction when the table has it (`vaddpd ymm, ymm, m256` → `vaddpd ymm, ymm, ymm`),
/// which captures the different load latencies of integer and vector loads.
fn split_latency(machine: &Machine, inst: &DecodedInst, form: &Form, loads: bool, has_compute: bool) -> (f64, f64) {
    let l1 = machine.params.memory.load_latency;
    if !loads {
        return (l1, form.latency);
    }
    let register_op = || register_form(&inst.form).as_deref().and_then(|k| machine.form(k)).map(|f| f.latency);
    if let Some(lat) = measured_integer_load(machine, inst) {
        let op = if has_compute { register_op().unwrap_or((form.latency - l1).max(1.0)) } else { 0.0 };
        return (lat, op);
    }
    if !has_compute {
        return (form.latency.max(1.0), 0.0);
    }
    let op = register_op().filter(|&op| op < form.latency).unwrap_or((form.latency - l1).max(1.0));
    ((form.latency - op).max(1.0), op)
}

/// The machine's measured load-to-use latency for a general-purpose load (not a gather),
/// with what an index register adds; `None` when the machine has no measurement.
fn measured_integer_load(machine: &Machine, inst: &DecodedInst) -> Option<f64> {
    let m = &machine.params.memory;
    let mem = inst.mem.first().filter(|o| !o.vsib && inst.vector_bits == 0)?;
    Some(m.integer_load_latency? + if mem.index.is_some() { m.indexed_load_extra_latency } else { 0.0 })
}

/// `vaddsd xmm, xmm, m64` → `vaddsd xmm, xmm, xmm` (memory operand replaced by the destination's class).
fn register_form(key: &str) -> Option<String> {
    let (mnemonic, ops) = key.split_once(' ')?;
    let ops: Vec<&str> = ops.split(", ").collect();
    let dest = ops.iter().find(|o| !o.starts_with('m') && *o != &"imm")?;
    let replaced: Vec<&str> = ops.iter().map(|o| if o.starts_with('m') { *dest } else { *o }).collect();
    Some(format!("{mnemonic} {}", replaced.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::{mem_key, register_form};
    use bottlenose_decode::decode_one;

    #[test]
    fn rename_keys_name_the_address_expression() {
        // mov rax, [rip+0x100] at 0x1000 and mov [rip+0xf9], rax at 0x1007 name the same byte
        let load = decode_one(&[0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00], 0x1000).unwrap();
        let store = decode_one(&[0x48, 0x89, 0x05, 0xf9, 0x00, 0x00, 0x00], 0x1007).unwrap();
        assert!(load.mem[0].rip_relative && store.mem[0].rip_relative);
        assert_ne!(mem_key(&load), 0);
        assert_eq!(mem_key(&load), mem_key(&store));
        // mov rax, [rbx+8] vs mov [rbx+8], rax: same; mov [rcx+8], rax: another base
        let a = decode_one(&[0x48, 0x8b, 0x43, 0x08], 0).unwrap();
        let b = decode_one(&[0x48, 0x89, 0x43, 0x08], 0).unwrap();
        let c = decode_one(&[0x48, 0x89, 0x41, 0x08], 0).unwrap();
        assert_eq!(mem_key(&a), mem_key(&b));
        assert_ne!(mem_key(&a), mem_key(&c));
        // indexed: mov rax, [rbx+rcx*8] is never renamed
        let idx = decode_one(&[0x48, 0x8b, 0x04, 0xcb], 0).unwrap();
        assert_eq!(mem_key(&idx), 0);
    }
    #[test]
    fn register_form_of_load_op() {
        assert_eq!(register_form("vaddsd xmm, xmm, m64").as_deref(), Some("vaddsd xmm, xmm, xmm"));
        assert_eq!(register_form("add r64, m64").as_deref(), Some("add r64, r64"));
        assert_eq!(register_form("add m64, imm").as_deref(), None);
    }
}
