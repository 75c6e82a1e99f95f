/* Store-to-load forwarding chain: a volatile global read, incremented and written back each iteration. */
#include "kernel.h"
KERNEL_INFO("store_forward", "cell = cell + i on a volatile global: load-add-store chain through memory (store forwarding latency)")
#define N 250000
static volatile long cell;
long kernel_setup(void) { return N; }
NOINLINE void kernel(void) {
    for (long i = 0; i < N; i++) cell = cell + i;
}
