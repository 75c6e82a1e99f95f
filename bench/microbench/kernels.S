/* Microbenchmark loops for bench/microbench/microbench.c (GNU as, AT&T syntax).
 *
 * Every kernel is   void name(long n, void *buf)   (SysV: rdi = n, rsi = buf) and runs n
 * iterations of an unrolled body, closed by `dec %rdi; jnz` (one fused macro-op on the
 * branch unit, beside the measured work). The C driver knows how many instances of the
 * instruction under test one iteration holds and times two different n, so the cost of
 * the call, the prologue and the loop ramp-up cancels.
 *
 * Buffer layout (see microbench.c, all of it stays in L1D):
 *   buf+0      qword = buf, buf+8 qword = buf     (self pointers: pointer-chase chains)
 *   buf+4096   1 KiB of zeros                      (gather targets, FP load-latency data)
 *   buf+8192   16 dwords  i*16                     (gather dword indices, 64 B apart at scale 4)
 *   buf+8256   8 qwords   i*8                      (gather qword indices, 64 B apart at scale 8)
 *   buf+8320   8 dwords   i*8                      (dword indices for qword gathers)
 *   buf+12288  load region (3 KiB), buf+22528 store region (3 KiB, other page offset: no
 *              4 KiB aliasing with the loads)
 *   buf+32768  scratch cell for store forwarding through a non-stack base register
 */

        .intel_syntax noprefix
        .text

/* ---- frame: save every callee-saved GPR so kernels may use them freely ---------------- */
.macro BEGIN name
        .globl \name
        .type \name, @function
        .p2align 6
\name:
        push rbx
        push rbp
        push r12
        push r13
        push r14
        push r15
.endm

/* loop head: aligned so that the loop body starts a fetch block */
.macro LOOP
        .p2align 6
9:
.endm

.macro END name
        dec rdi
        jnz 9b
        pop r15
        pop r14
        pop r13
        pop r12
        pop rbp
        pop rbx
        vzeroupper
        ret
        .size \name, .-\name
.endm

/* The timer calibration chains are in bench/harness/calib.h (shared with the harness). */

/* ======================================================================================
 * Gathers. Latency: the gathered data is zero, so `index = result + base_index` makes
 * the next gather's index depend on this gather's result (+1 cycle for vpaddd/q).
 * Throughput: 6 gathers with distinct destinations and masks in rotation, all on the
 * same (read-only) index vector; the AVX2 mask is cleared by the gather and must be
 * reset (vpcmpeqd, measured on its own in mask_reset_*).
 * ==================================================================================== */

.macro GATHER_SETUP
        lea r8, [rsi+4096]                   /* gather base */
        vmovdqu ymm13, [rsi+8192]            /* base dword indices 0,16,..,112 */
        vmovdqu ymm14, [rsi+8256]            /* base qword indices 0,8,..,24 */
        vmovdqu xmm15, [rsi+8320]            /* base dword indices 0,8,16,24 */
        vpxor xmm0, xmm0, xmm0
.endm

/* One AVX2 gather's kernels: \name\()_lat (a chain through the result) and
 * \name\()_tp (6 gathers in rotation). `v` is the width of data and mask (x/y),
 * `ix` that of the indices, held in \ix\()mm\idx (GATHER_SETUP). */
.macro GATHER_AVX2 name, insn, v, ix, idx, scale, add
BEGIN \name\()_lat
        GATHER_SETUP
        vmovdqa \ix\()mm12, \ix\()mm\idx
LOOP
        .rept 8
        vpcmpeqd \v\()mm6, \v\()mm6, \v\()mm6
        \insn \v\()mm0, [r8+\ix\()mm12*\scale], \v\()mm6
        \add \ix\()mm12, \ix\()mm0, \ix\()mm\idx
        .endr
END \name\()_lat

BEGIN \name\()_tp
        GATHER_SETUP
LOOP
        .rept 4
        GATHER_AVX2_ONE \insn, \v, \ix, \idx, \scale, 0, 6
        GATHER_AVX2_ONE \insn, \v, \ix, \idx, \scale, 1, 7
        GATHER_AVX2_ONE \insn, \v, \ix, \idx, \scale, 2, 8
        GATHER_AVX2_ONE \insn, \v, \ix, \idx, \scale, 3, 9
        GATHER_AVX2_ONE \insn, \v, \ix, \idx, \scale, 4, 10
        GATHER_AVX2_ONE \insn, \v, \ix, \idx, \scale, 5, 11
        .endr
