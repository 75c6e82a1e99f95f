// triad a[i] = b[i] + s * c[i], two doubles per iteration
.Lloop:
    ldr q0, [x1, x4]
    ldr q1, [x2, x4]
    fmla v0.2d, v1.2d, v2.2d
    str q0, [x0, x4]
    add x4, x4, #16
    cmp x4, x3
    b.ne .Lloop
