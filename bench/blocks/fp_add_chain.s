1:
  addsd %xmm1, %xmm0
  addsd %xmm2, %xmm0
  addsd %xmm3, %xmm0
  addsd %xmm4, %xmm0
  dec %ecx
  jnz 1b
