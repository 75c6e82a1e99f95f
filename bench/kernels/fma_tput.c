/* FMA throughput: 10 independent ymm FMA chains (Zen 4: 2 FMA pipes x 4-cycle latency needs >= 8). */
#include "kernel.h"
KERNEL_INFO("fma_tput", "10 independent ymm FMA accumulators: FMA throughput (10 FMAs per iteration)")
typedef double v4d __attribute__((vector_size(32)));
#define N 100000
long kernel_setup(void) { return N; }
NOINLINE void kernel(void) {
    v4d m = {0.999, 0.998, 0.997, 0.996}, c = {1e-3, 2e-3, 3e-3, 4e-3};
    v4d a0 = m, a1 = m + 1, a2 = m + 2, a3 = m + 3, a4 = m + 4, a5 = m + 5, a6 = m + 6, a7 = m + 7, a8 = m + 8, a9 = m + 9;
    for (long i = 0; i < N; i++) {
        __asm__("" : "+x"(m), "+x"(c)); /* keep the multiplier in a register, no hoisting tricks */
        a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c; a4 = a4 * m + c;
        a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c; a8 = a8 * m + c; a9 = a9 * m + c;
    }
    v4d s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;
    sink_d = s[0] + s[1] + s[2] + s[3];
}
