// FMUL latency chain (V2 SWOG: FMUL 3)
.Lloop:
    fmul d0, d0, d1
    subs x2, x2, #1
    b.ne .Lloop