END \name\()_tp
.endm

/* one gather into \v\()mm\d with mask \v\()mm\m, after resetting the mask */
.macro GATHER_AVX2_ONE insn, v, ix, idx, scale, d, m
        vpcmpeqd \v\()mm\m, \v\()mm\m, \v\()mm\m
        \insn \v\()mm\d, [r8+\ix\()mm\idx*\scale], \v\()mm\m
.endm

GATHER_AVX2 gather_dd_y, vpgatherdd, y, y, 13, 4, vpaddd
GATHER_AVX2 gather_dd_x, vpgatherdd, x, x, 13, 4, vpaddd
GATHER_AVX2 gather_dps_y, vgatherdps, y, y, 13, 4, vpaddd
GATHER_AVX2 gather_qq_y, vpgatherqq, y, y, 14, 8, vpaddq
/* vgatherdpd ymm: dword indices in xmm, 4 doubles */
GATHER_AVX2 gather_dpd_y, vgatherdpd, y, x, 15, 8, vpaddd

/* --- what limits vpgatherdd ymm: the same 6-gather rotation with other work beside each
 * gather. If the time per gather stays at the gather-only figure the extra work uses a
 * resource the gather does not saturate. */
.macro GX_DD_Y d, m, filler, count
        vpcmpeqd ymm\m, ymm\m, ymm\m
        vpgatherdd ymm\d, [r8+ymm13*4], ymm\m
        .set fo, 0
        .rept \count
        \filler fo
        .set fo, fo+64
        .endr
.endm
.macro GX_KERNEL name, filler, count
BEGIN \name
        GATHER_SETUP
        lea r9, [rsi+12288]
LOOP
        .rept 4
        GX_DD_Y 0,6,\filler,\count
        GX_DD_Y 1,7,\filler,\count
        GX_DD_Y 2,8,\filler,\count
        GX_DD_Y 3,9,\filler,\count
        GX_DD_Y 4,10,\filler,\count
        GX_DD_Y 5,11,\filler,\count
        .endr
END \name
.endm
.macro F_NOP off
        nop
.endm
.macro F_LDQ off
        mov rax, [r9+\off]
.endm
.macro F_LDSD off
        vmovsd xmm1, [r9+\off]
.endm
.macro F_STQ off
        mov [r9+\off+8192], rax
.endm
.macro F_MOVQ off
        vmovq rax, xmm14
.endm
.macro F_VPADD off
        vpaddd ymm15, ymm14, ymm14
.endm
.macro F_ADD4 off
        add r11, 1                           /* 4 independent chains */
        add r12, 1
        add r13, 1
        add r14, 1
.endm
        GX_KERNEL gather_dd_y_nop24, F_NOP, 24
        GX_KERNEL gather_dd_y_nop36, F_NOP, 36
        GX_KERNEL gather_dd_y_nop48, F_NOP, 48
        GX_KERNEL gather_dd_y_ldq8, F_LDQ, 8
        GX_KERNEL gather_dd_y_ldq16, F_LDQ, 16
        GX_KERNEL gather_dd_y_ldsd8, F_LDSD, 8
        GX_KERNEL gather_dd_y_stq4, F_STQ, 4
        GX_KERNEL gather_dd_y_movq4, F_MOVQ, 4
        GX_KERNEL gather_dd_y_vpadd16, F_VPADD, 16
        GX_KERNEL gather_dd_y_add16, F_ADD4, 4
        GX_KERNEL gather_dd_y_add32, F_ADD4, 8

/* mask reset by a move from an all-ones register instead of vpcmpeqd */
.macro GTP_DD_Y_MOV d, m
        vmovdqa ymm\m, ymm15
        vpgatherdd ymm\d, [r8+ymm13*4], ymm\m
.endm
BEGIN gather_dd_y_tp_mov
        GATHER_SETUP
        vpcmpeqd ymm15, ymm15, ymm15
LOOP
        .rept 4
        GTP_DD_Y_MOV 0,6
        GTP_DD_Y_MOV 1,7
        GTP_DD_Y_MOV 2,8
        GTP_DD_Y_MOV 3,9
        GTP_DD_Y_MOV 4,10
        GTP_DD_Y_MOV 5,11
        .endr
