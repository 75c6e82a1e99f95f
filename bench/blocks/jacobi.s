# Inner loop of a (non-register-tiled) Jacobi iteration, as compiled in
# Gus (Pompougnac et al. 2024), Fig. 1 and Table 1. Every operand is reloaded
# through %rsp/%rdx, so on Skylake the two load ports (p23) are the bottleneck.
.L1:
    mov    -0x10(%rsp),%rdx
    vmovsd (%rdx,%rax,1),%xmm0
    vaddsd 0x8(%rdx,%rax,1),%xmm0,%xmm0
    vaddsd 0x10(%rdx,%rax,1),%xmm0,%xmm0
    vmulsd %xmm1,%xmm0,%xmm0
    mov    -0x18(%rsp),%rdx
    vmovsd %xmm0,0x8(%rdx,%rax,1)
    mov    -0x18(%rsp),%rdx
    vmovsd -0x8(%rdx,%rax,1),%xmm0
    vaddsd (%rdx,%rax,1),%xmm0,%xmm0
    vaddsd 0x8(%rdx,%rax,1),%xmm0,%xmm0
    vmulsd %xmm1,%xmm0,%xmm0
    mov    -0x10(%rsp),%rdx
    vmovsd %xmm0,(%rdx,%rax,1)
    add    $0x18,%rax
    cmp    %rcx,%rax
    jne    .L1
