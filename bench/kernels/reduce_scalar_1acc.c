/* Scalar FP sum, one accumulator (no reassociation: one addsd chain). L1-resident. */
#include "kernel.h"
KERNEL_INFO("reduce_scalar_1acc", "s += a[i], scalar double, one accumulator (FP add latency), 16 KiB x 512")
#define N 2048
#define R 512
static double *a;
long kernel_setup(void) {
    a = bench_alloc(N * sizeof(double));
    for (int i = 0; i < N; i++) a[i] = 1.0 / (i + 1);
    return (long)N * R;
}
NOINLINE void kernel(void) {
    double s = 0;
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i++) s += a[i];
    sink_d = s;
}
