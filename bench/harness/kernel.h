/* Interface between a benchmark kernel (bench/kernels/NAME.c) and the common
 * driver (bench/harness/harness.c).
 *
 * A kernel file defines
 *   KERNEL_INFO("name", "one-line description")
 *   long kernel_setup(void);   allocate and initialise data (not timed); returns
 *                              the number of iterations of the kernel's innermost
 *                              source loop body executed by ONE call of kernel()
 *   void kernel(void);         the timed work; every call does the same, fixed work
 *
 * kernel() lives in its own translation unit, so the driver's calls cannot be
 * optimised away; results go to globals (or to sink_d / sink_l).
 */
#ifndef BENCH_KERNEL_H
#define BENCH_KERNEL_H
#include <stddef.h>
#include <stdint.h>

extern const char kernel_name[];
extern const char kernel_desc[];
long kernel_setup(void);
void kernel(void);

#define KERNEL_INFO(n, d) const char kernel_name[] = n; const char kernel_desc[] = d;
#define NOINLINE __attribute__((noinline, noclone))

/* sinks for results */
extern volatile double sink_d;
extern volatile long sink_l;

/* page-aligned, zero-filled, touched memory (4 KiB pages: no huge-page advice) */
void *bench_alloc(size_t bytes);
/* deterministic xorshift64* generator (same sequence natively and under QEMU) */
uint64_t bench_rand(void);
/* random cyclic permutation (Sattolo) of n elements: perm[i] = successor of i */
void bench_cycle(uint32_t *perm, size_t n);

#endif
