/* A pointer chase over a multi-MiB working set: `chase BYTES STEPS` follows STEPS links of
 * one random cycle through BYTES of pointers (default 4 MiB, 50 000 steps). Caches and
 * TLBs need the whole working set loaded to be warm: the case that needs long warming. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void *chase(void **p, long n) {
    while (n--) p = (void **)*p;
    return p;
}

int main(int argc, char **argv) {
    long n = (argc > 1 ? atol(argv[1]) : 4 << 20) / (long)sizeof(void *);
    long steps = argc > 2 ? atol(argv[2]) : 50000;
    void **a = malloc(n * sizeof(void *));
    long *order = malloc(n * sizeof(long));
    for (long i = 0; i < n; i++) order[i] = i;
    srand(7);
    for (long i = n - 1; i > 0; i--) {
        long j = rand() % (i + 1);
        long t = order[i]; order[i] = order[j]; order[j] = t;
    }
    for (long i = 0; i < n; i++) a[order[i]] = &a[order[(i + 1) % n]];
    printf("%p\n", chase(a, steps));
    return 0;
}
