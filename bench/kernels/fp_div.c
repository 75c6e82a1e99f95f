/* Vectorised FP divides a[i] = b[i] / c[i] (vdivpd ymm throughput), L1-resident. */
#include "kernel.h"
KERNEL_INFO("fp_div", "a[i] = b[i] / c[i]: vdivpd ymm throughput, 3 x 8 KiB, 1024 sweeps")
#define N 1024
#define R 1024
static double *a, *b, *c;
long kernel_setup(void) {
    a = bench_alloc(N * sizeof(double));
    b = bench_alloc(N * sizeof(double));
    c = bench_alloc(N * sizeof(double));
    for (int i = 0; i < N; i++) { b[i] = i + 1.5; c[i] = 1.0 + (bench_rand() & 1023); }
    return (long)N * R;
}
NOINLINE void kernel(void) {
    double *restrict x = a;
    const double *restrict y = b, *restrict z = c;
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++) x[i] = y[i] / z[i];
}
