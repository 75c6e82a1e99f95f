/* Matrix multiply, ijk order (inner loop: dot product with a strided column of B), scalar;
 * gcc -mtune=znver3 keeps the loop-carried sum as vmulsd + vaddsd (it avoids FMA chains). */
/* CFLAGS: -fno-loop-interchange -fno-loop-unroll-and-jam -fno-tree-vectorize */
#include "kernel.h"
KERNEL_INFO("matmul_ijk", "C += A*B, 64x64 doubles, ijk order: scalar mul+add chain (dot product) over a strided column of B")
#define N 64
static double A[N][N], B[N][N], Cm[N][N];
long kernel_setup(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) { A[i][j] = 1.0 / (i + j + 1); B[i][j] = (i - j) * 0.01; }
    return (long)N * N * N;
}
NOINLINE void kernel(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = Cm[i][j];
            for (int k = 0; k < N; k++) s += A[i][k] * B[k][j];
            Cm[i][j] = s;
        }
}
