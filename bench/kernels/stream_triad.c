/* STREAM triad a[i] = b[i] + s * c[i] from DRAM: every call processes one 1 Mi-double
 * chunk (24 MiB of traffic) of three 32 MiB arrays, the next chunk on the next call
 * (a chunk was last touched 96 MiB of traffic ago, 3 x the L3). */
/* MODEL_WARMUP: 4 (bench/accuracy.py: 4 calls = one pass over the three arrays before the modelled call, so that the
 * caches hold earlier calls' lines, dirty where they were written, not setup's, as in the
 * native steady state) */
#include "kernel.h"
KERNEL_INFO("stream_triad", "a[i] = b[i] + s*c[i], 1 Mi-element chunk per call of 3 x 32 MiB arrays (DRAM bandwidth), AVX2 FMA")
#define N (4L << 20)
#define CHUNK (1L << 20)
static double *a, *b, *c;
static long off;
long kernel_setup(void) {
    a = bench_alloc(N * sizeof(double));
    b = bench_alloc(N * sizeof(double));
    c = bench_alloc(N * sizeof(double));
    for (long i = 0; i < N; i++) { b[i] = i; c[i] = 0.5 * i; }
    return CHUNK;
}
NOINLINE void kernel(void) {
    double *restrict x = a + off;
    const double *restrict y = b + off, *restrict z = c + off;
    const double s = 3.0;
    for (long i = 0; i < CHUNK; i++) x[i] = y[i] + s * z[i];
    off = (off + CHUNK) % N;
}
