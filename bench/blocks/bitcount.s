1:
  popcnt %rax, %rbx
  lzcnt %rdx, %rsi
  tzcnt %rdi, %r8
  add %rbx, %r9
  dec %ecx
  jnz 1b
