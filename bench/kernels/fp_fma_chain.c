/* FP latency chain: x = x * a + b contracted to one FMA per iteration (4 cycles). */
/* CFLAGS: -ffp-contract=fast */
#include "kernel.h"
KERNEL_INFO("fp_fma_chain", "x = x*a + b: dependent scalar FMA chain (FP latency)")
#define N 500000
long kernel_setup(void) { sink_d = 0.5; return N; }
NOINLINE void kernel(void) {
    double x = sink_d, a = 0.999999, b = 1e-7;
    for (long i = 0; i < N; i++) x = x * a + b;
    sink_d = x;
}
