/* Indirect calls through a table of 4 functions, targets in the repeating order 0,1,2,3 (predictable). */
#define SELECT (i & 3)
#define NAME "indirect_call_pattern"
#define DESC "s += fn[sel[i]](i), 4 targets in a period-4 pattern (predictable indirect call)"
#include "indirect_call.h"
