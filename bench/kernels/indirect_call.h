/* Shared body of the indirect_call_* kernels: s += fn[sel[i]](i) through a table of
 * four small functions, sel[] filled by SELECT (an expression of i). Define SELECT,
 * NAME, DESC first. */
#include "kernel.h"
KERNEL_INFO(NAME, DESC)
#define N (128L * 1024)
typedef long (*fn_t)(long);
static NOINLINE long f0(long x) { return x + 1; }
static NOINLINE long f1(long x) { return x * 3; }
static NOINLINE long f2(long x) { return x ^ 0x5555; }
static NOINLINE long f3(long x) { return (x >> 1) | 1; }
static fn_t fns[4] = {f0, f1, f2, f3};
static unsigned char *sel;
long kernel_setup(void) {
    sel = bench_alloc(N);
    for (long i = 0; i < N; i++) sel[i] = SELECT;
    return N;
}
NOINLINE void kernel(void) {
    long s = 0;
    for (long i = 0; i < N; i++) s += fns[sel[i]](i);
    sink_l = s;
}
