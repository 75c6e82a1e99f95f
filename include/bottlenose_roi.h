/* Region-of-interest markers for `bottlenose run --roi markers`.
 *
 *   #include "bottlenose_roi.h"
 *   BOTTLENOSE_ROI_BEGIN();
 *   hot_loop();
 *   BOTTLENOSE_ROI_END();
 *
 * The markers are `xchg %rbx,%rbx` and `xchg %rcx,%rcx`: architectural no-ops
 * that compilers do not emit, so natively the program runs unchanged. Regions
 * may be entered several times; everything between a BEGIN and the next END is
 * simulated, the rest is fast-forwarded (or only warms caches and predictors
 * with --warm). */
#ifndef BOTTLENOSE_ROI_H
#define BOTTLENOSE_ROI_H
#define BOTTLENOSE_ROI_BEGIN() __asm__ __volatile__("xchg %%rbx, %%rbx" ::: "memory")
#define BOTTLENOSE_ROI_END() __asm__ __volatile__("xchg %%rcx, %%rcx" ::: "memory")
#endif
