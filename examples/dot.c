/* The README's quick start: a program that spends its time in a dot product
   whose sum is one dependency chain (each addition waits for the one before).

     gcc -O2 -g -o dot examples/dot.c
     bottlenose run -- ./dot             # the slow version
     bottlenose run -- ./dot 200 split   # four independent sums: the fix */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

/* noipa: gcc would otherwise see that dot() is pure and call it once */
__attribute__((noipa)) void fill(double *a, double *b, int n) {
    for (int i = 0; i < n; i++) {
        a[i] = i * 0.5;
        b[i] = 1.0 / (i + 1);
    }
}

__attribute__((noipa)) double dot(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* the same sum in four independent chains, added at the end */
__attribute__((noipa)) double dot_split(const double *a, const double *b, int n) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; i++)
        s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

int main(int argc, char **argv) {
    int repeat = argc > 1 ? atoi(argv[1]) : 200;
    int split = argc > 2 && strcmp(argv[2], "split") == 0;
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    if (!a || !b || repeat < 0) {
        fprintf(stderr, "usage: dot [REPEAT] [split]\n");
        return 1;
    }
    fill(a, b, N);
    double total = 0;
    for (int r = 0; r < repeat; r++)
        total += split ? dot_split(a, b, N) : dot(a, b, N);
    printf("%.1f\n", total);
    return 0;
}
