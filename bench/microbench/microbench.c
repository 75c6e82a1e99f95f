/* Instruction latency / throughput microbenchmarks for the zen4 machine model.
 *
 * The loops are in kernels.S; this driver times them with the TSC, converts TSC ticks
 * to core cycles with the dependent register-register add chain of bench/harness/calib.h
 * (cross-checked with an imul chain; the method of bench/harness/), and prints the raw
 * results, a summary table (Markdown) and a TOML fragment for machines/zen4.toml.
 *
 *   microbench [--rounds N] [--target-ticks T] [--dump]   measure (report, or TSV with --dump)
 *   microbench --merge RUN.tsv...                          minimum per kernel over dumped runs, report
 *
 * Method (see README.md):
 *   - every kernel runs n iterations of an unrolled body holding `per_iter` instances of
 *     the thing measured; it is timed for n1 and n2 = 3*n1 iterations, and
 *     cycles/instance = (min ticks(n2) - min ticks(n1)) / ((n2-n1) * per_iter) / tsc_per_cycle.
 *     The difference cancels the call, the timer pair and the pipeline ramp;
 *   - tsc_per_cycle: from the add and imul chains of calib.h, before and after the rounds,
 *     with a short add-chain calibration after every round (see main);
 *   - minima over `rounds` rounds; the rounds go round-robin over all kernels, so that a
 *     disturbance (interrupt, vCPU preemption, clock dip) does not hit every repetition of
 *     one kernel;
 *   - n1 is chosen so that one timed call is ~20 us: short enough that most calls see
 *     no timer interrupt, long enough that the ~50-tick timer overhead is noise.
 * The process should be pinned to one CPU (run.sh uses taskset).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../harness/tsc.h"
#include "../harness/calib.h"

typedef void (*kernel_fn)(long n, void *buf);

#define KERNELS(X)                                                                       \
    X(gather_dd_y_lat, 8, 0, "vpgatherdd ymm chain (+ vpaddd ymm)")                       \
    X(gather_dd_y_tp, 24, 0, "vpgatherdd ymm independent (+ vpcmpeqd mask reset)")        \
    X(gather_dd_x_lat, 8, 0, "vpgatherdd xmm chain (+ vpaddd xmm)")                       \
    X(gather_dd_x_tp, 24, 0, "vpgatherdd xmm independent (+ vpcmpeqd)")                   \
    X(gather_dps_y_lat, 8, 0, "vgatherdps ymm chain (+ vpaddd ymm)")                      \
    X(gather_dps_y_tp, 24, 0, "vgatherdps ymm independent (+ vpcmpeqd)")                  \
    X(gather_qq_y_lat, 8, 0, "vpgatherqq ymm chain (+ vpaddq ymm)")                       \
    X(gather_qq_y_tp, 24, 0, "vpgatherqq ymm independent (+ vpcmpeqd)")                   \
    X(gather_dpd_y_lat, 8, 0, "vgatherdpd ymm chain (+ vpaddd xmm)")                      \
    X(gather_dpd_y_tp, 24, 0, "vgatherdpd ymm independent (+ vpcmpeqd)")                  \
    X(gather_dd_y_tp_mov, 24, 0, "vpgatherdd ymm independent, mask reset by vmovdqa")     \
    X(gather_dd_y_nop24, 24, 0, "vpgatherdd ymm + 24 nop (per gather)")                   \
    X(gather_dd_y_nop36, 24, 0, "vpgatherdd ymm + 36 nop (per gather)")                   \
    X(gather_dd_y_nop48, 24, 0, "vpgatherdd ymm + 48 nop (per gather)")                   \
    X(gather_dd_y_ldq8, 24, 0, "vpgatherdd ymm + 8 int loads (per gather)")               \
    X(gather_dd_y_ldq16, 24, 0, "vpgatherdd ymm + 16 int loads (per gather)")             \
    X(gather_dd_y_ldsd8, 24, 0, "vpgatherdd ymm + 8 vmovsd loads (per gather)")           \
    X(gather_dd_y_stq4, 24, 0, "vpgatherdd ymm + 4 int stores (per gather)")              \
    X(gather_dd_y_movq4, 24, 0, "vpgatherdd ymm + 4 vmovq r64,xmm (per gather)")          \
    X(gather_dd_y_vpadd16, 24, 0, "vpgatherdd ymm + 16 vpaddd ymm (per gather)")          \
    X(gather_dd_y_add16, 24, 0, "vpgatherdd ymm + 16 independent add r64 (per gather)")   \
    X(gather_dd_y_add32, 24, 0, "vpgatherdd ymm + 32 independent add r64 (per gather)")   \
    X(nop_tp, 48, 0, "nop alone (per nop)")                                               \
    X(add4_tp, 48, 0, "independent add r64 alone (per add)")                              \
    X(mask_reset_y_tp, 24, 0, "vpcmpeqd ymm,ymm,ymm alone (the AVX2 mask reset)")         \
    X(vpaddd_y_lat, 32, 0, "vpaddd ymm chain")                                            \
    X(gather_dd_z_lat, 8, 1, "vpgatherdd zmm chain (+ vpaddd zmm)")                       \
    X(gather_dd_z_tp, 24, 1, "vpgatherdd zmm independent (+ kxnorw mask reset)")          \
    X(gather_dps_z_lat, 8, 1, "vgatherdps zmm chain (+ vpaddd zmm)")                      \
    X(gather_dps_z_tp, 24, 1, "vgatherdps zmm independent (+ kxnorw)")                    \
    X(gather_qq_z_lat, 8, 1, "vpgatherqq zmm chain (+ vpaddq zmm)")                       \
    X(gather_qq_z_tp, 24, 1, "vpgatherqq zmm independent (+ kxnorw)")                     \
    X(gather_dpd_z_lat, 8, 1, "vgatherdpd zmm chain (+ vpaddd ymm)")                      \
    X(gather_dpd_z_tp, 24, 1, "vgatherdpd zmm independent (+ kxnorw)")                    \
    X(mask_reset_k_tp, 24, 1, "kxnorw k,k,k alone (the AVX-512 mask reset)")              \
    X(ld_int_base_lat, 32, 0, "mov rax,[rax] pointer chase")                              \
    X(ld_int_disp_lat, 32, 0, "mov rax,[rax+8] pointer chase")                            \
    X(ld_int_index_lat, 32, 0, "mov rax,[rax+rcx*8] pointer chase")                       \
    X(ld_fp_sd_lat, 32, 0, "vmovsd xmm0,[rax]; vmovq rax,xmm0")                           \
    X(ld_fp_ups_y_lat, 32, 0, "vmovups ymm0,[rax]; vmovq rax,xmm0")                       \
    X(ld_fp_sd_add_lat, 32, 0, "vmovsd xmm0,[rax]; vaddsd; vmovq rax,xmm0")               \
    X(gpr_xmm_roundtrip_lat, 32, 0, "vmovq xmm0,rax; vmovq rax,xmm0")                     \
    X(vaddsd_lat, 32, 0, "vaddsd chain")                                                  \
    X(mix_fp_l1s0, 48, 0, "vmovsd loads only (per load)")                                 \
    X(mix_fp_l0s1, 48, 0, "vmovsd stores only (per store)")                               \
    X(mix_fp_l1s1, 24, 0, "1 vmovsd load + 1 vmovsd store (per group)")                   \
    X(mix_fp_l2s1, 16, 0, "2 vmovsd loads + 1 vmovsd store (per group)")                  \
    X(mix_fp_l3s1, 12, 0, "3 vmovsd loads + 1 vmovsd store (per group)")                  \
    X(mix_fp_l2s2, 12, 0, "2 vmovsd loads + 2 vmovsd stores (per group)")                 \
    X(mix_int_l1s0, 48, 0, "mov r64 loads only (per load)")                               \
    X(mix_int_l1s0_s8, 48, 0, "mov r64 loads only, 8-byte stride (per load)")            \
    X(mix_int_l0s1, 48, 0, "mov r64 stores only (per store)")                             \
    X(mix_int_l1s1, 24, 0, "1 int load + 1 int store (per group)")                        \
    X(mix_int_l2s1, 16, 0, "2 int loads + 1 int store (per group)")                       \
    X(mix_int_l3s1, 12, 0, "3 int loads + 1 int store (per group)")                       \
    X(mix_int_l2s2, 12, 0, "2 int loads + 2 int stores (per group)")                      \
    X(mix_y_l1s0, 48, 0, "vmovups ymm loads only (per load)")                             \
    X(mix_y_l0s1, 48, 0, "vmovups ymm stores only (per store)")                           \
    X(mix_y_l2s1, 16, 0, "2 ymm loads + 1 ymm store (per group)")                         \
    X(mix_ysplit_l1s0, 48, 0, "vmovups ymm loads spanning two lines (per load)")          \
    X(mix_ysplit_l0s1, 48, 0, "vmovups ymm stores spanning two lines (per store)")        \
    X(mix_ysplit_l2s1, 16, 0, "2 line-split ymm loads + 1 line-split store (per group)")  \
    X(mix_ysplit_l1s1, 24, 0, "1 line-split ymm load + 1 line-split store (per group)")   \
    X(mix_fpint_l2s0, 24, 0, "1 vmovsd load + 1 int load (per group)")                    \
    X(mix_fpint_l2s1, 24, 0, "1 vmovsd load + 1 int load + 1 vmovsd store (per group)")   \
    X(loop_tight, 1, 0, "empty loop: dec/jnz (per taken branch)")                         \
    X(jmp_chain64, 65, 0, "jmp to next 64 B block, 64 blocks (per taken branch)")         \
    X(jmp_chain64_256, 257, 0, "jmp to next 64 B block, 256 blocks (per taken branch)")   \
    X(jmp_chain16, 65, 0, "jmp to next 16 B block (per taken branch)")                    \
    X(jmp_chain2, 65, 0, "jmp to the next instruction (per taken branch)")                \
    X(jcc_chain64, 65, 0, "taken jnz to next 64 B block (per taken branch)")              \
    X(call_ret, 32, 0, "call + ret to an empty leaf (per pair)")                          \
    X(stfwd_rsp_same, 32, 0, "mov [rsp-16],rax; mov rax,[rsp-16]; add (chain)")             \
    X(stfwd_rsp_other, 32, 0, "mov [rsp-16],rax; mov rax,[rbx-16] (rbx=rsp); add")          \
    X(stfwd_rsp_lea, 32, 0, "mov [rsp-16],rax; mov rax,[rbx] (rbx=rsp-16); add")            \
    X(stfwd_base_same, 32, 0, "mov [rdx+8],rax; mov rax,[rdx+8]; add")                    \
    X(stfwd_base_other, 32, 0, "mov [rdx+8],rax; mov rax,[rcx+8] (rcx=rdx); add")         \
    X(stfwd_rip, 32, 0, "mov [rip+g],rax; mov rax,[rip+g]; add")                          \
    X(stfwd_fp_rsp_same, 32, 0, "vmovsd [rsp-16],xmm0; vmovsd xmm0,[rsp-16]; vaddsd")       \
    X(stfwd_fp_base_other, 32, 0, "vmovsd [rdx+8],xmm0; vmovsd xmm0,[rcx+8]; vaddsd")     \
    X(div64_lat, 16, 0, "div r64 chain (+ imul r64)")                                     \
    X(div64_tp, 16, 0, "div r64 independent")                                             \
    X(div32_lat, 16, 0, "div r32 chain (+ imul r32)")                                     \
    X(div32_tp, 16, 0, "div r32 independent")                                             \
    X(imul64_lat, 32, 0, "imul r64 chain")                                                \
    X(imul32_lat, 32, 0, "imul r32 chain")

#define DECLARE(name, per, avx512, what) extern void name(long, void *);
KERNELS(DECLARE)

struct kernel {
    const char *name;
    kernel_fn fn;
    double per_iter;   /* instances of the measured thing per loop iteration */
    int avx512;        /* needs AVX-512F */
    const char *what;
    long n1;           /* iterations of the short run (long run: 3 * n1) */
    uint64_t min1, min2; /* TSC ticks of the short and the long run, minima over rounds */
    double cycles;     /* result: core cycles per instance, NAN if skipped */
};

