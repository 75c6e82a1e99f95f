//! From per-unit pressure back to a resource mapping.
//!
//! llvm-mca reports, per instruction, the average cycles each port *unit* is busy
//! (a uop that may issue on p0/p1/p5/p6 shows as 0.25 on each). LLVM's models are
//! written in terms of port *groups* (`SKLPort0156`), which the report does not name,
//! so we recover them: a single-uop row whose busy units are equally loaded is one
//! group; so is any set of units that share a fractional pressure in some row when
//! the known groups cannot explain it with whole uops (a store-address uop shows
//! as 1/3 on p2, p3, p7: that is `p237`, not 2/3 of a `p23` uop plus 1/3 of `p7`).
//! Every row is then decomposed greedily into (group, uop count) pairs.
//!
//! Units are bit positions in a `u64` mask (at most 64 units).

/// A set of unit indices.
pub type UnitSet = u64;

const EPS: f64 = 1e-6;

pub fn members(set: UnitSet) -> Vec<usize> {
    (0..64).filter(|i| set & (1 << i) != 0).collect()
}

fn size(set: UnitSet) -> usize {
    set.count_ones() as usize
}

/// llvm-mca prints pressure with two decimals (1/3 → 0.33). Snap a value back to
/// the nearest k/d, d ≤ 12, when it is within the printing error.
pub fn snap(x: f64) -> f64 {
    if x.abs() < 0.005 {
        return 0.0;
    }
    let whole = x.floor();
    let frac = x - whole;
    for d in 1..=12u32 {
        let k = (frac * d as f64).round();
        let cand = k / d as f64;
        if (cand - frac).abs() <= 0.0051 {
            return whole + cand;
        }
    }
    x
}

fn is_whole(x: f64, tol: f64) -> bool {
    (x - x.round()).abs() <= tol
}

