1:
  add %rbx, %rax
  add %rdx, %rax
  add %rsi, %rax
  add %rdi, %rax
  dec %ecx
  jnz 1b