#define ENTRY(name, per, avx512, what) {#name, name, per, avx512, what, 0, UINT64_MAX, UINT64_MAX, NAN},
static struct kernel kernels[] = {KERNELS(ENTRY)};
#define NKERNELS (sizeof kernels / sizeof kernels[0])


static void *buf;

static uint64_t ticks(kernel_fn fn, long n) {
    uint64_t t0 = tsc_begin();
    fn(n, buf);
    return tsc_end() - t0;
}

/* Calibration before and after the measurements: add and imul chains (calib.h). */
struct full_cal { double add, imul; };
static struct full_cal full_calibration(void) {
    struct full_cal c;
    calib_wake();
    c.add = calib_ratio(CALIB_ADD, 201, NULL);
    c.imul = calib_ratio(CALIB_IMUL, 201, NULL);
    return c;
}
#define ROUND_CAL_ROUNDS 15 /* add-chain rounds of the calibration between two rounds (~1 ms) */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct kernel *find(const char *name) {
    for (size_t i = 0; i < NKERNELS; i++)
        if (!strcmp(kernels[i].name, name)) return &kernels[i];
    fprintf(stderr, "no kernel %s\n", name);
    exit(1);
}
static double C(const char *name) { return find(name)->cycles; }

/* The buffer layout kernels.S expects (comment at its top). */
static void setup_buffer(void) {
    buf = aligned_alloc(4096, 65536);
    if (!buf) { perror("aligned_alloc"); exit(1); }
    memset(buf, 0, 65536);
    char *b = buf;
    ((void **)b)[0] = b;                 /* self pointers for the pointer chases */
    ((void **)b)[1] = b;
    int32_t *idx_d16 = (int32_t *)(b + 8192);
    int64_t *idx_q8 = (int64_t *)(b + 8256);
    int32_t *idx_d8 = (int32_t *)(b + 8320);
    for (int i = 0; i < 16; i++) idx_d16[i] = i * 16; /* 4-byte elements, 64 B apart */
    for (int i = 0; i < 8; i++) idx_q8[i] = i * 8;    /* 8-byte elements, 64 B apart */
    for (int i = 0; i < 8; i++) idx_d8[i] = i * 8;
}

