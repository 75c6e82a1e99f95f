/* Common driver of the bench/kernels/ kernels: native timing with rdtsc, calibrated
 * to core cycles by a chain of dependent adds, and the entry points used by the
 * model runs (see README.md in this folder).
 *
 *   PROG measure [--reps-max N] [--reps-min N] [--time SECONDS] [--warmup SECONDS] [--cpu N]
 *        native measurement, prints one JSON object
 *   PROG model [WARMUP_CALLS]
 *        setup, WARMUP_CALLS calls (default 1), then ONE call between the ROI markers
 *        xchg rbx,rbx / xchg rcx,rcx (for `bottlenose run --roi markers --warm`)
 *   PROG calls N
 *        setup, then N calls (for `bottlenose run --roi function:kernel`)
 *   PROG info
 *        name, description and iterations per call as JSON
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "kernel.h"
#include "tsc.h"

volatile double sink_d;
volatile long sink_l;

void *bench_alloc(size_t bytes) {
    size_t sz = (bytes + 4095) & ~(size_t)4095;
    void *p = aligned_alloc(4096, sz ? sz : 4096);
    if (!p) { fprintf(stderr, "out of memory (%zu bytes)\n", bytes); exit(1); }
    memset(p, 0, sz);
    return p;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
uint64_t bench_rand(void) {
    uint64_t x = rng_state;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

void bench_cycle(uint32_t *perm, size_t n) {
    for (size_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) {          /* Sattolo: one cycle through all n */
        size_t j = bench_rand() % i;
        uint32_t t = perm[i]; perm[i] = perm[j]; perm[j] = t;
    }
    /* perm is now a cyclic permutation: successor(i) = perm[i] */
}


/* n * 200 dependent adds: 1 core cycle each on every x86 core of the last 20 years. */
#define CHAIN_PER_ITER 200
static uint64_t add_chain_ticks(long n) {
    long x = 0;
    uint64_t t0 = tsc_begin();
    __asm__ volatile(
        "1:\n\t"
        ".rept 200\n\t"
        "add $1, %0\n\t"
        ".endr\n\t"
        "dec %1\n\t"
        "jnz 1b"
        : "+r"(x), "+r"(n) :: "cc");
    uint64_t t1 = tsc_end();
    sink_l = x;
    return t1 - t0;
}

/* TSC ticks per core cycle. Short chains (200 K and 600 K adds, ~55 and ~165 us) so
 * that the minimum over many rounds is free of interrupts (a timer interrupt under KVM
 * costs microseconds); the difference of the two minima cancels the fixed cost of
 * the rdtsc pair and of the chain's start and end. The median (of the long chain
 * alone) is reported to show the noise. */
