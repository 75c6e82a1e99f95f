1:
  mov (%rax), %rax
  dec %ecx
  jnz 1b
