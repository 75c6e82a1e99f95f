/* Inclusive prefix sum of 64-bit integers, 64 Ki elements (2 x 512 KiB, L2), 4 passes. */
#include "kernel.h"
KERNEL_INFO("prefix_sum", "out[i] = s += in[i], int64, 64 Ki elements (2 x 512 KiB), 4 passes")
#define N (64L * 1024)
#define R 4
static long *in, *out;
long kernel_setup(void) {
    in = bench_alloc(N * sizeof(long));
    out = bench_alloc(N * sizeof(long));
    for (long i = 0; i < N; i++) in[i] = (long)(bench_rand() & 0xffff);
    return N * R;
}
NOINLINE void kernel(void) {
    long *restrict o = out;
    const long *restrict v = in;
    for (int r = 0; r < R; r++) {
        long s = r;
        for (long i = 0; i < N; i++) { s += v[i]; o[i] = s; }
    }
}
