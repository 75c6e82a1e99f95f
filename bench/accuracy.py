#!/usr/bin/env python3
"""Accuracy of bottlenose (dynamic run and static analysis), llvm-mca and OSACA against
native measurements of the kernels in bench/kernels/ on this host, whatever CPU it is.

The host: `bottlenose machines host --format json` names the CPU (`cpu`, `signature`), the
built-in model bottlenose picks for it (`machine`, with this host's calibration overlay if
there is one) and the closest peer models (`llvm_mcpu`, `osaca_arch`). bottlenose runs with
`--machine host`; llvm-mca and OSACA with the named models (skipped when null). If that
command fails (an older bottlenose), the host is read from /proc/cpuinfo with a warning
(AMD family 25 models 10-1f/60-7f/a0-af: zen4/znver4/ZEN4, other family 25: zen3/znver3/
ZEN3, family 26: zen5/znver5/ZEN4, Intel: skylake/skylake/SKX) and bottlenose gets that
machine by name.

For every kernel (binary bench/out/bin/NAME built by bench/kernels/build.sh):

  measured           bench/out/bin/NAME measure: rdtsc, calibrated to core cycles,
                     minimum over repetitions (bench/harness/README.md)
  bottlenose run     bottlenose run --machine host --roi markers --warm -- NAME model W:
                     W warm-up calls (caches and predictors kept warm outside the ROI; 1,
                     or the kernel's `MODEL_WARMUP: W` comment), then ONE call of kernel()
                     between the ROI markers -> cycles per call, bottlenecks[0]
  bn run no prefetcher  the same with --prefetcher none --no-sensitivity (extra column: what
                     the machine's default prefetchers buy)
  bn run skylake, bn run skylake-calibrated
                     only if bench/out/skylake-calibrated.toml exists (`bottlenose calibrate
                     --base skylake -o ...`): the same run with --machine skylake and with
                     --machine bench/out/skylake-calibrated.toml, --no-sensitivity --no-views
                     (extra columns)
  bottlenose analyze on the hot loop: cycles_per_iteration x loop-body executions per call
  llvm-mca           llvm-mca-19 -mcpu=LLVM_MCPU -iterations=1000 on the same loop (AT&T from
                     objdump): Total Cycles / iterations x body executions per call
  OSACA              osaca --arch OSACA_ARCH on the same loop: max(port-pressure bound, LCD) x
                     body executions per call

The hot loop: `hottest_loop_head` of the run JSON (the deepest loop that holds at least
half of the ROI cycles). Its body is the address range [head, end of the last jump back
to head] found in `objdump -d` of the binary. Its executions per call are counted
exactly by a second QEMU run, `bottlenose run --roi range:HEAD:HEAD+1 --no-sensitivity
-- NAME calls 1` (instructions_simulated = executions of the head instruction).
Static tools see only that loop: work outside it (outer loops, callees) is not counted.

Metrics per tool: MAPE, median APE, Kendall tau-b between measured and predicted cycles
per iteration (tau over cycles per call is in the JSON too). Output:
bench/out/accuracy.json and bench/out/accuracy.md; every heading names the CPU. A run over
every kernel is also recorded in bench/accuracy_history.json (one entry per host signature
and date), from which bench/benchmarks.py renders earlier hosts' tables. Python 3.11
stdlib only.

Usage: bench/accuracy.py [--kernels a,b,...] [--skip-native] [--skip-osaca] [--skip-mca]
                         [--skip-no-prefetch] [--no-build] [--measure-time S] [--no-history]
       BENCH_KERNELS=a,b bench/accuracy.py ...    (the same as --kernels a,b)
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"
BIN = OUT / "bin"
RUNS = OUT / "runs"
BN = REPO / "target" / "release" / "bottlenose"
HISTORY = BENCH / "accuracy_history.json"
# from `bottlenose calibrate --base skylake -o ...`; $BENCH_SKYLAKE_CALIBRATED names another file (tests)
SKYLAKE_CALIBRATED = Path(os.environ.get("BENCH_SKYLAKE_CALIBRATED") or OUT / "skylake-calibrated.toml")
MCA_MAX_SIMULATED = 2_000_000  # instructions llvm-mca simulates at most (big loop bodies)
OSACA_MAX_BODY = 2000  # OSACA's dependency analysis takes minutes on bigger loop bodies (16 Ki: > 5 min)

TOOLS = ["bottlenose_run", "bottlenose_analyze", "llvm_mca", "osaca"]
EXTRA_TOOLS = ["bottlenose_run_no_prefetch", "bottlenose_run_stride", "bottlenose_run_skylake", "bottlenose_run_skylake_cal"]
TOOL_TITLES = {
    "bottlenose_run": "bottlenose run",
    "bottlenose_run_no_prefetch": "bn run no prefetcher",
    # before 2026-11-24 the default ran no prefetcher and this column added one (history only)
    "bottlenose_run_stride": "bn run +stride pf",
    "bottlenose_run_skylake": "bn run skylake",
    "bottlenose_run_skylake_cal": "bn run skylake-calibrated",
    "bottlenose_analyze": "bottlenose analyze",
    "llvm_mca": "llvm-mca-19",
    "osaca": "OSACA",
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(cmd: list[str], timeout: float | None = None, check: bool = True, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited {p.returncode}: {p.stderr.strip()[-800:]}")
    return p


def first_line(cmd: list[str]) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        for line in (p.stdout + p.stderr).splitlines():
            if line.strip():
                return line.strip()
    except (OSError, subprocess.TimeoutExpired):
        pass
    return "unavailable"


def host_info() -> dict:
    model = "unknown"
    try:
        for line in run(["lscpu"]).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except Exception:
        pass
    hyp = ""
    try:
        for line in run(["lscpu"]).stdout.splitlines():
            if line.startswith("Hypervisor vendor:"):
                hyp = line.split(":", 1)[1].strip()
    except Exception:
        pass
    llvm = "unavailable"
    try:
        out = run(["llvm-mca-19", "--version"], check=False).stdout
        m = re.search(r"LLVM version ([\d.]+)", out)
        llvm = f"llvm-mca-19 (LLVM {m.group(1)})" if m else first_line(["llvm-mca-19", "--version"])
    except OSError:
        pass
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "cpu_model": model,
        "hypervisor": hyp,
        "cpus": os.cpu_count(),
        "kernel": os.uname().release,
        "gcc": first_line(["gcc", "--version"]),
        "qemu": first_line(["qemu-x86_64", "--version"]),
        "llvm_mca": llvm,
        "osaca": first_line(["osaca", "--version"]) if shutil.which("osaca") else "not installed",
        "bottlenose": str(BN),
    }


# ---------------------------------------------------------------- which CPU, which models

# The host as `bottlenose machines host --format json` describes it, plus `machine_arg`: what
# bottlenose gets as --machine ("host", or the fallback's machine name). Set by main().
HOST: dict = {}
HOST_KEYS = ("cpu", "signature", "machine", "reason", "calibration", "llvm_mcpu", "osaca_arch")


def cpuinfo_fields() -> dict:
    """The first processor's fields of /proc/cpuinfo."""
    fields: dict = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if not line.strip():
                if fields:
                    break
                continue
            k, _, v = line.partition(":")
            fields.setdefault(k.strip(), v.strip())
    except OSError:
        pass
    return fields


