//! The loop a verdict's actions point at: its instructions, the port groups
//! they occupy, and its longest loop-carried register recurrence.

use crate::block::usage::per_instruction_load;
use bottlenose_decode::{reg_name, BranchKind, DecodedInst, RegId, NUM_REGS};
use bottlenose_machine::{GroupId, Machine};
use bottlenose_timing::InstrTiming;
pub use bottlenose_report_model::verdict::Recurrence;

/// Bodies longer than this are not searched for recurrences (the search is
/// quadratic in the path length; a loop this long is not a latency chain the
/// verdict can name usefully).
const MAX_RECURRENCE_BODY: usize = 4096;

/// One instruction of the body.
#[derive(Debug, Clone)]
pub struct BodyInst {
    pub address: u64,
    pub asm: String,
    pub is_divide: bool,
    /// Uops on each group (after superset expansion).
    pub uops: Vec<(GroupId, f64)>,
}

/// A loop body (or a block analyzed as one).
#[derive(Debug, Clone)]
pub struct Body {
    /// How reports name it: `loop 0x401020 in kernel (kernel.c:12)`, a block's label.
    pub place: String,
    pub insts: Vec<BodyInst>,
    pub cycles_per_iteration: Option<f64>,
    pub recurrence: Option<Recurrence>,
}

impl Body {
    pub fn new<'a>(
        machine: &Machine,
        place: String,
        code: impl IntoIterator<Item = (&'a DecodedInst, &'a InstrTiming)>,
        cycles_per_iteration: Option<f64>,
    ) -> Body {
        let code: Vec<(&DecodedInst, &InstrTiming)> = code.into_iter().collect();
        let insts = code
            .iter()
            .map(|(d, t)| BodyInst { address: d.address, asm: d.asm.clone(), is_divide: d.is_divide, uops: per_instruction_load(machine, t) })
            .collect();
        let recurrence = if code.len() <= MAX_RECURRENCE_BODY && single_path(&code) { longest_recurrence(&code) } else { None };
        Body { place, insts, cycles_per_iteration, recurrence }
    }

    /// Uops per iteration on group `g`.
    pub fn uops_on(&self, g: GroupId) -> f64 {
        self.insts.iter().flat_map(|i| &i.uops).filter(|(x, _)| *x == g).map(|(_, n)| n).sum()
    }

    /// The instructions that put the most uops on `g`, most first.
    pub fn top_users(&self, g: GroupId, n: usize) -> Vec<&BodyInst> {
        let on = |i: &BodyInst| i.uops.iter().filter(|(x, _)| *x == g).map(|(_, u)| u).sum::<f64>();
        let mut v: Vec<&BodyInst> = self.insts.iter().filter(|i| on(i) > 0.0).collect();
        v.sort_by(|a, b| on(b).total_cmp(&on(a)));
        v.truncate(n);
        v
    }

    /// The narrowest groups at least half of whose uops come from divisions.
    pub fn divider_groups(&self, machine: &Machine) -> Vec<GroupId> {
        let mut total: Vec<(GroupId, f64, f64)> = Vec::new();
        for i in &self.insts {
            for &(g, n) in &i.uops {
                match total.iter_mut().find(|e| e.0 == g) {
                    Some(e) => {
                        e.1 += n;
                        e.2 += if i.is_divide { n } else { 0.0 };
                    }
                    None => total.push((g, n, if i.is_divide { n } else { 0.0 })),
                }
            }
        }
        let mostly: Vec<GroupId> = total.into_iter().filter(|&(_, all, div)| div > 0.0 && div >= 0.5 * all).map(|e| e.0).collect();
        // the narrowest such groups: a group containing one of them is the same pressure again
        let within = |outer: GroupId, inner: GroupId| {
            let (o, i) = (machine.groups[outer as usize].members, machine.groups[inner as usize].members);
            outer != inner && o & i == i
        };
        mostly.iter().copied().filter(|&g| !mostly.iter().any(|&h| within(g, h))).collect()
    }

    pub fn divides(&self) -> Vec<&BodyInst> {
        self.insts.iter().filter(|i| i.is_divide).collect()
    }
}

/// Whether the body is one path: at most one branch (the back edge) goes to
/// an instruction of the body. With an `if` inside, both arms are in the body
/// and a chain through them would chain alternatives.
fn single_path(code: &[(&DecodedInst, &InstrTiming)]) -> bool {
    let inside = |t: u64| code.iter().any(|(d, _)| d.address == t);
    code.iter().filter(|(d, _)| matches!(d.branch, BranchKind::Conditional | BranchKind::DirectJump) && d.branch_target.is_some_and(inside)).count() <= 1
}

/// One value's arrival: time after the iteration starts, and the chain that
/// produced it (indices into the body).
#[derive(Clone)]
struct Arrival {
    time: f64,
    chain: Vec<(usize, f64)>,
    through_load: bool,
}

