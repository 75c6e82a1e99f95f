/* Vector FP sum with 8 ymm accumulators (32 doubles per iteration): load / FP-add throughput. */
#include "kernel.h"
KERNEL_INFO("reduce_vec_8acc", "8 ymm accumulators, 32 doubles per iteration (load/add throughput), 16 KiB x 2048")
typedef double v4d __attribute__((vector_size(32)));
#define N 2048
#define R 2048
static v4d *a;
long kernel_setup(void) {
    a = bench_alloc(N * sizeof(double));
    double *d = (double *)a;
    for (int i = 0; i < N; i++) d[i] = 1.0 / (i + 1);
    return (long)N / 32 * R;
}
NOINLINE void kernel(void) {
    v4d s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0}, s5 = {0}, s6 = {0}, s7 = {0};
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N / 4; i += 8) {
            s0 += a[i]; s1 += a[i + 1]; s2 += a[i + 2]; s3 += a[i + 3];
            s4 += a[i + 4]; s5 += a[i + 5]; s6 += a[i + 6]; s7 += a[i + 7];
        }
    v4d s = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
    sink_d = s[0] + s[1] + s[2] + s[3];
}