def host_from_cpuinfo() -> dict:
    """Fallback when `bottlenose machines host` is not available: vendor, family and model
    from /proc/cpuinfo, mapped to the closest built-in machine and peer models."""
    f = cpuinfo_fields()
    vendor = f.get("vendor_id", "unknown")
    fam = int(f.get("cpu family", "0") or 0)
    model = int(f.get("model", "0") or 0)
    stepping = f.get("stepping", "0") or "0"
    if vendor == "AuthenticAMD" and fam == 25 and (0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or 0xA0 <= model <= 0xAF):
        machine, mcpu, arch, why = "zen4", "znver4", "ZEN4", "AMD family 25 (19h) model in 10-1f/60-7f/a0-af: Zen 4"
    elif vendor == "AuthenticAMD" and fam == 25:
        machine, mcpu, arch, why = "zen3", "znver3", "ZEN3", "AMD family 25 (19h), not a Zen 4 model: Zen 3"
    elif vendor == "AuthenticAMD" and fam == 26:
        machine, mcpu, arch, why = "zen5", "znver5", "ZEN4", "AMD family 26 (1Ah): Zen 5 (OSACA has no Zen 5: ZEN4)"
    elif vendor == "GenuineIntel":
        machine, mcpu, arch, why = "skylake", "skylake", "SKX", "Intel: the skylake model"
    else:
        machine, mcpu, arch, why = "skylake", "skylake", "SKX", f"unknown CPU ({vendor} family {fam}): the default model"
    hyp = ""
    if "hypervisor" in f.get("flags", "").split():
        hyp = "hypervisor"
        try:
            for line in run(["lscpu"]).stdout.splitlines():
                if line.startswith("Hypervisor vendor:"):
                    hyp = line.split(":", 1)[1].strip()
        except Exception:  # noqa: BLE001
            pass
    desc = f"{vendor} family {fam} model {model} stepping {stepping}" + (f", {hyp}" if hyp else "")
    return {
        "cpu": f"{f.get('model name', 'unknown CPU')} ({desc})",
        "signature": f"{vendor}-{fam}-{model}-{stepping}",
        "machine": machine,
        "reason": f"from /proc/cpuinfo (bench/accuracy.py fallback): {why}",
        "calibration": None,
        "llvm_mcpu": mcpu,
        "osaca_arch": arch,
        "source": "/proc/cpuinfo",
        "machine_arg": machine,
    }


def detect_host() -> dict:
    """`bottlenose machines host --format json`, or the /proc/cpuinfo fallback with a warning."""
    why = ""
    try:
        p = subprocess.run([str(BN), "machines", "host", "--format", "json"], capture_output=True, text=True, timeout=120)
        if p.returncode == 0:
            d = json.loads(p.stdout)
            missing = [k for k in HOST_KEYS if k not in d]
            if not missing:
                d["source"] = "bottlenose machines host"
                d["machine_arg"] = "host"
                return d
            why = f"its JSON lacks {', '.join(missing)}"
        else:
            why = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1][:200]
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        why = str(e)[:200]
    d = host_from_cpuinfo()
    log(f"warning: `bottlenose machines host --format json` failed ({why}); host read from /proc/cpuinfo: "
        f"{d['cpu']} -> --machine {d['machine']}, llvm-mca -mcpu={d['llvm_mcpu']}, OSACA --arch {d['osaca_arch']}")
    return d


def host_label(h: dict) -> str:
    """The CPU as every heading names it: the `cpu` line and the signature (once: the line of
    `bottlenose machines host` already holds it)."""
    cpu, sig = h.get("cpu") or "unknown CPU", h.get("signature") or "?"
    return cpu if sig in cpu else f"{cpu} `{sig}`"


# ---------------------------------------------------------------- objdump and the hot loop

_INSN = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$")
_JUMP = re.compile(r"^(j[a-z]+|jmp|call|loop\w*)\s+([0-9a-f]+)\s*(<[^>]*>)?")


class Disassembly:
    """Instructions of the .text section: address -> (length, AT&T text)."""

    def __init__(self, binary: Path):
        out = run(["objdump", "-d", "-w", str(binary)]).stdout
        self.insns: list[tuple[int, int, str]] = []
        for line in out.splitlines():
            m = _INSN.match(line)
            if not m:
                continue
            addr = int(m.group(1), 16)
            nbytes = len(m.group(2).split())
            text = m.group(3).strip()
            self.insns.append((addr, nbytes, text))
        self.insns.sort()
        self.symbols: list[tuple[int, str]] = []
        for line in out.splitlines():
            m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
            if m:
                self.symbols.append((int(m.group(1), 16), m.group(2)))
        self.symbols.sort()

    def function_of(self, addr: int) -> str | None:
        name = None
        for a, n in self.symbols:
            if a <= addr:
                name = n
            else:
                break
        return name

    def loop_range(self, head: int) -> tuple[int, int] | None:
        """[head, end): end is just past the last jump whose target is head."""
        latch = None
        for addr, n, text in self.insns:
            if addr < head:
                continue
            m = _JUMP.match(text)
            if m and m.group(1) != "call" and int(m.group(2), 16) == head:
                latch = (addr, n)
        if latch is None:
            return None
        return head, latch[0] + latch[1]

    def innermost_loop_in(self, function: str) -> tuple[int, int] | None:
        """Fallback when the run names no loop: the smallest [target, jump end) of the
        backward jumps inside `function`."""
        start = next((a for a, n in self.symbols if n == function), None)
        if start is None:
            return None
        end = next((a for a, n in self.symbols if a > start), 1 << 64)
        best = None
        for addr, n, text in self.insns:
            if not start <= addr < end:
                continue
            m = _JUMP.match(text)
            if m and m.group(1) != "call":
                t = int(m.group(2), 16)
                if start <= t <= addr and (best is None or addr + n - t < best[1] - best[0]):
                    best = (t, addr + n)
        return best

    def has_inner_loop(self, start: int, end: int) -> bool:
        for addr, n, text in self.body(start, end):
            m = _JUMP.match(text)
            if m and m.group(1) != "call" and start < int(m.group(2), 16) <= addr:
                return True
        return False

    def body(self, start: int, end: int) -> list[tuple[int, int, str]]:
        return [i for i in self.insns if start <= i[0] < end]


