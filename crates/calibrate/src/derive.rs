//! Forms an overlay can time from measured ones without measuring them: the other operand
//! orders and signs of a measured FMA (`vfmadd231sd` -> `vfmadd213sd`, `vfnmsub132sd`...:
//! one unit, one latency), and the memory-operand variants of measured register forms
//! (`vdivpd ymm, ymm, m256` from `vdivpd ymm, ymm, ymm`), whose execution is the register
//! form's: their compute uses get the register form's correction, their load stays as the
//! base model has it, and their latency is left to the model, which takes the operation's
//! from the register form.

use crate::MeasuredForm;
use bottlenose_machine::{GroupId, Machine};

/// FMA families that share a unit and a latency.
const FMA_KINDS: [&str; 4] = ["vfmadd", "vfmsub", "vfnmadd", "vfnmsub"];
const FMA_ORDERS: [&str; 3] = ["132", "213", "231"];

/// `(kind, suffix)` of an FMA mnemonic (`vfnmadd231ps` -> `("vfnmadd", "ps")`).
fn fma_parts(mnemonic: &str) -> Option<(&str, &str)> {
    FMA_KINDS.iter().find_map(|k| {
        let rest = mnemonic.strip_prefix(k)?;
        FMA_ORDERS.iter().find_map(|o| rest.strip_prefix(o)).map(|suffix| (*k, suffix))
    })
}

fn split(key: &str) -> (&str, Vec<&str>) {
    let (m, ops) = key.split_once(' ').unwrap_or((key, ""));
    (m, ops.split(',').map(str::trim).filter(|s| !s.is_empty()).collect())
}

/// Whether `mem` is `reg` with exactly one source register operand replaced by memory (a
/// memory destination adds a store, which the register form says nothing about).
fn memory_variant_of(mem: &str, reg: &str) -> bool {
    let ((mm, mo), (rm, ro)) = (split(mem), split(reg));
    let differ: Vec<usize> = (0..mo.len().min(ro.len())).filter(|&i| mo[i] != ro[i]).collect();
    mm == rm
        && mo.len() == ro.len()
        && matches!(differ[..], [i] if i > 0 && mo[i].starts_with('m') && !ro[i].starts_with('m') && ro[i] != "imm")
}

