/* TSC ticks per core cycle, shared by the kernel harness (harness.c) and bench/microbench.
 *
 * Two dependent chains whose latency is the same on every x86-64 core of the last
 * fifteen years are timed with the TSC:
 *   - calib_add_ticks:  200 register-register adds per loop iteration, each adding a
 *     register whose value comes from memory (so the renamer cannot know it) to the
 *     chain register: 1 cycle each, 200 cycles per iteration;
 *   - calib_imul_ticks: 200 `imul r64, r64` per iteration: 3 cycles each, 600 cycles.
 * An add *immediate* chain (`add $1, %reg`) must not be used: Golden Cove and later
 * Intel cores fold small immediate adds into the register rename, several per cycle, so
 * such a chain takes a fraction of a cycle per add there and every cycle figure derived
 * from it comes out several times too large. The add and imul figures agree only if
 * neither chain is shortened in some such way; the callers report both and warn when
 * they do not.
 *
 * Each chain is timed at two lengths, n1 and n2 = 5 n1 iterations (40 K and 200 K
 * cycles), `rounds` times each; ticks per cycle = (min t(n2) - min t(n1)) / ((n2 - n1) *
 * cycles per iteration). The difference cancels the timer pair and the chain's ramp-up;
 * the minima drop the rounds that were slowed down. On this 2-vCPU VM the chains are slowed
 * by more than interrupts: while the other vCPU is busy, chains read up to ~1.5 % slow
 * for a while (the add chain more than the imul chain), so the callers calibrate several
 * times and keep the smallest ratio (a disturbance only ever makes a chain slower). The
 * difference of 160 K cycles keeps the TSC's granularity (26 ticks under KVM here) below
 * 0.02 %. See bench/harness/README.md, "Calibration".
 */
#ifndef BENCH_CALIB_H
#define BENCH_CALIB_H
#include <stdint.h>
#include "tsc.h"

/* the chains' operands: read from memory, so their values are unknown at rename */
static volatile long calib_operand[2] = {0x2545F4914F6CDD1Dl, 0x9E3779B97F4A7C15l};
static volatile long calib_sink;

#define CALIB_PER_ITER 200 /* chain instructions per loop iteration */

/* n iterations of 200 dependent reg-reg adds (1 cycle each) */
static inline uint64_t calib_add_ticks(long n) {
    long x = calib_operand[0], y = calib_operand[1], z = calib_operand[0] ^ 1;
    uint64_t t0 = tsc_begin();
    __asm__ volatile(
        "1:\n\t"
        ".rept 100\n\t"
        "add %2, %0\n\t"
        "add %3, %0\n\t"
        ".endr\n\t"
        "dec %1\n\t"
        "jnz 1b"
        : "+r"(x), "+r"(n)
        : "r"(y), "r"(z)
        : "cc");
    uint64_t t1 = tsc_end();
    calib_sink = x;
    return t1 - t0;
}

/* n iterations of 200 dependent 64-bit imuls (3 cycles each); both operands odd, so
 * the product never becomes 0 */
static inline uint64_t calib_imul_ticks(long n) {
    long x = calib_operand[0] | 1, y = calib_operand[1] | 1;
    uint64_t t0 = tsc_begin();
    __asm__ volatile(
        "1:\n\t"
        ".rept 200\n\t"
        "imul %2, %0\n\t"
        ".endr\n\t"
        "dec %1\n\t"
        "jnz 1b"
        : "+r"(x), "+r"(n)
        : "r"(y)
        : "cc");
    uint64_t t1 = tsc_end();
    calib_sink = x;
    return t1 - t0;
}

enum calib_chain { CALIB_ADD, CALIB_IMUL };

/* TSC ticks per core cycle from one chain: minima over `rounds` pairs of lengths.
 * *median_out (if not NULL) gets the median of the long chain's own ratio (noise). */
static double calib_ratio(enum calib_chain chain, int rounds, double *median_out) {
    if (rounds > 512) rounds = 512;
    if (rounds < 1) rounds = 1;
    /* 40 K and 200 K cycles (add), 42 K and 210 K cycles (imul): ~11 and ~55 us at 3.7 GHz */
    const long n1 = chain == CALIB_ADD ? 200 : 70, n2 = 5 * n1;
    const double cycles_per_iter = chain == CALIB_ADD ? CALIB_PER_ITER : 3.0 * CALIB_PER_ITER;
    uint64_t (*f)(long) = chain == CALIB_ADD ? calib_add_ticks : calib_imul_ticks;
    double r[512];
    uint64_t m1 = UINT64_MAX, m2 = UINT64_MAX;
    for (int i = 0; i < rounds; i++) {
        uint64_t a = f(n1), b = f(n2);
        if (a < m1) m1 = a;
        if (b < m2) m2 = b;
        r[i] = (double)b / ((double)n2 * cycles_per_iter);
    }
    if (median_out) {
        for (int i = 1; i < rounds; i++)
            for (int j = i; j > 0 && r[j] < r[j - 1]; j--) { double t = r[j]; r[j] = r[j - 1]; r[j - 1] = t; }
        *median_out = r[rounds / 2];
    }
    return (double)(m2 - m1) / ((double)(n2 - n1) * cycles_per_iter);
}

/* ~1 ms of chain: lets the clock ramp up before the first calibration */
static inline void calib_wake(void) { calib_add_ticks(20000); }

/* relative difference |a/b - 1| of two ratios */
static inline double calib_rel(double a, double b) { return a > b ? a / b - 1.0 : b / a - 1.0; }

#define CALIB_TOLERANCE 0.02 /* add vs imul, before vs after: warn beyond 2 % */
#endif