/* ---------------------------------------------------------------------------------- */

static void print_raw(void) {
    printf("\n## Raw results (core cycles per instance, minimum over rounds)\n\n");
    printf("| kernel | what | cycles |\n| --- | --- | ---: |\n");
    for (size_t i = 0; i < NKERNELS; i++) {
        struct kernel *k = &kernels[i];
        if (isnan(k->cycles)) printf("| `%s` | %s | skipped |\n", k->name, k->what);
        else printf("| `%s` | %s | %.3f |\n", k->name, k->what, k->cycles);
    }
}

struct gather {
    const char *label, *key, *lat, *tp, *reset, *chain_op;
    int avx512, elems;
};
static const struct gather gathers[] = {
    {"vpgatherdd ymm", "vpgatherdd ymm, m32, ymm", "gather_dd_y_lat", "gather_dd_y_tp", "mask_reset_y_tp", "vpaddd_y_lat", 0, 8},
    {"vpgatherdd xmm", "vpgatherdd xmm, m32, xmm", "gather_dd_x_lat", "gather_dd_x_tp", "mask_reset_y_tp", "vpaddd_y_lat", 0, 4},
    {"vgatherdps ymm", "vgatherdps ymm, m32, ymm", "gather_dps_y_lat", "gather_dps_y_tp", "mask_reset_y_tp", "vpaddd_y_lat", 0, 8},
    {"vpgatherqq ymm", "vpgatherqq ymm, m64, ymm", "gather_qq_y_lat", "gather_qq_y_tp", "mask_reset_y_tp", "vpaddd_y_lat", 0, 4},
    {"vgatherdpd ymm", "vgatherdpd ymm, m64, ymm", "gather_dpd_y_lat", "gather_dpd_y_tp", "mask_reset_y_tp", "vpaddd_y_lat", 0, 4},
    {"vpgatherdd zmm", "vpgatherdd zmm, m32", "gather_dd_z_lat", "gather_dd_z_tp", "mask_reset_k_tp", "vpaddd_y_lat", 1, 16},
    {"vgatherdps zmm", "vgatherdps zmm, m32", "gather_dps_z_lat", "gather_dps_z_tp", "mask_reset_k_tp", "vpaddd_y_lat", 1, 16},
    {"vpgatherqq zmm", "vpgatherqq zmm, m64", "gather_qq_z_lat", "gather_qq_z_tp", "mask_reset_k_tp", "vpaddd_y_lat", 1, 8},
    {"vgatherdpd zmm", "vgatherdpd zmm, m64", "gather_dpd_z_lat", "gather_dpd_z_tp", "mask_reset_k_tp", "vpaddd_y_lat", 1, 8},
};
#define NGATHERS (sizeof gathers / sizeof gathers[0])

