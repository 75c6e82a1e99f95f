1:
  vpshufb %ymm1, %ymm2, %ymm3
  vpshufb %ymm1, %ymm4, %ymm5
  vpshufb %ymm1, %ymm6, %ymm7
  add $1, %rax
  add $1, %rbx
  dec %ecx
  jnz 1b
