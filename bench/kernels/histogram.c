/* Byte histogram: h[d[i]]++ over 256 KiB of random bytes, 256 32-bit bins (read-modify-write through memory). */
#include "kernel.h"
KERNEL_INFO("histogram", "h[d[i]]++ over 256 Ki random bytes, 256 bins (memory read-modify-write)")
#define N (256L * 1024)
static unsigned char *d;
static unsigned int h[256];
long kernel_setup(void) {
    d = bench_alloc(N);
    for (long i = 0; i < N; i++) d[i] = (unsigned char)(bench_rand() >> 56);
    return N;
}
NOINLINE void kernel(void) {
    for (long i = 0; i < N; i++) h[d[i]]++;
}
