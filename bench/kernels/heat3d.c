/* 3-D heat equation, explicit 7-point stencil, 40^3 doubles (2 x 500 KiB), 8 steps per call. */
#include "kernel.h"
KERNEL_INFO("heat3d", "u' = u + r*(6-neighbour sum - 6u), 40^3 doubles (2 x 500 KiB), 8 steps, AVX2")
#define N 40
#define T 8
static double U0[N][N][N], U1[N][N][N];
long kernel_setup(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++) U0[i][j][k] = U1[i][j][k] = ((i + 2 * j + 3 * k) % 10) * 0.1;
    return (long)(N - 2) * (N - 2) * (N - 2) * T;
}
static void step(double (*restrict b)[N][N], double (*restrict a)[N][N]) {
    const double r = 0.1;
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            for (int k = 1; k < N - 1; k++)
                b[i][j][k] = a[i][j][k] + r * (a[i - 1][j][k] + a[i + 1][j][k] + a[i][j - 1][k] + a[i][j + 1][k] +
                                               a[i][j][k - 1] + a[i][j][k + 1] - 6.0 * a[i][j][k]);
}
NOINLINE void kernel(void) {
    double (*a)[N][N] = U0, (*b)[N][N] = U1;
    for (int t = 0; t < T; t++) { step(b, a); double (*s)[N][N] = a; a = b; b = s; } /* one copy of the loop */
}
