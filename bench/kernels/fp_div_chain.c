/* Scalar FP divide latency chain: x = c / x. */
#include "kernel.h"
KERNEL_INFO("fp_div_chain", "x = c / x: dependent divsd chain (divide latency)")
#define N 400000
long kernel_setup(void) { sink_d = 1.5; return N; }
NOINLINE void kernel(void) {
    double x = sink_d;
    const double c = 2.0000001;
    for (long i = 0; i < N; i++) x = c / x;
    sink_d = x;
}
