/* Common driver of the bench/kernels/ kernels: native timing with rdtsc, calibrated
 * to core cycles by dependent register-register add and imul chains (calib.h), and the
 * entry points used by the model runs (see README.md in this folder).
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
#include "calib.h"

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

/* The calibration before the warm-up and after the repetitions: both chains. */
struct full_cal { double add, imul, add_median, imul_median; };
static struct full_cal full_calibration(void) {
    struct full_cal c;
    calib_wake();
    c.add = calib_ratio(CALIB_ADD, 201, &c.add_median);
    c.imul = calib_ratio(CALIB_IMUL, 201, &c.imul_median);
    return c;
}

#define SEGMENT_S 0.025     /* re-calibrate after every 25 ms of timed calls */
#define SEGMENT_ROUNDS 15   /* add-chain rounds of a calibration between repetitions (~1 ms) */
#define FASTER_BY 0.005     /* ... whose ratio replaces the full ones if it is this much smaller */

static char warnings[8][256];
static int nwarnings;
#define WARN(...)                                                                          \
    do {                                                                                   \
        if (nwarnings < 8) snprintf(warnings[nwarnings++], sizeof warnings[0], __VA_ARGS__); \
    } while (0)

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

    struct full_cal before = full_calibration();
    long iters = kernel_setup();

    /* warm-up: caches, TLBs, predictors, page faults, clock */
    int warm_calls = 0;
    double t0 = now_s();
    do { kernel(); warm_calls++; } while (warm_calls < 2 || now_s() - t0 < warm_budget);

    /* Repetitions, with a short add-chain calibration after every ~25 ms of them: more
     * chances to catch the undisturbed clock, and a check that it did not move. */
    uint64_t *ticks = malloc(sizeof(uint64_t) * reps_max);
    double *seg_cal = malloc(sizeof(double) * (reps_max + 1));
    int reps = 0, nseg = 0;
    double cal_s = 0; /* time spent in those calibrations (not counted in the budget) */
    uint64_t tt0 = tsc_begin();
    double w0 = now_s();
    seg_cal[nseg++] = calib_ratio(CALIB_ADD, SEGMENT_ROUNDS, NULL);
    cal_s += now_s() - w0;
    double seg_t0 = now_s();
    for (;;) {
        uint64_t a = tsc_begin();
        kernel();
        uint64_t b = tsc_end();
        ticks[reps++] = b - a;
        double t = now_s(), el = t - w0 - cal_s;
        int done = reps >= reps_max || (reps >= reps_min && el >= time_budget) ||
                   (reps >= 3 && el >= 10 * time_budget); /* very slow kernel */
        if (done || t - seg_t0 >= SEGMENT_S) {
            seg_cal[nseg++] = calib_ratio(CALIB_ADD, SEGMENT_ROUNDS, NULL);
            seg_t0 = now_s();
            cal_s += seg_t0 - t;
        }
        if (done) break;
    }
    uint64_t tt1 = tsc_end();
    double wall = now_s() - w0;
    struct full_cal after = full_calibration();

    /* Ticks per cycle. Every calibration is an upper bound (a disturbance only makes a
     * chain slower), so the reference is the smallest of the four full ones, add or imul
     * (when the other vCPU is busy the add chain suffers more than the imul chain). The
     * short calibrations between repetitions replace it only when they show a clock faster
     * by more than FASTER_BY: the clock rose during the repetitions, and the fastest calls
     * most likely ran at that clock. Smaller differences are the TSC's granularity. */
    double add_min = before.add < after.add ? before.add : after.add;
    double imul_min = before.imul < after.imul ? before.imul : after.imul;
    double ref = add_min < imul_min ? add_min : imul_min;
    double seg_min = seg_cal[0], seg_max = seg_cal[0];
    for (int s = 0; s < nseg; s++) {
        if (seg_cal[s] < seg_min) seg_min = seg_cal[s];
        if (seg_cal[s] > seg_max) seg_max = seg_cal[s];
    }
    int clock_rose = seg_min < ref * (1.0 - FASTER_BY);
    double ratio = clock_rose ? seg_min : ref;

    /* empty-region overhead of the timing itself */
    uint64_t ovh = UINT64_MAX;
    for (int i = 0; i < 101; i++) {
        uint64_t a = tsc_begin(), b = tsc_end();
        if (b - a < ovh) ovh = b - a;
    }

    /* the cross-check: the smaller ratio of each chain's two full calibrations */
    double disagreement = calib_rel(add_min, imul_min);
    if (disagreement > CALIB_TOLERANCE)
        WARN("add and imul chains disagree by %.1f %% (ticks/cycle add %.5f / %.5f, imul %.5f / %.5f before / after): "
             "one chain does not run at its nominal latency on this core",
             100 * disagreement, before.add, after.add, before.imul, after.imul);
    if (calib_rel(before.add, after.add) > CALIB_TOLERANCE)
        WARN("core clock changed by %.1f %% between the calibrations before and after (ticks/cycle %.5f -> %.5f)",
             100 * calib_rel(before.add, after.add), before.add, after.add);
    else if (seg_min < ref * (1.0 - CALIB_TOLERANCE)) /* (short calibrations that read slow prove nothing: load) */
        WARN("core clock rose by %.1f %% during the repetitions (ticks/cycle %.5f between them, %.5f before / after)",
             100 * calib_rel(seg_min, ref), seg_min, ref);
    for (int i = 0; i < nwarnings; i++) fprintf(stderr, "%s: warning: %s\n", kernel_name, warnings[i]);

    qsort(ticks, reps, sizeof ticks[0], cmp_u64);
    double tmin = (double)ticks[0], tmed = reps % 2 ? (double)ticks[reps / 2] : 0.5 * (ticks[reps / 2 - 1] + ticks[reps / 2]);
    double tmax = (double)ticks[reps - 1];
    double cmin = tmin / ratio, cmed = tmed / ratio, cmax = tmax / ratio;
    double tsc_hz = (double)(tt1 - tt0) / wall;

    printf("{\"kernel\": ");
    json_str(kernel_name);
    printf(", \"description\": ");
    json_str(kernel_desc);
    printf(", \"iterations_per_call\": %ld, \"reps\": %d, \"warmup_calls\": %d, \"cpu\": %d,\n", iters, reps, warm_calls, pinned);
    printf(" \"tsc_per_cycle\": %.6f, \"tsc_per_cycle_before\": %.6f, \"tsc_per_cycle_after\": %.6f,"
           " \"tsc_per_cycle_median_before\": %.6f, \"tsc_per_cycle_median_after\": %.6f,\n",
           ratio, before.add, after.add, before.add_median, after.add_median);
    printf(" \"tsc_per_cycle_imul_before\": %.6f, \"tsc_per_cycle_imul_after\": %.6f,\n", before.imul, after.imul);
    printf(" \"tsc_per_cycle_add\": %.6f, \"tsc_per_cycle_imul\": %.6f, \"add_imul_disagreement\": %.5f,\n", add_min, imul_min,
           disagreement);
    printf(" \"tsc_per_cycle_between\": {\"n\": %d, \"min\": %.6f, \"max\": %.6f, \"used\": %s},\n", nseg, seg_min, seg_max,
           clock_rose ? "true" : "false");
    printf(" \"tsc_hz\": %.0f, \"core_hz_estimate\": %.0f, \"timer_overhead_ticks\": %llu,\n", tsc_hz, tsc_hz / ratio,
           (unsigned long long)ovh);
    printf(" \"ticks_per_call\": {\"min\": %.0f, \"median\": %.0f, \"max\": %.0f},\n", tmin, tmed, tmax);
    printf(" \"cycles_per_call\": {\"min\": %.1f, \"median\": %.1f, \"max\": %.1f},\n", cmin, cmed, cmax);
    printf(" \"cycles_per_iteration\": {\"min\": %.4f, \"median\": %.4f},\n", cmin / iters, cmed / iters);
    printf(" \"calibration_warnings\": [");
    for (int i = 0; i < nwarnings; i++) {
        if (i) printf(", ");
        json_str(warnings[i]);
    }
    printf("],\n \"spread\": %.4f, \"wall_s\": %.3f}\n", cmed / cmin - 1.0, wall);
    free(ticks);
    free(seg_cal);
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
