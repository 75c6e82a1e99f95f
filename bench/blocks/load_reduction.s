1:
  add (%rsi), %rax
  add 8(%rsi), %rbx
  add 16(%rsi), %rdx
  add 24(%rsi), %rdi
  add $32, %rsi
  dec %ecx
  jnz 1b
