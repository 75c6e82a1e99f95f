/* Data-dependent branch on random bytes (50 % taken, unpredictable): a filter loop. */
/* CFLAGS: -fno-if-conversion -fno-if-conversion2 -fno-tree-vectorize */
#include "kernel.h"
KERNEL_INFO("branch_random", "if (d[i] < 128) out[c++] = i over 256 Ki random bytes (unpredictable branch)")
#define N (256L * 1024)
static unsigned char *d;
int out[4096]; /* global: the stores must stay */
long kernel_setup(void) {
    d = bench_alloc(N);
    for (long i = 0; i < N; i++) d[i] = (unsigned char)(bench_rand() >> 56);
    return N;
}
NOINLINE void kernel(void) {
    long c = 0;
    for (long i = 0; i < N; i++)
        if (d[i] < 128) out[c++ & 4095] = (int)i;
    sink_l = c;
}
