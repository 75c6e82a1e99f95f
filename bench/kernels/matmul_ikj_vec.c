/* Matrix multiply, ikj order (inner loop: C row += a * B row), vectorised by gcc -O3 (AVX2). */
/* CFLAGS: -fno-loop-interchange -fno-loop-unroll-and-jam */
#include "kernel.h"
KERNEL_INFO("matmul_ikj_vec", "C += A*B, 96x96 doubles, ikj order, vectorised (AVX2 FMA row update)")
#define N 96
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
