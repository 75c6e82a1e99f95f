/* Streaming copy a[i] = b[i] from DRAM: every call copies one 8 MiB chunk (1 Mi doubles)
 * of two 64 MiB arrays, the next chunk on the next call, so a chunk was last touched
 * 128 MiB of traffic ago (4 x the 32 MiB L3): fixed work per call, DRAM bandwidth. */
/* CFLAGS: -fno-tree-loop-distribute-patterns */
/* MODEL_WARMUP: 8 (bench/accuracy.py: 8 calls = one pass over both arrays before the modelled call, so that the
 * caches hold earlier calls' lines, dirty where they were written, not setup's, as in the
 * native steady state) */
#include "kernel.h"
KERNEL_INFO("stream_copy", "a[i] = b[i], 8 MiB chunk per call of 2 x 64 MiB arrays (DRAM bandwidth), AVX2")
#define N (8L << 20)      /* doubles per array */
#define CHUNK (1L << 20)  /* doubles per call */
static double *a, *b;
static long off;
long kernel_setup(void) {
    a = bench_alloc(N * sizeof(double));
    b = bench_alloc(N * sizeof(double));
    for (long i = 0; i < N; i++) b[i] = (double)i;
    return CHUNK;
}
NOINLINE void kernel(void) {
    double *restrict x = a + off;
    const double *restrict y = b + off;
    for (long i = 0; i < CHUNK; i++) x[i] = y[i];
    off = (off + CHUNK) % N;
}
