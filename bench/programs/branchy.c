/* Two phases per round: a floating-point loop without branches, then a loop
 * with a branch on random data taken half the time (build with
 * -fno-if-conversion -fno-if-conversion2 so that it stays a branch).
 * branchy ROUNDS */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    int n = 50000;
    unsigned *a = malloc(n * sizeof *a);
    unsigned x = 12345;
    for (int i = 0; i < n; i++) { x = x * 1103515245u + 12345u; a[i] = x >> 16; }
    long c = 0; double s = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) s += i * 0.5;
        for (int i = 0; i < n; i++) if (a[i] & 1) c += a[i]; else c -= 3;
    }
    printf("%f %ld\n", s, c);
    return 0;
}