static double calibrate(int rounds, double *median_out) {
    const long n1 = 1000, n2 = 3000;
    double r[512];
    uint64_t m1 = UINT64_MAX, m2 = UINT64_MAX;
    if (rounds > 512) rounds = 512;
    add_chain_ticks(20000); /* ~1 ms: wake the clock up */
    for (int i = 0; i < rounds; i++) {
        uint64_t a = add_chain_ticks(n1), b = add_chain_ticks(n2);
        if (a < m1) m1 = a;
        if (b < m2) m2 = b;
        r[i] = (double)b / ((double)n2 * CHAIN_PER_ITER);
    }
    for (int i = 1; i < rounds; i++)
        for (int j = i; j > 0 && r[j] < r[j - 1]; j--) { double t = r[j]; r[j] = r[j - 1]; r[j - 1] = t; }
    if (median_out) *median_out = r[rounds / 2];
    return (double)(m2 - m1) / ((double)(n2 - n1) * CHAIN_PER_ITER);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int pin(int cpu) {
    cpu_set_t set;
    if (cpu < 0) {
        if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
        for (int c = CPU_SETSIZE - 1; c >= 0; c--)
            if (CPU_ISSET(c, &set)) { cpu = c; break; }
        if (cpu < 0) return -1;
    }
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

static void json_str(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
        else putchar(*s);
    }
    putchar('"');
}

static int measure(int argc, char **argv) {
    int reps_min = 5, reps_max = 200, cpu = -1;
    double time_budget = 0.5, warm_budget = 0.1;
    const char *env = getenv("BENCH_CPU");
    if (env) cpu = atoi(env);
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--reps-min") && i + 1 < argc) reps_min = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps-max") && i + 1 < argc) reps_max = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--time") && i + 1 < argc) time_budget = atof(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warm_budget = atof(argv[++i]);
        else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) cpu = atoi(argv[++i]);
        else { fprintf(stderr, "measure: unknown option %s\n", argv[i]); return 2; }
    }
    if (reps_max > 10000) reps_max = 10000;
    if (reps_min < 1) reps_min = 1;
    if (reps_max < reps_min) reps_max = reps_min;
    int pinned = pin(cpu);

    double cal_med_before, cal_med_after;
    double cal_before = calibrate(101, &cal_med_before);
    long iters = kernel_setup();

    /* warm-up: caches, TLBs, predictors, page faults, clock */
    int warm_calls = 0;
    double t0 = now_s();
    do { kernel(); warm_calls++; } while (warm_calls < 2 || now_s() - t0 < warm_budget);

    uint64_t *ticks = malloc(sizeof(uint64_t) * reps_max);
    int reps = 0;
    uint64_t tt0 = tsc_begin();
    double w0 = now_s();
    while (reps < reps_max) {
        uint64_t a = tsc_begin();
        kernel();
        uint64_t b = tsc_end();
        ticks[reps++] = b - a;
        double el = now_s() - w0;
        if (reps >= reps_min && el >= time_budget) break;
        if (reps >= 3 && el >= 10 * time_budget) break; /* very slow kernel */
    }
    uint64_t tt1 = tsc_end();
    double wall = now_s() - w0;
    double cal_after = calibrate(101, &cal_med_after);
    double ratio = cal_before < cal_after ? cal_before : cal_after;

    /* empty-region overhead of the timing itself */
    uint64_t ovh = UINT64_MAX;
    for (int i = 0; i < 101; i++) {
        uint64_t a = tsc_begin(), b = tsc_end();
        if (b - a < ovh) ovh = b - a;
    }

    qsort(ticks, reps, sizeof ticks[0], cmp_u64);
    double tmin = (double)ticks[0], tmed = reps % 2 ? (double)ticks[reps / 2] : 0.5 * (ticks[reps / 2 - 1] + ticks[reps / 2]);
    double tmax = (double)ticks[reps - 1];
    double tsc_hz = (double)(tt1 - tt0) / wall;

    printf("{\"kernel\": ");
    json_str(kernel_name);
    printf(", \"description\": ");
    json_str(kernel_desc);
    printf(", \"iterations_per_call\": %ld, \"reps\": %d, \"warmup_calls\": %d, \"cpu\": %d,\n", iters, reps, warm_calls, pinned);
    printf(" \"tsc_per_cycle\": %.6f, \"tsc_per_cycle_before\": %.6f, \"tsc_per_cycle_after\": %.6f,"
           " \"tsc_per_cycle_median_before\": %.6f, \"tsc_per_cycle_median_after\": %.6f,\n",
           ratio, cal_before, cal_after, cal_med_before, cal_med_after);
    printf(" \"tsc_hz\": %.0f, \"core_hz_estimate\": %.0f, \"timer_overhead_ticks\": %llu,\n", tsc_hz, tsc_hz / ratio,
           (unsigned long long)ovh);
    printf(" \"ticks_per_call\": {\"min\": %.0f, \"median\": %.0f, \"max\": %.0f},\n", tmin, tmed, tmax);
    printf(" \"cycles_per_call\": {\"min\": %.1f, \"median\": %.1f, \"max\": %.1f},\n", tmin / ratio, tmed / ratio, tmax / ratio);
    printf(" \"cycles_per_iteration\": {\"min\": %.4f, \"median\": %.4f},\n", tmin / ratio / iters, tmed / ratio / iters);
    printf(" \"spread\": %.4f, \"wall_s\": %.3f}\n", tmed / tmin - 1.0, wall);
    free(ticks);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "measure";
    if (!strcmp(mode, "measure")) return measure(argc - 2, argv + 2);
    if (!strcmp(mode, "model")) {
        int warm = argc > 2 ? atoi(argv[2]) : 1;
        long iters = kernel_setup();
        for (int i = 0; i < warm; i++) kernel();
        __asm__ volatile(".byte 0x48, 0x87, 0xdb" ::: "memory"); /* xchg rbx,rbx: ROI begin */
        kernel();
        __asm__ volatile(".byte 0x48, 0x87, 0xc9" ::: "memory"); /* xchg rcx,rcx: ROI end */
        fprintf(stderr, "%s: %d warm-up call(s) + 1 call in the ROI, %ld iterations per call\n", kernel_name, warm, iters);
        return 0;
    }
    if (!strcmp(mode, "calls")) {
        int n = argc > 2 ? atoi(argv[2]) : 1;
        long iters = kernel_setup();
        for (int i = 0; i < n; i++) kernel();
        fprintf(stderr, "%s: %d call(s), %ld iterations per call\n", kernel_name, n, iters);
        return 0;
    }
    if (!strcmp(mode, "info")) {
        long iters = kernel_setup();
        printf("{\"kernel\": ");
        json_str(kernel_name);
        printf(", \"description\": ");
        json_str(kernel_desc);
        printf(", \"iterations_per_call\": %ld}\n", iters);
        return 0;
    }
    fprintf(stderr, "usage: %s measure|model [W]|calls N|info\n", argv[0]);
    return 2;
}
