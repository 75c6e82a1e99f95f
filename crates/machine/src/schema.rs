//! Reading and validating machine files and form tables.
//!
//! TOML syntax and type errors come from the `toml` crate with a byte span;
//! semantic errors (an unknown group, a zero-sized ROB) are located by finding
//! the offending key in the text, so every message reads `file:line: field: problem`.

use crate::{Form, GroupId, Machine, MachineError, Params, ResourceGroup};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MachineFile {
    name: String,
    /// Other names the machine answers to (`skl`, `spr`, LLVM's `-mcpu` names...).
    #[serde(default)]
    aliases: Vec<String>,
    #[serde(default)]
    description: String,
    /// The instruction set the core runs: `x86-64` (the default) or `aarch64`.
    #[serde(default)]
    isa: Option<String>,
    /// Form table file, relative to the machine file.
    forms: String,
    #[serde(default)]
    provenance: Vec<String>,
    // Params' sections are listed here rather than flattened: serde's flatten
    // loses the byte spans that give error messages their line numbers.
    core: crate::CoreParams,
    #[serde(default)]
    fusion: crate::FusionParams,
    memory: crate::MemoryParams,
    #[serde(default)]
    strings: crate::StringParams,
    #[serde(default, rename = "cache")]
    caches: Vec<crate::CacheParams>,
    #[serde(default, rename = "tlb")]
    tlbs: Vec<crate::TlbParams>,
    #[serde(default)]
    branch: crate::BranchParams,
    #[serde(default)]
    vector: crate::VectorParams,
    #[serde(default)]
    prefetch: crate::PrefetchParams,
    #[serde(default)]
    peers: crate::PeerNames,
    default_form: FormSpec,
    /// Hand-written forms that add to or override the imported table.
    #[serde(default)]
    extra_forms: BTreeMap<String, FormSpec>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct FormSpec {
    uops: u32,
    latency: f64,
    #[serde(default)]
    rthroughput: Option<f64>,
    #[serde(default)]
    load: bool,
    #[serde(default)]
    store: bool,
    #[serde(default)]
    side_effects: bool,
    #[serde(rename = "use", default)]
    uses: BTreeMap<String, f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FormsFile {
    #[serde(default)]
    provenance: BTreeMap<String, toml::Value>,
    units: BTreeMap<String, String>,
    #[serde(default)]
    groups: BTreeMap<String, Vec<String>>,
    forms: BTreeMap<String, FormSpec>,
}

type FormsLoader<'a> = dyn FnMut(&str) -> Result<(String, String), MachineError> + 'a;

pub(crate) fn parse_machine(
    text: &str,
    file: &str,
    mut load_forms: impl FnMut(&str) -> Result<(String, String), MachineError>,
) -> Result<Machine, MachineError> {
    let mf: MachineFile = toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
    let loader: &mut FormsLoader = &mut load_forms;
    let (forms_path, forms_text) = loader(&mf.forms)?;
    let ff: FormsFile = toml::from_str(&forms_text).map_err(|e| toml_error(&forms_path, &forms_text, &e))?;
    let invalid = |file: &str, text: &str, table: &str, key: &str, message: String| MachineError::Invalid {
        file: file.to_string(),
        line: locate(text, table, key),
        field: if table.is_empty() { key.to_string() } else { format!("{table}.{key}") },
        message,
    };

    // Units, then groups (singletons share the unit's index).
    let units: Vec<String> = natural_sorted(ff.units.keys().cloned().collect());
    if units.is_empty() {
        return Err(invalid(&forms_path, &forms_text, "units", "", "no port units declared".into()));
    }
    if units.len() > 64 {
        return Err(invalid(&forms_path, &forms_text, "units", "", format!("{} units; at most 64 are supported", units.len())));
    }
    let mut groups: Vec<ResourceGroup> =
        units.iter().enumerate().map(|(i, u)| ResourceGroup { name: u.clone(), members: 1 << i }).collect();
    for (name, members) in &ff.groups {
        let mut mask = 0u64;
        for m in members {
            let Some(i) = units.iter().position(|u| u == m) else {
                return Err(invalid(&forms_path, &forms_text, "groups", name, format!("unknown unit '{m}'")));
            };
            mask |= 1 << i;
        }
        if mask == 0 {
            return Err(invalid(&forms_path, &forms_text, "groups", name, "empty group".into()));
        }
        if groups.iter().any(|g| g.name == *name) {
            return Err(invalid(&forms_path, &forms_text, "groups", name, "duplicate group name".into()));
        }
        groups.push(ResourceGroup { name: name.clone(), members: mask });
    }
    let group_of = |name: &str| groups.iter().position(|g| g.name == name).map(|i| i as GroupId);

    let convert = |key: &str, spec: &FormSpec, file: &str, text: &str, table: &str| -> Result<Form, MachineError> {
        if !(spec.latency >= 0.0 && spec.latency.is_finite()) {
            return Err(invalid(file, text, table, key, format!("latency must be a finite number >= 0, got {}", spec.latency)));
        }
        let mut uses = Vec::with_capacity(spec.uses.len());
        for (g, &count) in &spec.uses {
            let Some(id) = group_of(g) else {
                return Err(invalid(file, text, table, key, format!("uses unknown resource group '{g}'")));
            };
            if !(count > 0.0 && count.is_finite()) {
                return Err(invalid(file, text, table, key, format!("use count of '{g}' must be > 0, got {count}")));
            }
            uses.push((id, count));
        }
        let _ = (spec.rthroughput, spec.side_effects);
        Ok(Form { uops: spec.uops, latency: spec.latency, load: spec.load, store: spec.store, uses })
    };

    let mut forms = HashMap::with_capacity(ff.forms.len() + mf.extra_forms.len());
    for (k, spec) in &ff.forms {
        forms.insert(k.clone(), convert(k, spec, &forms_path, &forms_text, "forms")?);
    }
    for (k, spec) in &mf.extra_forms {
        forms.insert(k.clone(), convert(k, spec, file, text, "extra_forms")?);
    }
    let default_form = convert("use", &mf.default_form, file, text, "default_form")?;

    let params = Params {
        core: mf.core.clone(),
        fusion: mf.fusion.clone(),
        memory: mf.memory.clone(),
        strings: mf.strings.clone(),
        caches: mf.caches.clone(),
        tlbs: mf.tlbs.clone(),
        branch: mf.branch.clone(),
        vector: mf.vector.clone(),
        prefetch: mf.prefetch.clone(),
    };
    validate_params(&params, file, text, &|g| group_of(g).is_some())?;

    let isa = match mf.isa.as_deref() {
        None => bottlenose_decode::Isa::X86_64,
        Some(s) => bottlenose_decode::Isa::parse(s).ok_or_else(|| MachineError::Invalid {
            file: file.to_string(),
            line: locate(text, "", "isa"),
            field: "isa".into(),
            message: format!("unknown instruction set '{s}' (x86-64 or aarch64)"),
        })?,
    };
    let mut provenance = mf.provenance.clone();
    for (k, v) in &ff.provenance {
        provenance.push(format!("forms {k}: {}", v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())));
    }
    Ok(Machine {
        name: mf.name,
        isa,
        aliases: mf.aliases,
        peers: mf.peers,
        description: mf.description,
        provenance,
        params,
        units,
        groups,
        forms,
        default_form,
        calibration: None,
        supersets: Vec::new(),
    }
    .finish())
}

fn validate_params(p: &Params, file: &str, text: &str, known_group: &dyn Fn(&str) -> bool) -> Result<(), MachineError> {
    let err = |table: &str, key: &str, message: String| MachineError::Invalid {
        file: file.to_string(),
        line: locate(text, table, key),
        field: format!("{table}.{key}"),
        message,
    };
    let c = &p.core;
    for (k, v) in [("dispatch_width", c.dispatch_width), ("commit_width", c.commit_width)] {
        if !(v >= 1.0 && v.is_finite()) {
            return Err(err("core", k, format!("must be >= 1, got {v}")));
        }
    }
    for (k, v) in [("rob", c.rob), ("scheduler", c.scheduler), ("load_buffer", c.load_buffer), ("store_buffer", c.store_buffer)] {
        if v == 0 {
            return Err(err("core", k, "must be > 0".into()));
        }
        // The timing model allocates these windows: a typo such as
        // 4000000000 must be an error, not an abort on a 64 GB allocation.
        if v > MAX_WINDOW {
            return Err(err("core", k, format!("must be at most {MAX_WINDOW}, got {v}")));
        }
    }
    let pf = &p.prefetch;
    if pf.stream && !(1..=64).contains(&pf.streams) {
        return Err(err("prefetch", "streams", format!("must be 1..=64, got {}", pf.streams)));
    }
    if let Some(d) = pf.stream_distance_lines {
        let max = crate::PrefetchParams::MAX_DISTANCE_LINES;
        if !(1..=max).contains(&d) {
            return Err(err("prefetch", "stream_distance_lines", format!("must be 1..={max}, got {d}")));
        }
    }
    if c.fetch_block_bytes != 0 && !c.fetch_block_bytes.is_power_of_two() {
        return Err(err("core", "fetch_block_bytes", format!("must be 0 or a power of two, got {}", c.fetch_block_bytes)));
    }
    for (k, v, min) in [
        ("fetch_blocks_per_cycle", c.fetch_blocks_per_cycle, 0.0),
        ("fetch_runahead_cycles", c.fetch_runahead_cycles, 0.0),
        ("icache_misses_in_flight", c.icache_misses_in_flight, 1.0),
    ] {
        if !(v >= min && v.is_finite()) {
            return Err(err("core", k, format!("must be a number >= {min}, got {v}")));
        }
    }
    let m = &p.memory;
    if !(m.renamed_forward_latency >= 0.0 && m.renamed_forward_latency.is_finite()) {
        return Err(err("memory", "renamed_forward_latency", "must be >= 0".into()));
    }
    for (k, list) in [
        ("load_groups", &m.load_groups),
        ("store_address_groups", &m.store_address_groups),
        ("indexed_store_address_groups", &m.indexed_store_address_groups),
        ("store_data_groups", &m.store_data_groups),
        ("stores_skip_groups", &m.stores_skip_groups),
    ] {
        for g in list {
            if !known_group(g) {
                return Err(err("memory", k, format!("unknown resource group '{g}'")));
            }
        }
    }
    let n = m.indexed_store_address_groups.len();
    if n > 1 && n != m.store_address_groups.len() {
        return Err(err(
            "memory",
            "indexed_store_address_groups",
            format!("must name one group or one per store_address_groups entry ({}), got {n}", m.store_address_groups.len()),
        ));
    }
    let st = &p.strings;
    if !(st.store_bytes_per_cycle > 0.0 && st.store_bytes_per_cycle.is_finite()) {
        return Err(err("strings", "store_bytes_per_cycle", format!("must be a finite number > 0, got {}", st.store_bytes_per_cycle)));
    }
    if !(st.overlap_cycles >= 0.0 && st.overlap_cycles.is_finite()) {
        return Err(err("strings", "overlap_cycles", format!("must be a finite number >= 0, got {}", st.overlap_cycles)));
    }
    if !(st.streaming_bytes_per_cycle > 0.0 && st.streaming_bytes_per_cycle.is_finite()) {
        return Err(err("strings", "streaming_bytes_per_cycle", format!("must be a finite number > 0, got {}", st.streaming_bytes_per_cycle)));
    }
    for (kind, o) in st.kinds() {
        let bad = |what: &str, v: f64| err("strings", kind, format!("{what} must be a finite number >= 0, got {v}"));
        for (what, v) in [("startup", o.startup), ("cycles_per_element", o.cycles_per_element), ("short_cycles", o.short_cycles)] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(bad(what, v));
            }
        }
        if !(o.bytes_per_cycle > 0.0 && o.bytes_per_cycle.is_finite()) {
            return Err(err("strings", kind, format!("bytes_per_cycle must be a finite number > 0, got {}", o.bytes_per_cycle)));
        }
        if o.uops == 0 || o.uops > MAX_STRING_UOPS {
            return Err(err("strings", kind, format!("uops must be 1..={MAX_STRING_UOPS}, got {}", o.uops)));
        }
    }
    if !(m.load_latency >= 0.0) {
        return Err(err("memory", "load_latency", "must be >= 0".into()));
    }
    for (i, cache) in p.caches.iter().enumerate() {
        let bad = |k: &str, msg: String| MachineError::Invalid {
            file: file.to_string(),
            line: locate_nth(text, "[[cache]]", i, k),
            field: format!("cache[{i}].{k}"),
            message: msg,
        };
        if cache.ways == 0 || cache.line_bytes == 0 || !cache.line_bytes.is_power_of_two() {
            return Err(bad("line_bytes", "ways must be > 0 and line_bytes a power of two".into()));
        }
        let lines = cache.size_kib as u64 * 1024 / cache.line_bytes as u64;
        // Any whole number of sets: the functional caches index a power-of-two count with
        // a mask and any other (a 20-way 260 MiB L3 has 212992 sets) with a remainder.
        if lines == 0 || lines % cache.ways as u64 != 0 {
            return Err(bad("size_kib", format!("{} KiB / {} B lines / {} ways is not a whole number of sets", cache.size_kib, cache.line_bytes, cache.ways)));
        }
        if cache.size_kib > MAX_CACHE_KIB {
            return Err(bad("size_kib", format!("{} KiB is more than the {MAX_CACHE_KIB} KiB supported", cache.size_kib)));
        }
        if !(cache.bytes_per_cycle > 0.0) {
            return Err(bad("bytes_per_cycle", "must be > 0".into()));
        }
    }
    for (i, tlb) in p.tlbs.iter().enumerate() {
        let bad = |k: &str, msg: String| MachineError::Invalid {
            file: file.to_string(),
            line: locate_nth(text, "[[tlb]]", i, k),
            field: format!("tlb[{i}].{k}"),
            message: msg,
        };
        if tlb.entries == 0 || tlb.entries > MAX_WINDOW {
            return Err(bad("entries", format!("must be between 1 and {MAX_WINDOW}, got {}", tlb.entries)));
        }
        if tlb.ways == 0 || tlb.ways > tlb.entries {
            return Err(bad("ways", format!("must be between 1 and entries ({}), got {}", tlb.entries, tlb.ways)));
        }
    }
    Ok(())
}

