/* Data-dependent branch on a period-8 pattern (5 of 8 taken, predictable): a filter loop. */
/* CFLAGS: -fno-if-conversion -fno-if-conversion2 -fno-tree-vectorize */
#include "kernel.h"
KERNEL_INFO("branch_predictable", "if (d[i] < 128) out[c++] = i over 256 Ki bytes in a period-8 pattern (predictable branch)")
#define N (256L * 1024)
static unsigned char *d;
int out[4096]; /* global: the stores must stay */
long kernel_setup(void) {
    d = bench_alloc(N);
    for (long i = 0; i < N; i++) d[i] = (i % 8) < 5 ? 10 : 200;
    return N;
}
NOINLINE void kernel(void) {
    long c = 0;
    for (long i = 0; i < N; i++)
        if (d[i] < 128) out[c++ & 4095] = (int)i;
    sink_l = c;
}
