1:
  mov %rax, (%rdi)
  mov %rbx, 8(%rdi)
  mov %rdx, 16(%rdi)
  mov %rsi, 24(%rdi)
  add $32, %rdi
  dec %ecx
  jnz 1b
