//! Terminal views of machine descriptions.

use bottlenose_machine::Machine;
use std::fmt::Write;

pub fn render_machine_list(machines: &[(String, Result<Machine, String>)]) -> String {
    let mut o = String::new();
    for (name, m) in machines {
        match m {
            Ok(m) => {
                let aliases = if m.aliases.is_empty() { String::new() } else { format!(" [also: {}]", m.aliases.join(", ")) };
                let _ = writeln!(o, "{:<15} {} ({} forms){aliases}", name, m.description, m.forms.len());
            }
            Err(e) => {
                let _ = writeln!(o, "{name:<10} (fails to load: {e})");
            }
        }
    }
    o
}

pub fn render_machine(m: &Machine) -> String {
    let p = &m.params;
    let mut o = String::new();
    let _ = writeln!(o, "{}: {}", m.name, m.description);
    if !m.aliases.is_empty() {
        let _ = writeln!(o, "aliases: {}", m.aliases.join(", "));
    }
    let peers: Vec<String> = [("llvm-mca -mcpu", &m.peers.llvm_mcpu), ("OSACA --arch", &m.peers.osaca_arch), ("topdown --cpu", &m.peers.topdown_table)]
        .iter()
        .filter_map(|(what, v)| v.as_ref().map(|v| format!("{what} {v}")))
        .collect();
    if !peers.is_empty() {
        let _ = writeln!(o, "same core elsewhere: {}", peers.join(", "));
    }
    let _ = writeln!(o, "AVX-512: {}", if p.vector.avx512 { "yes" } else { "no (AVX-512 code is rejected by analyze, flagged by run)" });
    let _ = writeln!(
        o,
        "core: dispatch {}/cycle, commit {}/cycle, ROB {}, scheduler {}, load buffer {}, store buffer {}",
        p.core.dispatch_width, p.core.commit_width, p.core.rob, p.core.scheduler, p.core.load_buffer, p.core.store_buffer
    );
    let fe = &p.core;
    let blocks = if fe.fetch_blocks_per_cycle > 0.0 { format!("{} fetch block(s)/cycle", fe.fetch_blocks_per_cycle) } else { "fetch blocks unlimited".into() };
    let window = if fe.fetch_block_bytes > 0 { format!("{}-byte windows", fe.fetch_block_bytes) } else { "no fetch window".into() };
    let _ = writeln!(
        o,
        "frontend: {blocks} ({window}, run-ahead {} cycles), {} icache misses in flight when streaming",
        fe.fetch_runahead_cycles, fe.icache_misses_in_flight
    );
    let _ = writeln!(
        o,
        "fusion: micro {}, macro {}, zero idioms {}, move elimination {}",
        p.fusion.micro_fusion, p.fusion.macro_fusion, p.fusion.zero_idioms, p.fusion.move_elimination
    );
    let _ = writeln!(
        o,
        "memory: L1 load-to-use {} cycles, store forwarding {}, loads on {}, store address on {}, store data on {}, DRAM {} cycles, {} B/cycle",
        p.memory.load_latency,
        match p.memory.memory_renaming {
            true => format!("{} (renamed same-address loads {})", p.memory.store_forward_latency, p.memory.renamed_forward_latency),
            false => p.memory.store_forward_latency.to_string(),
        },
        p.memory.load_groups.join(","),
        p.memory.store_address_groups.join(","),
        p.memory.store_data_groups.join(","),
        p.memory.dram_latency,
        p.memory.dram_bytes_per_cycle
    );
    let pf = &p.prefetch;
    let stream = pf.stream.then(|| {
        let how = if pf.stream_distance_lines.is_some() { "" } else { ": DRAM latency x bandwidth" };
        format!("stream ({} streams, {} lines ahead{how})", pf.streams, pf.distance_lines(&p.memory, &p.caches))
    });
    let kinds: Vec<String> = pf.next_line.then(|| "next-line".to_string()).into_iter().chain(stream).collect();
    let _ = writeln!(o, "prefetchers: {}", if kinds.is_empty() { "none".to_string() } else { kinds.join(", ") });
    if let Some(l) = p.memory.integer_load_latency {
        let _ = writeln!(o, "integer loads: {l} cycles, +{} with an index register (measured)", p.memory.indexed_load_extra_latency);
    }
    if !p.memory.indexed_store_address_groups.is_empty() {
        let _ = writeln!(o, "indexed store address on: {}", p.memory.indexed_store_address_groups.join(","));
    }
    if !p.memory.stores_skip_groups.is_empty() {
        let _ = writeln!(o, "stores do not occupy: {}", p.memory.stores_skip_groups.join(","));
    }
    for c in &p.caches {
        let _ = writeln!(
            o,
            "cache {}: {} KiB, {}-way, {} B lines, {} cycles, {} B/cycle, {:?}",
            c.name, c.size_kib, c.ways, c.line_bytes, c.latency, c.bytes_per_cycle, c.replacement
        );
    }
    for t in &p.tlbs {
        let _ = writeln!(o, "tlb {}: {} entries, {}-way, {} KiB pages, miss {} cycles", t.name, t.entries, t.ways, t.page_kib, t.miss_latency);
    }
    let b = &p.branch;
    let _ = writeln!(
        o,
        "branch: mispredict {} cycles, BTB {} x {}-way, RAS {}, TAGE {} tables of 2^{} (history {}..{})",
        b.mispredict_penalty, b.btb_entries, b.btb_ways, b.ras_entries, b.tage_tables, b.tage_log_entries, b.tage_min_history, b.tage_max_history
    );
    if b.taken_bubble > 0.0 || b.return_bubble > 0.0 || b.indirect_bubble > 0.0 {
        let _ = writeln!(
            o,
            "branch bubbles: taken {}, return +{}, indirect +{} cycles",
            b.taken_bubble, b.return_bubble, b.indirect_bubble
        );
    }
    let _ = writeln!(o, "vector: {} FP units, {} bits, FMA {}", p.vector.fp_units, p.vector.max_bits, p.vector.fma);
    let _ = writeln!(o, "ports: {}", m.units.join(" "));
    let groups: Vec<String> = m
        .groups
        .iter()
        .skip(m.units.len())
        .map(|g| format!("{}={{{}}}", g.name, members(m, g.members)))
        .collect();
    let _ = writeln!(o, "groups: {}", groups.join(" "));
    let _ = writeln!(o, "forms: {}", m.forms.len());
    for line in &m.provenance {
        let _ = writeln!(o, "source: {line}");
    }
    o
}

fn members(m: &Machine, mask: u64) -> String {
    (0..m.units.len()).filter(|i| mask & (1 << i) != 0).map(|i| m.units[i].as_str()).collect::<Vec<_>>().join(",")
}