def att_loop(insns: list[tuple[int, int, str]]) -> str:
    """AT&T assembly llvm-mca and OSACA accept: objdump's text without addresses, comments and
    padding prefixes; every direct jump or call target becomes the loop label."""
    lines = []
    for _, _, text in insns:
        t = text.split("#", 1)[0].strip()
        t = re.sub(r"^(data16\s+)+", "", t)
        t = re.sub(r"^cs\s+nop", "nop", t)
        t = re.sub(r"^(bnd|notrack)\s+", "", t)
        m = _JUMP.match(t)
        if m:
            t = f"{m.group(1)} .Lloop"
        t = re.sub(r"\s+", " ", t, count=1)
        lines.append("\t" + t)
    return ".Lloop:\n" + "\n".join(lines) + "\n"


# ---------------------------------------------------------------- tools

def native(name: str, measure_time: float, attempts: int = 3) -> dict:
    """One native measurement; measured again (up to `attempts` in all) while the harness warns
    about its calibration (clock change, add/imul disagreement). Keeps the first measurement
    without warnings, else the fastest."""
    got = []
    for _ in range(attempts):
        d = json.loads(run([str(BIN / name), "measure", "--time", str(measure_time)], timeout=600).stdout)
        if not d.get("calibration_warnings"):
            return d
        log(f"  native  {name}: " + "; ".join(d["calibration_warnings"]) + " -- measuring again")
        got.append(d)
    return min(got, key=lambda d: d["cycles_per_call"]["min"])


def bottleneck_text(bs: list[dict], sensitivity: list[dict] | None = None) -> str:
    if not bs:
        top = max(sensitivity or [], key=lambda x: x.get("speedup", 0), default=None)
        if top is None:
            return "none"
        return f"none (top sensitivity: {'+'.join(top['resources'])} {100 * top['speedup']:+.2f}%)"
    b = bs[0]
    return "+".join(b["resources"]) + f" (+{100 * b['speedup']:.1f}%)"


def model_warmup_calls(name: str) -> int:
    """Calls before the modelled one: 1, or what the kernel's source asks with a
    `MODEL_WARMUP: N` comment (streaming kernels whose steady state, the caches full of the
    previous calls' lines rather than of setup's, takes more than one call to reach)."""
    src = BENCH / "kernels" / f"{name}.c"
    m = re.search(r"MODEL_WARMUP:\s*(\d+)", src.read_text()) if src.exists() else None
    return int(m.group(1)) if m else 1


def bottlenose_run(name: str, extra: list[str], tag: str, machine: str | None = None) -> dict:
    RUNS.mkdir(parents=True, exist_ok=True)
    out = RUNS / f"{name}.{tag}.json"
    warm = str(model_warmup_calls(name))
    cmd = [str(BN), "run", "--machine", machine or HOST["machine_arg"], "--roi", "markers", "--warm", "--format", "json",
           "-o", str(out), "--quiet", *extra, "--", str(BIN / name), "model", warm]
    t0 = time.monotonic()
    run(cmd, timeout=1800)
    wall = time.monotonic() - t0
    d = json.loads(out.read_text())
    entries = max(1, d["roi"]["entries"])
    return {
        "cycles_per_call": d["cycles"] / entries,
        "instructions_per_call": d["instructions_simulated"] / entries,
        "ipc": d.get("ipc"),
        "bottleneck": bottleneck_text(d.get("bottlenecks") or [], d.get("sensitivity")),
        "bottlenecks": (d.get("bottlenecks") or [])[:3],
        "hottest_loop_head": d.get("hottest_loop_head"),
        "loops": d.get("loops", [])[:20],
        "unsupported_forms": [f["form"] for f in (d.get("unsupported_instructions") or {}).get("forms", [])],
        "l1d_miss_rate": next((c["miss_rate"] for c in d.get("functional", {}).get("caches", {}).get("levels", [])
                               if c["name"] == "L1D"), None),
        "stall_causes": d.get("stall_causes"),
        "command": " ".join(cmd[:-3] + [f"bench/out/bin/{name}", "model", warm]),
        "wall_s": round(wall, 2),
    }


def head_executions(name: str, head: int) -> int:
    out = RUNS / f"{name}.head.json"
    run([str(BN), "run", "--machine", HOST["machine_arg"], "--roi", f"range:0x{head:x}:0x{head + 1:x}", "--no-sensitivity",
         "--format", "json", "-o", str(out), "--quiet", "--", str(BIN / name), "calls", "1"], timeout=1800)
    return int(json.loads(out.read_text())["instructions_simulated"])


def bottlenose_analyze(name: str, start: int, end: int) -> dict:
    p = run([str(BN), "analyze", str(BIN / name), "--range", f"0x{start:x}:0x{end:x}", "--machine", HOST["machine_arg"],
             "--format", "json"], timeout=900)
    d = json.loads(p.stdout)
    return {
        "cycles_per_loop_iteration": d["cycles_per_iteration"],
        "bottleneck": bottleneck_text(d.get("bottlenecks") or [], d.get("sensitivity")),
        "bottlenecks": (d.get("bottlenecks") or [])[:3],
        "unsupported_forms": [f["form"] for f in (d.get("unsupported_instructions") or {}).get("forms", [])],
    }