static double round2(double x) { return floor(x * 100.0 + 0.5) / 100.0; }

static void print_summary(void) {
    printf("\n## Summary (core cycles)\n\n");
    printf("| item | latency | recip. throughput | derivation |\n| --- | ---: | ---: | --- |\n");
    /* Gathers: the mask reset runs beside the gather (gather_dd_y_tp_mov, reset by an
     * eliminated move, takes the same time), so the reciprocal throughput is the
     * independent-gather time as measured; the reset alone is shown for reference. */
    for (size_t i = 0; i < NGATHERS; i++) {
        const struct gather *g = &gathers[i];
        if (isnan(C(g->lat))) continue;
        printf("| %s (%d elements) | %.2f | %.2f | lat: chain %.2f - vpadd %.2f; tp: with mask reset (reset alone %.2f) |\n",
               g->label, g->elems, C(g->lat) - C(g->chain_op), C(g->tp), C(g->lat), C(g->chain_op), C(g->reset));
    }
    printf("| vpgatherdd ymm, mask reset by vmovdqa | | %.2f | vs %.2f with vpcmpeqd |\n", C("gather_dd_y_tp_mov"), C("gather_dd_y_tp"));
    printf("| vpgatherdd ymm + 24 / 36 / 48 nop | | %.2f / %.2f / %.2f | per gather; nop alone %.3f |\n",
           C("gather_dd_y_nop24"), C("gather_dd_y_nop36"), C("gather_dd_y_nop48"), C("nop_tp"));
    printf("| vpgatherdd ymm + 16 / 32 indep. add | | %.2f / %.2f | per gather; add alone %.3f |\n",
           C("gather_dd_y_add16"), C("gather_dd_y_add32"), C("add4_tp"));
    printf("| vpgatherdd ymm + 16 vpaddd ymm | | %.2f | per gather |\n", C("gather_dd_y_vpadd16"));
    printf("| vpgatherdd ymm + 8 / 16 int loads | | %.2f / %.2f | per gather |\n", C("gather_dd_y_ldq8"), C("gather_dd_y_ldq16"));
    printf("| vpgatherdd ymm + 8 vmovsd loads | | %.2f | per gather |\n", C("gather_dd_y_ldsd8"));
    printf("| vpgatherdd ymm + 4 int stores | | %.2f | per gather |\n", C("gather_dd_y_stq4"));
    printf("| vpgatherdd ymm + 4 vmovq r64,xmm | | %.2f | per gather |\n", C("gather_dd_y_movq4"));
    printf("| int load `[base]` | %.2f | | pointer chase |\n", C("ld_int_base_lat"));
    printf("| int load `[base+disp8]` | %.2f | | pointer chase |\n", C("ld_int_disp_lat"));
    printf("| int load `[base+index*8]` | %.2f | | pointer chase |\n", C("ld_int_index_lat"));
    double rt = C("gpr_xmm_roundtrip_lat");
    double a = C("ld_fp_sd_lat"), y = C("ld_fp_ups_y_lat");
    printf("| vmovsd load | %.2f (bounds %.2f..%.2f) | %.2f | (load + vmovq r,x) %.2f - half the GPR/XMM round trip %.2f |\n",
           a - rt / 2, a - (rt - 1), a - 1, C("mix_fp_l1s0"), a, rt);
    printf("| vmovups ymm load | %.2f (bounds %.2f..%.2f) | %.2f | (load + vmovq r,x) %.2f - half the round trip |\n",
           y - rt / 2, y - (rt - 1), y - 1, C("mix_y_l1s0"), y);
    printf("| vmovsd load + vaddsd | %.2f | | chain %.2f - vaddsd %.2f - half round trip |\n",
           C("ld_fp_sd_add_lat") - C("vaddsd_lat") - rt / 2, C("ld_fp_sd_add_lat"), C("vaddsd_lat"));
    printf("| FP loads / stores (vmovsd) | | %.2f / %.2f | per access, alone |\n", C("mix_fp_l1s0"), C("mix_fp_l0s1"));
    printf("| FP 1 ld + 1 st | | %.2f | per group |\n", C("mix_fp_l1s1"));
    printf("| FP 2 ld + 1 st | | %.2f | per group (2/cycle shared pipe: 1.5) |\n", C("mix_fp_l2s1"));
    printf("| FP 3 ld + 1 st | | %.2f | per group |\n", C("mix_fp_l3s1"));
    printf("| FP 2 ld + 2 st | | %.2f | per group |\n", C("mix_fp_l2s2"));
    printf("| int loads / stores | | %.2f / %.2f | per access, alone (loads 64 B apart) |\n", C("mix_int_l1s0"), C("mix_int_l0s1"));
    printf("| int loads, 8 B apart | | %.2f | per load |\n", C("mix_int_l1s0_s8"));
    printf("| int 1 ld + 1 st | | %.2f | per group |\n", C("mix_int_l1s1"));
    printf("| int 2 ld + 1 st | | %.2f | per group |\n", C("mix_int_l2s1"));
    printf("| int 3 ld + 1 st | | %.2f | per group |\n", C("mix_int_l3s1"));
    printf("| int 2 ld + 2 st | | %.2f | per group |\n", C("mix_int_l2s2"));
    printf("| ymm loads / stores | | %.2f / %.2f | per access, alone |\n", C("mix_y_l1s0"), C("mix_y_l0s1"));
    printf("| ymm 2 ld + 1 st | | %.2f | per group |\n", C("mix_y_l2s1"));
    printf("| 1 FP ld + 1 int ld | | %.2f | per group |\n", C("mix_fpint_l2s0"));
    printf("| 1 FP ld + 1 int ld + 1 FP st | | %.2f | per group |\n", C("mix_fpint_l2s1"));
    printf("| taken branch, tight loop | | %.2f | per iteration |\n", C("loop_tight"));
    printf("| taken jmp, 64 B apart (64 / 256 blocks) | | %.2f / %.2f | per branch |\n", C("jmp_chain64"), C("jmp_chain64_256"));
    printf("| taken jmp, 16 B apart / next instruction | | %.2f / %.2f | per branch |\n", C("jmp_chain16"), C("jmp_chain2"));
    printf("| taken jcc, 64 B apart | | %.2f | per branch |\n", C("jcc_chain64"));
    printf("| call + ret pair | | %.2f | per pair |\n", C("call_ret"));
    printf("| store->load, same base+disp (rsp) | %.2f | | chain - 1 (add) |\n", C("stfwd_rsp_same") - 1);
    printf("| store->load, rsp vs other base | %.2f | | chain - 1 |\n", C("stfwd_rsp_other") - 1);
    printf("| store->load, rsp-16 vs [rbx] | %.2f | | chain - 1 |\n", C("stfwd_rsp_lea") - 1);
    printf("| store->load, same base+disp (rdx) | %.2f | | chain - 1 |\n", C("stfwd_base_same") - 1);
    printf("| store->load, different base (rdx/rcx) | %.2f | | chain - 1 |\n", C("stfwd_base_other") - 1);
    printf("| store->load, rip-relative | %.2f | | chain - 1 |\n", C("stfwd_rip") - 1);
    printf("| FP store->load, same base+disp (rsp) | %.2f | | chain - vaddsd |\n", C("stfwd_fp_rsp_same") - C("vaddsd_lat"));
    printf("| FP store->load, different base | %.2f | | chain - vaddsd |\n", C("stfwd_fp_base_other") - C("vaddsd_lat"));
    printf("| div r64 (44-bit quotient) | %.2f | %.2f | lat: chain - imul %.2f |\n", C("div64_lat") - C("imul64_lat"), C("div64_tp"), C("imul64_lat"));
    printf("| div r32 (21-bit quotient) | %.2f | %.2f | lat: chain - imul %.2f |\n", C("div32_lat") - C("imul32_lat"), C("div32_tp"), C("imul32_lat"));
}

