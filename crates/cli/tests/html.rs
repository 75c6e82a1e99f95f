//! HTML reports in a real browser: headless Chromium loads each report kind
//! without script errors, and the elements that matter are there.
mod common;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> &'static str {
    for c in ["chromium", "chromium-browser"] {
        if Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()) {
            return c;
        }
    }
    panic!("chromium not found: scripts/install-deps.sh installs the Debian package chromium");
}

/// Loads the page, lets its script run, returns the DOM. With
/// `BOTTLENOSE_TEST_SCREENSHOTS` set, also saves a screenshot next to it to look
/// at: a second chromium start per page, which no assertion reads.
fn load(page: &Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let base = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--virtual-time-budget=3000",
    ];
    let url = format!("file://{}", page.display());
    let out = Command::new(chromium())
        .args(base)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .unwrap();
    assert!(out.status.success(), "chromium: {}", String::from_utf8_lossy(&out.stderr));
    if std::env::var_os("BOTTLENOSE_TEST_SCREENSHOTS").is_none() {
        return String::from_utf8_lossy(&out.stdout).into_owned();
    }
    let shot = page.with_extension("png");
    let _ = Command::new(chromium())
        .args(base)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--window-size=1400,2400")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn check_clean(dom: &str) {
    assert!(dom.contains("data-ready=\"1\""), "the page script did not run to the end");
    assert!(!dom.contains("data-errors=\""), "script errors: {}", dom.split("data-errors=\"").nth(1).unwrap_or("").split('"').next().unwrap_or(""));
}

fn count(dom: &str, needle: &str) -> usize {
    dom.matches(needle).count()
}