def llvm_mca(asm: str, n_insns: int, workdir: Path) -> dict:
    if not HOST.get("llvm_mcpu"):
        return {"error": "no llvm-mca model named for this host"}
    iters = 1000 if n_insns * 1000 <= MCA_MAX_SIMULATED else max(10, MCA_MAX_SIMULATED // max(1, n_insns))
    f = workdir / "loop.mca.s"
    f.write_text(asm)
    p = run(["llvm-mca-19", f"-mcpu={HOST['llvm_mcpu']}", f"-iterations={iters}", "-bottleneck-analysis", str(f)],
            timeout=900, check=False)
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[0] if p.stderr.strip() else f"exit {p.returncode}"}
    o = p.stdout
    total = int(re.search(r"^Total Cycles:\s+(\d+)", o, re.M).group(1))
    res = {"iterations": iters, "cycles_per_loop_iteration": total / iters}
    rp = re.search(r"Resource Pressure\s+\[\s*([\d.]+)%\s*\]((?:\n\s+- \S+\s+\[\s*[\d.]+%\s*\])*)", o)
    dd = re.search(r"Data Dependencies:\s+\[\s*([\d.]+)%\s*\]", o)
    reg = re.search(r"- Register Dependencies\s+\[\s*([\d.]+)%", o)
    mem = re.search(r"- Memory Dependencies\s+\[\s*([\d.]+)%", o)
    if rp or dd:
        rpv = float(rp.group(1)) if rp else 0.0
        ddv = float(dd.group(1)) if dd else 0.0
        if rpv >= ddv and rp:
            tops = re.findall(r"- (\S+)\s+\[\s*([\d.]+)%", rp.group(2))
            top = max(tops, key=lambda t: float(t[1]))[0] if tops else "?"
            res["bottleneck"] = f"resource {top} ({rpv:.0f}% of cycles)"
        else:
            kind = "register" if (reg and mem and float(reg.group(1)) >= float(mem.group(1))) else "memory"
            res["bottleneck"] = f"{kind} data dependency ({ddv:.0f}%)"
    else:
        res["bottleneck"] = "none found; " + mca_max_pressure(o)
    res["max_pressure"] = mca_max_pressure(o)
    return res


def mca_max_pressure(o: str) -> str:
    names = dict(re.findall(r"^\[([\d.]+)\]\s+-\s+(\S+)", o, re.M))
    m = re.search(r"Resource pressure per iteration:\n(.*)\n(.*)\n", o)
    if not m:
        return "?"
    cols = re.findall(r"\[([\d.]+)\]", m.group(1))
    vals = m.group(2).split()
    best = None
    for c, v in zip(cols, vals):
        if v == "-":
            continue
        if best is None or float(v) > best[1]:
            best = (names.get(c, c), float(v))
    return f"max pressure {best[0]} {best[1]:.2f}/it" if best else "?"


def osaca(asm: str, workdir: Path) -> dict:
    if not shutil.which("osaca"):
        return {"error": "osaca not installed"}
    if not HOST.get("osaca_arch"):
        return {"error": "no OSACA model named for this host"}
    f = workdir / "loop.osaca.s"
    f.write_text("# OSACA-BEGIN\n" + asm + "# OSACA-END\n")
    try:
        p = run(["osaca", "--arch", HOST["osaca_arch"], "--ignore-unknown", "--lcd-timeout", "30", str(f)],
                timeout=300, check=False)
    except subprocess.TimeoutExpired:
        return {"error": "timed out after 300 s"}
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        return {"error": "OSACA crashed: " + err[:200]}
    return parse_osaca(p.stdout)


def parse_osaca(o: str) -> dict:
    lines = o.splitlines()
    try:
        hi = next(i for i, l in enumerate(lines) if "||" in l and "CP" in l and "LCD" in l)
    except StopIteration:
        return {"error": "no combined analysis report"}
    header = lines[hi]
    bar = header.index("||")
    ports = [(m.start(), m.group(0)) for m in re.finditer(r"[0-9]+[A-Z]*", header[:bar])]
    cp_pos = header.index("CP", bar)
    lcd_pos = header.index("LCD", bar)
    # totals: the first non-empty line after the table rows (rows start with a line number and '|')
    j = hi + 2
    unknown = 0
    while j < len(lines) and re.match(r"^\s*\d+\s+\|", lines[j]):
        if re.search(r"\|\s*X\s", lines[j][-200:]) or re.search(r"\bX\s{2,}\S", lines[j]):
            unknown += 1
        j += 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    totals = lines[j] if j < len(lines) else ""
    tp, tp_port, cp, lcd = 0.0, "?", None, 0.0
    for m in re.finditer(r"\d+\.\d+", totals):
        v = float(m.group(0))
        pos = m.start()
        if pos < bar:
            name = min(ports, key=lambda p: abs(p[0] - pos))[1] if ports else "?"
            if v > tp:
                tp, tp_port = v, name
        elif abs(pos - cp_pos) < abs(pos - lcd_pos):
            cp = v
        else:
            lcd = v
    # the LCD report lists every loop-carried chain with its latency
    lcd_chains = []
    if "Loop-Carried Dependencies Analysis Report" in o:
        sec = o.split("Loop-Carried Dependencies Analysis Report", 1)[1]
        lcd_chains = [float(x) for x in re.findall(r"^\s*\d+\s+\|\s*([\d.]+)\s*\|", sec, re.M)]
    if lcd_chains:
        lcd = max(lcd, max(lcd_chains))
    pred = max(tp, lcd)
    bn = f"LCD {lcd:.1f} cy" if lcd > tp else f"port {tp_port} {tp:.2f} cy"
    return {"cycles_per_loop_iteration": pred, "throughput_bound": tp, "throughput_port": tp_port,
            "lcd": lcd, "critical_path": cp, "bottleneck": bn, "unknown_instructions": unknown}


# ---------------------------------------------------------------- statistics

def kendall_tau_b(x: list[float], y: list[float]) -> float | None:
    n = len(x)
    if n < 2:
        return None
    conc = disc = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = (x[i] > x[j]) - (x[i] < x[j])
            dy = (y[i] > y[j]) - (y[i] < y[j])
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif dx == dy:
                conc += 1
            else:
                disc += 1
    den = math.sqrt((conc + disc + tx) * (conc + disc + ty))
    return (conc - disc) / den if den else None


def summarize(kernels: list[dict], tool: str, subset: set[str] | None = None) -> dict:
    meas, pred, meas_call, pred_call, apes = [], [], [], [], []
    for k in kernels:
        if subset is not None and k["name"] not in subset:
            continue
        t = k["tools"].get(tool) or {}
        if t.get("cycles_per_call") is None:
            continue
        m = k["measured"]["cycles_per_call"]
        meas_call.append(m)
        pred_call.append(t["cycles_per_call"])
        meas.append(k["measured"]["cycles_per_iteration"])
        pred.append(t["cycles_per_iteration"])
        apes.append(abs(t["cycles_per_call"] - m) / m)
    if not apes:
        return {"n": 0}
    return {
        "n": len(apes),
        "mape": 100 * statistics.fmean(apes),
        "median_ape": 100 * statistics.median(apes),
        "kendall_tau": kendall_tau_b(meas, pred),
        "kendall_tau_per_call": kendall_tau_b(meas_call, pred_call),
        "within_10pct": sum(a <= 0.10 for a in apes),
        "within_25pct": sum(a <= 0.25 for a in apes),
    }


