1:
  lea (%rax,%rbx,2), %rdx
  shl $3, %rsi
  and %rdx, %rdi
  or %rsi, %r8
  xor %r9, %r10
  sar $1, %r11
  dec %ecx
  jnz 1b
