/* Shared body of the ptr_chase_* kernels: a random cyclic permutation of 64-byte
 * nodes (one per cache line) over NODES nodes; each call follows STEPS links,
 * continuing where the previous call stopped. Define NODES, STEPS, NAME, DESC first. */
#include "kernel.h"
KERNEL_INFO(NAME, DESC)
struct node { struct node *next; long pad[7]; };
static struct node *nodes, *cur;
long kernel_setup(void) {
    nodes = bench_alloc((size_t)NODES * sizeof(struct node));
    uint32_t *perm = bench_alloc((size_t)NODES * sizeof(uint32_t));
    bench_cycle(perm, NODES);
    for (long i = 0; i < NODES; i++) nodes[i].next = &nodes[perm[i]];
    cur = &nodes[0];
    return STEPS;
}
NOINLINE void kernel(void) {
    struct node *q = cur;
    for (long i = 0; i < STEPS; i++) q = q->next;
    cur = q;
}