fn out_dir() -> PathBuf {
    // keep the pages and screenshots to look at: target/html-reports/
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-reports");
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn static_analysis_report() {
    let page = out_dir().join("analyze.html");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake")
        .args(["analyze", concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/jacobi.s"), "--html"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let dom = load(&page);
    check_clean(&dom);
    assert!(count(&dom, "class=\"hm-bar\"") >= 10, "heat-map bars");
    assert_eq!(count(&dom, "class=\"hm-bar\" data-resource=\"p23\""), 1);
    assert!(dom.contains("<th class=\"bottleneck\">p23</th>"), "Gus Table 1 column of the bottleneck");
    assert!(dom.contains("id=\"machine\""));
}

#[test]
fn dynamic_run_report_with_annotated_source() {
    common::ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let exe = common::compile(d.path(), "k", "#include <stdio.h>\n__attribute__((noinline)) long kern(long n){ long s = 0;\n for (long i = 0; i < n; i++)\n  s += i * i;\n return s; }\nint main(void){ printf(\"%ld\\n\", kern(100000)); return 0; }\n", &["-O1", "-g"]);
    let page = out_dir().join("run.html");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "-q", "--roi", "function:kern", "--html"])
        .arg(&page)
        .arg("--")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let dom = load(&page);
    check_clean(&dom);
    assert!(count(&dom, "class=\"hm-bar\"") >= 10);
    assert!(dom.contains("id=\"hotspots\""));
    assert!(dom.contains("k.c:"), "hotspot linked to its source line");
    assert!(dom.contains("class=\"hot\" style=\"background"), "annotated source lines");
    assert!(dom.contains("id=\"hottest-loop\""));
}

fn tree(name: &str, value: f64, flagged: bool, children: Vec<Value>) -> Value {
    json!({ "name": name, "value": value, "flagged": flagged, "children": children })
}

#[test]
fn full_report_from_json_with_100k_instructions() {
    let d = tempfile::tempdir().unwrap();
    let instructions: Vec<Value> = (0..100_000)
        .map(|i| json!({ "address": format!("{:x}", 0x1000 + 4 * i), "asm": format!("add rax, {i}"), "uops": 1, "latency": 1.0, "usage": { "p0156": 0.01, "p23": (i % 7) as f64 / 100.0 } }))
        .collect();
    let report = json!({
        "machine": "skylake", "block": "synthetic", "cycles_per_iteration": 12.5, "ipc": 2.1, "total_cycles": 1000.0,
        "topdown": [
            tree("Frontend Bound", 0.05, false, vec![]),
            tree("Bad Speculation", 0.02, false, vec![]),
            tree("Retiring", 0.30, false, vec![tree("Base", 0.30, false, vec![])]),
            tree("Backend Bound", 0.63, true, vec![
                tree("Memory Bound", 0.50, true, vec![tree("L1 Bound", 0.05, false, vec![]), tree("Ext. Memory Bound", 0.40, true, vec![tree("MEM Latency", 0.35, true, vec![])])]),
                tree("Core Bound", 0.13, true, vec![tree("Divider", 0.01, false, vec![])]),
            ]),
        ],
        "sensitivity": [
            { "resources": ["p23"], "weight": 1.05, "speedup": 0.04 }, { "resources": ["p23"], "weight": 1.15, "speedup": 0.12 },
            { "resources": ["latency"], "weight": 1.05, "speedup": 0.0 }, { "resources": ["latency"], "weight": 1.15, "speedup": 0.01 }
        ],
        "bottlenecks": [ { "resources": ["p23"], "weight": 1.15, "speedup": 0.12, "max_weight": 1.15, "max_speedup": 0.12 } ],
        "cpi_stacks": {
            "dispatch": { "base": 250.0, "dcache": 600.0, "bpred": 50.0, "dependence": 100.0 },
            "issue": { "base": 250.0, "dcache": 500.0, "bpred": 60.0, "dependence": 190.0 },
            "commit": { "base": 250.0, "dcache": 700.0, "bpred": 40.0, "dependence": 10.0 }
        },
        "flops_stack": { "base": 1.5, "non_fma": 2.0, "memory": 8.0, "dependence": 4.5 },
        "idealization": [ { "what": "perfect dcache", "cycles": 450.0, "cpi_reduction": 0.011, "components": { "dispatch": 0.012, "issue": 0.01, "commit": 0.014 }, "within_bounds": true } ],
        "instructions": instructions,
    });
    let json_path = d.path().join("r.json");
    std::fs::write(&json_path, serde_json::to_string(&report).unwrap()).unwrap();
    let page = out_dir().join("full.html");
    let t = std::time::Instant::now();
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").arg("report").arg(&json_path).arg("-o").arg(&page).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    // linear rendering takes about a second; a quadratic pass over 100k rows is
    // ~10^10 steps, minutes. The bound is loose so that a loaded CI machine passes.
    assert!(t.elapsed().as_secs_f64() < 60.0, "rendering is not quadratic: {:?}", t.elapsed());
    let dom = load(&page);
    check_clean(&dom);
    assert_eq!(count(&dom, "class=\"node"), 11, "every tree node is in the page");
    assert!(dom.contains("class=\"node flagged path\" data-node=\"MEM Latency\""), "bottleneck path marked down to the leaf");
    assert!(!dom.contains("class=\"node flagged path\" data-node=\"Core Bound\""));
    assert_eq!(count(&dom, "class=\"stack-seg\""), 12 + 4, "3 CPI stacks of 4 + FLOPS stack of 4");
    assert_eq!(count(&dom, "class=\"ideal-mark\""), 1);
    assert_eq!(count(&dom, "class=\"hm-bar\""), 2);
    assert!(dom.contains("Showing the first 5000 of 100000 rows"));
    assert!(dom.contains("rows 1-200 of 5000"), "big tables are paginated");
    // pagination hides the other rows
    assert!(count(&dom, "style=\"display: none;\"") >= 4800);
}

#[test]
fn report_rejects_non_reports() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("x.json");
    std::fs::write(&p, "[1, 2").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake").arg("report").arg(&p).arg("-o").arg(d.path().join("x.html")).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a bottlenose JSON report"));
}

