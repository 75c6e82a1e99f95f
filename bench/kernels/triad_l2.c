/* Triad on L2-resident arrays (3 x 64 KiB), repeated 128 times per call. */
#include "kernel.h"
KERNEL_INFO("triad_l2", "a[i] = b[i] + s*c[i], 3 x 64 KiB (L2 bandwidth), 128 sweeps, AVX2 FMA")
#define N 8192
#define R 128
static double *a, *b, *c;
long kernel_setup(void) {
    a = bench_alloc(N * sizeof(double));
    b = bench_alloc(N * sizeof(double));
    c = bench_alloc(N * sizeof(double));
    for (long i = 0; i < N; i++) { b[i] = i; c[i] = 0.5 * i; }
    return (long)N * R;
}
NOINLINE void kernel(void) {
    double *restrict x = a;
    const double *restrict y = b, *restrict z = c;
    for (int r = 0; r < R; r++) {
        const double s = 1.0 + r;
        for (long i = 0; i < N; i++) x[i] = y[i] + s * z[i];
    }
}
