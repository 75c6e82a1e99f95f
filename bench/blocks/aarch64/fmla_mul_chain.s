// FMLA through a multiplicand: no late forwarding (V2 SWOG: 4)
.Lloop:
    fmla v0.2d, v0.2d, v2.2d
    subs x2, x2, #1
    b.ne .Lloop
