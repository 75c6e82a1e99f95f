/* 1-D Jacobi (3-point average), 2 x 64 KiB (L2), 64 sweeps per call. */
#include "kernel.h"
KERNEL_INFO("jacobi1d", "b[i] = (a[i-1]+a[i]+a[i+1])/3, 8192 doubles (2 x 64 KiB), 64 sweeps, AVX2")
#define N 8192
#define T 64
static double *A0, *A1;
long kernel_setup(void) {
    A0 = bench_alloc(N * sizeof(double));
    A1 = bench_alloc(N * sizeof(double));
    for (int i = 0; i < N; i++) A0[i] = A1[i] = (i * 7919) % 1000;
    return (long)(N - 2) * T;
}
static void sweep(double *restrict b, const double *restrict a) {
    for (int i = 1; i < N - 1; i++) b[i] = 0.3333333333333333 * (a[i - 1] + a[i] + a[i + 1]);
}
NOINLINE void kernel(void) {
    double *a = A0, *b = A1;
    for (int t = 0; t < T; t++) { sweep(b, a); double *s = a; a = b; b = s; } /* one copy of the loop */
}