END gather_dd_y_tp_mov

/* --- the AVX2 mask reset alone: 6 rotating vpcmpeqd ymm, the same code without gathers */
BEGIN mask_reset_y_tp
        GATHER_SETUP
LOOP
        .rept 4
        vpcmpeqd ymm6, ymm6, ymm6
        vpcmpeqd ymm7, ymm7, ymm7
        vpcmpeqd ymm8, ymm8, ymm8
        vpcmpeqd ymm9, ymm9, ymm9
        vpcmpeqd ymm10, ymm10, ymm10
        vpcmpeqd ymm11, ymm11, ymm11
        .endr
END mask_reset_y_tp

/* filler costs on their own: nops, 4 independent add chains */
BEGIN nop_tp
LOOP
        .rept 48
        nop
        .endr
END nop_tp

BEGIN add4_tp
LOOP
        .rept 12
        F_ADD4 0
        .endr
END add4_tp

/* vpaddd ymm chain: the +1 cycle in the gather latency chains */
BEGIN vpaddd_y_lat
        vpxor xmm0, xmm0, xmm0
        vpxor xmm1, xmm1, xmm1
LOOP
        .rept 32
        vpaddd ymm0, ymm0, ymm1
        .endr
END vpaddd_y_lat

/* --- AVX-512 gathers: the opmask is cleared too; reset with kxnorw (k1..k6 rotate) --- */
.macro GATHER512_SETUP
        lea r8, [rsi+4096]
        vmovdqu32 zmm13, [rsi+8192]          /* 16 dword indices */
        vmovdqu64 zmm14, [rsi+8256]          /* 8 qword indices */
        vmovdqu ymm15, [rsi+8320]            /* 8 dword indices for qword elements */
        vpxord zmm0, zmm0, zmm0
.endm

/* The same for AVX-512 (opmask k1..k6; `copy` moves the base indices, `ix` is the index width). */
.macro GATHER_AVX512 name, insn, ix, idx, scale, add, copy
BEGIN \name\()_lat
        GATHER512_SETUP
        \copy \ix\()mm12, \ix\()mm\idx
LOOP
        .rept 8
        kxnorw k1, k1, k1
        \insn zmm0{k1}, [r8+\ix\()mm12*\scale]
        \add \ix\()mm12, \ix\()mm0, \ix\()mm\idx
        .endr
END \name\()_lat

BEGIN \name\()_tp
        GATHER512_SETUP
LOOP
        .rept 4
        GATHER_AVX512_ONE \insn, \ix, \idx, \scale, 0, 1
        GATHER_AVX512_ONE \insn, \ix, \idx, \scale, 1, 2
        GATHER_AVX512_ONE \insn, \ix, \idx, \scale, 2, 3
        GATHER_AVX512_ONE \insn, \ix, \idx, \scale, 3, 4
        GATHER_AVX512_ONE \insn, \ix, \idx, \scale, 4, 5
        GATHER_AVX512_ONE \insn, \ix, \idx, \scale, 5, 6
        .endr
END \name\()_tp
.endm

.macro GATHER_AVX512_ONE insn, ix, idx, scale, d, k
        kxnorw k\k, k\k, k\k
        \insn zmm\d{k\k}, [r8+\ix\()mm\idx*\scale]
.endm

GATHER_AVX512 gather_dd_z, vpgatherdd, z, 13, 4, vpaddd, vmovdqa32
GATHER_AVX512 gather_dps_z, vgatherdps, z, 13, 4, vpaddd, vmovdqa32
GATHER_AVX512 gather_qq_z, vpgatherqq, z, 14, 8, vpaddq, vmovdqa64
GATHER_AVX512 gather_dpd_z, vgatherdpd, y, 15, 8, vpaddd, vmovdqa

BEGIN mask_reset_k_tp
LOOP
        .rept 4
        kxnorw k1, k1, k1
        kxnorw k2, k2, k2
        kxnorw k3, k3, k3
        kxnorw k4, k4, k4
        kxnorw k5, k5, k5
        kxnorw k6, k6, k6
        .endr
END mask_reset_k_tp

/* ======================================================================================
 * Load-to-use latency.
 * ==================================================================================== */

