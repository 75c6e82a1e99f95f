// FMLA accumulation chain (V2 SWOG: FMLA 4 (2), accumulate latency 2)
.Lloop:
    fmla v0.2d, v1.2d, v2.2d
    subs x2, x2, #1
    b.ne .Lloop
