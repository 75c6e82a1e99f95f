/* Scalar FP sum with 4 accumulators (4 elements per iteration), not vectorised. */
/* CFLAGS: -fno-tree-vectorize -fno-tree-slp-vectorize */
#include "kernel.h"
KERNEL_INFO("reduce_scalar_4acc", "4 scalar double accumulators, 4 elements per iteration, 16 KiB x 512")
#define N 2048
#define R 512
static double *a;
long kernel_setup(void) {
    a = bench_alloc(N * sizeof(double));
    for (int i = 0; i < N; i++) a[i] = 1.0 / (i + 1);
    return (long)N / 4 * R;
}
NOINLINE void kernel(void) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i += 4) { s0 += a[i]; s1 += a[i + 1]; s2 += a[i + 2]; s3 += a[i + 3]; }
    sink_d = s0 + s1 + s2 + s3;
}
