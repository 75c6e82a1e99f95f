/* Vector FP sum, one ymm accumulator (vaddpd latency chain), L1-resident. */
#include "kernel.h"
KERNEL_INFO("reduce_vec_1acc", "acc += a[i..i+3], one ymm accumulator (vector add latency), 16 KiB x 512")
typedef double v4d __attribute__((vector_size(32)));
#define N 2048
#define R 512
static v4d *a;
long kernel_setup(void) {
    a = bench_alloc(N * sizeof(double));
    double *d = (double *)a;
    for (int i = 0; i < N; i++) d[i] = 1.0 / (i + 1);
    return (long)N / 4 * R;
}
NOINLINE void kernel(void) {
    v4d s = {0, 0, 0, 0};
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N / 4; i++) s += a[i];
    sink_d = s[0] + s[1] + s[2] + s[3];
}