/* integer pointer chase, [base] */
BEGIN ld_int_base_lat
        mov rax, rsi
LOOP
        .rept 32
        mov rax, [rax]
        .endr
END ld_int_base_lat

/* [base+disp8] */
BEGIN ld_int_disp_lat
        mov rax, rsi
LOOP
        .rept 32
        mov rax, [rax+8]
        .endr
END ld_int_disp_lat

/* [base+index*8], index = 0 */
BEGIN ld_int_index_lat
        mov rax, rsi
        xor ecx, ecx
LOOP
        .rept 32
        mov rax, [rax+rcx*8]
        .endr
END ld_int_index_lat

/* FP load then the move back to a GPR for the next address:
 * chain = load(FP) + vmovq r64,xmm. The qword loaded is the pointer itself. */
BEGIN ld_fp_sd_lat
        mov rax, rsi
LOOP
        .rept 32
        vmovsd xmm0, [rax]
        vmovq rax, xmm0
        .endr
END ld_fp_sd_lat

BEGIN ld_fp_ups_y_lat
        mov rax, rsi
LOOP
        .rept 32
        vmovups ymm0, [rax]
        vmovq rax, xmm0
        .endr
END ld_fp_ups_y_lat

/* the same with an FP use between load and move back: + vaddsd latency */
BEGIN ld_fp_sd_add_lat
        mov rax, rsi
        vpxor xmm1, xmm1, xmm1
LOOP
        .rept 32
        vmovsd xmm0, [rax]
        vaddsd xmm0, xmm0, xmm1       /* + 0.0: keeps the pointer bits (a normal double) */
        vmovq rax, xmm0
        .endr
END ld_fp_sd_add_lat

/* GPR -> XMM -> GPR round trip (vmovq both ways), to take out of the two above */
BEGIN gpr_xmm_roundtrip_lat
        xor eax, eax
LOOP
        .rept 32
        vmovq xmm0, rax
        vmovq rax, xmm0
        .endr
END gpr_xmm_roundtrip_lat

/* vaddsd chain (for ld_fp_sd_add_lat) */
BEGIN vaddsd_lat
        vpxor xmm0, xmm0, xmm0
        vpxor xmm1, xmm1, xmm1
LOOP
        .rept 32
        vaddsd xmm0, xmm0, xmm1
        .endr
END vaddsd_lat

/* ======================================================================================
 * Load / store throughput mixes: per group K independent loads and M stores, to
 * distinct cache lines (loads buf+12288.., stores buf+22528..), G groups per iteration.
 * ==================================================================================== */
.macro MIX name, ld, st, k, m, g
BEGIN \name
        lea r9, [rsi+12288]
        lea r10, [rsi+22528]
        vpxor xmm1, xmm1, xmm1
        xor ebx, ebx
LOOP
        .set lo, 0
        .set so, 0
        .rept \g
          .rept \k
            \ld lo
            .set lo, lo+64
          .endr
          .rept \m
            \st so
            .set so, so+64
          .endr
        .endr
END \name
.endm

/* the single accesses; `off` is an assemble-time byte offset */
.macro LD_SD off
        vmovsd xmm0, [r9+\off]
.endm
.macro ST_SD off
        vmovsd [r10+\off], xmm1
.endm
.macro LD_Q off
        mov rax, [r9+\off]
.endm
.macro LD_Q8 off
        mov rax, [r9+\off/8]               /* 8-byte stride: 8 loads per cache line */
.endm
.macro ST_Q off
        mov [r10+\off], rbx
.endm
.macro LD_Y off
        vmovups ymm0, [r9+\off]
.endm
.macro ST_Y off
        vmovups [r10+\off], ymm1
.endm
/* 32-byte accesses at offset 48 in their line: each one spans two cache lines */
.macro LD_YS off
        vmovups ymm0, [r9+\off+48]
.endm
.macro ST_YS off
        vmovups [r10+\off+48], ymm1
.endm
/* one FP load and one integer load */
.macro LD_SD_Q off
        vmovsd xmm0, [r9+\off]
        mov rax, [r9+\off+8]