#[test]
fn topdown_import_report() {
    let page = out_dir().join("topdown.html");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose")).env("BOTTLENOSE_MACHINE", "skylake")
        .args(["topdown", "--import", concat!(env!("CARGO_MANIFEST_DIR"), "/../counters/tests/fixtures/perf-skl-l1.csv"), "--cpu", "skl", "--html"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let dom = load(&page);
    check_clean(&dom);
    assert!(count(&dom, "class=\"node") >= 8, "tree nodes");
    assert!(dom.contains("data-node=\"Frontend_Bound\""));
    assert!(dom.contains("class=\"node flagged path\""), "bottleneck path marked");
    // each value with its unit, the bar labelled as the normalized share
    assert!(dom.contains("20.0 % Slots"), "Frontend_Bound's value and unit");
    assert!(dom.contains("title=\"normalized: 20.0% of slots\""), "the bar is the normalized share");
}

#[test]
fn simulated_tree_shows_units_and_fits_children_in_parents() {
    // a pointer chase: Memory_Bound and Core_Bound are fractions of cycles under Backend_Bound in slots
    let page = out_dir().join("chase.html");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
        .args(["analyze", concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/blocks/pointer_chase.s"), "--machine", "skylake", "--html"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let dom = load(&page);
    check_clean(&dom);
    assert!(dom.contains("% Stalls") && dom.contains("% Slots") && dom.contains("% Clocks"), "units in the page");
    // bars: the widths of Backend_Bound's children add up to at most its own
    let width = |node: &str| -> u32 {
        let at = dom.find(&format!("data-node=\"{node}\"")).unwrap_or_else(|| panic!("{node}"));
        let w = &dom[at..][dom[at..].find("width:").unwrap() + 6..];
        w[..w.find("px").unwrap()].parse().unwrap()
    };
    assert!(width("Memory_Bound") + width("Core_Bound") <= width("Backend_Bound") + 1, "{} + {} > {}", width("Memory_Bound"), width("Core_Bound"), width("Backend_Bound"));
}

/// Two llvm-mca regions of one file: one section per region in the page of
/// `analyze --html`, and `report` renders the JSON `analyze` printed for the
/// same file into the same page.
#[test]
fn multi_region_analysis() {
    let d = tempfile::tempdir().unwrap();
    let asm = d.path().join("regions.s");
    // a load-port bound block and a dependency chain through imul (3 cycles) + add (1)
    std::fs::write(
        &asm,
        "# LLVM-MCA-BEGIN loads\n vaddpd (%rdi), %ymm0, %ymm0\n vaddpd 32(%rdi), %ymm1, %ymm1\n vaddpd 64(%rdi), %ymm2, %ymm2\n vaddpd 96(%rdi), %ymm3, %ymm3\n addq $128, %rdi\n# LLVM-MCA-END\n\
         # LLVM-MCA-BEGIN chain\n imulq %rax, %rax\n addq %rbx, %rax\n# LLVM-MCA-END\n",
    )
    .unwrap();
    let bn = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_bottlenose"));
        c.env("BOTTLENOSE_MACHINE", "skylake");
        c
    };
    let page = out_dir().join("regions.html");
    let st = bn().arg("analyze").arg(&asm).args(["--iterations", "400", "--html"]).arg(&page).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let json = bn().arg("analyze").arg(&asm).args(["--iterations", "400", "--format", "json"]).output().unwrap();
    assert!(json.status.success());
    let reports: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(reports.as_array().map(Vec::len), Some(2), "one JSON report per region");
    let json_path = d.path().join("regions.json");
    std::fs::write(&json_path, &json.stdout).unwrap();
    let from_json = out_dir().join("regions-from-json.html");
    let st = bn().arg("report").arg(&json_path).arg("-o").arg(&from_json).output().unwrap();
    assert!(st.status.success(), "report rejects analyze's own JSON: {}", String::from_utf8_lossy(&st.stderr));
    // the same page but for its title
    let untitled = |p: &Path| {
        let html = std::fs::read_to_string(p).unwrap();
        let cut = |h: &str, open: &str, close: &str| {
            let (a, b) = h.split_once(open).unwrap();
            format!("{a}{}", b.split_once(close).unwrap().1)
        };
        cut(&cut(&html, "<title>", "</title>"), "<h1>", "</h1>")
    };
    assert_eq!(untitled(&page), untitled(&from_json));
    let dom = load(&page);
    check_clean(&dom);
    assert_eq!(count(&dom, "<section class=\"region\""), 2);
    for (n, name) in [(1, "loads"), (2, "chain")] {
        assert!(dom.contains(&format!("Region {n}: {name}</h2>")), "region {n} titled");
        for part in ["summary", "verdict", "sensitivity", "instructions"] {
            assert_eq!(count(&dom, &format!("id=\"r{n}-{part}\"")), 1, "region {n} has its own {part} section");
        }
    }
    assert!(dom.contains("href=\"#region-2\""), "table of contents");
    // each region's bars are its own: 5 and 2 instructions
    let region = |n: usize| dom.split("<section class=\"region\"").nth(n).unwrap().to_string();
    assert_eq!(count(&region(1), "<td class=\"asm\">"), 5);
    assert_eq!(count(&region(2), "<td class=\"asm\">"), 2);
    assert_eq!(count(&dom, "id=\"machine\""), 1, "one machine section for the file");
}

/// `topdown --interval` writes one JSON object per line; `report` takes them
/// as one region each. A calibration is JSON but no report: one line says so.
#[test]
fn report_reads_json_lines_and_names_what_is_not_a_report() {
    let d = tempfile::tempdir().unwrap();
    let lines = d.path().join("intervals.json");
    let one = |t: f64, fe: f64| json!({ "schema": "bottlenose/topdown/v1", "uarch": "skl", "method": "tma", "time": t, "tree": tree("Top-Down", 1.0, true, vec![tree("Frontend_Bound", fe, fe > 0.2, vec![]), tree("Retiring", 1.0 - fe, false, vec![])]) }).to_string();
    std::fs::write(&lines, format!("{}\n{}\n", one(1.0, 0.1), one(2.0, 0.4))).unwrap();
    let page = out_dir().join("intervals.html");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose")).arg("report").arg(&lines).arg("-o").arg(&page).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(count(&html, "<section class=\"region\""), 2);
    assert!(html.contains("Region 2: t = 2.000 s"));
    let cal = d.path().join("cal.json");
    std::fs::write(&cal, json!({ "schema": "bottlenose/calibrate/v1", "base": "zen4" }).to_string()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_bottlenose")).arg("report").arg(&cal).arg("-o").arg(d.path().join("c.html")).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("bottlenose/calibrate/v1 is not a report of analyze, run or topdown"), "{err}");
}

/// Lays the page out in a 1400-pixel window and reports what overlaps: SVG
/// labels that intersect each other or leave their picture, and a page wider
/// than the window (a table or <pre> that overflows sideways). "ok" when nothing does.
fn layout_problems(page: &Path) -> String {
    let html = std::fs::read_to_string(page).unwrap();
    let check = r#"<script>(function(){
 var bad=[];
 document.querySelectorAll('svg').forEach(function(svg){
   var s=svg.getBoundingClientRect();
   var ts=[].slice.call(svg.querySelectorAll('text')).map(function(t){return [t.textContent,t.getBoundingClientRect()];});
   ts.forEach(function(a,i){
     var r=a[1];
     if(r.left<s.left-0.5||r.right>s.right+0.5||r.top<s.top-0.5||r.bottom>s.bottom+0.5) bad.push('outside its picture: '+a[0]);
     for(var j=i+1;j<ts.length;j++){var q=ts[j][1];
       var w=Math.min(r.right,q.right)-Math.max(r.left,q.left), h=Math.min(r.bottom,q.bottom)-Math.max(r.top,q.top);
       if(w>0.5&&h>0.5) bad.push('overlap: '+a[0]+' / '+ts[j][0]);}
   });
 });
 if(document.documentElement.scrollWidth>window.innerWidth) bad.push('page wider than the window: '+document.documentElement.scrollWidth);
 document.body.setAttribute('data-layout', bad.length? bad.join('; ') : 'ok');
})();</script></body>"#;
    let checked = page.with_extension("layout.html");
    std::fs::write(&checked, html.replace("</body>", check)).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium())
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--window-size=1400,2400", "--virtual-time-budget=3000", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", checked.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    dom.split("data-layout=\"").nth(1).and_then(|s| s.split('"').next()).unwrap_or("the check did not run").to_string()
}

