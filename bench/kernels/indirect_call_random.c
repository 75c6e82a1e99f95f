/* Indirect calls through a table of 4 functions, target chosen at random (ITTAGE cannot predict). */
#define SELECT (bench_rand() >> 62)
#define NAME "indirect_call_random"
#define DESC "s += fn[sel[i]](i), 4 targets chosen at random (unpredictable indirect call)"
#include "indirect_call.h"