.endm

        /*   name            load   store  k  m  groups  */
        MIX mix_fp_l1s0      LD_SD  ST_SD  1  0  48
        MIX mix_fp_l0s1      LD_SD  ST_SD  0  1  48
        MIX mix_fp_l1s1      LD_SD  ST_SD  1  1  24
        MIX mix_fp_l2s1      LD_SD  ST_SD  2  1  16
        MIX mix_fp_l3s1      LD_SD  ST_SD  3  1  12
        MIX mix_fp_l2s2      LD_SD  ST_SD  2  2  12
        MIX mix_int_l1s0     LD_Q   ST_Q   1  0  48
        MIX mix_int_l1s0_s8  LD_Q8  ST_Q   1  0  48
        MIX mix_int_l0s1     LD_Q   ST_Q   0  1  48
        MIX mix_int_l1s1     LD_Q   ST_Q   1  1  24
        MIX mix_int_l2s1     LD_Q   ST_Q   2  1  16
        MIX mix_int_l3s1     LD_Q   ST_Q   3  1  12
        MIX mix_int_l2s2     LD_Q   ST_Q   2  2  12
        MIX mix_y_l1s0       LD_Y   ST_Y   1  0  48
        MIX mix_y_l0s1       LD_Y   ST_Y   0  1  48
        MIX mix_y_l2s1       LD_Y   ST_Y   2  1  16
        MIX mix_ysplit_l1s0  LD_YS  ST_YS  1  0  48
        MIX mix_ysplit_l0s1  LD_YS  ST_YS  0  1  48
        MIX mix_ysplit_l2s1  LD_YS  ST_YS  2  1  16
        MIX mix_ysplit_l1s1  LD_YS  ST_YS  1  1  24
        /* 1 FP + 1 int load per group (2 loads), plus 1 FP store */
        MIX mix_fpint_l2s0   LD_SD_Q ST_SD 1  0  24
        MIX mix_fpint_l2s1   LD_SD_Q ST_SD 1  1  24

/* ======================================================================================
 * Branches.
 * ==================================================================================== */

/* empty loop: one taken dec/jnz per iteration */
BEGIN loop_tight
LOOP
END loop_tight

/* 64 unconditional jumps, each to the start of the next 64-byte block (+ the loop's own
 * taken jnz: 65 taken branches per iteration) */
BEGIN jmp_chain64
LOOP
        .rept 64
        jmp 1f
        .p2align 6
1:
        .endr
END jmp_chain64

/* the same over 256 blocks (16 KiB of code: more branches than a small BTB level holds) */
BEGIN jmp_chain64_256
LOOP
        .rept 256
        jmp 1f
        .p2align 6
1:
        .endr
END jmp_chain64_256

/* jumps 16 bytes apart (4 per 64-byte block) */
BEGIN jmp_chain16
LOOP
        .rept 64
        jmp 1f
        .p2align 4
1:
        .endr
END jmp_chain16

/* back-to-back 2-byte jumps to the next instruction */
BEGIN jmp_chain2
LOOP
        .rept 64
        jmp 1f
1:
        .endr
END jmp_chain2

/* taken conditional branches, 64 B apart (ZF = 0 from the `or`) */
BEGIN jcc_chain64
        or eax, 1
LOOP
        .rept 64
        jnz 1f
        .p2align 6
1:
        .endr
END jcc_chain64

/* call + ret to an empty leaf */
        .p2align 6
leaf:
        ret

BEGIN call_ret
LOOP
        .rept 32
        call leaf
        .endr
END call_ret

/* ======================================================================================
 * Store-to-load forwarding: store rax, reload it, add 1 (the add is the +1 cycle that
 * keeps the chain measurable if forwarding itself is free). The stack slot is in the
 * red zone below rsp (these are leaf functions), so rsp never changes.
 * ==================================================================================== */

/* same base (rsp) and displacement */
BEGIN stfwd_rsp_same
        xor eax, eax
LOOP
        .rept 32
        mov [rsp-16], rax
        mov rax, [rsp-16]
        add rax, 1
        .endr
END stfwd_rsp_same

/* store through rsp, load the same address through rbx = rsp */
BEGIN stfwd_rsp_other
        mov rbx, rsp
        xor eax, eax
LOOP
        .rept 32
        mov [rsp-16], rax
        mov rax, [rbx-16]
        add rax, 1
        .endr
END stfwd_rsp_other

/* store through rsp-16, load through rbx = rsp-16 with displacement 0 */
BEGIN stfwd_rsp_lea
        lea rbx, [rsp-16]
        xor eax, eax