# ---------------------------------------------------------------- report

def fmt(v: float | None, digits: int = 2) -> str:
    if v is None:
        return "-"
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.1f}"
    return f"{v:.{digits}f}"


def cell(k: dict, tool: str) -> str:
    t = k["tools"].get(tool) or {}
    if t.get("cycles_per_iteration") is None:
        return "n/a" if not t.get("error") else "fail"
    err = 100 * (t["cycles_per_call"] / k["measured"]["cycles_per_call"] - 1)
    return f"{fmt(t['cycles_per_iteration'])} ({err:+.0f}%)"


def extra_tools(result: dict) -> list[str]:
    """The extra columns this run has (no-prefetcher always unless skipped; skylake ones if run)."""
    return [t for t in EXTRA_TOOLS if any(t in k["tools"] for k in result["kernels"])]


def markdown(result: dict) -> str:
    h = result["host"]
    hc = result["host_cpu"]
    label = host_label(hc)
    ks = result["kernels"]
    extras = extra_tools(result)
    cal = result.get("calibration") or {}
    L = []
    L.append(f"# Accuracy of cycle predictions against measurements on {label} (bench/accuracy.py)")
    L.append("")
    L.append(f"- date: {h['date']}")
    L.append(f"- host CPU: {hc['cpu']}, signature `{hc['signature']}` ({hc['source']}); "
             f"{h['cpus']} CPUs{', ' + h['hypervisor'] if h['hypervisor'] else ''}, Linux {h['kernel']}")
    L.append(f"- core clock ~{result['core_ghz']:.2f} GHz (TSC {result['tsc_ghz']:.3f} GHz, {result['tsc_per_cycle']:.4f} "
             f"ticks/cycle; medians over the kernels: add chain {cal.get('add') or float('nan'):.4f}, imul chain "
             f"{cal.get('imul') or float('nan'):.4f}, largest add/imul disagreement "
             f"{100 * (cal.get('max_disagreement') or 0.0):.2f} %, {cal.get('warnings', 0)} calibration warning(s))")
    cal_note = f", calibration overlay {hc['calibration']}" if hc.get("calibration") else ", no calibration overlay"
    L.append(f"- model: bottlenose --machine {hc['machine_arg']} (built-in {hc['machine']}{cal_note}: {hc['reason']})")
    mca = f"{h['llvm_mca']} -mcpu={hc['llvm_mcpu']}" if hc.get("llvm_mcpu") else "llvm-mca: no model for this host"
    osa = (f"OSACA {h['osaca']} --arch {hc['osaca_arch']}" if hc.get("osaca_arch") else "OSACA: no model for this host") \
        if shutil.which("osaca") else "OSACA: not installed"
    L.append(f"- peers: {mca}, {osa}; {h['gcc']}; {h['qemu']}")
    if "bottlenose_run_skylake_cal" in extras:
        cal_file = next((t.get("machine") for k in ks for t in [k["tools"].get("bottlenose_run_skylake_cal") or {}]
                         if t.get("machine")), str(SKYLAKE_CALIBRATED))
        try:
            cal_file = str(Path(cal_file).relative_to(REPO))
        except ValueError:
            pass
        L.append(f"- extra: bn run skylake (`--machine skylake`) and bn run skylake-calibrated "
                 f"(`--machine {cal_file}`), both `--no-sensitivity --no-views`")
    L.append(f"- {len(ks)} kernels from bench/kernels/ (gcc -O3 -march=x86-64-v3 -mtune=znver3); measured = minimum over "
             "repetitions of rdtsc, converted to core cycles (bench/harness/README.md)")
    L.append("")
    L.append(f"## Summary: {label}")
    L.append("")
    L.append("APE = |predicted - measured| / measured of cycles per kernel call; Kendall tau-b between measured and "
             "predicted cycles per iteration over the kernels the tool handled.")
    L.append("")
    L.append("| tool | kernels | MAPE | median APE | Kendall tau | within 10 % | within 25 % |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for tool in TOOLS + extras:
        s = result["summary"].get(tool, {})
        if not s.get("n"):
            L.append(f"| {TOOL_TITLES[tool]} | 0 | - | - | - | - | - |")
            continue
        tau = "-" if s["kendall_tau"] is None else f"{s['kendall_tau']:.3f}"
        L.append(f"| {TOOL_TITLES[tool]} | {s['n']} | {s['mape']:.1f} % | {s['median_ape']:.1f} % | {tau} | "
                 f"{s['within_10pct']} | {s['within_25pct']} |")
    cs = result.get("summary_common") or {}
    if cs:
        L.append("")
        L.append(f"On the {cs.get('_n', 0)} kernels every tool handled: " + "; ".join(
            f"{TOOL_TITLES[t]} MAPE {cs[t]['mape']:.1f} %, median {cs[t]['median_ape']:.1f} %, tau "
            f"{'-' if cs[t]['kendall_tau'] is None else format(cs[t]['kendall_tau'], '.3f')}"
            for t in TOOLS if cs.get(t, {}).get("n")))
    L.append("")
    L.append(f"## Per kernel: cycles per iteration (error of cycles per call), {label}")
    L.append("")
    L.append("Iteration = one execution of the kernel's innermost source loop body (vectorised loops: one element). "
             "Static tools (analyze, llvm-mca, OSACA) see only the hot loop; their per-call figure is cycles per loop "
             "iteration x loop-body executions per call.")
    L.append("")
    L.append("| kernel | iterations/call | measured | bottlenose run | bottlenose analyze | llvm-mca | OSACA |"
             + "".join(f" {TOOL_TITLES[t]} |" for t in extras))
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |" + " ---: |" * len(extras))
    for k in ks:
        L.append(f"| {k['name']} | {k['iterations_per_call']:,} | {fmt(k['measured']['cycles_per_iteration'])} | "
                 f"{cell(k, 'bottlenose_run')} | {cell(k, 'bottlenose_analyze')} | {cell(k, 'llvm_mca')} | "
                 f"{cell(k, 'osaca')} |" + "".join(f" {cell(k, t)} |" for t in extras))
    L.append("")
    L.append(f"## Per kernel: named bottleneck, {label}")
    L.append("")
    L.append("bottlenose: bottlenecks[0] (resources and the speedup of accelerating them by 15 %); llvm-mca: "
             "-bottleneck-analysis (resource pressure vs data dependencies); OSACA: max(port-pressure bound, "
             "loop-carried dependency).")
    L.append("")
    L.append("| kernel | bottlenose run | bottlenose analyze | llvm-mca | OSACA |")
    L.append("| --- | --- | --- | --- | --- |")
    for k in ks:
        def b(tool):
            t = k["tools"].get(tool) or {}
            if t.get("error"):
                return "error: " + t["error"][:60].replace("|", "/")
            return (t.get("bottleneck") or "-").replace("|", "/")
        L.append(f"| {k['name']} | {b('bottlenose_run')} | {b('bottlenose_analyze')} | {b('llvm_mca')} | {b('osaca')} |")
    L.append("")
    L.append(f"## Per kernel: details, {label}")
    L.append("")
    L.append("| kernel | measured cycles/call (min / median) | reps | bn run cycles/call | instructions/call (model) | hot loop | loop insns | loop execs/call | notes |")
    L.append("| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |")
    for k in ks:
        r = k["tools"].get("bottlenose_run") or {}
        lp = k.get("loop") or {}
        notes = "; ".join(k.get("notes", [])).replace("|", "/")
        loop = f"0x{lp['start']:x}-0x{lp['end']:x} ({lp.get('function') or '?'})" if lp.get("start") else "-"
        L.append(f"| {k['name']} | {fmt(k['measured']['cycles_per_call'])} / {fmt(k['measured']['cycles_per_call_median'])} | "
                 f"{k['measured']['reps']} | {fmt(r.get('cycles_per_call'))} | {fmt(r.get('instructions_per_call'))} | {loop} | "
                 f"{lp.get('instructions', '-')} | {fmt(lp.get('executions_per_call'))} | {notes} |")
    L.append("")
    L.append(f"## Method ({label})")
    L.append("")
    L.append("- host: `bottlenose machines host --format json` names the CPU, the built-in model bottlenose picks for it "
             "(`--machine host`, with the host's calibration overlay if there is one) and the closest llvm-mca and OSACA "
             "models; without that command, /proc/cpuinfo and a fixed vendor/family/model table (bench/accuracy.py).")
    L.append("- measured: `bench/out/bin/NAME measure`, pinned, warm, minimum over up to 200 calls, in two passes "
             "(before and after the model runs; the faster counts); TSC ticks / (ticks per core cycle from a dependent "
             "register-register add chain, cross-checked with an imul chain; calibration warnings appear in the notes). "
             "Noisy kernels (DRAM, L3) are marked in the notes when the passes differ by > 10 %.")
    L.append(f"- bottlenose run: `bottlenose run --machine {hc['machine_arg']} --roi markers --warm --format json -- NAME "
             "model 1`: setup and one warm-up call run functionally (caches, TLBs, predictors warm), then exactly one call "
             "of kernel() is timed between the markers `xchg rbx,rbx` / `xchg rcx,rcx`, with the machine's prefetchers "
             "(the default). bn run no prefetcher: the same with `--prefetcher none --no-sensitivity`.")
    L.append("- hot loop: `hottest_loop_head` of that run; body = [head, end of the last jump back to head] in `objdump -d` "
             "(if that range holds inner loops, the hottest innermost loop of the run's `loops`; if the run names no "
             "loop, the innermost loop of kernel() in objdump). Body executions per call are counted exactly with "
             "`bottlenose run --roi range:HEAD:HEAD+1 --no-sensitivity -- NAME calls 1`.")
    L.append(f"- bottlenose analyze: `bottlenose analyze NAME --range START:END --machine {hc['machine_arg']} --format json`; "
             f"llvm-mca: `llvm-mca-19 -mcpu={hc.get('llvm_mcpu') or '-'} -iterations=1000 -bottleneck-analysis` on the body "
             "as AT&T text (objdump, jump targets replaced by a label); OSACA: "
             f"`osaca --arch {hc.get('osaca_arch') or '-'} --ignore-unknown` on the same text between "
             "`# OSACA-BEGIN/END` markers, prediction max(port bound, LCD). Static per-call figure = cycles per loop "
             "iteration x body executions per call.")
    L.append("")
    L.append(f"## Kernels (measured on {label})")
    L.append("")
    L.append("| kernel | what it does |")
    L.append("| --- | --- |")
    for k in ks:
        L.append(f"| {k['name']} | {k['description'].replace('|', '/')} |")
    L.append("")
    L.append(f"Total time of this script: {result['wall_s']:.0f} s.")
    return "\n".join(L) + "\n"


def record_history(result: dict, md: str, path: Path) -> None:
    """Adds this run to the accuracy history (one entry per signature and date, newest first),
    so that bench/benchmarks.py can keep showing an earlier host's tables after the host changed."""
    hc = result["host_cpu"]
    hist = json.loads(path.read_text()) if path.exists() else {"entries": []}
    entry = {
        "signature": hc["signature"],
        "cpu": hc["cpu"],
        "date": result["host"]["date"],
        "machine": hc["machine"],
        "machine_arg": hc["machine_arg"],
        "calibration": hc.get("calibration"),
        "llvm_mcpu": hc.get("llvm_mcpu"),
        "osaca_arch": hc.get("osaca_arch"),
        "kernels": len(result["kernels"]),
        "summary": result["summary"],
        "summary_common": result.get("summary_common"),
        "markdown": md.split("\n", 1)[1].lstrip("\n"),  # without the title line
    }
    hist["entries"] = [e for e in hist["entries"] if (e["signature"], e["date"]) != (entry["signature"], entry["date"])]
    hist["entries"].insert(0, entry)
    hist["entries"].sort(key=lambda e: e["date"], reverse=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(hist, indent=1, ensure_ascii=False) + "\n")
    tmp.replace(path)


# ---------------------------------------------------------------- main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", default=os.environ.get("BENCH_KERNELS") or None,
                    help="comma-separated subset (default: $BENCH_KERNELS, else every bench/kernels/*.c)")
    ap.add_argument("--skip-native", action="store_true", help="reuse bench/out/native.json")
    ap.add_argument("--skip-osaca", action="store_true")
    ap.add_argument("--skip-mca", action="store_true")
    ap.add_argument("--skip-no-prefetch", "--skip-stride", dest="skip_no_prefetch", action="store_true",
                    help="no extra run without the prefetchers")
    ap.add_argument("--no-build", action="store_true", help="do not run bench/kernels/build.sh")
    ap.add_argument("--measure-time", type=float, default=0.5, help="seconds of timed repetitions per kernel")
    ap.add_argument("--native-passes", type=int, default=2,
                    help="native measurement passes (first before, the others after the model runs); "
                         "the pass with the smallest cycles per call counts")
    ap.add_argument("--out", default=str(OUT), help="output folder (default bench/out)")
    ap.add_argument("--history", default=str(HISTORY),
                    help="accuracy history to add a run over every kernel to (default bench/accuracy_history.json)")
    ap.add_argument("--no-history", action="store_true", help="do not record this run in the history")
    args = ap.parse_args()
    t_start = time.monotonic()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    if not BN.exists():
        log(f"error: {BN} not found: cargo build --release -p bottlenose -p bottlenose-qemu-plugin")
        return 1
    names = sorted(p.stem for p in (BENCH / "kernels").glob("*.c"))
    if args.kernels:
        want = args.kernels.split(",")
        unknown = [w for w in want if w not in names]
        if unknown:
            log(f"error: unknown kernel(s) {', '.join(unknown)}")
            return 1
        names = want
    subset = len(names) < len(list((BENCH / "kernels").glob("*.c")))
    if not args.no_build:
        run([str(BENCH / "kernels" / "build.sh"), *names], timeout=900)
    host = host_info()
    HOST.clear()
    HOST.update(detect_host())
    skylake_cal = SKYLAKE_CALIBRATED if SKYLAKE_CALIBRATED.exists() else None
    log(f"{host['date']}  {HOST['cpu']} [{HOST['signature']}]  --machine {HOST['machine_arg']} ({HOST['machine']}"
        f"{', overlay ' + str(HOST['calibration']) if HOST.get('calibration') else ''}), llvm-mca -mcpu={HOST['llvm_mcpu']}, "
        f"OSACA --arch {HOST['osaca_arch']}  ({len(names)} kernels"
        f"{'; + skylake and ' + str(skylake_cal) if skylake_cal else ''})")

    # 1. native measurements first, while nothing of ours runs beside them
    native_file = out_dir / "native.json"
    natives: dict[str, dict] = {}
    if args.skip_native and native_file.exists():
        natives = json.loads(native_file.read_text())
    def native_pass(p: int) -> None:
        for n in names:
            if p == 0 and n in natives:
                continue
            d = native(n, args.measure_time)
            d["pass"] = p
            old = natives.get(n)
            if old is not None:
                d["passes"] = old.get("passes", [old["cycles_per_call"]["min"]]) + [d["cycles_per_call"]["min"]]
                if old["cycles_per_call"]["min"] <= d["cycles_per_call"]["min"]:
                    old["passes"] = d["passes"]
                    d = old
            else:
                d["passes"] = [d["cycles_per_call"]["min"]]
            natives[n] = d
            log(f"  native  {n:24s} {d['cycles_per_iteration']['min']:10.3f} cycles/iteration "
                f"({d['reps']} reps, spread {100 * d['spread']:.1f} %, pass {p + 1})")
        native_file.write_text(json.dumps(natives, indent=1))

    native_pass(0)

    kernels = []
    for n in names:
        nd = natives[n]
        k = {
            "name": n,
            "description": nd["description"],
            "iterations_per_call": nd["iterations_per_call"],
            "measured": {
                "cycles_per_call": nd["cycles_per_call"]["min"],
                "cycles_per_call_median": nd["cycles_per_call"]["median"],
                "cycles_per_iteration": nd["cycles_per_iteration"]["min"],
                "cycles_per_iteration_median": nd["cycles_per_iteration"]["median"],
                "reps": nd["reps"],
                "spread": nd["spread"],
                "tsc_per_cycle": nd["tsc_per_cycle"],
            },
            "tools": {},
            "notes": [],
        }
        iters = nd["iterations_per_call"]

        def put(tool: str, res: dict, cycles_per_call: float | None) -> None:
            if cycles_per_call is not None:
                res["cycles_per_call"] = cycles_per_call
                res["cycles_per_iteration"] = cycles_per_call / iters
                res["ape"] = abs(cycles_per_call / k["measured"]["cycles_per_call"] - 1)
            k["tools"][tool] = res

        # 2. dynamic model run
        try:
            r = bottlenose_run(n, [], "run")
            put("bottlenose_run", r, r["cycles_per_call"])
        except Exception as e:  # noqa: BLE001
            put("bottlenose_run", {"error": str(e)[:300]}, None)
            r = {}
        if not args.skip_no_prefetch:
            try:
                rs = bottlenose_run(n, ["--prefetcher", "none", "--no-sensitivity"], "no-prefetch")
                put("bottlenose_run_no_prefetch", {"wall_s": rs["wall_s"]}, rs["cycles_per_call"])
            except Exception as e:  # noqa: BLE001
                put("bottlenose_run_no_prefetch", {"error": str(e)[:300]}, None)
        if skylake_cal is not None:
            for tool, tag, machine in (("bottlenose_run_skylake", "skylake", "skylake"),
                                       ("bottlenose_run_skylake_cal", "skylake-calibrated", str(skylake_cal))):
                try:
                    rk = bottlenose_run(n, ["--no-sensitivity", "--no-views"], tag, machine)
                    put(tool, {"wall_s": rk["wall_s"], "machine": machine}, rk["cycles_per_call"])
                except Exception as e:  # noqa: BLE001
                    put(tool, {"error": str(e)[:300]}, None)

        # 3. the hot loop
        head = r.get("hottest_loop_head")
        dis = Disassembly(BIN / n)
        rng = dis.loop_range(int(head, 16)) if head else None
        if rng is None and "error" not in r:
            rng = dis.innermost_loop_in("kernel")
            why = "run reported no loop" if not head else f"no jump back to the run's loop head 0x{head}"
            k["notes"].append(why + (": innermost loop of kernel() from objdump" if rng else ": no loop found"))
        if rng is not None and dis.has_inner_loop(*rng):
            inner = []
            for lp in r.get("loops", []):
                lr = dis.loop_range(int(lp["head"], 16))
                if lr and not dis.has_inner_loop(*lr):
                    inner.append((lp["cycles"], lr, lp["share"]))
            if inner:
                _, rng, share = max(inner, key=lambda t: t[0])
                k["notes"].append(f"run's hottest loop 0x{head} holds inner loops: using the hottest innermost loop "
                                  f"0x{rng[0]:x} ({100 * share:.0f}% of cycles)")
        if rng is not None:
            start, end = rng
            body = dis.body(start, end)
            execs = head_executions(n, start)
            k["loop"] = {"start": start, "end": end, "instructions": len(body), "executions_per_call": execs,
                         "function": dis.function_of(start), "asm": att_loop(body)}
            if any(_JUMP.match(t[2]) and t[2].startswith("call") for t in body):
                k["notes"].append("loop calls a function: static tools miss the callee")
            # 4. static tools on that loop
            try:
                a = bottlenose_analyze(n, start, end)
                put("bottlenose_analyze", a, a["cycles_per_loop_iteration"] * execs)
            except Exception as e:  # noqa: BLE001
                put("bottlenose_analyze", {"error": str(e)[:300]}, None)
            with tempfile.TemporaryDirectory() as td:
                asm = att_loop(body)
                if not args.skip_mca:
                    try:
                        m = llvm_mca(asm, len(body), Path(td))
                        put("llvm_mca", m, m["cycles_per_loop_iteration"] * execs if "error" not in m else None)
                        if m.get("iterations", 1000) != 1000:
                            k["notes"].append(f"llvm-mca -iterations={m['iterations']} (large body)")
                    except Exception as e:  # noqa: BLE001
                        put("llvm_mca", {"error": str(e)[:300]}, None)
                if not args.skip_osaca and len(body) > OSACA_MAX_BODY:
                    put("osaca", {"error": f"not run: {len(body)}-instruction body (> {OSACA_MAX_BODY}; OSACA timed out at 300 s)"}, None)
                elif not args.skip_osaca:
                    try:
                        o = osaca(asm, Path(td))
                        put("osaca", o, o["cycles_per_loop_iteration"] * execs if "error" not in o else None)
                        if o.get("unknown_instructions"):
                            k["notes"].append(f"OSACA: {o['unknown_instructions']} instruction(s) not in its ZEN4 data")
                    except Exception as e:  # noqa: BLE001
                        put("osaca", {"error": str(e)[:300]}, None)
        ua = (k["tools"].get("bottlenose_analyze") or {}).get("unsupported_forms")
        if ua:
            k["notes"].append("forms bottlenose times by default: " + ", ".join(sorted(set(ua)))[:120])
        msg = "  ".join(f"{TOOL_TITLES[t]} {k['tools'][t]['cycles_per_iteration']:.3f}" for t in TOOLS + EXTRA_TOOLS
                        if k["tools"].get(t, {}).get("cycles_per_iteration") is not None)
        log(f"  model   {n:24s} measured {k['measured']['cycles_per_iteration']:.3f}  {msg}")
        kernels.append(k)

    # 5. more native passes, now that the model runs are done; keep each kernel's fastest
    for p in range(1, args.native_passes if not args.skip_native else 1):
        native_pass(p)
    for k in kernels:
        nd = natives[k["name"]]
        m = k["measured"]
        m.update({"cycles_per_call": nd["cycles_per_call"]["min"], "cycles_per_call_median": nd["cycles_per_call"]["median"],
                  "cycles_per_iteration": nd["cycles_per_iteration"]["min"],
                  "cycles_per_iteration_median": nd["cycles_per_iteration"]["median"], "reps": nd["reps"],
                  "spread": nd["spread"], "tsc_per_cycle": nd["tsc_per_cycle"],
                  "passes": nd.get("passes", [nd["cycles_per_call"]["min"]])})
        for t in k["tools"].values():
            if t.get("cycles_per_call") is not None:
                t["ape"] = abs(t["cycles_per_call"] / m["cycles_per_call"] - 1)
        ps = m["passes"]
        if len(ps) > 1 and max(ps) > 1.1 * min(ps):
            k["notes"].append(f"native passes differ by {100 * (max(ps) / min(ps) - 1):.0f}%")
        for w in nd.get("calibration_warnings") or []:
            k["notes"].append("native: " + w)

    summary = {t: summarize(kernels, t) for t in TOOLS + EXTRA_TOOLS if any(t in k["tools"] for k in kernels)}
    # the kernels every tool that ran handled (a tool that handled none, e.g. OSACA not installed, does not count)
    ran = [t for t in TOOLS if summary.get(t, {}).get("n")]
    common = {k["name"] for k in kernels if all(k["tools"].get(t, {}).get("cycles_per_call") is not None for t in ran)}
    summary_common = {t: summarize(kernels, t, common) for t in ran}
    summary_common["_n"] = len(common)
    ratios = [k["measured"]["tsc_per_cycle"] for k in kernels]
    tsc_hz = statistics.median(natives[n]["tsc_hz"] for n in names)
    adds = [natives[n].get("tsc_per_cycle_add", natives[n]["tsc_per_cycle"]) for n in names]
    imuls = [natives[n]["tsc_per_cycle_imul"] for n in names if "tsc_per_cycle_imul" in natives[n]]
    result = {
        "host": host,
        "host_cpu": dict(HOST),
        "machine": HOST["machine_arg"],
        "calibration": {
            "add": statistics.median(adds),
            "imul": statistics.median(imuls) if imuls else None,
            "max_disagreement": max((natives[n].get("add_imul_disagreement", 0.0) for n in names), default=0.0),
            "warnings": sum(len(natives[n].get("calibration_warnings") or []) for n in names),
        },
        "tsc_per_cycle": statistics.median(ratios),
        "tsc_ghz": tsc_hz / 1e9,
        "core_ghz": tsc_hz / statistics.median(ratios) / 1e9,
        "summary": summary,
        "summary_common": summary_common,
        "kernels": kernels,
        "wall_s": time.monotonic() - t_start,
    }
    (out_dir / "accuracy.json").write_text(json.dumps(result, indent=1))
    md = markdown(result)
    (out_dir / "accuracy.md").write_text(md)
    log(f"wrote {out_dir / 'accuracy.json'} and {out_dir / 'accuracy.md'} in {result['wall_s']:.0f} s")
    if args.no_history:
        pass
    elif subset:
        log(f"not recorded in {args.history}: a subset of the kernels")
    else:
        record_history(result, md, Path(args.history))
        log(f"recorded in {args.history} ({HOST['signature']}, {host['date']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