/// Largest ROB, scheduler, load/store buffer and TLB accepted (entries).
const MAX_WINDOW: u32 = 1 << 20;
/// Most dispatch slots a string instruction may take (it must fit any ROB).
const MAX_STRING_UOPS: u32 = 64;
/// Largest cache accepted (KiB): 512 MiB.
/// The largest cache a machine may have (the functional layer allocates its tags).
pub const MAX_CACHE_KIB: u32 = 1 << 19;

/// Sorts names so that `p10` follows `p9` (natural order).
fn natural_sorted(mut v: Vec<String>) -> Vec<String> {
    fn key(s: &str) -> (String, u64, String) {
        let digits_at = s.find(|c: char| c.is_ascii_digit()).unwrap_or(s.len());
        let (head, tail) = s.split_at(digits_at);
        let num_end = tail.find(|c: char| !c.is_ascii_digit()).unwrap_or(tail.len());
        (head.to_string(), tail[..num_end].parse().unwrap_or(0), tail[num_end..].to_string())
    }
    v.sort_by_key(|s| key(s));
    v
}

pub(crate) fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> MachineError {
    let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(0);
    let field = table_at(text, line);
    MachineError::Invalid { file: file.to_string(), line, field, message: e.message().replace('\n', " ") }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The `[table]` header in force at a line (for messages about a whole table).
fn table_at(text: &str, line: usize) -> String {
    let mut current = String::from("(top level)");
    for l in text.lines().take(line) {
        let t = l.trim();
        if t.starts_with('[') {
            current = t.trim_matches(|c| c == '[' || c == ']').to_string();
        }
    }
    current
}

/// Line of `key = ...` inside `[table]` (or of the table header when the key is empty or absent).
pub(crate) fn locate(text: &str, table: &str, key: &str) -> usize {
    let mut in_table = table.is_empty();
    let mut header_line = 0;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if t.starts_with('[') {
            in_table = t.trim_matches(|c| c == '[' || c == ']') == table;
            if in_table {
                header_line = i + 1;
            }
            continue;
        }
        if in_table && !key.is_empty() && key_matches(t, key) {
            return i + 1;
        }
    }
    header_line.max(1)
}

pub(crate) fn locate_nth(text: &str, header: &str, n: usize, key: &str) -> usize {
    let mut seen = 0;
    let mut inside = false;
    let mut header_line = 1;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if t.starts_with('[') {
            inside = false;
            if t == header {
                if seen == n {
                    inside = true;
                    header_line = i + 1;
                }
                seen += 1;
            }
            continue;
        }
        if inside && key_matches(t, key) {
            return i + 1;
        }
    }
    header_line
}

fn key_matches(line: &str, key: &str) -> bool {
    let k = line.split('=').next().unwrap_or("").trim().trim_matches('"');
    k == key
}
