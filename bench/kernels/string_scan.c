/* String scanning: strlen-style byte loop over a 512 KiB NUL-terminated string (L2). */
/* CFLAGS: -fno-tree-loop-distribute-patterns */
#include "kernel.h"
KERNEL_INFO("string_scan", "while (*p) p++ over a 512 KiB string (byte-at-a-time scan)")
#define N (512L << 10)
static char *buf;
long kernel_setup(void) {
    buf = bench_alloc(N + 1);
    for (long i = 0; i < N; i++) buf[i] = 'a' + (char)(bench_rand() % 26);
    buf[N] = 0;
    return N;
}
NOINLINE void kernel(void) {
    const char *p = buf;
    while (*p) p++;
    sink_l = p - buf;
}
