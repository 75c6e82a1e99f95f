#!/usr/bin/env bash
# Debian packages bottlenose needs at run and test time. Idempotent; uses sudo when not root.
set -euo pipefail
# g++ and python3: the fuzz run of scripts/test.sh (libFuzzer's C++ part, fuzz/make_seeds.py)
# gcc-aarch64-linux-gnu (pulls binutils-aarch64-linux-gnu and the arm64 libc): AArch64 sources and
# the cross-compiled test programs run under qemu-aarch64
# libc6-dbg: glibc's separate debug file (by build id), which names libc's internal
# functions (__memmove_avx_unaligned_erms...) that its .dynsym leaves out
# sqlite3: a real distribution binary to check symbolization on
# slurm-wlm and munge: `study run --slurm`, tested on a one-node cluster (scripts/slurm-test-cluster.sh)
pkgs=(binutils gcc g++ python3 qemu-user llvm-19 chromium binutils-aarch64-linux-gnu gcc-aarch64-linux-gnu libc6-dev-arm64-cross libc6-dbg sqlite3 slurm-wlm munge)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
