/* A long program for fast-forward (issue 19): about 10^10 instructions at the default
 * scale (a few seconds natively), in phases that differ in CPI: an integer hash loop,
 * a floating-point stencil, a pointer chase over 8 MiB (cache and TLB misses) and
 * data-dependent branches; the phases repeat in rounds. `long N` runs N rounds
 * (default 15; each round is about 6.7 * 10^8 instructions under QEMU). */
#include <stdio.h>
#include <stdlib.h>

#define FP_N 4096
#define CHASE_N (1 << 20) /* 8 MiB of 8-byte links */

static double a[FP_N], b[FP_N];
static long next_link[CHASE_N];

static unsigned long hash_phase(unsigned long h, long n) {
    for (long i = 0; i < n; i++) h = (h ^ (unsigned long)i) * 0x9e3779b97f4a7c15ul + (h >> 29);
    return h;
}

static double stencil_phase(long sweeps) {
    double s = 0;
    for (long r = 0; r < sweeps; r++) {
        for (int i = 1; i < FP_N - 1; i++) b[i] = 0.25 * (a[i - 1] + 2.0 * a[i] + a[i + 1]);
        for (int i = 1; i < FP_N - 1; i++) a[i] = b[i] + 1e-9;
        s += a[FP_N / 2];
    }
    return s;
}

static long chase_phase(long steps) {
    long p = 0;
    for (long i = 0; i < steps; i++) p = next_link[p];
    return p;
}

static long branch_phase(unsigned long seed, long n) {
    long c = 0;
    for (long i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        if ((seed >> 33) & 1) c += 3; else c -= 1;
        if ((seed >> 40) % 3 == 0) c ^= i;
    }
    return c;
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 15;
    for (int i = 0; i < FP_N; i++) a[i] = i % 17;
    /* one random cycle through every link (Sattolo), seeded: the same walk every run */
    unsigned long s = 12345;
    for (long i = 0; i < CHASE_N; i++) next_link[i] = i;
    for (long i = CHASE_N - 1; i > 0; i--) {
        s = s * 6364136223846793005ul + 1442695040888963407ul;
        long j = (long)((s >> 17) % (unsigned long)i);
        long t = next_link[i]; next_link[i] = next_link[j]; next_link[j] = t;
    }
    unsigned long h = 1;
    double f = 0;
    long c = 0;
    for (long r = 0; r < rounds; r++) {
        h = hash_phase(h, 40000000);
        f += stencil_phase(2000);
        c += chase_phase(1000000);
        c += branch_phase(h, 15000000);
    }
    printf("%lx %f %ld\n", h, f, c);
    return 0;
}
