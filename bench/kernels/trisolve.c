/* Forward substitution L x = b, N = 1024 (L: 8 MiB, L3): inner loop is a dot product (FMA chain). */
#include "kernel.h"
KERNEL_INFO("trisolve", "forward substitution L x = b, 1024 x 1024 lower triangular (8 MiB): row dot products")
#define N 1024
static double *L, *x, *b;
long kernel_setup(void) {
    L = bench_alloc((size_t)N * N * sizeof(double));
    x = bench_alloc(N * sizeof(double));
    b = bench_alloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < i; j++) L[(size_t)i * N + j] = 1e-4 * ((i + j) % 7);
        L[(size_t)i * N + i] = 2.0;
        b[i] = 1.0;
    }
    return (long)N * (N - 1) / 2;
}
NOINLINE void kernel(void) {
    for (int i = 0; i < N; i++) {
        const double *row = L + (size_t)i * N;
        double s = b[i];
        for (int j = 0; j < i; j++) s -= row[j] * x[j];
        x[i] = s / row[i];
    }
}
