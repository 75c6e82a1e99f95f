1:
  vfmadd231pd %ymm1, %ymm2, %ymm0
  vfmadd231pd %ymm3, %ymm4, %ymm0
  dec %ecx
  jnz 1b