/// For each register, the longest path of register dependences from its value
/// at the start of an iteration to its value at the end; the longest of those.
/// A data operand of a load-op instruction joins at the operation (its load
/// runs ahead); an address operand waits for the load too. Zero idioms and
/// eliminated moves break or shorten chains as on the core. Memory
/// dependences (a store read back next iteration) are not followed.
fn longest_recurrence(code: &[(&DecodedInst, &InstrTiming)]) -> Option<Recurrence> {
    let mut best: Option<(RegId, Arrival)> = None;
    // the loop's control (the registers the flags of its last branch come
    // from): on a tie, the accumulator is the chain to name, not the counter
    let control: Vec<RegId> = code
        .iter()
        .rposition(|(d, _)| d.branch == BranchKind::Conditional)
        .and_then(|b| code[..b].iter().rev().find(|(_, t)| t.writes.iter().any(|&w| w == bottlenose_decode::regs::FLAGS_OTHER || w == bottlenose_decode::regs::FLAGS_CF)))
        .map(|(_, t)| t.data_reads.clone())
        .unwrap_or_default();
    let written: Vec<RegId> = {
        let mut w: Vec<RegId> = code.iter().flat_map(|(_, t)| t.writes.iter().copied()).collect();
        w.sort_unstable();
        w.dedup();
        w
    };
    for &start in &written {
        let mut ready: Vec<Option<Arrival>> = vec![None; NUM_REGS];
        ready[start as usize] = Some(Arrival { time: 0.0, chain: Vec::new(), through_load: false });
        for (i, (d, t)) in code.iter().enumerate() {
            let breaks = d.zero_idiom || d.dep_breaking;
            let op = if t.eliminated { 0.0 } else { t.op_latency.max(if t.loads { 0.0 } else { t.latency }) };
            let via_addr = if t.eliminated { 0.0 } else { t.load_latency + t.op_latency };
            let mut arrival: Option<Arrival> = None;
            if !breaks {
                let sources = t.data_reads.iter().map(|&r| (r, op, false)).chain(t.addr_reads.iter().map(|&r| (r, via_addr, true)));
                for (r, lat, addr) in sources {
                    if let Some(a) = &ready[r as usize] {
                        let time = a.time + lat;
                        if arrival.as_ref().is_none_or(|b| time > b.time) {
                            let mut chain = a.chain.clone();
                            chain.push((i, lat));
                            arrival = Some(Arrival { time, chain, through_load: a.through_load || addr });
                        }
                    }
                }
            }
            for &w in &t.writes {
                ready[w as usize] = arrival.clone();
            }
        }
        if let Some(a) = ready[start as usize].take() {
            let better = |(r, b): &(RegId, Arrival)| a.time > b.time || (a.time == b.time && control.contains(r) && !control.contains(&start));
            if a.time > 0.0 && best.as_ref().is_none_or(better) {
                best = Some((start, a));
            }
        }
    }
    let (reg, a) = best?;
    // vector registers are tracked as zmmN: name them as the code does (xmmN, ymmN)
    let mut register = reg_name(reg);
    if let Some(n) = register.strip_prefix("zmm") {
        let spelled = ["xmm", "ymm"].iter().map(|p| format!("{p}{n}")).find(|r| {
            a.chain.iter().any(|&(i, _)| code[i].0.asm.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == r))
        });
        register = spelled.unwrap_or(register);
    }
    Some(Recurrence {
        register,
        cycles: a.time,
        steps: a.chain.iter().map(|&(i, lat)| format!("{} at {:#x} ({lat:.0} cycle{})", code[i].0.asm, code[i].0.address, if lat == 1.0 { "" } else { "s" })).collect(),
        through_load: a.through_load,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bottlenose_decode::decode_block;
    use bottlenose_inputs::{assemble, AsmSyntax};
    use bottlenose_timing::resolve_block;

    fn body(src: &str) -> Body {
        let m = Machine::resolve("skylake").unwrap();
        let b = &assemble(src, "t.s", AsmSyntax::Att).unwrap()[0];
        let insts = decode_block(&b.bytes, b.address).unwrap();
        let (timing, _) = resolve_block(&m, &insts);
        Body::new(&m, "t".into(), insts.iter().zip(&timing), None)
    }

    /// A pointer chase: the load's address is its own result, one L1 hit
    /// (Skylake: 5 cycles for a simple address) per iteration.
    #[test]
    fn a_chase_recurs_through_the_load() {
        let r = body("1:\nmov (%rax), %rax\ndec %ecx\njnz 1b\n").recurrence.expect("recurrence");
        assert_eq!(r.register, "rax");
        assert!(r.through_load);
        assert_eq!(r.cycles, 5.0);
    }

    /// Two dependent 4-cycle multiplies on xmm0, named as the code names it.
    #[test]
    fn a_vector_chain_is_named_as_written() {
        let r = body("1:\nmulsd %xmm1, %xmm0\nmulsd %xmm2, %xmm0\ndec %ecx\njnz 1b\n").recurrence.expect("recurrence");
        assert_eq!((r.register.as_str(), r.cycles, r.through_load), ("xmm0", 8.0, false));
        assert_eq!(r.steps.len(), 2);
    }

    /// An `if` inside the loop puts both arms in the body: a chain through
    /// them would chain alternatives, so none is claimed.
    #[test]
    fn no_recurrence_across_the_arms_of_an_if() {
        let b = body("1:\nimul %rbx, %rax\ntest %rdx, %rdx\nje 2f\nimul %rbx, %rax\n2:\ndec %ecx\njnz 1b\n");
        assert!(b.recurrence.is_none(), "{:?}", b.recurrence);
    }

    /// A zero idiom starts a new value each iteration: no recurrence through
    /// rax; the longest left is the counter's.
    #[test]
    fn a_zero_idiom_breaks_the_chain() {
        let r = body("1:\nxor %eax, %eax\nimul %rbx, %rax\nimul %rbx, %rax\ndec %ecx\njnz 1b\n").recurrence.expect("the counter");
        assert_eq!(r.register, "rcx");
        assert_eq!(r.cycles, 1.0);
    }
}
