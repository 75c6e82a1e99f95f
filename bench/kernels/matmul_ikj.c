/* Matrix multiply, ikj order (inner loop: C row += a * B row), scalar. */
/* CFLAGS: -fno-loop-interchange -fno-loop-unroll-and-jam -fno-tree-vectorize -fno-tree-slp-vectorize */
#include "kernel.h"
KERNEL_INFO("matmul_ikj", "C += A*B, 64x64 doubles, ikj order: scalar row update (load, FMA, store)")
#define N 64
static double A[N][N], B[N][N], Cm[N][N];
long kernel_setup(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) { A[i][j] = 1.0 / (i + j + 1); B[i][j] = (i - j) * 0.01; }
    return (long)N * N * N;
}
NOINLINE void kernel(void) {
    for (int i = 0; i < N; i++)
        for (int k = 0; k < N; k++) {
            double a = A[i][k];
            for (int j = 0; j < N; j++) Cm[i][j] += a * B[k][j];
        }
}
