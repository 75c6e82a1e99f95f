// six independent loads on the three load pipes (6 / 3 = 2)
.Lloop:
    ldr x3, [x1, #0]
    ldr x4, [x1, #8]
    ldr x5, [x1, #16]
    ldr x6, [x1, #24]
    ldr x7, [x1, #32]
    ldr x8, [x1, #40]
    subs x0, x0, #1
    b.ne .Lloop
