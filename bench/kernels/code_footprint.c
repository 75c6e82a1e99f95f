/* Large code footprint: a loop around ~112 KiB of straight-line code (1024 rounds of
 * 16 integer ops on 8 independent chains, distinct 32-bit immediates), larger than
 * the 32 KiB L1I and the op cache: instruction delivery comes from L2. */
#include "kernel.h"
KERNEL_INFO("code_footprint", "loop over ~112 KiB of straight-line integer code (16 Ki instructions; L1I/op-cache misses)")
#define R 64
#define C (__COUNTER__ * 0x10203u + 0x1000000u)
#define OP(x) x = (x ^ C) + C;
#define ROUND OP(x0) OP(x1) OP(x2) OP(x3) OP(x4) OP(x5) OP(x6) OP(x7)
#define R4 ROUND ROUND ROUND ROUND
#define R16 R4 R4 R4 R4
#define R64 R16 R16 R16 R16
#define R256 R64 R64 R64 R64
#define R1024 R256 R256 R256 R256
long kernel_setup(void) { return R; }
NOINLINE void kernel(void) {
    unsigned long x0 = 1, x1 = 2, x2 = 3, x3 = 4, x4 = 5, x5 = 6, x6 = 7, x7 = 8;
    for (int r = 0; r < R; r++) {
        R1024
        __asm__ volatile("" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4), "+r"(x5), "+r"(x6), "+r"(x7));
    }
    sink_l = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}
