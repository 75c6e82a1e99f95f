1:
  vmovups (%rsi,%rax), %ymm0
  vmovups %ymm0, (%rdi,%rax)
  vmovups 32(%rsi,%rax), %ymm1
  vmovups %ymm1, 32(%rdi,%rax)
  add $64, %rax
  cmp %rdx, %rax
  jne 1b
