/* AVX2 gathers: 4 x vgatherdpd per iteration from a 16 KiB table, random indices (L1). */
#include <immintrin.h>
#include "kernel.h"
KERNEL_INFO("gather", "acc_k += table[idx[i..i+3]]: 4 vgatherdpd ymm per iteration, random indices, L1")
#define T 2048
#define N 4096
#define R 256
static double *table;
static int *idx;
long kernel_setup(void) {
    table = bench_alloc(T * sizeof(double));
    idx = bench_alloc(N * sizeof(int));
    for (int i = 0; i < T; i++) table[i] = i * 0.25;
    for (int i = 0; i < N; i++) idx[i] = bench_rand() % T;
    return (long)N / 16 * R;
}
NOINLINE void kernel(void) {
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    for (int r = 0; r < R; r++)
        for (int i = 0; i < N; i += 16) {
            s0 = _mm256_add_pd(s0, _mm256_i32gather_pd(table, _mm_loadu_si128((const __m128i *)(idx + i)), 8));
            s1 = _mm256_add_pd(s1, _mm256_i32gather_pd(table, _mm_loadu_si128((const __m128i *)(idx + i + 4)), 8));
            s2 = _mm256_add_pd(s2, _mm256_i32gather_pd(table, _mm_loadu_si128((const __m128i *)(idx + i + 8)), 8));
            s3 = _mm256_add_pd(s3, _mm256_i32gather_pd(table, _mm_loadu_si128((const __m128i *)(idx + i + 12)), 8));
        }
    __m256d s = _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3));
    double d[4];
    _mm256_storeu_pd(d, s);
    sink_d = d[0] + d[1] + d[2] + d[3];
}
