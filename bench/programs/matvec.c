/* Yasin Table 4 (bench/benchmarks.py, crates/cli/tests/views.rs): a matrix x vector
   product before and after loop interchange; `matvec 1` runs multiply1, `matvec 2` multiply2. */
#include <stdio.h>
#define N 2048
#define J 1024
static double A[J], B[N][N], C[N];
/* C = B A over the first J columns of B. multiply1 walks B by columns (16 KiB
   stride, every access a new line in a conflicting set); multiply2, the
   interchanged loops, walks it by rows (8 KiB of each: two pages the streamer
   follows) and sums each row in one accumulator */
__attribute__((noinline)) void multiply1(void) { for (int j = 0; j < J; j++) { double a = A[j]; for (int i = 0; i < N; i++) C[i] += B[i][j] * a; } }
__attribute__((noinline)) void multiply2(void) { for (int i = 0; i < N; i++) { double s = 0; for (int j = 0; j < J; j++) s += B[i][j] * A[j]; C[i] = s; } }
int main(int argc, char **argv) {
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) B[i][j] = i - j;
    for (int j = 0; j < J; j++) A[j] = j;
    if (argv[1][0] == '1') multiply1(); else multiply2();
    printf("%f\n", C[N / 3]);
    return 0;
}
