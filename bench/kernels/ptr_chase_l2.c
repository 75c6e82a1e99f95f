/* Pointer chasing in 512KiB (L2): random cycle of 64-byte nodes. */
#define NAME "ptr_chase_l2"
#define DESC "p = p->next over a random cycle of 64-byte nodes in 512KiB (L2 latency), 409600 steps"
#define NODES 8192
#define STEPS 409600
#include "ptr_chase.h"
