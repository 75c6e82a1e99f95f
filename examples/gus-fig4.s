# The 12-instruction block of Gus Fig. 4 (Intel syntax); run on the gus-fig4 machine:
#   bottlenose analyze examples/gus-fig4.s --machine gus-fig4 --iterations 1
.intel_syntax noprefix
    mul rbx
    sbb rcx, rdx
    rol rsi, 1
    bsf r8, r9
    rol r10, 1
    pop r11
    mov r12, [rdi]
    sahf
    movsx r13, byte ptr [rsi]
    sahf
    sbb r14, r15
    xor rbp, rax
