/* Serialized time-stamp counter reads around a timed region, shared by the kernel
 * harness and bench/microbench: lfence keeps earlier work out of the start, rdtscp
 * waits for the region to finish, the last lfence keeps later work out. */
#ifndef BENCH_TSC_H
#define BENCH_TSC_H
#include <stdint.h>

static inline uint64_t tsc_begin(void) {
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t tsc_end(void) {
    uint32_t lo, hi, aux;
    __asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}
#endif