/// Labels of the sensitivity heat map and of the CPI stacks' idealization
/// marks never overlap, whatever their number and length: 60 resources (two
/// sets of every port that differ only at the end), ten idealizations whose
/// totals are a few cycles apart; the machine model wraps inside the page.
#[test]
fn charts_labels_do_not_overlap_and_nothing_overflows_sideways() {
    let d = tempfile::tempdir().unwrap();
    let all_ports: Vec<String> = (0..24).map(|i| format!("port{i}")).collect();
    let mut resources: Vec<Vec<String>> = (0..58).map(|i| vec![format!("resource_{i}")]).collect();
    resources.push(all_ports.clone());
    resources.push([all_ports.clone(), vec!["latency".to_string()]].concat());
    let mut sensitivity = Vec::new();
    for (i, r) in resources.iter().enumerate() {
        for w in [1.05, 1.15, 2.0] {
            sensitivity.push(json!({ "resources": r, "weight": w, "speedup": (i % 7) as f64 * 0.01 * w }));
        }
    }
    let names = ["perfect_icache", "perfect_dcache", "perfect_branch", "alu_1cycle"];
    let mut idealization: Vec<Value> = names.iter().enumerate().map(|(i, n)| json!({ "what": n, "cycles": 900.0 + i as f64, "cpi_reduction": 0.01 })).collect();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            idealization.push(json!({ "what": format!("{a}+{b}"), "cycles": 800.0 + idealization.len() as f64, "cpi_reduction": 0.02 }));
        }
    }
    let report = json!({
        "schema": "bottlenose/run/v2", "machine": "zen4", "program": "./synthetic", "cycles": 1000.0, "ipc": 1.0,
        "sensitivity": sensitivity,
        "cpi_stacks": {
            "dispatch": { "base": 250.0, "dcache_dram": 600.0, "bpred": 50.0, "dependence": 100.0 },
            "issue": { "base": 250.0, "dcache_dram": 500.0, "bpred": 60.0, "dependence": 190.0 },
            "commit": { "base": 250.0, "dcache_dram": 700.0, "bpred": 40.0, "dependence": 10.0 }
        },
        "idealization": idealization,
    });
    let json_path = d.path().join("labels.json");
    std::fs::write(&json_path, report.to_string()).unwrap();
    let page = out_dir().join("labels.html");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose")).arg("report").arg(&json_path).arg("-o").arg(&page).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(count(&html, "class=\"hm-bar\""), 60);
    assert_eq!(count(&html, "class=\"ideal-mark\""), 10);
    assert!(html.contains("id=\"machine\""), "the machine model is in the page");
    assert_eq!(layout_problems(&page), "ok");
}