/// Derives the port groups from all rows (`(uops, pressure per unit)`, pressure
/// already snapped). `initial` holds groups known up front (the units of each
/// multi-unit resource). The result always contains every singleton.
pub fn derive_groups(rows: &[(u32, Vec<f64>)], units: usize, initial: &[UnitSet]) -> Vec<UnitSet> {
    let mut groups: Vec<UnitSet> = (0..units).map(|i| 1u64 << i).collect();
    for &g in initial {
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    // Candidates: (a) the busy units of a single-uop row when all are equally
    // loaded; (b) level sets, units sharing one fractional pressure p in a row
    // with |S|·p whole. Smallest first; a candidate the known groups already
    // explain with whole uop counts is not a new group (p01 + p23 at 0.5 each is
    // a p01 uop and a p23 uop, not a four-port group).
    let mut cands: Vec<(UnitSet, f64)> = Vec::new();
    for (uops, p) in rows {
        let busy: Vec<usize> = (0..units).filter(|&i| p[i] > EPS).collect();
        if *uops == 1 && busy.len() >= 2 && busy.iter().all(|&i| (p[i] - p[busy[0]]).abs() < 0.011)
        {
            cands.push((busy.iter().fold(0u64, |s, &i| s | 1 << i), p[busy[0]]));
        }
        let mut seen: Vec<f64> = Vec::new();
        for &i in &busy {
            let v = p[i];
            if is_whole(v, 1e-3) || seen.iter().any(|s| (s - v).abs() < 1e-9) {
                continue;
            }
            seen.push(v);
            let set = busy
                .iter()
                .filter(|&&j| (p[j] - v).abs() < 1e-9)
                .fold(0u64, |s, &j| s | 1 << j);
            if size(set) >= 2 && is_whole(size(set) as f64 * v, 0.02) {
                cands.push((set, v));
            }
        }
    }
    cands.sort_by(|a, b| {
        size(a.0)
            .cmp(&size(b.0))
            .then(a.0.cmp(&b.0))
            .then(a.1.total_cmp(&b.1))
    });
    cands.dedup_by(|a, b| a.0 == b.0 && (a.1 - b.1).abs() < 1e-9);
    for (set, v) in cands {
        if groups.contains(&set) {
            continue;
        }
        // With whole pressure (a single uop holding every unit for k cycles) single
        // units would always explain it; only larger known groups may.
        let whole = is_whole(v, 1e-3);
        let parts: Vec<UnitSet> = groups
            .iter()
            .copied()
            .filter(|&g| {
                g & set == g && is_whole(size(g) as f64 * v, 0.02) && !(whole && size(g) == 1)
            })
            .collect();
        if !exact_cover(set, &parts) {
            groups.push(set);
        }
    }
    groups
}

/// Whether `set` is a disjoint union of some of `parts` (all subsets of `set`).
fn exact_cover(set: UnitSet, parts: &[UnitSet]) -> bool {
    if set == 0 {
        return true;
    }
    let lowest = set & set.wrapping_neg();
    parts
        .iter()
        .any(|&g| g & lowest != 0 && g & set == g && exact_cover(set & !g, parts))
}

/// Greedy decomposition of one row's pressure into (group, count) pairs: take the
/// largest group whose members are all still busy, count = min member pressure ×
/// group size, subtract, repeat. Ties between equally large groups prefer a whole
/// count, then the larger count, then the earlier group. Counts are rounded to two
/// decimals; the result is sorted by group order.
pub fn decompose(pressure: &[f64], groups: &[UnitSet]) -> Vec<(UnitSet, f64)> {
    let mut left: Vec<f64> = pressure.to_vec();
    let mut out: Vec<(UnitSet, f64)> = Vec::new();
    loop {
        let mut best: Option<(usize, UnitSet, f64)> = None; // (index, group, count)
        for (gi, &g) in groups.iter().enumerate() {
            let m = members(g);
            if m.iter().any(|&i| i >= left.len() || left[i] <= EPS) {
                continue;
            }
            let min = m.iter().map(|&i| left[i]).fold(f64::INFINITY, f64::min);
            let count = min * m.len() as f64;
            let better = match best {
                None => true,
                Some((_, bg, bc)) => {
                    let (s, bs) = (size(g), size(bg));
                    s > bs
                        || (s == bs && is_whole(count, 0.02) && !is_whole(bc, 0.02))
                        || (s == bs
                            && is_whole(count, 0.02) == is_whole(bc, 0.02)
                            && count > bc + 1e-9)
                }
            };
            if better {
                best = Some((gi, g, count));
            }
        }
        let Some((_, g, count)) = best else { break };
        let m = members(g);
        let per = count / m.len() as f64;
        for &i in &m {
            left[i] = (left[i] - per).max(0.0);
            if left[i] < EPS {
                left[i] = 0.0;
            }
        }
        match out.iter_mut().find(|(og, _)| *og == g) {
            Some(e) => e.1 += count,
            None => out.push((g, count)),
        }
    }
    for e in &mut out {
        e.1 = (e.1 * 100.0).round() / 100.0;
    }
    out.retain(|e| e.1 > 0.0);
    let order = |g: &UnitSet| groups.iter().position(|x| x == g).unwrap_or(usize::MAX);
    out.sort_by_key(|e| order(&e.0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(units: &[usize]) -> UnitSet {
        units.iter().fold(0, |s, &i| s | 1 << i)
    }

    // Skylake-like units: 0 div, 1 fpdiv, 2 p0, 3 p1, 4 p2, 5 p3, 6 p4, 7 p5, 8 p6, 9 p7.
    fn skl_rows() -> Vec<(u32, Vec<f64>)> {
        let row = |uops: u32, v: [f64; 10]| (uops, v.iter().map(|&x| snap(x)).collect::<Vec<_>>());
        vec![
            row(1, [0., 0., 0.25, 0.25, 0., 0., 0., 0.25, 0.25, 0.]), // add r64, r64
            row(1, [0., 0., 0.5, 0.5, 0., 0., 0., 0., 0., 0.]),       // vaddsd xmm, xmm, xmm
            row(1, [0., 0., 0., 0., 0.5, 0.5, 0., 0., 0., 0.]),       // mov r64, m64
            row(2, [0., 0., 0.5, 0.5, 0.5, 0.5, 0., 0., 0., 0.]),     // vaddsd xmm, xmm, m64
            row(2, [0., 0., 0., 0., 0.33, 0.33, 1.0, 0., 0., 0.33]),  // vmovsd m64, xmm
            row(1, [0., 0., 0.5, 0., 0., 0., 0., 0., 0.5, 0.]),       // jne rel
        ]
    }

    #[test]
    fn snapping() {
        assert!((snap(0.33) - 1.0 / 3.0).abs() < 1e-12);
        assert!((snap(0.83) - 5.0 / 6.0).abs() < 1e-12);
        assert!((snap(0.17) - 1.0 / 6.0).abs() < 1e-12);
        assert!((snap(10.25) - 10.25).abs() < 1e-12);
        assert!((snap(0.13) - 0.125).abs() < 1e-12);
        assert_eq!(snap(0.001), 0.0);
        assert_eq!(snap(2.0), 2.0);
    }

    #[test]
    fn groups_from_skylake_rows() {
        let g = derive_groups(&skl_rows(), 10, &[]);
        assert_eq!(
            &g[..10],
            &(0..10).map(|i| 1u64 << i).collect::<Vec<_>>()[..]
        );
        let extra: Vec<UnitSet> = g[10..].to_vec();
        assert!(extra.contains(&set(&[2, 3, 7, 8])), "p0156");
        assert!(extra.contains(&set(&[2, 3])), "p01");
        assert!(extra.contains(&set(&[4, 5])), "p23");
        assert!(extra.contains(&set(&[2, 8])), "p06");
        assert!(extra.contains(&set(&[4, 5, 9])), "p237 from the store row");
        assert!(
            !extra.contains(&set(&[2, 3, 4, 5])),
            "vaddsd m64 is p01 + p23, not one group"
        );
        assert_eq!(extra.len(), 5);
    }

    #[test]
    fn decomposes_skylake_rows() {
        let rows = skl_rows();
        let g = derive_groups(&rows, 10, &[]);
        assert_eq!(decompose(&rows[0].1, &g), vec![(set(&[2, 3, 7, 8]), 1.0)]);
        let d = decompose(&rows[3].1, &g);
        assert_eq!(d.len(), 2);
        assert!(d.contains(&(set(&[2, 3]), 1.0)) && d.contains(&(set(&[4, 5]), 1.0)));
        let d = decompose(&rows[4].1, &g);
        assert_eq!(d.len(), 2);
        assert!(d.contains(&(set(&[4, 5, 9]), 1.0)) && d.contains(&(set(&[6]), 1.0)));
    }

    #[test]
    fn read_modify_write_and_leftovers() {
        let g = derive_groups(&skl_rows(), 10, &[]);
        // add m64, r64: load (p23), ALU (p0156), store address (p237), store data (p4).
        let p: Vec<f64> = [0., 0., 0.25, 0.25, 0.83, 0.83, 1.0, 0.25, 0.25, 0.33]
            .iter()
            .map(|&x| snap(x))
            .collect();
        let d = decompose(&p, &g);
        let total: f64 = d.iter().map(|e| e.1).sum();
        assert!((total - 4.0).abs() < 1e-9, "{d:?}");
        assert!(d.contains(&(set(&[2, 3, 7, 8]), 1.0)));
        assert!(d.contains(&(set(&[4, 5, 9]), 1.0)));
        assert!(d.contains(&(set(&[4, 5]), 1.0)));
        assert!(d.contains(&(set(&[6]), 1.0)));
        // A divider held for 8 cycles plus one p0 uop: cycles, not uops.
        let p = [0., 8.0, 1.0, 0., 0., 0., 0., 0., 0., 0.];
        assert_eq!(decompose(&p, &g), vec![(set(&[1]), 8.0), (set(&[2]), 1.0)]);
        // No resources at all.
        assert!(decompose(&[0.0; 10], &g).is_empty());
    }

    #[test]
    fn multi_unit_resources_are_groups() {
        // Units: 0 fp2, 1 fp3, 2 fp45.0, 3 fp45.1, 4-6 lsu.0-2, 7-9 load.0-2
        let lsu = set(&[4, 5, 6]);
        let load = set(&[7, 8, 9]);
        let fp45 = set(&[2, 3]);
        let rows = vec![
            (1, vec![0.5, 0.5, 0., 0., 0., 0., 0., 0., 0., 0.]),
            (
                1,
                [0.5, 0.5, 0.5, 0.5, 0.33, 0.33, 0.33, 0.33, 0.33, 0.33]
                    .iter()
                    .map(|&x| snap(x))
                    .collect(),
            ),
        ];
        let g = derive_groups(&rows, 10, &[fp45, lsu, load]);
        assert_eq!(g.len(), 14, "10 singletons + 3 resources + fp23");
        let d = decompose(&rows[1].1, &g);
        assert_eq!(
            d,
            vec![(fp45, 1.0), (lsu, 1.0), (load, 1.0), (set(&[0, 1]), 1.0)]
        );
    }

    #[test]
    fn equal_pressure_over_known_groups_is_not_a_group() {
        // Units: 0-2 agu, 3-5 lsu, 6-8 load. A load uop: 1/3 on each of the nine.
        let (agu, lsu, load) = (set(&[0, 1, 2]), set(&[3, 4, 5]), set(&[6, 7, 8]));
        let third = 1.0 / 3.0;
        let rows = vec![
            (1, vec![third, third, third, 0., 0., 0., 0., 0., 0.]),
            (1, vec![third; 9]),
        ];
        let g = derive_groups(&rows, 9, &[lsu, load]);
        assert_eq!(g[9..], [lsu, load, agu]);
        assert_eq!(
            decompose(&rows[1].1, &g),
            vec![(lsu, 1.0), (load, 1.0), (agu, 1.0)]
        );
        // A single uop holding two units for a whole cycle each is a group (rule 1)
        // unless a larger known group explains it.
        let rows = vec![
            (1, vec![1.0, 1.0, 0., 0., 0., 0., 0., 0., 0.]),
            (1, vec![0., 0., 0., 1.0, 1.0, 1.0, 0., 0., 0.]),
        ];
        let g = derive_groups(&rows, 9, &[lsu, load]);
        assert_eq!(g[9..], [lsu, load, set(&[0, 1])]);
    }

    #[test]
    fn exact_cover_works() {
        assert!(exact_cover(
            set(&[0, 1, 2, 3]),
            &[set(&[0, 1]), set(&[2, 3])]
        ));
        assert!(!exact_cover(set(&[0, 1, 2]), &[set(&[0, 1]), set(&[1, 2])]));
        assert!(exact_cover(0, &[]));
    }
}
