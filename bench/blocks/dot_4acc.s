1:
  vmovups (%rsi,%rax), %ymm4
  vfmadd231ps (%rdi,%rax), %ymm4, %ymm0
  vmovups 32(%rsi,%rax), %ymm5
  vfmadd231ps 32(%rdi,%rax), %ymm5, %ymm1
  vmovups 64(%rsi,%rax), %ymm6
  vfmadd231ps 64(%rdi,%rax), %ymm6, %ymm2
  vmovups 96(%rsi,%rax), %ymm7
  vfmadd231ps 96(%rdi,%rax), %ymm7, %ymm3
  sub $-128, %rax
  cmp %rcx, %rax
  jne 1b
