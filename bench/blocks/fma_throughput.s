1:
  vfmadd231ps %ymm8, %ymm9, %ymm0
  vfmadd231ps %ymm8, %ymm9, %ymm1
  vfmadd231ps %ymm8, %ymm9, %ymm2
  vfmadd231ps %ymm8, %ymm9, %ymm3
  vfmadd231ps %ymm8, %ymm9, %ymm4
  vfmadd231ps %ymm8, %ymm9, %ymm5
  vfmadd231ps %ymm8, %ymm9, %ymm6
  vfmadd231ps %ymm8, %ymm9, %ymm7
  dec %ecx
  jnz 1b
