1:
  vsqrtps %ymm1, %ymm2
  vsqrtps %ymm3, %ymm4
  dec %ecx
  jnz 1b
