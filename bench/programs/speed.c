/* Benchmark program for end-to-end simulation speed: a mix of loads, stores,
 * integer and FP arithmetic and data-dependent branches (~60 M instructions). */
#include <stdio.h>
#include <stdlib.h>
#define N 4096
static double x[N], y[N];
static int idx[N];
int main(void) {
    for (int i = 0; i < N; i++) { x[i] = i * 0.5; y[i] = N - i; idx[i] = (i * 2654435761u) % N; }
    double s = 0; long c = 0;
    for (int r = 0; r < 1000; r++)
        for (int i = 0; i < N; i++) {
            double v = x[idx[i]] * 1.0001 + y[i];
            if (v > 2000.0) c++;
            y[i] = v * 0.5;
            s += v;
        }
    printf("%f %ld\n", s, c);
    return 0;
}
