1:
  vdivsd %xmm1, %xmm2, %xmm3
  vdivsd %xmm1, %xmm4, %xmm5
  dec %ecx
  jnz 1b
