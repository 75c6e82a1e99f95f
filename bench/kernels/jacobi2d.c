/* 2-D Jacobi (5-point), 160 x 160 doubles (2 x 200 KiB, L2), 20 sweeps per call. */
#include "kernel.h"
KERNEL_INFO("jacobi2d", "5-point Jacobi on 160x160 doubles (2 x 200 KiB), 20 sweeps, AVX2")
#define N 160
#define T 20
static double G0[N][N], G1[N][N];
long kernel_setup(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) G0[i][j] = G1[i][j] = ((i * 31 + j * 17) % 100) * 0.01;
    return (long)(N - 2) * (N - 2) * T;
}
static void sweep(double (*restrict b)[N], double (*restrict a)[N]) {
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            b[i][j] = 0.2 * (a[i][j] + a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
}
NOINLINE void kernel(void) {
    double (*a)[N] = G0, (*b)[N] = G1;
    for (int t = 0; t < T; t++) { sweep(b, a); double (*s)[N] = a; a = b; b = s; } /* one copy of the loop */
}
