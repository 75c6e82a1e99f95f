1:
  imul %r8, %rax
  imul %r8, %rbx
  imul %r8, %rdx
  imul %r8, %rsi
  dec %ecx
  jnz 1b