/// A C++ program's report embeds the source lines that have cycles and a few
/// around them, not whole headers: under 300 KB (the page of this program was
/// 2 MB with <vector>, <algorithm>, <map> and <string> embedded whole).
#[test]
fn cpp_report_embeds_only_the_lines_that_matter() {
    common::ensure_plugin();
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("v.cpp");
    std::fs::write(
        &src,
        "#include <vector>\n#include <algorithm>\n#include <numeric>\n#include <cstdio>\n#include <cstdlib>\n#include <string>\n#include <map>\n\
         int main(int argc, char **argv) {\n    int n = argc > 1 ? atoi(argv[1]) : 20000;\n    std::vector<int> v(n);\n\
         for (int i = 0; i < n; i++) v[i] = (i * 7919) % n;\n    std::sort(v.begin(), v.end());\n    std::map<int, std::string> m;\n\
         for (int i = 0; i < 200; i++) m[v[i * 7 % n]] = std::to_string(i);\n    long s = std::accumulate(v.begin(), v.end(), 0L);\n\
         printf(\"%ld %zu\\n\", s, m.size());\n    return 0;\n}\n",
    )
    .unwrap();
    let exe = d.path().join("v");
    let gxx = Command::new("g++").args(["-O2", "-g"]).arg(&src).arg("-o").arg(&exe).output().unwrap();
    assert!(gxx.status.success(), "g++: {}", String::from_utf8_lossy(&gxx.stderr));
    let page = out_dir().join("cpp.html");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
        .env("BOTTLENOSE_MACHINE", "skylake")
        .args(["run", "-q", "--no-sensitivity", "--html"])
        .arg(&page)
        .arg("--")
        .arg(&exe)
        .arg("3000")
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.len() < 300_000, "the page is {} bytes", html.len());
    // the headers are embedded as excerpts: hot lines, their context, and gaps
    let headers = html.matches("<h3>/usr/include/c++/").count();
    assert!(headers >= 1, "the sort's lines in the C++ headers are shown");
    assert!(html.contains("class=\"gap\""), "the lines without cycles are collapsed");
    assert!(html.contains("class=\"hot\" style=\"background"), "hot lines are marked");
    // no more than the hot lines (at most 50 hotspot rows) with 3 lines either side
    let lines = html.matches("class=\"hot\"").count();
    assert!(lines <= 50 * 7, "{lines} source lines embedded");
    let dom = load(&page);
    check_clean(&dom);
    assert_eq!(layout_problems(&page), "ok");
}

