/* One REP string instruction over SIZE bytes, executed REPS times per call: the kernel of
 * bench/strings.py (native cycles per instruction against `bottlenose run`).
 * Built by bench/strings/build.sh with -DOP_<op> -DSIZE=<bytes> -DNAME=<kernel name>:
 *   movsb, movsq   rep movs: SIZE bytes from src to dst
 *   stosb, stosq   rep stos: SIZE bytes of dst set
 *   cmpsb          repe cmpsb over two equal buffers (runs the whole length)
 *   scasb          repne scasb for a byte the buffer does not hold (runs the whole length)
 *   lodsb          rep lodsb (loads every byte into al)
 * SIZE may be 0 (the instruction runs with rcx = 0). With -DCHAIN, each iteration also runs a
 * chain of 40 dependent imuls (120 cycles) that does not depend on the string instruction:
 * how much of the string instruction the core overlaps with independent work.
 * Buffers are page-aligned (bench_alloc), so every operation starts on a line boundary.
 * REPS = 1 MiB / SIZE, at least 1 and at most 1000: every call is long enough to time. */
#include <string.h>
#include "kernel.h"
#ifndef SIZE
#error "SIZE (bytes) must be defined"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)
KERNEL_INFO(STR(NAME), "one REP string instruction over " STR(SIZE) " bytes, repeated per call")
#define REPS_RAW ((SIZE) == 0 ? 1000 : (1L << 20) / ((SIZE) + ((SIZE) == 0)))
#define REPS (REPS_RAW < 1 ? 1 : REPS_RAW > 1000 ? 1000 : REPS_RAW)
static unsigned char *src, *dst;

long kernel_setup(void) {
    src = bench_alloc(SIZE + 64);
    dst = bench_alloc(SIZE + 64);
    /* no byte is 0 (scasb looks for one) and the buffers are equal (cmpsb runs through);
     * memset/memcpy keep the set-up short under QEMU */
    memset(src, 0x5a, SIZE);
    memcpy(dst, src, SIZE);
    return REPS;
}

NOINLINE void kernel(void) {
    for (long r = 0; r < REPS; r++) {
        void *d = dst, *s = src;
        unsigned long n;
        (void)s; /* stos and scas take no source */
        (void)d; /* lods takes no destination */
#if defined(OP_movsb)
        n = SIZE;
        __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
#elif defined(OP_movsq)
        n = SIZE / 8;
        __asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
#elif defined(OP_stosb)
        n = SIZE;
        __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(r) : "memory");
#elif defined(OP_stosq)
        n = SIZE / 8;
        __asm__ volatile("rep stosq" : "+D"(d), "+c"(n) : "a"(r) : "memory");
#elif defined(OP_cmpsb)
        n = SIZE;
        __asm__ volatile("repe cmpsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory", "cc");
#elif defined(OP_scasb)
        n = SIZE;
        /* the buffers hold no 0 byte: it is never found */
        __asm__ volatile("repne scasb" : "+D"(d), "+c"(n) : "a"(0) : "memory", "cc");
#elif defined(OP_lodsb)
        n = SIZE;
        __asm__ volatile("rep lodsb" : "+S"(s), "+c"(n) : : "rax", "memory");
#else
#error "define one of OP_movsb OP_movsq OP_stosb OP_stosq OP_cmpsb OP_scasb OP_lodsb"
#endif
#ifdef CHAIN
#define IMUL "imul %%r8, %%r9\n\t"
#define IMUL8 IMUL IMUL IMUL IMUL IMUL IMUL IMUL IMUL
        __asm__ volatile(IMUL8 IMUL8 IMUL8 IMUL8 IMUL8 : : : "r8", "r9");
#endif
        sink_l = (long)n;
    }
}
