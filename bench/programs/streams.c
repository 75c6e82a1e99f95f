/* Dynamic-run accuracy on this host: two DRAM streams timed natively.
 *   streams REPS   prints the best of REPS native timings of each kernel in
 *                  core cycles (the clock is measured with a chain of
 *                  dependent register-register adds, one per cycle; see
 *                  bench/harness/calib.h for why not `add $1`);
 *   streams 1      runs each kernel once (what `bottlenose run --roi
 *                  function:ikj|triad` times).
 * ikj: vector x matrix, rows of 2 KiB 16 KiB apart; triad: a = b + 3c over
 * three 32 MiB arrays (far beyond the caches). ikj starts with B evicted. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define N 2048
#define J 256
static double A[N], B[N][N], C[J];
__attribute__((noinline)) void ikj(void) { for (int k = 0; k < N; k++) { double a = A[k]; for (int j = 0; j < J; j++) C[j] += a * B[k][j]; } }
#define M (4 << 20)
__attribute__((noinline)) void triad(double *a, const double *b, const double *c, long n) { for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i]; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
/* cycles per second: 40 dependent adds per iteration run at one per cycle. The added
 * register comes from memory, so the renamer cannot fold the adds (as it does with
 * add-immediate chains on Golden Cove and later Intel cores). Best of 300 windows of
 * ~1 ms: while the other vCPU is busy, long windows all read up to 12 % slow. */
static volatile long operand = 0x9E3779B97F4A7C15l;
static double clock_hz(void) {
    double best = 0;
    for (int r = 0; r < 300; r++) {
        long n = 100000, x = 0, y = operand;
        double t0 = now();
        for (long i = 0; i < n; i++)
            __asm__ volatile(".rept 40\n add %1, %0\n .endr" : "+r"(x) : "r"(y));
        double hz = 40.0 * n / (now() - t0);
        if (hz > best) best = hz;
    }
    return best;
}
int main(int argc, char **argv) {
    for (int i = 0; i < N; i++) { A[i] = i; for (int j = 0; j < N; j++) B[i][j] = i - j; }
    double *a = malloc(M * 8), *b = malloc(M * 8), *c = malloc(M * 8);
    for (long i = 0; i < M; i++) { b[i] = i; c[i] = 2 * i; a[i] = 0; }
    int reps = argc > 1 ? atoi(argv[1]) : 1;
    double best1 = 1e9, best2 = 1e9;
    for (int r = 0; r < reps; r++) {
        for (long i = 0; i < M; i++) a[i] += 1.0; /* evicts B */
        double t0 = now(); ikj(); double t1 = now();
        if (t1 - t0 < best1) best1 = t1 - t0;
        t0 = now(); triad(a, b, c, M); t1 = now();
        if (t1 - t0 < best2) best2 = t1 - t0;
    }
    if (reps > 1) {
        double hz = clock_hz();
        printf("clock %.3f GHz\nikj %.0f\ntriad %.0f\n", hz / 1e9, best1 * hz, best2 * hz);
    }
    printf("%f %f\n", C[J / 3], a[M / 2]);
    return 0;
}