/// The derived forms, for forms of the base table that were not measured themselves.
pub fn derived_forms(measured: &[MeasuredForm], base: &Machine) -> Vec<MeasuredForm> {
    let known = |k: &str| measured.iter().any(|m| m.form == k);
    let usable: Vec<&MeasuredForm> = measured.iter().filter(|m| !m.unstable && (m.latency.is_some() || m.rthroughput.is_some())).collect();
    let mut out: Vec<MeasuredForm> = Vec::new();
    // FMA siblings: same operands, another order or sign
    for m in &usable {
        let (mnemonic, ops) = split(&m.form);
        let Some((_, suffix)) = fma_parts(mnemonic) else { continue };
        for kind in FMA_KINDS {
            for order in FMA_ORDERS {
                let key = format!("{kind}{order}{suffix} {}", ops.join(", "));
                if key == m.form || known(&key) || out.iter().any(|d| d.form == key) {
                    continue;
                }
                let Some(f) = base.form(&key) else { continue };
                out.push(MeasuredForm {
                    form: key,
                    latency: m.latency,
                    rthroughput: m.rthroughput,
                    base_latency: Some(f.latency),
                    base_rthroughput: base.rthroughput_bound(&f.uses),
                    method: format!("derived from `{}` (measured): the same FMA unit and latency", m.form),
                    unstable: false,
                });
            }
        }
    }
    // memory-operand variants of the register forms, measured or derived
    let load_groups: Vec<GroupId> = base.params.memory.load_groups.iter().filter_map(|g| base.group_id(g)).collect();
    let registers: Vec<MeasuredForm> = usable.iter().map(|m| (*m).clone()).chain(out.iter().cloned()).filter(|m| m.rthroughput.is_some()).collect();
    let mut keys: Vec<&String> = base.forms.keys().collect();
    keys.sort(); // one order whatever the table's hashing
    for r in &registers {
        let (Some(rt), Some(reg)) = (r.rthroughput, base.form(&r.form)) else { continue };
        let Some(base_rt) = base.rthroughput_bound(&reg.uses).filter(|&b| b > 0.0) else { continue };
        let factor = rt / base_rt;
        for key in keys.iter().filter(|k| memory_variant_of(k, &r.form)) {
            if known(key) || out.iter().any(|d| &d.form == *key) {
                continue;
            }
            let f = &base.forms[*key];
            let uses: Vec<(GroupId, f64)> = f.uses.iter().map(|&(g, n)| (g, if load_groups.contains(&g) { n } else { n * factor })).collect();
            let Some(target) = base.rthroughput_bound(&uses) else { continue };
            out.push(MeasuredForm {
                form: key.to_string(),
                latency: None,
                rthroughput: Some((target * 1000.0).round() / 1000.0),
                base_latency: Some(f.latency),
                base_rthroughput: base.rthroughput_bound(&f.uses),
                method: format!(
                    "derived from `{}` (measured {rt:.3} against the base's {base_rt:.3}): its compute uses scaled by the same {factor:.3}, the load as the base has it; latency from the register form",
                    r.form
                ),
                unstable: false,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(key: &str, latency: Option<f64>, rt: Option<f64>) -> MeasuredForm {
        MeasuredForm { form: key.into(), latency, rthroughput: rt, base_latency: None, base_rthroughput: None, method: "m".into(), unstable: false }
    }

    #[test]
    fn fma_orders_and_memory_operands_follow_the_measured_register_forms() {
        let skl = bottlenose_machine::load_builtin("skylake").unwrap().unwrap();
        let measured = vec![
            // skylake's table: divider 8 cycles a ymm divide, FMA 4 cycles latency
            form("vdivpd ymm, ymm, ymm", Some(13.0), Some(4.5)),
            form("vfmadd231sd xmm, xmm, xmm", Some(4.0), Some(0.5)),
            form("add r64, r64", Some(1.0), Some(0.25)),
            // measured itself: never overwritten by a derivation
            form("add r64, m64", Some(5.0), Some(0.4)),
        ];
        let d = derived_forms(&measured, &skl);
        let get = |k: &str| d.iter().find(|f| f.form == k).unwrap_or_else(|| panic!("{k} not derived: {:?}", d.iter().map(|f| &f.form).collect::<Vec<_>>()));
        // the divider (8 -> 4.5) bounds the memory form too; its load uop stays on p23
        let div = get("vdivpd ymm, ymm, m256");
        assert_eq!(div.rthroughput, Some(4.5));
        assert_eq!(div.latency, None);
        assert_eq!(div.base_rthroughput, Some(8.0));
        // other FMA orders and signs of the same width: same timing
        for k in ["vfmadd213sd xmm, xmm, xmm", "vfmadd132sd xmm, xmm, xmm", "vfnmsub231sd xmm, xmm, xmm"] {
            let f = get(k);
            assert_eq!((f.latency, f.rthroughput), (Some(4.0), Some(0.5)), "{k}");
        }
        // and their memory forms: two loads per cycle on p23 do not bound them below 0.5
        assert_eq!(get("vfmadd213sd xmm, xmm, m64").rthroughput, Some(0.5));
        assert!(d.iter().all(|f| f.form != "add r64, m64" && f.form != "vfmadd231sd xmm, xmm, xmm"));
        // another width is another form
        assert!(d.iter().all(|f| f.form != "vfmadd213pd ymm, ymm, ymm"));
        assert!(memory_variant_of("vaddpd ymm, ymm, m256", "vaddpd ymm, ymm, ymm"));
        assert!(!memory_variant_of("vaddpd ymm, m256, m256", "vaddpd ymm, ymm, ymm"));
        assert!(!memory_variant_of("vaddps ymm, ymm, m256", "vaddpd ymm, ymm, ymm"));
        assert!(!memory_variant_of("shl m64, imm", "shl r64, r8"));
        assert!(!memory_variant_of("add m64, r64", "add r64, r64"), "a memory destination stores");
    }
}
