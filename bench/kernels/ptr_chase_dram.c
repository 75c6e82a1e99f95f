/* Pointer chasing in 128MiB (DRAM): random cycle of 64-byte nodes. */
#define NAME "ptr_chase_dram"
#define DESC "p = p->next over a random cycle of 64-byte nodes in 128MiB (DRAM latency), 524288 steps"
#define NODES 2097152
#define STEPS 524288
#include "ptr_chase.h"
