1:
  divsd %xmm1, %xmm0
  dec %ecx
  jnz 1b