/// `--machine FILE`: the page's machine section summarizes the machine that file
/// describes, which no built-in name resolves to (here skylake.toml renamed
/// `my-core`, its ROB cut from 224 to 100 entries).
#[test]
fn custom_machine_file_keeps_its_summary() {
    let d = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let skylake = std::fs::read_to_string(repo.join("machines/skylake.toml")).unwrap();
    let mine = skylake.replacen("name = \"skylake\"", "name = \"my-core\"", 1).replacen("aliases = [\"skl\", \"skylake-client\"]", "aliases = []", 1).replacen("rob = 224", "rob = 100", 1);
    assert!(mine.contains("name = \"my-core\"") && mine.contains("rob = 100\n") && mine.contains("aliases = []"), "skylake.toml changed its layout: {mine}");
    std::fs::write(d.path().join("my-core.toml"), mine).unwrap();
    std::fs::copy(repo.join("machines/skylake.forms.toml"), d.path().join("skylake.forms.toml")).unwrap();
    std::fs::write(d.path().join("k.s"), "loop:\n  addq (%rdi), %rax\n  addq $8, %rdi\n  decq %rcx\n  jnz loop\n").unwrap();
    let page = d.path().join("k.html");
    let st = Command::new(env!("CARGO_BIN_EXE_bottlenose"))
        .current_dir(d.path())
        .args(["analyze", "k.s", "--machine", "my-core.toml", "--html"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let section = html.split("<section id=\"machine\">").nth(1).expect("a machine section").split("</section>").next().unwrap();
    assert!(section.contains("my-core: "), "{section}");
    assert!(section.contains("ROB 100,"), "{section}");
}
