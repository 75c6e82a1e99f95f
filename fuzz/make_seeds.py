#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets under fuzz/corpus/<target>/.

Seeds come from the project's own files (examples/*.s, bench/blocks/*.s,
machines/*.toml, the metric tables in crates/metrics/data/), from small ELF
files compiled here with gcc, from the GNU assembler's output on the
examples, and from hand-made inputs (fuzz/seeds/<target>/, trace streams
built below). Tools that are missing (gcc, as) just mean fewer seeds.

Usage: python3 fuzz/make_seeds.py   (from anywhere; idempotent)
"""

import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

FUZZ = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(FUZZ)
CORPUS = os.path.join(FUZZ, "corpus")
HAND = os.path.join(FUZZ, "seeds")

TARGETS = [
    "hex", "asm_offline", "asm_gnu_as", "decode_resolve", "machine_loader",
    "metric_expr", "elf_sources", "elf_attribution", "qemu_stream", "counters_import",
    "numeric_args",
]


def put(target, data, name=None):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def asm_files():
    out = []
    for d in ("examples", "bench/blocks"):
        p = os.path.join(ROOT, d)
        for n in sorted(os.listdir(p)):
            if n.endswith(".s"):
                out.append(os.path.join(p, n))
    return out


def run_as(src, tmp):
    """Runs `as -aln` like crates/inputs does; returns (text bytes, listing, stderr) or None."""
    if not shutil.which("as"):
        return None
    inp = os.path.join(tmp, "input.s")
    obj = os.path.join(tmp, "out.o")
    lst = os.path.join(tmp, "listing.lst")
    with open(inp, "w") as f:
        f.write(src)
    r = subprocess.run(["as", "--64", "-aln=" + lst, "-o", obj, inp], capture_output=True, text=True)
    if r.returncode != 0:
        return (b"", "", r.stderr.replace(inp, "/tmp/bottlenose-as/input.s"))
    text = b""
    if shutil.which("objcopy"):
        raw = os.path.join(tmp, "text.bin")
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.text", obj, raw], check=False)
        if os.path.exists(raw):
            text = read(raw, "rb")
    listing = read(lst) if os.path.exists(lst) else ""
    return (text, listing, "")


def seed_asm_and_code(tmp):
    for path in asm_files():
        src = read(path)
        put("asm_gnu_as", src)
        got = run_as(src, tmp)
        if got is None:
            put("asm_offline", src.encode() + b"\0\0\0\x02" + struct.pack("<H", 64) + struct.pack("<HH", 0, 16))
            continue
        text, listing, stderr = got
        # Region label offsets are unknown here: whole block and a few cuts.
        n = len(text)
        for offs in ([], [0, n], [0, n // 2, n // 2, n]):
            tail = b"\x02" + struct.pack("<H", n) + b"".join(struct.pack("<H", o) for o in offs)
            put("asm_offline", src.encode() + b"\0" + listing.encode() + b"\0" + stderr.encode() + b"\0" + tail)
        if text:
            put("decode_resolve", struct.pack("<Q", 0) + text)
            put("decode_resolve", struct.pack("<Q", 0x401000) + text)
            put("hex", " ".join("%02x" % b for b in text))
            put("hex", "".join("\\x%02x" % b for b in text))
            put("hex", ", ".join("0x%02x" % b for b in text))
    # An assembler error, mapped back to the user's line.
    bad = "loop:\n  addq %rbx, %rax\n  frobnicate %rax\n  jne loop\n"
    got = run_as(bad, tmp)
    if got:
        put("asm_offline", bad.encode() + b"\0\0" + got[2].encode() + b"\0\x00")
    regions = "# LLVM-MCA-BEGIN a\nadd rax, rbx\n# LLVM-MCA-END a\n# LLVM-MCA-BEGIN\nimul rax, rcx\n# LLVM-MCA-END\n"
    put("asm_gnu_as", regions)
    put("asm_offline", regions.encode() + b"\0\0\0\x01" + struct.pack("<H", 7) + struct.pack("<HHHH", 0, 3, 3, 7))


def seed_machines():
    m = os.path.join(ROOT, "machines")
    for n in sorted(os.listdir(m)):
        if not n.endswith(".toml") or n.endswith(".forms.toml"):
            continue
        machine = read(os.path.join(m, n))
        forms_name = n[:-5] + ".forms.toml"
        forms = read(os.path.join(m, forms_name)) if os.path.exists(os.path.join(m, forms_name)) else ""
        # Big imported tables: keep the header and the first forms.
        if len(forms) > 6000:
            lines = forms.splitlines(keepends=True)
            head = []
            for line in lines:
                head.append(line)
                if sum(len(x) for x in head) > 6000:
                    break
            forms = "".join(head)
        put("machine_loader", machine + "\0" + forms)


def seed_metrics():
    d = os.path.join(ROOT, "crates", "metrics", "data")
    exprs = set()
    for n in sorted(os.listdir(d)):
        if not n.endswith(".json") or n == "cpuid.json":
            continue
        t = json.loads(read(os.path.join(d, n)))
        for m in t.get("metrics", []):
            exprs.add(m.get("expr", ""))
            if m.get("threshold"):
                exprs.add(m["threshold"])
    # Keep a spread: the shortest and longest few hundred plus a sample.
    ordered = sorted(exprs, key=lambda s: (len(s), s))
    pick = ordered[:150] + ordered[-50:] + ordered[150:-50:10]
    for e in pick:
        if e:
            put("metric_expr", e)


ELF_SOURCES = {
    "loop.c": r"""
double dot(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}
static int helper(int x) { return x * 3 + 1; }
int main(int argc, char **argv) { (void)argv; return helper(argc); }
""",
    "nolibc.c": r"""
void _start(void) {
    volatile int x = 0;
    for (int i = 0; i < 10; i++) x += i;
    __asm__ volatile("mov $60, %eax\n xor %edi, %edi\n syscall");
}
""",
}


def seed_elves(tmp):
    if not shutil.which("gcc"):
        return
    outs = []
    for name, src in ELF_SOURCES.items():
        c = os.path.join(tmp, name)
        with open(c, "w") as f:
            f.write(src)
        base = os.path.join(tmp, name[:-2])
        variants = {
            "loop.c": [
                ("-O2", "-g", "-c"),
                ("-O1", "-g1", "-c", "-fno-asynchronous-unwind-tables"),
                ("-O2", "-c", "-gdwarf-4"),
                ("-Os", "-g", "-c", "-gz"),
            ],
            "nolibc.c": [
                ("-O1", "-g", "-nostdlib", "-static", "-Wl,--build-id=none"),
                ("-O1", "-nostdlib", "-static", "-s", "-Wl,--build-id=none"),
                ("-O1", "-g", "-nostdlib", "-static-pie", "-fpie", "-Wl,--build-id=none"),
            ],
        }[name]
        for i, flags in enumerate(variants):
            out = "%s.%d%s" % (base, i, ".o" if "-c" in flags else "")
            r = subprocess.run(["gcc", *flags, c, "-o", out], capture_output=True)
            if r.returncode == 0 and os.path.getsize(out) <= 64 * 1024:
                outs.append(out)
    for o in outs:
        data = read(o, "rb")
        put("elf_sources", data)
        put("elf_attribution", data)


def rec_hello():
    return b"\x00BNQT" + struct.pack("<H", 2)


def rec_tb_def(tb, insns):
    out = b"\x01" + struct.pack("<IH", tb, len(insns))
    for va, code in insns:
        out += struct.pack("<QB", va, len(code)) + code
    return out


def rec_exec(tb, vcpu=0):
    return b"\x02" + struct.pack("<IH", tb, vcpu)


def rec_mem(idx, size_log2, va, store=False):
    return b"\x03" + struct.pack("<HBQ", idx, size_log2 | (0x80 if store else 0), va)


def rec_mem_vcpu(v):
    return b"\x05" + struct.pack("<H", v)


def seed_traces():
    loop = [(0x401000, b"\x48\x8b\x07"), (0x401003, b"\x48\x89\x06"), (0x401006, b"\xff\xc9"), (0x401008, b"\x75\xf6")]
    tail = [(0x40100a, b"\xc3")]
    s = rec_hello() + rec_tb_def(0, loop) + rec_tb_def(1, tail)
    for i in range(3):
        s += rec_exec(0) + rec_mem(0, 3, 0x7000 + 8 * i) + rec_mem(1, 3, 0x8000 + 8 * i, True)
    s += rec_exec(1) + rec_mem(0, 3, 0x7fff0000)
    put("qemu_stream", s + b"\x04", "loop_complete")
    put("qemu_stream", s, "loop_no_end")
    put("qemu_stream", s[:-5], "loop_truncated")
    # Two vCPUs with MEM_VCPU switches.
    t = rec_hello() + rec_tb_def(0, loop) + rec_exec(0, 0) + rec_exec(0, 1) + rec_mem_vcpu(0)
    t += rec_mem(0, 3, 0x1000) + rec_mem_vcpu(1) + rec_mem(1, 4, 0x2000, True) + rec_mem(3, 0, 0x3000)
    put("qemu_stream", t + b"\x04", "two_vcpus")
    put("qemu_stream", rec_hello() + b"\x04", "empty")


def seed_real_trace(tmp):
    """A real stream: a tiny static program under qemu-x86_64 with the plugin (if built)."""
    qemu = shutil.which("qemu-x86_64")
    plugin = None
    for prof in ("release", "debug"):
        p = os.path.join(ROOT, "target", prof, "libbottlenose_qemu_plugin.so")
        if os.path.exists(p):
            plugin = p
            break
    if not (qemu and plugin and shutil.which("gcc")):
        return
    c = os.path.join(tmp, "trace.c")
    with open(c, "w") as f:
        f.write(ELF_SOURCES["nolibc.c"])
    prog = os.path.join(tmp, "trace_prog")
    if subprocess.run(["gcc", "-O1", "-nostdlib", "-static", c, "-o", prog], capture_output=True).returncode:
        return
    out = os.path.join(tmp, "trace.bin")
    try:
        subprocess.run(["sh", "-c", 'exec "$0" -plugin "$1,fd=3" "$2" 3>"$3"', qemu, plugin, prog, out],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
    except subprocess.SubprocessError:
        return
    if not os.path.exists(out):
        return
    data = read(out, "rb")
    if data:
        put("qemu_stream", data[:65536], "real_trace")


def seed_hand():
    if not os.path.isdir(HAND):
        return
    for target in os.listdir(HAND):
        d = os.path.join(HAND, target)
        for n in sorted(os.listdir(d)):
            put(target, read(os.path.join(d, n), "rb"), "hand_" + n)


def main():
    for t in TARGETS:
        os.makedirs(os.path.join(CORPUS, t), exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bn-seeds") as tmp:
        seed_asm_and_code(tmp)
        seed_elves(tmp)
        seed_real_trace(tmp)
    seed_machines()
    seed_metrics()
    seed_traces()
    seed_hand()
    for t in TARGETS:
        print("%-16s %4d seeds" % (t, len(os.listdir(os.path.join(CORPUS, t)))))


if __name__ == "__main__":
    sys.exit(main())
