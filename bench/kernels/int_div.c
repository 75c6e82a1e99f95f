/* Independent 64-bit unsigned divides (divider throughput), 4096-entry arrays (64 KiB) x 48. */
/* CFLAGS: -fno-tree-vectorize */
#include "kernel.h"
KERNEL_INFO("int_div", "s += a[i] / b[i]: independent 64-bit unsigned divides (divider throughput)")
#define N 4096
#define R 48
static unsigned long *a, *b;
long kernel_setup(void) {
    a = bench_alloc(N * sizeof *a);
    b = bench_alloc(N * sizeof *b);
    for (int i = 0; i < N; i++) { a[i] = bench_rand(); b[i] = (bench_rand() >> 44) | 1; }
    return (long)N * R;
}
NOINLINE void kernel(void) {
    unsigned long s = 0;
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++) s += (a[i] ^ r) / b[i]; /* ^ r: no hoisting out of the r loop */
    sink_l = s;
}
