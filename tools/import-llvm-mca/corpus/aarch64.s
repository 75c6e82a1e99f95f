// AArch64 forms that libraries rarely contain, for tools/import-llvm-mca --isa aarch64:
// scalar and Advanced SIMD arithmetic in every arrangement, FP, FMA, divides, and loads and
// stores in every size and addressing mode. Each line is one form; registers are distinct
// so that no line is an idiom.
.arch armv8.2-a+fp16+dotprod+lse+crypto+rcpc
.text
  add x1, x2, x3
  sub x1, x2, x3
  adds x1, x2, x3
  subs x1, x2, x3
  and x1, x2, x3
  orr x1, x2, x3
  eor x1, x2, x3
  bic x1, x2, x3
  orn x1, x2, x3
  eon x1, x2, x3
  ands x1, x2, x3
  bics x1, x2, x3
  adc x1, x2, x3
  sbc x1, x2, x3
  adcs x1, x2, x3
  sbcs x1, x2, x3
  lslv x1, x2, x3
  lsrv x1, x2, x3
  asrv x1, x2, x3
  rorv x1, x2, x3
  mul x1, x2, x3
  sdiv x1, x2, x3
  udiv x1, x2, x3
  smulh x1, x2, x3
  add x1, x2, x3, lsl #3
  add x1, x2, x3, lsr #7
  add x1, x2, x3, asr #9
  sub x1, x2, x3, lsl #3
  sub x1, x2, x3, lsr #7
  sub x1, x2, x3, asr #9
  adds x1, x2, x3, lsl #3
  adds x1, x2, x3, lsr #7
  adds x1, x2, x3, asr #9
  subs x1, x2, x3, lsl #3
  subs x1, x2, x3, lsr #7
  subs x1, x2, x3, asr #9
  and x1, x2, x3, lsl #3
  and x1, x2, x3, lsr #7
  and x1, x2, x3, asr #9
  orr x1, x2, x3, lsl #3
  orr x1, x2, x3, lsr #7
  orr x1, x2, x3, asr #9
  eor x1, x2, x3, lsl #3
  eor x1, x2, x3, lsr #7
  eor x1, x2, x3, asr #9
  bic x1, x2, x3, lsl #3
  bic x1, x2, x3, lsr #7
  bic x1, x2, x3, asr #9
  orn x1, x2, x3, lsl #3
  orn x1, x2, x3, lsr #7
  orn x1, x2, x3, asr #9
  eon x1, x2, x3, lsl #3
  eon x1, x2, x3, lsr #7
  eon x1, x2, x3, asr #9
  add x1, x2, #12
  add x1, x2, #12, lsl #12
  sub x1, x2, #12
  sub x1, x2, #12, lsl #12
  adds x1, x2, #12
  adds x1, x2, #12, lsl #12
  subs x1, x2, #12
  subs x1, x2, #12, lsl #12
  and x1, x2, #0xff
  orr x1, x2, #0xff
  eor x1, x2, #0xff
  ands x1, x2, #0xff
  madd x1, x2, x3, x4
  msub x1, x2, x3, x4
  csel x1, x2, x3, ne
  csinc x1, x2, x3, ne
  csinv x1, x2, x3, ne
  csneg x1, x2, x3, ne
  ccmp x1, x2, #0, ne
  ccmp x1, #3, #0, ne
  ccmn x1, x2, #0, ne
  ccmn x1, #3, #0, ne
  clz x1, x2
  cls x1, x2
  rbit x1, x2
  rev x1, x2
  rev16 x1, x2
  movz x1, #0x1234, lsl #16
  movn x1, #0x1234
  movk x1, #0x1234, lsl #16
  ubfm x1, x2, #3, #7
  sbfm x1, x2, #3, #7
  bfm x1, x2, #3, #7
  extr x1, x2, x3, #5
  crc32cx w1, w2, x3
  add w1, w2, w3
  sub w1, w2, w3
  adds w1, w2, w3
  subs w1, w2, w3
  and w1, w2, w3
  orr w1, w2, w3
  eor w1, w2, w3
  bic w1, w2, w3
  orn w1, w2, w3
  eon w1, w2, w3
  ands w1, w2, w3
  bics w1, w2, w3
  adc w1, w2, w3
  sbc w1, w2, w3
  adcs w1, w2, w3
  sbcs w1, w2, w3
  lslv w1, w2, w3
  lsrv w1, w2, w3
  asrv w1, w2, w3
  rorv w1, w2, w3
  mul w1, w2, w3
  sdiv w1, w2, w3
  udiv w1, w2, w3
  mneg w1, w2, w3
  add w1, w2, w3, lsl #3
  add w1, w2, w3, lsr #7
  add w1, w2, w3, asr #9
  sub w1, w2, w3, lsl #3
  sub w1, w2, w3, lsr #7
  sub w1, w2, w3, asr #9
  adds w1, w2, w3, lsl #3
  adds w1, w2, w3, lsr #7
  adds w1, w2, w3, asr #9
  subs w1, w2, w3, lsl #3
  subs w1, w2, w3, lsr #7
  subs w1, w2, w3, asr #9
  and w1, w2, w3, lsl #3
  and w1, w2, w3, lsr #7
  and w1, w2, w3, asr #9
  orr w1, w2, w3, lsl #3
  orr w1, w2, w3, lsr #7
  orr w1, w2, w3, asr #9
  eor w1, w2, w3, lsl #3
  eor w1, w2, w3, lsr #7
  eor w1, w2, w3, asr #9
  bic w1, w2, w3, lsl #3
  bic w1, w2, w3, lsr #7
  bic w1, w2, w3, asr #9
  orn w1, w2, w3, lsl #3
  orn w1, w2, w3, lsr #7
  orn w1, w2, w3, asr #9
  eon w1, w2, w3, lsl #3
  eon w1, w2, w3, lsr #7
  eon w1, w2, w3, asr #9
  add w1, w2, #12
  add w1, w2, #12, lsl #12
  sub w1, w2, #12
  sub w1, w2, #12, lsl #12
  adds w1, w2, #12
  adds w1, w2, #12, lsl #12
  subs w1, w2, #12
  subs w1, w2, #12, lsl #12
  and w1, w2, #0xff
  orr w1, w2, #0xff
  eor w1, w2, #0xff
  ands w1, w2, #0xff
  madd w1, w2, w3, w4
  msub w1, w2, w3, w4
  csel w1, w2, w3, ne
  csinc w1, w2, w3, ne
  csinv w1, w2, w3, ne
  csneg w1, w2, w3, ne
  ccmp w1, w2, #0, ne
  ccmp w1, #3, #0, ne
  ccmn w1, w2, #0, ne
  ccmn w1, #3, #0, ne
  clz w1, w2
  cls w1, w2
  rbit w1, w2
  rev w1, w2
  rev16 w1, w2
  movz w1, #0x1234, lsl #16
  movn w1, #0x1234
  movk w1, #0x1234, lsl #16
  ubfm w1, w2, #3, #7
  sbfm w1, w2, #3, #7
  bfm w1, w2, #3, #7
  extr w1, w2, w3, #5
  crc32cb w1, w2, w3
  add x1, x2, w3, uxtw #2
  add x1, x2, w3, sxtw
  sub x1, x2, w3, sxtw #3
  smaddl x1, w2, w3, x4
  umaddl x1, w2, w3, x4
  umulh x1, x2, x3
  adr x1, .
  adrp x1, .
  ldr x1, [x2, #8]
  ldr x1, [x2], #8
  ldr x1, [x2, #8]!
  ldr x1, [x2, x3]
  ldr x1, [x2, x3, lsl #3]
  ldr x1, [x2, w3, sxtw]
  ldur x1, [x2, #-3]
  str x1, [x2, #8]
  str x1, [x2], #8
  str x1, [x2, #8]!
  str x1, [x2, x3]
  str x1, [x2, x3, lsl #3]
  stur x1, [x2, #-3]
  ldp x1, x4, [x2, #16]
  ldp x1, x4, [x2], #16
  ldp x1, x4, [x2, #16]!
  stp x1, x4, [x2, #16]
  stp x1, x4, [x2], #16
  stp x1, x4, [x2, #16]!
  ldnp x1, x4, [x2, #16]
  stnp x1, x4, [x2, #16]
  ldr w1, [x2, #4]
  ldr w1, [x2], #4
  ldr w1, [x2, #4]!
  ldr w1, [x2, x3]
  ldr w1, [x2, x3, lsl #2]
  ldr w1, [x2, w3, sxtw]
  ldur w1, [x2, #-3]
  str w1, [x2, #4]
  str w1, [x2], #4
  str w1, [x2, #4]!
  str w1, [x2, x3]
  str w1, [x2, x3, lsl #2]
  stur w1, [x2, #-3]
  ldp w1, w4, [x2, #8]
  ldp w1, w4, [x2], #8
  ldp w1, w4, [x2, #8]!
  stp w1, w4, [x2, #8]
  stp w1, w4, [x2], #8
  stp w1, w4, [x2, #8]!
  ldnp w1, w4, [x2, #8]
  stnp w1, w4, [x2, #8]
  ldr b1, [x2, #1]
  ldr b1, [x2], #1
  ldr b1, [x2, #1]!
  ldr b1, [x2, x3]
  ldr b1, [x2, w3, sxtw]
  ldur b1, [x2, #-3]
  str b1, [x2, #1]
  str b1, [x2], #1
  str b1, [x2, #1]!
  str b1, [x2, x3]
  stur b1, [x2, #-3]
  ldr h1, [x2, #2]
  ldr h1, [x2], #2
  ldr h1, [x2, #2]!
  ldr h1, [x2, x3]
  ldr h1, [x2, x3, lsl #1]
  ldr h1, [x2, w3, sxtw]
  ldur h1, [x2, #-3]
  str h1, [x2, #2]
  str h1, [x2], #2
  str h1, [x2, #2]!
  str h1, [x2, x3]
  str h1, [x2, x3, lsl #1]
  stur h1, [x2, #-3]
  ldr s1, [x2, #4]
  ldr s1, [x2], #4
  ldr s1, [x2, #4]!
  ldr s1, [x2, x3]
  ldr s1, [x2, x3, lsl #2]
  ldr s1, [x2, w3, sxtw]
  ldur s1, [x2, #-3]
  str s1, [x2, #4]
  str s1, [x2], #4
  str s1, [x2, #4]!
  str s1, [x2, x3]
  str s1, [x2, x3, lsl #2]
  stur s1, [x2, #-3]
  ldp s1, s4, [x2, #8]
  ldp s1, s4, [x2], #8
  ldp s1, s4, [x2, #8]!
  stp s1, s4, [x2, #8]
  stp s1, s4, [x2], #8
  stp s1, s4, [x2, #8]!
  ldnp s1, s4, [x2, #8]
  stnp s1, s4, [x2, #8]
  ldr d1, [x2, #8]
  ldr d1, [x2], #8
  ldr d1, [x2, #8]!
  ldr d1, [x2, x3]
  ldr d1, [x2, x3, lsl #3]
  ldr d1, [x2, w3, sxtw]
  ldur d1, [x2, #-3]
  str d1, [x2, #8]
  str d1, [x2], #8
  str d1, [x2, #8]!
  str d1, [x2, x3]
  str d1, [x2, x3, lsl #3]
  stur d1, [x2, #-3]
  ldp d1, d4, [x2, #16]
  ldp d1, d4, [x2], #16
  ldp d1, d4, [x2, #16]!
  stp d1, d4, [x2, #16]
  stp d1, d4, [x2], #16
  stp d1, d4, [x2, #16]!
  ldnp d1, d4, [x2, #16]
  stnp d1, d4, [x2, #16]
  ldr q1, [x2, #16]
  ldr q1, [x2], #16
  ldr q1, [x2, #16]!
  ldr q1, [x2, x3]
  ldr q1, [x2, x3, lsl #4]
  ldr q1, [x2, w3, sxtw]
  ldur q1, [x2, #-3]
  str q1, [x2, #16]
  str q1, [x2], #16
  str q1, [x2, #16]!
  str q1, [x2, x3]
  str q1, [x2, x3, lsl #4]
  stur q1, [x2, #-3]
  ldp q1, q4, [x2, #32]
  ldp q1, q4, [x2], #32
  ldp q1, q4, [x2, #32]!
  stp q1, q4, [x2, #32]
  stp q1, q4, [x2], #32
  stp q1, q4, [x2, #32]!
  ldnp q1, q4, [x2, #32]
  stnp q1, q4, [x2, #32]
  ldrb w1, [x2, #2]
  ldrb w1, [x2], #2
  ldrb w1, [x2, x3]
  ldrh w1, [x2, #2]
  ldrh w1, [x2], #2
  ldrh w1, [x2, x3]
  ldrsb w1, [x2, #2]
  ldrsb w1, [x2], #2
  ldrsb w1, [x2, x3]
  ldrsh w1, [x2, #2]
  ldrsh w1, [x2], #2
  ldrsh w1, [x2, x3]
  strb w1, [x2, #2]
  strb w1, [x2], #2
  strb w1, [x2, x3]
  strh w1, [x2, #2]
  strh w1, [x2], #2
  strh w1, [x2, x3]
  ldrsw x1, [x2, #4]
  ldrsw x1, [x2, x3, lsl #2]
  ldrsw x1, [x2], #4
  ldrsb x1, [x2, #1]
  ldrsh x1, [x2, #2]
  ldpsw x1, x4, [x2, #8]
  ldxr x1, [x2]
  ldaxr x1, [x2]
  ldar x1, [x2]
  stlr x1, [x2]
  stxr w5, x1, [x2]
  stlxr w5, x1, [x2]
  ldapr x1, [x2]
  ldadd x1, x4, [x2]
  ldaddal x1, x4, [x2]
  ldclr x1, x4, [x2]
  ldset x1, x4, [x2]
  ldeor x1, x4, [x2]
  swp x1, x4, [x2]
  swpal x1, x4, [x2]
  cas x1, x4, [x2]
  casal x1, x4, [x2]
  ldxr w1, [x2]
  ldaxr w1, [x2]
  ldar w1, [x2]
  stlr w1, [x2]
  stxr w5, w1, [x2]
  stlxr w5, w1, [x2]
  ldapr w1, [x2]
  ldadd w1, w4, [x2]
  ldaddal w1, w4, [x2]
  ldclr w1, w4, [x2]
  ldset w1, w4, [x2]
  ldeor w1, w4, [x2]
  swp w1, w4, [x2]
  swpal w1, w4, [x2]
  cas w1, w4, [x2]
  casal w1, w4, [x2]
  prfm pldl1keep, [x2, #64]
  prfm pstl1keep, [x2, #64]
  ld1 {v1.16b}, [x2]
  ld1 {v1.16b}, [x2], #16
  st1 {v1.16b}, [x2]
  st1 {v1.16b}, [x2], #16
  ld1 {v1.16b, v2.16b}, [x2]
  ld1 {v1.16b, v2.16b}, [x2], #32
  st1 {v1.16b, v2.16b}, [x2]
  st1 {v1.16b, v2.16b}, [x2], #32
  ld1 {v1.16b, v2.16b, v3.16b}, [x2]
  ld1 {v1.16b, v2.16b, v3.16b}, [x2], #48
  st1 {v1.16b, v2.16b, v3.16b}, [x2]
  st1 {v1.16b, v2.16b, v3.16b}, [x2], #48
  ld1 {v1.16b, v2.16b, v3.16b, v4.16b}, [x2]
  ld1 {v1.16b, v2.16b, v3.16b, v4.16b}, [x2], #64
  st1 {v1.16b, v2.16b, v3.16b, v4.16b}, [x2]
  st1 {v1.16b, v2.16b, v3.16b, v4.16b}, [x2], #64
  ld2 {v1.16b, v2.16b}, [x2]
  st2 {v1.16b, v2.16b}, [x2]
  ld3 {v1.16b, v2.16b, v3.16b}, [x2]
  st3 {v1.16b, v2.16b, v3.16b}, [x2]
  ld4 {v1.16b, v2.16b, v3.16b, v4.16b}, [x2]
  st4 {v1.16b, v2.16b, v3.16b, v4.16b}, [x2]
  ld1r {v1.16b}, [x2]
  ld1 {v1.8h}, [x2]
  ld1 {v1.8h}, [x2], #16
  st1 {v1.8h}, [x2]
  st1 {v1.8h}, [x2], #16
  ld1 {v1.8h, v2.8h}, [x2]
  ld1 {v1.8h, v2.8h}, [x2], #32
  st1 {v1.8h, v2.8h}, [x2]
  st1 {v1.8h, v2.8h}, [x2], #32
  ld1 {v1.8h, v2.8h, v3.8h}, [x2]
  ld1 {v1.8h, v2.8h, v3.8h}, [x2], #48
  st1 {v1.8h, v2.8h, v3.8h}, [x2]
  st1 {v1.8h, v2.8h, v3.8h}, [x2], #48
  ld1 {v1.8h, v2.8h, v3.8h, v4.8h}, [x2]
  ld1 {v1.8h, v2.8h, v3.8h, v4.8h}, [x2], #64
  st1 {v1.8h, v2.8h, v3.8h, v4.8h}, [x2]
  st1 {v1.8h, v2.8h, v3.8h, v4.8h}, [x2], #64
  ld2 {v1.8h, v2.8h}, [x2]
  st2 {v1.8h, v2.8h}, [x2]
  ld3 {v1.8h, v2.8h, v3.8h}, [x2]
  st3 {v1.8h, v2.8h, v3.8h}, [x2]
  ld4 {v1.8h, v2.8h, v3.8h, v4.8h}, [x2]
  st4 {v1.8h, v2.8h, v3.8h, v4.8h}, [x2]
  ld1r {v1.8h}, [x2]
  ld1 {v1.4s}, [x2]
  ld1 {v1.4s}, [x2], #16
  st1 {v1.4s}, [x2]
  st1 {v1.4s}, [x2], #16
  ld1 {v1.4s, v2.4s}, [x2]
  ld1 {v1.4s, v2.4s}, [x2], #32
  st1 {v1.4s, v2.4s}, [x2]
  st1 {v1.4s, v2.4s}, [x2], #32
  ld1 {v1.4s, v2.4s, v3.4s}, [x2]
  ld1 {v1.4s, v2.4s, v3.4s}, [x2], #48
  st1 {v1.4s, v2.4s, v3.4s}, [x2]
  st1 {v1.4s, v2.4s, v3.4s}, [x2], #48
  ld1 {v1.4s, v2.4s, v3.4s, v4.4s}, [x2]
  ld1 {v1.4s, v2.4s, v3.4s, v4.4s}, [x2], #64
  st1 {v1.4s, v2.4s, v3.4s, v4.4s}, [x2]
  st1 {v1.4s, v2.4s, v3.4s, v4.4s}, [x2], #64
  ld2 {v1.4s, v2.4s}, [x2]
  st2 {v1.4s, v2.4s}, [x2]
  ld3 {v1.4s, v2.4s, v3.4s}, [x2]
  st3 {v1.4s, v2.4s, v3.4s}, [x2]
  ld4 {v1.4s, v2.4s, v3.4s, v4.4s}, [x2]
  st4 {v1.4s, v2.4s, v3.4s, v4.4s}, [x2]
  ld1r {v1.4s}, [x2]
  ld1 {v1.2d}, [x2]
  ld1 {v1.2d}, [x2], #16
  st1 {v1.2d}, [x2]
  st1 {v1.2d}, [x2], #16
  ld1 {v1.2d, v2.2d}, [x2]
  ld1 {v1.2d, v2.2d}, [x2], #32
  st1 {v1.2d, v2.2d}, [x2]
  st1 {v1.2d, v2.2d}, [x2], #32
  ld1 {v1.2d, v2.2d, v3.2d}, [x2]
  ld1 {v1.2d, v2.2d, v3.2d}, [x2], #48
  st1 {v1.2d, v2.2d, v3.2d}, [x2]
  st1 {v1.2d, v2.2d, v3.2d}, [x2], #48
  ld1 {v1.2d, v2.2d, v3.2d, v4.2d}, [x2]
  ld1 {v1.2d, v2.2d, v3.2d, v4.2d}, [x2], #64
  st1 {v1.2d, v2.2d, v3.2d, v4.2d}, [x2]
  st1 {v1.2d, v2.2d, v3.2d, v4.2d}, [x2], #64
  ld2 {v1.2d, v2.2d}, [x2]
  st2 {v1.2d, v2.2d}, [x2]
  ld3 {v1.2d, v2.2d, v3.2d}, [x2]
  st3 {v1.2d, v2.2d, v3.2d}, [x2]
  ld4 {v1.2d, v2.2d, v3.2d, v4.2d}, [x2]
  st4 {v1.2d, v2.2d, v3.2d, v4.2d}, [x2]
  ld1r {v1.2d}, [x2]
  ld1 {v1.8b}, [x2]
  ld1 {v1.8b}, [x2], #8
  st1 {v1.8b}, [x2]
  st1 {v1.8b}, [x2], #8
  ld1 {v1.8b, v2.8b}, [x2]
  ld1 {v1.8b, v2.8b}, [x2], #16
  st1 {v1.8b, v2.8b}, [x2]
  st1 {v1.8b, v2.8b}, [x2], #16
  ld1 {v1.8b, v2.8b, v3.8b}, [x2]
  ld1 {v1.8b, v2.8b, v3.8b}, [x2], #24
  st1 {v1.8b, v2.8b, v3.8b}, [x2]
  st1 {v1.8b, v2.8b, v3.8b}, [x2], #24
  ld1 {v1.8b, v2.8b, v3.8b, v4.8b}, [x2]
  ld1 {v1.8b, v2.8b, v3.8b, v4.8b}, [x2], #32
  st1 {v1.8b, v2.8b, v3.8b, v4.8b}, [x2]
  st1 {v1.8b, v2.8b, v3.8b, v4.8b}, [x2], #32
  ld2 {v1.8b, v2.8b}, [x2]
  st2 {v1.8b, v2.8b}, [x2]
  ld3 {v1.8b, v2.8b, v3.8b}, [x2]
  st3 {v1.8b, v2.8b, v3.8b}, [x2]
  ld4 {v1.8b, v2.8b, v3.8b, v4.8b}, [x2]
  st4 {v1.8b, v2.8b, v3.8b, v4.8b}, [x2]
  ld1r {v1.8b}, [x2]
  ld1 {v1.4h}, [x2]
  ld1 {v1.4h}, [x2], #8
  st1 {v1.4h}, [x2]
  st1 {v1.4h}, [x2], #8
  ld1 {v1.4h, v2.4h}, [x2]
  ld1 {v1.4h, v2.4h}, [x2], #16
  st1 {v1.4h, v2.4h}, [x2]
  st1 {v1.4h, v2.4h}, [x2], #16
  ld1 {v1.4h, v2.4h, v3.4h}, [x2]
  ld1 {v1.4h, v2.4h, v3.4h}, [x2], #24
  st1 {v1.4h, v2.4h, v3.4h}, [x2]
  st1 {v1.4h, v2.4h, v3.4h}, [x2], #24
  ld1 {v1.4h, v2.4h, v3.4h, v4.4h}, [x2]
  ld1 {v1.4h, v2.4h, v3.4h, v4.4h}, [x2], #32
  st1 {v1.4h, v2.4h, v3.4h, v4.4h}, [x2]
  st1 {v1.4h, v2.4h, v3.4h, v4.4h}, [x2], #32
  ld2 {v1.4h, v2.4h}, [x2]
  st2 {v1.4h, v2.4h}, [x2]
  ld3 {v1.4h, v2.4h, v3.4h}, [x2]
  st3 {v1.4h, v2.4h, v3.4h}, [x2]
  ld4 {v1.4h, v2.4h, v3.4h, v4.4h}, [x2]
  st4 {v1.4h, v2.4h, v3.4h, v4.4h}, [x2]
  ld1r {v1.4h}, [x2]
  ld1 {v1.2s}, [x2]
  ld1 {v1.2s}, [x2], #8
  st1 {v1.2s}, [x2]
  st1 {v1.2s}, [x2], #8
  ld1 {v1.2s, v2.2s}, [x2]
  ld1 {v1.2s, v2.2s}, [x2], #16
  st1 {v1.2s, v2.2s}, [x2]
  st1 {v1.2s, v2.2s}, [x2], #16
  ld1 {v1.2s, v2.2s, v3.2s}, [x2]
  ld1 {v1.2s, v2.2s, v3.2s}, [x2], #24
  st1 {v1.2s, v2.2s, v3.2s}, [x2]
  st1 {v1.2s, v2.2s, v3.2s}, [x2], #24
  ld1 {v1.2s, v2.2s, v3.2s, v4.2s}, [x2]
  ld1 {v1.2s, v2.2s, v3.2s, v4.2s}, [x2], #32
  st1 {v1.2s, v2.2s, v3.2s, v4.2s}, [x2]
  st1 {v1.2s, v2.2s, v3.2s, v4.2s}, [x2], #32
  ld2 {v1.2s, v2.2s}, [x2]
  st2 {v1.2s, v2.2s}, [x2]
  ld3 {v1.2s, v2.2s, v3.2s}, [x2]
  st3 {v1.2s, v2.2s, v3.2s}, [x2]
  ld4 {v1.2s, v2.2s, v3.2s, v4.2s}, [x2]
  st4 {v1.2s, v2.2s, v3.2s, v4.2s}, [x2]
  ld1r {v1.2s}, [x2]
  ld1 {v1.1d}, [x2]
  ld1 {v1.1d}, [x2], #8
  st1 {v1.1d}, [x2]
  st1 {v1.1d}, [x2], #8
  ld1 {v1.1d, v2.1d}, [x2]
  ld1 {v1.1d, v2.1d}, [x2], #16
  st1 {v1.1d, v2.1d}, [x2]
  st1 {v1.1d, v2.1d}, [x2], #16
  ld1 {v1.1d, v2.1d, v3.1d}, [x2]
  ld1 {v1.1d, v2.1d, v3.1d}, [x2], #24
  st1 {v1.1d, v2.1d, v3.1d}, [x2]
  st1 {v1.1d, v2.1d, v3.1d}, [x2], #24
  ld1 {v1.1d, v2.1d, v3.1d, v4.1d}, [x2]
  ld1 {v1.1d, v2.1d, v3.1d, v4.1d}, [x2], #32
  st1 {v1.1d, v2.1d, v3.1d, v4.1d}, [x2]
  st1 {v1.1d, v2.1d, v3.1d, v4.1d}, [x2], #32
  ld1r {v1.1d}, [x2]
  ld1 {v1.b}[1], [x2]
  st1 {v1.b}[1], [x2]
  ld1 {v1.h}[1], [x2]
  st1 {v1.h}[1], [x2]
  ld1 {v1.s}[1], [x2]
  st1 {v1.s}[1], [x2]
  ld1 {v1.d}[1], [x2]
  st1 {v1.d}[1], [x2]
  fadd h1, h2, h3
  fsub h1, h2, h3
  fmul h1, h2, h3
  fdiv h1, h2, h3
  fmax h1, h2, h3
  fmin h1, h2, h3
  fmaxnm h1, h2, h3
  fminnm h1, h2, h3
  fnmul h1, h2, h3
  fabd h1, h2, h3
  fmadd h1, h2, h3, h4
  fmsub h1, h2, h3, h4
  fnmadd h1, h2, h3, h4
  fnmsub h1, h2, h3, h4
  fsqrt h1, h2
  fabs h1, h2
  fneg h1, h2
  fmov h1, h2
  frintn h1, h2
  frintm h1, h2
  frintp h1, h2
  frintz h1, h2
  frinta h1, h2
  frintx h1, h2
  frinti h1, h2
  fcmp h1, h2
  fcmp h1, #0.0
  fcmpe h1, h2
  fccmp h1, h2, #0, ne
  fcsel h1, h2, h3, ne
  fmov h1, #1.0
  fcvtzs x1, h2
  fcvtzu x1, h2
  fcvtas x1, h2
  fcvtns x1, h2
  fcvtms x1, h2
  fcvtps x1, h2
  scvtf h1, x2
  ucvtf h1, x2
  fcvtzs w1, h2
  fcvtzu w1, h2
  fcvtas w1, h2
  fcvtns w1, h2
  fcvtms w1, h2
  fcvtps w1, h2
  scvtf h1, w2
  ucvtf h1, w2
  fadd s1, s2, s3
  fsub s1, s2, s3
  fmul s1, s2, s3
  fdiv s1, s2, s3
  fmax s1, s2, s3
  fmin s1, s2, s3
  fmaxnm s1, s2, s3
  fminnm s1, s2, s3
  fnmul s1, s2, s3
  fabd s1, s2, s3
  fmadd s1, s2, s3, s4
  fmsub s1, s2, s3, s4
  fnmadd s1, s2, s3, s4
  fnmsub s1, s2, s3, s4
  fsqrt s1, s2
  fabs s1, s2
  fneg s1, s2
  fmov s1, s2
  frintn s1, s2
  frintm s1, s2
  frintp s1, s2
  frintz s1, s2
  frinta s1, s2
  frintx s1, s2
  frinti s1, s2
  fcmp s1, s2
  fcmp s1, #0.0
  fcmpe s1, s2
  fccmp s1, s2, #0, ne
  fcsel s1, s2, s3, ne
  fmov s1, #1.0
  fcvtzs x1, s2
  fcvtzu x1, s2
  fcvtas x1, s2
  fcvtns x1, s2
  fcvtms x1, s2
  fcvtps x1, s2
  scvtf s1, x2
  ucvtf s1, x2
  fcvtzs w1, s2
  fcvtzu w1, s2
  fcvtas w1, s2
  fcvtns w1, s2
  fcvtms w1, s2
  fcvtps w1, s2
  scvtf s1, w2
  ucvtf s1, w2
  fadd d1, d2, d3
  fsub d1, d2, d3
  fmul d1, d2, d3
  fdiv d1, d2, d3
  fmax d1, d2, d3
  fmin d1, d2, d3
  fmaxnm d1, d2, d3
  fminnm d1, d2, d3
  fnmul d1, d2, d3
  fabd d1, d2, d3
  fmadd d1, d2, d3, d4
  fmsub d1, d2, d3, d4
  fnmadd d1, d2, d3, d4
  fnmsub d1, d2, d3, d4
  fsqrt d1, d2
  fabs d1, d2
  fneg d1, d2
  fmov d1, d2
  frintn d1, d2
  frintm d1, d2
  frintp d1, d2
  frintz d1, d2
  frinta d1, d2
  frintx d1, d2
  frinti d1, d2
  fcmp d1, d2
  fcmp d1, #0.0
  fcmpe d1, d2
  fccmp d1, d2, #0, ne
  fcsel d1, d2, d3, ne
  fmov d1, #1.0
  fcvtzs x1, d2
  fcvtzu x1, d2
  fcvtas x1, d2
  fcvtns x1, d2
  fcvtms x1, d2
  fcvtps x1, d2
  scvtf d1, x2
  ucvtf d1, x2
  fcvtzs w1, d2
  fcvtzu w1, d2
  fcvtas w1, d2
  fcvtns w1, d2
  fcvtms w1, d2
  fcvtps w1, d2
  scvtf d1, w2
  ucvtf d1, w2
  fmov x1, d2
  fmov d1, x2
  fmov w1, s2
  fmov s1, w2
  fmov v1.d[1], x2
  fmov x1, v2.d[1]
  fcvt d1, s2
  fcvt s1, d2
  fcvt h1, s2
  fcvt s1, h2
  fadd v1.4h, v2.4h, v3.4h
  fsub v1.4h, v2.4h, v3.4h
  fmul v1.4h, v2.4h, v3.4h
  fdiv v1.4h, v2.4h, v3.4h
  fmax v1.4h, v2.4h, v3.4h
  fmin v1.4h, v2.4h, v3.4h
  fmaxnm v1.4h, v2.4h, v3.4h
  fminnm v1.4h, v2.4h, v3.4h
  fabd v1.4h, v2.4h, v3.4h
  faddp v1.4h, v2.4h, v3.4h
  fmaxp v1.4h, v2.4h, v3.4h
  fminp v1.4h, v2.4h, v3.4h
  fmla v1.4h, v2.4h, v3.4h
  fmls v1.4h, v2.4h, v3.4h
  fmulx v1.4h, v2.4h, v3.4h
  frecps v1.4h, v2.4h, v3.4h
  frsqrts v1.4h, v2.4h, v3.4h
  fcmeq v1.4h, v2.4h, v3.4h
  fcmge v1.4h, v2.4h, v3.4h
  fcmgt v1.4h, v2.4h, v3.4h
  facge v1.4h, v2.4h, v3.4h
  facgt v1.4h, v2.4h, v3.4h
  fsqrt v1.4h, v2.4h
  fabs v1.4h, v2.4h
  fneg v1.4h, v2.4h
  frintn v1.4h, v2.4h
  frintm v1.4h, v2.4h
  frintp v1.4h, v2.4h
  frintz v1.4h, v2.4h
  frinta v1.4h, v2.4h
  frintx v1.4h, v2.4h
  frinti v1.4h, v2.4h
  frecpe v1.4h, v2.4h
  frsqrte v1.4h, v2.4h
  fcvtzs v1.4h, v2.4h
  fcvtzu v1.4h, v2.4h
  scvtf v1.4h, v2.4h
  ucvtf v1.4h, v2.4h
  fcvtns v1.4h, v2.4h
  fcvtas v1.4h, v2.4h
  fcvtms v1.4h, v2.4h
  fcvtps v1.4h, v2.4h
  fmla v1.4h, v2.4h, v3.h[1]
  fmls v1.4h, v2.4h, v3.h[1]
  fmul v1.4h, v2.4h, v3.h[1]
  fcmeq v1.4h, v2.4h, #0.0
  fmov v1.4h, #1.0
  fadd v1.8h, v2.8h, v3.8h
  fsub v1.8h, v2.8h, v3.8h
  fmul v1.8h, v2.8h, v3.8h
  fdiv v1.8h, v2.8h, v3.8h
  fmax v1.8h, v2.8h, v3.8h
  fmin v1.8h, v2.8h, v3.8h
  fmaxnm v1.8h, v2.8h, v3.8h
  fminnm v1.8h, v2.8h, v3.8h
  fabd v1.8h, v2.8h, v3.8h
  faddp v1.8h, v2.8h, v3.8h
  fmaxp v1.8h, v2.8h, v3.8h
  fminp v1.8h, v2.8h, v3.8h
  fmla v1.8h, v2.8h, v3.8h
  fmls v1.8h, v2.8h, v3.8h
  fmulx v1.8h, v2.8h, v3.8h
  frecps v1.8h, v2.8h, v3.8h
  frsqrts v1.8h, v2.8h, v3.8h
  fcmeq v1.8h, v2.8h, v3.8h
  fcmge v1.8h, v2.8h, v3.8h
  fcmgt v1.8h, v2.8h, v3.8h
  facge v1.8h, v2.8h, v3.8h
  facgt v1.8h, v2.8h, v3.8h
  fsqrt v1.8h, v2.8h
  fabs v1.8h, v2.8h
  fneg v1.8h, v2.8h
  frintn v1.8h, v2.8h
  frintm v1.8h, v2.8h
  frintp v1.8h, v2.8h
  frintz v1.8h, v2.8h
  frinta v1.8h, v2.8h
  frintx v1.8h, v2.8h
  frinti v1.8h, v2.8h
  frecpe v1.8h, v2.8h
  frsqrte v1.8h, v2.8h
  fcvtzs v1.8h, v2.8h
  fcvtzu v1.8h, v2.8h
  scvtf v1.8h, v2.8h
  ucvtf v1.8h, v2.8h
  fcvtns v1.8h, v2.8h
  fcvtas v1.8h, v2.8h
  fcvtms v1.8h, v2.8h
  fcvtps v1.8h, v2.8h
  fmla v1.8h, v2.8h, v3.h[1]
  fmls v1.8h, v2.8h, v3.h[1]
  fmul v1.8h, v2.8h, v3.h[1]
  fcmeq v1.8h, v2.8h, #0.0
  fmov v1.8h, #1.0
  fadd v1.2s, v2.2s, v3.2s
  fsub v1.2s, v2.2s, v3.2s
  fmul v1.2s, v2.2s, v3.2s
  fdiv v1.2s, v2.2s, v3.2s
  fmax v1.2s, v2.2s, v3.2s
  fmin v1.2s, v2.2s, v3.2s
  fmaxnm v1.2s, v2.2s, v3.2s
  fminnm v1.2s, v2.2s, v3.2s
  fabd v1.2s, v2.2s, v3.2s
  faddp v1.2s, v2.2s, v3.2s
  fmaxp v1.2s, v2.2s, v3.2s
  fminp v1.2s, v2.2s, v3.2s
  fmla v1.2s, v2.2s, v3.2s
  fmls v1.2s, v2.2s, v3.2s
  fmulx v1.2s, v2.2s, v3.2s
  frecps v1.2s, v2.2s, v3.2s
  frsqrts v1.2s, v2.2s, v3.2s
  fcmeq v1.2s, v2.2s, v3.2s
  fcmge v1.2s, v2.2s, v3.2s
  fcmgt v1.2s, v2.2s, v3.2s
  facge v1.2s, v2.2s, v3.2s
  facgt v1.2s, v2.2s, v3.2s
  fsqrt v1.2s, v2.2s
  fabs v1.2s, v2.2s
  fneg v1.2s, v2.2s
  frintn v1.2s, v2.2s
  frintm v1.2s, v2.2s
  frintp v1.2s, v2.2s
  frintz v1.2s, v2.2s
  frinta v1.2s, v2.2s
  frintx v1.2s, v2.2s
  frinti v1.2s, v2.2s
  frecpe v1.2s, v2.2s
  frsqrte v1.2s, v2.2s
  fcvtzs v1.2s, v2.2s
  fcvtzu v1.2s, v2.2s
  scvtf v1.2s, v2.2s
  ucvtf v1.2s, v2.2s
  fcvtns v1.2s, v2.2s
  fcvtas v1.2s, v2.2s
  fcvtms v1.2s, v2.2s
  fcvtps v1.2s, v2.2s
  fmla v1.2s, v2.2s, v3.s[1]
  fmls v1.2s, v2.2s, v3.s[1]
  fmul v1.2s, v2.2s, v3.s[1]
  fcmeq v1.2s, v2.2s, #0.0
  fmov v1.2s, #1.0
  fadd v1.4s, v2.4s, v3.4s
  fsub v1.4s, v2.4s, v3.4s
  fmul v1.4s, v2.4s, v3.4s
  fdiv v1.4s, v2.4s, v3.4s
  fmax v1.4s, v2.4s, v3.4s
  fmin v1.4s, v2.4s, v3.4s
  fmaxnm v1.4s, v2.4s, v3.4s
  fminnm v1.4s, v2.4s, v3.4s
  fabd v1.4s, v2.4s, v3.4s
  faddp v1.4s, v2.4s, v3.4s
  fmaxp v1.4s, v2.4s, v3.4s
  fminp v1.4s, v2.4s, v3.4s
  fmla v1.4s, v2.4s, v3.4s
  fmls v1.4s, v2.4s, v3.4s
  fmulx v1.4s, v2.4s, v3.4s
  frecps v1.4s, v2.4s, v3.4s
  frsqrts v1.4s, v2.4s, v3.4s
  fcmeq v1.4s, v2.4s, v3.4s
  fcmge v1.4s, v2.4s, v3.4s
  fcmgt v1.4s, v2.4s, v3.4s
  facge v1.4s, v2.4s, v3.4s
  facgt v1.4s, v2.4s, v3.4s
  fsqrt v1.4s, v2.4s
  fabs v1.4s, v2.4s
  fneg v1.4s, v2.4s
  frintn v1.4s, v2.4s
  frintm v1.4s, v2.4s
  frintp v1.4s, v2.4s
  frintz v1.4s, v2.4s
  frinta v1.4s, v2.4s
  frintx v1.4s, v2.4s
  frinti v1.4s, v2.4s
  frecpe v1.4s, v2.4s
  frsqrte v1.4s, v2.4s
  fcvtzs v1.4s, v2.4s
  fcvtzu v1.4s, v2.4s
  scvtf v1.4s, v2.4s
  ucvtf v1.4s, v2.4s
  fcvtns v1.4s, v2.4s
  fcvtas v1.4s, v2.4s
  fcvtms v1.4s, v2.4s
  fcvtps v1.4s, v2.4s
  fmla v1.4s, v2.4s, v3.s[1]
  fmls v1.4s, v2.4s, v3.s[1]
  fmul v1.4s, v2.4s, v3.s[1]
  fcmeq v1.4s, v2.4s, #0.0
  fmov v1.4s, #1.0
  fadd v1.2d, v2.2d, v3.2d
  fsub v1.2d, v2.2d, v3.2d
  fmul v1.2d, v2.2d, v3.2d
  fdiv v1.2d, v2.2d, v3.2d
  fmax v1.2d, v2.2d, v3.2d
  fmin v1.2d, v2.2d, v3.2d
  fmaxnm v1.2d, v2.2d, v3.2d
  fminnm v1.2d, v2.2d, v3.2d
  fabd v1.2d, v2.2d, v3.2d
  faddp v1.2d, v2.2d, v3.2d
  fmaxp v1.2d, v2.2d, v3.2d
  fminp v1.2d, v2.2d, v3.2d
  fmla v1.2d, v2.2d, v3.2d
  fmls v1.2d, v2.2d, v3.2d
  fmulx v1.2d, v2.2d, v3.2d
  frecps v1.2d, v2.2d, v3.2d
  frsqrts v1.2d, v2.2d, v3.2d
  fcmeq v1.2d, v2.2d, v3.2d
  fcmge v1.2d, v2.2d, v3.2d
  fcmgt v1.2d, v2.2d, v3.2d
  facge v1.2d, v2.2d, v3.2d
  facgt v1.2d, v2.2d, v3.2d
  fsqrt v1.2d, v2.2d
  fabs v1.2d, v2.2d
  fneg v1.2d, v2.2d
  frintn v1.2d, v2.2d
  frintm v1.2d, v2.2d
  frintp v1.2d, v2.2d
  frintz v1.2d, v2.2d
  frinta v1.2d, v2.2d
  frintx v1.2d, v2.2d
  frinti v1.2d, v2.2d
  frecpe v1.2d, v2.2d
  frsqrte v1.2d, v2.2d
  fcvtzs v1.2d, v2.2d
  fcvtzu v1.2d, v2.2d
  scvtf v1.2d, v2.2d
  ucvtf v1.2d, v2.2d
  fcvtns v1.2d, v2.2d
  fcvtas v1.2d, v2.2d
  fcvtms v1.2d, v2.2d
  fcvtps v1.2d, v2.2d
  fmla v1.2d, v2.2d, v3.d[1]
  fmls v1.2d, v2.2d, v3.d[1]
  fmul v1.2d, v2.2d, v3.d[1]
  fcmeq v1.2d, v2.2d, #0.0
  fmov v1.2d, #1.0
  fmla d1, d2, v3.d[1]
  fmla s1, s2, v3.s[1]
  fmul d1, d2, v3.d[1]
  faddp d1, v2.2d
  faddp s1, v2.2s
  fmaxnmv s1, v2.4s
  fmaxv s1, v2.4s
  fminv s1, v2.4s
  fcvtl v1.2d, v2.2s
  fcvtl2 v1.2d, v2.4s
  fcvtn v1.2s, v2.2d
  fcvtn2 v1.4s, v2.2d
  add v1.8b, v2.8b, v3.8b
  sub v1.8b, v2.8b, v3.8b
  cmeq v1.8b, v2.8b, v3.8b
  cmgt v1.8b, v2.8b, v3.8b
  cmge v1.8b, v2.8b, v3.8b
  cmhi v1.8b, v2.8b, v3.8b
  cmhs v1.8b, v2.8b, v3.8b
  cmtst v1.8b, v2.8b, v3.8b
  sqadd v1.8b, v2.8b, v3.8b
  uqadd v1.8b, v2.8b, v3.8b
  sqsub v1.8b, v2.8b, v3.8b
  uqsub v1.8b, v2.8b, v3.8b
  sshl v1.8b, v2.8b, v3.8b
  ushl v1.8b, v2.8b, v3.8b
  mul v1.8b, v2.8b, v3.8b
  mla v1.8b, v2.8b, v3.8b
  mls v1.8b, v2.8b, v3.8b
  smax v1.8b, v2.8b, v3.8b
  smin v1.8b, v2.8b, v3.8b
  umax v1.8b, v2.8b, v3.8b
  umin v1.8b, v2.8b, v3.8b
  sabd v1.8b, v2.8b, v3.8b
  uabd v1.8b, v2.8b, v3.8b
  saba v1.8b, v2.8b, v3.8b
  uaba v1.8b, v2.8b, v3.8b
  addp v1.8b, v2.8b, v3.8b
  smaxp v1.8b, v2.8b, v3.8b
  uminp v1.8b, v2.8b, v3.8b
  shadd v1.8b, v2.8b, v3.8b
  uhadd v1.8b, v2.8b, v3.8b
  srhadd v1.8b, v2.8b, v3.8b
  urhadd v1.8b, v2.8b, v3.8b
  abs v1.8b, v2.8b
  neg v1.8b, v2.8b
  cmeq v1.8b, v2.8b, #0
  cmlt v1.8b, v2.8b, #0
  shl v1.8b, v2.8b, #3
  sshr v1.8b, v2.8b, #3
  ushr v1.8b, v2.8b, #3
  ssra v1.8b, v2.8b, #3
  usra v1.8b, v2.8b, #3
  srshr v1.8b, v2.8b, #3
  urshr v1.8b, v2.8b, #3
  sli v1.8b, v2.8b, #3
  sri v1.8b, v2.8b, #3
  dup v1.8b, v2.b[1]
  dup v1.8b, w2
  zip1 v1.8b, v2.8b, v3.8b
  zip2 v1.8b, v2.8b, v3.8b
  uzp1 v1.8b, v2.8b, v3.8b
  uzp2 v1.8b, v2.8b, v3.8b
  trn1 v1.8b, v2.8b, v3.8b
  trn2 v1.8b, v2.8b, v3.8b
  add v1.16b, v2.16b, v3.16b
  sub v1.16b, v2.16b, v3.16b
  cmeq v1.16b, v2.16b, v3.16b
  cmgt v1.16b, v2.16b, v3.16b
  cmge v1.16b, v2.16b, v3.16b
  cmhi v1.16b, v2.16b, v3.16b
  cmhs v1.16b, v2.16b, v3.16b
  cmtst v1.16b, v2.16b, v3.16b
  sqadd v1.16b, v2.16b, v3.16b
  uqadd v1.16b, v2.16b, v3.16b
  sqsub v1.16b, v2.16b, v3.16b
  uqsub v1.16b, v2.16b, v3.16b
  sshl v1.16b, v2.16b, v3.16b
  ushl v1.16b, v2.16b, v3.16b
  mul v1.16b, v2.16b, v3.16b
  mla v1.16b, v2.16b, v3.16b
  mls v1.16b, v2.16b, v3.16b
  smax v1.16b, v2.16b, v3.16b
  smin v1.16b, v2.16b, v3.16b
  umax v1.16b, v2.16b, v3.16b
  umin v1.16b, v2.16b, v3.16b
  sabd v1.16b, v2.16b, v3.16b
  uabd v1.16b, v2.16b, v3.16b
  saba v1.16b, v2.16b, v3.16b
  uaba v1.16b, v2.16b, v3.16b
  addp v1.16b, v2.16b, v3.16b
  smaxp v1.16b, v2.16b, v3.16b
  uminp v1.16b, v2.16b, v3.16b
  shadd v1.16b, v2.16b, v3.16b
  uhadd v1.16b, v2.16b, v3.16b
  srhadd v1.16b, v2.16b, v3.16b
  urhadd v1.16b, v2.16b, v3.16b
  abs v1.16b, v2.16b
  neg v1.16b, v2.16b
  cmeq v1.16b, v2.16b, #0
  cmlt v1.16b, v2.16b, #0
  shl v1.16b, v2.16b, #3
  sshr v1.16b, v2.16b, #3
  ushr v1.16b, v2.16b, #3
  ssra v1.16b, v2.16b, #3
  usra v1.16b, v2.16b, #3
  srshr v1.16b, v2.16b, #3
  urshr v1.16b, v2.16b, #3
  sli v1.16b, v2.16b, #3
  sri v1.16b, v2.16b, #3
  dup v1.16b, v2.b[1]
  dup v1.16b, w2
  zip1 v1.16b, v2.16b, v3.16b
  zip2 v1.16b, v2.16b, v3.16b
  uzp1 v1.16b, v2.16b, v3.16b
  uzp2 v1.16b, v2.16b, v3.16b
  trn1 v1.16b, v2.16b, v3.16b
  trn2 v1.16b, v2.16b, v3.16b
  add v1.4h, v2.4h, v3.4h
  sub v1.4h, v2.4h, v3.4h
  cmeq v1.4h, v2.4h, v3.4h
  cmgt v1.4h, v2.4h, v3.4h
  cmge v1.4h, v2.4h, v3.4h
  cmhi v1.4h, v2.4h, v3.4h
  cmhs v1.4h, v2.4h, v3.4h
  cmtst v1.4h, v2.4h, v3.4h
  sqadd v1.4h, v2.4h, v3.4h
  uqadd v1.4h, v2.4h, v3.4h
  sqsub v1.4h, v2.4h, v3.4h
  uqsub v1.4h, v2.4h, v3.4h
  sshl v1.4h, v2.4h, v3.4h
  ushl v1.4h, v2.4h, v3.4h
  mul v1.4h, v2.4h, v3.4h
  mla v1.4h, v2.4h, v3.4h
  mls v1.4h, v2.4h, v3.4h
  smax v1.4h, v2.4h, v3.4h
  smin v1.4h, v2.4h, v3.4h
  umax v1.4h, v2.4h, v3.4h
  umin v1.4h, v2.4h, v3.4h
  sabd v1.4h, v2.4h, v3.4h
  uabd v1.4h, v2.4h, v3.4h
  saba v1.4h, v2.4h, v3.4h
  uaba v1.4h, v2.4h, v3.4h
  addp v1.4h, v2.4h, v3.4h
  smaxp v1.4h, v2.4h, v3.4h
  uminp v1.4h, v2.4h, v3.4h
  shadd v1.4h, v2.4h, v3.4h
  uhadd v1.4h, v2.4h, v3.4h
  srhadd v1.4h, v2.4h, v3.4h
  urhadd v1.4h, v2.4h, v3.4h
  abs v1.4h, v2.4h
  neg v1.4h, v2.4h
  cmeq v1.4h, v2.4h, #0
  cmlt v1.4h, v2.4h, #0
  shl v1.4h, v2.4h, #5
  sshr v1.4h, v2.4h, #5
  ushr v1.4h, v2.4h, #5
  ssra v1.4h, v2.4h, #5
  usra v1.4h, v2.4h, #5
  srshr v1.4h, v2.4h, #5
  urshr v1.4h, v2.4h, #5
  sli v1.4h, v2.4h, #5
  sri v1.4h, v2.4h, #5
  dup v1.4h, v2.h[1]
  dup v1.4h, w2
  zip1 v1.4h, v2.4h, v3.4h
  zip2 v1.4h, v2.4h, v3.4h
  uzp1 v1.4h, v2.4h, v3.4h
  uzp2 v1.4h, v2.4h, v3.4h
  trn1 v1.4h, v2.4h, v3.4h
  trn2 v1.4h, v2.4h, v3.4h
  add v1.8h, v2.8h, v3.8h
  sub v1.8h, v2.8h, v3.8h
  cmeq v1.8h, v2.8h, v3.8h
  cmgt v1.8h, v2.8h, v3.8h
  cmge v1.8h, v2.8h, v3.8h
  cmhi v1.8h, v2.8h, v3.8h
  cmhs v1.8h, v2.8h, v3.8h
  cmtst v1.8h, v2.8h, v3.8h
  sqadd v1.8h, v2.8h, v3.8h
  uqadd v1.8h, v2.8h, v3.8h
  sqsub v1.8h, v2.8h, v3.8h
  uqsub v1.8h, v2.8h, v3.8h
  sshl v1.8h, v2.8h, v3.8h
  ushl v1.8h, v2.8h, v3.8h
  mul v1.8h, v2.8h, v3.8h
  mla v1.8h, v2.8h, v3.8h
  mls v1.8h, v2.8h, v3.8h
  smax v1.8h, v2.8h, v3.8h
  smin v1.8h, v2.8h, v3.8h
  umax v1.8h, v2.8h, v3.8h
  umin v1.8h, v2.8h, v3.8h
  sabd v1.8h, v2.8h, v3.8h
  uabd v1.8h, v2.8h, v3.8h
  saba v1.8h, v2.8h, v3.8h
  uaba v1.8h, v2.8h, v3.8h
  addp v1.8h, v2.8h, v3.8h
  smaxp v1.8h, v2.8h, v3.8h
  uminp v1.8h, v2.8h, v3.8h
  shadd v1.8h, v2.8h, v3.8h
  uhadd v1.8h, v2.8h, v3.8h
  srhadd v1.8h, v2.8h, v3.8h
  urhadd v1.8h, v2.8h, v3.8h
  abs v1.8h, v2.8h
  neg v1.8h, v2.8h
  cmeq v1.8h, v2.8h, #0
  cmlt v1.8h, v2.8h, #0
  shl v1.8h, v2.8h, #5
  sshr v1.8h, v2.8h, #5
  ushr v1.8h, v2.8h, #5
  ssra v1.8h, v2.8h, #5
  usra v1.8h, v2.8h, #5
  srshr v1.8h, v2.8h, #5
  urshr v1.8h, v2.8h, #5
  sli v1.8h, v2.8h, #5
  sri v1.8h, v2.8h, #5
  dup v1.8h, v2.h[1]
  dup v1.8h, w2
  zip1 v1.8h, v2.8h, v3.8h
  zip2 v1.8h, v2.8h, v3.8h
  uzp1 v1.8h, v2.8h, v3.8h
  uzp2 v1.8h, v2.8h, v3.8h
  trn1 v1.8h, v2.8h, v3.8h
  trn2 v1.8h, v2.8h, v3.8h
  add v1.2s, v2.2s, v3.2s
  sub v1.2s, v2.2s, v3.2s
  cmeq v1.2s, v2.2s, v3.2s
  cmgt v1.2s, v2.2s, v3.2s
  cmge v1.2s, v2.2s, v3.2s
  cmhi v1.2s, v2.2s, v3.2s
  cmhs v1.2s, v2.2s, v3.2s
  cmtst v1.2s, v2.2s, v3.2s
  sqadd v1.2s, v2.2s, v3.2s
  uqadd v1.2s, v2.2s, v3.2s
  sqsub v1.2s, v2.2s, v3.2s
  uqsub v1.2s, v2.2s, v3.2s
  sshl v1.2s, v2.2s, v3.2s
  ushl v1.2s, v2.2s, v3.2s
  mul v1.2s, v2.2s, v3.2s
  mla v1.2s, v2.2s, v3.2s
  mls v1.2s, v2.2s, v3.2s
  smax v1.2s, v2.2s, v3.2s
  smin v1.2s, v2.2s, v3.2s
  umax v1.2s, v2.2s, v3.2s
  umin v1.2s, v2.2s, v3.2s
  sabd v1.2s, v2.2s, v3.2s
  uabd v1.2s, v2.2s, v3.2s
  saba v1.2s, v2.2s, v3.2s
  uaba v1.2s, v2.2s, v3.2s
  addp v1.2s, v2.2s, v3.2s
  smaxp v1.2s, v2.2s, v3.2s
  uminp v1.2s, v2.2s, v3.2s
  shadd v1.2s, v2.2s, v3.2s
  uhadd v1.2s, v2.2s, v3.2s
  srhadd v1.2s, v2.2s, v3.2s
  urhadd v1.2s, v2.2s, v3.2s
  abs v1.2s, v2.2s
  neg v1.2s, v2.2s
  cmeq v1.2s, v2.2s, #0
  cmlt v1.2s, v2.2s, #0
  shl v1.2s, v2.2s, #7
  sshr v1.2s, v2.2s, #9
  ushr v1.2s, v2.2s, #9
  ssra v1.2s, v2.2s, #9
  usra v1.2s, v2.2s, #9
  srshr v1.2s, v2.2s, #9
  urshr v1.2s, v2.2s, #9
  sli v1.2s, v2.2s, #7
  sri v1.2s, v2.2s, #9
  dup v1.2s, v2.s[1]
  dup v1.2s, w2
  zip1 v1.2s, v2.2s, v3.2s
  zip2 v1.2s, v2.2s, v3.2s
  uzp1 v1.2s, v2.2s, v3.2s
  uzp2 v1.2s, v2.2s, v3.2s
  trn1 v1.2s, v2.2s, v3.2s
  trn2 v1.2s, v2.2s, v3.2s
  add v1.4s, v2.4s, v3.4s
  sub v1.4s, v2.4s, v3.4s
  cmeq v1.4s, v2.4s, v3.4s
  cmgt v1.4s, v2.4s, v3.4s
  cmge v1.4s, v2.4s, v3.4s
  cmhi v1.4s, v2.4s, v3.4s
  cmhs v1.4s, v2.4s, v3.4s
  cmtst v1.4s, v2.4s, v3.4s
  sqadd v1.4s, v2.4s, v3.4s
  uqadd v1.4s, v2.4s, v3.4s
  sqsub v1.4s, v2.4s, v3.4s
  uqsub v1.4s, v2.4s, v3.4s
  sshl v1.4s, v2.4s, v3.4s
  ushl v1.4s, v2.4s, v3.4s
  mul v1.4s, v2.4s, v3.4s
  mla v1.4s, v2.4s, v3.4s
  mls v1.4s, v2.4s, v3.4s
  smax v1.4s, v2.4s, v3.4s
  smin v1.4s, v2.4s, v3.4s
  umax v1.4s, v2.4s, v3.4s
  umin v1.4s, v2.4s, v3.4s
  sabd v1.4s, v2.4s, v3.4s
  uabd v1.4s, v2.4s, v3.4s
  saba v1.4s, v2.4s, v3.4s
  uaba v1.4s, v2.4s, v3.4s
  addp v1.4s, v2.4s, v3.4s
  smaxp v1.4s, v2.4s, v3.4s
  uminp v1.4s, v2.4s, v3.4s
  shadd v1.4s, v2.4s, v3.4s
  uhadd v1.4s, v2.4s, v3.4s
  srhadd v1.4s, v2.4s, v3.4s
  urhadd v1.4s, v2.4s, v3.4s
  abs v1.4s, v2.4s
  neg v1.4s, v2.4s
  cmeq v1.4s, v2.4s, #0
  cmlt v1.4s, v2.4s, #0
  shl v1.4s, v2.4s, #7
  sshr v1.4s, v2.4s, #9
  ushr v1.4s, v2.4s, #9
  ssra v1.4s, v2.4s, #9
  usra v1.4s, v2.4s, #9
  srshr v1.4s, v2.4s, #9
  urshr v1.4s, v2.4s, #9
  sli v1.4s, v2.4s, #7
  sri v1.4s, v2.4s, #9
  dup v1.4s, v2.s[1]
  dup v1.4s, w2
  zip1 v1.4s, v2.4s, v3.4s
  zip2 v1.4s, v2.4s, v3.4s
  uzp1 v1.4s, v2.4s, v3.4s
  uzp2 v1.4s, v2.4s, v3.4s
  trn1 v1.4s, v2.4s, v3.4s
  trn2 v1.4s, v2.4s, v3.4s
  add v1.2d, v2.2d, v3.2d
  sub v1.2d, v2.2d, v3.2d
  cmeq v1.2d, v2.2d, v3.2d
  cmgt v1.2d, v2.2d, v3.2d
  cmge v1.2d, v2.2d, v3.2d
  cmhi v1.2d, v2.2d, v3.2d
  cmhs v1.2d, v2.2d, v3.2d
  cmtst v1.2d, v2.2d, v3.2d
  sqadd v1.2d, v2.2d, v3.2d
  uqadd v1.2d, v2.2d, v3.2d
  sqsub v1.2d, v2.2d, v3.2d
  uqsub v1.2d, v2.2d, v3.2d
  sshl v1.2d, v2.2d, v3.2d
  ushl v1.2d, v2.2d, v3.2d
  abs v1.2d, v2.2d
  neg v1.2d, v2.2d
  cmeq v1.2d, v2.2d, #0
  cmlt v1.2d, v2.2d, #0
  shl v1.2d, v2.2d, #7
  sshr v1.2d, v2.2d, #17
  ushr v1.2d, v2.2d, #17
  ssra v1.2d, v2.2d, #17
  usra v1.2d, v2.2d, #17
  srshr v1.2d, v2.2d, #17
  urshr v1.2d, v2.2d, #17
  sli v1.2d, v2.2d, #7
  sri v1.2d, v2.2d, #17
  dup v1.2d, x2
  zip1 v1.2d, v2.2d, v3.2d
  zip2 v1.2d, v2.2d, v3.2d
  uzp1 v1.2d, v2.2d, v3.2d
  uzp2 v1.2d, v2.2d, v3.2d
  trn1 v1.2d, v2.2d, v3.2d
  trn2 v1.2d, v2.2d, v3.2d
  and v1.8b, v2.8b, v3.8b
  orr v1.8b, v2.8b, v3.8b
  eor v1.8b, v2.8b, v3.8b
  bic v1.8b, v2.8b, v3.8b
  orn v1.8b, v2.8b, v3.8b
  bsl v1.8b, v2.8b, v3.8b
  bit v1.8b, v2.8b, v3.8b
  bif v1.8b, v2.8b, v3.8b
  not v1.8b, v2.8b
  cnt v1.8b, v2.8b
  rbit v1.8b, v2.8b
  rev16 v1.8b, v2.8b
  rev32 v1.8b, v2.8b
  rev64 v1.8b, v2.8b
  ext v1.8b, v2.8b, v3.8b, #3
  tbl v1.8b, {v2.16b}, v3.8b
  tbl v1.8b, {v2.16b, v3.16b}, v4.8b
  tbx v1.8b, {v2.16b}, v3.8b
  and v1.16b, v2.16b, v3.16b
  orr v1.16b, v2.16b, v3.16b
  eor v1.16b, v2.16b, v3.16b
  bic v1.16b, v2.16b, v3.16b
  orn v1.16b, v2.16b, v3.16b
  bsl v1.16b, v2.16b, v3.16b
  bit v1.16b, v2.16b, v3.16b
  bif v1.16b, v2.16b, v3.16b
  not v1.16b, v2.16b
  cnt v1.16b, v2.16b
  rbit v1.16b, v2.16b
  rev16 v1.16b, v2.16b
  rev32 v1.16b, v2.16b
  rev64 v1.16b, v2.16b
  ext v1.16b, v2.16b, v3.16b, #3
  tbl v1.16b, {v2.16b}, v3.16b
  tbl v1.16b, {v2.16b, v3.16b}, v4.16b
  tbx v1.16b, {v2.16b}, v3.16b
  mul v1.4h, v2.4h, v3.h[1]
  mla v1.4h, v2.4h, v3.h[1]
  mls v1.4h, v2.4h, v3.h[1]
  sqdmulh v1.4h, v2.4h, v3.h[1]
  sqrdmulh v1.4h, v2.4h, v3.h[1]
  mul v1.8h, v2.8h, v3.h[1]
  mla v1.8h, v2.8h, v3.h[1]
  mls v1.8h, v2.8h, v3.h[1]
  sqdmulh v1.8h, v2.8h, v3.h[1]
  sqrdmulh v1.8h, v2.8h, v3.h[1]
  mul v1.2s, v2.2s, v3.s[1]
  mla v1.2s, v2.2s, v3.s[1]
  mls v1.2s, v2.2s, v3.s[1]
  sqdmulh v1.2s, v2.2s, v3.s[1]
  sqrdmulh v1.2s, v2.2s, v3.s[1]
  mul v1.4s, v2.4s, v3.s[1]
  mla v1.4s, v2.4s, v3.s[1]
  mls v1.4s, v2.4s, v3.s[1]
  sqdmulh v1.4s, v2.4s, v3.s[1]
  sqrdmulh v1.4s, v2.4s, v3.s[1]
  saddl v1.8h, v2.8b, v3.8b
  saddl2 v1.8h, v2.16b, v3.16b
  uaddl v1.8h, v2.8b, v3.8b
  uaddl2 v1.8h, v2.16b, v3.16b
  ssubl v1.8h, v2.8b, v3.8b
  ssubl2 v1.8h, v2.16b, v3.16b
  usubl v1.8h, v2.8b, v3.8b
  usubl2 v1.8h, v2.16b, v3.16b
  smull v1.8h, v2.8b, v3.8b
  smull2 v1.8h, v2.16b, v3.16b
  umull v1.8h, v2.8b, v3.8b
  umull2 v1.8h, v2.16b, v3.16b
  smlal v1.8h, v2.8b, v3.8b
  smlal2 v1.8h, v2.16b, v3.16b
  umlal v1.8h, v2.8b, v3.8b
  umlal2 v1.8h, v2.16b, v3.16b
  sabal v1.8h, v2.8b, v3.8b
  sabal2 v1.8h, v2.16b, v3.16b
  uabal v1.8h, v2.8b, v3.8b
  uabal2 v1.8h, v2.16b, v3.16b
  sabdl v1.8h, v2.8b, v3.8b
  sabdl2 v1.8h, v2.16b, v3.16b
  uabdl v1.8h, v2.8b, v3.8b
  uabdl2 v1.8h, v2.16b, v3.16b
  saddw v1.8h, v2.8h, v3.8b
  uaddw v1.8h, v2.8h, v3.8b
  sxtl v1.8h, v2.8b
  uxtl v1.8h, v2.8b
  sshll2 v1.8h, v2.16b, #1
  xtn v1.8b, v2.8h
  xtn2 v1.16b, v2.8h
  sqxtn v1.8b, v2.8h
  shrn v1.8b, v2.8h, #3
  saddlp v1.8h, v2.16b
  uadalp v1.8h, v2.16b
  saddl v1.4s, v2.4h, v3.4h
  saddl2 v1.4s, v2.8h, v3.8h
  uaddl v1.4s, v2.4h, v3.4h
  uaddl2 v1.4s, v2.8h, v3.8h
  ssubl v1.4s, v2.4h, v3.4h
  ssubl2 v1.4s, v2.8h, v3.8h
  usubl v1.4s, v2.4h, v3.4h
  usubl2 v1.4s, v2.8h, v3.8h
  smull v1.4s, v2.4h, v3.4h
  smull2 v1.4s, v2.8h, v3.8h
  umull v1.4s, v2.4h, v3.4h
  umull2 v1.4s, v2.8h, v3.8h
  smlal v1.4s, v2.4h, v3.4h
  smlal2 v1.4s, v2.8h, v3.8h
  umlal v1.4s, v2.4h, v3.4h
  umlal2 v1.4s, v2.8h, v3.8h
  sabal v1.4s, v2.4h, v3.4h
  sabal2 v1.4s, v2.8h, v3.8h
  uabal v1.4s, v2.4h, v3.4h
  uabal2 v1.4s, v2.8h, v3.8h
  sabdl v1.4s, v2.4h, v3.4h
  sabdl2 v1.4s, v2.8h, v3.8h
  uabdl v1.4s, v2.4h, v3.4h
  uabdl2 v1.4s, v2.8h, v3.8h
  saddw v1.4s, v2.4s, v3.4h
  uaddw v1.4s, v2.4s, v3.4h
  sxtl v1.4s, v2.4h
  uxtl v1.4s, v2.4h
  sshll2 v1.4s, v2.8h, #1
  xtn v1.4h, v2.4s
  xtn2 v1.8h, v2.4s
  sqxtn v1.4h, v2.4s
  shrn v1.4h, v2.4s, #3
  saddlp v1.4s, v2.8h
  uadalp v1.4s, v2.8h
  saddl v1.2d, v2.2s, v3.2s
  saddl2 v1.2d, v2.4s, v3.4s
  uaddl v1.2d, v2.2s, v3.2s
  uaddl2 v1.2d, v2.4s, v3.4s
  ssubl v1.2d, v2.2s, v3.2s
  ssubl2 v1.2d, v2.4s, v3.4s
  usubl v1.2d, v2.2s, v3.2s
  usubl2 v1.2d, v2.4s, v3.4s
  smull v1.2d, v2.2s, v3.2s
  smull2 v1.2d, v2.4s, v3.4s
  umull v1.2d, v2.2s, v3.2s
  umull2 v1.2d, v2.4s, v3.4s
  smlal v1.2d, v2.2s, v3.2s
  smlal2 v1.2d, v2.4s, v3.4s
  umlal v1.2d, v2.2s, v3.2s
  umlal2 v1.2d, v2.4s, v3.4s
  sabal v1.2d, v2.2s, v3.2s
  sabal2 v1.2d, v2.4s, v3.4s
  uabal v1.2d, v2.2s, v3.2s
  uabal2 v1.2d, v2.4s, v3.4s
  sabdl v1.2d, v2.2s, v3.2s
  sabdl2 v1.2d, v2.4s, v3.4s
  uabdl v1.2d, v2.2s, v3.2s
  uabdl2 v1.2d, v2.4s, v3.4s
  saddw v1.2d, v2.2d, v3.2s
  uaddw v1.2d, v2.2d, v3.2s
  sxtl v1.2d, v2.2s
  uxtl v1.2d, v2.2s
  sshll2 v1.2d, v2.4s, #1
  xtn v1.2s, v2.2d
  xtn2 v1.4s, v2.2d
  sqxtn v1.2s, v2.2d
  shrn v1.2s, v2.2d, #3
  saddlp v1.2d, v2.4s
  uadalp v1.2d, v2.4s
  addv b1, v2.16b
  umaxv b1, v2.16b
  uminv b1, v2.16b
  addv h1, v2.8h
  umaxv h1, v2.8h
  uminv h1, v2.8h
  addv s1, v2.4s
  umaxv s1, v2.4s
  uminv s1, v2.4s
  addp d1, v2.2d
  uaddlv h1, v2.16b
  sdot v1.4s, v2.16b, v3.16b
  udot v1.4s, v2.16b, v3.16b
  udot v1.4s, v2.16b, v3.4b[1]
  movi v1.16b, #0x7f
  movi v1.2d, #0xff00ff00ff00ff00
  movi d1, #0xff
  mvni v1.4s, #0x10
  orr v1.4s, #0x10
  bic v1.4s, #0x10
  mov v1.b[1], w2
  mov v1.b[1], v2.b[0]
  umov w1, v2.b[1]
  smov x1, v2.b[1]
  mov v1.h[1], w2
  mov v1.h[1], v2.h[0]
  umov w1, v2.h[1]
  smov x1, v2.h[1]
  mov v1.s[1], w2
  mov v1.s[1], v2.s[0]
  umov w1, v2.s[1]
  mov v1.d[1], x2
  mov v1.d[1], v2.d[0]
  umov x1, v2.d[1]
  mov v1.16b, v2.16b
  add d1, d2, d3
  sub d1, d2, d3
  cmeq d1, d2, d3
  ushr d1, d2, #3
  shl d1, d2, #3
  aese v1.16b, v2.16b
  aesmc v1.16b, v2.16b
  aesd v1.16b, v2.16b
  aesimc v1.16b, v2.16b
  pmull v1.1q, v2.1d, v3.1d
  pmull2 v1.1q, v2.2d, v3.2d
  sha256h q1, q2, v3.4s
  sha256su0 v1.4s, v2.4s
  sha1c q1, s2, v3.4s
.Lb:
  b.eq .Lb
  b.ne .Lb
  b.lt .Lb
  b.ge .Lb
  b.hi .Lb
  b.ls .Lb
  b .Lb
  bl .Lb
  br x2
  blr x2
  ret
  cbz x1, .Lb
  cbnz w1, .Lb
  tbz x1, #3, .Lb
  tbnz w1, #3, .Lb
  ldr x1, .Lb
  ldr d1, .Lb
  nop
  dmb ish
  mrs x1, tpidr_el0
  svc #0
