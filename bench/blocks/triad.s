1:
  vmovupd (%rdx,%rax), %ymm1
  vfmadd213pd (%rsi,%rax), %ymm0, %ymm1
  vmovupd %ymm1, (%rdi,%rax)
  add $32, %rax
  cmp %rcx, %rax
  jne 1b
