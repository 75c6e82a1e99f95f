1:
  vaddpd (%rsi), %ymm0, %ymm0
  vaddpd 32(%rsi), %ymm1, %ymm1
  vaddpd 64(%rsi), %ymm2, %ymm2
  vaddpd 96(%rsi), %ymm3, %ymm3
  add $128, %rsi
  dec %ecx
  jnz 1b