/* [extra_forms] fragment. `use` counts are busy cycles on one unit of the group (the
 * meaning of the generated zen4.forms.toml: "mov r64, m64" has load = 1 on the 3-unit
 * `load` group, rthroughput 0.33).
 * Gathers: nops and independent adds placed beside vpgatherdd ymm do not overlap with
 * it (each adds its own stand-alone time), so the gather holds the front end / dispatch
 * for its whole reciprocal throughput R: it is modelled as round(6 R) dispatch slots
 * (zen4 dispatches 6 per cycle), which gives the measured R and the serialisation, plus
 * one L1 access per element on the load groups. */
static void print_toml(void) {
    printf("\n## TOML fragment for machines/zen4.toml [extra_forms]\n\n```toml\n");
    printf("# measured by bench/microbench (see its README.md); latency in core cycles.\n");
    printf("# gathers: uops = 6 x measured recip. throughput (they block dispatch for that long),\n");
    printf("# one load per element on the 3-unit load/agu012/lsu groups\n");
    for (size_t i = 0; i < NGATHERS; i++) {
        const struct gather *g = &gathers[i];
        if (isnan(C(g->lat))) continue;
        double lat = round2(C(g->lat) - C(g->chain_op));
        int uops = (int)lround(6.0 * C(g->tp));
        printf("\"%s\" = { uops = %d, latency = %.1f, load = true, use = { load = %d, agu012 = %d, lsu = %d } }\n",
               g->key, uops, lat, g->elems, g->elems, g->elems);
    }
    double d64l = round2(C("div64_lat") - C("imul64_lat")), d64t = round2(C("div64_tp"));
    double d32l = round2(C("div32_lat") - C("imul32_lat")), d32t = round2(C("div32_tp"));
    printf("\"div r64\" = { uops = 2, latency = %.2f, use = { alu0 = %.2f } }\n", d64l, d64t);
    printf("\"idiv r64\" = { uops = 2, latency = %.2f, use = { alu0 = %.2f } }\n", d64l, d64t);
    printf("\"div r32\" = { uops = 2, latency = %.2f, use = { alu0 = %.2f } }\n", d32l, d32t);
    printf("\"idiv r32\" = { uops = 2, latency = %.2f, use = { alu0 = %.2f } }\n", d32l, d32t);
    double rt = C("gpr_xmm_roundtrip_lat");
    double fpl = round2(C("ld_fp_sd_lat") - rt / 2), ypl = round2(C("ld_fp_ups_y_lat") - rt / 2);
    printf("# FP loads: 2 per cycle (fp45 = 1 on 2 units), stores do not share that pipe (see README)\n");
    printf("\"vmovsd xmm, m64\" = { uops = 1, latency = %.1f, load = true, use = { fp45 = 1.0, load = 1.0, lsu = 1.0 } }\n", fpl);
    printf("\"vmovups ymm, m256\" = { uops = 1, latency = %.1f, load = true, use = { fp45 = 1.0, load = 1.0, lsu = 1.0 } }\n", ypl);
    printf("\"vmovsd m64, xmm\" = { uops = 1, latency = 1, store = true, use = { fpst = 1.0, lsu = 1.0, store = 1.0 } }\n");
    printf("\"vmovups m256, ymm\" = { uops = 1, latency = 1, store = true, use = { fpst = 1.0, lsu = 1.0, store = 1.0 } }\n");
    printf("# [memory] load_latency = %.0f   (mov r64,[base] pointer chase: %.2f; [base+index*8]: %.2f)\n",
           round(C("ld_int_base_lat")), C("ld_int_base_lat"), C("ld_int_index_lat"));
    printf("# [memory] store_forward_latency: same base+disp %.2f, different base %.2f (rsp) / %.2f (other)\n",
           C("stfwd_rsp_same") - 1, C("stfwd_rsp_other") - 1, C("stfwd_base_other") - 1);
    printf("```\n");
}

