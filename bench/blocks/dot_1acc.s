1:
  vmovups (%rsi,%rax), %ymm1
  vfmadd231ps (%rdi,%rax), %ymm1, %ymm0
  add $32, %rax
  cmp %rcx, %rax
  jne 1b