LOOP
        .rept 32
        mov [rsp-16], rax
        mov rax, [rbx]
        add rax, 1
        .endr
END stfwd_rsp_lea

/* non-stack base, same register and displacement */
BEGIN stfwd_base_same
        lea rdx, [rsi+32768]
        xor eax, eax
LOOP
        .rept 32
        mov [rdx+8], rax
        mov rax, [rdx+8]
        add rax, 1
        .endr
END stfwd_base_same

/* non-stack, store through rdx, load through rcx = rdx */
BEGIN stfwd_base_other
        lea rdx, [rsi+32768]
        mov rcx, rdx
        xor eax, eax
LOOP
        .rept 32
        mov [rdx+8], rax
        mov rax, [rcx+8]
        add rax, 1
        .endr
END stfwd_base_other

/* RIP-relative global, as in bench/kernels/store_forward (cell = cell + i) */
        .data
        .p2align 6
fwd_cell:
        .quad 0
        .text
BEGIN stfwd_rip
        xor eax, eax
LOOP
        .rept 32
        mov [rip+fwd_cell], rax
        mov rax, [rip+fwd_cell]
        add rax, 1
        .endr
END stfwd_rip

/* FP: vmovsd store, vmovsd reload, vaddsd (3 cycles) */
BEGIN stfwd_fp_rsp_same
        vpxor xmm0, xmm0, xmm0
        vpxor xmm1, xmm1, xmm1
LOOP
        .rept 32
        vmovsd [rsp-16], xmm0
        vmovsd xmm0, [rsp-16]
        vaddsd xmm0, xmm0, xmm1
        .endr
END stfwd_fp_rsp_same

BEGIN stfwd_fp_base_other
        lea rdx, [rsi+32768]
        mov rcx, rdx
        vpxor xmm0, xmm0, xmm0
        vpxor xmm1, xmm1, xmm1
LOOP
        .rept 32
        vmovsd [rdx+8], xmm0
        vmovsd xmm0, [rcx+8]
        vaddsd xmm0, xmm0, xmm1
        .endr
END stfwd_fp_base_other

/* ======================================================================================
 * Integer division. Latency: rax = K*d, so rax/d = K and K*d (imul, 3 cycles) restores
 * the dividend: the chain is div + imul with the same operand sizes every time.
 * Throughput: the dividend is re-loaded from a register (mov: eliminated, no dependency).
 * 64-bit: K ~ 2^42.5, d ~ 2^19.3 (44-bit quotients, like bench/kernels/int_div);
 * 32-bit: K ~ 2^20.4, d ~ 2^9.9.
 * ==================================================================================== */
/* K64 = 0x5A5A5A5A5A5, d64 = 0x9E377, K64*d64 = 0x37d754b4b4ae4eb3;
 * K32 = 0x15A5A5,      d32 = 0x3C5,   K32*d32 = 0x519966f9 (literals: in Intel syntax a
 * bare symbol operand would be a memory reference) */

BEGIN div64_lat
        mov ecx, 0x9E377
        movabs rax, 0x37d754b4b4ae4eb3
LOOP
        .rept 16
        xor edx, edx
        div rcx
        imul rax, rcx
        .endr
END div64_lat

BEGIN div64_tp
        mov ecx, 0x9E377
        movabs r8, 0x37d754b4b4ae4eb3
LOOP
        .rept 16
        mov rax, r8
        xor edx, edx
        div rcx
        .endr
END div64_tp

BEGIN div32_lat
        mov ecx, 0x3C5
        mov eax, 0x519966f9
LOOP
        .rept 16
        xor edx, edx
        div ecx
        imul eax, ecx
        .endr
END div32_lat

BEGIN div32_tp
        mov ecx, 0x3C5
        mov r8d, 0x519966f9
LOOP
        .rept 16
        mov eax, r8d
        xor edx, edx
        div ecx
        .endr
END div32_tp

/* imul chains, to take out of the div latency chains */
BEGIN imul64_lat
        mov eax, 1
        mov ecx, 1
LOOP
        .rept 32
        imul rax, rcx
        .endr
END imul64_lat

BEGIN imul32_lat
        mov eax, 1
        mov ecx, 1
LOOP
        .rept 32
        imul eax, ecx
        .endr
END imul32_lat

        .section .note.GNU-stack,"",@progbits
