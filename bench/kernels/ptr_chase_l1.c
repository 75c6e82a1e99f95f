/* Pointer chasing in 16KiB (L1): random cycle of 64-byte nodes. */
#define NAME "ptr_chase_l1"
#define DESC "p = p->next over a random cycle of 64-byte nodes in 16KiB (L1 latency), 524288 steps"
#define NODES 256
#define STEPS 524288
#include "ptr_chase.h"
