/* Integer latency chain: x = x * K + i (imul 3 + add 1 cycles on Zen 4). */
#include "kernel.h"
KERNEL_INFO("int_chain", "x = x*K + i: dependent imul+add chain (integer latency)")
#define N 250000
long kernel_setup(void) { return N; }
NOINLINE void kernel(void) {
    unsigned long x = sink_l;
    for (unsigned long i = 0; i < N; i++) x = x * 0x9E3779B97F4A7C15ul + i;
    sink_l = x;
}