/* what one run measured besides the kernels: the calibrations */
struct run_cal {
    double tpc, add_before, add_after, imul_before, imul_after; /* ticks per core cycle */
    double round_min, round_max; /* the calibrations between rounds */
};

/* --dump: one line per run with the calibration, then "kernel<TAB>cycles" lines. */
static void dump(const char *date, int rounds, int has512, const struct run_cal *c, double tsc_hz) {
    printf("#run\t%s\t%d\t%d\t%.6f\t%.6f\t%.6f\t%.0f\t%.6f\t%.6f\t%.6f\t%.6f\n", date, rounds, has512, c->tpc,
           c->add_before, c->add_after, tsc_hz, c->imul_before, c->imul_after, c->round_min, c->round_max);
    for (size_t i = 0; i < NKERNELS; i++) printf("%s\t%.6f\n", kernels[i].name, kernels[i].cycles);
}

static void report(const char *date, const char *runs_info) {
    printf("# bottlenose microbench, %s\n\n%s", date, runs_info);
    print_summary();
    print_toml();
    print_raw();
}

/* --merge FILE...: per kernel the minimum over the dumped runs, then the report. */
static int merge(int nfiles, char **files) {
    char info[8192] = "", date[32] = "?";
    size_t used = 0;
    for (int f = 0; f < nfiles; f++) {
        FILE *fp = fopen(files[f], "r");
        if (!fp) { perror(files[f]); return 1; }
        char line[512];
        while (fgets(line, sizeof line, fp)) {
            char name[128];
            double v;
            if (!strncmp(line, "#run", 4)) {
                int rounds, has512;
                double tpc, b, a, hz, ib = NAN, ia = NAN, rmin = NAN, rmax = NAN;
                int got = sscanf(line, "#run %31s %d %d %lf %lf %lf %lf %lf %lf %lf %lf", date, &rounds, &has512, &tpc,
                                 &b, &a, &hz, &ib, &ia, &rmin, &rmax);
                if (got >= 7)
                    used += snprintf(info + used, sizeof info - used,
                                     "- run %d: %d rounds, avx512f %s, tsc_per_cycle %.5f (add chain before %.5f, after %.5f; "
                                     "imul chain before %.5f, after %.5f; between rounds %.5f..%.5f), TSC %.4f GHz, core ~%.3f GHz\n",
                                     f + 1, rounds, has512 ? "yes" : "no", tpc, b, a, ib, ia, rmin, rmax, hz / 1e9, hz / tpc / 1e9);
                if (used >= sizeof info) used = sizeof info - 1;
            } else if (sscanf(line, "%127s %lf", name, &v) == 2) {
                struct kernel *k = find(name);
                if (!isnan(v) && (isnan(k->cycles) || v < k->cycles)) k->cycles = v;
            }
        }
        fclose(fp);
    }
    snprintf(info + used, sizeof info - used, "- per kernel: minimum over the %d runs\n", nfiles);
    report(date, info);
    return 0;
}

