// dot product, four accumulators: 8 q-loads on 3 load pipes (8 / 3 = 2.67) over 4 FMLA chains of 2
.Lloop:
    ldr q4, [x0, #0]
    ldr q5, [x1, #0]
    fmla v0.2d, v4.2d, v5.2d
    ldr q6, [x0, #16]
    ldr q7, [x1, #16]
    fmla v1.2d, v6.2d, v7.2d
    ldr q16, [x0, #32]
    ldr q17, [x1, #32]
    fmla v2.2d, v16.2d, v17.2d
    ldr q18, [x0, #48]
    ldr q19, [x1, #48]
    fmla v3.2d, v18.2d, v19.2d
    add x0, x0, #64
    add x1, x1, #64
    subs x2, x2, #1
    b.ne .Lloop
