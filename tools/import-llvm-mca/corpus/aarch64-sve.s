// SVE and SVE2 forms for tools/import-llvm-mca --isa aarch64 on cores with SVE (neoverse-v2):
// predicated and unpredicated integer and FP arithmetic in every element size, FMA, reductions,
// predicate logic and generation, counting, permutes, and contiguous, replicating, first-fault,
// non-temporal, structure, gather and scatter loads and stores. One form a line, distinct registers.
.arch armv9-a+sve2+sve2-aes+sve2-bitperm+i8mm+f64mm+bf16
.text
  add z1.b, z2.b, z3.b
  add z1.h, z2.h, z3.h
  add z1.s, z2.s, z3.s
  add z1.d, z2.d, z3.d
  add z1.d, p0/m, z1.d, z3.d
  add z1.s, z1.s, #1
  sub z1.d, z2.d, z3.d
  sub z1.s, p0/m, z1.s, z3.s
  subr z1.d, p0/m, z1.d, z3.d
  sqadd z1.s, z2.s, z3.s
  uqsub z1.h, z2.h, z3.h
  abs z1.d, p0/m, z2.d
  neg z1.s, p0/m, z2.s
  mul z1.d, p0/m, z1.d, z3.d
  mul z1.s, p0/m, z1.s, z3.s
  mul z1.h, z2.h, z3.h
  mul z1.d, z2.d, z3.d
  mul z1.s, z1.s, #3
  smulh z1.s, p0/m, z1.s, z3.s
  umulh z1.d, p0/m, z1.d, z3.d
  mla z1.d, p0/m, z2.d, z3.d
  mla z1.s, p0/m, z2.s, z3.s
  mls z1.s, p0/m, z2.s, z3.s
  mad z1.s, p0/m, z2.s, z3.s
  msb z1.d, p0/m, z2.d, z3.d
  sdiv z1.s, p0/m, z1.s, z3.s
  sdiv z1.d, p0/m, z1.d, z3.d
  udiv z1.d, p0/m, z1.d, z3.d
  sdot z1.s, z2.b, z3.b
  udot z1.d, z2.h, z3.h
  sdot z1.s, z2.b, z3.b[1]
  smax z1.s, p0/m, z1.s, z3.s
  umin z1.b, p0/m, z1.b, z3.b
  smax z1.d, z1.d, #5
  sabd z1.s, p0/m, z1.s, z3.s
  and z1.d, z2.d, z3.d
  orr z1.d, z2.d, z3.d
  eor z1.d, z2.d, z3.d
  bic z1.d, z2.d, z3.d
  and z1.s, p0/m, z1.s, z3.s
  eor z1.d, z1.d, #0x7
  not z1.s, p0/m, z2.s
  lsl z1.d, z2.d, #6
  lsr z1.s, z2.s, #3
  asr z1.s, z2.s, #2
  lsl z1.d, p0/m, z1.d, z3.d
  asr z1.s, p0/m, z1.s, #3
  lsl z1.s, z2.s, z3.d
  cnt z1.s, p0/m, z2.s
  clz z1.d, p0/m, z2.d
  rbit z1.s, p0/m, z2.s
  revb z1.d, p0/m, z2.d
  sxtw z1.d, p0/m, z2.d
  uxtb z1.s, p0/m, z2.s
  mov z1.d, z2.d
  mov z1.d, x3
  mov z1.s, w3
  mov z1.d, d3
  mov z1.d, #5
  mov z1.d, p0/m, z2.d
  mov z1.d, p0/m, x3
  mov z1.s, p0/z, #1
  dup z1.s, z2.s[1]
  movprfx z1, z2
  fmla z1.d, p0/m, z2.d, z3.d
  movprfx z1.d, p0/m, z2.d
  add z1.d, p0/m, z1.d, z3.d
  sel z1.d, p0, z2.d, z3.d
  index z1.d, #0, #1
  index z1.s, w2, w3
  insr z1.d, x2
  fdup z1.d, #1.0
  fmov z1.d, #6.0
  fadd z1.d, z2.d, z3.d
  fadd z1.s, z2.s, z3.s
  fadd z1.h, z2.h, z3.h
  fadd z1.d, p0/m, z1.d, z3.d
  fadd z1.s, p0/m, z1.s, #0.5
  fsub z1.d, z2.d, z3.d
  fsub z1.s, p0/m, z1.s, z3.s
  fsubr z1.d, p0/m, z1.d, z3.d
  fmul z1.d, z2.d, z3.d
  fmul z1.s, z2.s, z3.s
  fmul z1.d, p0/m, z1.d, z3.d
  fmul z1.d, z2.d, z3.d[1]
  fmul z1.s, z2.s, z3.s[1]
  fmla z1.d, p0/m, z2.d, z3.d
  fmla z1.s, p0/m, z2.s, z3.s
  fmla z1.h, p0/m, z2.h, z3.h
  fmla z1.d, z2.d, z3.d[1]
  fmla z1.s, z2.s, z3.s[1]
  fmls z1.d, p0/m, z2.d, z3.d
  fnmla z1.d, p0/m, z2.d, z3.d
  fnmls z1.s, p0/m, z2.s, z3.s
  fmad z1.d, p0/m, z2.d, z3.d
  fmsb z1.s, p0/m, z2.s, z3.s
  fnmad z1.d, p0/m, z2.d, z3.d
  fdiv z1.d, p0/m, z1.d, z3.d
  fdiv z1.s, p0/m, z1.s, z3.s
  fdivr z1.d, p0/m, z1.d, z3.d
  fsqrt z1.d, p0/m, z2.d
  fsqrt z1.s, p0/m, z2.s
  fmax z1.d, p0/m, z1.d, z3.d
  fminnm z1.s, p0/m, z1.s, z3.s
  fabs z1.d, p0/m, z2.d
  fneg z1.s, p0/m, z2.s
  fabd z1.d, p0/m, z1.d, z3.d
  frecpe z1.d, z2.d
  frecps z1.d, z2.d, z3.d
  frsqrte z1.s, z2.s
  frintn z1.d, p0/m, z2.d
  frintz z1.s, p0/m, z2.s
  fcvt z1.d, p0/m, z2.s
  fcvt z1.s, p0/m, z2.d
  fcvtzs z1.d, p0/m, z2.d
  fcvtzs z1.s, p0/m, z2.s
  scvtf z1.d, p0/m, z2.d
  ucvtf z1.s, p0/m, z2.s
  scvtf z1.d, p0/m, z2.s
  fcmgt p1.d, p0/z, z2.d, z3.d
  fcmeq p1.s, p0/z, z2.s, #0.0
  fcmuo p1.d, p0/z, z2.d, z3.d
  facge p1.d, p0/z, z2.d, z3.d
  fcadd z1.d, p0/m, z1.d, z3.d, #90
  fcmla z1.d, p0/m, z2.d, z3.d, #90
  faddv d1, p0, z2.d
  faddv s1, p0, z2.s
  fadda d1, p0, d1, z2.d
  fmaxv d1, p0, z2.d
  fminnmv s1, p0, z2.s
  uaddv d1, p0, z2.d
  saddv d1, p0, z2.s
  smaxv s1, p0, z2.s
  orv d1, p0, z2.d
  eorv b1, p0, z2.b
  andv h1, p0, z2.h
  cmpeq p1.d, p0/z, z2.d, z3.d
  cmpgt p1.s, p0/z, z2.s, z3.s
  cmphi p1.b, p0/z, z2.b, z3.b
  cmple p1.d, p0/z, z2.d, #4
  cmpne p1.s, p0/z, z2.s, #0
  cmplo p1.d, p0/z, z2.d, #7
  cmpeq p1.d, p0/z, z2.d, z3.d
  ptrue p1.b
  ptrue p1.d
  ptrue p1.s, vl4
  ptrues p1.b
  pfalse p1.b
  pfirst p1.b, p0, p1.b
  pnext p1.d, p0, p1.d
  ptest p0, p1.b
  whilelo p1.d, x2, x3
  whilelo p1.b, wzr, w2
  whilelt p1.s, x2, x3
  whilele p1.h, w2, w3
  whilels p1.d, x2, x3
  whilewr p1.d, x2, x3
  whilerw p1.s, x2, x3
  and p1.b, p0/z, p2.b, p3.b
  orr p1.b, p0/z, p2.b, p3.b
  eor p1.b, p0/z, p2.b, p3.b
  bic p1.b, p0/z, p2.b, p3.b
  ands p1.b, p0/z, p2.b, p3.b
  orrs p1.b, p0/z, p2.b, p3.b
  nand p1.b, p0/z, p2.b, p3.b
  sel p1.b, p0, p2.b, p3.b
  mov p1.b, p2.b
  not p1.b, p0/z, p2.b
  brka p1.b, p0/z, p2.b
  brkb p1.b, p0/z, p2.b
  brkas p1.b, p0/z, p2.b
  brkn p1.b, p0/z, p2.b, p1.b
  punpklo p1.h, p2.b
  zip1 p1.d, p2.d, p3.d
  uzp1 p1.s, p2.s, p3.s
  rev p1.d, p2.d
  cntp x1, p0, p2.d
  incp x1, p2.d
  decp x1, p2.s
  incp z1.d, p2.d
  cntb x1
  cntd x1
  cntw x1, all, mul #2
  cnth x1, vl8
  incb x1
  incd x1
  incw x1, all, mul #4
  decd x1
  incd z1.d
  decw z1.s
  uqincd x1
  sqdecw x1
  uqdecd w1
  addvl x1, x2, #-1
  addvl sp, sp, #-2
  addpl x1, x2, #2
  rdvl x1, #1
  ctermeq x1, x2
  ctermne w1, w2
  setffr
  rdffr p1.b
  rdffr p1.b, p0/z
  rdffrs p1.b, p0/z
  wrffr p1.b
  zip1 z1.d, z2.d, z3.d
  zip2 z1.s, z2.s, z3.s
  uzp1 z1.s, z2.s, z3.s
  uzp2 z1.d, z2.d, z3.d
  trn1 z1.h, z2.h, z3.h
  rev z1.d, z2.d
  ext z1.b, z1.b, z2.b, #3
  splice z1.d, p0, z1.d, z2.d
  compact z1.d, p0, z2.d
  tbl z1.d, {z2.d}, z3.d
  sunpklo z1.d, z2.s
  uunpkhi z1.h, z2.b
  lasta x1, p0, z2.d
  lastb d1, p0, z2.d
  clasta x1, p0, x1, z2.d
  clastb z1.d, p0, z1.d, z2.d
  ld1b {z1.b}, p0/z, [x2]
  ld1b {z1.b}, p0/z, [x2, x3]
  ld1b {z1.s}, p0/z, [x2, #1, mul vl]
  ld1sb {z1.d}, p0/z, [x2]
  ld1h {z1.h}, p0/z, [x2, x3, lsl #1]
  ld1h {z1.h}, p0/z, [x2]
  ld1w {z1.s}, p0/z, [x2]
  ld1w {z1.s}, p0/z, [x2, #1, mul vl]
  ld1w {z1.s}, p0/z, [x2, x3, lsl #2]
  ld1w {z1.d}, p0/z, [x2, x3, lsl #2]
  ld1sw {z1.d}, p0/z, [x2]
  ld1d {z1.d}, p0/z, [x2]
  ld1d {z1.d}, p0/z, [x2, #1, mul vl]
  ld1d {z1.d}, p0/z, [x2, x3, lsl #3]
  ld1rb {z1.b}, p0/z, [x2]
  ld1rw {z1.s}, p0/z, [x2]
  ld1rd {z1.d}, p0/z, [x2]
  ld1rd {z1.d}, p0/z, [x2, #8]
  ld1rqd {z1.d}, p0/z, [x2]
  ld1rqw {z1.s}, p0/z, [x2, x3, lsl #2]
  ldff1d {z1.d}, p0/z, [x2, x3, lsl #3]
  ldff1w {z1.s}, p0/z, [x2]
  ldff1b {z1.b}, p0/z, [x2, x3]
  ldnf1d {z1.d}, p0/z, [x2]
  ldnf1w {z1.s}, p0/z, [x2, #1, mul vl]
  ldnt1d {z1.d}, p0/z, [x2]
  ldnt1w {z1.s}, p0/z, [x2, x3, lsl #2]
  ld2d {z1.d, z2.d}, p0/z, [x2]
  ld2w {z1.s, z2.s}, p0/z, [x2, x3, lsl #2]
  ld3d {z1.d, z2.d, z3.d}, p0/z, [x2]
  ld4w {z1.s, z2.s, z3.s, z4.s}, p0/z, [x2]
  ld1d {z1.d}, p0/z, [x2, z3.d, lsl #3]
  ld1d {z1.d}, p0/z, [x2, z3.d]
  ld1w {z1.s}, p0/z, [x2, z3.s, sxtw #2]
  ld1w {z1.s}, p0/z, [x2, z3.s, uxtw]
  ld1w {z1.d}, p0/z, [x2, z3.d, lsl #2]
  ld1d {z1.d}, p0/z, [z3.d]
  ld1d {z1.d}, p0/z, [z3.d, #8]
  ld1w {z1.s}, p0/z, [z3.s, #4]
  ld1b {z1.d}, p0/z, [x2, z3.d]
  ldff1d {z1.d}, p0/z, [x2, z3.d, lsl #3]
  ldr z1, [x2]
  ldr z1, [x2, #3, mul vl]
  ldr p1, [x2]
  ldr p1, [x2, #1, mul vl]
  st1b {z1.b}, p0, [x2]
  st1b {z1.b}, p0, [x2, x3]
  st1b {z1.d}, p0, [x2]
  st1h {z1.h}, p0, [x2, x3, lsl #1]
  st1w {z1.s}, p0, [x2]
  st1w {z1.s}, p0, [x2, #1, mul vl]
  st1w {z1.s}, p0, [x2, x3, lsl #2]
  st1w {z1.d}, p0, [x2, x3, lsl #2]
  st1d {z1.d}, p0, [x2]
  st1d {z1.d}, p0, [x2, #1, mul vl]
  st1d {z1.d}, p0, [x2, x3, lsl #3]
  stnt1d {z1.d}, p0, [x2]
  stnt1w {z1.s}, p0, [x2, x3, lsl #2]
  st2d {z1.d, z2.d}, p0, [x2]
  st3w {z1.s, z2.s, z3.s}, p0, [x2]
  st4d {z1.d, z2.d, z3.d, z4.d}, p0, [x2, x3, lsl #3]
  st1d {z1.d}, p0, [x2, z3.d, lsl #3]
  st1d {z1.d}, p0, [x2, z3.d]
  st1w {z1.s}, p0, [x2, z3.s, sxtw #2]
  st1d {z1.d}, p0, [z3.d]
  st1w {z1.s}, p0, [z3.s, #4]
  str z1, [x2]
  str z1, [x2, #3, mul vl]
  str p1, [x2]
  prfd pldl1keep, p0, [x2]
  prfw pldl1keep, p0, [x2, x3, lsl #2]
  prfb pldl2strm, p0, [x2, #1, mul vl]
  prfd pldl1keep, p0, [x2, z3.d, lsl #3]
  // SVE2
  saba z1.s, z2.s, z3.s
  uabalb z1.d, z2.s, z3.s
  sabdlt z1.h, z2.b, z3.b
  saddlb z1.d, z2.s, z3.s
  uaddwt z1.s, z1.s, z3.h
  smullb z1.d, z2.s, z3.s
  umullt z1.s, z2.h, z3.h
  smlalb z1.d, z2.s, z3.s
  umlslt z1.s, z2.h, z3.h
  sqdmulh z1.s, z2.s, z3.s
  sqrdmulh z1.d, z2.d, z3.d
  sqrdmlah z1.s, z2.s, z3.s
  sqdmlalb z1.d, z2.s, z3.s
  mul z1.d, z2.d, z3.d[1]
  mla z1.s, z2.s, z3.s[1]
  addp z1.s, p0/m, z1.s, z3.s
  faddp z1.d, p0/m, z1.d, z3.d
  fmaxnmp z1.s, p0/m, z1.s, z3.s
  shadd z1.s, p0/m, z1.s, z3.s
  urhadd z1.b, p0/m, z1.b, z3.b
  sqshl z1.d, p0/m, z1.d, z3.d
  srshr z1.s, p0/m, z1.s, #3
  ssra z1.d, z2.d, #5
  ursra z1.s, z2.s, #2
  sri z1.d, z2.d, #7
  sli z1.s, z2.s, #4
  shrnb z1.b, z2.h, #3
  sqxtnb z1.s, z2.d
  uqxtnt z1.h, z2.s
  sshllb z1.d, z2.s, #2
  ushllt z1.s, z2.h, #0
  eor3 z1.d, z1.d, z2.d, z3.d
  bcax z1.d, z1.d, z2.d, z3.d
  bsl z1.d, z1.d, z2.d, z3.d
  nbsl z1.d, z1.d, z2.d, z3.d
  xar z1.s, z1.s, z2.s, #3
  adclb z1.s, z2.s, z3.s
  cadd z1.s, z1.s, z2.s, #90
  cmla z1.s, z2.s, z3.s, #90
  cdot z1.s, z2.b, z3.b, #90
  histcnt z1.s, p0/z, z2.s, z3.s
  histseg z1.b, z2.b, z3.b
  match p1.b, p0/z, z2.b, z3.b
  nmatch p1.h, p0/z, z2.h, z3.h
  tbl z1.s, {z2.s, z3.s}, z4.s
  tbx z1.d, z2.d, z3.d
  whilege p1.d, x2, x3
  whilehi p1.s, x2, x3
  fmlalb z1.s, z2.h, z3.h
  fmlalt z1.s, z2.h, z3.h
  fcvtlt z1.d, p0/m, z2.s
  fcvtnt z1.s, p0/m, z2.d
  flogb z1.d, p0/m, z2.d
  ldnt1d {z1.d}, p0/z, [z2.d, x3]
  ldnt1w {z1.s}, p0/z, [z2.s]
  stnt1d {z1.d}, p0, [z2.d, x3]
  aese z1.b, z1.b, z2.b
  pmullb z1.q, z2.d, z3.d
  bext z1.d, z2.d, z3.d
  bdep z1.s, z2.s, z3.s
  bgrp z1.h, z2.h, z3.h
  smmla z1.s, z2.b, z3.b
  fmmla z1.d, z2.d, z3.d
  bfdot z1.s, z2.h, z3.h
  bfmmla z1.s, z2.h, z3.h