int main(int argc, char **argv) {
    int rounds = 40, do_dump = 0;
    double target = 50000; /* TSC ticks per short run (~20 us at 2.6 GHz) */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--target-ticks") && i + 1 < argc) target = atof(argv[++i]);
        else if (!strcmp(argv[i], "--dump")) do_dump = 1;
        else if (!strcmp(argv[i], "--merge")) return merge(argc - i - 1, argv + i + 1);
        else {
            fprintf(stderr, "usage: %s [--rounds N] [--target-ticks T] [--dump] | --merge FILE...\n", argv[0]);
            return 2;
        }
    }
    __builtin_cpu_init();
    int has512 = __builtin_cpu_supports("avx512f");
    setup_buffer();

    double t_start = now_s();
    uint64_t tsc_start = tsc_begin();
    struct run_cal cal = {0};
    struct full_cal before = full_calibration();

    /* size each kernel: a probe run of 64 iterations (after a warm-up call) */
    for (size_t i = 0; i < NKERNELS; i++) {
        struct kernel *k = &kernels[i];
        if (k->avx512 && !has512) continue;
        k->fn(64, buf);
        uint64_t best = UINT64_MAX;
        for (int r = 0; r < 5; r++) { uint64_t t = ticks(k->fn, 64); if (t < best) best = t; }
        k->n1 = (long)(target / (best / 64.0));
        if (k->n1 < 16) k->n1 = 16;
    }
    /* Rounds, with a short add-chain calibration after each: more chances to catch the
     * undisturbed clock, and a check that it did not move. */
    cal.round_min = INFINITY;
    cal.round_max = 0;
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < NKERNELS; i++) {
            struct kernel *k = &kernels[i];
            if (!k->n1) continue;
            uint64_t a = ticks(k->fn, k->n1), b = ticks(k->fn, 3 * k->n1);
            if (a < k->min1) k->min1 = a;
            if (b < k->min2) k->min2 = b;
        }
        double c = calib_ratio(CALIB_ADD, ROUND_CAL_ROUNDS, NULL);
        if (c < cal.round_min) cal.round_min = c;
        if (c > cal.round_max) cal.round_max = c;
    }
    struct full_cal after = full_calibration();
    cal.add_before = before.add;
    cal.add_after = after.add;
    cal.imul_before = before.imul;
    cal.imul_after = after.imul;
    /* Every calibration is an upper bound (disturbances only make a chain slower): the
     * smallest full one, add or imul; the calibrations between rounds replace it only if
     * they show a clock faster by more than 0.5 % (it rose during the rounds; smaller
     * differences are the TSC's granularity). As in bench/harness/harness.c. */
    double add_min = before.add < after.add ? before.add : after.add;
    double imul_min = before.imul < after.imul ? before.imul : after.imul;
    double ref = add_min < imul_min ? add_min : imul_min;
    cal.tpc = cal.round_min < ref * (1.0 - 0.005) ? cal.round_min : ref;
    double tsc_hz = (double)(tsc_end() - tsc_start) / (now_s() - t_start);
    for (size_t i = 0; i < NKERNELS; i++) {
        struct kernel *k = &kernels[i];
        if (!k->n1) continue;
        k->cycles = (double)(k->min2 - k->min1) / (2.0 * k->n1 * k->per_iter) / cal.tpc;
    }
    double dis = calib_rel(add_min, imul_min);
    if (dis > CALIB_TOLERANCE)
        fprintf(stderr, "microbench: warning: add and imul chains disagree by %.1f %% (ticks/cycle add %.5f / %.5f, "
                        "imul %.5f / %.5f before / after): one chain does not run at its nominal latency on this core\n",
                100 * dis, before.add, after.add, before.imul, after.imul);
    if (calib_rel(before.add, after.add) > CALIB_TOLERANCE)
        fprintf(stderr, "microbench: warning: core clock changed by %.1f %% between the calibrations before and after "
                        "(ticks/cycle %.5f -> %.5f)\n", 100 * calib_rel(before.add, after.add), before.add, after.add);
    else if (cal.round_min < ref * (1.0 - CALIB_TOLERANCE)) /* (calibrations that read slow prove nothing: load) */
        fprintf(stderr, "microbench: warning: core clock rose by %.1f %% during the rounds (ticks/cycle %.5f between "
                        "them, %.5f before / after)\n", 100 * calib_rel(cal.round_min, ref), cal.round_min, ref);

    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
    if (do_dump) {
        dump(date, rounds, has512, &cal, tsc_hz);
    } else {
        char info[512];
        snprintf(info, sizeof info,
                 "- rounds: %d; avx512f: %s\n- tsc_per_cycle: %.5f (add chain before %.5f, after %.5f; imul chain before %.5f, "
                 "after %.5f; between rounds %.5f..%.5f); TSC %.4f GHz, core ~%.3f GHz\n",
                 rounds, has512 ? "yes" : "no", cal.tpc, before.add, after.add, before.imul, after.imul, cal.round_min,
                 cal.round_max, tsc_hz / 1e9, tsc_hz / cal.tpc / 1e9);
        report(date, info);
    }
    return 0;
}
