1:
  imul %rbx, %rax
  imul %rdx, %rax
  dec %ecx
  jnz 1b
