// SVE FMLA accumulation chain (V2 SWOG: SVE FMLA latency 4, 2 into the accumulator of the next)
.Lloop:
    fmla z0.d, p0/m, z1.d, z2.d
    subs x2, x2, #1
    b.ne .Lloop
