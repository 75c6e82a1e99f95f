1:
  mov (%rsi,%rax,4), %edx
  cmp %edx, %ebx
  cmovl %edx, %ebx
  inc %rax
  cmp %rcx, %rax
  jne 1b
