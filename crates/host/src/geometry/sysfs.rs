//! Cache geometry from Linux sysfs (`/sys/devices/system/cpu/cpu0/cache`), the
//! fallback when CPUID has no cache leaves (some hypervisors hide them).

use super::{Cache, Kind};
use std::path::Path;

/// Caches from a sysfs cache directory (`index*/level`, `type`, `size`,
/// `ways_of_associativity`, `coherency_line_size`, `number_of_sets`); missing or
/// unreadable entries are skipped.
pub fn caches_from_sysfs(dir: &Path) -> Vec<Cache> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut idx: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("index"))
        })
        .collect();
    idx.sort();
    let mut out = Vec::new();
    for p in idx {
        let read = |f: &str| {
            std::fs::read_to_string(p.join(f))
                .ok()
                .map(|s| s.trim().to_string())
        };
        let num = |f: &str| read(f).and_then(|s| s.parse::<u32>().ok());
        let (Some(level), Some(kind), Some(size)) = (num("level"), read("type"), read("size"))
        else {
            continue;
        };
        let kind = match kind.as_str() {
            "Data" => Kind::Data,
            "Instruction" => Kind::Instruction,
            "Unified" => Kind::Unified,
            _ => continue,
        };
        let size = match size.strip_suffix('K') {
            Some(k) => k.parse::<u64>().ok().map(|k| k * 1024),
            None => match size.strip_suffix('M') {
                Some(m) => m.parse::<u64>().ok().map(|m| m * 1024 * 1024),
                None => size.parse::<u64>().ok(),
            },
        };
        let Some(size) = size else { continue };
        let line_size = num("coherency_line_size").unwrap_or(64);
        let ways = num("ways_of_associativity").unwrap_or(0);
        let sets = num("number_of_sets").unwrap_or_else(|| {
            if ways > 0 && line_size > 0 {
                (size / u64::from(ways * line_size)) as u32
            } else {
                0
            }
        });
        let shared_by = read("shared_cpu_list").map(|l| cpu_list_len(&l));
        out.push(Cache {
            level: level as u8,
            kind,
            ways,
            line_size,
            sets,
            size,
            shared_by,
        });
    }
    out
}

/// `0-3,8` → 5.
fn cpu_list_len(list: &str) -> u32 {
    list.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('-') {
            Some((a, b)) => {
                b.trim()
                    .parse::<u32>()
                    .unwrap_or(0)
                    .saturating_sub(a.trim().parse::<u32>().unwrap_or(0))
                    + 1
            }
            None => 1,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dump::{CpuidDump, Regs};
    use crate::geometry::CacheSource;
    use crate::HostCpu;

    #[test]
    fn cpu_lists() {
        assert_eq!(cpu_list_len("0-3,8"), 5);
    }

    #[test]
    fn sysfs_fallback() {
        let t = tempfile::tempdir().unwrap();
        for (i, (level, kind, size, ways, sets)) in [
            (1, "Data", "48K", "12", "64"),
            (2, "Unified", "2048K", "16", "2048"),
            (3, "Unified", "bogus", "", ""),
        ]
        .into_iter()
        .enumerate()
        {
            let d = t.path().join(format!("index{i}"));
            std::fs::create_dir(&d).unwrap();
            for (f, v) in [
                ("level", level.to_string()),
                ("type", kind.into()),
                ("size", size.into()),
                ("ways_of_associativity", ways.into()),
                ("coherency_line_size", "64".into()),
                ("number_of_sets", sets.into()),
                ("shared_cpu_list", "0-1".into()),
            ] {
                std::fs::write(d.join(f), format!("{v}\n")).unwrap();
            }
        }
        let c = caches_from_sysfs(t.path());
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(
            c[0],
            Cache {
                level: 1,
                kind: Kind::Data,
                ways: 12,
                line_size: 64,
                sets: 64,
                size: 48 * 1024,
                shared_by: Some(2)
            }
        );
        assert_eq!(c[1].size, 2 << 20);
        let mut d = CpuidDump::new("t");
        d.insert(
            0,
            0,
            Regs {
                eax: 1,
                ebx: u32::from_le_bytes(*b"Genu"),
                edx: u32::from_le_bytes(*b"ineI"),
                ecx: u32::from_le_bytes(*b"ntel"),
            },
        );
        d.insert(
            1,
            0,
            Regs {
                eax: 0x000A06D1,
                ..Regs::default()
            },
        );
        let mut cpu = HostCpu::from_dump(&d).unwrap();
        assert_eq!((cpu.cache_source, cpu.l2()), (CacheSource::None, None));
        assert!(cpu.fill_caches_from_sysfs(t.path()));
        assert_eq!(
            (cpu.cache_source, cpu.l1d(), cpu.l2(), cpu.l3()),
            (CacheSource::Sysfs, Some(48 * 1024), Some(2 << 20), None)
        );
        assert_eq!(cpu.signature(), "GenuineIntel-6-173-1");
    }
}
