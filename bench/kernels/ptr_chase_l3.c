/* Pointer chasing in 8MiB (L3): random cycle of 64-byte nodes. */
#define NAME "ptr_chase_l3"
#define DESC "p = p->next over a random cycle of 64-byte nodes in 8MiB (L3 latency), 393216 steps"
#define NODES 131072
#define STEPS 393216
#include "ptr_chase.h"
